import Foundation
import KeyedArchive
import TestSupport
import Testing

/// The typedstream fixtures (`../shared/fixtures/typedstream`): each decodes, and what it
/// holds — classes, versions, encodings, values — is what pytypedstream printed for it.
@Suite("Typedstream fixtures")
struct TypedStreamFixtureTests {
    static let folder = Fixtures.root.appendingPathComponent("typedstream")

    static let names: [String] = {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return files.filter { $0.hasSuffix(".typedstream") }.map { String($0.dropLast(".typedstream".count)) }
            .sorted()
    }()

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name + ".typedstream"))
    }

    static func reference(_ name: String) -> String? {
        try? String(contentsOf: folder.appendingPathComponent(name + ".decoded.txt"), encoding: .utf8)
    }

    @Test(
        "the fixtures are present", .enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
    func present() {
        #expect(Self.names.count == 70)
    }

    /// `crabstep_ExtraData` is not a well-formed stream: its NSString claims 157 bytes of
    /// text (the run after it says 157 characters too) but holds 17 before the object ends,
    /// so reading it fails where the string runs past the end, as pytypedstream's does.
    static let truncated = "crabstep_ExtraData"

    @Test("the truncated string of crabstep_ExtraData is reported where it is")
    func truncatedString() throws {
        guard Self.names.contains(Self.truncated) else { return }
        #expect {
            try TypedStreamUnarchiver.objectGraph(from: try Self.data(Self.truncated))
        } throws: { error in
            guard let error = error as? KeyedArchiveError else { return false }
            return error.code == .corruptData && error.location == .byteOffset(121)
                && error.message.contains("157 bytes")
        }
    }

    @Test("every fixture matches its pytypedstream dump", arguments: names.filter { $0 != truncated })
    func matchesReference(_ name: String) throws {
        let data = try Self.data(name)
        #expect(TypedStreamUnarchiver.isTypedStream(data))
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        guard let reference = Self.reference(name) else {
            // The two files pytypedstream cannot read.
            #expect(name == "crabstep_foundation_NumberInt64", "\(name)")
            return
        }
        let ours = PyTypedStreamDump(graph: graph).render().split(
            separator: "\n", omittingEmptySubsequences: false)
        let theirs = reference.trimmingCharacters(in: .newlines).split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(ours.count == theirs.count, "\(name): \(ours.count) lines, reference \(theirs.count)")
        for (line, (mine, expected)) in zip(ours, theirs).enumerated() where mine != expected {
            Issue.record("\(name) line \(line + 1): \(mine)  ≠  \(expected)")
            break
        }
    }

    @Test("every fixture decodes untyped", arguments: names.filter { $0 != truncated })
    func decodesUntyped(_ name: String) throws {
        let value = try TypedStreamUnarchiver.unarchivedObject(from: try Self.data(name))
        #expect(value != nil, "\(name)")
    }
}
