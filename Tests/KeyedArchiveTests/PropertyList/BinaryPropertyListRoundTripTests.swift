import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

enum GeneratedPlist {
    static let strings = [
        "", "a", "Potato Bug", "Mässig, Maß", "日本語", "emoji 😀👍🏽", "e\u{301}", "\u{E9}", "tab\tnew\nline",
        String(repeating: "long ascii ", count: 10), String(repeating: "ü", count: 40), "$null", "NS.objects",
    ]

    static func scalar(_ random: inout SeededGenerator) -> PropertyList {
        switch random.next() % 12 {
        case 0: return .string(strings.randomElement(using: &random) ?? "")
        case 1: return .integer(PropertyListInteger(Int64(bitPattern: random.next())))
        case 2: return .integer(PropertyListInteger(random.next() >> (random.next() % 64)))
        case 3:
            return .integer(PropertyListInteger(high: Int64(bitPattern: random.next()), low: random.next()))
        case 4:
            return .real(
                [0.0, -0.0, 1.5, .nan, .infinity, -.infinity, .pi, .leastNonzeroMagnitude].randomElement(
                    using: &random) ?? 0)
        case 5: return .real(Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF))
        case 6: return .bool(random.next() % 2 == 0)
        case 7:
            return .date(
                Date(
                    timeIntervalSinceReferenceDate: Double(Int64(bitPattern: random.next()) % 10_000_000_000))
            )
        case 8:
            return .data(
                Data((0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case 9: return .uid(random.next() >> (random.next() % 64))
        case 10: return .integer(PropertyListInteger(Int64(random.next() % 300) - 150))
        default: return .string("s\(random.next() % 50)")
        }
    }

    static func value(_ random: inout SeededGenerator, depth: Int) -> PropertyList {
        guard depth > 0, random.next() % 3 == 0 else { return scalar(&random) }
        let count = Int(random.next() % 20)
        if random.next() % 2 == 0 {
            return .array((0..<count).map { _ in value(&random, depth: depth - 1) })
        }
        var dictionary = PropertyListDictionary()
        for _ in 0..<count {
            let key = (strings.randomElement(using: &random) ?? "") + "\(random.next() % 30)"
            dictionary[key] = value(&random, depth: depth - 1)
        }
        return .dictionary(dictionary)
    }
}

@Suite("Binary property list: round trips")
struct BinaryPropertyListRoundTripTests {
    static func roundTrip(_ value: PropertyList, sortsKeys: Bool = true) throws -> PropertyList {
        let data = try value.data(format: .binary, options: PropertyListWritingOptions(sortsKeys: sortsKeys))
        return try PropertyList(from: data)
    }

    /// The one width rule: the builder and the stream write an integer or UID at each
    /// width boundary in the same bytes, and counts use the same thresholds.
    @Test(arguments: [
        (UInt64(0), 1), (255, 1), (256, 2), (65_535, 2), (65_536, 4), (UInt64(UInt32.max), 4),
        (UInt64(UInt32.max) + 1, 8), (UInt64(Int64.max), 8),
    ])
    func widthRuleIsSharedByBuilderAndStream(value: UInt64, width: Int) throws {
        #expect(BinaryPropertyListWidth.bytes(toHold: value) == width)
        #expect(BinaryPropertyListWidth.bytes(forCount: Int(value)) == width)
        for item in [PropertyList.integer(PropertyListInteger(value)), .uid(value)] {
            let built = try item.data(format: .binary)
            let object = [UInt8](built)[8..<(9 + width)]
            let marker: UInt8 =
                item.uidValue == nil ? 0x10 | UInt8(width.trailingZeroBitCount) : 0x80 | UInt8(width - 1)
            #expect(object.first == marker, "\(item)")
            #expect(object.dropFirst().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == value, "\(item)")
            let stream = BinaryPropertyListStream(expectedBytes: 64, expectedObjects: 1, sharedUIDLimit: 16)
            let top = item.uidValue.map { stream.addUID($0) } ?? stream.addInteger(PropertyListInteger(value))
            let streamed = try stream.finish(topObject: top)
            #expect([UInt8](streamed)[8..<(9 + width)] == object, "\(item): stream and builder agree")
        }
    }

    @Test func everyType() throws {
        let value: PropertyList = [
            "string": "Potato Bug", "unicode": "Mässig, Maß 😀", "empty string": "",
            "int": 728, "negative": -5, "min": .integer(PropertyListInteger(Int64.min)),
            "max": .integer(PropertyListInteger(Int64.max)),
            "umax": .integer(PropertyListInteger(UInt64.max)),
            "wide": .integer(PropertyListInteger(high: 0x0102_0304_0506_0708, low: 9)),
            "wide negative": .integer(PropertyListInteger(high: -5, low: 1)),
            "real": 0.5, "nan": .real(.nan), "inf": .real(.infinity), "-inf": .real(-.infinity),
            "-0": .real(-0.0),
            "true": true, "false": false, "date": .date(Date(timeIntervalSinceReferenceDate: 120_000_000.5)),
            "old date": .date(Date(timeIntervalSinceReferenceDate: -1e12)),
            "data": .data(Data([0, 1, 2, 255])), "empty data": .data(Data()),
            "uid": .uid(0), "big uid": .uid(.max), "empty array": [], "empty dict": [:],
            "nested": [[[["deep"]]], ["k": ["v": [1, 2, 3]]]],
        ]
        let back = try Self.roundTrip(value)
        #expect(back == value)
        #expect(back["-0"]?.doubleValue?.sign == .minus)
    }

    @Test func unicodeScalarsAreKeptExactly() throws {
        let decomposed = "e\u{301}"
        let back = try Self.roundTrip([.string(decomposed), .string("\u{E9}")])
        #expect(back[0]?.stringValue.map { Array($0.unicodeScalars) } == Array(decomposed.unicodeScalars))
        #expect(back[1]?.stringValue.map { Array($0.unicodeScalars) } == ["\u{E9}"])
    }

    @Test(arguments: 0..<40)
    func generatedValues(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        let value = GeneratedPlist.value(&random, depth: 5)
        #expect(try Self.roundTrip(value) == value, "seed \(seed)")
        #expect(try Self.roundTrip(value, sortsKeys: false) == value, "seed \(seed)")
    }

    @Test(arguments: [14, 15, 16, 255, 256, 65_535, 65_536])
    func collectionSizesAroundCountWidths(count: Int) throws {
        let array = PropertyList.array((0..<count).map { .integer(PropertyListInteger($0)) })
        var dictionary = PropertyListDictionary()
        for index in 0..<min(count, 300) { dictionary["k\(index)"] = .string("v\(index)") }
        let text = String(repeating: "x", count: count)
        let value: PropertyList = ["array": array, "dict": .dictionary(dictionary), "text": .string(text)]
        #expect(try Self.roundTrip(value) == value)
    }

    @Test(arguments: [(10, 1), (300, 2), (70_000, 4)])
    func referenceSizeGrowsWithTheObjectCount(count: Int, expectedSize: Int) throws {
        let value = PropertyList.array((0..<count).map { .string("s\($0)") })
        let data = try value.data(format: .binary)
        let bytes = [UInt8](data)
        let trailer = bytes.count - 32
        #expect(Int(bytes[trailer + 7]) == expectedSize, "object reference size")
        let tableOffset = bytes[(trailer + 24)...].reduce(0) { $0 << 8 | Int($1) }
        #expect(
            Int(bytes[trailer + 6]) == BinaryPropertyListWidth.bytes(forCount: tableOffset),
            "offset size")
        #expect(try PropertyList(from: data) == value)
    }

    @Test func equalScalarsAreStoredOnceAndTypesStayDistinct() throws {
        // 1, 1.0 and true are different objects; the second 1 and the second "x" are shared.
        let value: PropertyList = [
            1, 1.0, true, 1, "x", "x", .uid(1), .date(Date(timeIntervalSinceReferenceDate: 1)),
        ]
        let data = try value.data(format: .binary)
        try BPlist.scan(data) { scanner throws in
            #expect(scanner.trailer.objectCount == 7)  // the array + 1, 1.0, true, "x", UID 1, date
            #expect(try scanner.references(of: scanner.trailer.topObject) == [1, 2, 3, 1, 4, 4, 5, 6])
        }
        #expect(try PropertyList(from: data) == value)
    }

    @Test func equalContainersAreNotShared() throws {
        let value: PropertyList = [[1], [1], [:], [:]]
        let objectCount = try BPlist.scan(try value.data(format: .binary)) { $0.trailer.objectCount }
        #expect(objectCount == 6)
    }

    @Test func keysAreSortedByUnicodeScalarsOrKeptInOrder() throws {
        let value: PropertyList = ["b": 1, "a": 2, "é": 3, "Z": 4]
        func keys(_ data: Data) throws -> [String] {
            try BPlist.scan(data) { scanner throws in
                try scanner.keyReferences(of: scanner.trailer.topObject).map { try scanner.string(at: $0) }
            }
        }
        #expect(try keys(value.data(format: .binary)) == ["Z", "a", "b", "é"])
        let unsorted = try value.data(format: .binary, options: PropertyListWritingOptions(sortsKeys: false))
        #expect(try keys(unsorted) == ["b", "a", "é", "Z"])
    }

    @Test func writesAnyDepthWithoutRecursion() throws {
        var value: PropertyList = "leaf"
        for _ in 0..<2_000 { value = [value] }
        var options = PropertyListReadingOptions()
        options.maximumDepth = 10_000
        let data = try value.data(format: .binary)
        #expect(try PropertyList(from: data, options: options) == value)
    }

    @Test func nonFiniteDatesCannotBeWritten() throws {
        let error = #expect(throws: KeyedArchiveError.self) {
            try PropertyList.date(Date(timeIntervalSinceReferenceDate: .nan)).data(format: .binary)
        }
        #expect(error?.code == .invalidValue)
    }

