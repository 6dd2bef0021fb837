import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// The readers' fast paths for small documents: dictionaries built from the keys and
/// values as read (duplicates merged as the subscript would: first position, last value),
/// the OpenStep parser's shared value and key stacks, XML output that outgrows its first
/// buffer, and keys found by text in archives whose dictionaries each hold key strings
/// of their own (as Foundation on Linux writes them).
@Suite("Small-document reading paths")
struct SmallDocumentReadingTests {
    /// A binary dictionary whose keys are the string objects `keys` (texts, one object
    /// each, in order) and whose values are the integers 1, 2, … in order.
    static func binaryDictionary(_ keys: [[UInt8]]) -> [UInt8] {
        let count = keys.count
        var objects: [[UInt8]] = [BPlist.header(0xD0, count: count) + (1...(2 * count)).map { UInt8($0) }]
        objects += keys
        objects += (1...count).map { [0x10, UInt8($0)] }
        return BPlist.assemble(objects)
    }

    static func utf16(_ text: String) -> [UInt8] {
        [0x60 | UInt8(text.utf16.count)] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    @Test(arguments: [3, 12])
    func repeatedKeyTextKeepsFirstPositionAndLastValue(distinct: Int) throws {
        // Keys k0 … k(n-1), then k1 again as another string object: n + 1 entries.
        var keys = (0..<distinct).map { BPlist.ascii("k\($0)") }
        keys.append(BPlist.ascii("k1"))
        let value = try BPlist.read(Self.binaryDictionary(keys))
        let dictionary = try #require(value.dictionaryValue)
        #expect(dictionary.keys == (0..<distinct).map { "k\($0)" })
        #expect(dictionary["k1"] == PropertyList(distinct + 1))
        #expect(dictionary["k0"] == 1)
        #expect(dictionary["k\(distinct - 1)"] == PropertyList(distinct))
    }

    @Test(arguments: [2, 11])
    func canonicallyEquivalentKeysAreOneKey(others: Int) throws {
        // "é" precomposed (UTF-16) and decomposed (UTF-16): equal Strings, so one key.
        var keys = (0..<others).map { BPlist.ascii("key\($0)") }
        keys.append(Self.utf16("\u{E9}"))
        keys.append(Self.utf16("e\u{301}"))
        let dictionary = try #require(try BPlist.read(Self.binaryDictionary(keys)).dictionaryValue)
        #expect(dictionary.count == others + 1)
        #expect(dictionary["\u{E9}"] == PropertyList(others + 2))
        #expect(dictionary.keys.last == "\u{E9}")
    }

    @Test func distinctKeysAboveTheLinearLimitAreFoundByHash() throws {
        let keys = (0..<20).map { BPlist.ascii("entry-\($0)") }
        let dictionary = try #require(try BPlist.read(Self.binaryDictionary(keys)).dictionaryValue)
        #expect(dictionary.count == 20)
        for index in 0..<20 { #expect(dictionary["entry-\(index)"] == PropertyList(index + 1)) }
        #expect(dictionary["entry-20"] == nil)
    }

    @Test func openStepNestingDuplicatesAndShorthand() throws {
        let text = """
            { a = (1, { b = 2; b = 3; c; }, (), {}); d = { e = (x, y,); }; a = (z); f; }
            """
        let value = try PropertyList(from: Data(text.utf8), format: .openStep)
        let expected: PropertyList = [
            "a": ["z"], "d": ["e": ["x", "y"]], "f": "f",
        ]
        #expect(value == expected)
        #expect(value.dictionaryValue?.keys == ["a", "d", "f"])
        let inner = try PropertyList(
            from: Data("( 1, { b = 2; b = 3; c; }, (), {} )".utf8), format: .openStep)
        #expect(inner == ["1", ["b": "3", "c": "c"], [], [:]])
    }

    @Test func openStepMissingValueNamesItsKey() throws {
        let error = try #require(throws: KeyedArchiveError.self) {
            try PropertyList(from: Data("{ a = 1; (b) = ; }".utf8), format: .openStep)
        }
        #expect(error.code == .corruptData)
        let missing = try #require(throws: KeyedArchiveError.self) {
            try PropertyList(from: Data("{ a = ( { name = }; ) }".utf8), format: .openStep)
        }
        #expect(missing.description.contains("\"name\""))
    }

