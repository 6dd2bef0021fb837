/// The frames of a `-wal` file, validated as SQLite validates them when it rebuilds its
/// WAL index without a `-shm` file.
///
/// A frame is valid when its salts equal the header's, its page number is not zero and its
/// checksum, cumulative from the header's, matches; the first invalid frame ends the log.
/// Only frames up to the last valid *commit* frame (one whose "database size after
/// commit" is not zero) are part of the database; later frames belong to a transaction that
/// never committed.
struct WriteAheadLog {
    static let headerSize = 32
    static let frameHeaderSize = 24

    /// One frame: the page it holds and where that page's bytes start in the `-wal` file.
    struct Frame {
        var page: UInt32
        var dataOffset: Int
        /// The database size in pages after this commit, or 0 for a frame inside a
        /// transaction.
        var databaseSize: UInt32
        /// Whether the frame is part of the database: valid and at or before the last valid
        /// commit frame.
        var committed: Bool
    }

    let pageSize: Int
    /// Every frame in file order, the valid ones first; `frames.count - validCount` frames
    /// follow the first invalid one (kept for recovery).
    var frames: [Frame] = []
    /// The number of frames up to the last valid commit frame.
    var committedCount = 0
    /// The database size in pages after the last commit, or nil without a commit.
    var databaseSize: UInt32?
    /// The page number → index in ``frames`` of its newest committed frame.
    var newestFrame: [UInt32: Int] = [:]
    /// Why frames were ignored, if any were.
    var problems: [SQLiteError] = []

    /// Reads the header and every frame header of `source`, checking checksums.
    ///
    /// - Throws: ``SQLiteError/Code/walInvalid`` when the header is invalid (SQLite then
    ///   ignores the whole file).
    init(source: ByteSource) throws(SQLiteError) {
        guard source.count >= Self.headerSize else {
            throw SQLiteError(.walInvalid, "the -wal file of \(source.count) bytes has no header", file: .wal)
        }
        let header = try source.read(Self.headerSize, at: 0)
        let magic = header.bigEndian32(at: 0)
        guard magic == 0x377f_0682 || magic == 0x377f_0683 else {
            throw SQLiteError(
                .walInvalid, "bad magic number 0x\(String(magic, radix: 16)) in the WAL header", file: .wal,
                offset: 0)
        }
        let bigEndianChecksums = magic & 1 == 1
        let version = header.bigEndian32(at: 4)
        guard version == 3_007_000 else {
            throw SQLiteError(.walInvalid, "unknown WAL format version \(version)", file: .wal, offset: 4)
        }
        let rawPageSize = Int(header.bigEndian32(at: 8))
        guard rawPageSize >= 512, rawPageSize <= 65536, rawPageSize & (rawPageSize - 1) == 0 else {
            throw SQLiteError(
                .walInvalid, "invalid page size \(rawPageSize) in the WAL header", file: .wal, offset: 8)
        }
        pageSize = rawPageSize
        var checksum = Self.checksum(header, range: 0..<24, bigEndian: bigEndianChecksums, seed: (0, 0))
        guard checksum.0 == header.bigEndian32(at: 24), checksum.1 == header.bigEndian32(at: 28) else {
            throw SQLiteError(.walInvalid, "the WAL header's checksum does not match", file: .wal, offset: 24)
        }
        let salt1 = header.bigEndian32(at: 16)
        let salt2 = header.bigEndian32(at: 20)

        let frameSize = Self.frameHeaderSize + pageSize
        let frameCount = (source.count - Self.headerSize) / frameSize
        frames.reserveCapacity(frameCount)
        var buffer: [UInt8] = []
        var valid = true
        var firstInvalid = frameCount
        for index in 0..<frameCount {
            let offset = Self.headerSize + index * frameSize
            if valid {
                try source.read(frameSize, at: offset, into: &buffer)
                let page = buffer.bigEndian32(at: 0)
                let size = buffer.bigEndian32(at: 4)
                var reason: String?
                if buffer.bigEndian32(at: 8) != salt1 || buffer.bigEndian32(at: 12) != salt2 {
                    reason = "its salts differ from the header's (a frame of an earlier log)"
                } else if page == 0 {
                    reason = "its page number is 0"
                } else {
                    checksum = Self.checksum(
                        buffer, range: 0..<8, bigEndian: bigEndianChecksums, seed: checksum)
                    checksum = Self.checksum(
                        buffer, range: Self.frameHeaderSize..<frameSize, bigEndian: bigEndianChecksums,
                        seed: checksum)
                    if checksum.0 != buffer.bigEndian32(at: 16) || checksum.1 != buffer.bigEndian32(at: 20) {
                        reason = "its checksum does not match"
                    }
                }
                if let reason {
                    valid = false
                    firstInvalid = index
                    problems.append(
                        SQLiteError(
                            .walInvalid,
                            "frame \(index + 1) and the \(frameCount - index - 1) after it are ignored: \(reason)",
                            file: .wal, offset: offset))
                    // Kept for recovery: the page number is only a guess here.
                    frames.append(
                        Frame(
                            page: page, dataOffset: offset + Self.frameHeaderSize, databaseSize: 0,
                            committed: false))
                    continue
                }
                frames.append(
                    Frame(
                        page: page, dataOffset: offset + Self.frameHeaderSize, databaseSize: size,
                        committed: false))
                if size != 0 {
                    committedCount = frames.count
                    databaseSize = size
                }
            } else {
                // Only the page number, for recovery: the rest is not trusted.
                try source.read(4, at: offset, into: &buffer)
                frames.append(
                    Frame(
                        page: buffer.bigEndian32(at: 0), dataOffset: offset + Self.frameHeaderSize,
                        databaseSize: 0,
                        committed: false))
            }
        }
        let validCount = firstInvalid
        if validCount > committedCount {
            problems.append(
                SQLiteError(
                    .walInvalid,
                    "\(validCount - committedCount) valid frame(s) after the last commit frame belong to a transaction "
                        + "that did not commit: not applied",
                    file: .wal, offset: Self.headerSize + committedCount * frameSize))
        }
        for index in 0..<committedCount {
            frames[index].committed = true
            newestFrame[frames[index].page] = index
        }
    }

