#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds the BLOBs of a database: the live ones by walking every table, then, when
/// recovering, the ones left in free space, on the freelist, in older page versions and on
/// pages nothing reaches.
final class BlobScanner {
    private let database: SQLiteDatabase
    private let options: SQLiteBlobScanOptions
    private let pager: Pager
    private let reader: BTreeReader
    private let encoding: SQLiteTextEncoding
    private let wanted: [Bool]
    /// For each table, the column index of each record slot.
    private let slotColumns: [[Int]]
    private var report = SQLiteScanReport()
    /// Fingerprints of the BLOBs reported (when recovering).
    private var seen = Set<Fingerprint>()
    /// B-tree pages reached by live walks, with the table they belong to (nil: an index or
    /// the schema).
    private var livePages: [(page: UInt32, table: Int?)] = []
    private var pageOwner: [UInt32: Int] = [:]
    private var payload: [UInt8] = []
    /// The version of the files an old page being carved belongs to, for its overflow pages.
    private var snapshot = Snapshot.live
    /// For each page in the WAL, its frames' indices in order (made when first needed).
    private lazy var framesByPage: [UInt32: [Int]] = {
        var frames: [UInt32: [Int]] = [:]
        for (index, frame) in (pager.walLog?.frames ?? []).enumerated() {
            frames[frame.page, default: []].append(index)
        }
        return frames
    }()

    /// For each page in the journal, its first (oldest) image.
    private lazy var firstJournalRecord: [UInt32: Int] = {
        var first: [UInt32: Int] = [:]
        for (index, record) in (pager.journalLog?.records ?? []).enumerated() where first[record.page] == nil
        {
            first[record.page] = index
        }
        return first
    }()

    private enum Snapshot {
        case live
        /// As of WAL frame `index`: each page's latest frame up to it, else the database file.
        case walFrame(Int)
        /// The database file alone.
        case database
        /// Before the journal's transaction: journal images, else the database file.
        case journal
    }

    private func overflowLocation(_ page: UInt32) -> PageLocation? {
        switch snapshot {
        case .live: return nil
        case .database: return .database
        case .walFrame(let index):
            if let frame = framesByPage[page]?.last(where: { $0 <= index }) { return .wal(frame) }
            return .database
        case .journal:
            if let record = firstJournalRecord[page] { return .journal(record) }
            return .database
        }
    }
    private var layout = RecordLayout()

    /// A BLOB's length and a hash of all its bytes (`Data`'s own hash reads only a prefix).
    private struct Fingerprint: Hashable {
        var count: Int
        var hash: Int

        init(_ data: Data) {
            var hasher = Hasher()
            data.withUnsafeBytes { hasher.combine(bytes: $0) }
            count = data.count
            hash = hasher.finalize()
        }
    }

    init(database: SQLiteDatabase, options: SQLiteBlobScanOptions) {
        self.database = database
        self.options = options
        pager = database.pager
        reader = BTreeReader(pager: database.pager, lenient: true)
        encoding = database.header.textEncoding
        let names = options.tables.map { Set($0.map { $0.lowercased() }) }
        wanted = database.tables.map { names?.contains($0.name.lowercased()) ?? true }
        slotColumns = database.tables.map { table in
            var columns = Array(repeating: -1, count: table.columns.count)
            for (index, slot) in table.storageIndex.enumerated() {
                if let slot, slot < columns.count { columns[slot] = index }
            }
            return columns
        }
    }

    func run(_ body: (SQLiteBlob) throws -> Void) throws -> SQLiteScanReport {
        for (index, table) in database.tables.enumerated() where wanted[index] || options.recover {
            try reader.walk(
                root: table.rootPage, table: !table.withoutRowID,
                onPage: { page in
                    if options.recover {
                        livePages.append((page.number, index))
                        pageOwner[page.number] = index
                    }
                }
            ) { page, cell in
                try live(cell, in: page, table: index, body)
            }
        }
        if options.recover {
            try recover(body)
        }
        report.problems = database.problems + reader.problems + report.problems
        return report
    }

    // MARK: Live rows

