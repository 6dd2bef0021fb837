import Foundation
import Testing

@testable import PropertyListFormats

/// The binary writer's UTF-16 transcoding of non-ASCII strings, straight from their UTF-8
/// bytes: checked against the standard library's `utf16` view, and through a written file.
@Suite("Binary writer: UTF-16 strings")
struct BinaryUTF16WritingTests {
    /// Strings with 1-, 2-, 3- and 4-byte scalars (emoji with modifiers, flags), at the
    /// start, the middle and the end, combining marks, NUL and U+FFFF.
    static let samples: [String] = [
        "é", "größe", "説明", "😀", "👍🏽", "🇫🇷", "a😀b", "\u{0}é", "\u{FFFF}", "\u{10000}", "\u{10FFFF}",
        "e\u{301}", "Ωmega", "страница", "&<>\"'€", "naïve café 📎附件", String(repeating: "ключ🙂", count: 300),
    ]

    static func expected(_ string: String) -> [UInt8] {
        string.utf16.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    }

    static func transcoded(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { utf8 in
            var units = [UInt8](repeating: 0xAA, count: 2 * utf8.count)
            let written = units.withUnsafeMutableBufferPointer {
                BinaryPropertyListBuilder.bigEndianUTF16(utf8, into: $0)
            }
            return Array(units[0..<written])
        }
    }

    @Test(arguments: samples)
    func matchesTheUTF16View(_ string: String) {
        #expect(Self.transcoded(string) == Self.expected(string))
    }

    @Test func matchesTheUTF16ViewOnRandomScalars() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                let ranges: [ClosedRange<UInt32>] = [
                    0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x1_0000...0x10_FFFF,
                ]
                let range = ranges.randomElement(using: &generator) ?? 0...0x7F
                if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) {
                    scalars.append(scalar)
                }
            }
            let string = String(scalars)
            #expect(
                Self.transcoded(string) == Self.expected(string), "\(string.unicodeScalars.map { $0.value })")
        }
    }

    @Test func tooLittleRoomWritesNothing() {
        var string = "größe"
        let written = string.withUTF8 { utf8 in
            var units = [UInt8](repeating: 0, count: utf8.count)
            return units.withUnsafeMutableBufferPointer {
                BinaryPropertyListBuilder.bigEndianUTF16(utf8, into: $0)
            }
        }
        #expect(written == 0)
    }

    @Test(arguments: samples)
    func writtenStringsReadBackAndHoldUTF16(_ string: String) throws {
        let value: PropertyList = ["k": .string(string), "arr": [.string(string), "ascii"]]
        let bytes = try value.data(format: .binary)
        #expect(try PropertyList(from: bytes) == value)
        // The string object: marker 0x6n, then its units big-endian.
        let units = Self.expected(string)
        #expect(bytes.range(of: Data(units)) != nil)
    }
}
