import Foundation
import KeyedArchive
import Testing

/// The object graph's builder reads most entries in place, from the archive's bytes, and
/// renders key paths only for an error: what it reads must be what the general way reads,
/// and its errors must still say what is wrong and where.
@Suite("Object graphs read in place: same graph, same errors")
struct ArchiveGraphBuilderTests {
    static let widgetClass = ArchiveTest.classDescription("Acme.Widget", ["Acme.Widget", "NSObject"])

    /// A broken archive, and where its error must point.
    struct Broken: CustomTestStringConvertible, Sendable {
        let name: String
        let objects: [PropertyList]
        var top: PropertyListDictionary = ["root": .uid(1)]
        /// The start of the error's description: its key path and what is wrong.
        let message: String
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(
            name: "field reference out of range",
            objects: ["$null", ["$class": .uid(2), "next": .uid(99)], widgetClass],
            message: "$objects[1].next: object reference 99 is out of range (3 objects)"),
        Broken(
            name: "reference out of range in a list",
            objects: [
                "$null", ["$class": .uid(2), "NS.objects": [.uid(0), .uid(1), .uid(50)]], widgetClass,
            ],
            message: "$objects[1].NS.objects[2]: object reference 50 is out of range (3 objects)"),
        Broken(
            name: "reference out of range in a nested dictionary",
            objects: ["$null", ["$class": .uid(2), "info": ["a": ["b": .uid(77)]]], widgetClass],
            message: "$objects[1].info.a.b: object reference 77 is out of range (3 objects)"),
        Broken(
            name: "escaped key",
            objects: ["$null", ["$class": .uid(2), "$$odd": .uid(40)], widgetClass],
            message: "$objects[1].$odd: object reference 40 is out of range (3 objects)"),
        Broken(
            name: "$class that is not a reference",
            objects: ["$null", ["$class": "Acme.Widget", "n": 1], widgetClass],
            message: "$objects[1].$class: $class is "),
        Broken(
            name: "class description without $classname",
            objects: ["$null", ["$class": .uid(2), "n": 1], ["$classes": ["Acme.Widget"]]],
            message: "$objects[1].$class: class description $objects[2] has no $classname"),
        Broken(
            name: "class name that is not a string",
            objects: [
                "$null", ["$class": .uid(2), "n": 1], ["$classname": 7, "$classes": ["Acme.Widget"]],
            ],
            message: "$objects[1].$class: $classname of $objects[2] is "),
        Broken(
            name: "dictionary without $class or $classname",
            objects: ["$null", ["n": 1]],
            message: "$objects[1]: a dictionary without $class or $classname"),
        Broken(
            name: "$top reference out of range",
            objects: ["$null", ["$class": .uid(2), "n": 1], widgetClass],
            top: ["root": .uid(1), "extra": .uid(88)],
            message: "$top.extra: object reference 88 is out of range (3 objects)"),
    ]

    @Test("an error says what and where", arguments: broken)
    func errorsSayWhere(_ archive: Broken) throws {
        let data = try ArchiveTest.archivePlist(objects: archive.objects, top: archive.top).data(
            format: .binary)
        let error = try #require(ArchiveTest.error { try KeyedUnarchiver.objectGraph(from: data) })
        #expect(error.code == .invalidArchive)
        #expect(error.description.hasPrefix(archive.message), "\(error.description)")
    }

