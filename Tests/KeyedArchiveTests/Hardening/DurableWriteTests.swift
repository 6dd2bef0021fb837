import Foundation
import KeyedArchive
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Durable writes: a writer killed at any moment leaves the old contents or the new.
@Suite("Hardening: durable writes")
struct DurableWriteTests {
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("durable-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// What the probe writes as version `generation` (see Tests/HardeningProbe/main.swift).
    static func isCompleteVersion(_ strings: [String]) -> Int? {
        guard let first = strings.first, let generation = Int(first), strings.count == 4001 else {
            return nil
        }
        let line = "generation \(generation) " + String(repeating: "x", count: 64)
        return strings.dropFirst().allSatisfy { $0 == line } ? generation : nil
    }

    /// Starts the probe rewriting one file in a loop and kills it with SIGKILL after a
    /// random delay, 30 times; after each kill the file must decode as one complete version,
    /// and versions never go backwards.
    @Test(.enabled(if: Hardening.probe != nil, "HardeningProbe was not built"))
    func killingTheWriterNeverLeavesATornFile() throws {
        let probe = try #require(Hardening.probe)
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("archive.bin")
        try KeyedArchiver.archive(
            ["0"] + Array(repeating: "generation 0 " + String(repeating: "x", count: 64), count: 4000),
            to: file)

        var killedWhileWriting = 0
        var lastGeneration = 0
        for round in 0..<30 {
            let process = Process()
            process.executableURL = probe
            process.arguments = ["write-loop", file.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 2_000...60_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { killedWhileWriting += 1 }
            try? pipe.fileHandleForReading.close()

            let data = try Data(contentsOf: file)
            let strings = try #require(
                try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, from: data), "round \(round)")
            let generation = try #require(Self.isCompleteVersion(strings), "round \(round): torn contents")
            // Each run starts again at generation 1, so compare only within the rule "complete".
            lastGeneration = generation
        }
        #expect(killedWhileWriting >= 25, "only \(killedWhileWriting) of 30 writers were killed")
        #expect(lastGeneration >= 0)
        // Left-over temporary files are hidden (".archive.bin.tmp-…") and never the destination.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.filter { !$0.hasPrefix(".") } == ["archive.bin"])
    }

    @Test func conveniencesWriteWholeFilesAndLeaveNoTemporaryFiles() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let archiveURL = folder.appendingPathComponent("creature.archive")
        try KeyedArchiver.archive(Creature(name: "Potato Bug", legs: 6), to: archiveURL)
        let creature = try KeyedUnarchiver.unarchivedObject(
            ofClass: Creature.self, from: Data(contentsOf: archiveURL))
        #expect(creature?.name == "Potato Bug")
        #expect(creature?.legs == 6)

        let plistURL = folder.appendingPathComponent("settings.plist")
        let settings: PropertyList = ["Volume": 11, "Name": "Potato"]
        try settings.write(to: plistURL, format: .xml)
        #expect(try PropertyList(from: Data(contentsOf: plistURL)) == settings)
        try PropertyList.string("replaced").write(to: plistURL)
        #expect(try PropertyList(from: Data(contentsOf: plistURL)) == "replaced")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "creature.archive", "settings.plist",
            ])
    }

    @Test func aWriteThatCannotHappenThrowsAndLeavesTheFile() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file.plist")
        let error = #expect(throws: KeyedArchiveError.self) {
            try PropertyList.string("x").write(to: missing)
        }
        #expect(error?.code == .fileOperationFailed)
        #expect(error?.message.contains(missing.deletingLastPathComponent().path) == true)
        // An encoding failure happens before the file is touched.
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("kept.archive")
        try KeyedArchiver.archive("kept", to: url)
        #expect(throws: KeyedArchiveError.self) { try KeyedArchiver.archive(Insecure(value: 1), to: url) }
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: String.self, from: Data(contentsOf: url)) == "kept")
    }
}
