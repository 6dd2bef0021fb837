import Foundation
import FuzzSupport
import SQLiteFormat

/// libFuzzer entry point: the input as a database file — or, when it holds the marker
/// `@WAL@`, a database followed by its `-wal` — opened, every table's rows read, and a
/// recovering BLOB scan. Any outcome but a thrown SQLiteError or a value is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSQLite(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    var database = data
    var wal: Data?
    if let marker = data.range(of: Data("@WAL@".utf8)) {
        database = data[data.startIndex..<marker.lowerBound]
        wal = data[marker.upperBound...]
    }
    guard let reader = try? SQLiteDatabase(contentsOf: Data(database), wal: wal.map { Data($0) }) else { return 0 }
    for table in reader.tables {
        try? reader.forEachRow(in: table) { row in _ = row.values.count }
    }
    _ = try? reader.forEachBlob(options: SQLiteBlobScanOptions(recover: true, includeRows: true)) { blob in
        _ = blob.data.count
    }
    return 0
}