    @Test("recovering lists each problem where it is", arguments: broken)
    func problemsSayWhere(_ archive: Broken) throws {
        let data = try ArchiveTest.archivePlist(objects: archive.objects, top: archive.top).data(
            format: .binary)
        let graph = try KeyedUnarchiver.objectGraph(
            from: data, options: KeyedUnarchivingOptions(recoversFromDamage: true))
        #expect(
            graph.problems.contains { $0.description.hasPrefix(archive.message) }, "\(graph.problems)")
        #expect(graph.nodes.count == archive.objects.count)
    }

    /// Entries read in place next to entries that are not (a nested dictionary, a list of
    /// lists): each as the general way reads it.
    @Test func mixedEntriesReadAlike() throws {
        let archive = ArchiveTest.archivePlist(
            objects: [
                "$null",
                [
                    "$class": .uid(2), "name": "Ada", "ключ": "значение", "$$dollar": true,
                    "when": .date(Date(timeIntervalSinceReferenceDate: 5)),
                    "bytes": .data(Data([1, 2, 3])), "big": .integer(PropertyListInteger(UInt64.max)),
                    "ratio": 0.25,
                    "list": [.uid(3), .uid(0), 7, "x"], "owner": .uid(3),
                ],
                [
                    "$classname": "Acme.Widget", "$classes": ["Acme.Widget", "NSObject"],
                    "$classhints": ["Widget"],
                ],
                [
                    "$class": .uid(4), "nested": ["a": [1, 2], "b": ["c": .uid(1)]],
                    "lists": [[.uid(1)], []],
                ],
                ArchiveTest.classDescription("Acme.Owner"),
                "a string",
                42,
            ], top: ["root": .uid(1), "other": .uid(5)])
        // From the value: written as binary with its keys in this order, then read.
        let graph = try KeyedUnarchiver.objectGraph(from: archive)
        let widget = try #require(graph.object(at: 1))
        #expect(widget.className == "Acme.Widget")
        #expect(widget.classChain == ["Acme.Widget", "NSObject"] && widget.classHints == ["Widget"])
        #expect(
            widget.fields.map(\.key) == [
                "name", "ключ", "$dollar", "when", "bytes", "big", "ratio", "list", "owner",
            ])
        #expect(widget["ключ"] == .string("значение"))
        #expect(widget["$dollar"] == .bool(true))
        #expect(widget["when"] == .date(Date(timeIntervalSinceReferenceDate: 5)))
        #expect(widget["bytes"] == .data(Data([1, 2, 3])))
        #expect(widget["big"] == .integer(PropertyListInteger(UInt64.max)))
        #expect(widget["ratio"] == .real(0.25))
        #expect(widget["list"] == .array([.reference(3), .null, .integer(7), .string("x")]))
        let owner = try #require(graph.object(at: 3))
        #expect(owner.className == "Acme.Owner")
        #expect(
            owner["nested"]
                == .dictionary([
                    ArchivedObjectGraph.Field(key: "a", value: .array([.integer(1), .integer(2)])),
                    ArchivedObjectGraph.Field(
                        key: "b", value: .dictionary([.init(key: "c", value: .reference(1))])),
                ]))
        #expect(owner["lists"] == .array([.array([.reference(1)]), .array([])]))
        #expect(
            graph[2]
                == .classDescription(
                    .init(
                        className: "Acme.Widget", classChain: ["Acme.Widget", "NSObject"],
                        classHints: ["Widget"])))
        #expect(graph[5] == .value(.string("a string")))
        #expect(graph[6] == .value(.integer(42)))
        // 1 → 3 → 1 (through a nested dictionary) is a cycle.
        #expect(graph.isOnCycle(1) && graph.isOnCycle(3))
        #expect(graph.referenceCount(of: 3) == 2)
        #expect(graph.topLevelValue(forKey: "other") == .reference(5))
    }

    /// A graph whose references all point forward has no cycle, and its counts are right.
    @Test func forwardReferencesHaveNoCycles() throws {
        let archive = ArchiveTest.archivePlist(
            objects: [
                "$null",
                ["$class": .uid(3), "NS.objects": [.uid(2), .uid(2), .uid(4)]],
                "shared",
                ArchiveTest.classDescription("NSArray"),
                ["$class": .uid(3), "NS.objects": [.uid(2)]],
            ], top: ["root": .uid(1)])
        let graph = try KeyedUnarchiver.objectGraph(from: archive.data(format: .binary))
        #expect((0..<5).allSatisfy { !graph.isOnCycle($0) })
        #expect(graph.referenceCount(of: 2) == 3 && graph.referenceCount(of: 4) == 1)
        #expect(graph.referenceCount(of: 1) == 1)
    }

    /// A budget too small for the archive fails read in place as it does the general way.
    @Test func budgetStillApplies() throws {
        let archive = ArchiveTest.archivePlist(
            objects: [
                "$null", ["$class": .uid(2), "NS.objects": .array((0..<200).map { _ in .uid(0) })],
                ArchiveTest.classDescription("NSArray"),
            ],
            top: ["root": .uid(1)])
        let data = try archive.data(format: .binary)
        var options = KeyedUnarchivingOptions()
        options.propertyListOptions = PropertyListReadingOptions(
            maximumExpansionFactor: 0, baseValueAllowance: 100)
        let error = try #require(
            ArchiveTest.error { try KeyedUnarchiver.objectGraph(from: data, options: options) })
        #expect(error.code == .limitExceeded, "\(error)")
    }
}
