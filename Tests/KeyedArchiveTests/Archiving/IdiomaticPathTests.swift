import Foundation
import KeyedArchive
import Testing

/// The shortcuts behind the idiomatic decoding paths (the untyped class decisions
/// remembered per class, dictionaries read in place) and the archiver's builder storage
/// (objects in chunks): each must give what the general path gives.
@Suite("Idiomatic paths and builder storage")
struct IdiomaticPathTests {
    static func creatures(_ count: Int) -> [Creature] {
        (0..<count).map { Creature(name: "creature \($0)", legs: $0 % 7, tags: ["t\($0 % 3)"]) }
    }

    @Test func untypedDecisionsAreRememberedOnlyForTheSameAllowedTypes() throws {
        // Two arrays of objects of one class (one class description).
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.encode(Self.creatures(3), forKey: "root")
        archiver.encode(Self.creatures(2), forKey: "more")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        let first = try unarchiver.decodeObject(of: [Creature.self], forKey: "root") as? [Any]
        #expect(first?.compactMap { ($0 as? Creature)?.name } == ["creature 0", "creature 1", "creature 2"])
        // Other allowed types, same class description: the decision is worked out anew.
        let refused = ArchiveTest.error { try unarchiver.decodeObject(of: [Point.self], forKey: "more") }
        #expect(refused?.code == .classNotAllowed)
        #expect(refused?.message.contains("Creature") == true)
        // A mapping set on the unarchiver forgets the decisions.
        unarchiver.setClass(Point.self, forClassName: Creature.archivedClassName)
        let remapped = ArchiveTest.error { try unarchiver.decodeObject(of: [Creature.self], forKey: "more") }
        #expect(remapped?.code == .classNotAllowed)
        #expect(remapped?.message.contains("mapped to Point") == true)
        unarchiver.setClass(nil, forClassName: Creature.archivedClassName)
        let more = try unarchiver.decodeObject(of: [Creature.self], forKey: "more") as? [Any]
        #expect(more?.compactMap { ($0 as? Creature)?.name } == ["creature 0", "creature 1"])
    }

    /// A standard collection decoded once is not handed to a later call that allows other
    /// types without its elements being checked against those (secure coding).
    @Test func aCollectionDecodedOnceIsCheckedAgainstEachCallsAllowedTypes() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        let shared = Self.creatures(2)
        archiver.encode(shared, forKey: "first")
        archiver.encode(shared, forKey: "second")
        let data = try archiver.finishedData()
        do {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            let first = try unarchiver.decodeObject(of: [Creature.self], forKey: "first") as? [Any]
            #expect(first?.count == 2)
            // The same array object, now with types that do not include its elements.
            let refused = ArchiveTest.error {
                try unarchiver.decodeObject(of: [Point.self], forKey: "second")
            }
            #expect(refused?.code == .classNotAllowed)
            #expect(refused?.message.contains("Creature") == true)
            // The first types again: decoded (and shared) as before.
            let again = try unarchiver.decodeObject(of: [Creature.self], forKey: "second") as? [Any]
            #expect(again?.compactMap { ($0 as? Creature)?.name } == ["creature 0", "creature 1"])
        }
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func aDictionaryReadsBackFromBytesAndFromAValue(_ format: PropertyListFormat) throws {
        let source = Dictionary(uniqueKeysWithValues: Self.creatures(40).map { ($0.name, $0) })
        let data = try KeyedArchiver.archivedData(
            withRootObject: source, requiringSecureCoding: true, format: format)
        let inPlace = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: [String: Creature].self, from: data))
        let plist = try PropertyList(from: data)
        let parsed = try #require(
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: [String: Creature].self, forKey: "root")
        )
        #expect(inPlace.count == 40 && parsed.count == 40)
        for (key, creature) in source {
            #expect(inPlace[key]?.name == creature.name && inPlace[key]?.legs == creature.legs)
            #expect(parsed[key]?.tags == creature.tags)
        }
    }

    /// `NS.keys` longer than `NS.objects`, read from binary bytes (the in-place path).
    @Test func aDictionaryWithMoreKeysThanValuesIsRefusedInPlace() throws {
        let objects: [PropertyList] = [
            "$null",
            [
                "$class": .uid(2), "NS.keys": .array([.uid(3), .uid(4)]), "NS.objects": .array([.uid(3)]),
            ],
            ArchiveTest.classDescription("NSDictionary"),
            "a", "b",
        ]
        let plist = ArchiveTest.archivePlist(objects: objects, top: ["root": .uid(1)])
        let data = try plist.data(format: .binary)
        let error = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: [String: String].self, from: data)
        }
        #expect(error?.code == .invalidArchive)
        #expect(error?.message.contains("2 keys (NS.keys) but 1 values (NS.objects)") == true)
    }

    /// More objects than one chunk of the builder holds (2^14): the archive is written
    /// across chunks and reads back, in our reader and in Foundation's.
    @Test func anArchiveLargerThanAChunkRoundTrips() throws {
        let names = (0..<40_000).map { "name \($0)" }
        let data = try KeyedArchiver.archivedData(withRootObject: names, requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, from: data) == names)
        let foundation = try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSArray.self, NSString.self], from: data)
        #expect(foundation as? [String] == names)
        let value = try PropertyList(from: data)
        #expect(ArchiveTest.objects(value).count == names.count + 3)  // $null, the array, its class
    }
}
