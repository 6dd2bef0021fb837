import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// Archives built for the key-path and forensic tests.
enum ArchiveSamples {
    /// A `Folder` (`name`, `items`: an `NSArray` of four `Item`s that point back at it,
    /// `meta`: an `NSDictionary`) as `NSKeyedArchiver` lays it out.
    static func folder(archiver: String = "NSKeyedArchiver", version: PropertyList = 100_000) -> PropertyList
    {
        let titles = ["Potato Bug", "Moth", "Ant", "Snail"]
        // 1 Folder, 2 "Bugs", 3 NSArray, 4…11 items and titles, 12 NSDictionary,
        // 13 "owner", 14 "Ada", 15 "count", 16…19 classes.
        var objects: [PropertyList] = ["$null"]
        objects.append(["$class": .uid(16), "name": .uid(2), "items": .uid(3), "meta": .uid(12)])
        objects.append("Bugs")
        objects.append(["$class": .uid(18), "NS.objects": .array((0..<4).map { .uid(UInt64(4 + 2 * $0)) })])
        for (index, title) in titles.enumerated() {
            objects.append([
                "$class": .uid(17), "title": .uid(UInt64(5 + 2 * index)),
                "legs": .integer(PropertyListInteger(index * 2)),
                "folder": .uid(1),
            ])
            objects.append(.string(title))
        }
        objects.append(["$class": .uid(19), "NS.keys": [.uid(13), .uid(15)], "NS.objects": [.uid(14), 4]])
        objects.append("owner")
        objects.append("Ada")
        objects.append("count")
        for name in ["Folder", "Item", "NSArray", "NSDictionary"] {
            objects.append(["$classname": .string(name), "$classes": [.string(name), "NSObject"]])
        }
        return [
            "$archiver": .string(archiver), "$version": version, "$top": ["root": .uid(1)],
            "$objects": .array(objects),
        ]
    }

    static func binary(_ value: PropertyList) -> Data {
        (try? value.data(format: .binary)) ?? Data()
    }
}

@Suite struct ArchiveKeyPathTests {
    let graph: ArchivedObjectGraph

    init() throws {
        graph = try KeyedUnarchiver.objectGraph(from: ArchiveSamples.folder())
    }

    @Test(arguments: [
        (["root", "items", "3", "title"], ArchivedObjectGraph.Value.string("Snail")),
        (["root", "items", "0", "legs"], .integer(0)),
        (["root", "meta", "owner"], .string("Ada")),
        (["root", "meta", "count"], .integer(4)),
        (["root", "name"], .string("Bugs")),
        (["root", "items", "2", "folder", "items", "1", "title"], .string("Moth")),
        (
            ["root", "items", "NS.objects"],
            .array([.reference(4), .reference(6), .reference(8), .reference(10)])
        ),
        (["root"], .reference(1)),
    ])
    func followsReferences(path: [String], expected: ArchivedObjectGraph.Value) {
        #expect(graph.value(atKeyPath: path) == expected)
    }

    @Test(arguments: [
        ["root", "items", "4"], ["root", "items", "x"], ["root", "meta", "nobody"], ["nope"], [],
        ["root", "name", "0"], ["root", "items", "-1"],
    ])
    func missingPathsGiveNil(path: [String]) {
        #expect(graph.value(atKeyPath: path) == nil)
    }

    @Test func decodePathPrintsTheSubgraph() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(ArchiveSamples.binary(ArchiveSamples.folder()), to: "folder.archive")
        let title = ToolRun(["decode", "--path", "root.items.3.title", path])
        #expect(title.status == 0)
        #expect(title.outputText == "root.items.3.title: \"Snail\"\n")
        let item = ToolRun(["decode", "--path", "root.items.1", path])
        #expect(item.outputLines.first == "root.items.1: Item #6 (cycle)")
        #expect(item.outputText.contains("title: \"Moth\""))
        let json = ToolRun(["decode", "--json", "--path", "root.meta.owner", path])
        #expect(json.outputText == "{\n  \"root.meta.owner\": \"Ada\"\n}\n")
        let missing = ToolRun(["decode", "--path", "root.items.9", path])
        #expect(missing.status == 1)
        #expect(missing.error == "\(path): no value at key path root.items.9 of the object graph\n")
    }

    @Test func extractResolvesThroughTheArchive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(ArchiveSamples.binary(ArchiveSamples.folder()), to: "folder.archive")
        #expect(ToolRun(["-extract", "root.items.1.title", "raw", "--resolve", path]).outputText == "Moth\n")
        #expect(ToolRun(["-extract", "root.items", "raw", "--resolve", path]).outputText == "4\n")
        #expect(
            ToolRun(["-type", "root", path]).status == 1, "without --resolve the key path is the plist's")
        #expect(ToolRun(["-type", "root.items", "--resolve", path]).outputText == "array\n")
        #expect(ToolRun(["-type", "root.items.0", "--resolve", "-expect", "dictionary", path]).status == 0)
        #expect(ToolRun(["-type", "root.items.0", "--resolve", "-expect", "array", path]).status == 1)
        let meta = ToolRun(["-extract", "root.meta", "xml1", "--resolve", "-o", "-", path])
        #expect(try PropertyList(from: meta.output) == ["owner": "Ada", "count": 4])
        let item = ToolRun(["-extract", "root.items.0", "json", "--resolve", "-o", "-", path])
        let value = try JSONValueReader.read(item.outputText)
        #expect(value["$class"] == "Item")
        #expect(value["folder"]?["name"] == "Bugs")
        // A reference back to an enclosing object stays a UID: the result is finite.
        #expect(value["folder"]?["items"]?[0] == ["CF$UID": 4])
        #expect(value["folder"]?["items"]?[1]?["folder"] == ["CF$UID": 1])
        #expect(try directory.read("folder.archive") == ArchiveSamples.binary(ArchiveSamples.folder()))
    }

    @Test func sharedObjectsCannotExpandWithoutBound() throws {
        // 40 arrays, each holding the next one twice: 2^40 values if expanded naively.
        var objects: [PropertyList] = ["$null"]
        for index in 1...40 {
            objects.append([
                "$class": .uid(41), "NS.objects": [.uid(UInt64(index + 1)), .uid(UInt64(index + 1))],
            ])
        }
        objects[40] = ["$class": .uid(41), "NS.objects": ["leaf"]]
        objects.append(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": .array(objects),
        ]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(ArchiveSamples.binary(archive), to: "bomb.archive")
        let run = ToolRun(["-extract", "root", "json", "--resolve", "-o", "-", path])
        #expect(run.status == 1)
        #expect(run.error.contains("larger than the output allows"))
        #expect(run.output.isEmpty)
    }
}