    private func live(
        _ cell: BTreePage.Cell, in page: BTreePage, table index: Int, _ body: (SQLiteBlob) throws -> Void
    )
        throws
    {
        let table = database.tables[index]
        let emitting = wanted[index]
        if !emitting && !options.recover { return }
        // Without a BLOB in the record header (nearly always in the page), the overflow
        // chain need not be read — unless recovering, where every page reached counts.
        if !options.recover && !options.includeRows && cell.localSize < cell.payloadSize {
            if layout.parseHeader(
                page.bytes, start: cell.localStart, limit: cell.localStart + cell.localSize),
                !layout.types.contains(where: { $0 >= 12 && $0 & 1 == 0 })
            {
                return
            }
        }
        do throws(SQLiteError) {
            try reader.payload(of: cell, in: page, into: &payload)
        } catch {
            try reader.skip(error)
            return
        }
        guard layout.parse(payload, start: 0, limit: payload.count) else {
            try reader.skip(SQLiteError(.corrupt, "malformed record", page: page.number, offset: cell.offset))
            return
        }
        guard emitting else { return }
        let rowid = table.withoutRowID ? nil : cell.rowid
        try emitRecord(
            table: index, rowid: rowid, bytes: payload, origin: .live, page: page.number, offset: cell.offset,
            minimumLength: 0, body)
    }

    /// Reports the BLOBs of the record parsed in ``layout`` from `bytes`.
    private func emitRecord(
        table index: Int?, rowid: Int64?, bytes: [UInt8], origin: SQLiteBlob.Origin, page: UInt32,
        offset: Int,
        minimumLength: Int, _ body: (SQLiteBlob) throws -> Void
    ) throws {
        var row: SQLiteRow?
        var primaryKey: [SQLiteValue]?
        let table = index.map { database.tables[$0] }
        for slot in 0..<layout.count {
            let type = layout.types[slot]
            guard type >= 12 else { continue }
            let storage: SQLiteBlob.Storage = type & 1 == 0 ? .blob : .text
            let length = Int((type - 12) >> 1)
            guard length >= minimumLength else { continue }
            let start = layout.offsets[slot]
            let data: Data
            if storage == .text {
                guard options.includeText, let text = propertyListText(bytes, start: start, length: length)
                else {
                    continue
                }
                data = text
            } else {
                data = Data(bytes[start..<start + length])
            }
            if options.recover {
                let fingerprint = Fingerprint(data)
                guard seen.insert(fingerprint).inserted || origin == .live else { continue }
            }
            if let table, let index {
                if row == nil, options.includeRows {
                    row = SQLiteDatabase.row(of: table, rowid: rowid, bytes, layout, encoding: encoding)
                }
                if table.withoutRowID, primaryKey == nil {
                    primaryKey = (0..<min(table.primaryKey.count, layout.count)).map {
                        layout.value($0, in: bytes, encoding: encoding)
                    }
                }
                let column = slot < slotColumns[index].count ? slotColumns[index][slot] : -1
                try body(
                    SQLiteBlob(
                        table: table.name, column: column >= 0 ? table.columns[column].name : nil,
                        rowid: rowid,
                        primaryKey: primaryKey, origin: origin, foundBySignature: false, page: page,
                        offset: offset,
                        data: data, row: row, storage: storage))
            } else {
                try body(
                    SQLiteBlob(
                        table: nil, column: nil, rowid: rowid, primaryKey: nil, origin: origin,
                        foundBySignature: false,
                        page: page, offset: offset, data: data, row: nil, storage: storage))
            }
            if origin == .live { report.liveCount += 1 } else { report.recoveredCount += 1 }
        }
    }

    /// The UTF-8 bytes of the TEXT value at `start` when it may hold a property list (as
    /// ``SQLiteBlobScanOptions/includeText`` says), else nil; the first bytes are looked at
    /// in place, so other TEXT costs no copy.
    private func propertyListText(_ bytes: [UInt8], start: Int, length: Int) -> Data? {
        guard encoding != .utf8 else {
            guard Self.mayHoldPropertyList(bytes[start..<start + length]) else { return nil }
            return Data(bytes[start..<start + length])
        }
        // UTF-16: the first characters converted to see whether the text qualifies.
        let head = Array(encoding.decode(bytes, start..<start + (min(length, 160) & ~1)).utf8)
        guard Self.mayHoldPropertyList(head[...]) else { return nil }
        return Data(encoding.decode(bytes, start..<start + length).utf8)
    }

