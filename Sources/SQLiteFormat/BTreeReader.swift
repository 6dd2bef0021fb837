#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Walks b-trees in key order and assembles cell payloads across overflow chains.
///
/// Every page a walk reaches — b-tree pages and overflow pages — is entered in ``claimed``
/// and never read twice, so a loop, or a page shared by two trees or chains, is found and
/// reported, and a walk over a whole database reads each page at most once: time and
/// memory stay linear in the file's size whatever its pointers say.
final class BTreeReader {
    /// B-trees deeper than this are refused (SQLite's own limit is 20).
    static let maximumDepth = 40

    let pager: Pager
    var claimed: PageSet
    /// Damage skipped in lenient mode.
    var problems: [SQLiteError] = []
    /// Whether damaged pages and cells are skipped (and reported in ``problems``) rather than
    /// thrown.
    let lenient: Bool
    private var overflowBuffer: [UInt8] = []

    init(pager: Pager, lenient: Bool) {
        self.pager = pager
        self.lenient = lenient
        claimed = PageSet(pageCount: pager.pageCount)
    }

    /// A page the walk may enter: in the database, not the lock-byte page, not reached
    /// before.
    func claim(_ page: UInt32, from: UInt32?, offset: Int?) throws(SQLiteError) {
        guard page >= 1, page <= pager.pageCount, page != pager.lockBytePage else {
            throw SQLiteError(
                .corrupt, "pointer to page \(page), outside the database (\(pager.pageCount) pages)",
                page: from,
                offset: offset)
        }
        guard claimed.insert(page) else {
            throw SQLiteError(
                .loop, "page \(page) is reached a second time (a loop, or a page used twice)", page: from,
                offset: offset)
        }
    }

    func loadPage(_ number: UInt32) throws(SQLiteError) -> BTreePage {
        var bytes: [UInt8] = []
        try pager.read(number, into: &bytes)
        return try BTreePage(number: number, bytes: bytes, usableSize: pager.usableSize)
    }

    /// Reports `error`, or throws it when not lenient.
    func skip(_ error: SQLiteError) throws(SQLiteError) {
        guard lenient else { throw error }
        problems.append(error)
    }

    /// Visits every cell that holds a key of the tree rooted at `root` (leaf cells, and for
    /// index trees interior cells too), in key order.
    ///
    /// - Throws: What `visit` throws; an ``SQLiteError`` for damage unless lenient.
    /// - Parameter onPage: Called with each page as it is entered (before its cells).
    func walk(
        root: UInt32, table: Bool, onPage: (BTreePage) -> Void = { _ in },
        _ visit: (BTreePage, BTreePage.Cell) throws -> Void
    ) throws {
        struct Frame {
            var page: BTreePage
            var step: Int
        }
        var stack: [Frame] = []
        func enter(_ number: UInt32, from parent: BTreePage?, offset: Int?) throws(SQLiteError) {
            do throws(SQLiteError) {
                try claim(number, from: parent?.number, offset: offset)
                guard stack.count < Self.maximumDepth else {
                    throw SQLiteError(
                        .corrupt, "b-tree deeper than \(Self.maximumDepth) levels", page: parent?.number,
                        offset: offset)
                }
                let page = try loadPage(number)
                guard page.kind.isTable == table else {
                    throw SQLiteError(
                        .corrupt,
                        "\(table ? "table" : "index") b-tree reaches a page of type \(page.kind.rawValue)",
                        page: number, offset: page.headerOffset)
                }
                onPage(page)
                stack.append(Frame(page: page, step: 0))
            } catch {
                try skip(error)
            }
        }
        try enter(root, from: nil, offset: nil)
        while let top = stack.last {
            let page = top.page
            if page.kind.isLeaf {
                stack.removeLast()
                for index in 0..<page.cellCount {
                    let cell: BTreePage.Cell
                    do {
                        cell = try page.cell(index)
                    } catch {
                        try skip(error)
                        continue
                    }
                    try visit(page, cell)
                }
                continue
            }
            let step = top.step
            stack[stack.count - 1].step += 1
            let index = step >> 1
            if step & 1 == 0 {
                if index > page.cellCount {
                    stack.removeLast()
                } else if index == page.cellCount {
                    try enter(page.rightChild, from: page, offset: page.headerOffset + 8)
                } else {
                    do {
                        let cell = try page.cell(index)
                        try enter(cell.leftChild, from: page, offset: cell.offset)
                    } catch {
                        try skip(error)
                    }
                }
            } else if index >= page.cellCount {
                stack.removeLast()
            } else if !table {
                let cell: BTreePage.Cell
                do {
                    cell = try page.cell(index)
                } catch {
                    try skip(error)
                    continue
                }
                try visit(page, cell)
            }
        }
    }

