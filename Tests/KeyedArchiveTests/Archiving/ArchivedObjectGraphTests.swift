import Foundation
import KeyedArchive
import Testing

@Suite("Generic archived object graphs")
struct ArchivedObjectGraphTests {
    /// The earlier top-level names still work, deprecated, for one release.
    @available(*, deprecated, message: "uses the deprecated names on purpose")
    @Test func earlierNamesStillWork() {
        let earlier: ArchivedClass = ArchivedClass(name: "A", classes: ["A", "NSObject"])
        #expect(earlier.name == "A" && earlier.classes == ["A", "NSObject"] && earlier.hints.isEmpty)
        let value: ArchivedValue = .reference(3)
        let field = ArchivedField(key: "k", value: value)
        let object = ArchivedObject(className: "A", classChain: ["A", "NSObject"], fields: [field])
        let node: ArchivedNode = .object(object)
        #expect(node.references == [3])
    }

    /// An archive of classes no Swift type knows: a list holding one object twice and a
    /// node that refers to itself.
    static let unknownClasses = ArchiveTest.archivePlist(
        objects: [
            "$null",
            ["$class": .uid(2), "NS.objects": [.uid(3), .uid(3), .uid(5)]],
            ArchiveTest.classDescription("NSArray"),
            ["$class": .uid(4), "name": .uid(6), "count": 3, "$$dollar": true, "$0": .uid(0)],
            ArchiveTest.classDescription("Acme.Widget", ["Acme.Widget", "Acme.Base", "NSObject"]),
            ["$class": .uid(7), "me": .uid(5), "blob": .data(Data([1, 2]))],
            "gear",
            ["$classname": "Acme.Loop", "$classes": ["Acme.Loop", "NSObject"], "$classhints": ["Loop"]],
        ], top: ["root": .uid(1), "version": 2])

    @Test func graphHasClassesFieldsSharingAndCycles() throws {
        let graph = try KeyedUnarchiver.objectGraph(from: Self.unknownClasses)
        #expect(graph.nodes.count == 8)
        #expect(graph.root == .reference(1))
        #expect(graph.topLevelValue(forKey: "version") == .integer(2))
        #expect(graph[0] == .null)
        let widget = try #require(graph.object(at: 3))
        #expect(widget.className == "Acme.Widget")
        #expect(widget.classChain == ["Acme.Widget", "Acme.Base", "NSObject"])
        #expect(widget["name"] == .reference(6))
        #expect(widget["count"] == .integer(3))
        #expect(widget["$dollar"] == .bool(true))  // unescaped
        #expect(widget["$0"] == .null)
        #expect(graph[6] == .value(.string("gear")))
        #expect(graph.isShared(3) && graph.referenceCount(of: 3) == 2)
        #expect(!graph.isShared(6))
        #expect(graph.isOnCycle(5) && !graph.isOnCycle(3) && !graph.isOnCycle(1))
        #expect(graph.object(at: 5)?.classHints == ["Loop"])
        #expect(
            graph[7]
                == .classDescription(
                    ArchivedObjectGraph.ClassDescription(
                        className: "Acme.Loop", classChain: ["Acme.Loop", "NSObject"], classHints: ["Loop"])))
        #expect(graph[99] == nil)
        #expect(graph.nodes[1].references == [3, 3, 5])
        let text = graph.description
        #expect(text.contains("#3 (shared ×2) Acme.Widget"))
        #expect(text.contains("#5 (shared ×2) (cycle) Acme.Loop"))
        #expect(text.contains("root = #1"))
    }

    @Test func unknownClassesDecodeGenericallyWhenAsked() throws {
        var options = KeyedUnarchivingOptions()
        let strict = try KeyedUnarchiver(propertyList: Self.unknownClasses, options: options)
        strict.requiresSecureCoding = false
        #expect(ArchiveTest.error { try strict.decodeObject(forKey: "root") }?.code == .classNotFound)
        options.decodesUnknownClassesGenerically = true
        let unarchiver = try KeyedUnarchiver(propertyList: Self.unknownClasses, options: options)
        let list = try #require(try unarchiver.decodeObject(of: [], forKey: "root") as? [Any])
        #expect(list.count == 3)
        let first = try #require(list[0] as? ArchivedObjectGraph)
        let second = try #require(list[1] as? ArchivedObjectGraph)
        #expect(first == second)  // the shared object is one node
        #expect(first.root == .reference(3))
        let widget = try #require(first.root?.referenceValue.flatMap(first.object(at:)))
        #expect(widget.className == "Acme.Widget")
        let loop = try #require(list[2] as? ArchivedObjectGraph)
        #expect(loop.root.flatMap(\.referenceValue).map(loop.isOnCycle) == true)
    }

    @Test func graphRejectsMalformedObjects() throws {
        let cases: [(String, [PropertyList], PropertyListDictionary)] = [
            ("no $class", ["$null", ["title": .uid(0)]], ["root": .uid(1)]),
            ("$class to a string", ["$null", ["$class": .uid(2)], "blam"], ["root": .uid(1)]),
            ("$class to an object", ["$null", ["$class": .uid(1)]], ["root": .uid(1)]),
            ("$classname missing", ["$null", ["$class": .uid(2)], ["$class_name": "x"]], ["root": .uid(1)]),
            (
                "reference out of range",
                ["$null", ["$class": .uid(2), "x": .uid(7)], ArchiveTest.classDescription("X")], [:]
            ),
            ("top reference out of range", ["$null"], ["root": .uid(10)]),
        ]
        for (name, objects, top) in cases {
            let error = ArchiveTest.error {
                try KeyedUnarchiver.objectGraph(from: ArchiveTest.archivePlist(objects: objects, top: top))
            }
            #expect(error?.code == .invalidArchive, "\(name)")
        }
    }

    @Test func deepChainsBuildWithoutRecursion() throws {
        // 100,000 objects each referring to the next: the graph is built iteratively.
        var objects: [PropertyList] = ["$null", ArchiveTest.classDescription("Link")]
        let count = 100_000
        for index in 0..<count {
            let next: PropertyList = index == count - 1 ? .uid(2) : .uid(UInt64(objects.count + 1))
            objects.append(["$class": .uid(1), "next": next])
        }
        let graph = try KeyedUnarchiver.objectGraph(
            from: ArchiveTest.archivePlist(objects: objects, top: ["root": .uid(2)]))
        #expect(graph.nodes.count == count + 2)
        #expect(graph.isOnCycle(2) && graph.isOnCycle(count + 1))
        #expect(graph.description.split(separator: "\n").count == count + 1)
    }
}
