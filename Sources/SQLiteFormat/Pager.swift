/// Where a version of a page is stored.
enum PageLocation: Equatable {
    /// In the database file.
    case database
    /// In the `-wal` file: frame index (0-based) in ``WriteAheadLog/frames``.
    case wal(Int)
    /// In the `-journal` file: record index in ``RollbackJournal/records``.
    case journal(Int)
}

/// Reads pages as SQLite sees them: the newest committed WAL frame of a page if there is
/// one, else the journal's image when a hot journal is rolled back, else the database file.
final class Pager {
    let database: ByteSource
    let wal: ByteSource?
    let walLog: WriteAheadLog?
    let journal: ByteSource?
    let journalLog: RollbackJournal?
    let pageSize: Int
    /// The database size in pages, as SQLite would see it.
    var pageCount: UInt32
    /// The page that holds the bytes at 1 GiB, used by the locking protocol and never by the
    /// database.
    let lockBytePage: UInt32
    var usableSize: Int

    init(
        database: ByteSource, wal: ByteSource?, walLog: WriteAheadLog?, journal: ByteSource?,
        journalLog: RollbackJournal?, pageSize: Int, pageCount: UInt32
    ) {
        self.database = database
        self.wal = wal
        self.walLog = walLog
        self.journal = journal
        self.journalLog = journalLog
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.usableSize = pageSize
        lockBytePage = Self.lockBytePage(pageSize: pageSize)
    }

    static func lockBytePage(pageSize: Int) -> UInt32 { UInt32(0x4000_0000 / pageSize + 1) }

    /// Where the live version of `page` is stored.
    func location(of page: UInt32) -> PageLocation {
        if let index = walLog?.newestFrame[page] { return .wal(index) }
        if let index = journalLog?.restored[page] { return .journal(index) }
        return .database
    }

    /// Reads the live version of `page` into `buffer`.
    ///
    /// - Throws: ``SQLiteError/Code/corrupt`` for a page number outside the database or the
    ///   lock-byte page, ``SQLiteError/Code/truncated`` when its bytes are missing.
    func read(_ page: UInt32, into buffer: inout [UInt8]) throws(SQLiteError) {
        guard page >= 1, page <= pageCount else {
            throw SQLiteError(
                .corrupt, "page number \(page) is outside the database (\(pageCount) pages)", page: page)
        }
        guard page != lockBytePage else {
            throw SQLiteError(.corrupt, "page \(page) is the lock-byte page, which holds no data", page: page)
        }
        try read(page, at: location(of: page), into: &buffer)
    }

    /// Reads one stored version of `page`.
    func read(_ page: UInt32, at location: PageLocation, into buffer: inout [UInt8]) throws(SQLiteError) {
        switch location {
        case .database:
            let offset = (Int(page) - 1) * pageSize
            guard offset + pageSize <= database.count else {
                throw SQLiteError(
                    .truncated,
                    "page \(page) lies past the end of the database file (\(database.count) bytes, "
                        + "\(database.count / pageSize) pages)", page: page)
            }
            try database.read(pageSize, at: offset, into: &buffer, page: page)
        case .wal(let index):
            guard let wal, let walLog else { return }
            try wal.read(pageSize, at: walLog.frames[index].dataOffset, into: &buffer, page: page)
        case .journal(let index):
            guard let journal, let journalLog else { return }
            try journal.read(pageSize, at: journalLog.records[index].dataOffset, into: &buffer, page: page)
        }
    }

    func page(_ number: UInt32) throws(SQLiteError) -> [UInt8] {
        var buffer: [UInt8] = []
        try read(number, into: &buffer)
        return buffer
    }
}

/// One bit per page: pages already reached, so that no page is read twice by a walk (a loop
/// or a page shared by two b-trees is reported instead of followed).
struct PageSet {
    private var words: [UInt64]

    init(pageCount: UInt32) {
        words = Array(repeating: 0, count: Int(pageCount) / 64 + 1)
    }

    func contains(_ page: UInt32) -> Bool {
        let index = Int(page) >> 6
        return index < words.count && words[index] & (1 << UInt64(page & 63)) != 0
    }

    /// Adds `page`; false if it was already there (or is beyond the set).
    mutating func insert(_ page: UInt32) -> Bool {
        let index = Int(page) >> 6
        guard index < words.count else { return false }
        let bit: UInt64 = 1 << UInt64(page & 63)
        if words[index] & bit != 0 { return false }
        words[index] |= bit
        return true
    }
}
