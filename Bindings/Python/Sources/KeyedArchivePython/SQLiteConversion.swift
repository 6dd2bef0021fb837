import CPythonShim
import KeyedArchive
import SQLiteFormat

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The BLOBs of a scan, carried out of the closure that ran without the GIL.
struct ScannedBlobs: @unchecked Sendable {
    var blobs: [SQLiteBlob] = []
    var problems: [String] = []
}

/// `_sqlite_blobs(path, recover)`: every BLOB of the database's tables (and, recovering,
/// of deleted and older data), read without the GIL by ``SQLiteDatabase/forEachBlob(options:_:)``,
/// as a list of `(table, column, rowid, origin, page, offset, data)` tuples, followed by the
/// scan's problems as a list of strings: `(blobs, problems)`.
func sqliteBlobsFunction(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 2, name: "_sqlite_blobs")
        let path = try string(of: given[0])
        let recover = PyObject_IsTrue(given[1]) == 1
        let scanned = try withoutGIL { () throws(KeyedArchiveError) -> ScannedBlobs in
            do {
                let database = try SQLiteDatabase(path: path)
                var result = ScannedBlobs()
                let report = try database.forEachBlob(options: SQLiteBlobScanOptions(recover: recover)) {
                    result.blobs.append($0)
                }
                result.problems = report.problems.map(\.description)
                return result
            } catch let error as SQLiteError {
                throw KeyedArchiveError(.corruptData, "\(path): \(error)")
            } catch {
                throw KeyedArchiveError(.fileOperationFailed, "\(path): \(error)")
            }
        }
        guard let list = PyList_New(scanned.blobs.count) else { throw PythonErrorSet() }
        for (index, blob) in scanned.blobs.enumerated() {
            let fields: [PyRef?] = [
                blob.table.map(makeString) ?? ka_none(), blob.column.map(makeString) ?? ka_none(),
                blob.rowid.map { PyLong_FromLongLong($0) } ?? ka_none(), makeString(blob.origin.rawValue),
                PyLong_FromUnsignedLongLong(UInt64(blob.page)), PyLong_FromLongLong(Int64(blob.offset)),
                makeBytes(blob.data),
            ]
            guard fields.allSatisfy({ $0 != nil }), let tuple = PyTuple_New(fields.count) else {
                for field in fields { ka_xdecref(field) }
                ka_decref(list)
                throw PythonErrorSet()
            }
            for (position, field) in fields.enumerated() {
                if let field { PyTuple_SetItem(tuple, position, field) }
            }
            PyList_SetItem(list, index, tuple)
        }
        guard let problems = makeObject(.array(scanned.problems.map(PropertyList.string))) else {
            ka_decref(list)
            throw PythonErrorSet()
        }
        guard let pair = PyTuple_New(2) else {
            ka_decref(list)
            ka_decref(problems)
            throw PythonErrorSet()
        }
        PyTuple_SetItem(pair, 0, list)
        PyTuple_SetItem(pair, 1, problems)
        return pair
    }
}
