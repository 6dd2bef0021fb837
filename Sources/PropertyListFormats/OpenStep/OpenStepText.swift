#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text-level chores of the OpenStep reader: turning the input bytes into validated
/// UTF-8, mapping byte offsets to line and column, and describing characters in errors.
enum OpenStepText {
    /// Lends the input to `body` as UTF-8 without a byte-order mark.
    ///
    /// UTF-8 is assumed unless a byte-order mark says UTF-16 (`FE FF` or `FF FE`); UTF-16
    /// is transcoded, with unpaired surrogates replaced by U+FFFD (what Foundation shows
    /// for them too). UTF-8 must be valid: CoreFoundation refuses text it cannot convert.
    /// UTF-8 input is lent in place, not copied (a small file's one allocation less).
    static func withUTF8<Result>(
        from data: Data, _ body: (WellFormedUTF8) throws -> Result
    ) throws -> Result {
        try data.withUnsafeBytes { raw in
            var bytes = raw.bindMemory(to: UInt8.self)
            let isUTF16 =
                bytes.count >= 2
                && (bytes[0] == 0xFE && bytes[1] == 0xFF || bytes[0] == 0xFF && bytes[1] == 0xFE)
            if isUTF16 {
                let text = try transcodeUTF16(Array(bytes), bigEndian: bytes[0] == 0xFE)
                return try text.withUnsafeBufferPointer { transcoded in
                    // A `String`'s bytes: well-formed by construction, checked all the same.
                    guard let text = WellFormedUTF8(validating: transcoded) else {
                        throw KeyedArchiveError(
                            .corruptData, "internal error: UTF-16 transcoded to invalid UTF-8")
                    }
                    return try body(text)
                }
            }
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                bytes = UnsafeBufferPointer(rebasing: bytes[3...])
            }
            guard let text = WellFormedUTF8(validating: bytes) else {
                let bad = UTF8Text.firstInvalid(in: bytes, from: 0) ?? 0
                throw KeyedArchiveError(
                    .corruptData, "invalid UTF-8 (byte 0x\(hexByte(bytes[bad])))",
                    at: UTF8Text.location(of: bad, in: bytes))
            }
            return try body(text)
        }
    }

    private static func transcodeUTF16(_ bytes: [UInt8], bigEndian: Bool) throws -> [UInt8] {
        let payload = bytes.count - 2
        guard payload % 2 == 0 else {
            throw KeyedArchiveError(
                .corruptData, "UTF-16 text has an odd number of bytes (\(payload) after the byte-order mark)",
                at: .byteOffset(bytes.count - 1))
        }
        var units = [UInt16]()
        units.reserveCapacity(payload / 2)
        var index = 2
        while index + 1 < bytes.count {
            let first = UInt16(bytes[index])
            let second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }

    /// The character at `offset` for an error message: `'}'`, `'é'`, `U+0007`, or
    /// `end of input`. The bytes are valid UTF-8.
    static func describeCharacter(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard offset < bytes.count else { return "end of input" }
        let lead = bytes[offset]
        var length = 1
        if lead >= 0xF0 {
            length = 4
        } else if lead >= 0xE0 {
            length = 3
        } else if lead >= 0xC0 {
            length = 2
        }
        let end = min(bytes.count, offset + length)
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)
        guard let scalar = text.unicodeScalars.first else { return "end of input" }
        return describe(scalar)
    }

    static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .surrogate,
            .privateUse, .unassigned:
            return scalar == " " ? "' '" : code
        default:
            return scalar.isASCII ? "'\(scalar)'" : "'\(scalar)' (\(code))"
        }
    }

    /// Unicode values of the NeXTSTEP encoding's bytes 0x80–0xFF (the lower half is
    /// ASCII), which CoreFoundation applies to octal escapes such as `\341`. Zero marks
    /// the two bytes (0xFE, 0xFF) that have no character.
    static let nextStepUpperHalf: [UInt16] = [
        0x00A0, 0x00C0, 0x00C1, 0x00C2, 0x00C3, 0x00C4, 0x00C5, 0x00C7,
        0x00C8, 0x00C9, 0x00CA, 0x00CB, 0x00CC, 0x00CD, 0x00CE, 0x00CF,
        0x00D0, 0x00D1, 0x00D2, 0x00D3, 0x00D4, 0x00D5, 0x00D6, 0x00D9,
        0x00DA, 0x00DB, 0x00DC, 0x00DD, 0x00DE, 0x00B5, 0x00D7, 0x00F7,
        0x00A9, 0x00A1, 0x00A2, 0x00A3, 0x2044, 0x00A5, 0x0192, 0x00A7,
        0x00A4, 0x2019, 0x201C, 0x00AB, 0x2039, 0x203A, 0xFB01, 0xFB02,
        0x00AE, 0x2013, 0x2020, 0x2021, 0x00B7, 0x00A6, 0x00B6, 0x2022,
        0x201A, 0x201E, 0x201D, 0x00BB, 0x2026, 0x2030, 0x00AC, 0x00BF,
        0x00B9, 0x02CB, 0x00B4, 0x02C6, 0x02DC, 0x00AF, 0x02D8, 0x02D9,
        0x00A8, 0x00B2, 0x02DA, 0x00B8, 0x00B3, 0x02DD, 0x02DB, 0x02C7,
        0x2014, 0x00B1, 0x00BC, 0x00BD, 0x00BE, 0x00E0, 0x00E1, 0x00E2,
        0x00E3, 0x00E4, 0x00E5, 0x00E7, 0x00E8, 0x00E9, 0x00EA, 0x00EB,
        0x00EC, 0x00C6, 0x00ED, 0x00AA, 0x00EE, 0x00EF, 0x00F0, 0x00F1,
        0x0141, 0x00D8, 0x0152, 0x00BA, 0x00F2, 0x00F3, 0x00F4, 0x00F5,
        0x00F6, 0x00E6, 0x00F9, 0x00FA, 0x00FB, 0x0131, 0x00FC, 0x00FD,
        0x0142, 0x00F8, 0x0153, 0x00DF, 0x00FE, 0x00FF, 0x0000, 0x0000,
    ]
}
