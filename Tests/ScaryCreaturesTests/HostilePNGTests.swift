import Foundation
import Testing

@testable import scary_creatures

/// PNG files built byte by byte, to say exactly what a hostile file claims.
enum HostilePNG {
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(UInt32(data.count))
        bytes += Array(type.utf8) + data
        bytes.appendBigEndian(CRC32.checksum(Array(type.utf8) + data))
        return bytes
    }

    /// The 13 bytes of an IHDR chunk.
    static func header(
        width: UInt32, height: UInt32, depth: UInt8 = 8, colorType: UInt8 = 6, compression: UInt8 = 0,
        filter: UInt8 = 0, interlace: UInt8 = 0
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(width)
        bytes.appendBigEndian(height)
        return bytes + [depth, colorType, compression, filter, interlace]
    }

    /// A PNG file: the signature, IHDR with `header`, `chunks`, IDAT with `imageData`, IEND.
    static func file(header: [UInt8], chunks: [[UInt8]] = [], imageData: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", header)
        for chunk in chunks { bytes += chunk }
        bytes += chunk("IDAT", imageData)
        bytes += chunk("IEND", [])
        return bytes
    }

    /// A zlib stream that inflates to `count` zero bytes, compressed about 160 to 1 with
    /// fixed Huffman codes: one literal 0, then copies of 258 bytes at distance 1 (13 bits
    /// each), then literals for the rest. Zero bytes are valid image data: every row has
    /// filter 0 and transparent black pixels.
    static func zeros(_ count: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // final block
        writer.write(1, bits: 2)  // fixed Huffman
        var remaining = count
        if remaining > 0 {
            writer.writeReversed(0x30, bits: 8)  // literal 0
            remaining -= 1
        }
        while remaining >= 258 {
            writer.writeReversed(0xC5, bits: 8)  // length symbol 285: 258 bytes
            writer.writeReversed(0, bits: 5)  // distance code 0: distance 1
            remaining -= 258
        }
        for _ in 0..<remaining { writer.writeReversed(0x30, bits: 8) }
        writer.writeReversed(0, bits: 7)  // end of block
        var stream: [UInt8] = [0x78, 0x01] + writer.finish()
        // The Adler-32 of `count` zeros, without making them.
        stream.appendBigEndian(UInt32(count % 65_521) << 16 | 1)
        return stream
    }
}

@Suite struct HostilePNGTests {
    static func decodingError(_ bytes: [UInt8]) -> String? {
        do {
            _ = try PNGDecoder.decode(bytes)
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test func theZeroStreamHelperMakesValidImages() throws {
        let image = try PNGDecoder.decode(
            HostilePNG.file(
                header: HostilePNG.header(width: 10, height: 10), imageData: HostilePNG.zeros(410)))
        #expect(image == RGBAImage(width: 10, height: 10, fill: RGBA(0, 0, 0, 0)))
        let tooMuch = HostilePNG.file(
            header: HostilePNG.header(width: 10, height: 10), imageData: HostilePNG.zeros(1000))
        #expect(Self.decodingError(tooMuch) == "image data is larger than its size")
    }

    /// Every IHDR value is checked before anything is allocated from it.
    @Test(arguments: [
        (HostilePNG.header(width: 0, height: 10), "has no pixels"),
        (HostilePNG.header(width: 1 << 31, height: 1), "larger than PNG allows"),
        (HostilePNG.header(width: .max, height: .max), "larger than PNG allows"),
        (HostilePNG.header(width: 65_536, height: 65_536), "more pixels than the limit of 16777216"),
        (HostilePNG.header(width: 4097, height: 4096), "more pixels than the limit"),
        // 16 million 16-bit RGBA pixels: 128 MiB of image data, which cost 544 MB before.
        (HostilePNG.header(width: 4096, height: 4096, depth: 16), "needs 134221824 bytes of image data"),
        (HostilePNG.header(width: 4, height: 4, depth: 3), "bit depth 3 is invalid"),
        (HostilePNG.header(width: 4, height: 4, colorType: 5), "colour type 5"),
        (HostilePNG.header(width: 4, height: 4, compression: 1), "unknown compression method 1"),
        (HostilePNG.header(width: 4, height: 4, filter: 1), "unknown filter method 1"),
        (HostilePNG.header(width: 4, height: 4, interlace: 1), "interlaced PNGs are not supported"),
        (HostilePNG.header(width: 4, height: 4, interlace: 2), "unknown interlace method 2"),
        (Array(HostilePNG.header(width: 4, height: 4).prefix(12)), "IHDR has 12 bytes, expected 13"),
    ])
    func badHeadersAreRefused(header: [UInt8], message: String) throws {
        let error = try #require(
            Self.decodingError(HostilePNG.file(header: header, imageData: [0x78, 0x01])))
        #expect(error.contains(message), "\(error)")
    }

    @Test func chunkOrderAndSizesAreChecked() {
        let header = HostilePNG.header(width: 2, height: 2, colorType: 3)
        let data = HostilePNG.zeros(6)
        let cases: [([UInt8], String)] = [
            (
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + HostilePNG.chunk("IDAT", data)
                    + HostilePNG.chunk("IHDR", header),
                "chunk IDAT at byte 8 comes before IHDR"
            ),
            (
                HostilePNG.file(header: header, chunks: [HostilePNG.chunk("IHDR", header)], imageData: data),
                "second IHDR"
            ),
            (
                HostilePNG.file(header: header, chunks: [HostilePNG.chunk("PLTE", [])], imageData: data),
                "bad palette length 0"
            ),
            (
                HostilePNG.file(
                    header: header, chunks: [HostilePNG.chunk("PLTE", [UInt8](repeating: 1, count: 771))],
                    imageData: data),
                "bad palette length 771"
            ),
            (
                HostilePNG.file(
                    header: header,
                    chunks: [HostilePNG.chunk("PLTE", [1, 2, 3]), HostilePNG.chunk("PLTE", [1, 2, 3])],
                    imageData: data),
                "second PLTE"
            ),
            (
                HostilePNG.file(
                    header: header,
                    chunks: [
                        HostilePNG.chunk("PLTE", [1, 2, 3]),
                        HostilePNG.chunk("tRNS", [UInt8](repeating: 0, count: 257)),
                    ],
                    imageData: data),
                "bad transparency length 257"
            ),
            (HostilePNG.file(header: header, imageData: data), "palette image without PLTE"),
        ]
        for (bytes, message) in cases {
            let error = Self.decodingError(bytes)
            #expect(error?.contains(message) == true, "\(message): \(error ?? "decoded")")
        }
        let good = HostilePNG.file(
            header: header, chunks: [HostilePNG.chunk("PLTE", [9, 8, 7])], imageData: data)
        #expect(Self.decodingError(good) == nil)
    }

    /// A 1 KB file claiming 64 MiB of image data is refused before inflating anything:
    /// 1 KB of deflate data cannot inflate to more than about 1 MB.
    @Test func aSmallFileClaimingHugeDataFailsFast() throws {
        let bytes = HostilePNG.file(
            header: HostilePNG.header(width: 4096, height: 4096),
            imageData: [0x78, 0x01] + [UInt8](repeating: 0xAA, count: 1022))
        let clock = ContinuousClock()
        var error: String?
        let elapsed = clock.measure { error = Self.decodingError(bytes) }
        #expect(
            error
                == "image data of 1024 bytes cannot inflate to the 67112960 bytes the header claims "
                + "(at most 1032 bytes come from each byte)")
        #expect(elapsed < .milliseconds(200), "took \(elapsed)")
    }

