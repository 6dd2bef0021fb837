/// An 8-bit RGBA bitmap: the one image representation the example works with.
///
/// The tutorial used `UIImage`; on Linux there is no image framework, so the example
/// carries just enough image code of its own: PNG reading and writing
/// (``PNGDecoder``, ``PNGEncoder``), downscaling for thumbnails, and drawing the sample
/// creatures.
struct RGBAImage: Equatable, Sendable {
    let width: Int
    let height: Int
    /// Row-major RGBA bytes, `width * height * 4` of them.
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A canvas filled with one colour.
    init(width: Int, height: Int, fill: RGBA) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            pixels[index * 4] = fill.red
            pixels[index * 4 + 1] = fill.green
            pixels[index * 4 + 2] = fill.blue
            pixels[index * 4 + 3] = fill.alpha
        }
    }

    subscript(x: Int, y: Int) -> RGBA {
        get {
            let offset = (y * width + x) * 4
            return RGBA(pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
        }
        set {
            let offset = (y * width + x) * 4
            pixels[offset] = newValue.red
            pixels[offset + 1] = newValue.green
            pixels[offset + 2] = newValue.blue
            pixels[offset + 3] = newValue.alpha
        }
    }

    /// A copy no larger than `maximum` on either side, keeping the aspect ratio, each
    /// output pixel the average of the source pixels it covers (a box filter, which is
    /// what a thumbnail wants: no aliasing, no ringing).
    func scaled(toFit maximum: Int) -> RGBAImage {
        guard width > maximum || height > maximum else { return self }
        let scale = Double(maximum) / Double(max(width, height))
        let newWidth = max(1, Int((Double(width) * scale).rounded()))
        let newHeight = max(1, Int((Double(height) * scale).rounded()))
        var result = RGBAImage(width: newWidth, height: newHeight, fill: RGBA(0, 0, 0, 0))
        for y in 0..<newHeight {
            let sourceTop = y * height / newHeight
            let sourceBottom = max(sourceTop + 1, (y + 1) * height / newHeight)
            for x in 0..<newWidth {
                let sourceLeft = x * width / newWidth
                let sourceRight = max(sourceLeft + 1, (x + 1) * width / newWidth)
                var sums = (0, 0, 0, 0)
                for sourceY in sourceTop..<sourceBottom {
                    for sourceX in sourceLeft..<sourceRight {
                        let pixel = self[sourceX, sourceY]
                        // Weight colour by alpha so transparent pixels don't darken edges.
                        let alpha = Int(pixel.alpha)
                        sums.0 += Int(pixel.red) * alpha
                        sums.1 += Int(pixel.green) * alpha
                        sums.2 += Int(pixel.blue) * alpha
                        sums.3 += alpha
                    }
                }
                let count = (sourceBottom - sourceTop) * (sourceRight - sourceLeft)
                let alphaTotal = max(sums.3, 1)
                result[x, y] = RGBA(
                    UInt8(sums.0 / alphaTotal), UInt8(sums.1 / alphaTotal), UInt8(sums.2 / alphaTotal),
                    UInt8(sums.3 / count))
            }
        }
        return result
    }
}

/// One RGBA pixel.
struct RGBA: Equatable, Sendable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8
    var alpha: UInt8

    init(_ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }
}
