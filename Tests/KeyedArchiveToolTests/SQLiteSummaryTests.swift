import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// iMessage bodies and string-keyed dictionaries in `decode` and `decode --jsonl`, and
/// `keyed-archive sqlite DB`, on a `chat.db` made at test time with Python's `sqlite3` whose
/// `attributedBody` holds a typedstream written by `TypedStreamArchiver`, as Messages writes it.
@Suite("iMessage bodies, string-keyed dictionaries and the sqlite summary")
struct SQLiteSummaryTests {
    /// An iMessage-like body: "Hello Ada", the second word a mention, both in message part 0.
    static let body = ArchivedAttributedString(
        "Hello Ada",
        runs: [
            .init(range: 0..<6, attributes: ["__kIMMessagePartAttributeName": .integer(0)]),
            .init(
                range: 6..<9,
                attributes: [
                    "__kIMMessagePartAttributeName": .integer(0),
                    "__kIMMentionConfirmedMention": .string("+15558675309"),
                ]),
        ], isMutable: true)

    /// A folder with `body.typedstream`, `dictionary.archive` (an `NSDictionary` keyed by
    /// strings) and `chat.db`: `message` (3 rows: bodies in rows 1 and 2, a dictionary
    /// archive in row 1's `payload_data`, a plain binary property list in row 3's) and
    /// `handle` (2 rows, no BLOBs).
    static let folder: String? = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "SQLiteSummaryTests-\(ProcessInfo.processInfo.processIdentifier)"
        ).path
        guard
            (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true))
                != nil,
            let stream = try? TypedStreamArchiver.archivedData(withRootObject: body),
            (try? stream.write(to: URL(fileURLWithPath: folder + "/body.typedstream"))) != nil
        else { return nil }
        let script = """
            import os, plistlib, sqlite3, sys
            out = sys.argv[1]
            body = open(os.path.join(out, "body.typedstream"), "rb").read()
            archive = plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000,
                "$top": {"root": plistlib.UID(1)},
                "$objects": ["$null", {"NS.keys": [plistlib.UID(2), plistlib.UID(3)],
                                       "NS.objects": [plistlib.UID(4), 36], "$class": plistlib.UID(5)},
                             "name", "$age", "Ada",
                             {"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]}]},
                fmt=plistlib.FMT_BINARY)
            with open(os.path.join(out, "dictionary.archive"), "wb") as f:
                f.write(archive)
            c = sqlite3.connect(os.path.join(out, "chat.db"))
            c.execute("CREATE TABLE message (ROWID INTEGER PRIMARY KEY, text TEXT, attributedBody BLOB, "
                      "payload_data BLOB)")
            c.execute("CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT)")
            c.execute("INSERT INTO message VALUES (1, 'Hello Ada', ?, ?)", (body, archive))
            c.execute("INSERT INTO message VALUES (2, 'Hello Ada', ?, NULL)", (body,))
            c.execute("INSERT INTO message VALUES (3, 'x', NULL, ?)", (plistlib.dumps([1], fmt=plistlib.FMT_BINARY),))
            c.execute("INSERT INTO handle VALUES (1, '+15558675309')")
            c.execute("INSERT INTO handle VALUES (2, 'ada@example.com')")
            c.commit()
            c.close()
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

    @Test("decode --jsonl of a database: an iMessage body as its text and runs, a dictionary as an object")
    func bodiesInLines() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let (status, lines) = try Self.lines(["decode", "--jsonl", folder + "/chat.db"])
        #expect(status == 0)
        let bodies = lines.filter { $0["column"]?.stringValue == "attributedBody" }
        #expect(bodies.count == 2)
        let root = try #require(bodies.first?["result"]?["root"])
        #expect(bodies.first?["format"]?.stringValue == "typedstream")
        #expect(root["$class"]?.stringValue == "NSMutableAttributedString")
        #expect(root["string"]?.stringValue == "Hello Ada")
        #expect(root["runs"]?[1]?["text"]?.stringValue == "Ada")
        #expect(root["runs"]?[1]?["range"] == [6, 9])
        #expect(
            root["runs"]?[1]?["attributes"]?["__kIMMentionConfirmedMention"]?.stringValue == "+15558675309")
        #expect(root["runs"]?[0]?["attributes"]?["__kIMMessagePartAttributeName"] == 0)
        let dictionary = try #require(lines.first { $0["column"]?.stringValue == "payload_data" })
        #expect(dictionary["kind"]?.stringValue == "keyed archive")
        #expect(dictionary["result"]?["root"]?["name"]?.stringValue == "Ada")
        // A key starting with `$` gets one more, as fields do.
        #expect(dictionary["result"]?["root"]?["$$age"] == 36)
        #expect(dictionary["result"]?["root"]?["$class"]?.stringValue == "NSDictionary")
    }

    @Test("--raw keeps the stored values")
    func rawLines() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let (status, lines) = try Self.lines(["decode", "--jsonl", "--raw", folder + "/chat.db"])
        #expect(status == 0)
        let body = try #require(lines.first { $0["column"]?.stringValue == "attributedBody" })
        #expect(body["result"]?["root"]?["string"] == nil)
        #expect(body["result"]?["root"]?["$class"]?.stringValue == "NSMutableAttributedString")
        let dictionary = try #require(lines.first { $0["column"]?.stringValue == "payload_data" })
        #expect(dictionary["result"]?["root"]?["NS.keys"] != nil)
        #expect(dictionary["result"]?["root"]?["name"] == nil)
    }

    @Test("decode of a single typedstream: text and runs, in text and JSON")
    func singleBody() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let text = ToolRun(["decode", folder + "/body.typedstream"])
        #expect(text.status == 0)
        #expect(
            text.outputText == """
                root: NSMutableAttributedString "Hello Ada"
                  0..<6 "Hello " __kIMMessagePartAttributeName = 0
                  6..<9 "Ada" __kIMMentionConfirmedMention = "+15558675309"; __kIMMessagePartAttributeName = 0

                """)
        let json = ToolRun(["decode", "--json", folder + "/body.typedstream"])
        #expect(json.status == 0)
        let value = try JSONValueReader.read(json.outputText)
        #expect(value["root"]?["string"]?.stringValue == "Hello Ada")
        #expect(value["root"]?["runs"]?[0]?["text"]?.stringValue == "Hello ")
        let raw = ToolRun(["decode", "--raw", folder + "/body.typedstream"])
        #expect(raw.outputText.hasPrefix("root: NSMutableAttributedString #"), "\(raw.outputText)")
    }

    @Test("decode --json of a dictionary keyed by strings: a JSON object")
    func dictionaryObject() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let run = ToolRun(["decode", "--json", folder + "/dictionary.archive"])
        #expect(run.status == 0)
        let value = try JSONValueReader.read(run.outputText)
        #expect(value["root"]?["name"]?.stringValue == "Ada")
        #expect(value["root"]?["$$age"] == 36)
        #expect(value["root"]?["$uid"] == 1)
        #expect(value["root"]?["NS.keys"] == nil)
    }

    @Test("sqlite DB: tables, row counts, archive columns by format and class")
    func summaryText() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let path = folder + "/chat.db"
        let run = ToolRun(["sqlite", path])
        #expect(run.status == 0)
        #expect(run.error.isEmpty, "\(run.error)")
        let lines = run.outputLines
        #expect(lines.first?.hasPrefix("\(path): SQLite, UTF-8, page size ") == true, "\(lines)")
        #expect(
            Array(lines.dropFirst()) == [
                "  message: 3 rows",
                "    attributedBody: 2 BLOBs: typedstream 2 (NSMutableAttributedString 2)",
                "    payload_data: 2 BLOBs: keyed archive 1 (NSDictionary 1), property list 1 (array 1)",
                "  handle: 2 rows",
            ], "\(lines)")
    }

    @Test("sqlite --json: one object per database; a folder is searched; other files fail when named")
    func summaryJSON() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let (status, lines) = try Self.lines(["sqlite", "--json", folder])
        #expect(status == 0)
        #expect(lines.count == 1)
        let summary = try #require(lines.first)
        #expect(summary["path"]?.stringValue == folder + "/chat.db")
        #expect(summary["tables"]?[0]?["name"]?.stringValue == "message")
        #expect(summary["tables"]?[0]?["rows"] == 3)
        let column = summary["tables"]?[0]?["columns"]?[0]
        #expect(column?["name"]?.stringValue == "attributedBody")
        #expect(column?["formats"]?["typedstream"]?["classes"]?["NSMutableAttributedString"] == 2)
        #expect(summary["tables"]?[1]?["columns"] == [])
        let other = ToolRun(["sqlite", folder + "/body.typedstream"])
        #expect(other.status == 1)
        #expect(other.errorLines == ["\(folder)/body.typedstream: not an SQLite database (no SQLite header)"])
    }
}
