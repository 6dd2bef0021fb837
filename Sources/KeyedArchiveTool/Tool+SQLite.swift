import KeyedArchive
import SQLiteFormat

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `decode --jsonl` of SQLite databases: one line per BLOB that holds a property list, a
/// keyed archive or a typedstream, with where it was found.
extension Tool {
    /// Whether `path` starts with the SQLite header (read from the file system directly: a
    /// database is read page by page, never whole, so the tool's input cap does not apply).
    static func hasSQLiteHeader(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { _ = close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & 0o170000 == 0o100000 else { return false }
        var prefix = [UInt8](repeating: 0, count: 16)
        let count = prefix.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 16, 0) }
        return count == 16 && SQLiteDatabase.hasHeader(prefix)
    }

    /// Whether `path` is the `-wal`, `-shm` or `-journal` file of a database also in `paths`
    /// (read with that database rather than on its own).
    static func isDatabaseCompanion(_ path: String, sweeping paths: [String]) -> Bool {
        for suffix in ["-wal", "-shm", "-journal"] where path.hasSuffix(suffix) {
            let database = String(path.dropLast(suffix.count))
            if paths.contains(database) && hasSQLiteHeader(database) { return true }
        }
        return false
    }

    /// How a BLOB is shown: decoded, or only named when compressed.
    enum BlobContent {
        case archive
        case compressed(String)
    }

    /// Whether `data` is worth a line: a binary or XML property list, a typedstream, or
    /// gzip/zlib data (which may hold one).
    static func content(of data: Data) -> BlobContent? {
        guard data.count >= 8 else { return nil }
        let first = data[data.startIndex]
        let second = data[data.startIndex + 1]
        if data.starts(with: Array("bplist".utf8)) { return .archive }
        if TypedStreamUnarchiver.isTypedStream(data) { return .archive }
        if first == 0x1f && second == 0x8b { return .compressed("gzip") }
        if first == 0x78, [0x01, 0x5e, 0x9c, 0xda].contains(second) { return .compressed("zlib") }
        var text = data.prefix(64)[...]
        if text.starts(with: [0xef, 0xbb, 0xbf]) { text = text.dropFirst(3) }
        text = text.drop { $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }
        for marker in ["<?xml", "<plist", "<!DOCTYPE plist"] where text.starts(with: Array(marker.utf8)) {
            return .archive
        }
        return nil
    }

    private static func json(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let number): return String(number)
        case .real(let number): return number.isFinite ? "\(number)" : "null"
        case .text(let text): return jsonString(text)
        case .blob(let data): return jsonString(data.base64EncodedString())
        }
    }

    /// Writes the lines of the database at `path`; nil when it is not an SQLite database,
    /// else whether every live BLOB read.
    func sweepDatabase(_ path: String, _ invocation: Invocation) -> Bool? {
        guard Self.hasSQLiteHeader(path) else { return nil }
        let pathField = ("path", Self.jsonString(path))
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path)
        } catch {
            writeFields([pathField, ("error", Self.jsonString("not a readable SQLite database: \(error)"))])
            return false
        }
        var succeeded = true
        let options = SQLiteBlobScanOptions(
            recover: invocation.recovers, includeRows: !invocation.columns.isEmpty)
        do {
            let report = try database.forEachBlob(options: options) { blob in
                guard let content = Self.content(of: blob.data) else { return }
                var fields = [
                    pathField, ("table", blob.table.map(Self.jsonString) ?? "null"),
                    ("column", blob.column.map(Self.jsonString) ?? "null"),
                    ("rowid", blob.rowid.map { String($0) } ?? "null"),
                ]
                if let key = blob.primaryKey {
                    fields.append(("key", "[" + key.map(Self.json).joined(separator: ",") + "]"))
                }
                fields.append(("origin", Self.jsonString(blob.origin.rawValue)))
                if blob.origin != .live {
                    fields.append(("page", String(blob.page)))
                    fields.append(("offset", String(blob.offset)))
                }
                if !invocation.columns.isEmpty, let row = blob.row,
                    let table = blob.table.flatMap(database.table(named:))
                {
                    var pairs: [String] = []
                    for name in invocation.columns {
                        guard
                            let index = table.columns.firstIndex(where: {
                                $0.name.lowercased() == name.lowercased()
                            })
                        else { continue }
                        pairs.append(
                            Self.jsonString(table.columns[index].name) + ":" + Self.json(row.values[index]))
                    }
                    fields.append(("columns", "{" + pairs.joined(separator: ",") + "}"))
                }
                switch content {
                case .compressed(let name):
                    fields.append(("format", Self.jsonString(name)))
                    fields.append(("kind", Self.jsonString("compressed data")))
                case .archive:
                    if let message = appendDecoded(blob.data, invocation, to: &fields) {
                        fields.append(("error", Self.jsonString(message)))
                        if blob.origin == .live { succeeded = false }
                    }
                }
                writeFields(fields)
            }
            for problem in report.problems {
                writeFields([pathField, ("problem", Self.jsonString(problem.description))])
            }
        } catch {
            writeFields([pathField, ("error", Self.jsonString("\(error)"))])
            return false
        }
        return succeeded
    }
}
