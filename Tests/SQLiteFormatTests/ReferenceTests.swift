import Foundation
import SQLiteFormat
import Testing

/// Live rows and BLOBs against Python's `sqlite3`, and recovery against what was deleted.
@Suite("Against Python's sqlite3")
struct ReferenceTests {
    @Test("every live row as sqlite3 returns it", arguments: ReferenceDatabases.names)
    func liveRows(_ name: String) throws {
        let database = try SQLiteDatabase(path: try ReferenceDatabases.path(name) + "/db.sqlite")
        let found = try ReferenceDatabases.rows(of: database)
        let expected = try ReferenceDatabases.lines(name, "expected.txt")
        #expect(!expected.isEmpty, "\(name): the script wrote no rows")
        let same = found == expected
        #expect(same, "\(name): \(ReferenceDatabases.firstDifference(found, expected))")
    }

    @Test("every live BLOB with its table, column and rowid", arguments: ReferenceDatabases.names)
    func liveBlobs(_ name: String) throws {
        let database = try SQLiteDatabase(path: try ReferenceDatabases.path(name) + "/db.sqlite")
        var found: [String] = []
        let report = try database.forEachBlob { blob in
            #expect(blob.origin == .live)
            guard !blob.data.isEmpty else { return }
            let key = blob.rowid.map(String.init) ?? "-"
            found.append(
                [blob.table ?? "?", blob.column ?? "?", key, ReferenceDatabases.hex(Array(blob.data))].joined(
                    separator: "\t"))
        }
        found.sort()
        let expected = try ReferenceDatabases.lines(name, "live-blobs.txt")
        let same = found == expected
        #expect(same, "\(name): \(ReferenceDatabases.firstDifference(found, expected))")
        #expect(report.problems.allSatisfy { $0.file != .database }, "\(name): \(report.problems)")
    }

    @Test("recovery finds the deleted BLOBs and repeats no live one", arguments: ReferenceDatabases.names)
    func recovery(_ name: String) throws {
        let database = try SQLiteDatabase(path: try ReferenceDatabases.path(name) + "/db.sqlite")
        var live = Set<Data>()
        var recovered = Set<Data>()
        var repeated = 0
        try database.forEachBlob(options: SQLiteBlobScanOptions(recover: true)) { blob in
            if blob.origin == .live {
                live.insert(blob.data)
            } else {
                if live.contains(blob.data) || recovered.contains(blob.data) { repeated += 1 }
                recovered.insert(blob.data)
                #expect(blob.page >= 1)
            }
        }
        #expect(repeated == 0, "\(name): \(repeated) recovered BLOBs repeat one already reported")
        let liveExpected = try ReferenceDatabases.lines(name, "live-blobs.txt").count
        #expect(live.count <= liveExpected)
        let deleted = try ReferenceDatabases.lines(name, "deleted.txt")
        guard !deleted.isEmpty else { return }
        let liveHex = Set(live.map { ReferenceDatabases.hex(Array($0)) })
        let recoveredHex = Set(recovered.map { ReferenceDatabases.hex(Array($0)) })
        // Deleted BLOBs whose first and last bytes are still in the files (a proxy for "still
        // whole": later writes may reuse the space of deleted rows).
        let files = try ["", "-wal", "-journal"].compactMap { suffix -> Data? in
            try? Data(
                contentsOf: URL(fileURLWithPath: try ReferenceDatabases.path(name) + "/db.sqlite" + suffix))
        }
        let wanted = Set(deleted).subtracting(liveHex).filter { hex in
            let blob = ReferenceDatabases.bytes(hex: hex)
            return files.contains { $0.range(of: Data(blob.prefix(64))) != nil }
                && files.contains { $0.range(of: Data(blob.suffix(64))) != nil }
        }
        let found = wanted.intersection(recoveredHex)
        #expect(
            Double(found.count) >= 0.9 * Double(wanted.count),
            "\(name): recovered \(found.count) of \(wanted.count) deleted BLOBs")
    }

    @Test("the files are left byte-identical and nothing is created", arguments: ["wal", "hot-journal"])
    func readOnly(_ name: String) throws {
        let folder = try ReferenceDatabases.path(name)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let contents = try before.map { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) }
        let database = try SQLiteDatabase(path: folder + "/db.sqlite")
        _ = try ReferenceDatabases.rows(of: database)
        try database.forEachBlob(options: SQLiteBlobScanOptions(recover: true)) { _ in }
        let after = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(after == before)
        let unchanged =
            try after.map { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) } == contents
        #expect(unchanged, "\(name): a file changed")
    }

    @Test("a database read from memory reads as from its file", arguments: ["wal", "hot-journal", "utf16be"])
    func inMemory(_ name: String) throws {
        let folder = try ReferenceDatabases.path(name)
        func read(_ suffix: String) -> Data? {
            try? Data(contentsOf: URL(fileURLWithPath: folder + "/db.sqlite" + suffix))
        }
        let database = try SQLiteDatabase(
            contentsOf: read("") ?? Data(), wal: read("-wal"), journal: read("-journal"))
        let expected = try ReferenceDatabases.lines(name, "expected.txt")
        let same = try ReferenceDatabases.rows(of: database) == expected
        #expect(same, "\(name)")
    }
}
