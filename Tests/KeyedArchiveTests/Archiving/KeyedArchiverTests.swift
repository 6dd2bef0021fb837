import Foundation
import KeyedArchive
import Testing

@Suite("KeyedArchiver")
struct KeyedArchiverTests {
    @Test func requiringSecureCodingCanChangeAsFoundationsCan() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.requiresSecureCoding = false
        archiver.encode(OptedOut(), forKey: "relaxed")
        #expect(archiver.error == nil)
        archiver.requiresSecureCoding = true
        archiver.encode(OptedOut(), forKey: "strict")
        #expect(archiver.error?.code == .classNotAllowed)
    }

    @Test func archiveHasApplesShape() throws {
        let creature = Creature(name: "Potato Bug", legs: 14, tags: ["small"])
        let (archiver, plist) = ArchiveTest.archive(creature)
        #expect(archiver.error == nil)
        #expect(plist["$archiver"] == "NSKeyedArchiver")
        #expect(plist["$version"] == 100000)
        let objects = ArchiveTest.objects(plist)
        #expect(objects.first == "$null")
        let root = try #require(ArchiveTest.rootUID(plist))
        let object = try #require(objects[root].dictionaryValue)
        #expect(object["legs"] == 14)  // inline scalar
        #expect(object["weight"] == 1.5)
        #expect(object["friend"] == .uid(0))  // nil
        let nameUID = try #require(object["name"]?.uidValue)
        #expect(objects[Int(nameUID)] == "Potato Bug")
        let classUID = try #require(object["$class"]?.uidValue)
        #expect(
            objects[Int(classUID)]
                == ArchiveTest.classDescription(
                    "KeyedArchiveTests.Creature", ["KeyedArchiveTests.Creature", "NSObject"]))
    }

    @Test func classDescriptionsAreShared() throws {
        let (_, plist) = ArchiveTest.archive([Creature(name: "a"), Creature(name: "b"), Creature(name: "c")])
        let descriptions = ArchiveTest.objects(plist).filter {
            $0["$classname"] == "KeyedArchiveTests.Creature"
        }
        #expect(descriptions.count == 1)
    }

    @Test func sameInstanceIsStoredOnceAndDecodesShared() throws {
        let shared = Creature(name: "shared")
        let (_, plist) = ArchiveTest.archive([shared, Creature(name: "other", friend: shared), shared])
        let objects = ArchiveTest.objects(plist)
        #expect(objects.filter { $0 == "shared" }.count == 1)
        let root = try #require(ArchiveTest.rootObject(plist))
        let elements = try #require(root["NS.objects"]?.arrayValue)
        #expect(elements[0] == elements[2])
        let decoded = try #require(
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: [Creature].self, forKey: "root"))
        #expect(decoded[0] === decoded[2])
        #expect(decoded[1].friend === decoded[0])
        #expect(decoded[0] !== decoded[1])
    }

    @Test func equalStructsAndValuesAreStoredOnce() throws {
        let points = [Point(x: 1, y: 2), Point(x: 1, y: 2), Point(x: 3, y: 4), Point(x: 1, y: 2)]
        let (_, plist) = ArchiveTest.archive(points)
        let objects = ArchiveTest.objects(plist)
        let pointObjects = objects.filter { $0["x"] != nil }
        #expect(pointObjects.count == 2)
        let root = try #require(ArchiveTest.rootObject(plist))
        let elements = try #require(root["NS.objects"]?.arrayValue)
        #expect(elements[0] == elements[1] && elements[1] == elements[3] && elements[0] != elements[2])
        #expect(try ArchiveTest.roundTrip(points) == points)
        // Equal strings, numbers and data are stored once too.
        let (_, values) = ArchiveTest.archive(["x", "x", "y"])
        #expect(ArchiveTest.objects(values).filter { $0 == "x" }.count == 1)
        // Equal arrays (structs) are stored once.
        let (_, nested) = ArchiveTest.archive([["a"], ["a"], ["b"]])
        #expect(ArchiveTest.objects(nested).filter { $0["NS.objects"] != nil }.count == 3)
    }

    @Test func conditionalObjectIsKeptWhenAlsoEncodedUnconditionally() throws {
        let folder = Folder(name: "docs")
        folder.items = [Item(title: "a", parent: folder)]
        let (archiver, plist) = ArchiveTest.archive(folder)
        #expect(archiver.error == nil)
        let objects = ArchiveTest.objects(plist)
        let item = try #require(objects.first { $0["title"] != nil }?.dictionaryValue)
        let root = try #require(ArchiveTest.rootUID(plist))
        #expect(item["parent"] == .uid(UInt64(root)))
    }

    @Test func conditionalObjectIsNilWhenNeverEncodedUnconditionally() throws {
        let folder = Folder(name: "docs")
        let item = Item(title: "orphan", parent: folder)
        let (_, plist) = ArchiveTest.archive(item)
        let objects = ArchiveTest.objects(plist)
        let encoded = try #require(ArchiveTest.rootObject(plist))
        #expect(encoded["parent"] == .uid(0))
        #expect(!objects.contains { $0 == "docs" })
    }

    @Test func conditionalObjectEncodedLaterIsResolved() throws {
        // The conditional reference comes first, the unconditional one afterwards.
        let folder = Folder(name: "docs")
        let item = Item(title: "first", parent: folder)
        let archiver = KeyedArchiver()
        archiver.encode(item, forKey: "item")
        archiver.encodeConditionalObject(folder, forKey: "maybe")
        archiver.encode(folder, forKey: "folder")
        let plist = archiver.encodedPropertyList
        let folderUID = try #require(plist["$top"]?["folder"]?.uidValue)
        #expect(plist["$top"]?["maybe"] == .uid(folderUID))
        let itemUID = try #require(plist["$top"]?["item"]?.uidValue)
        #expect(ArchiveTest.objects(plist)[Int(itemUID)]["parent"] == .uid(folderUID))
    }

    @Test func dollarKeysAreEscaped() throws {
        struct Dollar: SecureKeyedCoding, Equatable {
            var a: Int
            var b: String
            init(a: Int, b: String) {
                self.a = a
                self.b = b
            }
            func encode(with coder: KeyedArchiver) {
                coder.encode(a, forKey: "$class")
                coder.encode(b, forKey: "$0")
            }
            init(coder: KeyedUnarchiver) throws {
                #expect(coder.containsValue(forKey: "$class"))
                a = try coder.decodeInteger(forKey: "$class")
                b = try coder.decodeObject(of: String.self, forKey: "$0") ?? ""
            }
        }
        let value = Dollar(a: 7, b: "seven")
        let (_, plist) = ArchiveTest.archive(value)
        let object = try #require(ArchiveTest.rootObject(plist))
        #expect(object["$$class"] == 7)
        #expect(object["$$0"] != nil)
        #expect(object["$class"]?.uidValue != nil)
        #expect(try ArchiveTest.roundTrip(value) == value)
    }

    @Test func unkeyedValuesUseDollarIndicesAndDecodeInOrder() throws {
        struct Triple: SecureKeyedCoding, Equatable {
            var values: [String?]
            init(values: [String?]) { self.values = values }
            func encode(with coder: KeyedArchiver) {
                for value in values { coder.encode(value) }
            }
            init(coder: KeyedUnarchiver) throws {
                values = [
                    try coder.decodeObject(of: String.self), try coder.decodeObject(of: String.self),
                    try coder.decodeObject(of: String.self),
                ]
                #expect(try coder.decodeObject(of: String.self) == nil)  // past the end
            }
        }
        let value = Triple(values: ["a", nil, "c"])
        let (_, plist) = ArchiveTest.archive(value)
        let object = try #require(ArchiveTest.rootObject(plist))
        #expect(Set(object.keys) == ["$0", "$1", "$2", "$class"])
        #expect(object["$1"] == .uid(0))
        #expect(try ArchiveTest.roundTrip(value) == value)
    }

    @Test func subclassesWriteTheirFullClassChain() throws {
        let (_, plist) = ArchiveTest.archive([
            Shape(label: "s"), Circle(label: "c", radius: 2), UnitCircle(label: "u", radius: 1),
        ])
        let descriptions = ArchiveTest.objects(plist).filter { $0["$classname"] != nil }
        #expect(descriptions.contains(ArchiveTest.classDescription("KeyedArchiveTests.Shape")))
        #expect(
            descriptions.contains(
                ArchiveTest.classDescription(
                    "KeyedArchiveTests.Circle",
                    ["KeyedArchiveTests.Circle", "KeyedArchiveTests.Shape", "NSObject"])))
        #expect(
            descriptions.contains(
                ArchiveTest.classDescription(
                    "KeyedArchiveTests.UnitCircle",
                    [
                        "KeyedArchiveTests.UnitCircle", "KeyedArchiveTests.Circle", "KeyedArchiveTests.Shape",
                        "NSObject",
                    ])))
        // Decoded through the base type, in non-secure mode, when the subclasses are mapped.
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(Circle.self, forClassName: "KeyedArchiveTests.Circle")
        unarchiver.setClass(UnitCircle.self, forClassName: "KeyedArchiveTests.UnitCircle")
        let shapes = try #require(try unarchiver.decodeArrayOfObjects(ofClass: Shape.self, forKey: "root"))
        #expect(type(of: shapes[0]) == Shape.self)
        #expect(type(of: shapes[1]) == Circle.self)
        #expect(type(of: shapes[2]) == UnitCircle.self)
        #expect((shapes[2] as? Circle)?.radius == 1)
        #expect(shapes[1].label == "c")
    }

    @Test func explicitSuperclassNamesAreWritten() throws {
        struct Mimic: SecureKeyedCoding {
            static var archivedClassName: String { "MyMutableThing" }
            static var archivedSuperclassNames: [String]? { ["MyThing"] }
            init() {}
            func encode(with coder: KeyedArchiver) {}
            init(coder: KeyedUnarchiver) throws {}
        }
        let (_, plist) = ArchiveTest.archive(Mimic())
        #expect(
            ArchiveTest.objects(plist).contains(
                ArchiveTest.classDescription("MyMutableThing", ["MyMutableThing", "MyThing", "NSObject"])))
    }

    @Test func classNamesCanBeMappedPerArchiver() throws {
        let (_, plist) = ArchiveTest.archive(Point(x: 1, y: 1)) {
            $0.setClassName("Geometry.Point", for: Point.self)
        }
        #expect(ArchiveTest.objects(plist).contains(ArchiveTest.classDescription("Geometry.Point")))
        // The unarchiver maps the name back.
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        #expect(throws: KeyedArchiveError.self) {
            try unarchiver.decodeObject(of: Point.self, forKey: "root")
        }
        unarchiver.setClass(Point.self, forClassName: "Geometry.Point")
        #expect(try unarchiver.decodeObject(of: Point.self, forKey: "root") == Point(x: 1, y: 1))
        #expect(unarchiver.class(forClassName: "Geometry.Point") == Point.self)
    }

    @Test func classNamesCanBeMappedProcessWide() throws {
        struct Moved: SecureKeyedCoding, Equatable {
            var n: Int
            init(n: Int) { self.n = n }
            func encode(with coder: KeyedArchiver) { coder.encode(n, forKey: "n") }
            init(coder: KeyedUnarchiver) throws { n = try coder.decodeInteger(forKey: "n") }
        }
        KeyedArchiver.setClassName("OldModule.Moved", for: Moved.self)
        defer { KeyedArchiver.setClassName(nil, for: Moved.self) }
        #expect(KeyedArchiver.className(for: Moved.self) == "OldModule.Moved")
        let (_, plist) = ArchiveTest.archive(Moved(n: 5))
        #expect(ArchiveTest.objects(plist).contains(ArchiveTest.classDescription("OldModule.Moved")))
        // A per-archiver name wins over the process-wide one.
        let (_, local) = ArchiveTest.archive(Moved(n: 5)) { $0.setClassName("Local.Moved", for: Moved.self) }
        #expect(ArchiveTest.objects(local).contains(ArchiveTest.classDescription("Local.Moved")))
        // An old archive reads back through the process-wide alias table.
        KeyedUnarchiver.setClass(Moved.self, forClassName: "Local.Moved")
        defer { KeyedUnarchiver.setClass(nil, forClassName: "Local.Moved") }
        #expect(KeyedUnarchiver.class(forClassName: "Local.Moved") == Moved.self)
        #expect(
            try KeyedUnarchiver(propertyList: local).decodeObject(of: Moved.self, forKey: "root")
                == Moved(n: 5))
        // The type also accepts its process-wide archived name.
        #expect(
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: Moved.self, forKey: "root")
                == Moved(n: 5))
    }

    @Test func archivedClassNameOverrideIsStable() throws {
        let (_, plist) = ArchiveTest.archive(Renamed(text: "t"))
        #expect(ArchiveTest.objects(plist).contains(ArchiveTest.classDescription("Legacy.Thing")))
        #expect(try ArchiveTest.roundTrip(Renamed(text: "t")) == Renamed(text: "t"))
    }

    @Test func nonSecureTypeIsRecordedAsAnErrorWhenSecureCodingIsRequired() throws {
        let (archiver, plist) = ArchiveTest.archive([Insecure(value: 1)])
        let error = try #require(archiver.error)
        #expect(error.code == .classNotAllowed)
        #expect(error.location == .keyPath("root[0]"))
        #expect(error.message.contains("Insecure"))
        #expect(throws: KeyedArchiveError.self) { try archiver.finishedData() }
        #expect(throws: KeyedArchiveError.self) {
            try KeyedArchiver.archivedData(withRootObject: OptedOut(), requiringSecureCoding: true)
        }
        // The element was stored as nil.
        let root = try #require(ArchiveTest.rootObject(plist))
        #expect(root["NS.objects"] == [.uid(0)])
        // Without secure coding it is fine.
        #expect(try ArchiveTest.roundTrip(Insecure(value: 3), secure: false) == Insecure(value: 3))
    }

    @Test func encodingAfterFinishingIsAnError() throws {
        let archiver = KeyedArchiver()
        archiver.encode(1, forKey: "a")
        _ = archiver.encodedPropertyList
        archiver.encode(2, forKey: "b")
        #expect(archiver.error?.code == .invalidValue)
    }

    @Test func failWithErrorKeepsTheFirstError() throws {
        let archiver = KeyedArchiver()
        archiver.failWithError(KeyedArchiveError(.invalidValue, "first"))
        archiver.failWithError(KeyedArchiveError(.invalidValue, "second"))
        #expect(archiver.error?.message == "first")
    }

    @Test func openStepOutputIsRefused() throws {
        let archiver = KeyedArchiver()
        archiver.outputFormat = .openStep
        archiver.encode("x", forKey: "root")
        let error = ArchiveTest.error { try archiver.finishedData() }
        #expect(error?.code == .unsupportedFormat)
    }

    @Test func topLevelScalarsAreInline() throws {
        let archiver = KeyedArchiver()
        archiver.encode(true, forKey: "flag")
        archiver.encode(Int32(-5), forKey: "small")
        archiver.encode(Int64.max, forKey: "big")
        archiver.encode(Float(0.5), forKey: "float")
        archiver.encodeBytes([1, 2, 3], forKey: "bytes")
        let top = try #require(archiver.encodedPropertyList["$top"]?.dictionaryValue)
        #expect(top["flag"] == true)
        #expect(top["small"] == -5)
        #expect(top["big"] == .integer(PropertyListInteger(Int64.max)))
        #expect(top["float"] == 0.5)
        #expect(top["bytes"] == .data(Data([1, 2, 3])))
        let unarchiver = try KeyedUnarchiver(propertyList: archiver.encodedPropertyList)
        #expect(try unarchiver.decodeBool(forKey: "flag"))
        #expect(try unarchiver.decodeInt32(forKey: "small") == -5)
        #expect(try unarchiver.decodeInt64(forKey: "big") == Int64.max)
        #expect(try unarchiver.decodeFloat(forKey: "float") == 0.5)
        #expect(try unarchiver.decodeBytes(forKey: "bytes") == Data([1, 2, 3]))
    }
}
