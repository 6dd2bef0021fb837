import Foundation
import KeyedArchive
import Testing

/// A shape whose `init(coder:)` always fails: decoding one shows that it was built, so a
/// refusal that is not this error came before building.
final class TripwireShape: Shape {
    struct Tripped: Error {}

    required init(coder: KeyedUnarchiver) throws {
        throw Tripped()
    }

    override init(label: String) {
        super.init(label: label)
    }
}

/// A `Hashable` class equal by `key` alone, to tell equal elements apart by `serial`.
final class Keyed: SecureKeyedCoding, Hashable {
    let key: String
    let serial: Int

    init(key: String, serial: Int) {
        self.key = key
        self.serial = serial
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(key, forKey: "key")
        coder.encode(serial, forKey: "serial")
    }

    init(coder: KeyedUnarchiver) throws {
        key = try coder.decodeObject(of: String.self, forKey: "key") ?? ""
        serial = try coder.decodeInteger(forKey: "serial")
    }

    static func == (lhs: Keyed, rhs: Keyed) -> Bool { lhs.key == rhs.key }
    func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

/// The fast paths of the idiomatic collection decodes: an untyped array of one type built
/// as `[T]`, `[String: V]` decoded into the dictionary's storage, `Set` built in one pass.
/// Each must give what the general path gives, refuse what it refuses, before building.
@Suite("Idiomatic fast paths")
struct IdiomaticFastPathTests {
    static func archive(_ root: some KeyedCoding) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: true)
    }

    /// `$objects` by hand (index 0 is `$null`), as binary bytes.
    static func archive(objects: [PropertyList]) throws -> Data {
        try ArchiveTest.archivePlist(objects: objects, top: ["root": .uid(1)]).data(format: .binary)
    }

    // MARK: Untyped arrays

    @Test func anUntypedArrayOfOneClassIsAnArrayOfThatClass() throws {
        let data = try Self.archive(IdiomaticPathTests.creatures(3))
        let value = try #require(try KeyedUnarchiver.unarchivedObject(ofClasses: [Creature.self], from: data))
        #expect(type(of: value) == [Creature].self)
        #expect((value as? [Creature])?.map(\.name) == ["creature 0", "creature 1", "creature 2"])
        // Still an array of anything to a caller who reads it so.
        #expect((value as? [Any])?.compactMap { ($0 as? Creature)?.legs } == [0, 1, 2])
        // Value types too.
        let points = [Point(x: 1, y: 2), Point(x: 3, y: 4)]
        let pointData = try Self.archive(points)
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClasses: [Point.self], from: pointData)
        #expect(decoded.map { type(of: $0) == [Point].self } == true)
        #expect(decoded as? [Point] == points)
    }

    @Test func anUntypedArrayOfMixedClassesIsAnArrayOfAny() throws {
        let shapes = [Shape(label: "a"), Circle(label: "b", radius: 2), Shape(label: "c")]
        let data = try Self.archive(shapes)
        let value = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClasses: [Shape.self, Circle.self], from: data))
        #expect(type(of: value) == [Any].self)
        let elements = try #require(value as? [Any])
        #expect(elements.map { "\(type(of: $0))" } == ["Shape", "Circle", "Shape"])
        #expect(elements.compactMap { ($0 as? Shape)?.label } == ["a", "b", "c"])
        #expect((elements[1] as? Circle)?.radius == 2)
        // A subclass first: the others are not `Circle`s.
        let reversed = try Self.archive([Circle(label: "b", radius: 2), Shape(label: "a")])
        let mixed = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClasses: [Shape.self, Circle.self], from: reversed)
                as? [Any])
        #expect(mixed.map { "\(type(of: $0))" } == ["Circle", "Shape"])
        // Strings after objects: the array falls back to `[Any]` with both.
        let objects: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.objects": .array([.uid(3), .uid(5)])],
            ArchiveTest.classDescription("NSArray"),
            ["$class": .uid(4), "label": .uid(5)],
            ArchiveTest.classDescription(Shape.archivedClassName),
            "plain",
        ]
        let withString = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClasses: [Shape.self], from: Self.archive(objects: objects))
                as? [Any])
        #expect((withString.first as? Shape)?.label == "plain")
        #expect(withString.last as? String == "plain")
    }

    @Test func anUntypedArrayKeepsSharedInstances() throws {
        let shared = Creature(name: "shared")
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.encode(shared, forKey: "one")
        archiver.encode([shared, Creature(name: "other"), shared], forKey: "all")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        let one = try #require(try unarchiver.decodeObject(of: Creature.self, forKey: "one"))
        let all = try #require(try unarchiver.decodeObject(of: [Creature.self], forKey: "all") as? [Creature])
        #expect(all.map(\.name) == ["shared", "other", "shared"])
        #expect(all[0] === one && all[2] === one)
    }

    @Test func anUntypedArrayRefusesAnElementsClassBeforeBuildingIt() throws {
        let data = try Self.archive([Shape(label: "a"), TripwireShape(label: "b")])
        let refused = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [Shape.self], from: data)
        }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.message.contains("TripwireShape") == true)
        #expect(refused?.location == .keyPath("root[1]"))
        // Allowed, it is built (and fails): the refusal above came first.
        let built = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [Shape.self, TripwireShape.self], from: data)
        }
        #expect(built?.code == .invalidArchive)
        #expect(built?.message.contains("Tripped") == true)
        // The first element refused: nothing is built either.
        let first = try Self.archive([TripwireShape(label: "b"), Shape(label: "a")])
        let refusedFirst = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [Shape.self], from: first)
        }
        #expect(refusedFirst?.code == .classNotAllowed)
        #expect(refusedFirst?.location == .keyPath("root[0]"))
    }

    // MARK: Sets

    @Test func aSetKeepsTheFirstOfEqualElements() throws {
        let keyed = { (key: String, serial: Int) -> PropertyList in
            ["$class": .uid(3), "key": .string(key), "serial": .integer(PropertyListInteger(serial))]
        }
        let objects: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.objects": .array([.uid(4), .uid(5), .uid(6), .uid(4)])],
            ArchiveTest.classDescription("NSSet"),
            ArchiveTest.classDescription(Keyed.archivedClassName),
            keyed("a", 1), keyed("b", 2), keyed("a", 3),
        ]
        let set = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: Set<Keyed>.self, from: Self.archive(objects: objects)))
        #expect(set.count == 2)
        #expect(set.first { $0.key == "a" }?.serial == 1)
        #expect(set.first { $0.key == "b" }?.serial == 2)
    }

    /// `keyedArchiveSet` through the conformance's witness, as the unarchiver calls it (a
    /// call on the concrete type would pick the `Hashable` extension whatever the witness).
    static func witnessSet<T: KeyedCoding>(_ elements: [T]) -> Any? {
        T.keyedArchiveSet(keepingFirstOf: elements)
    }

    @Test func aHashableTypeBuildsItsOwnSets() throws {
        // The default the conformance picked (the `Hashable` one): a set, first kept.
        let first = Keyed(key: "a", serial: 1)
        let built = try #require(Self.witnessSet([first, Keyed(key: "a", serial: 2)]) as? Set<Keyed>)
        #expect(built.count == 1)
        #expect(built.first === first)
        // A conformance that does not know its type is `Hashable` (an array's) gives none,
        // and the unarchiver builds the set itself.
        #expect(Self.witnessSet([["x"]]) == nil)
        let sets: Set<[String]> = [["a", "b"], ["c"], []]
        let decoded = try KeyedUnarchiver.unarchivedObject(
            ofClass: Set<[String]>.self, from: Self.archive(sets))
        #expect(decoded == sets)
    }

    @Test func aSetSharesItsInstancesWithOtherKeys() throws {
        let a = Keyed(key: "a", serial: 1)
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.encode(a, forKey: "one")
        archiver.encode(Set([a, Keyed(key: "b", serial: 2)]), forKey: "set")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        let one = try #require(try unarchiver.decodeObject(of: Keyed.self, forKey: "one"))
        let set = try #require(try unarchiver.decodeObject(of: Set<Keyed>.self, forKey: "set"))
        #expect(set.map(\.serial).sorted() == [1, 2])
        #expect(set.first { $0.key == "a" } === one)
    }

    @Test func aSetWithANilElementOrAnElementOfAnotherClassIsRefused() throws {
        let objects: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.objects": .array([.uid(3), .uid(0)])],
            ArchiveTest.classDescription("NSSet"),
            ["$class": .uid(4), "x": 1, "y": 2],
            ArchiveTest.classDescription(Point.archivedClassName),
        ]
        let data = try Self.archive(objects: objects)
        let nilElement = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: Set<Point>.self, from: data)
        }
        #expect(nilElement?.code == .invalidArchive)
        #expect(nilElement?.location == .keyPath("root[1]"))
        let other = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: Set<Keyed>.self, from: data)
        }
        #expect(other?.code == .classNotAllowed)
        #expect(other?.location == .keyPath("root[0]"))
    }

    // MARK: Dictionaries with string keys

    @Test func aDictionaryByNameSharesItsKeysAndInstances() throws {
        // Long names (kept strings), each a key and its value's name; one value twice.
        let creatures = (0..<30).map { Creature(name: "a creature with a long name \($0)") }
        var byName = Dictionary(uniqueKeysWithValues: creatures.map { ($0.name, $0) })
        byName["again"] = creatures[3]
        let data = try Self.archive(byName)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        let decoded = try #require(try unarchiver.decodeObject(of: [String: Creature].self, forKey: "root"))
        #expect(decoded.count == 31)
        for (key, creature) in decoded where key != "again" {
            #expect(creature.name == key)
        }
        #expect(decoded["again"] === decoded[creatures[3].name])
        // The same archive read again (the kept key strings) gives the same entries.
        let again = try #require(try unarchiver.decodeObject(of: [String: Creature].self, forKey: "root"))
        #expect(Set(again.keys) == Set(decoded.keys))
    }

    @Test func aRepeatedKeyKeepsItsLastValue() throws {
        let objects: [PropertyList] = [
            "$null",
            [
                "$class": .uid(2), "NS.keys": .array([.uid(3), .uid(4), .uid(3), .uid(5)]),
                "NS.objects": .array([.uid(6), .uid(7), .uid(8), .uid(9)]),
            ],
            ArchiveTest.classDescription("NSDictionary"),
            "a", "b", "a",
            "first", "second", "third", "fourth",
        ]
        let decoded = try KeyedUnarchiver.unarchivedObject(
            ofClass: [String: String].self, from: Self.archive(objects: objects))
        #expect(decoded == ["a": "fourth", "b": "second"])
    }

    @Test func aDictionaryWithANonStringKeyOrANilEntryIsRefused() throws {
        let dictionary = { (keys: [PropertyList], values: [PropertyList]) -> [PropertyList] in
            [
                "$null",
                ["$class": .uid(2), "NS.keys": .array([.uid(3), .uid(4)]), "NS.objects": .array(values)],
                ArchiveTest.classDescription("NSDictionary"),
            ] + keys + ["value"]
        }
        // A number key.
        let numberKey = try Self.archive(objects: dictionary(["a", 7], [.uid(5), .uid(5)]))
        let number = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: [String: String].self, from: numberKey)
        }
        #expect(number?.code == .typeMismatch)
        #expect(number?.location == .keyPath("root[key 1]"))
        // Read with number keys, the same archive's string key is refused.
        let stringKey = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: [Int: String].self, from: numberKey)
        }
        #expect(stringKey?.code == .typeMismatch)
        #expect(stringKey?.location == .keyPath("root[key 0]"))
        // A nil value, after a good one.
        let nilValue = try Self.archive(objects: dictionary(["a", "b"], [.uid(5), .uid(0)]))
        let missing = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: [String: String].self, from: nilValue)
        }
        #expect(missing?.code == .invalidArchive)
        #expect(missing?.message.contains("a dictionary value is nil") == true)
        #expect(missing?.location == .keyPath("root[\"b\"]"))
        // A value of a class not allowed: refused, not built.
        let objects: [PropertyList] = [
            "$null",
            ["$class": .uid(2), "NS.keys": .array([.uid(3)]), "NS.objects": .array([.uid(4)])],
            ArchiveTest.classDescription("NSDictionary"),
            "key",
            ["$class": .uid(5), "label": "b"],
            ArchiveTest.classDescription(TripwireShape.archivedClassName),
        ]
        let refused = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [String: Point].self, from: Self.archive(objects: objects))
        }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.location == .keyPath("root[\"key\"]"))
    }

    @Test func numberKeysStillDecode() throws {
        let source = [1: "one", 2: "two", 30: "thirty"]
        let decoded = try KeyedUnarchiver.unarchivedObject(
            ofClass: [Int: String].self, from: Self.archive(source))
        #expect(decoded == source)
    }
}