    /// Whether text (its first bytes, UTF-8) starts as a property list stored as text may:
    /// see ``SQLiteBlobScanOptions/includeText``.
    static func mayHoldPropertyList(_ text: ArraySlice<UInt8>) -> Bool {
        var index = text.startIndex
        let end = text.endIndex
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < end,
            text[index] == 0x20 || text[index] == 0x0A || text[index] == 0x0D || text[index] == 0x09
        {
            index += 1
        }
        let rest = text[index..<min(end, index + 16)]
        for marker in textMarkers where rest.starts(with: marker) { return true }
        return false
    }

    /// The starts of TEXT that may hold a property list.
    private static let textMarkers: [[UInt8]] = [
        "<?xml", "<plist", "<!DOCTYPE plist", "bplist00", "YnBsaXN0MD", "PD94bWwg", "PHBsaXN0",
    ].map { Array($0.utf8) }

    // MARK: Recovery

    private func recover(_ body: (SQLiteBlob) throws -> Void) throws {
        // Every page in use counts as reached: the schema, the indexes.
        try reader.walk(root: 1, table: true, onPage: { livePages.append(($0.number, nil)) }) { page, cell in
            do throws(SQLiteError) {
                try reader.payload(of: cell, in: page, into: &payload)
            } catch {
                try reader.skip(error)
            }
        }
        for index in database.indexRoots {
            try reader.walk(root: index.root, table: false, onPage: { livePages.append(($0.number, nil)) }) {
                page, cell in
                do throws(SQLiteError) {
                    try reader.payload(of: cell, in: page, into: &payload)
                } catch {
                    try reader.skip(error)
                }
            }
        }

        // Free space on live pages.
        var bytes: [UInt8] = []
        for (number, owner) in livePages {
            guard fetch(number, at: nil, into: &bytes),
                let page = try? BTreePage(number: number, bytes: bytes, usableSize: pager.usableSize)
            else { continue }
            try carveFreeSpace(
                page, owner: owner, freeblockOrigin: .freeblock, unallocatedOrigin: .unallocated, body)
        }

        // The freelist.
        var known = PageSet(pageCount: pager.pageCount)
        var trunk = database.header.firstFreelistTrunk
        var freelist: [(page: UInt32, contentStart: Int)] = []
        var trunkBuffer: [UInt8] = []
        while trunk != 0 {
            guard trunk <= pager.pageCount, known.insert(trunk), !reader.claimed.contains(trunk) else {
                report.problems.append(
                    SQLiteError(.loop, "freelist trunk page \(trunk) repeats or is in use", page: trunk))
                break
            }
            do throws(SQLiteError) {
                try pager.read(trunk, into: &trunkBuffer)
            } catch {
                report.problems.append(error)
                break
            }
            let count = min(Int(trunkBuffer.bigEndian32(at: 4)), (pager.usableSize - 8) / 4)
            freelist.append((trunk, 8 + 4 * count))
            for slot in 0..<count {
                let leaf = trunkBuffer.bigEndian32(at: 8 + 4 * slot)
                if leaf >= 1, leaf <= pager.pageCount, leaf != pager.lockBytePage, known.insert(leaf),
                    !reader.claimed.contains(leaf)
                {
                    freelist.append((leaf, 0))
                }
            }
            trunk = trunkBuffer.bigEndian32(at: 0)
        }
        for (number, start) in freelist {
            guard fetch(number, at: nil, into: &bytes) else { continue }
            try carveOldPage(bytes, number: number, from: start, origin: .freelist, owner: nil, body)
        }

        // Older versions in the WAL, and the database file's copies of pages it replaces.
        if let wal = pager.walLog {
            for (index, frame) in wal.frames.enumerated() where wal.newestFrame[frame.page] != index {
                guard frame.page >= 1 else { continue }
                guard fetch(frame.page, at: .wal(index), into: &bytes) else { continue }
                snapshot = .walFrame(index)
                try carveOldPage(
                    bytes, number: frame.page, from: 0, origin: .walOld, owner: pageOwner[frame.page], body)
            }
            for page in wal.newestFrame.keys.sorted()
            where (Int(page) - 1) * pager.pageSize < pager.database.count {
                guard fetch(page, at: .database, into: &bytes) else { continue }
                snapshot = .database
                try carveOldPage(bytes, number: page, from: 0, origin: .walOld, owner: pageOwner[page], body)
            }
        }
        if let journal = pager.journalLog {
            for (index, record) in journal.records.enumerated() where journal.restored[record.page] != index {
                guard fetch(record.page, at: .journal(index), into: &bytes) else { continue }
                snapshot = .journal
                try carveOldPage(
                    bytes, number: record.page, from: 0, origin: .journal, owner: pageOwner[record.page], body
                )
            }
            for page in journal.restored.keys.sorted()
            where (Int(page) - 1) * pager.pageSize < pager.database.count {
                guard fetch(page, at: .database, into: &bytes) else { continue }
                snapshot = .database
                try carveOldPage(bytes, number: page, from: 0, origin: .journal, owner: pageOwner[page], body)
            }
        }

        snapshot = .live
        // Pages nothing reaches, and pages past the declared end of the database.
        let filePages = UInt32(clamping: pager.database.count / pager.pageSize)
        let pointerMapInterval = UInt32(pager.usableSize / 5 + 1)
        var nextPointerMap: UInt32 = database.header.autoVacuum ? 2 : 0
        for number in 1...max(pager.pageCount, filePages) {
            if number == nextPointerMap {
                nextPointerMap += pointerMapInterval
                if nextPointerMap == pager.lockBytePage { nextPointerMap += 1 }
                continue
            }
            guard number != pager.lockBytePage, !reader.claimed.contains(number), !known.contains(number)
            else {
                continue
            }
            guard fetch(number, at: number <= pager.pageCount ? nil : .database, into: &bytes) else {
                continue
            }
            try carveOldPage(bytes, number: number, from: 0, origin: .orphan, owner: nil, body)
        }
    }

