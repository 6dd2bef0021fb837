import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// `decode` shows the shapes Swift's collections cannot hold as they are stored, and
/// agrees with the library's untyped decoding about what they contain.
@Suite struct DecodeShapesTests {
    static func archive(_ objects: [PropertyList]) throws -> Data {
        let plist: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": .array(objects),
        ]
        return try plist.data(format: .binary)
    }

    static func classDescription(_ name: String) -> PropertyList {
        ["$classname": .string(name), "$classes": [.string(name), "NSObject"]]
    }

    static func json(_ data: Data) throws -> [String: Any] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = ToolRun(["decode", "--json", try directory.write(data, to: "shape.archive")])
        #expect(run.status == 0, "\(run.error)")
        return try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
    }

    @Test func aSetOfArrays() throws {
        let data = try Self.archive([
            "$null", ["$class": .uid(2), "NS.objects": [.uid(3), .uid(5)]], Self.classDescription("NSSet"),
            ["$class": .uid(4), "NS.objects": [.uid(6)]], Self.classDescription("NSArray"),
            ["$class": .uid(4), "NS.objects": [.uid(6), .uid(6)]], "a",
        ])
        let root = try #require(try Self.json(data)["root"] as? [String: Any])
        #expect(root["$class"] as? String == "NSSet")
        let elements = try #require(root["NS.objects"] as? [[String: Any]])
        let shown = elements.map { $0["NS.objects"] as? [String] ?? [] }
        #expect(shown == [["a"], ["a", "a"]])
        // The library's untyped decoding holds the same elements, in the same order.
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        let collection = try #require(try unarchiver.decodeObject(forKey: "root") as? ArchivedCollection)
        #expect(collection.elements.map { $0 as? [String] ?? [] } == shown)
    }

    @Test func anArrayThatContainsItself() throws {
        let data = try Self.archive([
            "$null", ["$class": .uid(2), "NS.objects": [.uid(1), .uid(3)]],
            Self.classDescription("NSMutableArray"),
            "tail",
        ])
        let root = try #require(try Self.json(data)["root"] as? [String: Any])
        #expect(root["$uid"] as? Int == 1)
        let elements = try #require(root["NS.objects"] as? [Any])
        #expect(elements.first as? [String: Int] == ["$ref": 1])
        #expect(elements.last as? String == "tail")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        let graph = try #require(try unarchiver.decodeObject(forKey: "root") as? ArchivedObjectGraph)
        #expect(graph == (try KeyedUnarchiver.objectGraph(from: data)))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outline = ToolRun(["decode", try directory.write(data, to: "cycle.archive")])
        #expect(outline.status == 0)
        #expect(
            outline.outputText.contains("[0]: → #1 NSMutableArray (cycle, see above)"),
            "\(outline.outputText)")
    }

    @Test func aDictionaryKeyedByAnArray() throws {
        let data = try Self.archive([
            "$null", ["$class": .uid(2), "NS.keys": [.uid(3)], "NS.objects": [.uid(5)]],
            Self.classDescription("NSDictionary"),
            ["$class": .uid(4), "NS.objects": [.uid(5)]], Self.classDescription("NSArray"), "v",
        ])
        let root = try #require(try Self.json(data)["root"] as? [String: Any])
        let keys = try #require(root["NS.keys"] as? [[String: Any]])
        #expect(keys.first?["NS.objects"] as? [String] == ["v"])
        #expect(root["NS.objects"] as? [String] == ["v"])
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        let collection = try #require(try unarchiver.decodeObject(forKey: "root") as? ArchivedCollection)
        #expect(collection.keys.first as? [String] == ["v"])
        #expect(collection.values.first as? String == "v")
    }

    @Test func aPlainValueSharedByManyReferencesIsPrintedOnce() throws {
        // $objects = [$null, [7] × 10,000, [UID 1] × 10,000], root UID 2: printing the
        // array of 7s at every reference made 1.4 GB of text from 20 KB.
        let sevens = PropertyList.array(Array(repeating: 7, count: 10_000))
        let references = PropertyList.array(Array(repeating: .uid(1), count: 10_000))
        let plist: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(2)],
            "$objects": ["$null", sevens, references],
        ]
        let data = try plist.data(format: .binary)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: "shared.archive")
        let outline = ToolRun(["decode", path])
        #expect(outline.status == 0)
        #expect(outline.output.count < 40 * data.count, "\(outline.output.count) bytes from \(data.count)")
        #expect(outline.outputText.contains("[0]: #1 (shared ×10000): ["))
        #expect(outline.outputText.contains("[9999]: → #1 (array) (shared, see above)"))
        let json = ToolRun(["decode", "--json", path])
        #expect(json.status == 0)
        #expect(json.output.count < 40 * data.count, "\(json.output.count) bytes from \(data.count)")
        let root = try #require(try JSONSerialization.jsonObject(with: json.output) as? [String: Any])
        let elements = try #require((root["root"] as? [String: Any])?["$value"] as? [[String: Any]])
        #expect(elements.count == 10_000)
        #expect((elements.first?["$value"] as? [Int])?.count == 10_000)
        #expect(elements.last as? [String: Int] == ["$ref": 1])
    }

    @Test func aLongStringSharedByManyReferencesIsPrintedOnce() throws {
        let long = String(repeating: "x", count: 1000)
        let plist: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(2), "NS.objects": .array(Array(repeating: .uid(3), count: 5000))],
                ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]], .string(long),
            ],
        ]
        let data = try plist.data(format: .binary)
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        #expect(graph.isRenderedOnce(3))
        #expect(graph.outline().utf8.count < 40 * data.count)
        let short = try KeyedUnarchiver.objectGraph(
            from: Self.archive([
                "$null", ["$class": .uid(2), "NS.objects": [.uid(3), .uid(3)]],
                ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]], "short",
            ]))
        #expect(!short.isRenderedOnce(3))
    }

    @Test func anEmptyArchiveSaysSo() throws {
        let data = KeyedArchiver().encodedData
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: "empty.archive")
        let outline = ToolRun(["decode", path])
        #expect(outline.status == 0)
        #expect(outline.outputText == "(empty archive: $top has no keys)\n")
        let json = ToolRun(["decode", "--json", path])
        #expect(json.outputText == "{}\n")
    }
}
