import Foundation
import KeyedArchive
import Testing

/// Shapes Apple's collections hold and Swift's standard collections cannot: sets of
/// arrays, dictionaries keyed by arrays, collections that contain themselves. Each archive
/// is built by hand, as Foundation lays it out.
@Suite("Untyped decoding of shapes Swift's collections cannot hold")
struct UntypedShapesTests {
    typealias Objects = [PropertyList]

    /// How each test reads an archive: from the property-list value, and from its binary
    /// and XML bytes (which take the in-place paths).
    static let readings: [PropertyListFormat?] = [nil, .binary, .xml]

    static func unarchiver(
        _ objects: Objects, root: UInt64 = 1, reading format: PropertyListFormat?,
        secure: Bool = false
    ) throws -> KeyedUnarchiver {
        let plist = ArchiveTest.archivePlist(objects: objects, top: ["root": .uid(root)])
        let unarchiver =
            try format.map { try KeyedUnarchiver(forReadingFrom: plist.data(format: $0)) }
            ?? KeyedUnarchiver(propertyList: plist)
        unarchiver.requiresSecureCoding = secure
        return unarchiver
    }

    static func collection(_ classUID: UInt64, objects: [UInt64]) -> PropertyList {
        ["$class": .uid(classUID), "NS.objects": .array(objects.map { .uid($0) })]
    }

    static func dictionary(_ classUID: UInt64, keys: [UInt64], values: [UInt64]) -> PropertyList {
        [
            "$class": .uid(classUID), "NS.keys": .array(keys.map { .uid($0) }),
            "NS.objects": .array(values.map { .uid($0) }),
        ]
    }

    /// Xcode's shape: an `NSSet` of two `NSArray`s of strings.
    static let setOfArrays: Objects = [
        "$null",
        collection(2, objects: [3, 5]),  // 1: NSSet
        ArchiveTest.classDescription("NSSet"),
        collection(4, objects: [6, 7]),  // 3: NSArray
        ArchiveTest.classDescription("NSArray"),
        collection(4, objects: [7]),  // 5: NSArray
        "a", "b",
    ]

    @Test(arguments: readings)
    func aSetOfArraysDecodesAsAnArchivedCollection(_ format: PropertyListFormat?) throws {
        let unarchiver = try Self.unarchiver(Self.setOfArrays, reading: format)
        let value = try unarchiver.decodeObject(forKey: "root")
        let collection = try #require(value as? ArchivedCollection, "\(String(describing: value))")
        #expect(collection.kind == .set)
        #expect(collection.className == "NSSet")
        #expect(collection.objectIndex == 1)
        #expect(collection.elements.map { $0 as? [String] } == [["a", "b"], ["b"]])
        #expect(collection.keys.isEmpty && collection.values.isEmpty && collection.counts.isEmpty)
        #expect(collection.count == 2)
        #expect(collection.description == "NSSet #1 [[\"a\", \"b\"], [\"b\"]]")
        // The same through the allowed-classes form, in secure mode.
        let secure = try Self.unarchiver(Self.setOfArrays, reading: format, secure: true)
        #expect(try secure.decodeObject(of: [], forKey: "root") is ArchivedCollection)
    }

    @Test(arguments: readings)
    func typedDecodingOfASetOfArraysIsUnchanged(_ format: PropertyListFormat?) throws {
        let unarchiver = try Self.unarchiver(Self.setOfArrays, reading: format, secure: true)
        let set = try unarchiver.decodeObject(of: Set<[String]>.self, forKey: "root")
        #expect(set == [["a", "b"], ["b"]])
        let error = ArchiveTest.error { try unarchiver.decodeObject(of: Set<String>.self, forKey: "root") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.location == .keyPath("root[0]"))
    }

    @Test(arguments: readings)
    func aSetOfHashableValuesIsStillASwiftSet(_ format: PropertyListFormat?) throws {
        let objects: Objects = [
            "$null", Self.collection(2, objects: [3, 4]), ArchiveTest.classDescription("NSMutableSet"), "a",
            7,
        ]
        let value = try Self.unarchiver(objects, reading: format).decodeObject(forKey: "root")
        #expect(value as? Set<AnyHashable> == ["a", 7])
    }

