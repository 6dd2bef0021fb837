#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of the 100-byte database header that matter to a reader.
public struct SQLiteDatabaseHeader: Sendable, Equatable {
    /// The page size in bytes, 512 to 65,536.
    public var pageSize: Int
    /// Bytes reserved at the end of each page (for extensions such as encryption).
    public var reservedBytes: Int
    /// The encoding of every text value.
    public var textEncoding: SQLiteTextEncoding
    /// The database size in pages, with the WAL or a hot journal applied.
    public var pageCount: Int
    /// The first freelist trunk page, or 0.
    public var firstFreelistTrunk: UInt32
    /// The number of pages on the freelist.
    public var freelistCount: Int
    /// Whether the database is in WAL mode (file format versions 2).
    public var isWAL: Bool
    /// Whether auto-vacuum (full or incremental) is on: the database has pointer-map pages.
    public var autoVacuum: Bool
    /// The schema format number (1–4).
    public var schemaFormat: Int
    /// The user version (`PRAGMA user_version`).
    public var userVersion: Int32
    /// The application ID (`PRAGMA application_id`).
    public var applicationID: Int32

    /// The page size less the reserved bytes: what b-tree pages use.
    public var usableSize: Int { pageSize - reservedBytes }
}

/// A read-only SQLite database: its tables, rows and BLOBs, read straight from the file
/// format (no libsqlite3), with the `-wal` and a hot `-journal` applied in memory as SQLite
/// would apply them.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "chat.db")
/// for table in database.tables { print(table.name, table.columns.map(\.name)) }
/// try database.forEachRow(in: "message") { row in print(row.rowid ?? 0, row.values) }
/// ```
///
/// Nothing is ever written or created: the files are opened `O_RDONLY`, no `-shm` is made,
/// and the database is read page by page with `pread`, so it works on read-only media and
/// on databases of any size within a few pages of memory (plus what is handed out).
/// Hostile files give ``SQLiteError``s, never a crash or a hang: every page a walk reaches
/// is reached once, so loops are found and work stays linear in the file's size.
public final class SQLiteDatabase {
    /// The database header (page 1, with the WAL or journal applied).
    public let header: SQLiteDatabaseHeader
    /// The tables of the schema that have a b-tree (virtual tables have none), in schema
    /// order, including SQLite's own (`sqlite_sequence`, `sqlite_stat1`).
    public let tables: [SQLiteTable]
    /// What was found wrong while opening — WAL frames or a journal ignored, schema
    /// entries not understood, damaged schema pages — none of which stopped the opening.
    public let problems: [SQLiteError]

    let pager: Pager
    /// The root pages of the schema's indexes (with their table's name), walked by
    /// recovery so that their pages count as reached.
    let indexRoots: [(name: String, table: String, root: UInt32)]

    /// Opens the database at `path` read-only, with its `path-wal` and `path-journal` if they
    /// exist.
    ///
    /// - Parameter path: The database file.
    /// - Throws: ``SQLiteError``: ``SQLiteError/Code/io`` when a file cannot be read,
    ///   ``SQLiteError/Code/notADatabase`` without a valid header,
    ///   ``SQLiteError/Code/truncated`` or ``SQLiteError/Code/corrupt`` when page 1 cannot
    ///   be read.
    public convenience init(path: String) throws(SQLiteError) {
        guard let database = try ByteSource(path: path, file: .database, missingIsNil: false) else {
            throw SQLiteError(.io, "cannot open \(path)")
        }
        let wal = try ByteSource(path: path + "-wal", file: .wal, missingIsNil: true)
        let journal = try ByteSource(path: path + "-journal", file: .journal, missingIsNil: true)
        try self.init(database: database, wal: wal, journal: journal)
    }