    /// Reads a page (its live version for a nil `location`); false, with the problem
    /// reported, when it cannot be read.
    private func fetch(_ page: UInt32, at location: PageLocation?, into bytes: inout [UInt8]) -> Bool {
        do throws(SQLiteError) {
            if let location {
                try pager.read(page, at: location, into: &bytes)
            } else {
                try pager.read(page, into: &bytes)
            }
            return true
        } catch {
            report.problems.append(error)
            return false
        }
    }

    /// Recovers what an old or unused page holds: its cells if it is (still) a b-tree page,
    /// then its free space; else the whole page from `start`.
    private func carveOldPage(
        _ bytes: [UInt8], number: UInt32, from start: Int, origin: SQLiteBlob.Origin, owner: Int?,
        _ body: (SQLiteBlob) throws -> Void
    ) throws {
        if start == 0, let page = try? BTreePage(number: number, bytes: bytes, usableSize: pager.usableSize) {
            let table = owner.map { database.tables[$0] }
            let owned = table.map { $0.withoutRowID == !page.kind.isTable } ?? false
            for index in 0..<page.cellCount {
                guard let cell = try? page.cell(index), page.kind != .interiorTable else { continue }
                do throws(SQLiteError) {
                    payload.removeAll(keepingCapacity: true)
                    payload.append(contentsOf: page.bytes[cell.localStart..<cell.localStart + cell.localSize])
                    if cell.localSize < cell.payloadSize {
                        try reader.appendOverflow(
                            from: cell.overflowPage, total: cell.payloadSize, to: &payload, from: number,
                            offset: cell.localStart + cell.localSize, claiming: false,
                            locate: overflowLocation)
                    }
                } catch {
                    continue
                }
                guard layout.parse(payload, start: 0, limit: payload.count) else { continue }
                let fits = owned && table.map { layout.count <= $0.storedColumnCount } == true
                try emitRecord(
                    table: fits ? owner : nil, rowid: page.kind.isTable ? cell.rowid : nil, bytes: payload,
                    origin: origin, page: number, offset: cell.offset,
                    minimumLength: options.minimumRecoveredLength,
                    body)
            }
            try carveFreeSpace(
                page, owner: owned ? owner : nil, freeblockOrigin: origin, unallocatedOrigin: origin, body)
            return
        }
        try carve(
            bytes, number: number, range: start..<min(pager.usableSize, bytes.count), origin: origin,
            owner: nil, body)
    }

