import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// The XML that reading `binary` into a value and writing that gives: what the transcoder
/// must reproduce byte for byte.
private func xmlThroughValue(_ binary: Data) throws -> Data {
    try PropertyList(from: binary, format: .binary).data(format: .xml)
}

@Suite struct XMLPropertyListTranscoderTests {
    @Test(arguments: 0..<40)
    func generatedValuesMatchTheValueWriter(_ seed: Int) throws {
        var generator = ValueGenerator(seed: UInt64(seed))
        let value = generator.value(depth: 0)
        let binary = try value.data(format: .binary)
        let expected = try xmlThroughValue(binary)
        #expect(try XMLPropertyListTranscoder.transcode(binary) == expected, "seed \(seed)")
    }

    @Test func keyedArchiveXMLMatchesTheValueWriter() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .xml
        archiver.encode(["a & b", "<c>", "tab\tand\u{1}", "é", "🦀", ""], forKey: "strings")
        archiver.encode([1.5, -0.0, 1e-300, 123_456_789.25, .infinity], forKey: "reals")
        archiver.encode(Date(timeIntervalSinceReferenceDate: 12_345.5), forKey: "date")
        archiver.encode(["b": 1, "a": 2, "é": 3, "Z": 4], forKey: "dictionary")
        archiver.encodeBytes(Array(0..<200), forKey: "bytes")
        let data = try archiver.finishedData()
        let expected = try archiver.encodedPropertyList.data(format: .xml)
        #expect(data == expected)
    }

    /// Dictionary `{ key0: 1, key1: 2, key0: 3 }` whose keys are the given string objects.
    private static func dictionaryWithKeys(_ first: [UInt8], _ second: [UInt8], _ third: [UInt8]) -> Data {
        Data(
            BPlist.assemble([
                [0xD3, 1, 2, 3, 4, 5, 6], first, second, third, [0x10, 1], [0x10, 2], [0x10, 3],
            ]))
    }

    @Test(arguments: [
        // The same object twice: the first spelling's place, the last value.
        ([0x51, 0x62], [0x51, 0x61], [0x51, 0x62]),
        // Equal text as ASCII and as UTF-16.
        ([0x51, 0x62], [0x51, 0x61], [0x61, 0x00, 0x62]),
        // Canonically equivalent spellings: é precomposed and decomposed.
        ([0x61, 0x00, 0xE9], [0x51, 0x61], [0x62, 0x00, 0x65, 0x03, 0x01]),
        // Latin-1 in an ASCII string, and a key needing escapes.
        ([0x51, 0xE9], [0x53, 0x3C, 0x26, 0x3E], [0x51, 0x7A]),
    ])
    func duplicateAndUnusualKeysMatchTheValueWriter(_ first: [UInt8], _ second: [UInt8], _ third: [UInt8])
        throws
    {
        let binary = Self.dictionaryWithKeys(first, second, third)
        let expected = try xmlThroughValue(binary)
        #expect(try XMLPropertyListTranscoder.transcode(binary) == expected)
    }

    @Test func setsAreWrittenAsArrays() throws {
        let binary = Data(BPlist.assemble([[0xC2, 1, 2], [0x10, 7], [0x51, 0x78]]))
        let text = String(decoding: try XMLPropertyListTranscoder.transcode(binary), as: UTF8.self)
        #expect(text.contains("<array>\n\t<integer>7</integer>\n\t<string>x</string>\n</array>\n"))
        let expected = try xmlThroughValue(binary)
        #expect(try XMLPropertyListTranscoder.transcode(binary) == expected)
    }

    @Test func containerThatContainsItselfIsRefused() {
        let binary = Data(BPlist.assemble([[0xA2, 1, 0], [0x10, 7]]))
        #expect {
            try XMLPropertyListTranscoder.transcode(binary)
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .corruptData
                && "\(error)".contains("object 0: array contains itself")
        }
    }

    @Test func nonStringKeyIsRefusedWithItsObject() {
        let binary = Data(BPlist.assemble([[0xD1, 1, 1], [0x10, 7]]))
        #expect {
            try XMLPropertyListTranscoder.transcode(binary)
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .corruptData && "\(error)".contains("object 0")
        }
    }

    @Test func expansionPastTheLimitIsRefused() throws {
        // An array referring three times to an array referring three times to a string.
        let binary = Data(BPlist.assemble([[0xA3, 1, 1, 1], [0xA3, 2, 2, 2], [0x51, 0x78]]))
        #expect(throws: KeyedArchiveError.self) {
            try XMLPropertyListTranscoder.transcode(binary, maximumValues: 10)
        }
        let expected = try xmlThroughValue(binary)
        #expect(try XMLPropertyListTranscoder.transcode(binary, maximumValues: 13) == expected)
    }

    @Test func corruptInputIsRefused() {
        var bytes = BPlist.assemble([[0xA1, 1], [0x51, 0x78]])
        bytes[9] = 9  // a reference past the two objects
        #expect(throws: KeyedArchiveError.self) { try XMLPropertyListTranscoder.transcode(Data(bytes)) }
        #expect(throws: KeyedArchiveError.self) {
            try XMLPropertyListTranscoder.transcode(Data("bplist00".utf8))
        }
    }
}

