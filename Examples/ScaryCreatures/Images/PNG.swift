/// Why a PNG could not be read.
struct PNGError: Error, CustomStringConvertible, Equatable {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes RGBA images as PNG: one IDAT of zlib data compressed with fixed-Huffman
/// deflate, filter "Sub" on every row (which turns flat areas into runs of zeros).
enum PNGEncoder {
    static func encode(_ image: RGBAImage) -> [UInt8] {
        var output: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header += [8, 6, 0, 0, 0]  // 8-bit, RGBA, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &output)

        let stride = image.width * 4
        var filtered: [UInt8] = []
        filtered.reserveCapacity((stride + 1) * image.height)
        for y in 0..<image.height {
            filtered.append(1)  // Sub
            let row = y * stride
            for x in 0..<stride {
                let left = x >= 4 ? image.pixels[row + x - 4] : 0
                filtered.append(image.pixels[row + x] &- left)
            }
        }
        appendChunk("IDAT", ZlibStream.compress(filtered), to: &output)
        appendChunk("IEND", [], to: &output)
        return output
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to output: inout [UInt8]) {
        output.appendBigEndian(UInt32(data.count))
        let typeBytes = Array(type.utf8)
        output += typeBytes
        output += data
        output.appendBigEndian(CRC32.checksum(typeBytes + data))
    }
}

/// Reads PNG files: every colour type and bit depth of the specification, without
/// interlacing, into 8-bit RGBA.
///
/// A PNG file is untrusted input, so every value it holds is checked before anything is
/// allocated from it: the header's dimensions against ``maximumPixelBytes`` and
/// ``maximumImageDataBytes``, and the size the header claims for the inflated data
/// against what the compressed bytes could possibly inflate to
/// (``Inflate/maximumExpansion``). A small file that claims a huge image is refused at
/// once; memory never grows past the limits, whatever the file says. Bad files throw
/// ``PNGError``.
enum PNGDecoder {
    /// Refuse images whose decoded pixels would exceed this many bytes (64 MiB, 4 bytes
    /// a pixel).
    static let maximumPixelBytes = 64 << 20
    /// Refuse images whose inflated data (the filtered rows with their filter bytes) would
    /// exceed this many bytes: the pixel limit and a sixteenth, so that an 8-bit RGBA image
    /// at the pixel limit fits, but a 16-bit one (8 bytes a pixel) must be smaller.
    static let maximumImageDataBytes = maximumPixelBytes + maximumPixelBytes / 16
    /// The largest PNG file the example reads: room for the largest image data stored
    /// uncompressed, plus ancillary chunks.
    static let maximumFileBytes = maximumImageDataBytes + (8 << 20)

    /// What IHDR says, after every value has been checked.
    struct Header: Equatable {
        let width: Int
        let height: Int
        let depth: Int
        let colorType: Int
        /// Samples per pixel.
        let channels: Int
        /// Bytes of one row of pixels, without its filter byte.
        let stride: Int
        /// Bytes of inflated data the image needs: every row and its filter byte.
        let dataBytes: Int

        /// Checks an IHDR chunk's 13 bytes and the limits they imply.
        init(_ chunk: [UInt8]) throws {
            guard chunk.count == 13 else { throw PNGError("IHDR has \(chunk.count) bytes, expected 13") }
            width = Int(chunk.readBigEndianUInt32(at: 0))
            height = Int(chunk.readBigEndianUInt32(at: 4))
            depth = Int(chunk[8])
            colorType = Int(chunk[9])
            guard width > 0, height > 0 else { throw PNGError("image of \(width)×\(height) has no pixels") }
            // The specification caps each side at 2^31 - 1.
            guard width <= Int(Int32.max), height <= Int(Int32.max) else {
                throw PNGError("image of \(width)×\(height) is larger than PNG allows")
            }
            switch (colorType, depth) {
            case (0, 1), (0, 2), (0, 4), (0, 8), (0, 16): channels = 1
            case (2, 8), (2, 16): channels = 3
            case (3, 1), (3, 2), (3, 4), (3, 8): channels = 1
            case (4, 8), (4, 16): channels = 2
            case (6, 8), (6, 16): channels = 4
            default: throw PNGError("colour type \(colorType) with bit depth \(depth) is invalid")
            }
            guard chunk[10] == 0 else { throw PNGError("unknown compression method \(chunk[10])") }
            guard chunk[11] == 0 else { throw PNGError("unknown filter method \(chunk[11])") }
            switch chunk[12] {
            case 0: break
            case 1: throw PNGError("interlaced PNGs are not supported")
            default: throw PNGError("unknown interlace method \(chunk[12])")
            }
            // Both sides are below 2^31, so their product cannot overflow 64 bits; once it is
            // within the limit, so are the products below.
            guard width * height <= maximumPixelBytes / 4 else {
                throw PNGError(
                    "image of \(width)×\(height) has more pixels than the limit of \(maximumPixelBytes / 4)")
            }
            stride = (width * channels * depth + 7) / 8
            dataBytes = (stride + 1) * height
            guard dataBytes <= maximumImageDataBytes else {
                throw PNGError(
                    "image of \(width)×\(height) at \(channels * depth) bits a pixel needs \(dataBytes) "
                        + "bytes of image data, more than the limit of \(maximumImageDataBytes)")
            }
        }
    }

