import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// The binary reader's reading context, kept from one document to the next: a table of
/// short ASCII key strings, and remembered key lists that later dictionaries with the same
/// key bytes share (keys array and position table) without reading their keys. Each test
/// reads with a context of its own, twice (the second time from what the first left), and
/// compares with a read without any context.
@Suite("Binary property list: the reading context")
struct BinaryReadingContextTests {
    /// Reads `bytes` as `PropertyList(from:)` does, with `context` (or none).
    static func read(
        _ bytes: [UInt8], context: BinaryPropertyListReadingContext?, budget: Int = 1_000_000
    ) throws -> PropertyList {
        try Data(bytes).withUnsafeBytes { raw in
            let trailer = try BinaryPropertyListTrailer(validating: raw)
            var remaining = budget
            return try BinaryPropertyListScanner(bytes: raw, trailer: trailer).materialize(
                trailer.topObject, maximumDepth: 512, remaining: &remaining, budget: budget, context: context)
        }
    }

    /// Reads `bytes` without a context, then twice with `context`; all three must agree.
    static func readThrice(_ bytes: [UInt8], context: BinaryPropertyListReadingContext) throws -> PropertyList
    {
        let plain = try read(bytes, context: nil)
        let first = try read(bytes, context: context)
        let second = try read(bytes, context: context)
        #expect(first == plain)
        #expect(second == plain)
        #expect(first.dictionaryValue?.keys == plain.dictionaryValue?.keys)
        #expect(second.dictionaryValue?.keys == plain.dictionaryValue?.keys)
        return second
    }

    /// A dictionary of `keys` (string objects, one each) mapped to 1, 2, … in order, with
    /// 2-byte references and counts when there are more than 127 keys.
    static func dictionary(_ keys: [[UInt8]]) -> [UInt8] {
        let count = keys.count
        let width = 2 * count + 1 > 255 ? 2 : 1
        let header: [UInt8] =
            count < 15 ? [0xD0 | UInt8(count)] : [0xDF, 0x11] + BPlist.bigEndian(UInt64(count), width: 2)
        let references = (1...(2 * count)).flatMap { BPlist.bigEndian(UInt64($0), width: width) }
        var objects: [[UInt8]] = [header + references]
        objects += keys
        objects += (1...count).map { [0x11] + BPlist.bigEndian(UInt64($0), width: 2) }
        return BPlist.assemble(objects, refSize: UInt8(width))
    }

    /// An ASCII-marked string object of raw bytes (Latin-1 above 0x7F).
    static func latin1(_ bytes: [UInt8]) -> [UInt8] {
        BPlist.header(0x50, count: bytes.count) + bytes
    }

    /// An array of dictionaries, each with the string objects `keys` (shared by all) and
    /// the values `base + 1`, `base + 2`, … (fresh integer objects per dictionary).
    static func arrayOfDictionaries(keys: [String], count: Int, base: Int = 0) -> [UInt8] {
        let keyCount = keys.count
        // Objects: 0 the array, 1...count the dictionaries, then the keys, then the values.
        let firstKey = 1 + count
        let firstValue = firstKey + keyCount
        var objects: [[UInt8]] = [BPlist.header(0xA0, count: count) + (1...count).map { UInt8($0) }]
        for dictionary in 0..<count {
            let keyRefs = (0..<keyCount).map { UInt8(firstKey + $0) }
            let valueRefs = (0..<keyCount).map { UInt8(firstValue + dictionary * keyCount + $0) }
            objects.append(BPlist.header(0xD0, count: keyCount) + keyRefs + valueRefs)
        }
        objects += keys.map { BPlist.ascii($0) }
        for dictionary in 0..<count {
            for key in 0..<keyCount {
                objects.append([0x11] + BPlist.bigEndian(UInt64(base + dictionary * 100 + key), width: 2))
            }
        }
        return BPlist.assemble(objects)
    }

