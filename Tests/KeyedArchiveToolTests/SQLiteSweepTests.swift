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
        return SQLiteTestSupport.folder(named: "SQLiteSweepTests", script: script)
    }()

    static func lines(_ arguments: [String]) throws -> (Int32, [PropertyList]) {
        try SQLiteTestSupport.lines(arguments)
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

    /// `prefs.db` (UTF-8) and `prefs16.db` (UTF-16le): property lists stored as TEXT, as
    /// apps store them — XML (some after white space), Base64 of a binary property list
    /// (on one line, and wrapped at 76 columns as `base64` writes it), Base64 of XML — and
    /// TEXT that is none (in `dbs`); `expected.json` holds what `plistlib` reads of each.
    static let textFolder: String? = SQLiteTestSupport.folder(
        named: "SQLiteTextTests",
        script: """
            import base64, json, os, plistlib, sqlite3, sys
            out = sys.argv[1]
            expected = []
            for name, encoding in (("prefs.db", "UTF-8"), ("prefs16.db", "UTF-16le")):
                os.makedirs(os.path.join(out, "dbs"), exist_ok=True)
                c = sqlite3.connect(os.path.join(out, "dbs", name))
                c.execute("PRAGMA encoding = '%s'" % encoding)
                c.execute("CREATE TABLE prefs (id INTEGER PRIMARY KEY, value TEXT, note TEXT)")
                values = [
                    {"name": "Ada", "count": 3, "on": True, "list": [1, 2.5, "x"]},
                    ["a", {"b": False}],
                    {"deep": {"er": ["é", "ü", "中"]}},
                    {"base64": "wrapped", "items": list(range(40))},
                ]
                texts = [
                    plistlib.dumps(values[0]).decode(),
                    "  \\n" + plistlib.dumps(values[1]).decode(),
                    base64.b64encode(plistlib.dumps(values[2], fmt=plistlib.FMT_BINARY)).decode(),
                    base64.encodebytes(plistlib.dumps(values[3], fmt=plistlib.FMT_BINARY)).decode(),
                ]
                for rowid, (value, text) in enumerate(zip(values, texts), start=1):
                    c.execute("INSERT INTO prefs VALUES (?, ?, ?)", (rowid, text, "a note, not <plist>"))
                    storage = "base64" if not text.lstrip().startswith("<") else "text"
                    expected.append({"path": name, "rowid": rowid, "storage": storage, "result": value})
                c.execute("INSERT INTO prefs VALUES (5, 'plain text', 'bplist is a word here')")
                c.commit()
                c.close()
            with open(os.path.join(out, "expected.json"), "w") as f:
                json.dump(expected, f)
            """)

    @Test("property lists stored as TEXT (XML, Base64), UTF-8 and UTF-16, as plistlib reads them")
    func textColumns() throws {
        let folder = try #require(Self.textFolder, "python3 could not make the databases")
        let expected = try JSONValueReader.read(
            String(
                decoding: try Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json")), as: UTF8.self
            ))
        let (status, lines) = try Self.lines(["decode", "--jsonl", folder + "/dbs"])
        #expect(status == 0)
        // The notes and the plain text give no line.
        let found = lines.filter { $0["storage"] != nil }
        #expect(found.count == 8 && lines.count == 8, "\(lines)")
        for line in found {
            let path = line["path"]?.stringValue ?? ""
            let rowid = line["rowid"]
            let match = expected.arrayValue?.first {
                path.hasSuffix("/" + ($0["path"]?.stringValue ?? "?")) && $0["rowid"] == rowid
            }
            #expect(line["column"]?.stringValue == "value")
            #expect(line["storage"] == match?["storage"], "\(line)")
            #expect(line["kind"]?.stringValue == "property list")
            #expect(line["result"] == match?["result"], "\(line)")
        }
    }

    @Test("a BLOB line has no storage member; TEXT is never read without a property list in it")
    func blobsHaveNoStorage() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let (_, lines) = try Self.lines(["decode", "--jsonl", folder + "/chat.db"])
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0["storage"] == nil })
    }

    /// `damaged.db`: one BLOB holding a keyed archive whose object refers to a missing
    /// object, next to a good one.
    static let damagedFolder: String? = SQLiteTestSupport.folder(
        named: "SQLiteDamagedArchiveTests",
        script: """
            import os, plistlib, sqlite3, sys
            def archive(target):
                return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000,
                    "$top": {"root": plistlib.UID(1)},
                    "$objects": ["$null", {"$class": plistlib.UID(2), "title": plistlib.UID(3),
                                           "items": [plistlib.UID(3), plistlib.UID(target)]},
                                 {"$classname": "Note", "$classes": ["Note", "NSObject"]}, "hello"]},
                    fmt=plistlib.FMT_BINARY)
            c = sqlite3.connect(os.path.join(sys.argv[1], "damaged.db"))
            c.execute("CREATE TABLE notes (ROWID INTEGER PRIMARY KEY, body BLOB)")
            c.execute("INSERT INTO notes VALUES (1, ?)", (archive(3),))
            c.execute("INSERT INTO notes VALUES (2, ?)", (archive(9),))
            c.commit()
            c.close()
            """)

    @Test("a damaged archive in a BLOB: its line says what is wrong and where; --recover lists it")
    func damagedArchiveSaysWhere() throws {
        let folder = try #require(Self.damagedFolder, "python3 could not make the database")
        let (status, lines) = try Self.lines(["decode", "--jsonl", folder + "/damaged.db"])
        #expect(status == 1)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?["result"]?["root"]?["title"]?.stringValue == "hello")
        #expect(
            lines.last?["error"]?.stringValue
                == "not a readable keyed archive: $objects[1].items[1]: object reference 9 is out of range (4 objects)",
            "\(lines)")
        let (recoveredStatus, recovered) = try Self.lines([
            "decode", "--jsonl", "--recover", folder + "/damaged.db",
        ])
        #expect(recoveredStatus == 0)
        #expect(
            recovered.last?["result"]?["$problems"]
                == ["$objects[1].items[1]: object reference 9 is out of range (4 objects)"], "\(recovered)")
    }
}
