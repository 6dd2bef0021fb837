/// Draws the small generated pictures that stand in for the tutorial's photos: a bug
/// seen from above, its colours and number of legs derived from the creature's title so
/// each sample looks different and the same title always draws the same picture.
enum CreatureArt {
    static func image(for title: String, size: Int = 256) -> RGBAImage {
        // A stable hash (FNV-1a): Swift's Hasher is seeded per process.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in title.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let body = RGBA(UInt8(60 + hash % 160), UInt8(40 + (hash >> 8) % 120), UInt8(30 + (hash >> 16) % 100))
        let background = RGBA(238, 232, 214)
        let dark = RGBA(40, 30, 25)
        let legPairs = 3 + Int((hash >> 24) % 4)
        var image = RGBAImage(width: size, height: size, fill: background)
        let center = Double(size) / 2
        let bodyRadiusX = Double(size) * 0.22
        let bodyRadiusY = Double(size) * 0.32

        // Legs first, so the body covers their inner ends.
        for pair in 0..<legPairs {
            let y = center - bodyRadiusY * 0.6 + Double(pair) * (bodyRadiusY * 1.2 / Double(max(1, legPairs - 1)))
            for side in [-1.0, 1.0] {
                drawLine(
                    &image, from: (center, y), to: (center + side * Double(size) * 0.42, y + Double(size) * 0.06),
                    width: Double(size) / 64, color: dark)
            }
        }
        fillEllipse(&image, center: (center, center + bodyRadiusY * 0.1), radii: (bodyRadiusX, bodyRadiusY), color: body)
        fillEllipse(
            &image, center: (center, center - bodyRadiusY * 1.05), radii: (bodyRadiusX * 0.6, bodyRadiusX * 0.5),
            color: dark)
        for side in [-1.0, 1.0] {
            fillEllipse(
                &image, center: (center + side * bodyRadiusX * 0.25, center - bodyRadiusY * 1.1),
                radii: (Double(size) / 40, Double(size) / 40), color: RGBA(250, 250, 240))
        }
        // A stripe down the back.
        drawLine(
            &image, from: (center, center - bodyRadiusY * 0.75), to: (center, center + bodyRadiusY * 1.05),
            width: Double(size) / 90, color: dark)
        return image
    }

    private static func fillEllipse(
        _ image: inout RGBAImage, center: (Double, Double), radii: (Double, Double), color: RGBA
    ) {
        let minY = max(0, Int(center.1 - radii.1))
        let maxY = min(image.height - 1, Int(center.1 + radii.1))
        let minX = max(0, Int(center.0 - radii.0))
        let maxX = min(image.width - 1, Int(center.0 + radii.0))
        guard minY <= maxY, minX <= maxX else { return }
        for y in minY...maxY {
            for x in minX...maxX {
                let dx = (Double(x) + 0.5 - center.0) / radii.0
                let dy = (Double(y) + 0.5 - center.1) / radii.1
                if dx * dx + dy * dy <= 1 { image[x, y] = color }
            }
        }
    }

    private static func drawLine(
        _ image: inout RGBAImage, from start: (Double, Double), to end: (Double, Double), width: Double, color: RGBA
    ) {
        let steps = Int(max(abs(end.0 - start.0), abs(end.1 - start.1))) + 1
        for step in 0...steps {
            let t = Double(step) / Double(steps)
            let point = (start.0 + (end.0 - start.0) * t, start.1 + (end.1 - start.1) * t)
            fillEllipse(&image, center: point, radii: (width, width), color: color)
        }
    }
}
