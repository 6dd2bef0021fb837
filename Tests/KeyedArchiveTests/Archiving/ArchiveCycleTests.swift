import Foundation
import KeyedArchive
import Testing

@Suite("Archive cycles and back-references")
struct ArchiveCycleTests {
    static func folderArchive() -> PropertyList {
        let folder = Folder(name: "docs")
        folder.items = [Item(title: "a", parent: folder), Item(title: "b", parent: folder)]
        return ArchiveTest.archive(folder).plist
    }

    @Test func parentAndChildrenRoundTripThroughBackReferences() throws {
        let unarchiver = try KeyedUnarchiver(propertyList: Self.folderArchive())
        let folder = try #require(try unarchiver.decodeObject(of: Folder.self, forKey: "root"))
        #expect(folder.name == "docs")
        #expect(folder.items.map(\.title) == ["a", "b"])
        // Every deferred assignment ran before the top-level decode returned.
        #expect(folder.items.allSatisfy { $0.parentAssigned && $0.parent === folder })
    }

    @Test func backReferenceToAnObjectNotInProgressIsAssignedImmediately() throws {
        // The folder does not list the item, so decoding the item first decodes the folder
        // on the spot; the folder decoded later at top level is the same instance.
        let folder = Folder(name: "docs")
        let item = Item(title: "a", parent: folder)
        let archiver = KeyedArchiver()
        archiver.encode(item, forKey: "item")
        archiver.encode(folder, forKey: "folder")
        let unarchiver = try KeyedUnarchiver(propertyList: archiver.encodedPropertyList)
        let decodedItem = try #require(try unarchiver.decodeObject(of: Item.self, forKey: "item"))
        #expect(decodedItem.parentAssigned)
        let decodedFolder = try #require(try unarchiver.decodeObject(of: Folder.self, forKey: "folder"))
        #expect(decodedItem.parent === decodedFolder)
    }

    @Test func decodingTheChildOfATwoWayCycleFirstFails() throws {
        // The folder decodes its items plainly, so entering the cycle from an item cannot
        // finish the folder: reported, never half-built.
        let folder = Folder(name: "docs")
        let item = Item(title: "a", parent: folder)
        folder.items = [item]
        let archiver = KeyedArchiver()
        archiver.encode(item, forKey: "item")
        archiver.encode(folder, forKey: "folder")
        let unarchiver = try KeyedUnarchiver(propertyList: archiver.encodedPropertyList)
        let error = ArchiveTest.error { try unarchiver.decodeObject(of: Item.self, forKey: "item") }
        #expect(error?.code == .unresolvableCycle)
        #expect(error?.location == .keyPath("item.parent.items[0]"))
        // Entering from the folder works.
        let decodedFolder = try #require(try unarchiver.decodeObject(of: Folder.self, forKey: "folder"))
        #expect(decodedFolder.items.first?.parent === decodedFolder)
    }

    @Test(arguments: [nil, PropertyListFormat.binary, .xml])
    func naiveDecodingOfACycleFailsInsteadOfHandingOutAHalfBuiltObject(_ format: PropertyListFormat?) throws {
        let archive = Self.folderArchive()
        let unarchiver =
            try format.map { try KeyedUnarchiver(forReadingFrom: archive.data(format: $0)) }
            ?? KeyedUnarchiver(propertyList: archive)
        let error = ArchiveTest.error { try unarchiver.decodeObject(of: NaiveFolder.self, forKey: "root") }
        #expect(error?.code == .unresolvableCycle)
        #expect(error?.location == .keyPath("root.items[0].parent"))
        #expect(error?.message.contains("decodeBackReference") == true)
        // The object whose init(coder:) is still running is named by its archived class.
        let message = error?.message ?? ""
        #expect(message.contains("reference to KeyedArchiveTests.Folder (object #"), "\(message)")
    }

