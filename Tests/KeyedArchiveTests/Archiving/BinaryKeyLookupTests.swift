import Foundation
import KeyedArchive
import TestSupport
import Testing

/// Keys are found in a binary archive's objects through a cache of key-string objects and
/// positions; these archives are built byte by byte to hold what writers never produce
/// (a key text stored as two string objects, a key repeated, ASCII and UTF-16 keys with
/// the same text), and check that the last key with the text wins whatever was looked
/// up before.
@Suite("Key lookup in binary archives")
struct BinaryKeyLookupTests {
    /// An object that reads `k` and `v`, and `k` again through a key built at run time.
    struct KeyProbe: SecureKeyedCoding, Equatable {
        static var archivedClassName: String { "Probe" }
        var k: Int
        var v: Int
        var builtK: Int

        init(k: Int, v: Int) {
            (self.k, self.v, builtK) = (k, v, k)
        }

        init(coder: KeyedUnarchiver) throws {
            k = try coder.decodeInteger(forKey: "k")
            v = try coder.decodeInteger(forKey: "v")
            builtK = try coder.decodeInteger(forKey: String("kx".prefix(1)))
        }

        func encode(with coder: KeyedArchiver) {}
    }

    static func ascii(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return (bytes.count < 15 ? [0x50 | UInt8(bytes.count)] : [0x5F, 0x10, UInt8(bytes.count)]) + bytes
    }

    static func utf16(_ text: String) -> [UInt8] {
        [0x60 | UInt8(text.utf16.count)] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    static func dictionary(_ keys: [Int], _ values: [Int]) -> [UInt8] {
        [0xD0 | UInt8(keys.count)] + (keys + values).map { UInt8($0) }
    }

    /// `$top` holds `a`, `b` and `c`: objects whose keys `k` and `v` are laid out as
    /// described in each test's expectations.
    static let archive: Data = BPlist.data(
        [
            dictionary([1, 2, 3, 4], [5, 6, 7, 8]),  // 0: the archive
            ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),  // 1–4
            ascii("NSKeyedArchiver"), [0x12, 0x00, 0x01, 0x86, 0xA0],  // 5, 6: 100000
            dictionary([9, 10, 11], [12, 13, 14]),  // 7: $top
            [0xA5, 15, 16, 17, 18, 19],  // 8: $objects
            ascii("a"), ascii("b"), ascii("c"), [0x80, 1], [0x80, 2], [0x80, 3],  // 9–14
            ascii("$null"),  // 15: $objects[0]
            // 16, $objects[1]: "k" (object 21) = 1, then "k" again as object 22 = 2, v = 7.
            dictionary([20, 21, 22, 23], [24, 25, 26, 27]),
            // 17, $objects[2]: "k" = 5, v = 8, then "k" (the same string object) = 6.
            dictionary([20, 21, 23, 21], [24, 28, 29, 30]),
            // 18, $objects[3]: "k" (ASCII) = 1, then "k" in UTF-16 = 2; no v.
            dictionary([20, 21, 31], [24, 25, 26]),
            dictionary([32, 33], [34, 35]),  // 19, $objects[4]: the class description
            ascii("$class"), ascii("k"), ascii("k"), ascii("v"), [0x80, 4],  // 20–24
            [0x10, 1], [0x10, 2], [0x10, 7], [0x10, 5], [0x10, 8], [0x10, 6],  // 25–30
            utf16("k"), ascii("$classname"), ascii("$classes"), ascii("Probe"), [0xA1, 34],  // 31–35
        ], minimumOffsetSize: 2)

    static let expected = [
        "a": KeyProbe(k: 2, v: 7), "b": KeyProbe(k: 6, v: 8), "c": KeyProbe(k: 2, v: 0),
    ]