    /// The whole payload of `cell` (in `page`): its local bytes and its overflow chain,
    /// written to `payload`.
    ///
    /// - Throws: ``SQLiteError`` when the chain ends early, leaves the database or loops.
    func payload(of cell: BTreePage.Cell, in page: BTreePage, into payload: inout [UInt8]) throws(SQLiteError)
    {
        payload.removeAll(keepingCapacity: true)
        payload.append(contentsOf: page.bytes[cell.localStart..<cell.localStart + cell.localSize])
        guard cell.localSize < cell.payloadSize else { return }
        try appendOverflow(
            from: cell.overflowPage, total: cell.payloadSize, to: &payload, from: page.number,
            offset: cell.localStart + cell.localSize, claiming: true)
    }

    /// Follows an overflow chain from `first` until `payload` holds `total` bytes.
    ///
    /// - Parameter claiming: Whether the chain's pages are entered in ``claimed`` (live
    ///   reading); recovery follows chains of pages already reached without claiming them,
    ///   with a local visited set.
    /// - Parameter locate: Which version of a page to read (nil: the live one); recovery
    ///   reads an old page's chain as it was when the page was written.
    func appendOverflow(
        from first: UInt32, total: Int, to payload: inout [UInt8], from origin: UInt32, offset: Int,
        claiming: Bool,
        locate: (UInt32) -> PageLocation? = { _ in nil }
    ) throws(SQLiteError) {
        let chunk = pager.usableSize - 4
        let pagesNeeded = (total - payload.count + chunk - 1) / chunk
        guard pagesNeeded <= Int(pager.pageCount) else {
            throw SQLiteError(
                .corrupt, "payload of \(total) bytes needs more overflow pages than the database has",
                page: origin,
                offset: offset)
        }
        payload.reserveCapacity(total)
        var next = first
        var previous = origin
        var previousOffset = offset
        var visited = Set<UInt32>()
        while payload.count < total {
            if claiming {
                try claim(next, from: previous, offset: previousOffset)
            } else {
                guard next >= 1, next <= pager.pageCount, next != pager.lockBytePage,
                    visited.insert(next).inserted
                else {
                    throw SQLiteError(
                        .loop, "overflow chain reaches page \(next) again or leaves the database",
                        page: previous)
                }
            }
            if let location = locate(next) {
                try pager.read(next, at: location, into: &overflowBuffer)
            } else {
                try pager.read(next, into: &overflowBuffer)
            }
            let take = min(chunk, total - payload.count)
            payload.append(contentsOf: overflowBuffer[4..<4 + take])
            previous = next
            previousOffset = 0
            next = overflowBuffer.bigEndian32(at: 0)
            if payload.count < total, next == 0 {
                throw SQLiteError(
                    .corrupt, "overflow chain ends after \(payload.count) of \(total) payload bytes",
                    page: previous,
                    offset: 0)
            }
        }
    }
}

/// The header of a record: each value's serial type and where its bytes start.
struct RecordLayout {
    var types: [UInt64] = []
    var offsets: [Int] = []
    /// The offset just after the last value.
    var end = 0

    var count: Int { types.count }

    /// Reads the record header of `bytes[start..<limit]`.
    ///
    /// - Returns: false when the header is malformed: a varint past the header, a reserved
    ///   serial type, or values that pass `limit`.
    mutating func parse(_ bytes: [UInt8], start: Int, limit: Int, maximumColumns: Int = 4096) -> Bool {
        types.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        guard let header = bytes.varint(at: start, end: limit), header.value >= UInt64(header.length),
            header.value <= UInt64(limit - start)
        else { return false }
        let headerEnd = start + Int(header.value)
        var position = start + header.length
        var body = headerEnd
        while position < headerEnd {
            guard let type = bytes.varint(at: position, end: headerEnd),
                let length = serialTypeLength(type.value),
                length <= limit - body, types.count < maximumColumns
            else { return false }
            position += type.length
            types.append(type.value)
            offsets.append(body)
            body += length
        }
        end = body
        return true
    }

    /// Value `index` decoded.
    func value(_ index: Int, in bytes: [UInt8], encoding: SQLiteTextEncoding) -> SQLiteValue {
        let type = types[index]
        let offset = offsets[index]
        switch type {
        case 0: return .null
        case 1...6:
            let length = serialTypeLength(type) ?? 0
            var value = Int64(Int8(bitPattern: bytes[offset]))
            for position in offset + 1..<offset + length { value = value << 8 | Int64(bytes[position]) }
            return .integer(value)
        case 7:
            var bits: UInt64 = 0
            for position in offset..<offset + 8 { bits = bits << 8 | UInt64(bytes[position]) }
            return .real(Double(bitPattern: bits))
        case 8: return .integer(0)
        case 9: return .integer(1)
        default:
            let length = serialTypeLength(type) ?? 0
            if type & 1 == 0 { return .blob(Data(bytes[offset..<offset + length])) }
            return .text(encoding.decode(bytes, offset..<offset + length))
        }
    }
}
