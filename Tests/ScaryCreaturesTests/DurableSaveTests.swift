import Foundation
import KeyedArchive
import Testing

@testable import scary_creatures

@Suite struct DurableSaveTests {
    /// The built `scary-creatures` binary beside the test bundle, if it was built.
    static var executable: URL? {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [
            folder, folder.deletingLastPathComponent(),
            folder.deletingLastPathComponent().deletingLastPathComponent(),
        ] {
            let url = candidate.appendingPathComponent("scary-creatures")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// Kills the real binary at random moments while it renames a creature, again and
    /// again: Data.plist must always hold the old title or the new one, never a torn file.
    @Test(.enabled(if: executable != nil, "scary-creatures was not built: run swift build first"))
    func killingTheProcessMidSaveNeverTearsDataPlist() throws {
        let executable = try #require(Self.executable)
        let temporary = try TemporaryDatabase()
        try temporary.add(String(repeating: "Old ", count: 2000), rating: 2)
        let dataFile = temporary.root.appendingPathComponent("PrivateDocuments/1.scarycreature/Data.plist")
        var killedMidway = 0
        for round in 0..<40 {
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                "--database", temporary.root.path, "rename", "1",
                "Title \(round) " + String(repeating: "x", count: 20000),
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...20_000))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedMidway += 1
            }
            process.waitUntilExit()
            let doc = ScaryCreatureDoc(docPath: dataFile.deletingLastPathComponent())
            let title = try doc.data().title
            #expect(title.hasPrefix("Old") || title.hasPrefix("Title"), "round \(round)")
        }
        // Left-over temporary files are hidden and ignored, never a creature.
        #expect(try temporary.numbers() == [1])
        print("durable save: \(killedMidway) of 40 writers killed while running")
    }
}