    static func decode(_ bytes: [UInt8]) throws -> RGBAImage {
        guard bytes.count >= 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        else { throw PNGError("not a PNG file (bad signature)") }
        var position = 8
        var header: Header?
        var paletteChunk: [RGBA]?
        var transparency: [UInt8] = []
        var compressed: [UInt8] = []
        var sawEnd = false
        while position + 12 <= bytes.count, !sawEnd {
            let length = Int(bytes.readBigEndianUInt32(at: position))
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            let dataStart = position + 8
            guard length <= bytes.count - dataStart - 4 else {
                throw PNGError("chunk \(type) at byte \(position) runs past the end of the file")
            }
            let data = bytes[dataStart..<(dataStart + length)]
            // IHDR comes first, so every later chunk is checked against a validated header.
            if header == nil && type != "IHDR" {
                throw PNGError("chunk \(type) at byte \(position) comes before IHDR")
            }
            switch type {
            case "IHDR":
                guard header == nil else { throw PNGError("second IHDR at byte \(position)") }
                header = try Header(Array(data))
            case "PLTE":
                guard paletteChunk == nil else { throw PNGError("second PLTE at byte \(position)") }
                guard length > 0, length % 3 == 0, length <= 768 else {
                    throw PNGError("bad palette length \(length) at byte \(position)")
                }
                paletteChunk = Swift.stride(from: dataStart, to: dataStart + length, by: 3).map {
                    RGBA(bytes[$0], bytes[$0 + 1], bytes[$0 + 2])
                }
            case "tRNS":
                guard length <= 256 else {
                    throw PNGError("bad transparency length \(length) at byte \(position)")
                }
                transparency = Array(data)
            case "IDAT":
                compressed.append(contentsOf: data)
            case "IEND":
                sawEnd = true
            default:
                break  // ancillary chunks are ignored
            }
            position = dataStart + length + 4
        }
        guard let header else { throw PNGError("no IHDR chunk") }
        if header.colorType == 3 && paletteChunk == nil { throw PNGError("palette image without PLTE") }
        let palette = paletteChunk ?? []
        let bitsPerPixel = header.channels * header.depth
        let stride = header.stride
        let bytesPerPixel = max(1, bitsPerPixel / 8)
        let expected = header.dataBytes
        let raw = try ZlibStream.decompress(compressed, expectedSize: expected)
        guard raw.count == expected else {
            throw PNGError("image data has \(raw.count) bytes, expected \(expected)")
        }
        var previous = [UInt8](repeating: 0, count: stride)
        var current = [UInt8](repeating: 0, count: stride)
        var image = RGBAImage(width: header.width, height: header.height, fill: RGBA(0, 0, 0, 0))
        for y in 0..<header.height {
            let rowStart = y * (stride + 1)
            let filter = raw[rowStart]
            for x in 0..<stride {
                let value = raw[rowStart + 1 + x]
                let left = x >= bytesPerPixel ? current[x - bytesPerPixel] : 0
                let up = previous[x]
                let upLeft = x >= bytesPerPixel ? previous[x - bytesPerPixel] : 0
                switch filter {
                case 0: current[x] = value
                case 1: current[x] = value &+ left
                case 2: current[x] = value &+ up
                case 3: current[x] = value &+ UInt8((Int(left) + Int(up)) / 2)
                case 4: current[x] = value &+ paeth(left, up, upLeft)
                default: throw PNGError("row \(y) has unknown filter \(filter)")
                }
            }
            for x in 0..<header.width {
                image[x, y] = try pixel(
                    x, row: current, depth: header.depth, colorType: header.colorType,
                    palette: palette, transparency: transparency)
            }
            swap(&previous, &current)
        }
        return image
    }

