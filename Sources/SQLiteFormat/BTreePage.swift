/// A b-tree page: its header, cell pointer array and cells, checked against the page's
/// bounds before any cell is read.
struct BTreePage {
    enum Kind: UInt8 {
        case interiorIndex = 2
        case interiorTable = 5
        case leafIndex = 10
        case leafTable = 13

        var isLeaf: Bool { self == .leafIndex || self == .leafTable }
        var isTable: Bool { self == .interiorTable || self == .leafTable }
    }

    /// A cell's parts: where its payload lies and what it points to.
    struct Cell {
        /// The cell's offset in the page.
        var offset = 0
        /// Interior pages: the child page left of this cell's key.
        var leftChild: UInt32 = 0
        /// Table pages: the rowid (the key).
        var rowid: Int64 = 0
        /// The payload's total size (0 for a table interior cell).
        var payloadSize = 0
        /// Where the payload's first bytes start in the page.
        var localStart = 0
        /// How many payload bytes are in the page.
        var localSize = 0
        /// The first overflow page, or 0.
        var overflowPage: UInt32 = 0
        /// The offset just after the cell.
        var end = 0
    }

    let number: UInt32
    let bytes: [UInt8]
    let kind: Kind
    /// 100 on page 1 (after the database header), else 0.
    let headerOffset: Int
    let cellCount: Int
    /// The offset of the cell pointer array.
    let cellPointers: Int
    /// Interior pages: the right-most child.
    let rightChild: UInt32
    let usableSize: Int

    /// Reads the page header.
    ///
    /// - Throws: ``SQLiteError/Code/corrupt`` for an unknown page type or a cell pointer array
    ///   that does not fit in the page.
    init(number: UInt32, bytes: [UInt8], usableSize: Int) throws(SQLiteError) {
        self.number = number
        self.bytes = bytes
        self.usableSize = min(usableSize, bytes.count)
        headerOffset = number == 1 ? 100 : 0
        guard headerOffset + 8 <= self.usableSize else {
            throw SQLiteError(
                .corrupt, "page too small for a b-tree page header", page: number, offset: headerOffset)
        }
        guard let kind = Kind(rawValue: bytes[headerOffset]) else {
            throw SQLiteError(
                .corrupt, "not a b-tree page: page type \(bytes[headerOffset]) (expected 2, 5, 10 or 13)",
                page: number, offset: headerOffset)
        }
        self.kind = kind
        cellCount = bytes.bigEndian16(at: headerOffset + 3)
        cellPointers = headerOffset + (kind.isLeaf ? 8 : 12)
        rightChild = kind.isLeaf ? 0 : bytes.bigEndian32(at: headerOffset + 8)
        guard cellPointers + 2 * cellCount <= self.usableSize else {
            throw SQLiteError(
                .corrupt, "\(cellCount) cells do not fit in a page of \(self.usableSize) usable bytes",
                page: number,
                offset: headerOffset + 3)
        }
    }

    /// The offset just after the cell pointer array: where unallocated space begins.
    var cellPointersEnd: Int { cellPointers + 2 * cellCount }

    /// The start of the cell content area (0 in the header means 65536).
    var contentStart: Int {
        let value = bytes.bigEndian16(at: headerOffset + 5)
        return value == 0 ? 65536 : value
    }

    /// The first freeblock's offset, or 0.
    var firstFreeblock: Int { bytes.bigEndian16(at: headerOffset + 1) }

    /// The largest payload stored whole in a page of this kind, and the least stored locally
    /// when the payload overflows.
    static func localLimits(usableSize: Int, tableLeaf: Bool) -> (max: Int, min: Int) {
        let minimum = (usableSize - 12) * 32 / 255 - 23
        let maximum = tableLeaf ? usableSize - 35 : (usableSize - 12) * 64 / 255 - 23
        return (maximum, minimum)
    }

    /// How many of `payloadSize` bytes are stored in the page (the rest overflows).
    static func localSize(payloadSize: Int, usableSize: Int, tableLeaf: Bool) -> Int {
        let (maximum, minimum) = localLimits(usableSize: usableSize, tableLeaf: tableLeaf)
        if payloadSize <= maximum { return payloadSize }
        let surplus = minimum + (payloadSize - minimum) % (usableSize - 4)
        return surplus <= maximum ? surplus : minimum
    }

    /// The cell at `index` in the cell pointer array.
    func cell(_ index: Int) throws(SQLiteError) -> Cell {
        let pointer = cellPointers + 2 * index
        let offset = bytes.bigEndian16(at: pointer)
        guard offset >= cellPointersEnd, offset < usableSize else {
            throw SQLiteError(
                .corrupt,
                "cell \(index) points to offset \(offset), outside the cell content area "
                    + "(\(cellPointersEnd)..<\(usableSize))", page: number, offset: pointer)
        }
        return try cell(at: offset, kind: kind)
    }

    /// The cell at `offset`, read as a cell of a page of `kind`.
    ///
    /// - Throws: ``SQLiteError/Code/corrupt`` when a varint or the local payload passes the
    ///   usable end of the page, or the payload size is beyond any database.
    func cell(at offset: Int, kind: Kind) throws(SQLiteError) -> Cell {
        var cell = Cell()
        cell.offset = offset
        var position = offset
        let end = usableSize
        if !kind.isLeaf {
            guard position + 4 <= end else { throw failure("child pointer past the end of the page", offset) }
            cell.leftChild = bytes.bigEndian32(at: position)
            position += 4
            if kind == .interiorTable {
                guard let key = bytes.varint(at: position, end: end) else {
                    throw failure("rowid varint runs past the end of the page", position)
                }
                cell.rowid = Int64(bitPattern: key.value)
                cell.end = position + key.length
                return cell
            }
        }
        guard let size = bytes.varint(at: position, end: end) else {
            throw failure("payload size varint runs past the end of the page", position)
        }
        position += size.length
        guard size.value <= 0x7fff_ffff else {
            throw failure("payload size \(size.value) is larger than SQLite allows", offset)
        }
        cell.payloadSize = Int(size.value)
        if kind == .leafTable {
            guard let key = bytes.varint(at: position, end: end) else {
                throw failure("rowid varint runs past the end of the page", position)
            }
            cell.rowid = Int64(bitPattern: key.value)
            position += key.length
        }
        cell.localStart = position
        cell.localSize = Self.localSize(
            payloadSize: cell.payloadSize, usableSize: usableSize, tableLeaf: kind == .leafTable)
        let overflows = cell.localSize < cell.payloadSize
        let needed = cell.localSize + (overflows ? 4 : 0)
        guard needed <= end - position else {
            throw failure(
                "cell of \(cell.payloadSize) bytes (\(needed) in the page) extends past the end of the page "
                    + "(\(end) usable bytes)", offset)
        }
        if overflows { cell.overflowPage = bytes.bigEndian32(at: position + cell.localSize) }
        cell.end = position + needed
        return cell
    }

    private func failure(_ message: String, _ offset: Int) -> SQLiteError {
        SQLiteError(.corrupt, message, page: number, offset: offset)
    }
}
