#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64 as property lists carry it: XML's `<data>`, where whitespace anywhere is ignored
/// when reading and lines are wrapped as CoreFoundation wraps them when writing, and the
/// JSON rendering's `{"data": …}`.
enum PropertyListBase64 {
    enum DecodeFailure: Error {
        /// A byte that is neither base64, `=` nor whitespace, at this offset.
        case invalidByte(Int)
        /// Data after `=` padding, or too much padding, at this offset.
        case misplacedPadding(Int)
        /// The characters do not add up to whole bytes.
        case truncated
    }

    @inline(__always)
    private static func sextet(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0") &+ 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return 0xFF
        }
    }

    /// Decodes `bytes[range]`; padding may be omitted.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(DecodeFailure) -> Data
    {
        // Four characters make at most three bytes, so this is always enough room.
        let capacity = range.count / 4 * 3 + 3
        var data = Data(count: capacity)
        var failure: DecodeFailure?
        let written = data.withUnsafeMutableBytes { output -> Int in
            var written = 0
            var accumulator: UInt32 = 0
            var pending = 0
            var padding = 0
            for index in range {
                let byte = bytes[index]
                let value = sextet(byte)
                if value < 64 {
                    guard padding == 0 else {
                        failure = .misplacedPadding(index)
                        return 0
                    }
                    accumulator = accumulator << 6 | UInt32(value)
                    pending += 1
                    if pending == 4, written + 3 <= output.count {
                        output[written] = UInt8(truncatingIfNeeded: accumulator >> 16)
                        output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                        output[written + 2] = UInt8(truncatingIfNeeded: accumulator)
                        written += 3
                        accumulator = 0
                        pending = 0
                    }
                } else if byte == UInt8(ascii: "=") {
                    padding += 1
                    guard pending >= 2, pending + padding <= 4 else {
                        failure = .misplacedPadding(index)
                        return 0
                    }
                } else if !XMLScalarText.isWhitespace(byte) {
                    failure = .invalidByte(index)
                    return 0
                }
            }
            guard written + 2 <= output.count else { return written }
            switch pending {
            case 0:
                break
            case 2:
                output[written] = UInt8(truncatingIfNeeded: accumulator >> 4)
                written += 1
            case 3:
                output[written] = UInt8(truncatingIfNeeded: accumulator >> 10)
                output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
                written += 2
            default:
                failure = .truncated
            }
            return written
        }
        if let failure { throw failure }
        data.count = written
        return data
    }

    private static let alphabet: StaticString =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// The characters the base64 of `count` bytes takes, `=` padding included.
    @inline(__always)
    static func encodedLength(of count: Int) -> Int {
        (count / 3 + (count % 3 == 0 ? 0 : 1)) * 4
    }

    /// Writes the base64 of `bytes`, padded with `=`, at `destination`, which has room for
    /// ``encodedLength(of:)`` bytes, and returns that length.
    ///
    /// The one encoder: XML lines and JSON strings both write through it.
    static func encode(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let table = alphabet.utf8Start
        let count = bytes.count
        guard count > 0, let source = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        var index = 0
        var written = 0
        while index + 3 <= count {
            let chunk =
                UInt32(source[index]) << 16 | UInt32(source[index + 1]) << 8 | UInt32(source[index + 2])
            destination[written] = table[Int(chunk >> 18 & 0x3F)]
            destination[written + 1] = table[Int(chunk >> 12 & 0x3F)]
            destination[written + 2] = table[Int(chunk >> 6 & 0x3F)]
            destination[written + 3] = table[Int(chunk & 0x3F)]
            index += 3
            written += 4
        }
        let remaining = count - index
        if remaining > 0 {
            let first = UInt32(source[index]) << 16
            let chunk = remaining == 2 ? first | UInt32(source[index + 1]) << 8 : first
            destination[written] = table[Int(chunk >> 18 & 0x3F)]
            destination[written + 1] = table[Int(chunk >> 12 & 0x3F)]
            destination[written + 2] = remaining == 2 ? table[Int(chunk >> 6 & 0x3F)] : UInt8(ascii: "=")
            destination[written + 3] = UInt8(ascii: "=")
            written += 4
        }
        return written
    }

    /// Appends the base64 of `bytes`, padded with `=`, to `output`.
    static func append(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        let start = output.count
        let length = encodedLength(of: bytes.count)
        guard length > 0 else { return }
        output.append(contentsOf: repeatElement(0, count: length))
        output.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            _ = encode(bytes, to: base + start)
        }
    }

    /// The bytes ``writeLines(of:charactersPerLine:indentation:to:)`` writes.
    static func linesLength(of count: Int, charactersPerLine: Int, indentation: Int) -> Int {
        let bytesPerLine = charactersPerLine / 4 * 3
        let lines = count / bytesPerLine + (count % bytesPerLine == 0 ? 0 : 1)
        return encodedLength(of: count) + lines * (indentation + 1)
    }

    /// Writes the base64 of `bytes`, `charactersPerLine` characters (a multiple of four) to
    /// a line, each line preceded by `indentation` tabs and followed by a newline, at
    /// `destination`, which has room for ``linesLength(of:charactersPerLine:indentation:)``
    /// bytes, and returns that length.
    static func writeLines(
        of bytes: UnsafeRawBufferPointer, charactersPerLine: Int, indentation: Int,
        to destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let bytesPerLine = charactersPerLine / 4 * 3
        var lineStart = 0
        var written = 0
        while lineStart < bytes.count {
            let lineEnd = min(lineStart + bytesPerLine, bytes.count)
            (destination + written).initialize(repeating: 0x09, count: indentation)
            written += indentation
            written += encode(
                UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd]), to: destination + written)
            destination[written] = 0x0A
            written += 1
            lineStart = lineEnd
        }
        return written
    }
}