    @Test func builderTakesObjectsInAnyOrder() throws {
        var builder = BinaryPropertyListBuilder()
        let name = builder.addString("name")
        let value = builder.addString("Potato Bug")
        let again = builder.addString("name")
        #expect(again == name)
        let array = builder.addArray([value, value])
        let root = try builder.addDictionary(keys: [name], values: [array])
        let data = try builder.finish(topObject: root)
        #expect(try PropertyList(from: data) == ["name": ["Potato Bug", "Potato Bug"]])

        var numberKeys = BinaryPropertyListBuilder()
        let one = numberKeys.addInteger(Int64(1))
        let badRoot = try numberKeys.addDictionary(keys: [one], values: [one])
        let keyError = #expect(throws: KeyedArchiveError.self) { try numberKeys.finish(topObject: badRoot) }
        #expect(keyError?.code == .invalidValue)

        var unfinished = BinaryPropertyListBuilder()
        let reserved = unfinished.reserveObject()
        #expect(throws: KeyedArchiveError.self) { try unfinished.finish(topObject: reserved) }
        #expect(throws: KeyedArchiveError.self) {
            try unfinished.setDictionary(reserved, keys: [0], values: [])
        }
        try unfinished.setArray(reserved, elements: [5])
        #expect(throws: KeyedArchiveError.self) { try unfinished.finish(topObject: reserved) }
    }

    /// Objects, references and payload bytes are stored with 32-bit positions: past the
    /// builder's limit it refuses at `finish` with an error (the limit is lowered here).
    @Test(arguments: ["objects", "object references", "bytes of strings and data"])
    func builderRefusesPastItsLimit(_ what: String) throws {
        var builder = BinaryPropertyListBuilder()
        builder.limit = 4
        let first = builder.addString("a")
        switch what {
        case "objects":
            for value in 1...4 { _ = builder.addInteger(Int64(value)) }
        case "object references":
            _ = builder.addArray([first, first])
            _ = builder.addArray([first, first, first])
        default:
            _ = builder.addData([1, 2, 3, 4])
        }
        let error = #expect(throws: KeyedArchiveError.self) { try builder.finish(topObject: first) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("more than 4 \(what)") == true, "\(error?.message ?? "")")
    }

    @Test func builderRefusesReferencesBeyond32Bits() throws {
        var builder = BinaryPropertyListBuilder()
        let array = builder.addArray([1 << 33])
        let error = #expect(throws: KeyedArchiveError.self) { try builder.finish(topObject: array) }
        #expect(error?.message.contains("\(1 << 33) does not exist") == true, "\(error?.message ?? "")")
    }

    /// More than 65,536 objects: 4-byte references and offsets, many regrown tables.
    @Test func builderWritesLargeTables() throws {
        var builder = BinaryPropertyListBuilder()
        let root = builder.reserveObject()
        let elements = (0..<70_000).map { builder.addInteger(Int64($0) * 3) }
        #expect(builder.addInteger(Int64(69_999 * 3)) == elements.last)
        try builder.setArray(root, elements: elements)
        let data = try builder.finish(topObject: root)
        #expect(
            try PropertyList(from: data)
                == .array((0..<70_000).map { .integer(PropertyListInteger(Int64($0) * 3)) }))
    }
}

