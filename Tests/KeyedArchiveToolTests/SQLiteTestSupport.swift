import Foundation
import KeyedArchive

@testable import KeyedArchiveTool

/// What the SQLite tests of the tool share: databases made at test time by a Python script
/// (Python's `sqlite3` is the reference), and `decode --jsonl` lines read as JSON.
enum SQLiteTestSupport {
    /// A new temporary folder for `name` (one per test process), in which `prepare` may put
    /// files, then `script` is run as `python3 -c SCRIPT FOLDER`.
    ///
    /// - Returns: The folder, or nil when it cannot be made, `prepare` fails, python3 is
    ///   missing or the script fails (tests then fail with `#require`, saying so).
    static func folder(named name: String, script: String, prepare: (String) -> Bool = { _ in true })
        -> String?
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(name)-\(ProcessInfo.processInfo.processIdentifier)"
        ).path
        guard
            (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true))
                != nil,
            prepare(folder)
        else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, folder]
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? folder : nil
    }

    /// The exit status and output lines, each read as JSON, of the tool run with `arguments`.
    static func lines(_ arguments: [String]) throws -> (Int32, [PropertyList]) {
        let run = ToolRun(arguments)
        return (run.status, try run.outputLines.map { try JSONValueReader.read($0) })
    }
}