    /// Reads a database held in memory, with the contents of its `-wal` and `-journal`
    /// files if there are any.
    ///
    /// - Parameters:
    ///   - data: The database file's bytes.
    ///   - wal: The `-wal` file's bytes, or nil.
    ///   - journal: The `-journal` file's bytes, or nil.
    /// - Throws: ``SQLiteError`` as ``init(path:)``.
    public convenience init(contentsOf data: Data, wal: Data? = nil, journal: Data? = nil) throws(SQLiteError)
    {
        try self.init(
            database: ByteSource(data: data, file: .database),
            wal: wal.map { ByteSource(data: $0, file: .wal) },
            journal: journal.map { ByteSource(data: $0, file: .journal) })
    }

    init(database: ByteSource, wal walSource: ByteSource?, journal journalSource: ByteSource?)
        throws(SQLiteError)
    {
        var problems: [SQLiteError] = []
        guard database.count >= 100 else {
            throw SQLiteError(
                .notADatabase, "a file of \(database.count) bytes is too short for an SQLite database",
                offset: 0)
        }
        let first = try database.read(100, at: 0)
        guard Array(first[0..<16]) == Array("SQLite format 3\0".utf8) else {
            throw SQLiteError(
                .notADatabase, "not an SQLite database: no \"SQLite format 3\" header", offset: 0)
        }
        var pageSize = try Self.pageSize(first.bigEndian16(at: 16), offset: 16)

        // A hot journal first (SQLite rolls it back before it looks at a WAL).
        var journal: RollbackJournal?
        if let journalSource, journalSource.count > 0 {
            do {
                var log = try RollbackJournal(
                    source: journalSource, databasePageSize: pageSize,
                    lockBytePage: { Pager.lockBytePage(pageSize: $0) })
                if log.isHot, log.pageSize != pageSize {
                    log.problems.append(
                        SQLiteError(
                            .journalInvalid,
                            "the journal's page size \(log.pageSize) differs from the database's \(pageSize): not applied",
                            file: .journal, offset: 24))
                    log.isHot = false
                    log.restored = [:]
                    for index in log.records.indices { log.records[index].applied = false }
                }
                problems += log.problems
                journal = log
            } catch {
                problems.append(error)
            }
        }
        var wal: WriteAheadLog?
        if let walSource, walSource.count > 0 {
            do {
                let log = try WriteAheadLog(source: walSource)
                problems += log.problems
                if log.committedCount > 0, log.pageSize != pageSize {
                    if journal?.isHot != true, log.newestFrame[1] != nil {
                        pageSize = log.pageSize
                    } else {
                        problems.append(
                            SQLiteError(
                                .walInvalid,
                                "the WAL's page size \(log.pageSize) differs from the database's \(pageSize): ignored",
                                file: .wal, offset: 8))
                    }
                }
                if log.pageSize == pageSize { wal = log }
            } catch {
                problems.append(error)
            }
        }

        // The size SQLite would see, bounded by the pages that exist somewhere.
        let filePages = UInt32(clamping: database.count / pageSize)
        var available = filePages
        if let wal, let size = wal.databaseSize {
            let largest = wal.newestFrame.keys.max() ?? 0
            available = min(size, max(filePages, largest))
        } else if let journal, journal.isHot {
            let largest = journal.restored.keys.max() ?? 0
            available = min(journal.originalSize, max(filePages, largest))
        }
        let pager = Pager(
            database: database, wal: walSource, walLog: wal, journal: journalSource, journalLog: journal,
            pageSize: pageSize, pageCount: max(available, 1))
        let page1 = try pager.page(1)
        guard Array(page1[0..<16]) == Array("SQLite format 3\0".utf8) else {
            throw SQLiteError(
                .notADatabase, "page 1 (from the WAL or journal) has no SQLite header", page: 1, offset: 0)
        }
        let reserved = Int(page1[20])
        guard pageSize - reserved >= 480 else {
            throw SQLiteError(
                .notADatabase, "\(reserved) reserved bytes leave fewer than 480 usable bytes per page",
                page: 1,
                offset: 20)
        }
        guard page1[21] == 64, page1[22] == 32, page1[23] == 32 else {
            throw SQLiteError(
                .notADatabase, "payload fractions \(page1[21])/\(page1[22])/\(page1[23]) (must be 64/32/32)",
                page: 1,
                offset: 21)
        }
        pager.usableSize = pageSize - reserved
        let declared = page1.bigEndian32(at: 28)
        if declared != 0, page1.bigEndian32(at: 24) == page1.bigEndian32(at: 92) {
            if declared <= available {
                pager.pageCount = declared
            } else {
                problems.append(
                    SQLiteError(
                        .corrupt, "the header declares \(declared) pages, the files hold \(available)",
                        page: 1,
                        offset: 28))
            }
        }
        let encoding: SQLiteTextEncoding
        switch page1.bigEndian32(at: 56) {
        case 0, 1: encoding = .utf8
        case 2: encoding = .utf16LittleEndian
        case 3: encoding = .utf16BigEndian
        case let other:
            throw SQLiteError(.notADatabase, "unknown text encoding \(other)", page: 1, offset: 56)
        }
        header = SQLiteDatabaseHeader(
            pageSize: pageSize, reservedBytes: reserved, textEncoding: encoding,
            pageCount: Int(pager.pageCount),
            firstFreelistTrunk: page1.bigEndian32(at: 32), freelistCount: Int(page1.bigEndian32(at: 36)),
            isWAL: page1[18] == 2 || page1[19] == 2, autoVacuum: page1.bigEndian32(at: 52) != 0,
            schemaFormat: Int(page1.bigEndian32(at: 44)),
            userVersion: Int32(bitPattern: page1.bigEndian32(at: 60)),
            applicationID: Int32(bitPattern: page1.bigEndian32(at: 68)))
        self.pager = pager

        // The schema: sqlite_schema is the table b-tree rooted at page 1.
        var tables: [SQLiteTable] = []
        var indexRoots: [(name: String, table: String, root: UInt32)] = []
        let reader = BTreeReader(pager: pager, lenient: true)
        var payload: [UInt8] = []
        var layout = RecordLayout()
        do {
            try reader.walk(root: 1, table: true) { page, cell in
                do throws(SQLiteError) {
                    try reader.payload(of: cell, in: page, into: &payload)
                } catch {
                    try reader.skip(error)
                    return
                }
                guard layout.parse(payload, start: 0, limit: payload.count), layout.count >= 5 else {
                    try reader.skip(
                        SQLiteError(
                            .corrupt, "malformed schema record", page: page.number, offset: cell.offset))
                    return
                }
                func text(_ index: Int) -> String {
                    if case .text(let text) = layout.value(index, in: payload, encoding: encoding) {
                        return text
                    }
                    return ""
                }
                let type = text(0)
                let name = text(1)
                guard case .integer(let root) = layout.value(3, in: payload, encoding: encoding), root > 0,
                    root <= Int64(UInt32.max)
                else { return }
                if type == "table" {
                    do throws(SQLiteError) {
                        tables.append(
                            try SchemaParser.table(name: name, rootPage: UInt32(root), sql: text(4)))
                    } catch {
                        problems.append(error)
                    }
                } else if type == "index" {
                    indexRoots.append((name, text(2), UInt32(root)))
                }
            }
        } catch {
            problems.append(error as? SQLiteError ?? SQLiteError(.corrupt, "\(error)", page: 1))
        }
        problems += reader.problems
        self.tables = tables
        self.indexRoots = indexRoots
        self.problems = problems
    }