    /// Carves the freeblocks and the unallocated space of a b-tree page.
    private func carveFreeSpace(
        _ page: BTreePage, owner: Int?, freeblockOrigin: SQLiteBlob.Origin,
        unallocatedOrigin: SQLiteBlob.Origin,
        _ body: (SQLiteBlob) throws -> Void
    ) throws {
        let usable = page.usableSize
        let contentStart = min(page.contentStart, usable)
        if page.cellPointersEnd < contentStart {
            try carve(
                page.bytes, number: page.number, range: page.cellPointersEnd..<contentStart,
                origin: unallocatedOrigin,
                owner: owner, body)
        }
        var block = page.firstFreeblock
        var steps = 0
        while block != 0, steps < usable / 4 {
            steps += 1
            guard block >= page.cellPointersEnd, block + 4 <= usable else { break }
            let next = page.bytes.bigEndian16(at: block)
            let size = page.bytes.bigEndian16(at: block + 2)
            guard size >= 4, block + size <= usable else { break }
            try carve(
                page.bytes, number: page.number, range: block..<block + size, origin: freeblockOrigin,
                owner: owner,
                freeblock: true, body)
            guard next > block else { break }
            block = next
        }
    }

    /// Finds records, then signatures, in `bytes[range]`.
    private func carve(
        _ bytes: [UInt8], number: UInt32, range: Range<Int>, origin: SQLiteBlob.Origin, owner: Int?,
        freeblock: Bool = false, _ body: (SQLiteBlob) throws -> Void
    ) throws {
        guard range.count >= 3 else { return }
        let table = owner.map { database.tables[$0] }
        let maximumColumns = table?.storedColumnCount ?? 64
        var covered: [Range<Int>] = []
        let smallest = UInt64(12 + 2 * max(0, options.minimumRecoveredLength))
        var position = range.lowerBound
        var record: [UInt8] = []
        while position < range.upperBound - 2 {
            // A freed cell's first four bytes hold the freeblock's link and size: usually
            // the cell header and the record header's size, sometimes the first serial type.
            if freeblock, position == range.lowerBound, let table {
                // Rows written before an ADD COLUMN have fewer values: those must fill the
                // freeblock exactly; a full row may share it with the next freed cell.
                let full = table.storedColumnCount
                let attempts = (1...full).reversed().flatMap { columns in [(columns, false), (columns, true)]
                }
                for (columns, assumingFirstNull) in attempts {
                    guard
                        let end = headerlessRecord(
                            bytes, number: number, typesStart: position + 4,
                            assumingFirstNull: assumingFirstNull,
                            table: table, columns: columns, limit: range.upperBound, into: &record),
                        columns == full || end == range.upperBound,
                        layout.parse(record, start: 0, limit: record.count)
                    else { continue }
                    try emitRecord(
                        table: owner, rowid: nil, bytes: record, origin: origin, page: number,
                        offset: position,
                        minimumLength: options.minimumRecoveredLength, body)
                    covered.append(position..<end)
                    position = end
                    break
                }
                if position != range.lowerBound { continue }
            }
            guard
                layout.parseHeader(
                    bytes, start: position, limit: range.upperBound, maximumColumns: maximumColumns),
                layout.count >= 1, layout.types.contains(where: { $0 >= 12 && $0 & 1 == 0 && $0 >= smallest })
            else {
                position += 1
                continue
            }
            if let table, layout.count < (table.storedColumnCount + 1) / 2 {
                position += 1
                continue
            }
            let total = layout.end - position
            let local = BTreePage.localSize(
                payloadSize: total, usableSize: pager.usableSize,
                tableLeaf: table.map { !$0.withoutRowID } ?? true)
            record.removeAll(keepingCapacity: true)
            if local == total {
                guard layout.end <= range.upperBound else {
                    position += 1
                    continue
                }
                record.append(contentsOf: bytes[position..<layout.end])
            } else {
                guard position + local + 4 <= range.upperBound else {
                    position += 1
                    continue
                }
                record.append(contentsOf: bytes[position..<position + local])
                let overflow = bytes.bigEndian32(at: position + local)
                do throws(SQLiteError) {
                    try reader.appendOverflow(
                        from: overflow, total: total, to: &record, from: number, offset: position + local,
                        claiming: false, locate: overflowLocation)
                } catch {
                    position += 1
                    continue
                }
            }
            guard layout.parse(record, start: 0, limit: record.count, maximumColumns: maximumColumns) else {
                position += 1
                continue
            }
            try emitRecord(
                table: owner, rowid: nil, bytes: record, origin: origin, page: number, offset: position,
                minimumLength: options.minimumRecoveredLength, body)
            let end = position + min(local + (local == total ? 0 : 4), total + 4)
            covered.append(position..<end)
            position = end
        }
        try carveSignatures(bytes, number: number, range: range, covered: covered, origin: origin, body)
    }

