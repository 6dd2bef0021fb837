import KeyedArchive
import SQLiteFormat

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `keyed-archive sqlite DB`: what a database holds, table by table — its live rows (the WAL
/// or a hot journal applied), and for each column with archive BLOBs, or TEXT holding a
/// property list, how many of each format and top-level class.
extension Tool {
    /// The archive BLOBs of one column, by format and then by top-level class, and the
    /// TEXT values that hold a property list (as `decode --jsonl` reads them).
    struct ColumnSummary {
        var name: String
        var blobs = 0
        /// Format (`keyed archive`, `property list`, `typedstream`, `gzip`, `zlib`) → class
        /// (an archive's root class, a property list's root type) → count.
        var formats: [String: [String: Int]] = [:]
        /// TEXT values holding a property list or keyed archive (as text, or in Base64).
        var texts = 0
        /// Their formats and classes, as ``formats``.
        var textFormats: [String: [String: Int]] = [:]
    }

    /// One table of a summary.
    struct TableSummary {
        var name: String
        var rows = 0
        var columns: [ColumnSummary]
        /// Why the table could not be read to its end, if it could not.
        var problem: String?
    }

    /// Summarizes every database named or found in the folders named: text by default,
    /// one JSON object per database and line with `--json`. A file named that is not a
    /// database fails; in a folder, other files are passed over.
    func summarizeDatabases(_ invocation: Invocation) -> Int32 {
        var status = ExitStatus.success
        for argument in invocation.files {
            let paths: [String]
            do {
                paths = try environment.fileSystem.filesForSweep(argument)
            } catch {
                environment.writeError("\(argument): \(error.message)\n")
                status = ExitStatus.failure
                continue
            }
            let named = paths == [argument]
            for path in paths {
                guard Self.hasSQLiteHeader(path) else {
                    if named {
                        environment.writeError("\(path): not an SQLite database (no SQLite header)\n")
                        status = ExitStatus.failure
                    }
                    continue
                }
                if !summarizeDatabase(path, json: invocation.json) { status = ExitStatus.failure }
            }
        }
        return status
    }

    /// Writes the summary of the database at `path`; `false` if it could not be read whole.
    private func summarizeDatabase(_ path: String, json: Bool) -> Bool {
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path)
        } catch {
            environment.writeError("\(path): not a readable SQLite database: \(error)\n")
            return false
        }
        var tables: [TableSummary] = []
        for table in database.tables {
            var summary = TableSummary(
                name: table.name, columns: table.columns.map { ColumnSummary(name: $0.name) })
            do {
                try database.forEachRow(in: table) { row in
                    summary.rows += 1
                    for (index, value) in row.values.enumerated() where index < summary.columns.count {
                        switch value {
                        case .blob(let data):
                            guard let (format, topLevel) = Self.blobKind(data) else { continue }
                            summary.columns[index].blobs += 1
                            summary.columns[index].formats[format, default: [:]][topLevel, default: 0] += 1
                        case .text(let text):
                            guard let (format, topLevel) = Self.textKind(text) else { continue }
                            summary.columns[index].texts += 1
                            summary.columns[index].textFormats[format, default: [:]][topLevel, default: 0] +=
                                1
                        default:
                            continue
                        }
                    }
                }
            } catch {
                summary.problem = "\(error)"
            }
            tables.append(summary)
        }
        let problems =
            database.problems.map(\.description)
            + tables.compactMap { table in
                table.problem.map { "table \(table.name): \($0)" }
            }
        writeText(
            json
                ? Self.summaryJSON(path, database.header, tables, problems)
                : Self.summaryText(path, database.header, tables, problems))
        return tables.allSatisfy { $0.problem == nil }
    }

    /// The format and top-level class of a BLOB that holds an archive, a property list or
    /// compressed data; `nil` for any other BLOB.
    static func blobKind(_ data: Data) -> (format: String, topLevel: String)? {
        guard let content = content(of: data) else { return nil }
        switch content {
        case .compressed(let name):
            return (name, "compressed data")
        case .archive:
            if TypedStreamUnarchiver.isTypedStream(data) {
                if let body = attributedBody(data) { return ("typedstream", className(of: body)) }
                guard let graph = try? TypedStreamUnarchiver.objectGraph(from: data).archivedObjectGraph()
                else {
                    return ("typedstream", "(unreadable)")
                }
                return ("typedstream", rootClass(of: graph))
            }
            guard let value = try? PropertyList(from: data) else { return ("property list", "(unreadable)") }
            guard isKeyedArchive(value) else {
                return ("property list", PropertyListTypeName(of: value).rawValue)
            }
            guard let graph = try? KeyedUnarchiver.objectGraph(from: value) else {
                return ("keyed archive", "(unreadable)")
            }
            return ("keyed archive", rootClass(of: graph))
        }
    }

    /// The format and top-level class of TEXT that holds a property list or keyed archive
    /// as `decode --jsonl` reads it (XML or binary as text, or either in Base64); `nil` for
    /// other text, and for text that only looks like one (it is text, not damage).
    static func textKind(_ text: String) -> (format: String, topLevel: String)? {
        guard mayHoldPropertyList(text) else { return nil }
        var data = Data(text.utf8)
        if let decoded = base64PropertyList(data) { data = decoded }
        guard case .archive? = content(of: data), !TypedStreamUnarchiver.isTypedStream(data),
            let kind = blobKind(data), kind.topLevel != "(unreadable)"
        else { return nil }
        return kind
    }

    /// Whether `text` starts (after a byte-order mark and white space) as a property list
    /// kept as text may: `<`, `bplist`, or the Base64 of `bplist0`, `<?xml ` or `<plist`.
    /// Checked before any copy: most TEXT is not.
    static func mayHoldPropertyList(_ text: String) -> Bool {
        var utf8 = text.utf8[...]
        if utf8.starts(with: [0xEF, 0xBB, 0xBF]) { utf8 = utf8.dropFirst(3) }
        utf8 = utf8.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        for prefix in ["<", "bplist", "YnBsaXN0MD", "PD94bWwg", "PHBsaXN0"]
        where utf8.starts(with: prefix.utf8) {
            return true
        }
        return false
    }

    /// The class of a graph's root object, or the type of a plain root value.
    private static func rootClass(of graph: ArchivedObjectGraph) -> String {
        switch graph.root {
        case .reference(let uid)?:
            if let object = graph.object(at: uid) { return object.className }
            if case .value(let plain)? = graph[uid] { return plainTypeName(plain) }
            return "(nil)"
        case let plain?: return plainTypeName(plain)
        case nil: return "(no root)"
        }
    }

    private static func plainTypeName(_ value: ArchivedObjectGraph.Value) -> String {
        switch value {
        case .null: return "(nil)"
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .reference: return "reference"
        }
    }

    /// Counts, largest first (then by name).
    private static func ordered(_ counts: [String: Int]) -> [(String, Int)] {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map {
            ($0.key, $0.value)
        }
    }

    private static func ordered(_ formats: [String: [String: Int]]) -> [(String, Int, [(String, Int)])] {
        formats.map { ($0.key, $0.value.values.reduce(0, +), ordered($0.value)) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }

    private static func encodingName(_ encoding: SQLiteTextEncoding) -> String {
        switch encoding {
        case .utf8: return "UTF-8"
        case .utf16LittleEndian: return "UTF-16le"
        case .utf16BigEndian: return "UTF-16be"
        }
    }

    /// ```text
    /// chat.db: SQLite, UTF-8, page size 4096, 12 pages, WAL mode
    ///   message: 5 rows
    ///     payload_data: 4 BLOBs: keyed archive 2 (NSDictionary 2), property list 2 (dictionary 2)
    ///   handle: 3 rows
    /// ```
    static func summaryText(
        _ path: String, _ header: SQLiteDatabaseHeader, _ tables: [TableSummary], _ problems: [String]
    ) -> String {
        var text =
            "\(path): SQLite, \(encodingName(header.textEncoding)), page size \(header.pageSize), "
            + "\(header.pageCount) pages\(header.isWAL ? ", WAL mode" : "")"
            + "\(header.freelistCount > 0 ? ", \(header.freelistCount) free pages" : "")\n"
        for table in tables {
            text += "  \(table.name): \(table.rows) \(table.rows == 1 ? "row" : "rows")\n"
            for column in table.columns where column.blobs > 0 || column.texts > 0 {
                func counts(_ formats: [String: [String: Int]]) -> String {
                    ordered(formats).map { format, count, classes in
                        "\(format) \(count) (" + classes.map { "\($0) \($1)" }.joined(separator: ", ") + ")"
                    }.joined(separator: ", ")
                }
                var parts: [String] = []
                if column.blobs > 0 {
                    parts.append(
                        "\(column.blobs) \(column.blobs == 1 ? "BLOB" : "BLOBs"): " + counts(column.formats))
                }
                if column.texts > 0 {
                    parts.append(
                        "\(column.texts) \(column.texts == 1 ? "TEXT value" : "TEXT values"): "
                            + counts(column.textFormats))
                }
                text += "    \(column.name): " + parts.joined(separator: "; ") + "\n"
            }
        }
        for problem in problems { text += "  problem: \(problem)\n" }
        return text
    }

    /// One line: `{"path": …, "encoding": …, "pageSize": n, "pages": n, "wal": bool,
    /// "tables": [{"name": …, "rows": n, "columns": [{"name": …, "blobs": n, "formats":
    /// {"keyed archive": {"count": n, "classes": {"NSDictionary": n}}}, "texts": n,
    /// "textFormats": {…}}]}], "problems": […]}` (columns without archive BLOBs or property
    /// lists in TEXT left out).
    static func summaryJSON(
        _ path: String, _ header: SQLiteDatabaseHeader, _ tables: [TableSummary], _ problems: [String]
    ) -> String {
        func object(_ members: [(String, String)]) -> String {
            "{" + members.map { jsonString($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
        }
        let tableObjects = tables.map { table in
            func formats(_ counts: [String: [String: Int]]) -> String {
                object(
                    ordered(counts).map { format, count, classes in
                        (
                            format,
                            object([
                                ("count", String(count)),
                                ("classes", object(classes.map { ($0.0, String($0.1)) })),
                            ])
                        )
                    })
            }
            let columns = table.columns.filter { $0.blobs > 0 || $0.texts > 0 }.map { column in
                object([
                    ("name", jsonString(column.name)), ("blobs", String(column.blobs)),
                    ("formats", formats(column.formats)), ("texts", String(column.texts)),
                    ("textFormats", formats(column.textFormats)),
                ])
            }
            return object([
                ("name", jsonString(table.name)), ("rows", String(table.rows)),
                ("columns", "[" + columns.joined(separator: ",") + "]"),
            ])
        }
        return object([
            ("path", jsonString(path)), ("encoding", jsonString(encodingName(header.textEncoding))),
            ("pageSize", String(header.pageSize)), ("pages", String(header.pageCount)),
            ("wal", header.isWAL ? "true" : "false"),
            ("tables", "[" + tableObjects.joined(separator: ",") + "]"),
            ("problems", "[" + problems.map(jsonString).joined(separator: ",") + "]"),
        ]) + "\n"
    }
}