    private static func pageSize(_ raw: Int, offset: Int) throws(SQLiteError) -> Int {
        if raw == 1 { return 65536 }
        guard raw >= 512, raw <= 32768, raw & (raw - 1) == 0 else {
            throw SQLiteError(.notADatabase, "invalid page size \(raw)", page: 1, offset: offset)
        }
        return raw
    }

    /// Whether `prefix` (the first bytes of a file) starts with the SQLite header string.
    ///
    /// - Parameter prefix: At least the first 16 bytes of a file.
    /// - Returns: true when they are `SQLite format 3` and a NUL.
    public static func hasHeader(_ prefix: some Collection<UInt8>) -> Bool {
        prefix.starts(with: Array("SQLite format 3\0".utf8))
    }

    /// The table named `name` (compared without regard to ASCII case, as SQLite does).
    ///
    /// - Parameter name: A table name.
    /// - Returns: The table, or nil.
    public func table(named name: String) -> SQLiteTable? {
        let lowered = name.lowercased()
        return tables.first { $0.name.lowercased() == lowered }
    }

    /// Calls `body` with every row of the table named `name`, in key order, as SQLite's
    /// `SELECT * FROM name` returns them (with the WAL or a hot journal applied).
    ///
    /// - Parameters:
    ///   - name: The table's name.
    ///   - body: Called once per row; what it throws stops the walk and is rethrown.
    /// - Throws: ``SQLiteError/Code/noSuchTable``, an ``SQLiteError`` at the first damaged
    ///   page or record, or what `body` throws.
    /// - Complexity: O(n) in the table's size; memory of a few pages plus one row.
    public func forEachRow(in name: String, _ body: (SQLiteRow) throws -> Void) throws {
        guard let table = table(named: name) else {
            throw SQLiteError(.noSuchTable, "no table named \(name)")
        }
        try forEachRow(in: table, body)
    }