    private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a))
        let pb = abs(p - Int(b))
        let pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    private static func sample(_ row: [UInt8], index: Int, depth: Int) -> Int {
        switch depth {
        case 16: return Int(row[index * 2])  // keep the high byte
        case 8: return Int(row[index])
        default:
            let bitOffset = index * depth
            let byte = Int(row[bitOffset / 8])
            let shift = 8 - depth - bitOffset % 8
            return (byte >> shift) & ((1 << depth) - 1)
        }
    }

    private static func pixel(
        _ x: Int, row: [UInt8], depth: Int, colorType: Int, palette: [RGBA], transparency: [UInt8]
    ) throws -> RGBA {
        func scaled(_ value: Int) -> UInt8 {
            depth >= 8 ? UInt8(value) : UInt8(value * 255 / ((1 << depth) - 1))
        }
        switch colorType {
        case 0:
            let gray = scaled(sample(row, index: x, depth: depth))
            return RGBA(gray, gray, gray)
        case 2:
            return RGBA(
                UInt8(sample(row, index: x * 3, depth: depth)),
                UInt8(sample(row, index: x * 3 + 1, depth: depth)),
                UInt8(sample(row, index: x * 3 + 2, depth: depth)))
        case 3:
            let index = sample(row, index: x, depth: depth)
            guard index < palette.count else { throw PNGError("palette index \(index) out of range") }
            var color = palette[index]
            if index < transparency.count { color.alpha = transparency[index] }
            return color
        case 4:
            let gray = UInt8(sample(row, index: x * 2, depth: depth))
            return RGBA(gray, gray, gray, UInt8(sample(row, index: x * 2 + 1, depth: depth)))
        default:
            return RGBA(
                UInt8(sample(row, index: x * 4, depth: depth)),
                UInt8(sample(row, index: x * 4 + 1, depth: depth)),
                UInt8(sample(row, index: x * 4 + 2, depth: depth)),
                UInt8(sample(row, index: x * 4 + 3, depth: depth)))
        }
    }
}

// MARK: - zlib and deflate

/// A zlib stream (RFC 1950) around deflate data (RFC 1951).
enum ZlibStream {
    static func compress(_ data: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        output += Deflate.compress(data)
        output.appendBigEndian(Adler32.checksum(data))
        return output
    }

    /// Inflates `data` to exactly `expectedSize` bytes, or throws.
    ///
    /// Before inflating anything, `expectedSize` is checked against the most that
    /// `data.count` bytes can inflate to, so a header's claim is never trusted beyond what
    /// the file's own length can justify.
    static func decompress(_ data: [UInt8], expectedSize: Int) throws -> [UInt8] {
        guard data.count >= 6 else { throw PNGError("image data is too short") }
        let (most, overflow) = (data.count - 2).multipliedReportingOverflow(by: Inflate.maximumExpansion)
        guard !overflow, expectedSize <= most else {
            throw PNGError(
                "image data of \(data.count) bytes cannot inflate to the \(expectedSize) bytes the header "
                    + "claims (at most \(Inflate.maximumExpansion) bytes come from each byte)")
        }
        guard data[0] & 0x0F == 8, (Int(data[0]) << 8 | Int(data[1])) % 31 == 0, data[1] & 0x20 == 0 else {
            throw PNGError("image data is not a zlib stream")
        }
        return try Inflate.decompress(Array(data[2...]), limit: expectedSize)
    }
}

