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
        // Called for every BLOB of a database: the first bytes compared in place.
        return data.withUnsafeBytes { raw -> BlobContent? in
            let bytes = raw.bindMemory(to: UInt8.self)
            // XML is looked for in the first 64 bytes, as `PropertyListFormat.detect` does.
            let head = min(bytes.count, 64)
            func starts(_ prefix: StaticString, at start: Int) -> Bool {
                let count = prefix.utf8CodeUnitCount
                guard start + count <= head else { return false }
                let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: count)
                for index in 0..<count where bytes[start + index] != expected[index] { return false }
                return true
            }
            if starts("bplist", at: 0) { return .archive }
            let first = bytes[0]
            let second = bytes[1]
            if first == 0x1f && second == 0x8b { return .compressed("gzip") }
            if first == 0x78 && (second == 0x01 || second == 0x5e || second == 0x9c || second == 0xda) {
                return .compressed("zlib")
            }
            // A UTF-8 byte-order mark (EF BB BF), then white space.
            var start = starts("\u{FEFF}", at: 0) ? 3 : 0
            while start < head,
                bytes[start] == 0x20 || bytes[start] == 0x0a || bytes[start] == 0x0d || bytes[start] == 0x09
            {
                start += 1
            }
            for marker: StaticString in ["<?xml", "<plist", "<!DOCTYPE plist"] where starts(marker, at: start)
            {
                return .archive
            }
            // A typedstream starts with its version byte, none of the above.
            return TypedStreamUnarchiver.isTypedStream(data) ? .archive : nil
        }
    }

    /// The bytes of TEXT that is a property list in Base64 (starting `YnBsaXN0MD`,
    /// `PD94bWwg` or `PHBsaXN0`: `bplist0`, `<?xml `, `<plist`), white space around it and
    /// line breaks in it allowed; nil for other text.
    static func base64PropertyList(_ text: Data) -> Data? {
        var characters = text.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        guard
            ["YnBsaXN0MD", "PD94bWwg", "PHBsaXN0"].contains(where: {
                characters.starts(with: Array($0.utf8))
            })
        else { return nil }
        // Base64 without its padding is accepted too.
        while characters.count % 4 != 0 { characters.append(0x3D) }
        return Data(base64Encoded: characters)
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
            recover: invocation.recovers, includeRows: !invocation.columns.isEmpty, includeText: true)
        do {
            let report = try database.forEachBlob(options: options) { blob in
                // TEXT holding a property list as text, or in Base64.
                var data = blob.data
                var storage: String?
                if blob.storage == .text {
                    storage = "text"
                    if let decoded = Self.base64PropertyList(data) {
                        data = decoded
                        storage = "base64"
                    }
                }
                guard let content = Self.content(of: data) else { return }
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
                if let storage { fields.append(("storage", Self.jsonString(storage))) }
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
                    if let message = appendDecoded(data, invocation, to: &fields) {
                        // TEXT that only looks like a property list is text, not damage.
                        guard storage == nil else { return }
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