    @Test func backReferenceChecksTheClass() throws {
        final class WrongChild: SecureKeyedCoding {
            static var archivedClassName: String { "KeyedArchiveTests.Item" }
            func encode(with coder: KeyedArchiver) {}
            init(coder: KeyedUnarchiver) throws {
                try coder.decodeBackReference(of: Creature.self, forKey: "parent") { _ in }
            }
        }
        final class WrongFolder: SecureKeyedCoding {
            static var archivedClassName: String { "KeyedArchiveTests.Folder" }
            var items: [WrongChild] = []
            func encode(with coder: KeyedArchiver) {}
            init(coder: KeyedUnarchiver) throws {
                items = try coder.decodeArrayOfObjects(ofClass: WrongChild.self, forKey: "items") ?? []
            }
        }
        let unarchiver = try KeyedUnarchiver(propertyList: Self.folderArchive())
        let error = ArchiveTest.error { try unarchiver.decodeObject(of: WrongFolder.self, forKey: "root") }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.location == .keyPath("root.items[0].parent"))
    }

    /// An NSMutableArray that contains itself, as Apple's NSKeyedArchiver writes it.
    static let selfContainingArray = ArchiveTest.archivePlist(
        objects: [
            "$null", ["$class": .uid(2), "NS.objects": [.uid(1), .uid(3)]],
            ArchiveTest.classDescription("NSMutableArray", ["NSMutableArray", "NSArray", "NSObject"]),
            "element",
        ], top: ["root": .uid(1)])

    @Test func selfContainingArrayFailsTypedAndIsAGraphUntyped() throws {
        let unarchiver = try KeyedUnarchiver(propertyList: Self.selfContainingArray)
        // Untyped decoding cannot return an Array that contains itself: it returns the graph.
        let untyped = try unarchiver.decodeObject(of: [], forKey: "root") as? ArchivedObjectGraph
        #expect(untyped?.root == .reference(1))
        let typed = ArchiveTest.error { try unarchiver.decodeObject(of: [[String]].self, forKey: "root") }
        #expect(typed?.code == .unresolvableCycle)
        // The generic graph represents the cycle by reference.
        let graph = try KeyedUnarchiver.objectGraph(from: Self.selfContainingArray)
        #expect(graph.isOnCycle(1))
        #expect(!graph.isOnCycle(3))
        #expect(graph.object(at: 1)?["NS.objects"] == .array([.reference(1), .reference(3)]))
    }

    @Test func longerCyclesOfValuesAreGraphsUntypedAndFailTyped() throws {
        // a → b → a, both arrays.
        let plist = ArchiveTest.archivePlist(
            objects: [
                "$null", ["$class": .uid(3), "NS.objects": [.uid(2)]],
                ["$class": .uid(3), "NS.objects": [.uid(1)]],
                ArchiveTest.classDescription("NSArray"),
            ], top: ["root": .uid(1)])
        let untyped = try KeyedUnarchiver(propertyList: plist).decodeObject(of: [], forKey: "root")
        #expect((untyped as? ArchivedObjectGraph)?.root == .reference(1))
        let error = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: [[[String]]].self, forKey: "root")
        }
        #expect(error?.code == .unresolvableCycle)
        let graph = try KeyedUnarchiver.objectGraph(from: plist)
        #expect(graph.isOnCycle(1) && graph.isOnCycle(2))
    }

    @Test func unarchiverIsUsableAfterACycleFailure() throws {
        let archiver = KeyedArchiver()
        archiver.encode(["fine"], forKey: "good")
        var objects = ArchiveTest.objects(archiver.encodedPropertyList)
        var top = try #require(archiver.encodedPropertyList["$top"]?.dictionaryValue)
        // Add a self-containing array under "bad".
        let arrayClass = try #require(objects.firstIndex { $0["$classname"] == "NSArray" })
        let badIndex = objects.count
        objects.append(["$class": .uid(UInt64(arrayClass)), "NS.objects": [.uid(UInt64(badIndex))]])
        top["bad"] = .uid(UInt64(badIndex))
        let unarchiver = try KeyedUnarchiver(
            propertyList: ArchiveTest.archivePlist(objects: objects, top: top))
        #expect(
            ArchiveTest.error { try unarchiver.decodeObject(of: [[String]].self, forKey: "bad") }?.code
                == .unresolvableCycle)
        #expect(try unarchiver.decodeObject(of: [String].self, forKey: "good") == ["fine"])
        #expect(
            ArchiveTest.error { try unarchiver.decodeObject(of: [[String]].self, forKey: "bad") }?.code
                == .unresolvableCycle)
        #expect(try unarchiver.decodeObject(of: [], forKey: "bad") is ArchivedObjectGraph)
    }

    @Test func classCyclesEncodeWithoutRecursingForever() throws {
        let a = Creature(name: "a")
        let b = Creature(name: "b", friend: a)
        a.friend = b
        let (archiver, plist) = ArchiveTest.archive(a)
        #expect(archiver.error == nil)
        #expect(ArchiveTest.objects(plist).filter { $0["legs"] != nil }.count == 2)
        // Creature decodes its friend naively: the cycle is reported, not followed.
        let error = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: Creature.self, forKey: "root")
        }
        #expect(error?.code == .unresolvableCycle)
        #expect(error?.location == .keyPath("root.friend.friend"))
    }
}
