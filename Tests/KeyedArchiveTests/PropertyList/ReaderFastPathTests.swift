import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// The readers' faster paths for small documents: the key table that dictionaries of
/// more than eight entries get in one pass (byte hashes of ASCII keys), the byte hash of
/// short keys, the binary reader's inlined object decoding, and the OpenStep reader's
/// in-place input, unquoted-character masks and quoted-string scanning.
@Suite("Reader fast paths")
struct ReaderFastPathTests {
    /// A binary dictionary whose keys are the string objects `keys` and whose values are
    /// the integers 1, 2, … in order.
    static func binaryDictionary(_ keys: [[UInt8]]) -> [UInt8] {
        SmallDocumentReadingTests.binaryDictionary(keys)
    }

    /// Keys of every length from 0 to 40 bytes, so that every tail of the byte hash is used.
    static let keysOfEveryLength: [String] = (0...40).map { length in
        var bytes: [UInt8] = []
        for position in 0..<length { bytes.append(UInt8(0x61 + (position * 7 + length) % 26)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func keysOfEveryLengthAreFoundInABinaryDictionary() throws {
        let keys = Self.keysOfEveryLength
        let dictionary = try #require(
            try BPlist.read(Self.binaryDictionary(keys.map { BPlist.ascii($0) })).dictionaryValue)
        #expect(dictionary.count == keys.count)
        #expect(dictionary.keys == keys)
        for (index, key) in keys.enumerated() {
            #expect(dictionary[key] == PropertyList(index + 1), "key of \(key.utf8.count) bytes")
            // Same length, one byte changed (first and last): absent.
            if !key.isEmpty {
                #expect(dictionary["#" + String(key.dropFirst())] == nil)
                #expect(dictionary[String(key.dropLast()) + "#"] == nil)
            }
        }
        #expect(dictionary[String(repeating: "z", count: 41)] == nil)
    }

    @Test func keysOfEveryLengthAreFoundInAnOpenStepDictionary() throws {
        let keys = Self.keysOfEveryLength.dropFirst()  // an empty unquoted key cannot be written
        let text = "{ " + keys.enumerated().map { "\($1) = v\($0);" }.joined(separator: " ") + " }"
        let dictionary = try #require(
            try PropertyList(from: Data(text.utf8), format: .openStep).dictionaryValue)
        #expect(dictionary.count == keys.count)
        for (index, key) in keys.enumerated() { #expect(dictionary[key] == .string("v\(index)")) }
    }

    @Test(arguments: [(0, 12), (11, 12), (0, 1), (5, 9)])
    func repeatedASCIIKeyInALargeDictionaryKeepsFirstPositionAndLastValue(first: Int, second: Int) throws {
        // Twelve distinct keys, then the key at `first` again as another object: the table
        // built in one pass finds the repeat and the dictionary merges it.
        var keys = (0..<12).map { "key-\($0)" }
        keys.insert(keys[first], at: second)
        let dictionary = try #require(
            try BPlist.read(Self.binaryDictionary(keys.map { BPlist.ascii($0) })).dictionaryValue)
        #expect(dictionary.count == 12)
        #expect(dictionary.keys == (0..<12).map { "key-\($0)" })
        let lastPosition = try #require(keys.lastIndex(of: keys[first]))
        #expect(dictionary[keys[first]] == PropertyList(lastPosition + 1))
        for (index, key) in dictionary.keys.enumerated() where key != keys[first] {
            #expect(dictionary[key] == PropertyList(keys.firstIndex(of: key).map { $0 + 1 } ?? -1))
            #expect(index == dictionary.keys.firstIndex(of: key))
        }
    }

    @Test func kelvinSignAndLetterKAreOneKeyInALargeDictionary() throws {
        // U+212A KELVIN SIGN is canonically equivalent to "K": equal Strings with other
        // bytes. Ten ASCII keys put the dictionary past the linear search.
        var keys = (0..<10).map { BPlist.ascii("name\($0)") }
        keys.append(BPlist.ascii("K"))
        keys.append(SmallDocumentReadingTests.utf16("\u{212A}"))
        let dictionary = try #require(try BPlist.read(Self.binaryDictionary(keys)).dictionaryValue)
        #expect(dictionary.count == 11)
        #expect(dictionary["K"] == 12)
        #expect(dictionary["\u{212A}"] == 12)
        #expect(dictionary.keys.last == "K")
        for index in 0..<10 { #expect(dictionary["name\(index)"] == PropertyList(index + 1)) }
    }

    @Test func dictionariesBuiltDifferentWaysAreEqualAndHashAlike() throws {
        let keys = (0..<14).map { "entry \($0)" } + ["é", "Ünïcødé ✓"]
        // Read (one-pass table), literal-style (inserted one by one), reversed, and grown
        // from a small dictionary past the linear limit.
        let text = "{ " + keys.enumerated().map { "\"\($1)\" = \"\($0)\";" }.joined(separator: " ") + " }"
        let read = try #require(try PropertyList(from: Data(text.utf8), format: .openStep).dictionaryValue)
        let inserted = PropertyListDictionary(keys.enumerated().map { ($1, PropertyList.string("\($0)")) })
        let reversed = PropertyListDictionary(
            keys.enumerated().reversed().map { ($1, PropertyList.string("\($0)")) })
        var grown = PropertyListDictionary()
        for (index, key) in keys.enumerated() { grown[key] = .string("\(index)") }
        let binary = try #require(
            try PropertyList(from: PropertyList.dictionary(inserted).data(format: .binary)).dictionaryValue)
        for other in [inserted, reversed, grown, binary] {
            #expect(read == other)
            #expect(read.hashValue == other.hashValue)
        }
        for (index, key) in keys.enumerated() {
            for dictionary in [read, inserted, reversed, grown, binary] {
                #expect(dictionary[key] == .string("\(index)"))
            }
        }
        #expect(read.keys == keys)
        #expect(reversed.keys == keys.reversed())
        var changed = read
        changed["entry 3"] = "other"
        #expect(changed != read)
        #expect(changed.keys == keys)
        changed.removeValue(forKey: "entry 3")
        #expect(changed.count == keys.count - 1)
        #expect(changed["entry 4"] == "4")
        #expect(changed["entry 3"] == nil)
    }

    @Test(
        arguments: [
            ([0x10, 0x7F], PropertyList(127)),
            ([0x11, 0x01, 0x00], PropertyList(256)),
            ([0x12, 0x00, 0x01, 0x00, 0x00], PropertyList(65536)),
            ([0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], PropertyList(-1)),
            (
                [0x14] + [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                PropertyList.integer(exactly: UInt64.max)
            ),
        ] as [([UInt8], PropertyList?)])
    func integersOfEveryWidthReadInAnArray(integer: [UInt8], expected: PropertyList?) throws {
        let value = try BPlist.read(BPlist.assemble([[0xA2, 1, 2], integer, [0x10, 0x05]]))
        #expect(value == [try #require(expected), 5])
    }

    @Test(arguments: [0x10, 0x11, 0x12, 0x13] as [UInt8])
    func truncatedIntegerIsCorrupt(marker: UInt8) throws {
        // The integer's bytes run into the offset table: one byte short.
        let width = 1 << Int(marker & 0x0F)
        let bytes = BPlist.assemble([[0xA1, 1], [marker] + [UInt8](repeating: 1, count: width - 1)])
        let error = try #require(throws: KeyedArchiveError.self) { try BPlist.read(bytes) }
        #expect(error.code == .corruptData)
        #expect(error.description.contains("integer"))
    }

    @Test func openStepByteOrderMarks() throws {
        let text = "{ name = \"Potato Bug\"; tags = (small, harmless); }"
        let expected: PropertyList = ["name": "Potato Bug", "tags": ["small", "harmless"]]
        let utf8: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(text.utf8)
        #expect(try PropertyList(from: Data(utf8), format: .openStep) == expected)
        let bigEndian: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(try PropertyList(from: Data(bigEndian), format: .openStep) == expected)
        let littleEndian: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(try PropertyList(from: Data(littleEndian), format: .openStep) == expected)

        let empty = try #require(throws: KeyedArchiveError.self) {
            try PropertyList(from: Data([0xEF, 0xBB, 0xBF]), format: .openStep)
        }
        #expect(empty.description.contains("empty input"))
        // Invalid UTF-8 is located in the text after the byte-order mark.
        let invalid = try #require(throws: KeyedArchiveError.self) {
            try PropertyList(
                from: Data([0xEF, 0xBB, 0xBF] + Array("{ a =\n b".utf8) + [0xFF] + Array("; }".utf8)),
                format: .openStep)
        }
        #expect(invalid.code == .corruptData)
        #expect(invalid.description.contains("invalid UTF-8"))
        #expect(invalid.location == .text(line: 2, column: 3))
    }