    @Test(arguments: readings)
    func aCountedSetOfArraysKeepsItsCounts(_ format: PropertyListFormat?) throws {
        let objects: Objects = [
            "$null",
            [
                "$class": .uid(2), "NS.count": 2, "NS.object0": .uid(3), "NS.count0": 2,
                "NS.object1": .uid(5), "NS.count1": 1,
            ],
            ArchiveTest.classDescription(
                "NSCountedSet", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"]),
            Self.collection(4, objects: [5]),
            ArchiveTest.classDescription("NSArray"),
            "x",
        ]
        let value = try Self.unarchiver(objects, reading: format).decodeObject(forKey: "root")
        let collection = try #require(value as? ArchivedCollection)
        #expect(collection.kind == .countedSet)
        #expect(collection.elements.count == 2)
        #expect(collection.elements.first as? [String] == ["x"])
        #expect(collection.elements.last as? String == "x")
        #expect(collection.counts == [2, 1])
        #expect(collection.description == "NSCountedSet #1 [[\"x\"] ×2, x ×1]")
    }

    @Test func aCountedSetWithAMissingCountFails() throws {
        let objects: Objects = [
            "$null",
            [
                "$class": .uid(2), "NS.count": 2, "NS.object0": .uid(3), "NS.count0": 2,
                "NS.object1": .uid(5),
            ],
            ArchiveTest.classDescription(
                "NSCountedSet", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"]),
            Self.collection(4, objects: []),
            ArchiveTest.classDescription("NSArray"),
            "x",
        ]
        let unarchiver = try Self.unarchiver(objects, reading: nil)
        let error = ArchiveTest.error { try unarchiver.decodeObject(forKey: "root") }
        #expect(error?.code == .invalidArchive)
        #expect(error?.message == "the counted set has no NS.count1")
    }

    /// An `NSDictionary` whose keys are an array and a string.
    static let dictionaryWithArrayKey: Objects = [
        "$null",
        dictionary(2, keys: [3, 5], values: [6, 7]),
        ArchiveTest.classDescription("NSDictionary"),
        collection(4, objects: [5]),
        ArchiveTest.classDescription("NSArray"),
        "k", 1, 2,
    ]

    @Test(arguments: readings)
    func aDictionaryWithAnArrayKeyDecodesAsAnArchivedCollection(_ format: PropertyListFormat?) throws {
        let value = try Self.unarchiver(Self.dictionaryWithArrayKey, reading: format).decodeObject(
            forKey: "root")
        let collection = try #require(value as? ArchivedCollection)
        #expect(collection.kind == .dictionary)
        #expect(collection.className == "NSDictionary")
        #expect(collection.keys.first as? [String] == ["k"])
        #expect(collection.keys.last as? String == "k")
        #expect(collection.values.map { $0 as? Int } == [1, 2])
        #expect(collection.entries.count == 2 && collection.elements.isEmpty)
        #expect(collection.description == "NSDictionary #1 [[\"k\"]: 1, k: 2]")
    }

    @Test(arguments: readings)
    func aDictionaryWithNumberKeysIsAnAnyHashableDictionary(_ format: PropertyListFormat?) throws {
        let objects: Objects = [
            "$null", Self.dictionary(2, keys: [3, 4], values: [4, 3]),
            ArchiveTest.classDescription("NSDictionary"),
            1, "one",
        ]
        let value = try Self.unarchiver(objects, reading: format).decodeObject(forKey: "root")
        let dictionary = try #require(value as? [AnyHashable: Any])
        #expect(dictionary[1] as? String == "one")
        #expect(dictionary["one"] as? Int == 1)
    }

    /// An `NSMutableArray` that contains itself and a string.
    static let selfContainingArray: Objects = [
        "$null",
        collection(2, objects: [1, 3]),
        ArchiveTest.classDescription("NSMutableArray", ["NSMutableArray", "NSArray", "NSObject"]),
        "tail",
    ]

    @Test(arguments: readings)
    func anArrayThatContainsItselfDecodesAsAGraph(_ format: PropertyListFormat?) throws {
        let unarchiver = try Self.unarchiver(Self.selfContainingArray, reading: format)
        let value = try unarchiver.decodeObject(forKey: "root")
        let graph = try #require(value as? ArchivedObjectGraph, "\(String(describing: value))")
        #expect(graph.root == .reference(1))
        #expect(graph.object(at: 1)?.className == "NSMutableArray")
        #expect(graph.isOnCycle(1))
        #expect(graph.object(at: 1)?["NS.objects"] == .array([.reference(1), .reference(3)]))
        // Decoded once: the same value again, and the unarchiver is still usable.
        #expect(try unarchiver.decodeObject(forKey: "root") as? ArchivedObjectGraph == graph)
        // Typed decoding refuses it as before.
        let error = ArchiveTest.error { try unarchiver.decodeObject(of: [String].self, forKey: "root") }
        #expect(error?.code == .typeMismatch)
    }

    @Test(arguments: readings)
    func collectionsThatContainEachOtherDecodeAsGraphsAndTheRestAsValues(_ format: PropertyListFormat?) throws
    {
        // root = [A, "s"]; A = {k: B}; B = [A, C]; C = ["c"], also under $top.plain.
        let objects: Objects = [
            "$null",
            Self.collection(2, objects: [3, 6]),  // 1: root NSArray
            ArchiveTest.classDescription("NSArray"),
            Self.dictionary(4, keys: [7], values: [5]),  // 3: A NSDictionary
            ArchiveTest.classDescription(
                "NSMutableDictionary", ["NSMutableDictionary", "NSDictionary", "NSObject"]),
            Self.collection(2, objects: [3, 8]),  // 5: B NSArray
            "s", "k",
            Self.collection(2, objects: [9]),  // 8: C
            "c",
        ]
        let plist = ArchiveTest.archivePlist(
            objects: objects, top: ["root": .uid(1), "plain": .uid(8), "b": .uid(5)])
        let unarchiver =
            try format.map { try KeyedUnarchiver(forReadingFrom: plist.data(format: $0)) }
            ?? KeyedUnarchiver(propertyList: plist)
        unarchiver.requiresSecureCoding = false
        let root = try #require(try unarchiver.decodeObject(forKey: "root") as? [Any])
        #expect(root.count == 2)
        let graph = try #require(root.first as? ArchivedObjectGraph)
        #expect(graph.root == .reference(3))
        #expect(graph.isOnCycle(3) && graph.isOnCycle(5) && !graph.isOnCycle(8))
        #expect(root.last as? String == "s")
        // C, reached inside the cycle, is still an ordinary value.
        #expect(try unarchiver.decodeObject(forKey: "plain") as? [String] == ["c"])
        // Entering the cycle elsewhere gives the graph rooted there, with nothing left half-done.
        let fromB = try #require(try unarchiver.decodeObject(forKey: "b") as? ArchivedObjectGraph)
        #expect(fromB.root == .reference(5))
    }

    @Test func aCycleThroughAClassIsStillAnError() throws {
        // root = Holder { items: [root] }: the holder's init(coder:) is running when the
        // array refers back to it, so no graph can stand in for it.
        final class Holder: KeyedCoding {
            static var archivedClassName: String { "Test.Holder" }
            func encode(with coder: KeyedArchiver) {}
            init(coder: KeyedUnarchiver) throws { _ = try coder.decodeObject(forKey: "items") }
        }
        let objects: Objects = [
            "$null", ["$class": .uid(2), "items": .uid(3)], ArchiveTest.classDescription("Test.Holder"),
            Self.collection(4, objects: [1]), ArchiveTest.classDescription("NSArray"),
        ]
        let unarchiver = try Self.unarchiver(objects, reading: .binary)
        unarchiver.setClass(Holder.self, forClassName: "Test.Holder")
        let error = ArchiveTest.error { try unarchiver.decodeObject(forKey: "root") }
        #expect(error?.code == .unresolvableCycle)
        #expect(error?.location == .keyPath("root.items[0]"))
    }

    @Test(arguments: readings)
    func aCycleIsCheckedAgainstTheAllowedClassesBeforeItIsReturned(_ format: PropertyListFormat?) throws {
        // [self, Secret]: the graph would reach an object of a class nothing allows.
        let objects: Objects = [
            "$null", Self.collection(2, objects: [1, 3]), ArchiveTest.classDescription("NSArray"),
            ["$class": .uid(4)], ArchiveTest.classDescription("Evil.Secret"),
        ]
        let secure = try Self.unarchiver(objects, reading: format, secure: true)
        let error = ArchiveTest.error { try secure.decodeObject(of: [], forKey: "root") }
        #expect(error?.code == .classNotAllowed)
        let insecure = try Self.unarchiver(objects, reading: format)
        #expect(ArchiveTest.error { try insecure.decodeObject(forKey: "root") }?.code == .classNotFound)
        var options = KeyedUnarchivingOptions()
        options.decodesUnknownClassesGenerically = true
        let generic = try KeyedUnarchiver(
            propertyList: ArchiveTest.archivePlist(objects: objects, top: ["root": .uid(1)]), options: options
        )
        generic.requiresSecureCoding = false
        #expect(try generic.decodeObject(forKey: "root") is ArchivedObjectGraph)
    }

    // MARK: The Codable reader reads the same shapes into types that can hold them

    /// The Codable readings of an archive: `decodeDecodable` on an unarchiver of the
    /// property-list value and of its binary and XML bytes, and `KeyedArchiveDecoder`.
    static func codableReadings<T: Decodable>(_ type: T.Type, _ objects: Objects) throws -> [Result<
        T, any Error
    >] {
        let plist = ArchiveTest.archivePlist(objects: objects, top: ["root": .uid(1)])
        var results: [Result<T, any Error>] = []
        for format in readings {
            let unarchiver =
                try format.map { try KeyedUnarchiver(forReadingFrom: plist.data(format: $0)) }
                ?? KeyedUnarchiver(propertyList: plist)
            results.append(Result { try #require(try unarchiver.decodeDecodable(T.self, forKey: "root")) })
        }
        for format in [PropertyListFormat.binary, .xml] {
            let data = try plist.data(format: format)
            results.append(Result { try KeyedArchiveDecoder().decode(T.self, from: data) })
        }
        return results
    }

    @Test func codableReadsASetOfArrays() throws {
        for result in try Self.codableReadings(Set<[String]>.self, Self.setOfArrays) {
            #expect(try result.get() == [["a", "b"], ["b"]])
        }
        for result in try Self.codableReadings([[String]].self, Self.setOfArrays) {
            #expect(try result.get() == [["a", "b"], ["b"]])
        }
    }

    @Test func codableReadsADictionaryKeyedByArrays() throws {
        let objects: Objects = [
            "$null", Self.dictionary(2, keys: [3, 5], values: [6, 7]),
            ArchiveTest.classDescription("NSDictionary"),
            Self.collection(4, objects: [8]), ArchiveTest.classDescription("NSArray"),
            Self.collection(4, objects: [8, 8]), 1, 2, "k",
        ]
        for result in try Self.codableReadings([[String]: Int].self, objects) {
            #expect(try result.get() == [["k"]: 1, ["k", "k"]: 2])
        }
    }

    @Test func codableReadsADictionaryKeyedByNumbers() throws {
        let objects: Objects = [
            "$null", Self.dictionary(2, keys: [3, 4], values: [5, 6]),
            ArchiveTest.classDescription("NSDictionary"),
            1, 20, "one", "twenty",
        ]
        for result in try Self.codableReadings([Int: String].self, objects) {
            #expect(try result.get() == [1: "one", 20: "twenty"])
        }
        // A string-keyed dictionary is still not an unkeyed container.
        let stringKeyed: Objects = [
            "$null", Self.dictionary(2, keys: [3], values: [4]), ArchiveTest.classDescription("NSDictionary"),
            "a", "b",
        ]
        for result in try Self.codableReadings([String].self, stringKeyed) {
            #expect(throws: DecodingError.self) { try result.get() }
        }
    }

    @Test func codableReadsCountedAndOrderedSets() throws {
        let counted: Objects = [
            "$null",
            [
                "$class": .uid(2), "NS.count": 2, "NS.object0": .uid(3), "NS.count0": 2,
                "NS.object1": .uid(4), "NS.count1": 1,
            ],
            ArchiveTest.classDescription(
                "NSCountedSet", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"]),
            "x", "y",
        ]
        for result in try Self.codableReadings(Set<String>.self, counted) {
            #expect(try result.get() == ["x", "y"])
        }
        let ordered: Objects = [
            "$null", ["$class": .uid(2), "NS.object.0": .uid(3), "NS.object.1": .uid(4)],
            ArchiveTest.classDescription("NSOrderedSet"), "p", "q",
        ]
        for result in try Self.codableReadings([String].self, ordered) {
            #expect(try result.get() == ["p", "q"])
        }
    }

    @Test func codableRefusesAnArrayThatContainsItself() throws {
        for result in try Self.codableReadings([[String]].self, Self.selfContainingArray) {
            #expect(throws: DecodingError.self) { try result.get() }
        }
    }
}