@Suite struct XMLRealFormattingTests {
    /// `Double.description` without a trailing `.0`: what the writer promises.
    private static func expected(_ number: Double) -> String {
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    private static func written(_ number: Double) -> String {
        var output = XMLOutputBuffer(capacity: 64)
        output.appendReal(number)
        return String(decoding: output.finish(), as: UTF8.self)
    }

    @Test func shortFractionsMatchDescription() {
        var random = SeededGenerator(seed: 12_345)
        func next() -> UInt64 { random.next() }
        var mismatches: [String] = []
        for _ in 0..<5_000 {
            // m / 2^k for every size of m and k, both signs.
            let numerator = Double(next() >> (next() % 64))
            let scale = Double(sign: .plus, exponent: -Int(next() % 60), significand: 1)
            let number = (next() & 1 == 0 ? 1 : -1) * numerator * scale
            if Self.written(number) != Self.expected(number) { mismatches.append("\(number)") }
        }
        for number in [
            0.5, 0.25, 1e-4, 0.0001220703125, 6.103515625e-05, 999_999_999_999_999.5, 99_999_999_999_999.5,
            1234.5625, 0.1, 1e15 - 0.5, 4_503_599_627_370_495.5, -0.0, .leastNonzeroMagnitude,
            .leastNormalMagnitude,
        ] where Self.written(number) != Self.expected(number) {
            mismatches.append("\(number)")
        }
        #expect(mismatches.isEmpty, "written differently from Double.description: \(mismatches.prefix(10))")
    }

    @Test func decimalsOfEveryLength() {
        var value: UInt64 = 1
        for _ in 0..<20 {
            for candidate in [value - 1, value, value + 1, value &* 9] {
                var output = XMLOutputBuffer(capacity: 64)
                output.appendDecimal(candidate)
                #expect(String(decoding: output.finish(), as: UTF8.self) == "\(candidate)")
            }
            value = value &* 10
        }
        var output = XMLOutputBuffer(capacity: 64)
        output.appendDecimal(.max)
        #expect(String(decoding: output.finish(), as: UTF8.self) == "\(UInt64.max)")
    }
}

@Suite struct XMLEscapingTests {
    /// The escape each byte below 0x80 gets: `&`, `<`, `>` as entities, the C0 controls
    /// other than tab and line feed as decimal references, anything else as itself.
    private static func expected(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "&"): return "&amp;"
        case UInt8(ascii: "<"): return "&lt;"
        case UInt8(ascii: ">"): return "&gt;"
        case 0x09, 0x0A: return String(UnicodeScalar(byte))
        case 0..<0x20: return "&#\(byte);"
        default: return String(UnicodeScalar(byte))
        }
    }

    /// Every ASCII byte, alone and at every position of runs around the eight-byte steps,
    /// in small and allocated strings: escaped exactly as the rule says.
    @Test func everyASCIIByteIsEscapedByTheRule() {
        var mask: UInt64 = 0
        for byte in UInt8(0)..<64 where Self.expected(byte) != String(UnicodeScalar(byte)) {
            mask |= 1 << UInt64(byte)
        }
        #expect(XMLOutputBuffer.escapedBytes == mask)
        for byte in UInt8(0)..<0x80 {
            for length in [1, 7, 8, 9, 15, 16, 17, 31] {
                for position in Set([0, length / 2, length - 1]) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "k"), count: length)
                    bytes[position] = byte
                    let text = String(decoding: bytes, as: UTF8.self)
                    var output = XMLOutputBuffer(capacity: 8)
                    output.appendEscaped(text)
                    let written = String(decoding: output.finish(), as: UTF8.self)
                    let expected = bytes.map { Self.expected($0) }.joined()
                    #expect(written == expected, "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    /// Text with several candidates in one eight-byte word (escaped ones, and tabs and line
    /// feeds, which are candidates kept as they are), among non-ASCII characters, at every
    /// length to 40: escaped exactly as the rule says, byte by byte.
    @Test func severalCandidatesInAWord() {
        var random = SeededGenerator(seed: 0xE5C_A9ED)
        let pieces: [String] = [
            "a", "Zz", "&", "<", ">", "\t", "\n", "\r", "\u{1}", "\u{1F}", "é", "説", "😀", " ",
        ]
        for length in 0...40 {
            for _ in 0..<60 {
                var text = ""
                while text.utf8.count < length { text += pieces[Int(random.next() % UInt64(pieces.count))] }
                var output = XMLOutputBuffer(capacity: 8)
                output.appendEscaped(text)
                let written = String(decoding: output.finish(), as: UTF8.self)
                let expected = text.utf8.map { $0 < 0x80 ? Self.expected($0) : "" }
                var reference = ""
                var pending: [UInt8] = []
                for (byte, escaped) in zip(text.utf8, expected) {
                    if byte < 0x80 {
                        reference += String(decoding: pending, as: UTF8.self) + escaped
                        pending.removeAll()
                    } else {
                        pending.append(byte)
                    }
                }
                reference += String(decoding: pending, as: UTF8.self)
                #expect(written == reference, "\(Array(text.utf8))")
            }
        }
    }
}