@Suite(
    "Binary property list: fixtures", .enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote))
)
struct BinaryPropertyListFixtureTests {
    static let validEntries = (Fixtures.entries("plists") + Fixtures.entries("apple-keyed-archives"))
        .filter { $0.format == "binary" }
    static let malformedEntries = Fixtures.entries("malformed").filter { $0.format == "binary" }

    @Test(arguments: validEntries)
    func readsValidFixture(_ entry: Fixtures.Entry) throws {
        let data = try Fixtures.data(entry)
        let value = try PropertyList(from: data, format: .binary)
        let expected = try #require(try Fixtures.expectedValue(entry), "\(entry.file): no expectation")
        #expect(fixtureValueMatches(value, expected), "\(entry.file): read \(value)")
        // Whatever we read, we write and read back identically.
        #expect(try PropertyList(from: value.data(format: .binary)) == value, "\(entry.file): round trip")
    }

    @Test(arguments: malformedEntries)
    func handlesMalformedFixture(_ entry: Fixtures.Entry) throws {
        let data = try Fixtures.data(entry)
        switch entry.expect {
        case "reject":
            let error = #expect(throws: KeyedArchiveError.self, "\(entry.file) must be rejected") {
                try PropertyList(from: data, format: .binary)
            }
            #expect(
                error?.location != nil, "\(entry.file): error without location: \(String(describing: error))")
        case "plist-ok-archive-bad":
            let value = try PropertyList(from: data, format: .binary)
            let expected = try #require(try Fixtures.expectedValue(entry), "\(entry.file): no expectation")
            #expect(fixtureValueMatches(value, expected), "\(entry.file): read \(value)")
        default:
            // reject-or-decode: either is fine, as long as it is a value or our error.
            do {
                _ = try PropertyList(from: data, format: .binary)
            } catch let error as KeyedArchiveError {
                #expect(error.location != nil, "\(entry.file): \(error)")
            }
        }
    }

    @Test func int128Fixture() throws {
        let entry = try #require(Self.validEntries.first { $0.file.hasSuffix("goplist_int128.bplist") })
        let value = try PropertyList(from: try Fixtures.data(entry))
        #expect(value.integerValue?.description == "1339673755198158349044581307228491536")
    }

    @Test func rejectsTheNaNDateFixture() throws {
        let entry = try #require(
            Self.malformedEntries.first { $0.file.hasSuffix("rustplist_fuzzer_binary_nan_date.bplist") })
        #expect(throws: KeyedArchiveError.self) { try PropertyList(from: try Fixtures.data(entry)) }
    }

    @Test func reproducesCocoasOutputByteForByte() throws {
        let entry = try #require(
            Self.validEntries.first { $0.file.hasSuffix("cpython_TESTDATA_binary.plist") })
        let original = try Fixtures.data(entry)
        let value = try PropertyList(from: original)
        let expected = try #require(try Fixtures.expectedValue(entry))
        #expect(fixtureValueMatches(value, expected))
        let written = try value.data(format: .binary)
        let firstDifference = zip(written, original).enumerated().first { $0.element.0 != $0.element.1 }?
            .offset
        #expect(
            written == original,
            "\(entry.file): \(written.count) bytes written, \(original.count) expected; first difference at \(String(describing: firstDifference))"
        )
    }
}