    @Test func openStepUnquotedCharacters() throws {
        let allowed = "azAZ09_$/:.-"
        #expect(try PropertyList(from: Data("(\(allowed))".utf8), format: .openStep) == [.string(allowed)])
        for byte in 0...255 {
            let character = UInt8(byte)
            let expected =
                (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
                || Array("_$/:.-".utf8).contains(character)
            #expect(OpenStepParser.isUnquotedCharacter(character) == expected, "byte \(byte)")
        }
        // A character outside the set ends the string: here, where a ',' or ')' is expected.
        for other in ["+", "@", "é", "`", "{", "~", "[", "\u{7F}"] {
            #expect(throws: KeyedArchiveError.self) {
                try PropertyList(from: Data("(ab\(other)cd)".utf8), format: .openStep)
            }
        }
    }

    @Test func openStepQuotedStringsWithEscapesAnywhere() throws {
        let cases: [(String, String)] = [
            (#""plain""#, "plain"),
            (#""""#, ""),
            (#"'say "hi"'"#, #"say "hi""#),
            (#""\"q\"""#, #""q""#),
            (#""a\nb\tc""#, "a\nb\tc"),
            (#""\U00dcn\U00efc\U00f8d\U00e9 \U2713""#, "Ünïcødé ✓"),
            (#""tail\\""#, #"tail\"#),
            (#""\101\102C""#, "ABC"),
            ("\"Ünïcødé note 0 ✓\"", "Ünïcødé note 0 ✓"),
        ]
        for (source, expected) in cases {
            let value = try PropertyList(from: Data("(\(source))".utf8), format: .openStep)
            #expect(value == [.string(expected)], "\(source)")
        }
        let unterminated = try #require(throws: KeyedArchiveError.self) {
            try PropertyList(from: Data(#"( "abc\" )"#.utf8), format: .openStep)
        }
        #expect(unterminated.description.contains("unterminated string"))
    }
}