/// Fixed-Huffman deflate with greedy LZ77 matching through a hash of 3-byte prefixes.
enum Deflate {
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // final block
        writer.write(1, bits: 2)  // fixed Huffman
        var head = [Int](repeating: -1, count: 1 << 15)
        var position = 0
        while position < input.count {
            var bestLength = 0
            var bestDistance = 0
            if position + 3 <= input.count {
                let hash =
                    (Int(input[position]) << 10 ^ Int(input[position + 1]) << 5 ^ Int(input[position + 2]))
                    & 0x7FFF
                let candidate = head[hash]
                head[hash] = position
                if candidate >= 0 && position - candidate <= 32_768 {
                    var length = 0
                    while length < 258, position + length < input.count,
                        input[candidate + length] == input[position + length]
                    {
                        length += 1
                    }
                    if length >= 3 {
                        bestLength = length
                        bestDistance = position - candidate
                    }
                }
            }
            if bestLength >= 3 {
                writeLength(bestLength, to: &writer)
                writeDistance(bestDistance, to: &writer)
                // Index the skipped positions so later runs find them.
                for skipped in (position + 1)..<min(position + bestLength, input.count - 2) {
                    let hash =
                        (Int(input[skipped]) << 10 ^ Int(input[skipped + 1]) << 5 ^ Int(input[skipped + 2]))
                        & 0x7FFF
                    head[hash] = skipped
                }
                position += bestLength
            } else {
                writeLiteral(Int(input[position]), to: &writer)
                position += 1
            }
        }
        writeLiteral(256, to: &writer)
        return writer.finish()
    }

    private static func writeLiteral(_ symbol: Int, to writer: inout BitWriter) {
        switch symbol {
        case 0...143: writer.writeReversed(0x30 + symbol, bits: 8)
        case 144...255: writer.writeReversed(0x190 + symbol - 144, bits: 9)
        case 256...279: writer.writeReversed(symbol - 256, bits: 7)
        default: writer.writeReversed(0xC0 + symbol - 280, bits: 8)
        }
    }

    private static func writeLength(_ length: Int, to writer: inout BitWriter) {
        var code = 0
        while code + 1 < Inflate.lengthBase.count && Inflate.lengthBase[code + 1] <= length { code += 1 }
        writeLiteral(257 + code, to: &writer)
        let extra = Inflate.lengthExtra[code]
        if extra > 0 { writer.write(length - Inflate.lengthBase[code], bits: extra) }
    }

    private static func writeDistance(_ distance: Int, to writer: inout BitWriter) {
        var code = 0
        while code + 1 < Inflate.distanceBase.count && Inflate.distanceBase[code + 1] <= distance {
            code += 1
        }
        writer.writeReversed(code, bits: 5)
        let extra = Inflate.distanceExtra[code]
        if extra > 0 { writer.write(distance - Inflate.distanceBase[code], bits: extra) }
    }
}

struct BitWriter {
    private var bytes: [UInt8] = []
    private var buffer = 0
    private var count = 0

    /// Writes `bits` bits of `value`, least significant first (deflate's data order).
    mutating func write(_ value: Int, bits: Int) {
        buffer |= value << count
        count += bits
        while count >= 8 {
            bytes.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            count -= 8
        }
    }

    /// Writes a Huffman code, which deflate stores most significant bit first.
    mutating func writeReversed(_ code: Int, bits: Int) {
        var reversed = 0
        for bit in 0..<bits where code & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
        write(reversed, bits: bits)
    }

    mutating func finish() -> [UInt8] {
        if count > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        return bytes
    }
}

