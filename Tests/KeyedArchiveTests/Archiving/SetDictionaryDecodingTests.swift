import Foundation
import KeyedArchive
import Testing

/// A `Hashable` struct equal by `key` alone, to tell equal elements apart by `serial`.
struct TaggedValue: SecureKeyedCoding, Hashable {
    var key: String
    var serial: Int

    func encode(with coder: KeyedArchiver) {
        coder.encode(key, forKey: "key")
        coder.encode(serial, forKey: "serial")
    }

    init(key: String, serial: Int) {
        self.key = key
        self.serial = serial
    }

    init(coder: KeyedUnarchiver) throws {
        key = try coder.decodeObject(of: String.self, forKey: "key") ?? ""
        serial = try coder.decodeInteger(forKey: "serial")
    }

    static func == (lhs: TaggedValue, rhs: TaggedValue) -> Bool { lhs.key == rhs.key }
    func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

/// `Set<T>` built in one pass from the decoded elements, and `[String: V]` whose values
/// read their key's string while they decode: the contents, duplicates, errors and
/// locations of both, against hand-built archives and Foundation's.
@Suite("Set and dictionary decoding")
struct SetDictionaryDecodingTests {
    /// `$objects` by hand (index 0 is `$null`), as binary bytes, `root` at index 1.
    static func archive(objects: [PropertyList], top: PropertyListDictionary = ["root": .uid(1)]) throws
        -> Data
    {
        try ArchiveTest.archivePlist(objects: objects, top: top).data(format: .binary)
    }

    static func tagged(_ key: String, _ serial: Int, classUID: UInt64) -> PropertyList {
        ["$class": .uid(classUID), "key": .string(key), "serial": .integer(PropertyListInteger(serial))]
    }

    // MARK: Sets

