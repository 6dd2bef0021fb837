#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A BLOB found in a database, with where it came from.
public struct SQLiteBlob: Sendable {
    /// Where a BLOB was found. Only ``live`` BLOBs are what SQLite itself returns; the other
    /// origins are recovered (``SQLiteBlobScanOptions/recover``) and name the place in the
    /// files the bytes were read from.
    public enum Origin: String, Sendable, CaseIterable {
        /// A row SQLite returns (with the WAL or a hot journal applied).
        case live
        /// A deleted cell in a freeblock of a b-tree page in use (its first four bytes,
        /// usually the cell header, overwritten by the freeblock's link and size).
        case freeblock
        /// A deleted or moved cell in the unallocated space of a b-tree page in use, between
        /// the cell pointer array and the cell content area.
        case unallocated
        /// A page on the freelist: pages of deleted rows and dropped tables.
        case freelist
        /// An older version of a page whose live version is elsewhere in the WAL: an earlier
        /// frame, a frame after the last commit or with a bad checksum, or the database
        /// file's copy of a page the WAL replaces.
        case walOld = "wal-old"
        /// A page image in the rollback journal that is not live (a journal that is not hot),
        /// or a database page that a hot journal rolls back (an unfinished transaction's).
        case journal
        /// A page no b-tree, overflow chain, freelist or pointer map reaches (or past the
        /// database's declared end): what corruption or an interrupted operation left.
        case orphan
    }

    /// The table the row belongs to, or nil when unknown (a record of a dropped table, or
    /// bytes found by signature alone).
    public var table: String?
    /// The column, or nil when unknown.
    public var column: String?
    /// The rowid, or nil for a `WITHOUT ROWID` table or when the cell header is lost.
    public var rowid: Int64?
    /// The primary key's values, for a row of a `WITHOUT ROWID` table.
    public var primaryKey: [SQLiteValue]?
    /// Where the BLOB was found.
    public var origin: Origin
    /// Whether the BLOB was found by its signature alone (`bplist00`, `streamtyped`,
    /// `<?xml`, `<plist`), with no record around it: ``table``, ``column`` and ``rowid``
    /// are then nil, and its length is a guess for typedstreams.
    public var foundBySignature: Bool
    /// The page holding the cell (or the signature): its number in the database.
    public var page: UInt32
    /// The offset in ``page`` of the cell, or of the BLOB when found by signature.
    public var offset: Int
    /// The BLOB's bytes.
    public var data: Data
    /// The whole row, when ``SQLiteBlobScanOptions/includeRows`` asks for it and the row is
    /// known (live and record-recovered BLOBs).
    public var row: SQLiteRow?
    /// How the value is stored: a BLOB, or TEXT (``SQLiteBlobScanOptions/includeText``).
    public var storage: Storage = .blob

    /// The storage class of a value ``SQLiteDatabase/forEachBlob(options:_:)`` reports.
    public enum Storage: String, Sendable, CaseIterable {
        /// A BLOB: ``SQLiteBlob/data`` holds its bytes.
        case blob
        /// TEXT that may hold a property list (see ``SQLiteBlobScanOptions/includeText``):
        /// ``SQLiteBlob/data`` holds its UTF-8 bytes (converted from UTF-16 in a UTF-16
        /// database).
        case text
    }
}

/// What ``SQLiteDatabase/forEachBlob(options:_:)`` reads.
public struct SQLiteBlobScanOptions: Sendable {
    /// Whether deleted and older data is searched too (freeblocks, unallocated space, the
    /// freelist, older WAL frames, journal images, orphan pages); only live rows otherwise.
    public var recover: Bool
    /// The tables to read (names compared case-insensitively), or nil for all. Recovered
    /// BLOBs whose table is unknown are reported whatever this says.
    public var tables: Set<String>?
    /// Whether each BLOB carries its whole row (``SQLiteBlob/row``); costs a decode of every
    /// column.
    public var includeRows: Bool
    /// Recovered BLOBs shorter than this are not reported (live ones always are).
    public var minimumRecoveredLength: Int
    /// Whether TEXT values that may hold a property list are reported too, with
    /// ``SQLiteBlob/storage`` `.text`: those that start, after white space (and a UTF-8
    /// byte-order mark), with `<?xml`, `<plist` or `<!DOCTYPE plist` (XML property lists),
    /// with `bplist00` (a binary one stored as text), or with the Base64 of `bplist0`,
    /// `<?xml ` or `<plist` (`YnBsaXN0MD`, `PD94bWwg`, `PHBsaXN0`). Other TEXT is skipped
    /// without being copied. Off by default.
    public var includeText = false

    /// Creates options.
    ///
    /// - Parameters:
    ///   - recover: Whether to search deleted and older data.
    ///   - tables: The tables to read, nil for all.
    ///   - includeRows: Whether BLOBs carry their rows.
    ///   - minimumRecoveredLength: The least length of a recovered BLOB.
    ///   - includeText: Whether TEXT values that may hold a property list are reported.
    public init(
        recover: Bool = false, tables: Set<String>? = nil, includeRows: Bool = false,
        minimumRecoveredLength: Int = 8, includeText: Bool = false
    ) {
        self.includeText = includeText
        self.recover = recover
        self.tables = tables
        self.includeRows = includeRows
        self.minimumRecoveredLength = minimumRecoveredLength
    }
}

/// What a scan skipped and found.
public struct SQLiteScanReport: Sendable {
    /// Damaged pages, cells and chains that were skipped, each with its place.
    public var problems: [SQLiteError] = []
    /// How many live BLOBs were reported.
    public var liveCount = 0
    /// How many recovered BLOBs were reported.
    public var recoveredCount = 0
}

extension SQLiteDatabase {
    /// Calls `body` with every BLOB of the database's tables — live rows first, in table and
    /// key order, then, when recovering, what is found in deleted and older data.
    ///
    /// Damage does not stop the scan: a damaged page, cell or chain is skipped and reported
    /// in the returned report. A recovered BLOB byte-identical to one already reported is
    /// not reported again.
    ///
    /// - Parameters:
    ///   - options: What to read.
    ///   - body: Called with each BLOB; what it throws stops the scan and is rethrown.
    /// - Returns: The problems met, and counts.
    /// - Throws: Only what `body` throws.
    /// - Complexity: O(n) in the size of the files, each page read at most twice
    ///   (three times when recovering); memory of a few pages plus one row, and with
    ///   `recover` a 16-byte fingerprint per BLOB reported.
    @discardableResult
    public func forEachBlob(options: SQLiteBlobScanOptions = .init(), _ body: (SQLiteBlob) throws -> Void)
        throws
        -> SQLiteScanReport
    {
        let scanner = BlobScanner(database: self, options: options)
        return try scanner.run(body)
    }
}