    /// Calls `body` with every row of `table`, in key order.
    ///
    /// - Parameters:
    ///   - table: A table of ``tables`` (or one described by hand).
    ///   - body: Called once per row.
    /// - Throws: An ``SQLiteError`` at the first damaged page or record, or what `body`
    ///   throws.
    public func forEachRow(in table: SQLiteTable, _ body: (SQLiteRow) throws -> Void) throws {
        let reader = BTreeReader(pager: pager, lenient: false)
        var payload: [UInt8] = []
        var layout = RecordLayout()
        let encoding = header.textEncoding
        try reader.walk(root: table.rootPage, table: !table.withoutRowID) { page, cell in
            try reader.payload(of: cell, in: page, into: &payload)
            guard layout.parse(payload, start: 0, limit: payload.count) else {
                throw SQLiteError(.corrupt, "malformed record", page: page.number, offset: cell.offset)
            }
            try body(
                Self.row(
                    of: table, rowid: table.withoutRowID ? nil : cell.rowid, payload, layout,
                    encoding: encoding))
        }
    }

    /// Every row of the table named `name`, in key order.
    ///
    /// - Parameter name: The table's name.
    /// - Returns: The rows.
    /// - Throws: As ``forEachRow(in:_:)-(String,_)``.
    /// - Complexity: Memory grows with the table; prefer ``forEachRow(in:_:)-(String,_)``
    ///   for large tables.
    public func rows(in name: String) throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        try forEachRow(in: name) { rows.append($0) }
        return rows
    }

    /// A row's values in declaration order from a parsed record.
    static func row(
        of table: SQLiteTable, rowid: Int64?, _ payload: [UInt8], _ layout: RecordLayout,
        encoding: SQLiteTextEncoding
    ) -> SQLiteRow {
        var values: [SQLiteValue] = []
        values.reserveCapacity(table.columns.count)
        for (index, column) in table.columns.enumerated() {
            if column.isRowIDAlias, let rowid {
                values.append(.integer(rowid))
                continue
            }
            guard let slot = table.storageIndex[index] else {
                values.append(.null)
                continue
            }
            guard slot < layout.count else {
                values.append(column.defaultValue)
                continue
            }
            var value = layout.value(slot, in: payload, encoding: encoding)
            if table.realAffinity[index], case .integer(let number) = value { value = .real(Double(number)) }
            values.append(value)
        }
        return SQLiteRow(rowid: rowid, values: values)
    }
}