    @Test(arguments: [1, 3, 8, 9, 14, 40, 64, 65, 200])
    func dictionariesOfAnyKeyCountReadAlikeWithAndWithoutContext(keyCount: Int) throws {
        let context = BinaryPropertyListReadingContext()
        let keys = (0..<keyCount).map { BPlist.ascii("key\($0)") }
        let value = try Self.readThrice(Self.dictionary(keys), context: context)
        let dictionary = try #require(value.dictionaryValue)
        #expect(dictionary.keys == (0..<keyCount).map { "key\($0)" })
        for index in 0..<keyCount { #expect(dictionary["key\(index)"] == PropertyList(index + 1)) }
        #expect(dictionary["key\(keyCount)"] == nil)
    }

    @Test(arguments: [3, 12])
    func dictionariesWithTheSameKeysShareThemButNotTheirValues(keyCount: Int) throws {
        let context = BinaryPropertyListReadingContext()
        let keys = (0..<keyCount).map { "field\($0)" }
        // A document of 5 dictionaries with the same keys, read twice; then another document
        // whose dictionaries have the same keys (other key objects) and other values.
        let first = try Self.readThrice(Self.arrayOfDictionaries(keys: keys, count: 5), context: context)
        let second = try Self.read(Self.arrayOfDictionaries(keys: keys, count: 3, base: 7), context: context)
        // Read with the context, the dictionaries share one keys array; without, they do not.
        func keyStorage(_ value: PropertyList, _ index: Int) -> UnsafePointer<String>? {
            value.arrayValue?[index].dictionaryValue?.keys.withUnsafeBufferPointer { $0.baseAddress }
        }
        #expect(keyStorage(first, 0) != nil)
        #expect(keyStorage(first, 0) == keyStorage(first, 4))
        #expect(keyStorage(first, 0) == keyStorage(second, 2))
        let plain = try Self.read(Self.arrayOfDictionaries(keys: keys, count: 2), context: nil)
        #expect(keyStorage(plain, 0) != keyStorage(plain, 1))
        for (value, count, base) in [(first, 5, 0), (second, 3, 7)] {
            let elements = try #require(value.arrayValue)
            #expect(elements.count == count)
            for (index, element) in elements.enumerated() {
                let dictionary = try #require(element.dictionaryValue)
                #expect(dictionary.keys == keys)
                for key in 0..<keyCount {
                    #expect(dictionary["field\(key)"] == PropertyList(base + index * 100 + key))
                }
            }
        }
    }

    @Test func changingADictionaryThatSharesKeysLeavesTheOthers() throws {
        let context = BinaryPropertyListReadingContext()
        let keys = (0..<10).map { "k\($0)" }
        let value = try Self.readThrice(Self.arrayOfDictionaries(keys: keys, count: 3), context: context)
        let elements = try #require(value.arrayValue)
        var changed = try #require(elements[0].dictionaryValue)
        changed["extra"] = "added"
        changed["k3"] = nil
        changed["k4"] = "replaced"
        let untouched = try #require(elements[1].dictionaryValue)
        #expect(untouched.keys == keys)
        #expect(untouched["k3"] == 103)
        #expect(untouched["k4"] == 104)
        #expect(untouched["extra"] == nil)
        #expect(changed.keys == keys.filter { $0 != "k3" } + ["extra"])
        #expect(changed["k4"] == "replaced")
        // The next document's dictionaries still get the original keys.
        let again = try Self.read(Self.arrayOfDictionaries(keys: keys, count: 2), context: context)
        #expect(again.arrayValue?[1].dictionaryValue?.keys == keys)
    }

    /// An array of dictionaries, one for each key list (its own key objects), mapping the
    /// keys of list `i` to `10 * i`, `10 * i + 1`, … (2-byte references throughout).
    static func arrayOfDictionaries(keyLists: [[String]]) -> [UInt8] {
        let count = keyLists.count
        var next = 1 + count
        var dictionaries: [[UInt8]] = []
        var rest: [[UInt8]] = []
        for (index, keys) in keyLists.enumerated() {
            let references = (next..<next + 2 * keys.count).flatMap { BPlist.bigEndian(UInt64($0), width: 2) }
            next += 2 * keys.count
            dictionaries.append(BPlist.header(0xD0, count: keys.count) + references)
            rest += keys.map { BPlist.ascii($0) }
            rest += keys.indices.map { [0x11] + BPlist.bigEndian(UInt64(10 * index + $0), width: 2) }
        }
        let array =
            [0xAF, 0x11] + BPlist.bigEndian(UInt64(count), width: 2)
            + (1...count).flatMap { BPlist.bigEndian(UInt64($0), width: 2) }
        return BPlist.assemble([array] + dictionaries + rest, refSize: 2)
    }

    /// After many dictionaries whose keys never repeat, the reader remembers only a sample
    /// of key lists; once lists repeat, they are found again and shared, and every value
    /// reads as without a context.
    @Test func keyListsAreFoundAgainAfterManyThatNeverRepeat() throws {
        let context = BinaryPropertyListReadingContext()
        let unique = (0..<300).map { index in ["u\(index)a", "u\(index)b", "u\(index)c"] }
        let repeated = Array(repeating: ["name", "size", "kind", "date"], count: 60)
        let value = try Self.readThrice(
            Self.arrayOfDictionaries(keyLists: unique + repeated), context: context)
        let elements = try #require(value.arrayValue)
        #expect(elements.count == 360)
        for (index, element) in elements.enumerated() {
            let keys = index < 300 ? unique[index] : repeated[0]
            let dictionary = try #require(element.dictionaryValue)
            #expect(dictionary.keys == keys)
            for (position, key) in keys.enumerated() {
                #expect(dictionary[key] == PropertyList(10 * index + position), "dictionary \(index)")
            }
        }
        // The repeated lists share one keys array from at most the sampling interval on.
        let storages = elements[300...].map { element in
            element.dictionaryValue?.keys.withUnsafeBufferPointer { $0.baseAddress }
        }
        #expect(
            Set(storages.compactMap { $0 }).count <= 17, "\(Set(storages.compactMap { $0 }).count) arrays")
        #expect(storages.last == storages[storages.count - 2])
    }

