#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One value of a row, as SQLite returns it.
public enum SQLiteValue: Sendable, Equatable, Hashable {
    /// SQL `NULL`.
    case null
    /// An integer (serial types 1–6, 8 and 9).
    case integer(Int64)
    /// A floating-point number (serial type 7, or an integer in a column of `REAL` affinity).
    case real(Double)
    /// Text, decoded from the database's encoding (ill-formed sequences become U+FFFD).
    case text(String)
    /// A BLOB.
    case blob(Data)
}

/// A row of a table: its values in the order the `CREATE TABLE` statement declares the
/// columns.
public struct SQLiteRow: Sendable, Equatable {
    /// The rowid, or nil for a `WITHOUT ROWID` table.
    public var rowid: Int64?
    /// The values, one per column of ``SQLiteTable/columns``.
    public var values: [SQLiteValue]

    /// Creates a row.
    ///
    /// - Parameters:
    ///   - rowid: The rowid, nil for a `WITHOUT ROWID` table.
    ///   - values: One value per column.
    public init(rowid: Int64?, values: [SQLiteValue]) {
        self.rowid = rowid
        self.values = values
    }
}

/// The text encoding of a database (header offset 56), used for every text value.
public enum SQLiteTextEncoding: Int, Sendable {
    /// UTF-8 (header value 1).
    case utf8 = 1
    /// UTF-16, little-endian (header value 2).
    case utf16LittleEndian = 2
    /// UTF-16, big-endian (header value 3).
    case utf16BigEndian = 3

    /// `bytes[range]` decoded as text in this encoding.
    func decode(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        switch self {
        case .utf8:
            return String(decoding: bytes[range], as: UTF8.self)
        case .utf16LittleEndian, .utf16BigEndian:
            let little = self == .utf16LittleEndian
            var units: [UInt16] = []
            units.reserveCapacity(range.count / 2)
            var index = range.lowerBound
            while index + 1 < range.upperBound {
                let a = UInt16(bytes[index])
                let b = UInt16(bytes[index + 1])
                units.append(little ? a | b << 8 : a << 8 | b)
                index += 2
            }
            return String(decoding: units, as: UTF16.self)
        }
    }
}