    @Test(arguments: [["a", "b", "c"], ["c", "b", "a"], ["b", "a", "c", "a", "b", "c", "c", "a"]])
    func theLastKeyWithTheTextWinsInAnyOrder(order: [String]) throws {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: Self.archive)
        for key in order {
            let probe = try unarchiver.decodeObject(of: KeyProbe.self, forKey: key)
            #expect(probe == Self.expected[key], "\(key) after \(order)")
        }
    }

    @Test func theParsedArchiveAgrees() throws {
        let unarchiver = try KeyedUnarchiver(propertyList: PropertyList(from: Self.archive))
        for key in ["a", "b", "c"] {
            #expect(try unarchiver.decodeObject(of: KeyProbe.self, forKey: key) == Self.expected[key])
        }
    }

    /// An object with a varying number of fields under keys built at run time.
    struct WideObject: SecureKeyedCoding, Equatable {
        static var archivedClassName: String { "Wide" }
        var fields: [Int]

        init(fields: [Int]) { self.fields = fields }

        init(coder: KeyedUnarchiver) throws {
            let count = try coder.decodeInteger(forKey: "count")
            fields = try (0..<min(count, 200)).reversed().map {
                try coder.decodeInteger(forKey: "f\($0 * 7)")
            }
            .reversed()
            if try coder.decodeInteger(forKey: "absent") != 0 { fields = [] }
        }

        func encode(with coder: KeyedArchiver) {
            coder.encode(fields.count, forKey: "count")
            for (index, value) in fields.enumerated() { coder.encode(value, forKey: "f\(index * 7)") }
        }
    }

    @Test func keysOfManyObjectsAndLayoutsAreFoundInTurn() throws {
        // More keys than the cache holds and more layouts than it remembers, up to more
        // keys than a layout is checked for, in turns.
        let objects = (0..<60).map { row in WideObject(fields: (0..<(row * 3 % 41)).map { row * 1000 + $0 }) }
        let data = try KeyedArchiver.archivedData(withRootObject: objects, requiringSecureCoding: true)
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClass: [WideObject].self, from: data)
        #expect(decoded == objects)
    }
    /// Foundation's archiver on Linux gives every object key strings of its own, in an
    /// order of its own; an object's keys are found from the key texts read for its first
    /// key, also when the objects it decodes in between push it out of the few remembered.
    @Test(arguments: [PropertyListFormat.binary, .xml])
    func objectsWithKeyStringsOfTheirOwnAreReadInAnyKeyOrder(format: PropertyListFormat) throws {
        let peers = (0..<30).map { index in
            let peer = FoundationPeer(
                name: "peer \(index)", friend: index % 3 == 0 ? FoundationPeer(name: "friend \(index)") : nil)
            peer.count = index * 7 - 50
            peer.ratio = Double(index) / 4
            peer.tags = ["tag \(index)", "shared"]
            return peer
        }
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format == .xml ? .xml : .binary
        archiver.encode(peers as NSArray, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let decoded = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: [ArchivePeer].self, from: archiver.encodedData))
        #expect(decoded.count == peers.count)
        for (ours, theirs) in zip(decoded, peers) {
            #expect(ours.name == theirs.name)
            #expect(ours.count == theirs.count)
            #expect(ours.ratio == theirs.ratio)
            #expect(ours.tags == theirs.tags)
            #expect(ours.when == theirs.when)
            #expect(ours.scores == [1: "one", 2: "two"])
            #expect(ours.friend?.name == theirs.friend?.name)
            #expect(ours.friend === ours.sameFriend)
        }
    }

    /// `$top` holds `a` to `i`: objects of one class whose keys `k` and `v` are string
    /// objects of their own (as Foundation on Linux writes them), or shared, varying from
    /// one object to the next what a lookup remembers: the key order, a key text twice, a
    /// key missing or another key instead, a UTF-16 key, strings shared again.
    static let ownKeyStringsArchive: Data = {
        var objects: [[UInt8]] = Array(repeating: [], count: 9)
        func add(_ bytes: [UInt8]) -> Int {
            objects.append(bytes)
            return objects.count - 1
        }
        func own(_ text: String) -> Int { add(ascii(text)) }
        func int(_ value: Int) -> Int { add([0x10, UInt8(value)]) }
        let classReference = add([0x80, 10])
        func object(_ entries: [(key: Int, value: Int)]) -> Int {
            add(dictionary(entries.map(\.key), entries.map(\.value)))
        }
        func classEntry() -> (key: Int, value: Int) { (own("$class"), classReference) }
        let sharedK = own("k")
        let sharedV = own("v")
        let probes = [
            object([classEntry(), (own("k"), int(1)), (own("v"), int(7))]),  // a: 1, 7
            object([(own("v"), int(8)), (own("k"), int(2)), classEntry()]),  // b: 2, 8
            object([classEntry(), (own("k"), int(3)), (own("k"), int(4))]),  // c: 4, no v
            object([classEntry(), (own("v"), int(5)), (own("x"), int(6))]),  // d: no k, 5
            object([classEntry(), (add(utf16("k")), int(9)), (own("v"), int(10))]),  // e: 9, 10
            object([classEntry(), (sharedK, int(11)), (sharedV, int(12))]),  // f: 11, 12
            object([(sharedV, int(13)), classEntry(), (sharedK, int(14))]),  // g: 14, 13
            object([classEntry(), (own("k"), int(15)), (sharedK, int(16)), (own("v"), int(17))]),  // h
            object([classEntry(), (sharedK, int(18)), (own("k"), int(19)), (sharedV, int(20))]),  // i
        ]
        let probeClass = own("Probe")
        let classDescription = object([
            (own("$classname"), probeClass), (own("$classes"), add([0xA1, UInt8(probeClass)])),
        ])
        let null = own("$null")
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"].map(own)
        let uids = (1...names.count).map { add([0x80, UInt8($0)]) }
        objects[7] = dictionary(names, uids)  // $top
        let entries = [null] + probes + [classDescription]
        objects[8] = [0xA0 | UInt8(entries.count)] + entries.map { UInt8($0) }
        objects[0] = dictionary([1, 2, 3, 4], [5, 6, 7, 8])
        objects[1] = ascii("$archiver")
        objects[2] = ascii("$version")
        objects[3] = ascii("$top")
        objects[4] = ascii("$objects")
        objects[5] = ascii("NSKeyedArchiver")
        objects[6] = [0x12, 0x00, 0x01, 0x86, 0xA0]
        return BPlist.data(objects, minimumOffsetSize: 2)
    }()

    static let ownKeyStringsExpected = [
        "a": KeyProbe(k: 1, v: 7), "b": KeyProbe(k: 2, v: 8), "c": KeyProbe(k: 4, v: 0),
        "d": KeyProbe(k: 0, v: 5), "e": KeyProbe(k: 9, v: 10), "f": KeyProbe(k: 11, v: 12),
        "g": KeyProbe(k: 14, v: 13), "h": KeyProbe(k: 16, v: 17), "i": KeyProbe(k: 19, v: 20),
    ]

    /// A key found by its text in one object is looked up by text in the next; the
    /// position found there is never taken for the next object's without its key texts.
    @Test(arguments: [
        ["a", "b", "c", "d", "e", "f", "g", "h", "i"], ["i", "h", "g", "f", "e", "d", "c", "b", "a"],
        ["a", "c", "a", "d", "b", "e", "a", "f", "h", "g", "i", "b", "c", "c", "f", "d", "h"],
    ])
    func keysOfObjectsWithStringsOfTheirOwnAreFoundInAnyOrder(order: [String]) throws {
        #expect(Self.ownKeyStringsArchive.count > 200)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: Self.ownKeyStringsArchive)
        for key in order {
            let probe = try unarchiver.decodeObject(of: KeyProbe.self, forKey: key)
            #expect(probe == Self.ownKeyStringsExpected[key], "\(key) after \(order)")
        }
        let parsed = try KeyedUnarchiver(propertyList: PropertyList(from: Self.ownKeyStringsArchive))
        for key in order {
            let probe = try parsed.decodeObject(of: KeyProbe.self, forKey: key)
            #expect(probe == Self.ownKeyStringsExpected[key], "parsed: \(key) after \(order)")
        }
    }
}
