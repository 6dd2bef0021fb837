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
        return SQLiteTestSupport.folder(named: "SQLiteSummaryTests", script: script) { folder in
            // The body Messages would store, written by `TypedStreamArchiver`.
            guard let stream = try? TypedStreamArchiver.archivedData(withRootObject: body) else {
                return false
            }
            return (try? stream.write(to: URL(fileURLWithPath: folder + "/body.typedstream"))) != nil
        }
    }()

    static func lines(_ arguments: [String]) throws -> (Int32, [PropertyList]) {
        try SQLiteTestSupport.lines(arguments)
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

    @Test(
        "sqlite DB counts property lists kept as TEXT (as text or Base64), UTF-8 and UTF-16; not text that only looks like one"
    )
    func summaryOfText() throws {
        let folder = try #require(SQLiteSweepTests.textFolder, "python3 could not make the databases")
        for name in ["prefs.db", "prefs16.db"] {
            let path = folder + "/dbs/" + name
            let run = ToolRun(["sqlite", path])
            #expect(run.status == 0, "\(name): \(run.error)")
            // Row 5's note, `bplist is a word here`, starts as a binary property list would
            // and is not one: not counted.
            #expect(
                Array(run.outputLines.dropFirst()) == [
                    "  prefs: 5 rows",
                    "    value: 4 TEXT values: property list 4 (dictionary 3, array 1)",
                ], "\(name): \(run.outputLines)")
            let (status, lines) = try Self.lines(["sqlite", "--json", path])
            #expect(status == 0)
            let column = lines.first?["tables"]?[0]?["columns"]?[0]
            #expect(column?["name"]?.stringValue == "value", "\(name)")
            #expect(column?["blobs"] == 0 && column?["texts"] == 4, "\(name): \(String(describing: column))")
            #expect(column?["textFormats"]?["property list"]?["classes"]?["dictionary"] == 3, "\(name)")
            #expect(lines.first?["tables"]?[0]?["columns"]?.arrayValue?.count == 1, "\(name)")
        }
    }

    /// A body whose second run carries data holding a keyed archive, as Messages stores a
    /// data detector's result (`__kIMDataDetectedAttributeName`), in its own folder.
    static func detectedBody(_ folder: String) throws -> String {
        let archive = try Data(contentsOf: URL(fileURLWithPath: folder + "/dictionary.archive"))
        let detected = ArchivedAttributedString(
            "Call Ada",
            runs: [
                .init(range: 0..<5, attributes: ["__kIMMessagePartAttributeName": .integer(0)]),
                .init(
                    range: 5..<8,
                    attributes: [
                        "__kIMMessagePartAttributeName": .integer(0),
                        "__kIMDataDetectedAttributeName": .data(archive),
                    ]),
            ], isMutable: true)
        let own = folder + "-detected"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        let path = own + "/detected.typedstream"
        try TypedStreamArchiver.archivedData(withRootObject: detected).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("--expand reads archives in a body's attributes, in decode, --json and --jsonl; not without it")
    func expandedBody() throws {
        let folder = try #require(Self.folder, "python3 could not make the database")
        let path = try Self.detectedBody(folder)
        let attribute = "__kIMDataDetectedAttributeName"
        // decode --jsonl: the data as the archive it holds, summarized as decode shows it.
        let (status, lines) = try Self.lines(["decode", "--jsonl", "--expand", path])
        #expect(status == 0)
        let expanded = lines.first?["result"]?["root"]?["runs"]?[1]?["attributes"]?[attribute]
        #expect(expanded?["$expanded"]?.stringValue == "keyed archive", "\(lines)")
        #expect(expanded?["$value"]?["root"]?["name"]?.stringValue == "Ada")
        #expect(expanded?["$value"]?["root"]?["$$age"] == 36)
        let (_, plain) = try Self.lines(["decode", "--jsonl", path])
        let data = plain.first?["result"]?["root"]?["runs"]?[1]?["attributes"]?[attribute]
        #expect(data?["data"] != nil, "\(plain)")
        // decode --json --expand: the same, indented (valid JSON, the same value).
        let json = ToolRun(["decode", "--json", "--expand", path])
        #expect(json.status == 0)
        let value = try JSONValueReader.read(json.outputText)
        #expect(value["root"]?["runs"]?[1]?["attributes"]?[attribute] == expanded)
        #expect(
            json.outputText.contains("\n            \"$expanded\": \"keyed archive\""), "\(json.outputText)")
        // decode --expand: the outline, then the archive under its path.
        let text = ToolRun(["decode", "--expand", path])
        #expect(text.status == 0)
        #expect(
            text.outputText.contains("runs[1].attributes.\(attribute) ⇒ keyed archive ("),
            "\(text.outputText)")
        #expect(text.outputText.contains("  root: NSDictionary"), "\(text.outputText)")
    }
}
