import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

/// A generic graph read from any archive writes back an archive equal to the original as
/// a property list, and editing one field changes only that field.
@Suite struct GraphRoundTripTests {
    static var archiveNames: [String] {
        guard Fixtures.isAvailable else { return [] }
        let folder = Fixtures.root.appendingPathComponent(AppleFixture.folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasSuffix(".json") }.sorted()
    }

    @Test func everyAppleFixtureWritesBackEqual() throws {
        let names = Self.archiveNames
        guard !names.isEmpty else { return }
        var checked = 0
        for name in names {
            guard let data = try AppleFixture.data(name) else { continue }
            let original = try PropertyList(from: data)
            let graph = try KeyedUnarchiver.objectGraph(from: data)
            #expect(graph.archivePropertyList() == original, "\(name)")
            let written = try graph.archivedData()
            #expect(try PropertyList(from: written) == original, "\(name)")
            // Field order inside an object may differ (dictionaries are unordered); the rest may not.
            let reread = try KeyedUnarchiver.objectGraph(from: written)
            #expect(reread.nodes.count == graph.nodes.count && reread.root == graph.root, "\(name)")
            checked += 1
        }
        #expect(checked == names.count)
        #expect(checked >= 70)
    }

    @Test func editingOneFieldChangesOnlyIt() throws {
        let name = "wild_Flycut_English.lproj_MainMenu.nib_keyedobjects.nib"
        guard let data = try AppleFixture.data(name) else { return }
        let original = try PropertyList(from: data)
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        let uid = try #require(AppleFixture.objects(ofClass: "NSFont", in: original).first)
        let edited = try graph.settingField("NSSize", to: .real(42), inObjectAt: uid)
        let patched = try PropertyList(from: try edited.archivedData())
        let before = try #require(original["$objects"]?.arrayValue)
        let after = try #require(patched["$objects"]?.arrayValue)
        #expect(before.count == after.count)
        let changed = before.indices.filter { before[$0] != after[$0] }
        #expect(changed == [uid])
        #expect(after[uid]["NSSize"] == .real(42))
        #expect(after[uid]["NSName"] == before[uid]["NSName"])
        #expect(patched["$top"] == original["$top"])
        // The patched font decodes as a typed value with the new size.
        let font = try AppleFixture.decode(ArchivedFont.self, at: uid, in: patched)
        #expect(font.size == 42)
        #expect(throws: KeyedArchiveError.self) {
            try graph.settingField("x", to: .reference(999_999), inObjectAt: uid)
        }
        #expect(throws: KeyedArchiveError.self) { try graph.settingField("x", to: .null, inObjectAt: 0) }
    }

    @Test func unknownAttributeValuesAreKeptAndWrittenBack() throws {
        // An attribute of a class the catalogue does not know is kept as its graph.
        final class Marker: SecureKeyedCoding {
            static var archivedClassName: String { "MyMarker" }
            let note: String
            init(note: String) { self.note = note }
            func encode(with coder: KeyedArchiver) { coder.encode(note, forKey: "note") }
            init(coder: KeyedUnarchiver) throws {
                note = try coder.decodeObject(of: String.self, forKey: "note") ?? ""
            }
        }
        struct Holder: SecureKeyedCoding {
            static var archivedClassName: String { "NSAttributedString" }
            func encode(with coder: KeyedArchiver) {
                coder.encode("hi", forKey: "NSString")
                coder.encode(["MyKey": Marker(note: "kept")] as [String: Marker], forKey: "NSAttributes")
            }
            init() {}
            init(coder: KeyedUnarchiver) throws {}
        }
        let data = try KeyedArchiver.archivedData(withRootObject: Holder(), requiringSecureCoding: true)
        let text = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data))
        guard case .object(let graph)? = text.runs.first?.attributes["MyKey"],
            case .reference(let uid)? = graph.root, let object = graph.object(at: uid)
        else {
            Issue.record("MyKey is \(String(describing: text.runs.first?.attributes["MyKey"]))")
            return
        }
        #expect(object.className == "MyMarker")
        let written = try KeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: true)
        let tree = try AppleFixture.rootTree(written)
        #expect(tree["NSAttributes"]?["NS.objects"]?[0]?["note"] == "kept")
        #expect(tree["NSAttributes"]?["NS.objects"]?[0]?["$class"] == .array(["MyMarker", "NSObject"]))
    }
}

/// Summaries of known classes, and their bound.
@Suite struct GraphSummaryTests {
    @Test func summariesOfFixtureObjects() throws {
        let name = "wild_Flycut_English.lproj_MainMenu.nib_keyedobjects.nib"
        guard let data = try AppleFixture.data(name) else { return }
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        let summaries = graph.nodes.indices.compactMap { graph.summary(ofObjectAt: $0) }
        #expect(summaries.contains { $0.className == "NSFont" && $0.text == ".AppleSystemUIFont 13 pt" })
        #expect(summaries.contains { $0.className == "NSColor" && $0.text == "catalog System textColor" })
        #expect(summaries.contains { $0.className == "NSDecimalNumberPlaceholder" && $0.text == "NaN" })
        #expect(graph.summary(ofObjectAt: -1) == nil)
        #expect(graph.summary(ofObjectAt: 1) == nil)  // NSIBObjectData: not in the catalogue
    }

    @Test func anObjectReachingTooMuchHasNoSummary() throws {
        // An attribute holding a long chain of unknown objects.
        final class Link: SecureKeyedCoding {
            static var archivedClassName: String { "ChainLink" }
            let next: Link?
            init(next: Link?) { self.next = next }
            func encode(with coder: KeyedArchiver) { coder.encode(next, forKey: "next") }
            init(coder: KeyedUnarchiver) throws { next = nil }
        }
        var chain: Link? = nil
        for _ in 0..<300 { chain = Link(next: chain) }
        struct Holder: SecureKeyedCoding {
            static var archivedClassName: String { "NSAttributedString" }
            let chain: Link?
            func encode(with coder: KeyedArchiver) {
                coder.encode("hi", forKey: "NSString")
                coder.encode(chain.map { ["Chain": $0] }, forKey: "NSAttributes")
            }
            init(chain: Link?) { self.chain = chain }
            init(coder: KeyedUnarchiver) throws { chain = nil }
        }
        let data = try KeyedArchiver.archivedData(
            withRootObject: Holder(chain: chain), requiringSecureCoding: false)
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        guard case .reference(let root)? = graph.root else { return }
        #expect(graph.summary(ofObjectAt: root) == nil)
        let short = try KeyedArchiver.archivedData(
            withRootObject: Holder(chain: Link(next: nil)), requiringSecureCoding: false)
        let shortGraph = try KeyedUnarchiver.objectGraph(from: short)
        guard case .reference(let shortRoot)? = shortGraph.root else { return }
        #expect(shortGraph.summary(ofObjectAt: shortRoot)?.text == "\"hi\"")
    }
}
