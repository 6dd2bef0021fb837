#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
///
/// A journal of a transaction over several attached databases ends with the name of its
/// super-journal (SQLite's `readSuperJournal`: the name, its length, a checksum of its bytes
/// and the magic, as the last 16 bytes of the file). Deleting the super-journal is what
/// commits such a transaction, so a journal that names one that no longer exists is not
/// hot: SQLite does not play it back, and neither does this reader (its images are kept
/// for recovery).
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
    /// The super-journal the journal names (a multi-database transaction), if any.
    var superJournal: String?

    /// Reads the journal's headers and records.
    ///
    /// - Parameters:
    ///   - databasePageSize: The page size of the database file, used for a journal that
    ///     is not hot (whose header was zeroed).
    ///   - superJournalExists: Whether a super-journal of that name exists (by default,
    ///     as SQLite asks: a file or other entry that is not an empty regular file,
    ///     relative names from the working directory).
    init(
        source: ByteSource, databasePageSize: Int, lockBytePage: (Int) -> UInt32,
        superJournalExists: (String) -> Bool = Self.fileExists
    ) throws(SQLiteError) {
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
        superJournal = try Self.superJournalName(source)
        if let superJournal, !superJournalExists(superJournal) {
            // The multi-database transaction committed: the journal is not played back.
            isHot = false
        }
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
                let applied = isHot && page <= originalSize
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

    /// Whether a super-journal exists at `path` as SQLite's `unixAccess` decides it: the
    /// path exists and is not an empty regular file (nothing is opened).
    static func fileExists(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & 0o170000 != 0o100000 || info.st_size > 0
    }

    /// The super-journal name at the end of the journal, as SQLite's `readSuperJournal`
    /// reads it: the last 16 bytes are the name's length and checksum (big-endian) and the
    /// journal magic, the name just before them; nil when there is none (a length of 0,
    /// larger than SQLite's 512-byte path limit or than the file, another magic, or a
    /// checksum that does not match: the sum of the name's bytes as C `char`s, signed).
    static func superJournalName(_ source: ByteSource) throws(SQLiteError) -> String? {
        let size = source.count
        guard size >= 16 else { return nil }
        let tail = try source.read(16, at: size - 16)
        let length = Int(tail.bigEndian32(at: 0))
        guard length > 0, length < 513, length <= size - 16, Array(tail[8..<16]) == magic else { return nil }
        let name = try source.read(length, at: size - 16 - length)
        var sum = tail.bigEndian32(at: 4)
        for byte in name { sum = sum &- UInt32(bitPattern: Int32(Int8(bitPattern: byte))) }
        guard sum == 0 else { return nil }
        // The name ends at its first NUL, as a C string.
        let text = name.prefix { $0 != 0 }
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
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
