#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns the bytes of an XML property list into validated UTF-8 for the scanner, and maps
/// byte offsets back to the line and column a person would look for.
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
            appendUTF8(scalar, to: &output)
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

    /// Appends the UTF-8 form of a Unicode scalar value (the caller guarantees it is one).
    @inline(__always)
    static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            output.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }

    /// The offset of the first byte that does not begin a well-formed UTF-8 sequence
    /// (overlong forms, surrogates and values beyond U+10FFFF included), or `nil`.
    ///
    /// - Complexity: O(*n*), up to 32 ASCII bytes at a time.
    static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = start
        while index < count {
            // ASCII, almost all of a property list, is checked 32 bytes at a time.
            if index + 32 <= count {
                let chunk = UnsafeRawPointer(base + index)
                let combined =
                    chunk.loadUnaligned(as: UInt64.self)
                    | chunk.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    | chunk.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                    | chunk.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                if combined & 0x8080_8080_8080_8080 == 0 {
                    index += 32
                    continue
                }
            }
            if index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
            }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            if lead < 0xC2 { return index }
            if lead < 0xE0 {
                guard index + 1 < count, base[index + 1] & 0xC0 == 0x80 else { return index }
                index += 2
            } else if lead < 0xF0 {
                guard index + 2 < count else { return index }
                let second = base[index + 1]
                guard second & 0xC0 == 0x80, base[index + 2] & 0xC0 == 0x80 else { return index }
                if lead == 0xE0 && second < 0xA0 { return index }  // overlong
                if lead == 0xED && second >= 0xA0 { return index }  // surrogate
                index += 3
            } else if lead < 0xF5 {
                guard index + 3 < count else { return index }
                let second = base[index + 1]
                guard second & 0xC0 == 0x80, base[index + 2] & 0xC0 == 0x80, base[index + 3] & 0xC0 == 0x80
                else { return index }
                if lead == 0xF0 && second < 0x90 { return index }  // overlong
                if lead == 0xF4 && second >= 0x90 { return index }  // beyond U+10FFFF
                index += 4
            } else {
                return index
            }
        }
        return nil
    }

    /// The one-based line and column (in Unicode scalars) of `offset`, counting LF, CR and
    /// CR LF as line breaks.
    ///
    /// - Complexity: O(`offset`); only used to report errors.
    static func location(
        of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int
    ) -> KeyedArchiveError.Location {
        var line = 1
        var column = 1
        var index = start
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte == 0x0D {
                line += 1
                column = 1
                if index + 1 < end, bytes[index + 1] == 0x0A { index += 1 }
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return .text(line: line, column: column)
    }
}
