import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// `decode --jsonl` of SQLite databases, made at test time with Python's `sqlite3`.
@Suite("decode --jsonl of SQLite databases")
struct SQLiteSweepTests {
    /// A folder with `chat.db` and its `-wal` (copied while the writer was open: rows 4 and
    /// 5 and the deletion of row 3 are only in the WAL), and a plain property list.
    static let folder: String? = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "SQLiteSweepTests-\(ProcessInfo.processInfo.processIdentifier)"
        ).path
        let script = """
            import os, plistlib, shutil, sqlite3, sys
            out = sys.argv[1]
            os.makedirs(out, exist_ok=True)
            work = os.path.join(out, "work.db")
            c = sqlite3.connect(work, isolation_level=None)
            c.execute("PRAGMA secure_delete = OFF")
            c.execute("PRAGMA journal_mode = WAL")
            c.execute("PRAGMA wal_autocheckpoint = 0")
            c.execute("CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT, date INTEGER, "
                      "handle_id INTEGER, payload_data BLOB, other BLOB)")
            archive = plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000,
                                      "$top": {"root": plistlib.UID(1)}, "$objects": ["$null", "hello"]},
                                     fmt=plistlib.FMT_BINARY)
            for i in range(1, 4):
                c.execute("INSERT INTO message (guid, date, handle_id, payload_data, other) VALUES (?, ?, ?, ?, ?)",
                          ("g%d" % i, 700 + i, i % 2, plistlib.dumps({"n": i}, fmt=plistlib.FMT_BINARY), b"plain"))
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for i in range(4, 6):
                c.execute("INSERT INTO message (guid, date, handle_id, payload_data, other) VALUES (?, ?, ?, ?, ?)",
                          ("g%d" % i, 700 + i, i % 2, archive, plistlib.dumps([i])))
            c.execute("DELETE FROM message WHERE ROWID = 3")
            shutil.copyfile(work, os.path.join(out, "chat.db"))
            shutil.copyfile(work + "-wal", os.path.join(out, "chat.db-wal"))
            c.close()
            os.remove(work)
            with open(os.path.join(out, "notes.plist"), "wb") as f:
                f.write(plistlib.dumps({"a": 1}))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, folder]
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? folder : nil
    }()

    static func lines(_ arguments: [String]) throws -> (Int32, [PropertyList]) {
        let run = ToolRun(arguments)
        return (run.status, try run.outputLines.map { try JSONValueReader.read($0) })
    }

    @Test("a folder: one line per archive BLOB, the WAL applied and not reported as a file")
    func sweep() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let (status, lines) = try Self.lines(["decode", "--jsonl", folder])
        #expect(status == 0)
        let paths = lines.compactMap { $0["path"]?.stringValue }
        #expect(!paths.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") })
        let database = lines.filter { $0["path"]?.stringValue == folder + "/chat.db" }
        let keys = database.map { line in
            var rowid = "?"
            if case .integer(let number) = line["rowid"] { rowid = "\(number)" }
            return "\(line["column"]?.stringValue ?? "?") \(rowid) \(line["kind"]?.stringValue ?? "?")"
        }
        #expect(
            keys == [
                "payload_data 1 property list", "payload_data 2 property list",
                "payload_data 4 keyed archive",
                "other 4 property list", "payload_data 5 keyed archive", "other 5 property list",
            ], "\(keys)")
        #expect(
            database.allSatisfy {
                $0["origin"]?.stringValue == "live" && $0["table"]?.stringValue == "message"
            })
        #expect(paths.contains(folder + "/notes.plist"))
    }

    @Test("--columns adds the row's other columns")
    func columns() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let (status, lines) = try Self.lines([
            "decode", "--jsonl", "--columns", "date, handle_id", folder + "/chat.db",
        ])
        #expect(status == 0)
        #expect(lines.first?["columns"] == ["date": 701, "handle_id": 1])
    }

    @Test("--recover adds the deleted row, once")
    func recover() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        // Recovered lines carry nulls (their table may be unknown): read as text.
        let lines = ToolRun(["decode", "--jsonl", "--recover", folder + "/chat.db"]).outputLines
        let recovered = lines.filter { !$0.contains(#""origin":"live""#) }
        #expect(recovered.filter { $0.contains(#""result":{"n":3}"#) }.count == 1, "\(recovered)")
        #expect(recovered.allSatisfy { $0.contains(#""page":"#) && $0.contains(#""offset":"#) })
    }
}