@Suite("Binary property list: random access through the scanner")
struct BinaryPropertyListRandomAccessTests {
    /// {"key0": ["value0", 0], "key1": ["value1", 1], …}
    static func large(count: Int) throws -> Data {
        var dictionary = PropertyListDictionary()
        for index in 0..<count {
            dictionary["key\(index)"] = [.string("value\(index)"), .integer(PropertyListInteger(index))]
        }
        return try PropertyList.dictionary(dictionary).data(format: .binary)
    }

    @Test func readsOneObjectWithoutTouchingTheOthers() throws {
        let data = try Self.large(count: 2_000)
        let (entry, other, victimOffset) = try BPlist.scan(data) { scanner throws in
            let root = try scanner.object(scanner.trailer.topObject)
            #expect(root.kind == .dictionary)
            #expect(root.count == 2_000)
            let entry = try #require(try scanner.valueReference(forKey: "key1234", in: root))
            #expect(try scanner.value(at: entry) == ["value1234", 1234])
            let other = try #require(try scanner.valueReference(forKey: "key10", in: root))
            let victim = try scanner.references(of: other)[0]
            #expect(try scanner.string(at: victim) == "value10")
            return (entry, other, try scanner.offset(of: victim))
        }

        // Corrupt the string "value10" (turn its marker into the fill byte): the whole file
        // no longer reads, but other objects still do.
        var corrupted = [UInt8](data)
        corrupted[victimOffset] = 0x0F
        try BPlist.scan(Data(corrupted)) { damaged throws in
            let root = damaged.trailer.topObject
            #expect(try damaged.value(at: entry) == ["value1234", 1234])
            #expect(try damaged.valueReference(forKey: "key1999", inDictionaryAt: root) != nil)
            #expect(throws: KeyedArchiveError.self) { try damaged.value(at: other) }
        }
        let error = #expect(throws: KeyedArchiveError.self) { try PropertyList(from: Data(corrupted)) }
        #expect(error?.code == .corruptData)
        #expect(error?.location == .byteOffset(victimOffset))
    }