    /// SQLite's WAL checksum over `range` (a multiple of 8 bytes), continuing from `seed`;
    /// the 32-bit words are read big-endian or little-endian as the magic number says.
    static func checksum(_ bytes: [UInt8], range: Range<Int>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (
        UInt32, UInt32
    ) {
        var s1 = seed.0
        var s2 = seed.1
        bytes.withUnsafeBufferPointer { buffer in
            var index = range.lowerBound
            let end = range.upperBound
            if bigEndian {
                while index + 8 <= end {
                    let a =
                        UInt32(buffer[index]) << 24 | UInt32(buffer[index + 1]) << 16 | UInt32(
                            buffer[index + 2]) << 8
                        | UInt32(buffer[index + 3])
                    let b =
                        UInt32(buffer[index + 4]) << 24 | UInt32(buffer[index + 5]) << 16
                        | UInt32(buffer[index + 6]) << 8 | UInt32(buffer[index + 7])
                    s1 = s1 &+ a &+ s2
                    s2 = s2 &+ b &+ s1
                    index += 8
                }
            } else {
                while index + 8 <= end {
                    let a =
                        UInt32(buffer[index + 3]) << 24 | UInt32(buffer[index + 2]) << 16
                        | UInt32(buffer[index + 1]) << 8 | UInt32(buffer[index])
                    let b =
                        UInt32(buffer[index + 7]) << 24 | UInt32(buffer[index + 6]) << 16
                        | UInt32(buffer[index + 5]) << 8 | UInt32(buffer[index + 4])
                    s1 = s1 &+ a &+ s2
                    s2 = s2 &+ b &+ s1
                    index += 8
                }
            }
        }
        return (s1, s2)
    }
}