    @Test func theLimitsFitTheLargestPermittedImage() throws {
        let header = try PNGDecoder.Header(HostilePNG.header(width: 4096, height: 4096))
        #expect(header.dataBytes == (4096 * 4 + 1) * 4096)
        #expect(header.dataBytes <= PNGDecoder.maximumImageDataBytes)
        #expect(PNGDecoder.maximumFileBytes > PNGDecoder.maximumImageDataBytes)
        // The zero stream helper compresses as claimed, so the test below is small.
        #expect(HostilePNG.zeros(258 * 1000 + 1).count < 1700)
    }

    /// The thumbnail from the issue: under 1 MB, claiming 16-bit RGBA 4096×4096. `show`
    /// inflated it into 134 MB, growing the buffer by doubling, and peaked at 340 MB
    /// resident. The real binary runs it in a child whose data size is capped at 96 MiB
    /// (`ulimit -d`): the old decoder died allocating; this one refuses the header.
    /// (`ru_maxrss` from `wait4` cannot measure this: a child spawned from this large test
    /// process inherits the parent's high-water mark at `exec`.)
    @Test(
        .enabled(if: DurableSaveTests.executable != nil, "scary-creatures was not built"),
        .disabled(
            if: dlsym(dlopen(nil, RTLD_NOW), "__asan_init") != nil,
            "AddressSanitizer reserves its shadow memory beyond any small data-size cap"))
    func showingAHostileThumbnailFitsInASmallMemoryCap() throws {
        let executable = try #require(DurableSaveTests.executable)
        let temporary = try TemporaryDatabase()
        try temporary.add("Potato Bug")
        let png = HostilePNG.file(
            header: HostilePNG.header(width: 4096, height: 4096, depth: 16),
            imageData: HostilePNG.zeros((4096 * 8 + 1) * 4096))
        #expect(png.count < 1_000_000)
        for name in ["thumbImage.png", "fullImage.png"] {
            try Data(png).write(to: temporary.folder(1).appendingPathComponent(name))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", #"ulimit -d 98304 && exec "$@""#, "sh", executable.path, "--database", temporary.root.path,
            "show", "1",
        ]
        process.environment = ["SWIFT_BACKTRACE": "enable=no"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "\(printed)")
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed.contains("thumbnail: unreadable PNG, \(png.count) bytes"), "\(printed)")
        #expect(printed.contains("needs 134221824 bytes of image data"), "\(printed)")
    }
}