    @Test func objectsReportTheirKindAndCount() throws {
        let plist: PropertyList = ["a": [1, "two"], "b": .uid(3)]
        try BPlist.scan(try plist.data(format: .binary)) { scanner in
            let root = scanner.trailer.topObject
            let references = try scanner.references(of: root)
            let (keys, values) = (references[..<2], references[2...])
            #expect(try keys.map { try scanner.string(at: $0) } == ["a", "b"])
            let array = try scanner.object(values[values.startIndex])
            #expect(array.kind == .array)
            #expect(array.count == 2)
            #expect(try scanner.object(values[values.startIndex + 1]).kind == .uid)
            #expect(try scanner.value(at: values[values.startIndex + 1]) == .uid(3))
            #expect(try scanner.valueReference(forKey: "missing", inDictionaryAt: root) == nil)
            let missing = #expect(throws: KeyedArchiveError.self) {
                try scanner.object(scanner.trailer.objectCount)
            }
            #expect(missing?.code == .corruptData)
        }
    }

    @Test func lookupMatchesNonASCIIAndUTF16Keys() throws {
        let plist: PropertyList = ["Maß": 1, "日本": 2, "plain": 3]
        try BPlist.scan(try plist.data(format: .binary)) { scanner in
            for (key, expected) in [("Maß", 1), ("日本", 2), ("plain", 3)] {
                let reference = try #require(try scanner.valueReference(forKey: key, inDictionaryAt: 0))
                #expect(try scanner.value(at: reference).intValue == expected, "\(key)")
            }
            #expect(try scanner.valueReference(forKey: "Ma", inDictionaryAt: 0) == nil)
        }
    }

    @Test func lookupWithDuplicateKeysTakesTheLast() throws {
        let bytes = BPlist.assemble([[0xD2, 1, 1, 2, 3], [0x51, 0x6B], [0x10, 1], [0x10, 2]])
        let reference = try BPlist.scan(Data(bytes)) { try $0.valueReference(forKey: "k", inDictionaryAt: 0) }
        #expect(reference == 3)
    }
}

