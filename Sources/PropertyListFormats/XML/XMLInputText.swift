#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns the bytes of an XML property list into UTF-8 for the scanner (which validates it
/// with ``UTF8Text/firstInvalid(in:from:)`` and reports positions with
/// ``UTF8Text/location(of:in:from:)``).
///
/// UTF-8 (with or without a byte-order mark) is scanned in place. UTF-16 (announced by a
/// byte-order mark, or recognisable from a NUL beside the first ASCII character) is
/// transcoded to UTF-8 first; its positions are then reported in that transcoded text,
/// which has the same lines and characters.
enum XMLInputText {
    /// Where the UTF-8 text to scan lives.
    enum Prepared {
        /// The input itself, from `start` (past a UTF-8 byte-order mark, if any).
        case utf8(start: Int)
        /// The input transcoded from UTF-16.
        case transcoded([UInt8])
    }

    /// Detects the encoding from the first bytes and transcodes UTF-16.
    ///
    /// - Throws: `corruptData` with a line and column for malformed UTF-16.
    static func prepare(_ data: Data) throws -> Prepared {
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = bytes.count
            if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { return .utf8(start: 3) }
            guard count >= 2 else { return .utf8(start: 0) }
            let first = bytes[0]
            let second = bytes[1]
            if first == 0xFE && second == 0xFF {
                return .transcoded(try transcodeUTF16(bytes, from: 2, bigEndian: true))
            }
            if first == 0xFF && second == 0xFE {
                return .transcoded(try transcodeUTF16(bytes, from: 2, bigEndian: false))
            }
            // No byte-order mark: an XML document starts with an ASCII character, so a NUL
            // beside it gives UTF-16 away.
            if first == 0 && second != 0 && second < 0x80 {
                return .transcoded(try transcodeUTF16(bytes, from: 0, bigEndian: true))
            }
            if first != 0 && first < 0x80 && second == 0 {
                return .transcoded(try transcodeUTF16(bytes, from: 0, bigEndian: false))
            }
            return .utf8(start: 0)
        }
    }

    /// Transcodes UTF-16 code units to UTF-8, refusing unpaired surrogates and a dangling byte.
    private static func transcodeUTF16(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, bigEndian: Bool
    ) throws -> [UInt8] {
        let count = bytes.count
        var output: [UInt8] = []
        output.reserveCapacity((count - start) / 2 + 64)
        var line = 1
        var column = 1
        var previousWasCarriageReturn = false
        var index = start

        func unit(at position: Int) -> UInt16 {
            let high = bigEndian ? bytes[position] : bytes[position + 1]
            let low = bigEndian ? bytes[position + 1] : bytes[position]
            return UInt16(high) << 8 | UInt16(low)
        }
        func failure(_ message: String) -> KeyedArchiveError {
            KeyedArchiveError(.corruptData, message, at: .text(line: line, column: column))
        }

        while index + 1 < count {
            let first = unit(at: index)
            index += 2
            var scalar = UInt32(first)
            if first >= 0xD800 && first <= 0xDFFF {
                guard first <= 0xDBFF, index + 1 < count else {
                    throw failure(
                        "invalid UTF-16: unpaired surrogate 0x\(String(first, radix: 16, uppercase: true))")
                }
                let second = unit(at: index)
                guard second >= 0xDC00 && second <= 0xDFFF else {
                    throw failure(
                        "invalid UTF-16: unpaired surrogate 0x\(String(first, radix: 16, uppercase: true))")
                }
                index += 2
                scalar = 0x10000 + (UInt32(first - 0xD800) << 10) + UInt32(second - 0xDC00)
            }
            UTF8Text.append(scalar, to: &output)
            if scalar == 0x0A {
                if !previousWasCarriageReturn { line += 1 }
                column = 1
            } else if scalar == 0x0D {
                line += 1
                column = 1
            } else {
                column += 1
            }
            previousWasCarriageReturn = scalar == 0x0D
        }
        if index < count {
            throw failure("invalid UTF-16: the input ends with half a code unit")
        }
        return output
    }
}
