import Foundation
import SQLiteFormat
import Testing

/// A freed cell rebuilt from its surviving serial types: the record header's size byte is
/// gone (the freeblock header overwrote it), so the types are counted by column, and a
/// BLOB over 57 bytes has a two-byte serial type.
@Suite("Recovery of freed cells")
struct FreedCellTests {
    /// Makes a database with Python's `sqlite3`: rows whose BLOB (in a middle column) has a
    /// two-byte serial type, then deletes some of them.
    static func makeDatabase(rowsToDelete: [Int]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "FreedCellTests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/db.sqlite"
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("PRAGMA journal_mode=DELETE")
            c.execute("CREATE TABLE creature (id INTEGER PRIMARY KEY, name TEXT, info BLOB, raw BLOB)")
            for i in range(1, 9):
                body = b"bplist00" + bytes((i * 7 + k) % 251 for k in range(60 + 37 * i))
                c.execute("INSERT INTO creature VALUES (?, ?, ?, ?)", (i, "n" * i, body, bytes([i, 1, 2])))
            c.commit()
            c.close()
            c = sqlite3.connect(sys.argv[1])
            c.execute("PRAGMA secure_delete=OFF")
            c.execute("DELETE FROM creature WHERE id IN (%s)" % sys.argv[2])
            c.commit()
            c.close()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", script, path, rowsToDelete.map(String.init).joined(separator: ","),
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ReferenceDatabases.ScriptFailure(message: "python3 could not make the database")
        }
        return path
    }

    static func body(_ row: Int) -> Data {
        Data("bplist00".utf8) + Data((0..<(60 + 37 * row)).map { UInt8((row * 7 + $0) % 251) })
    }

    @Test("a deleted row's BLOB in a middle column comes back whole, in its column")
    func middleColumnBlob() throws {
        let deleted = [2, 5, 7]
        let path = try Self.makeDatabase(rowsToDelete: deleted)
        let database = try SQLiteDatabase(path: path)
        var recovered: [Data: SQLiteBlob] = [:]
        try database.forEachBlob(options: SQLiteBlobScanOptions(recover: true)) { blob in
            if blob.origin != .live { recovered[blob.data] = blob }
        }
        for row in deleted {
            let blob = try #require(recovered[Self.body(row)], "row \(row)'s BLOB was not recovered whole")
            #expect(blob.table == "creature")
            #expect(blob.column == "info")
            #expect(blob.origin == .freeblock)
        }
    }
}
