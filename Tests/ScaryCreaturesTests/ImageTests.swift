import Foundation
import Testing

@testable import scary_creatures

@Suite struct ImageTests {
    @Test func pngRoundTripsExactly() throws {
        let image = CreatureArt.image(for: "Potato Bug", size: 96)
        #expect(try PNGDecoder.decode(PNGEncoder.encode(image)) == image)
    }

    @Test func generatedPicturesDifferByTitleAndAreStable() {
        #expect(CreatureArt.image(for: "A", size: 32) == CreatureArt.image(for: "A", size: 32))
        #expect(CreatureArt.image(for: "A", size: 32) != CreatureArt.image(for: "B", size: 32))
    }

    @Test func thumbnailsKeepTheAspectRatioAndAverage() {
        var image = RGBAImage(width: 200, height: 100, fill: RGBA(0, 0, 0))
        for y in 0..<100 { for x in stride(from: 0, to: 200, by: 2) { image[x, y] = RGBA(255, 255, 255) } }
        let thumb = image.scaled(toFit: 64)
        #expect(thumb.width == 64 && thumb.height == 32)
        // Each pixel of a 4:1 reduction covers two black and two white columns: grey.
        let quarter = image.scaled(toFit: 50)
        #expect(quarter.width == 50 && quarter.height == 25)
        #expect(quarter[20, 10].red == 127)
        #expect(image.scaled(toFit: 400) == image, "never upscale")
    }

    /// A PNG written by a different encoder (dynamic Huffman blocks, several filters),
    /// built here byte by byte with zlib from python3 when it is present.
    @Test func decodesPNGsFromOtherEncoders() throws {
        let python = "/usr/bin/env"
        let script = """
            import zlib, struct, sys
            w, h = 40, 30
            raw = b''
            for y in range(h):
                raw += bytes([y % 5]) + bytes((x * 7 + y * 3 + c * 50) % 256 for x in range(w) for c in range(3))
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
            sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["python3", "-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return }  // no python3: nothing to compare with
        let bytes = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return }
        let image = try PNGDecoder.decode([UInt8](bytes))
        #expect(image.width == 40 && image.height == 30)
        // Rows were written with filters 0–4 applied to already-final bytes, so decoded
        // values differ from the raw ones except on filter-0 rows: check those.
        for y in stride(from: 0, to: 30, by: 5) {
            for x in [0, 13, 39] {
                let expected = RGBA(
                    UInt8((x * 7 + y * 3) % 256), UInt8((x * 7 + y * 3 + 50) % 256),
                    UInt8((x * 7 + y * 3 + 100) % 256))
                #expect(image[x, y] == expected, "pixel \(x),\(y)")
            }
        }
    }

    @Test(arguments: [
        [UInt8](),
        [0x89, 0x50, 0x4E, 0x47],
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x49, 0x48, 0x44, 0x52],
    ])
    func truncatedOrCorruptPNGsThrow(bytes: [UInt8]) {
        #expect(throws: PNGError.self) { try PNGDecoder.decode(bytes) }
    }

    @Test func corruptedCompressedDataThrowsInsteadOfCrashing() {
        let good = PNGEncoder.encode(CreatureArt.image(for: "X", size: 24))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var bad = good
            for _ in 0..<4 {
                let index = Int.random(in: 33..<bad.count, using: &generator)
                bad[index] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? PNGDecoder.decode(bad)
        }
        var huge = good
        // Claim a 100000 × 100000 image in IHDR: refused before allocating.
        huge.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
        #expect(throws: PNGError.self) { try PNGDecoder.decode(huge) }
    }
}
