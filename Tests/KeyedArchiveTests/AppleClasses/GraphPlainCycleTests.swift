import Foundation
import Testing

@testable import KeyedArchive

/// A summary re-encodes part of a graph as an archive of its own. Plain `$objects` entries
/// (arrays, dictionaries, bare references) that refer to each other must neither recurse
/// without end (a cycle) nor be written once per path to them (a chain of shared entries).
@Suite struct GraphPlainCycleTests {
    /// An attributed string whose `NSString` is `$objects[2]`, an entry that is a bare
    /// reference to itself; `NSAttributes` is a real dictionary of a font and a colour.
    /// Found by the Python package's fuzz loop, where it crashed the interpreter.
    static func attributedString(string: PropertyList, extra: [PropertyList]) -> Data? {
        var objects: [PropertyList] = [
            "$null",
            ["NSString": .uid(2), "NSAttributes": .uid(3), "$class": .uid(4)],
            string,
            ["NS.keys": [], "NS.objects": [], "$class": .uid(5)],
            ["$classname": "NSAttributedString", "$classes": ["NSAttributedString", "NSObject"]],
            ["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]],
        ]
        objects += extra
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": .array(objects),
        ]
        return try? archive.data(format: .binary)
    }

    @Test func aPlainEntryReferringToItselfIsNoSummary() throws {
        let data = try #require(Self.attributedString(string: .uid(2), extra: []))
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        #expect(graph.summary(ofObjectAt: 1) == nil)
        // Writing the graph back is a copy of the plain entries, cycle and all.
        #expect(try PropertyList(from: graph.archivedData()) == PropertyList(from: data))
    }

    @Test func aPlainCycleThroughSeveralEntriesIsNoSummary() throws {
        // 2 → [6] → [7] → [2]
        let data = try #require(Self.attributedString(string: [.uid(6)], extra: [[.uid(7)], [.uid(2)]]))
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        #expect(graph.summary(ofObjectAt: 1) == nil)
    }

    @Test func sharedPlainEntriesAreWrittenOnce() throws {
        // 2 → [6, 6], 6 → [7, 7], … 64 levels deep: 2⁶⁴ paths, 64 entries.
        let depth = 64
        var extra: [PropertyList] = []
        for level in 0..<depth {
            let next = PropertyList.uid(UInt64(7 + level))
            extra.append(level == depth - 1 ? ["leaf", "leaf"] : [next, next])
        }
        let data = try #require(Self.attributedString(string: [.uid(6), .uid(6)], extra: extra))
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        // Not a string: no summary, and it returns at once rather than after 2⁶⁴ steps.
        #expect(graph.summary(ofObjectAt: 1) == nil)
    }
}