    @Test func openStepStringsFileKeepsEntriesInOrder() throws {
        let value = try PropertyList(from: Data("\"b\" = \"2\";\n\"a\" = \"1\";\n".utf8), format: .openStep)
        #expect(value.dictionaryValue?.keys == ["b", "a"])
        #expect(value["a"] == "1")
    }

    @Test func xmlOutputLargerThanItsFirstBufferRoundTrips() throws {
        let records: [PropertyList] = (0..<20_000).map {
            ["name": .string("record \($0)"), "n": PropertyList($0)]
        }
        let value = PropertyList.array(records)
        let data = try value.data(format: .xml)
        #expect(data.count > 1_000_000)
        #expect(try PropertyList(from: data) == value)
        var pieces = Data()
        try value.write(format: .xml) { pieces.append(contentsOf: $0) }
        #expect(pieces == data)
    }

    /// An object decoded the README's way, from what ``FoundationSmallProbe`` wrote.
    final class Probe: SecureKeyedCoding {
        static var archivedClassName: String { "KeyedArchiveTests.FoundationSmallProbe" }
        let name: String
        let weight: Double
        let tags: [String]

        init(coder: KeyedUnarchiver) throws {
            name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
            weight = try coder.decodeDouble(forKey: "weight")
            tags = try coder.decodeObject(of: [String].self, forKey: "tags") ?? []
        }

        func encode(with coder: KeyedArchiver) {}
    }

    @Test func archiveWrittenByFoundationDecodesTheReadmeWay() throws {
        // Foundation on Linux gives each object's dictionary key strings of its own, in
        // an order of its own: keys are found by their text.
        let originals = (0..<40).map {
            FoundationSmallProbe(name: "Creature \($0)", weight: Double($0) / 4, tags: ["t\($0)", "shared"])
        }
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(originals, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let probes = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: [Probe].self, from: archiver.encodedData))
        #expect(probes.map(\.name) == originals.map(\.name))
        #expect(probes.map(\.weight) == originals.map(\.weight))
        #expect(probes.map(\.tags) == originals.map(\.tags))
    }
}

/// Foundation's side of ``SmallDocumentReadingTests/Probe`` (top-level, as Foundation on
/// Linux requires).
final class FoundationSmallProbe: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    let weight: Double
    let tags: [String]

    init(name: String, weight: Double, tags: [String]) {
        (self.name, self.weight, self.tags) = (name, weight, tags)
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(weight, forKey: "weight")
        coder.encode(tags, forKey: "tags")
    }

    init?(coder: NSCoder) { nil }
}

@Suite("Date text of XML property lists")
struct ISO8601DateTextTests {
    @Test(arguments: [
        (0.0, "2001-01-01T00:00:00Z"), (-0.5, "2000-12-31T23:59:59Z"), (59.999, "2001-01-01T00:00:59Z"),
        (-978_307_200.0, "1970-01-01T00:00:00Z"), (-63_113_904_000.0, "0001-01-01T00:00:00Z"),
        (252_423_993_599.0, "9999-12-31T23:59:59Z"), (252_423_993_600.0, "10000-01-01T00:00:00Z"),
        (-63_145_526_400.0, "0000-01-01T00:00:00Z"), (-63_177_062_400.0, "-0001-01-01T00:00:00Z"),
        (730_000_000.0, "2024-02-19T01:46:40Z"),
    ])
    func formatsEveryRange(seconds: Double, expected: String) {
        #expect(ISO8601Date.format(seconds) == expected)
        #expect(ISO8601Date.parse(expected) == .seconds(seconds.rounded(.down)))
    }

    @Test func agreesWithFoundationsFormatter() {
        let formatter = ISO8601DateFormatter()
        var random = SeededGenerator(seed: 18)
        for _ in 0..<2000 {
            let state = random.next()
            // Years 1620 to 9986: the formatter's calendar is Julian before 1582.
            let seconds = Double(state % 4_224_000_000_000) / 16 - 12_000_000_000
            let expected = formatter.string(
                from: Date(timeIntervalSinceReferenceDate: seconds.rounded(.down)))
            #expect(ISO8601Date.format(seconds) == expected, "\(seconds)")
        }
    }
}