@Suite("Binary property list: Foundation interoperability")
struct BinaryPropertyListFoundationTests {
    @Test func readsWhatFoundationWrites() throws {
        let object: [String: Any] = [
            "string": "Potato Bug", "unicode": "Mässig 😀", "int": 42, "negative": -7, "big": Int64.max,
            "real": 2.5, "bool": true, "data": Data([1, 2, 3]),
            "date": Date(timeIntervalSinceReferenceDate: 1000),
            "array": [1, "two", [3.0]], "dict": ["nested": false],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let value = try PropertyList(from: data)
        let expected: PropertyList = [
            "string": "Potato Bug", "unicode": "Mässig 😀", "int": 42, "negative": -7,
            "big": .integer(PropertyListInteger(Int64.max)), "real": 2.5, "bool": true,
            "data": .data(Data([1, 2, 3])),
            "date": .date(Date(timeIntervalSinceReferenceDate: 1000)), "array": [1, "two", [3.0]],
            "dict": ["nested": false],
        ]
        #expect(value == expected)
    }

    @Test func foundationReadsWhatWeWrite() throws {
        let value: PropertyList = [
            "string": "Potato Bug", "unicode": "Mässig 😀", "int": 42, "negative": -7, "real": 2.5,
            "bool": true,
            "data": .data(Data([1, 2, 3])), "array": [1, "two", [3.0]],
            "many": .array((0..<300).map { .string("s\($0)") }),
        ]
        let data = try value.data(format: .binary)
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        #expect(format == .binary)
        let dictionary = try #require(object as? [String: Any])
        #expect(dictionary["string"] as? String == "Potato Bug")
        #expect(dictionary["unicode"] as? String == "Mässig 😀")
        #expect((dictionary["int"] as? NSNumber)?.intValue == 42)
        #expect((dictionary["negative"] as? NSNumber)?.intValue == -7)
        #expect((dictionary["real"] as? NSNumber)?.doubleValue == 2.5)
        #expect(dictionary["data"] as? Data == Data([1, 2, 3]))
        #expect((dictionary["many"] as? [Any])?.count == 300)
        #expect((dictionary["many"] as? [Any])?.last as? String == "s299")
    }
}

@Suite("Binary property list: writer scaling")
struct BinaryPropertyListWriterScalingTests {
    /// Many containers under one parent: closing each must not copy the parent's pending
    /// references (a copy-on-write slip once made this quadratic). Four times the entries
    /// must take about four times as long, not sixteen.
    @Test func manySiblingContainersWriteInLinearTime() throws {
        func secondsToWrite(_ count: Int) throws -> Double {
            var dictionary = PropertyListDictionary(minimumCapacity: count)
            for index in 0..<count { dictionary["k\(index)"] = [.integer(PropertyListInteger(index))] }
            let value = PropertyList.dictionary(dictionary)
            var best = Double.infinity
            for _ in 0..<5 {
                let start = ContinuousClock.now
                let data = try value.data(format: .binary)
                let elapsed = ContinuousClock.now - start
                best = min(
                    best, Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
                #expect(data.count > count)
            }
            return best
        }
        let small = try secondsToWrite(20_000)
        let large = try secondsToWrite(80_000)
        // Linear is 4×, quadratic 16×; 12× leaves room for a machine busy with other work.
        #expect(large < small * 12, "20k entries: \(small) s, 80k entries: \(large) s")
    }
}