    @Test(arguments: [3, 12])
    func repeatedKeysAreMergedAfterADistinctListWithTheSamePrefix(keyCount: Int) throws {
        let context = BinaryPropertyListReadingContext()
        // First k0 … k(n-1), distinct and remembered; then the same first keys with k1
        // again at the end (as many keys in all as a remembered list would have).
        let distinct = (0..<keyCount).map { BPlist.ascii("k\($0)") }
        _ = try Self.readThrice(Self.dictionary(distinct), context: context)
        var repeated = Array(distinct.dropLast())
        repeated.append(BPlist.ascii("k1"))
        let value = try Self.readThrice(Self.dictionary(repeated), context: context)
        let dictionary = try #require(value.dictionaryValue)
        #expect(dictionary.count == keyCount - 1)
        #expect(dictionary.keys == (0..<(keyCount - 1)).map { "k\($0)" })
        #expect(dictionary["k1"] == PropertyList(keyCount))
        #expect(dictionary["k\(keyCount - 1)"] == nil)
    }

    @Test func keysOfEveryKindAndLength() throws {
        let context = BinaryPropertyListReadingContext()
        let texts = [
            "a", "exactly14bytes", "fifteen-bytes!!", "CFBundleIdentifier", String(repeating: "x", count: 32),
            String(repeating: "y", count: 33), String(repeating: "z", count: 200),
        ]
        var keys = texts.map { BPlist.ascii($0) }
        keys.append(Self.latin1([0x63, 0x61, 0x66, 0xE9]))  // "café" in Latin-1
        keys.append(SmallDocumentReadingTests.utf16("\u{2713} check"))
        keys.append(SmallDocumentReadingTests.utf16("ascii-in-utf16"))
        let expectedKeys = texts + ["caf\u{E9}", "\u{2713} check", "ascii-in-utf16"]
        for _ in 0..<2 {
            let value = try Self.readThrice(Self.dictionary(keys), context: context)
            let dictionary = try #require(value.dictionaryValue)
            #expect(dictionary.keys == expectedKeys)
            for (index, key) in expectedKeys.enumerated() {
                #expect(dictionary[key] == PropertyList(index + 1))
            }
        }
    }

    @Test func latin1AndUTF8KeysWithTheSameBytesAreTold() throws {
        let context = BinaryPropertyListReadingContext()
        // The ASCII-marked bytes C3 A9 are Latin-1 "Ã©", not UTF-8 "é".
        let latin = Self.dictionary([Self.latin1([0xC3, 0xA9]), BPlist.ascii("b")])
        let unicode = Self.dictionary([SmallDocumentReadingTests.utf16("\u{E9}"), BPlist.ascii("b")])
        let first = try Self.readThrice(latin, context: context)
        let second = try Self.readThrice(unicode, context: context)
        #expect(first.dictionaryValue?.keys == ["\u{C3}\u{A9}", "b"])
        #expect(second.dictionaryValue?.keys == ["\u{E9}", "b"])
    }

