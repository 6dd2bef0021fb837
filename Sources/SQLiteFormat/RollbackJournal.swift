/// A hot rollback journal (`-journal`): the original images of the pages an unfinished
/// transaction changed, read as SQLite plays them back.
///
/// The journal is a sequence of segments, each a header padded to the sector size and its
/// page records (page number, page image, checksum). Playback stops at the first header
/// without the magic number, at a record whose checksum does not match, or at page 0 or the
/// lock-byte page; records for pages beyond the original database size are skipped, and
/// the database is cut back to that size. Later records replace earlier ones, as writes
/// would. A journal whose first header has no magic (committed in `PERSIST` mode, zeroed)
/// is not hot and changes nothing; its page images are still there for recovery.
struct RollbackJournal {
    static let magic: [UInt8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]

    /// One page image in the journal.
    struct Record {
        var page: UInt32
        var dataOffset: Int
        /// Whether playback writes this image back.
        var applied: Bool
    }

    /// Whether SQLite would roll this journal back.
    var isHot = false
    var pageSize = 0
    /// The database size in pages before the transaction (valid when hot).
    var originalSize: UInt32 = 0
    var records: [Record] = []
    /// Page → index in ``records`` of the image playback leaves in the database.
    var restored: [UInt32: Int] = [:]
    var problems: [SQLiteError] = []

    /// Reads the journal's headers and records.
    ///
    /// - Parameters:
    ///   - databasePageSize: The page size of the database file, used for a journal that
    ///     is not hot (whose header was zeroed).
    init(source: ByteSource, databasePageSize: Int, lockBytePage: (Int) -> UInt32) throws(SQLiteError) {
        guard source.count >= 28 else { return }
        let first = try source.read(28, at: 0)
        guard Array(first[0..<8]) == Self.magic else {
            // Not hot; a zeroed header (PERSIST mode) may still be followed by old records.
            collectStaleRecords(source: source, pageSize: databasePageSize)
            return
        }
        let sectorSize = Int(first.bigEndian32(at: 20))
        let size = Int(first.bigEndian32(at: 24))
        guard size >= 512, size <= 65536, size & (size - 1) == 0, sectorSize >= 32, sectorSize <= 65536,
            sectorSize & (sectorSize - 1) == 0
        else {
            problems.append(
                SQLiteError(
                    .journalInvalid,
                    "invalid page size \(size) or sector size \(sectorSize) in the journal header",
                    file: .journal, offset: 20))
            return
        }
        pageSize = size
        isHot = true
        originalSize = first.bigEndian32(at: 16)
        let lockByte = lockBytePage(size)
        let recordSize = pageSize + 8
        var headerOffset = 0
        var buffer: [UInt8] = []
        var stopped = false
        while !stopped, headerOffset + 28 <= source.count {
            let header = try source.read(28, at: headerOffset)
            guard Array(header[0..<8]) == Self.magic else { break }
            var recordCount = Int(header.bigEndian32(at: 8))
            let checksumSeed = header.bigEndian32(at: 12)
            var offset = headerOffset + sectorSize
            if header.bigEndian32(at: 8) == 0xffff_ffff {
                recordCount = max(0, (source.count - offset) / recordSize)
            }
            var read = 0
            while read < recordCount {
                guard offset + recordSize <= source.count else {
                    stopped = true
                    break
                }
                try source.read(recordSize, at: offset, into: &buffer)
                let page = buffer.bigEndian32(at: 0)
                if page == 0 || page == lockByte {
                    stopped = true
                    break
                }
                var sum = checksumSeed
                var index = pageSize - 200
                while index > 0 {
                    sum = sum &+ UInt32(buffer[4 + index])
                    index -= 200
                }
                if sum != buffer.bigEndian32(at: 4 + pageSize) {
                    problems.append(
                        SQLiteError(
                            .journalInvalid,
                            "checksum mismatch in the record for page \(page): playback stops here",
                            file: .journal, offset: offset))
                    stopped = true
                    break
                }
                let applied = page <= originalSize
                records.append(Record(page: page, dataOffset: offset + 4, applied: applied))
                if applied { restored[page] = records.count - 1 }
                offset += recordSize
                read += 1
            }
            // The next segment starts at the next sector boundary.
            // The next segment starts at the next sector boundary (always further on: the
            // records start a sector after their header).
            headerOffset = (offset + sectorSize - 1) / sectorSize * sectorSize
        }
    }

    /// A journal that is not hot: page images after the zeroed header, kept for recovery
    /// only. The sector size is unknown; SQLite's default of 512 bytes is assumed.
    private mutating func collectStaleRecords(source: ByteSource, pageSize: Int) {
        guard pageSize >= 512 else { return }
        self.pageSize = pageSize
        var offset = 512
        while offset + pageSize + 8 <= source.count {
            guard let number = try? source.read(4, at: offset).bigEndian32(at: 0) else { break }
            records.append(Record(page: number, dataOffset: offset + 4, applied: false))
            offset += pageSize + 8
        }
    }
}