/// A complete inflater (stored, fixed and dynamic Huffman blocks) that never reads past
/// its input nor produces more than `limit` bytes.
enum Inflate {
    /// The most bytes deflate data can produce from one byte of input: every Huffman
    /// symbol takes at least one bit, so a length and a distance take at least two bits
    /// and copy at most 258 bytes — 129 bytes a bit.
    static let maximumExpansion = 1032

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163,
        195, 227,
        258,
    ]
    static let lengthExtra = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
        4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]

    private struct BitReader {
        let bytes: [UInt8]
        var position = 0
        var bitBuffer = 0
        var bitCount = 0

        mutating func bits(_ count: Int) throws -> Int {
            while bitCount < count {
                guard position < bytes.count else { throw PNGError("image data ends early") }
                bitBuffer |= Int(bytes[position]) << bitCount
                position += 1
                bitCount += 8
            }
            let value = bitBuffer & ((1 << count) - 1)
            bitBuffer >>= count
            bitCount -= count
            return value
        }

        mutating func alignToByte() {
            bitBuffer = 0
            bitCount = 0
        }
    }

    /// A canonical Huffman decoding table: counts of codes per length and the symbols
    /// in code order.
    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) throws {
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<16 { offsets[length] = offsets[length - 1] + counts[length - 1] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length > 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }

        func decode(_ reader: inout BitReader) throws -> Int {
            var code = 0
            var first = 0
            var index = 0
            for length in 1..<16 {
                code |= try reader.bits(1)
                let count = counts[length]
                if code - first < count { return symbols[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            throw PNGError("invalid Huffman code in image data")
        }
    }

    static func decompress(_ input: [UInt8], limit: Int) throws -> [UInt8] {
        var reader = BitReader(bytes: input)
        var output: [UInt8] = []
        // One allocation of exactly the size the caller checked: growing by doubling would
        // briefly hold up to three times the limit. Pages the data never reaches are never
        // touched, so a file that ends early costs little.
        output.reserveCapacity(limit)
        var final = false
        while !final {
            final = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0:
                reader.alignToByte()
                guard reader.position + 4 <= input.count else {
                    throw PNGError("stored block header cut off")
                }
                let length = Int(input[reader.position]) | Int(input[reader.position + 1]) << 8
                let complement = Int(input[reader.position + 2]) | Int(input[reader.position + 3]) << 8
                guard length == ~complement & 0xFFFF else { throw PNGError("stored block length is corrupt") }
                reader.position += 4
                guard reader.position + length <= input.count else { throw PNGError("stored block cut off") }
                guard output.count + length <= limit else {
                    throw PNGError("image data is larger than its size")
                }
                output += input[reader.position..<(reader.position + length)]
                reader.position += length
            case 1:
                var lengths = [Int](repeating: 8, count: 288)
                for index in 144..<256 { lengths[index] = 9 }
                for index in 256..<280 { lengths[index] = 7 }
                try inflateBlock(
                    &reader, &output, limit: limit, literals: try Huffman(lengths: lengths),
                    distances: try Huffman(lengths: [Int](repeating: 5, count: 30)))
            case 2:
                let literalCount = try reader.bits(5) + 257
                let distanceCount = try reader.bits(5) + 1
                let codeLengthCount = try reader.bits(4) + 4
                let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
                var codeLengths = [Int](repeating: 0, count: 19)
                for index in 0..<codeLengthCount { codeLengths[order[index]] = try reader.bits(3) }
                let codeLengthCode = try Huffman(lengths: codeLengths)
                var lengths: [Int] = []
                while lengths.count < literalCount + distanceCount {
                    let symbol = try codeLengthCode.decode(&reader)
                    switch symbol {
                    case 0...15: lengths.append(symbol)
                    case 16:
                        guard let last = lengths.last else {
                            throw PNGError("repeat with no previous length")
                        }
                        lengths += [Int](repeating: last, count: 3 + (try reader.bits(2)))
                    case 17: lengths += [Int](repeating: 0, count: 3 + (try reader.bits(3)))
                    default: lengths += [Int](repeating: 0, count: 11 + (try reader.bits(7)))
                    }
                }
                guard lengths.count == literalCount + distanceCount else {
                    throw PNGError("code lengths overrun their table")
                }
                try inflateBlock(
                    &reader, &output, limit: limit,
                    literals: try Huffman(lengths: Array(lengths[0..<literalCount])),
                    distances: try Huffman(lengths: Array(lengths[literalCount...])))
            default:
                throw PNGError("invalid deflate block type")
            }
        }
        return output
    }

    private static func inflateBlock(
        _ reader: inout BitReader, _ output: inout [UInt8], limit: Int, literals: Huffman, distances: Huffman
    ) throws {
        while true {
            let symbol = try literals.decode(&reader)
            if symbol < 256 {
                guard output.count < limit else { throw PNGError("image data is larger than its size") }
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let lengthCode = symbol - 257
                guard lengthCode < lengthBase.count else { throw PNGError("invalid length code") }
                let length = lengthBase[lengthCode] + (try reader.bits(lengthExtra[lengthCode]))
                let distanceCode = try distances.decode(&reader)
                guard distanceCode < distanceBase.count else { throw PNGError("invalid distance code") }
                let distance = distanceBase[distanceCode] + (try reader.bits(distanceExtra[distanceCode]))
                guard distance <= output.count else { throw PNGError("distance reaches before the start") }
                guard output.count + length <= limit else {
                    throw PNGError("image data is larger than its size")
                }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }
}

// MARK: - Checksums and byte helpers

enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

enum Adler32 {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24))
        append(UInt8((value >> 16) & 0xFF))
        append(UInt8((value >> 8) & 0xFF))
        append(UInt8(value & 0xFF))
    }

    func readBigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }
}
