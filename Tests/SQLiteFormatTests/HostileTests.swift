import Foundation
import Testing

@testable import SQLiteFormat

/// Damaged and hostile databases: each gives a thrown ``SQLiteError`` or a skipped, reported
/// page — never a crash, a hang, or memory sized by what the file claims.
@Suite("Hostile databases")
struct HostileTests {
    static func file(_ name: String, _ suffix: String = "") throws -> [UInt8] {
        Array(
            try Data(
                contentsOf: URL(fileURLWithPath: try ReferenceDatabases.path(name) + "/db.sqlite" + suffix)))
    }

    /// Reads everything a reader can: every table's rows (errors allowed), and a recovering
    /// BLOB scan (which must not throw). Returns the errors and problems met.
    @discardableResult
    static func readEverything(_ bytes: [UInt8], wal: [UInt8]? = nil, journal: [UInt8]? = nil)
        -> [SQLiteError]
    {
        var errors: [SQLiteError] = []
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(
                contentsOf: Data(bytes), wal: wal.map { Data($0) }, journal: journal.map { Data($0) })
        } catch {
            return [error]
        }
        errors += database.problems
        for table in database.tables {
            do {
                try database.forEachRow(in: table) { _ in }
            } catch let error as SQLiteError {
                errors.append(error)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        do {
            let report = try database.forEachBlob(options: SQLiteBlobScanOptions(recover: true)) { _ in }
            errors += report.problems
        } catch {
            Issue.record("the BLOB scan threw \(error)")
        }
        return errors
    }

    static func put32(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    }

    /// The first page of `bytes` (page size `size`) of the given b-tree type, after page 1.
    static func firstPage(ofType type: UInt8, in bytes: [UInt8], pageSize size: Int) -> Int? {
        (1..<bytes.count / size).first { bytes[$0 * size] == type }.map { $0 + 1 }
    }

    @Test(
        "a truncated database gives an error or what is left",
        arguments: [0, 15, 99, 100, 511, 512, 1000, 5000, 20000, 50000])
    func truncated(_ length: Int) throws {
        let bytes = try Self.file("rollback-512")
        let errors = Self.readEverything(Array(bytes.prefix(length)))
        if length < bytes.count { #expect(!errors.isEmpty, "a cut at \(length) went unnoticed") }
    }

    @Test("a file that is not a database")
    func notADatabase() {
        #expect(throws: SQLiteError.self) {
            try SQLiteDatabase(contentsOf: Data(repeating: 0x41, count: 4096))
        }
        let errors = Self.readEverything(
            Array("SQLite format 3\0".utf8) + [0x12, 0x34] + Array(repeating: 0, count: 90))
        #expect(errors.first?.code == .notADatabase)
    }

    @Test("an interior page pointing to itself is a loop")
    func btreeLoop() throws {
        var bytes = try Self.file("rollback-512")
        let page = try #require(Self.firstPage(ofType: 5, in: bytes, pageSize: 512))
        Self.put32(UInt32(page), into: &bytes, at: (page - 1) * 512 + 8)
        let errors = Self.readEverything(bytes)
        #expect(errors.contains { $0.code == .loop && $0.page == UInt32(page) }, "\(errors)")
    }

    @Test("an overflow chain that loops")
    func overflowLoop() throws {
        var bytes = try Self.file("rollback-512")
        let database = try SQLiteDatabase(contentsOf: Data(bytes))
        var target: (page: UInt32, overflow: UInt32)?
        let reader = BTreeReader(pager: database.pager, lenient: true)
        try reader.walk(root: try #require(database.table(named: "items")).rootPage, table: true) {
            page, cell in
            if target == nil, cell.overflowPage != 0 { target = (page.number, cell.overflowPage) }
        }
        let overflow = try #require(target).overflow
        Self.put32(overflow, into: &bytes, at: (Int(overflow) - 1) * 512)
        let errors = Self.readEverything(bytes)
        #expect(errors.contains { $0.code == .loop }, "\(errors)")
    }

    @Test("a freelist trunk pointing to itself")
    func freelistLoop() throws {
        var bytes = try Self.file("rollback-512")
        let trunk = Int(bytes[32]) << 24 | Int(bytes[33]) << 16 | Int(bytes[34]) << 8 | Int(bytes[35])
        try #require(trunk != 0)
        Self.put32(UInt32(trunk), into: &bytes, at: (trunk - 1) * 512)
        let errors = Self.readEverything(bytes)
        #expect(errors.contains { $0.code == .loop && $0.page == UInt32(trunk) }, "\(errors)")
    }

    @Test("a cell pointer at the end of the page, and a cell larger than the page")
    func cellBeyondPage() throws {
        var bytes = try Self.file("rollback-512")
        let page = try #require(Self.firstPage(ofType: 13, in: bytes, pageSize: 512))
        let base = (page - 1) * 512
        bytes[base + 8] = 0x01
        bytes[base + 9] = 0xff
        bytes[base + 0x1ff] = 0xff
        var errors = Self.readEverything(bytes)
        #expect(errors.contains { $0.code == .corrupt && $0.page == UInt32(page) }, "\(errors)")
        // A payload size of 2^31 in a cell.
        var huge = try Self.file("rollback-512")
        let cell = Int(huge[base + 8]) << 8 | Int(huge[base + 9])
        huge.replaceSubrange(base + cell..<base + cell + 5, with: [0x88, 0x80, 0x80, 0x80, 0x00])
        errors = Self.readEverything(huge)
        #expect(errors.contains { $0.page == UInt32(page) }, "\(errors)")
    }

    @Test("a header declaring 2^32 - 1 pages allocates nothing for them")
    func hugePageCount() throws {
        var bytes = try Self.file("rollback-512")
        Self.put32(0xffff_ffff, into: &bytes, at: 28)
        let errors = Self.readEverything(bytes)
        #expect(errors.contains { $0.offset == 28 }, "\(errors)")
        #expect(try SQLiteDatabase(contentsOf: Data(bytes)).header.pageCount == bytes.count / 512)
    }

    @Test("a WAL frame with a wrong checksum ends the log there")
    func walChecksum() throws {
        let bytes = try Self.file("wal")
        var wal = try Self.file("wal", "-wal")
        let pageSize = 1024
        let frames = (wal.count - 32) / (pageSize + 24)
        // The last frame's data: the frames before it (with their commits) still apply.
        wal[32 + (frames - 1) * (pageSize + 24) + 24 + 100] ^= 0xff
        let errors = Self.readEverything(bytes, wal: wal)
        #expect(errors.contains { $0.code == .walInvalid && $0.file == .wal }, "\(errors)")
        // A bad header checksum: the whole WAL is ignored.
        var header = try Self.file("wal", "-wal")
        header[16] ^= 1
        let ignored = try SQLiteDatabase(contentsOf: Data(bytes), wal: Data(header))
        #expect(ignored.problems.contains { $0.code == .walInvalid && $0.offset == 24 })
        #expect(ignored.table(named: "walonly") == nil)
    }

    @Test("a WAL frame with a wrong salt is not applied, nor any after it")
    func walSalt() throws {
        let bytes = try Self.file("wal")
        var wal = try Self.file("wal", "-wal")
        wal[32 + 8] ^= 1
        let database = try SQLiteDatabase(contentsOf: Data(bytes), wal: Data(wal))
        #expect(database.problems.contains { $0.code == .walInvalid && $0.offset == 32 })
        #expect(database.table(named: "walonly") == nil)
    }

    @Test("a journal record with a wrong checksum stops playback")
    func journalChecksum() throws {
        let bytes = try Self.file("hot-journal")
        var journal = try Self.file("hot-journal", "-journal")
        let sector =
            Int(journal[20]) << 24 | Int(journal[21]) << 16 | Int(journal[22]) << 8 | Int(journal[23])
        journal[sector + 4 + 1024 - 200] ^= 0xff
        let errors = Self.readEverything(bytes, journal: journal)
        #expect(errors.contains { $0.code == .journalInvalid && $0.file == .journal }, "\(errors)")
    }

    @Test("random damage: never a crash", arguments: ["rollback-512", "wal", "utf16le"])
    func randomDamage(_ name: String) throws {
        let original = try Self.file(name)
        let wal = try? Self.file(name, "-wal")
        var generator = SplitMix(seed: UInt64(name.utf8.count))
        for _ in 0..<40 {
            var bytes = original
            for _ in 0..<(1 + Int(generator.next() % 16)) {
                let offset = Int(generator.next() % UInt64(bytes.count))
                bytes[offset] = UInt8(truncatingIfNeeded: generator.next())
            }
            // Page 1's b-tree header and the first pages are where damage matters most.
            let early = Int(generator.next() % 2048)
            bytes[min(early, bytes.count - 1)] = UInt8(truncatingIfNeeded: generator.next())
            Self.readEverything(bytes, wal: wal)
        }
    }
}

/// A small deterministic generator for the damage tests.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
