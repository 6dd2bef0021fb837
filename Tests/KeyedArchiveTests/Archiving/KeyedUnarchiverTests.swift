import Foundation
import KeyedArchive
import Testing

@Suite("KeyedUnarchiver")
struct KeyedUnarchiverTests {
    // MARK: Secure coding

    @Test func secureModeRefusesClassesOutsideTheAllowedSet() throws {
        let (_, plist) = ArchiveTest.archive(Creature(name: "x"))
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        let error = ArchiveTest.error { try unarchiver.decodeObject(of: Point.self, forKey: "root") }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.location == .keyPath("root"))
        #expect(
            error?.message.contains(
                "class \"KeyedArchiveTests.Creature\" is not allowed; allowed: KeyedArchiveTests.Point")
                == true)
        let listed = ArchiveTest.error {
            try unarchiver.decodeObject(of: [Point.self, Renamed.self], forKey: "root")
        }
        #expect(listed?.code == .classNotAllowed)
        #expect(listed?.message.contains("KeyedArchiveTests.Point, Legacy.Thing") == true)
        #expect(try unarchiver.decodeObject(of: [Point.self, Creature.self], forKey: "root") is Creature)
    }

    @Test func secureModeChecksTheClassBeforeConstructingAnything() throws {
        final class Tripwire: SecureKeyedCoding {
            nonisolated(unsafe) static var constructed = 0
            static var archivedClassName: String { "KeyedArchiveTests.Creature" }
            init() {}
            func encode(with coder: KeyedArchiver) {}
            init(coder: KeyedUnarchiver) throws { Tripwire.constructed += 1 }
        }
        // The archive's root is a Creature whose friend is a Creature: decoding as Point
        // must not construct the nested objects either.
        let (_, plist) = ArchiveTest.archive(Creature(name: "a", friend: Creature(name: "b")))
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        unarchiver.setClass(Tripwire.self, forClassName: "KeyedArchiveTests.Creature")
        #expect(throws: KeyedArchiveError.self) {
            try unarchiver.decodeObject(of: Point.self, forKey: "root")
        }
        #expect(Tripwire.constructed == 0)
    }

    @Test func secureModeDoesNotAllowSubclassesImplicitly() throws {
        let (_, plist) = ArchiveTest.archive(Circle(label: "c", radius: 1))
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        // Unknown subclass name: refused, not decoded as its superclass.
        let unknown = ArchiveTest.error { try unarchiver.decodeObject(of: Shape.self, forKey: "root") }
        #expect(unknown?.code == .classNotAllowed)
        // Known (mapped) subclass: still refused unless named.
        unarchiver.setClass(Circle.self, forClassName: "KeyedArchiveTests.Circle")
        let mapped = ArchiveTest.error { try unarchiver.decodeObject(of: Shape.self, forKey: "root") }
        #expect(mapped?.code == .classNotAllowed)
        #expect(mapped?.message.contains("mapped to") == true)
        #expect(try unarchiver.decodeObject(of: [Shape.self, Circle.self], forKey: "root") is Circle)
        #expect(try unarchiver.decodeObject(of: Circle.self, forKey: "root")?.radius == 1)
        // Without secure coding the superclass names in $classes are a fallback.
        let lenient = try KeyedUnarchiver(propertyList: plist)
        lenient.requiresSecureCoding = false
        let shape = try #require(try lenient.decodeObject(of: Shape.self, forKey: "root"))
        #expect(type(of: shape) == Shape.self)
        #expect(shape.label == "c")
    }

    @Test func secureModeRefusesTypesThatDoNotSupportSecureCoding() throws {
        let (_, insecurePlist) = ArchiveTest.archive(Insecure(value: 1), secure: false)
        let error = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: insecurePlist).decodeObject(of: Insecure.self, forKey: "root")
        }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.message.contains("does not support secure coding") == true)
        let (_, optedOutPlist) = ArchiveTest.archive(OptedOut(), secure: false)
        let optedOut = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: optedOutPlist).decodeObject(of: OptedOut.self, forKey: "root")
        }
        #expect(optedOut?.code == .classNotAllowed)
        let lenient = try KeyedUnarchiver(propertyList: insecurePlist)
        lenient.requiresSecureCoding = false
        #expect(try lenient.decodeObject(of: Insecure.self, forKey: "root") == Insecure(value: 1))
    }

    @Test func untypedDecodeIsRefusedInSecureMode() throws {
        let (_, plist) = ArchiveTest.archive(["a"])
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        #expect(unarchiver.requiresSecureCoding)
        let error = ArchiveTest.error { try unarchiver.decodeObject(forKey: "root") }
        #expect(error?.code == .classNotAllowed)
        #expect(throws: KeyedArchiveError.self) { try unarchiver.decodeObject() }
        unarchiver.requiresSecureCoding = false
        #expect((try unarchiver.decodeObject(forKey: "root") as? [Any])?.first as? String == "a")
    }

    @Test func untypedDecodeConstructsMappedTypes() throws {
        let (_, plist) = ArchiveTest.archive([Point(x: 1, y: 2)])
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        unarchiver.requiresSecureCoding = false
        let unknown = ArchiveTest.error { try unarchiver.decodeObject(forKey: "root") }
        #expect(unknown?.code == .classNotFound)
        #expect(unknown?.location == .keyPath("root[0]"))
        unarchiver.setClass(Point.self, forClassName: "KeyedArchiveTests.Point")
        #expect((try unarchiver.decodeObject(forKey: "root") as? [Any])?.first as? Point == Point(x: 1, y: 2))
    }

    // MARK: Scalars

    @Test func scalarsAreStrict() throws {
        let archiver = KeyedArchiver()
        archiver.encode(Int64(1) << 40, forKey: "big")
        archiver.encode("text", forKey: "string")
        archiver.encode(2.5, forKey: "real")
        archiver.encode(1e300, forKey: "huge")
        archiver.encode(true, forKey: "flag")
        archiver.encode(UInt64.max, forKey: "unsigned")  // a plain NSNumber object
        let unarchiver = try KeyedUnarchiver(propertyList: archiver.encodedPropertyList)

        let outOfRange = ArchiveTest.error { try unarchiver.decodeInt32(forKey: "big") }
        #expect(outOfRange?.code == .valueOutOfRange)
        #expect(outOfRange?.location == .keyPath("big"))
        #expect(try unarchiver.decodeInt64(forKey: "big") == 1 << 40)
        #expect(try unarchiver.decodeInteger(forKey: "big") == 1 << 40)
        #expect(try unarchiver.decodeDouble(forKey: "big") == 1_099_511_627_776)

        let mismatch = ArchiveTest.error { try unarchiver.decodeInteger(forKey: "string") }
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.message == "expected an integer, found NSString")
        #expect(ArchiveTest.error { try unarchiver.decodeInteger(forKey: "real") }?.code == .typeMismatch)
        #expect(ArchiveTest.error { try unarchiver.decodeBool(forKey: "real") }?.code == .typeMismatch)
        #expect(ArchiveTest.error { try unarchiver.decodeInteger(forKey: "flag") }?.code == .typeMismatch)
        #expect(ArchiveTest.error { try unarchiver.decodeFloat(forKey: "huge") }?.code == .valueOutOfRange)
        #expect(ArchiveTest.error { try unarchiver.decodeBytes(forKey: "real") }?.code == .typeMismatch)
        #expect(
            ArchiveTest.error { try unarchiver.decodeInt64(forKey: "unsigned") }?.code == .valueOutOfRange)
        #expect(try unarchiver.decodeDouble(forKey: "huge") == 1e300)
        #expect(try unarchiver.decodeFloat(forKey: "real") == 2.5)
        #expect(try unarchiver.decodeBool(forKey: "flag"))

        // Missing keys give Foundation's defaults.
        #expect(try unarchiver.decodeInteger(forKey: "missing") == 0)
        #expect(try unarchiver.decodeInt32(forKey: "missing") == 0)
        #expect(try unarchiver.decodeInt64(forKey: "missing") == 0)
        #expect(try unarchiver.decodeDouble(forKey: "missing") == 0)
        #expect(try unarchiver.decodeFloat(forKey: "missing") == 0)
        #expect(try unarchiver.decodeBool(forKey: "missing") == false)
        #expect(try unarchiver.decodeBytes(forKey: "missing") == nil)
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "missing") == nil)
        #expect(!unarchiver.containsValue(forKey: "missing"))
        #expect(unarchiver.containsValue(forKey: "big"))
    }

    @Test func objectTypeMismatchesNameBothSides() throws {
        let archiver = KeyedArchiver()
        archiver.encode(["a"], forKey: "array")
        archiver.encode("s", forKey: "string")
        let unarchiver = try KeyedUnarchiver(propertyList: archiver.encodedPropertyList)
        let array = ArchiveTest.error { try unarchiver.decodeObject(of: String.self, forKey: "array") }
        #expect(array?.code == .typeMismatch)
        #expect(array?.message == "expected NSString, found NSArray")
        let string = ArchiveTest.error { try unarchiver.decodeObject(of: [String].self, forKey: "string") }
        #expect(string?.message == "expected NSArray, found NSString")
        let element = ArchiveTest.error {
            try unarchiver.decodeArrayOfObjects(ofClass: Int.self, forKey: "array")
        }
        #expect(element?.location == .keyPath("array[0]"))
        #expect(element?.message == "expected an integer, found NSString")
    }

    // MARK: Typed collections

    @Test func typedCollectionDecodes() throws {
        let archiver = KeyedArchiver()
        archiver.encode([Point(x: 1, y: 1), Point(x: 2, y: 2)], forKey: "points")
        archiver.encode([1: "one", 2: "two"], forKey: "names")
        let unarchiver = try KeyedUnarchiver(propertyList: archiver.encodedPropertyList)
        #expect(
            try unarchiver.decodeArrayOfObjects(ofClass: Point.self, forKey: "points") == [
                Point(x: 1, y: 1), Point(x: 2, y: 2),
            ])
        #expect(
            try unarchiver.decodeDictionary(
                withKeysOfClass: Int.self, objectsOfClass: String.self, forKey: "names")
                == [1: "one", 2: "two"])
        let wrongKeys = ArchiveTest.error {
            try unarchiver.decodeDictionary(
                withKeysOfClass: String.self, objectsOfClass: String.self, forKey: "names")
        }
        #expect(wrongKeys?.code == .typeMismatch)
        #expect(wrongKeys?.location == .keyPath("names[key 0]"))
        let wrongValues = ArchiveTest.error {
            try unarchiver.decodeDictionary(
                withKeysOfClass: Int.self, objectsOfClass: Int.self, forKey: "names")
        }
        #expect(
            wrongValues?.location == .keyPath("names[value 0]")
                || wrongValues?.location == .keyPath("names[value 1]"))
        #expect(try unarchiver.decodeArrayOfObjects(ofClass: Point.self, forKey: "missing") == nil)
    }

    @Test func mismatchedKeyAndValueCountsAreRefusedBeforeDecoding() throws {
        let plist = ArchiveTest.archivePlist(
            objects: [
                "$null", ["$class": .uid(2), "NS.keys": [.uid(3), .uid(3)], "NS.objects": [.uid(3)]],
                ArchiveTest.classDescription("NSDictionary"), "k",
            ], top: ["root": .uid(1)])
        let error = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: [String: String].self, forKey: "root")
        }
        #expect(error?.code == .invalidArchive)
        #expect(error?.message.contains("2 keys") == true)
    }

    // MARK: Errors

    @Test func errorsCarryTheKeyPath() throws {
        let creatures = [Creature(name: "a"), Creature(name: "b"), Creature(name: "c"), Creature(name: "d")]
        creatures[3].tags = ["fine"]
        let (_, plist) = ArchiveTest.archive(["creatures": creatures])
        // Corrupt the fourth creature's tags: replace the array reference with a string.
        var objects = ArchiveTest.objects(plist)
        let tagsIndex = try #require(objects.firstIndex { $0 == "fine" })
        let creatureIndex = try #require(
            objects.firstIndex {
                $0["name"] != nil && $0["tags"] != nil && objects[Int($0["name"]?.uidValue ?? 0)] == "d"
            })
        var creature = try #require(objects[creatureIndex].dictionaryValue)
        creature["tags"] = .uid(UInt64(tagsIndex))
        objects[creatureIndex] = .dictionary(creature)
        let corrupted = ArchiveTest.archivePlist(
            objects: objects, top: try #require(plist["$top"]?.dictionaryValue))
        let error = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: corrupted).decodeObject(
                of: [String: [Creature]].self, forKey: "root")
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.location == .keyPath("root[\"creatures\"][3].tags"))
        #expect(error?.description == "root[\"creatures\"][3].tags: expected NSArray, found NSString")
    }

    @Test func nestedFailureFailsTheWholeDecodeEvenIfSwallowed() throws {
        struct Swallower: SecureKeyedCoding {
            var value: Int?
            init(value: Int?) { self.value = value }
            func encode(with coder: KeyedArchiver) { coder.encode("not a number", forKey: "n") }
            init(coder: KeyedUnarchiver) throws {
                value = try? coder.decodeInteger(forKey: "n")  // swallowed
            }
        }
        let (_, plist) = ArchiveTest.archive([Swallower(value: nil)])
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        let error = ArchiveTest.error { try unarchiver.decodeObject(of: [Swallower].self, forKey: "root") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.location == .keyPath("root[0].n"))
        #expect(unarchiver.error == error)
        // The unarchiver stays usable for other keys.
        #expect(throws: Never.self) { try unarchiver.decodeObject(of: [String].self, forKey: "missing") }
        #expect(unarchiver.error == nil)
    }

    @Test func customErrorsFromInitAreWrapped() throws {
        struct Refuser: SecureKeyedCoding {
            struct Nope: Error {}
            init() {}
            func encode(with coder: KeyedArchiver) {}
            init(coder: KeyedUnarchiver) throws { throw Nope() }
        }
        let (_, plist) = ArchiveTest.archive(["k": Refuser()])
        let error = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: [String: Refuser].self, forKey: "root")
        }
        #expect(error?.code == .invalidArchive)
        #expect(error?.location == .keyPath("root[\"k\"]"))
        #expect(error?.message.contains("Nope") == true)
    }

    @Test func malformedReferencesThrow() throws {
        let cases: [(String, [PropertyList], PropertyListDictionary)] = [
            ("out of range", ["$null"], ["root": .uid(5)]),
            ("no $class", ["$null", ["x": 1]], ["root": .uid(1)]),
            ("$class to a string", ["$null", ["$class": .uid(2)], "s"], ["root": .uid(1)]),
            ("$class out of range", ["$null", ["$class": .uid(9)]], ["root": .uid(1)]),
            (
                "$class not a uid", ["$null", ["$class": 2], ArchiveTest.classDescription("NSArray")],
                ["root": .uid(1)]
            ),
            (
                "$classes not strings",
                ["$null", ["$class": .uid(2)], ["$classname": "NSArray", "$classes": [1]]], ["root": .uid(1)]
            ),
            (
                "NS.objects not array",
                ["$null", ["$class": .uid(2), "NS.objects": "x"], ArchiveTest.classDescription("NSArray")],
                ["root": .uid(1)]
            ),
            (
                "element out of range",
                [
                    "$null", ["$class": .uid(2), "NS.objects": [.uid(99)]],
                    ArchiveTest.classDescription("NSArray"),
                ], ["root": .uid(1)]
            ),
            (
                "nil element",
                [
                    "$null", ["$class": .uid(2), "NS.objects": [.uid(0)]],
                    ArchiveTest.classDescription("NSArray"),
                ], ["root": .uid(1)]
            ),
            ("root not a reference", ["$null"], ["root": .array([])]),
            ("array in $objects", ["$null", .array(["a"])], ["root": .uid(1)]),
        ]
        for (name, objects, top) in cases {
            let plist = ArchiveTest.archivePlist(objects: objects, top: top)
            let unarchiver = try KeyedUnarchiver(propertyList: plist)
            let typed = ArchiveTest.error { try unarchiver.decodeObject(of: [String].self, forKey: "root") }
            #expect(typed != nil, "\(name): typed decode should throw")
            let untyped = ArchiveTest.error { try unarchiver.decodeObject(of: [], forKey: "root") }
            #expect(untyped != nil, "\(name): untyped decode should throw")
        }
    }

    @Test func invalidHeadersThrow() throws {
        let valid = ArchiveTest.archivePlist(objects: ["$null"], top: [:])
        #expect(throws: Never.self) { try KeyedUnarchiver(propertyList: valid) }
        var cases: [(String, PropertyList)] = []
        for (key, value) in [
            ("$archiver", PropertyList.string("NSArchiver")), ("$version", 10000), ("$top", "x"),
            ("$objects", "x"),
        ] {
            var dictionary = try #require(valid.dictionaryValue)
            dictionary[key] = value
            cases.append(("wrong \(key)", .dictionary(dictionary)))
            dictionary[key] = nil
            cases.append(("missing \(key)", .dictionary(dictionary)))
        }
        cases.append(("empty $objects", ArchiveTest.archivePlist(objects: [], top: [:])))
        cases.append(("no $null", ArchiveTest.archivePlist(objects: ["x"], top: [:])))
        cases.append(("not a dictionary", ["a"]))
        for (name, plist) in cases {
            let error = ArchiveTest.error { try KeyedUnarchiver(propertyList: plist) }
            #expect(error?.code == .invalidArchive, "\(name)")
        }
        var options = KeyedUnarchivingOptions()
        options.maximumObjectCount = 2
        let tooMany = ArchiveTest.archivePlist(objects: ["$null", "a", "b"], top: [:])
        #expect(
            ArchiveTest.error { try KeyedUnarchiver(propertyList: tooMany, options: options) }?.code
                == .limitExceeded)
    }

    @Test func unarchivedObjectRequiresARootKey() throws {
        let archiver = KeyedArchiver()
        archiver.encode("x", forKey: "other")
        let unarchiver = try KeyedUnarchiver(propertyList: archiver.encodedPropertyList)
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "root") == nil)
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "other") == "x")
        #expect(try unarchiver.archivedClassName(forKey: "other") == "NSString")
    }

    @Test func archivedClassNameReportsWithoutDecoding() throws {
        let (_, plist) = ArchiveTest.archive(Creature(name: "c"))
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        #expect(try unarchiver.archivedClassName(forKey: "root") == "KeyedArchiveTests.Creature")
        #expect(try unarchiver.archivedClassName(forKey: "missing") == nil)
    }

    @Test func classHintsAreHonoured() throws {
        // PyObjC's OC_BuiltinPythonUnicode, with $classhints naming NSString.
        let plist = ArchiveTest.archivePlist(
            objects: [
                "$null", ["$class": .uid(2), "NS.string": "KeyArchive UID Test", "pytype": 1],
                [
                    "$classname": "OC_BuiltinPythonUnicode",
                    "$classes": ["OC_BuiltinPythonUnicode", "OC_PythonUnicode", "NSString", "NSObject"],
                    "$classhints": ["OC_PythonString", "NSString"],
                ],
            ], top: ["root": .uid(1)])
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "root") == "KeyArchive UID Test")
        #expect(try unarchiver.decodeObject(of: [], forKey: "root") as? String == "KeyArchive UID Test")
    }

    // MARK: Limits

    @Test func nestingDeeperThanTheLimitThrows() throws {
        // 40 nested arrays, with a limit of 16.
        var objects: [PropertyList] = ["$null", ArchiveTest.classDescription("NSArray")]
        for level in 0..<40 {
            let child: [PropertyList] = level == 0 ? [] : [.uid(UInt64(objects.count - 1))]
            objects.append(["$class": .uid(1), "NS.objects": .array(child)])
        }
        let plist = ArchiveTest.archivePlist(objects: objects, top: ["root": .uid(UInt64(objects.count - 1))])
        var options = KeyedUnarchivingOptions()
        options.maximumDepth = 16
        let error = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: plist, options: options).decodeObject(of: [], forKey: "root")
        }
        #expect(error?.code == .limitExceeded)
        #expect(throws: Never.self) {
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: [], forKey: "root")
        }
    }

    @Test func typedChainsUpToTheDefaultDepthDecodeAndDeeperOnesThrow() throws {
        func chain(_ length: Int) -> PropertyList {
            let head = Creature(name: "0")
            var current = head
            for index in 1..<length {
                let next = Creature(name: "\(index)")
                current.friend = next
                current = next
            }
            // The archiver's own limit is the unarchiver's default: raise it to write more.
            return ArchiveTest.archive(head, configure: { $0.maximumDepth = 1000 }).plist
        }
        // Each link nests one level deeper; 510 links fit the default limit of 512.
        let fits = try #require(
            try KeyedUnarchiver(propertyList: chain(510)).decodeObject(of: Creature.self, forKey: "root"))
        #expect(fits.friend?.friend?.name == "2")
        let error = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: chain(600)).decodeObject(of: Creature.self, forKey: "root")
        }
        #expect(error?.code == .limitExceeded)
    }
}