    @Test func keyStringsSharedWithValuesAndOtherDictionaries() throws {
        let context = BinaryPropertyListReadingContext()
        // Object 1 "name" is a key of both dictionaries and a value of the second.
        let objects: [[UInt8]] = [
            [0xA2, 2, 3],  // 0: [dict 2, dict 3]
            BPlist.ascii("name"),  // 1
            [0xD2, 1, 4, 5, 6],  // 2: {name: "Ladybird", kind: 7}
            [0xD2, 1, 4, 5, 1],  // 3: {name: "Ladybird", kind: "name"}
            BPlist.ascii("kind"),  // 4
            BPlist.ascii("Ladybird"),  // 5
            [0x10, 7],  // 6
        ]
        let value = try Self.readThrice(BPlist.assemble(objects), context: context)
        #expect(value == [["name": "Ladybird", "kind": 7], ["name": "Ladybird", "kind": "name"]])
    }

    @Test func manyDistinctKeysAcrossDocumentsStayCorrect() throws {
        // More keys than the key table has slots, and more lists than it remembers: every
        // slot is replaced many times.
        let context = BinaryPropertyListReadingContext()
        for document in 0..<40 {
            let keys = (0..<(document % 7 + 1)).map { "d\(document % 13)-k\($0 * 37 % 11)-\(document)" }
            let value = try Self.readThrice(Self.dictionary(keys.map { BPlist.ascii($0) }), context: context)
            #expect(value.dictionaryValue?.keys == keys)
            let large = (0..<300).map { "large-\($0 + document)" }
            let read = try Self.read(Self.dictionary(large.map { BPlist.ascii($0) }), context: context)
            #expect(read.dictionaryValue?.count == 300)
            #expect(read.dictionaryValue?["large-\(document + 299)"] == 300)
        }
    }