    @Test(arguments: [0, 1, 2, 17, 1_000])
    func aSetHasTheElementsArchived(count: Int) throws {
        let points = Set((0..<count).map { Point(x: $0, y: $0 * 7 % 13) })
        let data = try KeyedArchiver.archivedData(withRootObject: points, requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Set<Point>.self, from: data) == points)
        let names = Set((0..<count).map { "element number \($0) of \(count)" })
        let nameData = try KeyedArchiver.archivedData(withRootObject: names, requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Set<String>.self, from: nameData) == names)
    }

    @Test func aSetOfStructsKeepsTheFirstOfEqualElements() throws {
        // 600 elements, 50 keys: each key first appears with its own number as serial.
        let elements = (0..<600).map { Self.tagged("key \($0 % 50)", $0, classUID: 3) }
        let objects: [PropertyList] =
            [
                "$null",
                ["$class": .uid(2), "NS.objects": .array((0..<600).map { .uid(UInt64(4 + $0)) })],
                ArchiveTest.classDescription("NSSet"),
                ArchiveTest.classDescription(TaggedValue.archivedClassName),
            ] + elements
        let set = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: Set<TaggedValue>.self, from: Self.archive(objects: objects)))
        #expect(set.count == 50)
        for element in set {
            #expect(element.key == "key \(element.serial)")
        }
        // The same element object twice, and an equal one between.
        let repeated: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.objects": .array([.uid(4), .uid(5), .uid(4)])],
            ArchiveTest.classDescription("NSMutableSet"),
            ArchiveTest.classDescription(TaggedValue.archivedClassName),
            Self.tagged("a", 1, classUID: 3), Self.tagged("a", 2, classUID: 3),
        ]
        let small = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: Set<TaggedValue>.self, from: Self.archive(objects: repeated)))
        #expect(small.map(\.serial) == [1])
    }

    @Test func aSetRefusesAnElementOfAnotherClassAtItsPosition() throws {
        let objects: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.objects": .array([.uid(4), .uid(5), .uid(6)])],
            ArchiveTest.classDescription("NSSet"),
            ArchiveTest.classDescription(TaggedValue.archivedClassName),
            Self.tagged("a", 1, classUID: 3), Self.tagged("b", 2, classUID: 3),
            ["$class": .uid(7), "label": "c"],
            ArchiveTest.classDescription(TripwireShape.archivedClassName),
        ]
        let refused = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: Set<TaggedValue>.self, from: Self.archive(objects: objects))
        }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.message.contains("TripwireShape") == true)
        #expect(refused?.location == .keyPath("root[2]"))
    }

    @Test func aSetReadsFoundationsSets() throws {
        let names: Set<String> = [
            "a", "short", "a string longer than fifteen bytes", "ünïcödé", "日本語の文字列", "",
        ]
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: NSSet(array: names.map { NSString(string: $0) }), requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Set<String>.self, from: data) == names)
        let numbers: Set<Int> = [0, 1, -5, 1 << 40, 255]
        let numberData = try NSKeyedArchiver.archivedData(
            withRootObject: NSSet(array: numbers.map { NSNumber(value: $0) }), requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Set<Int>.self, from: numberData) == numbers)
    }

    // MARK: Dictionaries with string keys

    @Test func aDictionaryReadsFoundationsDictionaries() throws {
        var source: [String: String] = [:]
        for index in 0..<200 {
            source["key \(index)\(index.isMultiple(of: 3) ? " with a long tail" : "")"] = "value \(index)"
        }
        source["ünïcödé key"] = "ünïcödé value"
        source["$dollar"] = "a key Foundation writes as is"
        source["same"] = "same"
        let dictionary = NSMutableDictionary()
        for (key, value) in source { dictionary[NSString(string: key)] = NSString(string: value) }
        let data = try NSKeyedArchiver.archivedData(withRootObject: dictionary, requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [String: String].self, from: data) == source)
        // Read again from one unarchiver, and its strings by other types too.
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        let first = try unarchiver.decodeObject(of: [String: String].self, forKey: "root")
        let second = try unarchiver.decodeObject(of: [String: String].self, forKey: "root")
        #expect(first == source && second == source)
        let untyped = try #require(
            try unarchiver.decodeObject(of: [String.self], forKey: "root") as? [String: Any])
        #expect(untyped.count == source.count)
        #expect(untyped["same"] as? String == "same")
    }

    @Test func valuesNamedByTheirKeysReadTheKeysStrings() throws {
        // Long names: each is a key and its value's name (one string object in our archives).
        let creatures = (0..<40).map { Creature(name: "creature with a name of some length \($0)", legs: $0) }
        let byName = Dictionary(uniqueKeysWithValues: creatures.map { ($0.name, $0) })
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.encode(byName, forKey: "root")
        archiver.encode(creatures[7].name, forKey: "seventh")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        let decoded = try #require(try unarchiver.decodeObject(of: [String: Creature].self, forKey: "root"))
        #expect(decoded.count == 40)
        for (key, creature) in decoded {
            #expect(creature.name == key)
            #expect(creature.legs == creatures.first { $0.name == key }?.legs)
        }
        // The key's string read again after the dictionary.
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "seventh") == creatures[7].name)
    }

    @Test func aValueNamedByAnotherKeyReadsThatKeysString() throws {
        // Keys 3 and 4; the value under 3 is named by 4's string and the one under 4 by 3's.
        let objects: [PropertyList] = [
            "$null",
            [
                "$class": .uid(2), "NS.keys": .array([.uid(3), .uid(4), .uid(7)]),
                "NS.objects": .array([.uid(5), .uid(6), .uid(8)]),
            ],
            ArchiveTest.classDescription("NSDictionary"),
            "the first key, long enough to be kept", "the second key, long enough to be kept",
            ["$class": .uid(9), "name": .uid(4), "legs": 1],
            ["$class": .uid(9), "name": .uid(3), "legs": 2],
            "short",
            ["$class": .uid(9), "name": .uid(7), "legs": 3],
            ArchiveTest.classDescription(Creature.archivedClassName),
        ]
        let decoded = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: Creature].self, from: Self.archive(objects: objects)))
        #expect(decoded.count == 3)
        #expect(
            decoded["the first key, long enough to be kept"]?.name == "the second key, long enough to be kept"
        )
        #expect(
            decoded["the second key, long enough to be kept"]?.name == "the first key, long enough to be kept"
        )
        #expect(decoded["short"]?.name == "short")
        #expect(decoded["short"]?.legs == 3)
    }

    @Test func aKeyThatIsAStringObjectDecodesThroughTheGeneralPath() throws {
        // Key 3 is an NSMutableString object; its value's name refers to it too.
        let objects: [PropertyList] = [
            "$null",
            [
                "$class": .uid(2), "NS.keys": .array([.uid(3), .uid(5)]),
                "NS.objects": .array([.uid(6), .uid(7)]),
            ],
            ArchiveTest.classDescription("NSDictionary"),
            ["$class": .uid(4), "NS.string": "a mutable key string"],
            ArchiveTest.classDescription("NSMutableString", ["NSMutableString", "NSString", "NSObject"]),
            "a plain key string of some length",
            ["$class": .uid(8), "name": .uid(3), "legs": 1],
            ["$class": .uid(8), "name": .uid(5), "legs": 2],
            ArchiveTest.classDescription(Creature.archivedClassName),
        ]
        let decoded = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: Creature].self, from: Self.archive(objects: objects)))
        #expect(decoded.keys.sorted() == ["a mutable key string", "a plain key string of some length"])
        #expect(decoded["a mutable key string"]?.name == "a mutable key string")
        #expect(decoded["a mutable key string"]?.legs == 1)
        #expect(decoded["a plain key string of some length"]?.name == "a plain key string of some length")
        // A failure in the value under that key is located at the key's text.
        var wrongName = objects
        wrongName[6] = ["$class": .uid(8), "name": 7, "legs": 1]
        let mismatch = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: Creature].self, from: Self.archive(objects: wrongName))
        }
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.location == .keyPath("root[\"a mutable key string\"].name"))
    }

    @Test func repeatedKeyStringsKeepTheLastValue() throws {
        // Keys 3 and 5 are distinct objects with one text; each value is named by its key.
        let objects: [PropertyList] = [
            "$null",
            [
                "$class": .uid(2), "NS.keys": .array([.uid(3), .uid(4), .uid(5)]),
                "NS.objects": .array([.uid(6), .uid(7), .uid(8)]),
            ],
            ArchiveTest.classDescription("NSDictionary"),
            "a key repeated in two objects", "another key", "a key repeated in two objects",
            ["$class": .uid(9), "name": .uid(3), "legs": 1],
            ["$class": .uid(9), "name": .uid(4), "legs": 2],
            ["$class": .uid(9), "name": .uid(5), "legs": 3],
            ArchiveTest.classDescription(Creature.archivedClassName),
        ]
        let decoded = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: Creature].self, from: Self.archive(objects: objects)))
        #expect(decoded.count == 2)
        #expect(decoded["a key repeated in two objects"]?.legs == 3)
        #expect(decoded["a key repeated in two objects"]?.name == "a key repeated in two objects")
        #expect(decoded["another key"]?.legs == 2)
    }

    @Test func sharedInstancesStayShared() throws {
        let shared = Creature(name: "shared")
        let friendly = Creature(name: "friendly", friend: shared)
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.encode(["one": shared, "two": friendly, "three": shared], forKey: "root")
        archiver.encode(shared, forKey: "alone")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        let decoded = try #require(try unarchiver.decodeObject(of: [String: Creature].self, forKey: "root"))
        let alone = try #require(try unarchiver.decodeObject(of: Creature.self, forKey: "alone"))
        #expect(decoded["one"] === alone && decoded["three"] === alone)
        #expect(decoded["two"]?.friend === alone)
    }

    @Test func errorsInsideValuesAreLocatedAtTheirKeys() throws {
        // root = ["outer": ["fine": Point, "inner": <a TripwireShape>]]
        let nested: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.keys": .array([.uid(3)]), "NS.objects": .array([.uid(4)])],
            ArchiveTest.classDescription("NSDictionary"),
            "outer",
            [
                "$class": .uid(2), "NS.keys": .array([.uid(5), .uid(6)]),
                "NS.objects": .array([.uid(7), .uid(9)]),
            ],
            "fine", "inner",
            ["$class": .uid(8), "x": 1, "y": 2],
            ArchiveTest.classDescription(Point.archivedClassName),
            ["$class": .uid(10), "label": "b"],
            ArchiveTest.classDescription(TripwireShape.archivedClassName),
        ]
        let data = try Self.archive(objects: nested)
        let refused = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: [String: [String: Point]].self, from: data)
        }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.location == .keyPath("root[\"outer\"][\"inner\"]"))
        // A nil inner value, then a failure inside a value's own field.
        var nilValue = nested
        nilValue[4] = [
            "$class": .uid(2), "NS.keys": .array([.uid(5), .uid(6)]),
            "NS.objects": .array([.uid(7), .uid(0)]),
        ]
        let missing = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: [String: Point]].self, from: Self.archive(objects: nilValue))
        }
        #expect(missing?.code == .invalidArchive)
        #expect(missing?.message.contains("a dictionary value is nil") == true)
        #expect(missing?.location == .keyPath("root[\"outer\"][\"inner\"]"))
        let friendObjects: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.keys": .array([.uid(3)]), "NS.objects": .array([.uid(4)])],
            ArchiveTest.classDescription("NSDictionary"),
            "a key with some length to it",
            ["$class": .uid(5), "name": .uid(3), "legs": 4, "friend": .uid(6)],
            ArchiveTest.classDescription(Creature.archivedClassName),
            ["$class": .uid(7), "label": "b"],
            ArchiveTest.classDescription(TripwireShape.archivedClassName),
        ]
        let friend = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: Creature].self, from: Self.archive(objects: friendObjects))
        }
        #expect(friend?.code == .classNotAllowed)
        #expect(friend?.location == .keyPath("root[\"a key with some length to it\"].friend"))
    }

    @Test func aNilOrNonStringKeyIsRefusedAtItsPosition() throws {
        let dictionary = { (keys: [PropertyList]) -> [PropertyList] in
            [
                "$null",
                ["$class": .uid(2), "NS.keys": .array(keys), "NS.objects": .array([.uid(4), .uid(4)])],
                ArchiveTest.classDescription("NSDictionary"),
                "key", "value", 12,
            ]
        }
        let nilKey = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: String].self, from: Self.archive(objects: dictionary([.uid(3), .uid(0)])))
        }
        #expect(nilKey?.code == .invalidArchive)
        #expect(nilKey?.message.contains("a dictionary key is nil") == true)
        #expect(nilKey?.location == .keyPath("root[key 1]"))
        let numberKey = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: String].self, from: Self.archive(objects: dictionary([.uid(5), .uid(3)])))
        }
        #expect(numberKey?.code == .typeMismatch)
        #expect(numberKey?.location == .keyPath("root[key 0]"))
        // Number keys still read as such.
        let numberKeyed: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.keys": .array([.uid(3)]), "NS.objects": .array([.uid(4)])],
            ArchiveTest.classDescription("NSDictionary"),
            12, "value",
        ]
        let numbers = try KeyedUnarchiver.unarchivedObject(
            ofClass: [Int: String].self, from: Self.archive(objects: numberKeyed))
        #expect(numbers == [12: "value"])
    }
}