    /// Rebuilds a record of `table` whose header-size byte (and, when `assumingFirstNull`,
    /// first serial type: a rowid alias, always NULL) was overwritten, from the serial types
    /// at `typesStart`; returns where the cell ends in the page.
    private func headerlessRecord(
        _ bytes: [UInt8], number: UInt32, typesStart: Int, assumingFirstNull: Bool, table: SQLiteTable,
        columns: Int,
        limit: Int, into record: inout [UInt8]
    ) -> Int? {
        if assumingFirstNull {
            guard let first = table.storageIndex.firstIndex(of: 0), table.columns[first].isRowIDAlias else {
                return nil
            }
        }
        record.removeAll(keepingCapacity: true)
        record.append(0)
        if assumingFirstNull { record.append(0) }
        var position = typesStart
        var bodyLength = 0
        // Columns, not bytes: a serial type is a varint (a BLOB over 57 bytes takes two).
        var column = assumingFirstNull ? 1 : 0
        while column < columns {
            guard let type = bytes.varint(at: position, end: limit),
                let length = serialTypeLength(type.value),
                length <= 0x7fff_ffff - bodyLength
            else { return nil }
            // A rowid alias is stored as NULL.
            if let named = table.storageIndex.firstIndex(of: column),
                table.columns[named].isRowIDAlias,
                type.value != 0
            {
                return nil
            }
            record.append(contentsOf: bytes[position..<position + type.length])
            position += type.length
            bodyLength += length
            column += 1
        }
        let headerSize = record.count
        guard headerSize < 128 else { return nil }
        record[0] = UInt8(headerSize)
        let total = headerSize + bodyLength
        let local = BTreePage.localSize(
            payloadSize: total, usableSize: pager.usableSize, tableLeaf: !table.withoutRowID)
        let inPage = local - headerSize
        guard inPage >= 0 else { return nil }
        if local == total {
            guard position + inPage <= limit else { return nil }
            record.append(contentsOf: bytes[position..<position + inPage])
            return position + inPage
        }
        guard position + inPage + 4 <= limit else { return nil }
        record.append(contentsOf: bytes[position..<position + inPage])
        do throws(SQLiteError) {
            try reader.appendOverflow(
                from: bytes.bigEndian32(at: position + inPage), total: total, to: &record, from: number,
                offset: position + inPage, claiming: false, locate: overflowLocation)
        } catch {
            return nil
        }
        return position + inPage + 4
    }

    private static let signatures: [[UInt8]] = [
        Array("bplist00".utf8), Array("streamtyped".utf8), Array("<?xml".utf8), Array("<plist".utf8),
    ]