    @Test func hostileKeysAreStillRefusedAfterTheirListWasRemembered() throws {
        let context = BinaryPropertyListReadingContext()
        _ = try Self.readThrice(Self.dictionary([BPlist.ascii("a"), BPlist.ascii("b")]), context: context)
        // The same key bytes, but the second key reference points past the objects.
        var bytes = Self.dictionary([BPlist.ascii("a"), BPlist.ascii("b")])
        bytes[10] = 0x7F
        for reader in [nil, context] {
            let error = try #require(throws: KeyedArchiveError.self) { try Self.read(bytes, context: reader) }
            #expect(error.code == .corruptData)
        }
        // A number as a key, after a list of that many string keys was remembered.
        let numberKey = BPlist.assemble([
            [0xD2, 1, 2, 3, 4], BPlist.ascii("a"), [0x10, 9], [0x10, 1], [0x10, 2],
        ])
        for reader in [nil, context] {
            let error = try #require(throws: KeyedArchiveError.self) {
                try Self.read(numberKey, context: reader)
            }
            #expect(error.code == .corruptData)
            #expect(error.message.contains("keys must be strings"))
        }
    }

    @Test func sharedKeysStillCountAgainstTheValueBudget() throws {
        let context = BinaryPropertyListReadingContext()
        let bytes = Self.arrayOfDictionaries(keys: ["a", "b", "c"], count: 4)
        // The array, 4 dictionaries, 12 keys and 12 values: 29 values.
        _ = try Self.read(bytes, context: context, budget: 29)
        _ = try Self.read(bytes, context: context, budget: 29)
        for reader in [nil, context] {
            let error = try #require(throws: KeyedArchiveError.self) {
                try Self.read(bytes, context: reader, budget: 28)
            }
            #expect(error.code == .limitExceeded)
        }
    }

    @Test func stacksGrownByALargeDocumentAreShrunkAndAThrowLeavesNothingBehind() throws {
        let context = BinaryPropertyListReadingContext()
        let large = PropertyList.array((0..<6000).map { PropertyList($0) })
        let bytes = Array(try large.data(format: .binary))
        #expect(try Self.read(bytes, context: context) == large)
        #expect(context.values.capacity > BinaryPropertyListReadingContext.keptStackCapacity)
        // A document that fails halfway leaves values and keys on the stacks.
        // The last dictionary's last value reference (byte 26) points past the objects.
        var broken = Self.arrayOfDictionaries(keys: ["a", "b"], count: 3)
        #expect(broken[22] == 0xD2)
        broken[26] = 0x7F
        _ = try #require(throws: KeyedArchiveError.self) { try Self.read(broken, context: context) }
        #expect(context.values.count > 0)
        context.empty()
        #expect(context.values.count == 0)
        #expect(context.keys.count == 0)
        #expect(context.values.capacity <= BinaryPropertyListReadingContext.keptStackCapacity)
        _ = try Self.readThrice(Self.arrayOfDictionaries(keys: ["a", "b"], count: 3), context: context)
        #expect(try Self.read(bytes, context: context) == large)
    }

    @Test func readersOnManyThreadsAtOnceGetTheirOwnValues() async throws {
        // The process's context is lent to one reader at a time; the others read without.
        let documents = (0..<8).map { document in
            (0..<20).map {
                Data(Self.arrayOfDictionaries(keys: ["x", "y\(document)", "z"], count: 4, base: $0))
            }
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for document in 0..<8 {
                group.addTask {
                    for (base, data) in documents[document].enumerated() {
                        let value = try PropertyList(from: data)
                        guard let elements = value.arrayValue, elements.count == 4 else { return false }
                        for (index, element) in elements.enumerated() {
                            let expected: PropertyList = [
                                "x": PropertyList(base + index * 100),
                                "y\(document)": PropertyList(base + index * 100 + 1),
                                "z": PropertyList(base + index * 100 + 2),
                            ]
                            guard element == expected else { return false }
                        }
                    }
                    return true
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    /// Random dictionaries of 1 to 24 keys, mixing keys the key table takes (short ASCII;
    /// Latin-1 bytes in an ASCII-marked object, whose string's bytes differ from the
    /// object's), keys it does not (longer than 32 bytes, UTF-16), keys equal as strings
    /// but not as bytes, and repeated keys. Each reads as without a context and as the
    /// dictionary's own rule says (a repeated key keeps its first position and its last
    /// value, keys compared as `String`s), and every key is found by lookup (through the
    /// position table past eight keys).
    @Test func dictionariesOfMixedKeysReadAsWithoutAContext() throws {
        let ascii =
            (0..<40).map { "key\($0)" } + (0..<6).map { "a-rather-longer-key-of-\($0)-bytes" }
            + (0..<4).map { String(repeating: "long", count: 9) + "\($0)" } + ["K"]
        let pool: [(object: [UInt8], text: String)] =
            ascii.map { (BPlist.ascii($0), $0) }
            + [
                (Self.latin1([0x67, 0x72, 0xF6, 0xDF, 0x65]), "gr\u{F6}\u{DF}e"),
                (Self.latin1([0xE9]), "\u{E9}"), (Self.latin1([0x4B, 0xB5]), "K\u{B5}"),
                (BPlist.header(0x60, count: 1) + [0x00, 0xE9], "\u{E9}"),
                (BPlist.header(0x60, count: 2) + [0x00, 0x65, 0x03, 0x01], "e\u{301}"),
                (BPlist.header(0x60, count: 1) + [0x21, 0x2A], "\u{212A}"),  // KELVIN SIGN, equal to "K"
            ]
        var random = SeededGenerator(seed: 31)
        let context = BinaryPropertyListReadingContext()
        for round in 0..<400 {
            let count = Int.random(in: 1...24, using: &random)
            var chosen: [Int] = []
            for _ in 0..<count {
                if !chosen.isEmpty, Int.random(in: 0..<12, using: &random) == 0 {
                    chosen.append(chosen[Int.random(in: 0..<chosen.count, using: &random)])
                } else {
                    chosen.append(Int.random(in: 0..<pool.count, using: &random))
                }
            }
            // The values are 1, 2, … in order (see `dictionary(_:)`).
            var expectedKeys: [String] = []
            var expectedValues: [Int] = []
            for (position, index) in chosen.enumerated() {
                if let earlier = expectedKeys.firstIndex(of: pool[index].text) {
                    expectedValues[earlier] = position + 1
                } else {
                    expectedKeys.append(pool[index].text)
                    expectedValues.append(position + 1)
                }
            }
            let value = try Self.readThrice(Self.dictionary(chosen.map { pool[$0].object }), context: context)
            let dictionary = try #require(value.dictionaryValue)
            #expect(dictionary.keys == expectedKeys, "round \(round)")
            for (key, expected) in zip(expectedKeys, expectedValues) {
                #expect(
                    dictionary[key] == PropertyList(expected), "round \(round): key \(key.debugDescription)")
            }
        }
    }
}
