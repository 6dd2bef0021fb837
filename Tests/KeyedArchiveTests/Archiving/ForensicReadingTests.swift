import Foundation
import Testing

@testable import KeyedArchive

/// `KeyedUnarchivingOptions.recoversFromDamage`: damaged and unusual archives read as far
/// as they can be, each problem recorded with its key path.
@Suite struct ForensicReadingTests {
    static let recovering = KeyedUnarchivingOptions(recoversFromDamage: true)

    /// A `Note` with a title, a reference past `$objects` and an object whose `$class`
    /// is not a class description.
    static func damaged(archiver: String = "NSKeyedArchiver", version: PropertyList = 100_000) -> PropertyList
    {
        [
            "$archiver": .string(archiver), "$version": version, "$top": ["root": .uid(1)],
            "$objects": [
                "$null",
                ["$class": .uid(3), "title": .uid(2), "next": .uid(99), "odd": .uid(4)],
                "Damaged",
                ["$classname": "Note", "$classes": ["Note", "NSObject"]],
                ["$class": .uid(2), "x": 1],
            ],
        ]
    }

    static func binary(_ value: PropertyList) throws -> Data { try value.data(format: .binary) }

    @Test func withoutTheOptionADamagedArchiveFails() throws {
        #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver.objectGraph(from: Self.damaged()) }
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.objectGraph(from: try Self.binary(Self.damaged()))
        }
    }

    @Test(arguments: [false, true])
    func danglingReferencesBecomePlaceholders(binary: Bool) throws {
        let graph =
            binary
            ? try KeyedUnarchiver.objectGraph(from: try Self.binary(Self.damaged()), options: Self.recovering)
            : try KeyedUnarchiver.objectGraph(from: Self.damaged(), options: Self.recovering)
        let note = try #require(graph.object(at: 1))
        #expect(note.className == "Note")
        #expect(note["next"] == .reference(99))
        #expect(graph[99] == nil)
        #expect(graph.object(at: 4)?.className == "(unknown class)")
        #expect(graph.object(at: 4)?["x"] == .integer(1))
        #expect(graph.value(atKeyPath: ["root", "title"]) == .string("Damaged"))
        #expect(
            graph.problems.map(\.description) == [
                "$objects[1].next: object reference 99 is out of range (5 objects)",
                "$objects[4].$class: $class refers to $objects[2], which is NSString, not a class description",
            ])
        #expect(graph.problems.first?.location == .keyPath("$objects[1].next"))
        #expect(graph.outline().contains("next: → #99 (missing)"))
    }

    @Test(arguments: ["NRKeyedArchiver", "MyKeyedArchiver"])
    func archiverVariantsAreReadAndNoted(archiver: String) throws {
        let archive = Self.damaged(archiver: archiver, version: 99)
        #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver.objectGraph(from: archive) }
        for data in [try Self.binary(archive), try archive.data(format: .xml)] {
            let graph = try KeyedUnarchiver.objectGraph(from: data, options: Self.recovering)
            #expect(graph.object(at: 1)?.className == "Note")
            let locations = graph.problems.compactMap(\.location)
            #expect(locations.contains(.keyPath("$archiver")))
            #expect(locations.contains(.keyPath("$version")))
            #expect(graph.problems.contains { $0.message.contains(archiver) })
        }
    }

    @Test func topWithoutRootAndMissingHeaderEntries() throws {
        let archive: PropertyList = [
            "$top": ["object": .uid(1)],
            "$objects": ["$null", "only"],
        ]
        let graph = try KeyedUnarchiver.objectGraph(from: try Self.binary(archive), options: Self.recovering)
        #expect(graph.root == nil)
        #expect(graph.topLevelValue(forKey: "object") == .reference(1))
        #expect(graph.value(atKeyPath: ["object"]) == .string("only"))
        #expect(graph.problems.compactMap(\.location) == [.keyPath("$archiver"), .keyPath("$version")])
        let noTop: PropertyList = ["$archiver": "NSKeyedArchiver", "$version": 100_000, "$objects": ["x"]]
        let bare = try KeyedUnarchiver.objectGraph(from: noTop, options: Self.recovering)
        #expect(bare.topLevel.isEmpty)
        #expect(bare.problems.compactMap(\.location) == [.keyPath("$top"), .keyPath("$objects[0]")])
    }

    @Test func aCleanArchiveHasNoProblems() throws {
        let archive = Self.damaged()
        guard case .dictionary(var root) = archive, case .array(var objects)? = root["$objects"] else {
            return
        }
        objects[1] = ["$class": .uid(3), "title": .uid(2)]
        objects[4] = "x"
        root["$objects"] = .array(objects)
        let graph = try KeyedUnarchiver.objectGraph(from: .dictionary(root), options: Self.recovering)
        #expect(graph.problems.isEmpty)
    }

    @Test func problemsAreBounded() throws {
        // 20,001 dangling references: the first 10,000 are listed, then a count.
        let references = (0...20_000).map { _ in PropertyList.uid(1_000_000) }
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(2), "NS.objects": .array(references)], ["$classname": "NSArray"],
            ],
        ]
        let graph = try KeyedUnarchiver.objectGraph(from: try Self.binary(archive), options: Self.recovering)
        #expect(graph.problems.count == 10_001)
        #expect(graph.problems.last?.message == "10001 more problems not listed")
    }

    @Test func anOutOfRangeClassIsNoted() throws {
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": ["$null", ["$class": .uid(40), "a": 1], ["b": 2]],
        ]
        let graph = try KeyedUnarchiver.objectGraph(from: archive, options: Self.recovering)
        #expect(graph.object(at: 1)?.className == "(unknown class)")
        #expect(graph[2] == .value(.dictionary([ArchivedObjectGraph.Field(key: "b", value: .integer(2))])))
        #expect(
            graph.problems.compactMap(\.location) == [
                .keyPath("$objects[1].$class"), .keyPath("$objects[2]"),
            ])
    }
}