    /// Finds property lists and typedstreams by their first bytes where no record was found.
    private func carveSignatures(
        _ bytes: [UInt8], number: UInt32, range: Range<Int>, covered: [Range<Int>], origin: SQLiteBlob.Origin,
        _ body: (SQLiteBlob) throws -> Void
    ) throws {
        var position = range.lowerBound
        var nextCovered = 0
        while position < range.upperBound - 8 {
            while nextCovered < covered.count, covered[nextCovered].upperBound <= position {
                nextCovered += 1
            }
            if nextCovered < covered.count, covered[nextCovered].contains(position) {
                position = covered[nextCovered].upperBound
                continue
            }
            let limit = nextCovered < covered.count ? covered[nextCovered].lowerBound : range.upperBound
            let byte = bytes[position]
            guard byte == 0x62 || byte == 0x73 || byte == 0x3c else {
                position += 1
                continue
            }
            var found: Range<Int>?
            for signature in Self.signatures
            where signature[0] == byte && position + signature.count <= limit
                && bytes[position..<position + signature.count].elementsEqual(signature)
            {
                switch signature[0] {
                case 0x62: found = Self.binaryPropertyList(bytes, start: position, limit: limit)
                case 0x73:
                    // The typedstream header: 04 0B "streamtyped" …; its end is unknown, so
                    // it runs to the end of the free space, less trailing zeros.
                    guard position >= range.lowerBound + 2, bytes[position - 2] == 4,
                        bytes[position - 1] == 0x0b
                    else { continue }
                    var end = limit
                    while end > position && bytes[end - 1] == 0 { end -= 1 }
                    found = position - 2..<end
                default:
                    let close = Array("</plist>".utf8)
                    var index = position
                    while index + close.count <= limit {
                        if bytes[index] == 0x3c, bytes[index..<index + close.count].elementsEqual(close) {
                            found = position..<index + close.count
                            break
                        }
                        index += 1
                    }
                }
                break
            }
            guard let found, found.count >= options.minimumRecoveredLength else {
                position += 1
                continue
            }
            let data = Data(bytes[found])
            if seen.insert(Fingerprint(data)).inserted {
                try body(
                    SQLiteBlob(
                        table: nil, column: nil, rowid: nil, primaryKey: nil, origin: origin,
                        foundBySignature: true,
                        page: number, offset: found.lowerBound, data: data, row: nil))
                report.recoveredCount += 1
            }
            position = found.upperBound
        }
    }

    /// The extent of a binary property list starting at `start`: the first end before
    /// `limit` where a consistent trailer lies (offset table just before it, sizes in range).
    static func binaryPropertyList(_ bytes: [UInt8], start: Int, limit: Int) -> Range<Int>? {
        var end = start + 8 + 1 + 1 + 32
        while end <= limit {
            let trailer = end - 32
            let offsetSize = Int(bytes[trailer + 6])
            let referenceSize = Int(bytes[trailer + 7])
            if (1...8).contains(offsetSize), (1...8).contains(referenceSize), bytes[trailer + 8] == 0,
                bytes[trailer + 16] == 0, bytes[trailer + 24] == 0
            {
                var objects = 0
                var top = 0
                var tableOffset = 0
                for index in 1..<8 {
                    objects = objects << 8 | Int(bytes[trailer + 8 + index])
                    top = top << 8 | Int(bytes[trailer + 16 + index])
                    tableOffset = tableOffset << 8 | Int(bytes[trailer + 24 + index])
                }
                if objects >= 1, top < objects, tableOffset >= 9, objects <= (1 << 40),
                    tableOffset + objects * offsetSize == trailer - start
                {
                    return start..<end
                }
            }
            end += 1
        }
        return nil
    }
}

extension RecordLayout {
    /// Reads only the record header at `start` (serial types and value offsets), without
    /// requiring the values to lie before `limit`; ``end`` is where they would end.
    mutating func parseHeader(_ bytes: [UInt8], start: Int, limit: Int, maximumColumns: Int = 4096) -> Bool {
        types.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        guard let header = bytes.varint(at: start, end: limit), header.value >= 2,
            header.value <= UInt64(min(limit - start, 9 * maximumColumns + 9))
        else { return false }
        let headerEnd = start + Int(header.value)
        var position = start + header.length
        var body = headerEnd
        while position < headerEnd {
            guard let type = bytes.varint(at: position, end: headerEnd),
                let length = serialTypeLength(type.value),
                length <= 0x7fff_ffff, body <= 0x7fff_ffff, types.count < maximumColumns
            else { return false }
            position += type.length
            types.append(type.value)
            offsets.append(body)
            body += length
        }
        end = body
        return body - start <= 0x7fff_ffff
    }
}
