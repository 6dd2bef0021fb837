import CPythonShim
import KeyedArchive
import SQLiteFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A scan of a database's BLOBs running on a thread of its own, handed to Python a few at a
/// time: the scan runs ahead by at most ``capacity`` BLOBs (bounded memory), the Python
/// iterator waits without the GIL, and dropping the iterator stops the scan at its next BLOB.
///
/// State is guarded by one mutex and one condition; the scanning thread holds a strong
/// reference until it ends, so the stream outlives whichever side finishes last.
final class BlobStream: @unchecked Sendable {
    /// BLOBs the scan may hold before it waits for Python to take them.
    static let capacity = 32
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [SQLiteBlob] = []
    private var finished = false
    private var cancelled = false
    private var failure: KeyedArchiveError?
    private var problems: [String] = []
    let path: String
    let recover: Bool
    /// The database, opened by ``open(path:recover:)``; the scanning thread's alone after.
    private let database: SQLiteDatabase

    private struct Cancelled: Error {}

    private init(path: String, recover: Bool, database: SQLiteDatabase) {
        self.path = path
        self.recover = recover
        self.database = database
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Opens the database (without the GIL: the caller released it) and starts the scan.
    static func open(path: String, recover: Bool) throws(KeyedArchiveError) -> BlobStream {
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path)
        } catch let error as SQLiteError {
            throw KeyedArchiveError(.corruptData, "\(path): \(error)")
        } catch {
            throw KeyedArchiveError(.fileOperationFailed, "\(path): \(error)")
        }
        let stream = BlobStream(path: path, recover: recover, database: database)
        // The thread's reference, released when the scan ends.
        let context = Unmanaged.passRetained(stream).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<BlobStream>.fromOpaque(context).takeRetainedValue().scan()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<BlobStream>.fromOpaque(context).release()
            throw KeyedArchiveError(
                .fileOperationFailed, "\(path): cannot start the scanning thread (\(status))")
        }
        pthread_detach(thread)
        return stream
    }

    /// The scanning thread's work.
    private func scan() {
        var scanError: KeyedArchiveError?
        var reported: [String] = []
        do {
            let report = try database.forEachBlob(options: SQLiteBlobScanOptions(recover: recover)) { blob in
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                while queue.count >= Self.capacity && !cancelled { pthread_cond_wait(condition, mutex) }
                if cancelled { throw Cancelled() }
                queue.append(blob)
                pthread_cond_broadcast(condition)
            }
            reported = report.problems.map(\.description)
        } catch is Cancelled {
        } catch let failure as SQLiteError {
            scanError = KeyedArchiveError(.corruptData, "\(path): \(failure)")
        } catch {
            scanError = KeyedArchiveError(.fileOperationFailed, "\(path): \(error)")
        }
        pthread_mutex_lock(mutex)
        finished = true
        failure = scanError
        problems = reported
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The next BLOBs (waiting for at least one), or `nil` with the scan's problems at the end.
    /// Called without the GIL.
    func next() throws(KeyedArchiveError) -> (blobs: [SQLiteBlob], problems: [String]?) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while queue.isEmpty && !finished { pthread_cond_wait(condition, mutex) }
        if !queue.isEmpty {
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            pthread_cond_broadcast(condition)
            return (taken, nil)
        }
        if let failure { throw failure }
        return ([], problems)
    }

    /// Stops the scan at its next BLOB (the iterator was dropped).
    func cancel() {
        pthread_mutex_lock(mutex)
        cancelled = true
        queue.removeAll()
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}

/// The capsule name of a ``BlobStream``.
private let blobStreamName: StaticString = "keyedarchive.BlobStream"

/// `_sqlite_open(path, recover)`: opens the database and starts the scan, as a capsule for
/// `_sqlite_next`; dropping the capsule stops the scan.
func sqliteOpenFunction(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 2, name: "_sqlite_open")
        let path = try string(of: given[0])
        let recover = PyObject_IsTrue(given[1]) == 1
        let stream = try withoutGIL { () throws(KeyedArchiveError) -> BlobStream in
            try BlobStream.open(path: path, recover: recover)
        }
        let pointer = Unmanaged.passRetained(stream).toOpaque()
        let name = UnsafeRawPointer(blobStreamName.utf8Start).assumingMemoryBound(to: CChar.self)
        guard
            let capsule = PyCapsule_New(
                pointer, name,
                { capsule in
                    guard let capsule else { return }
                    let name = UnsafeRawPointer(blobStreamName.utf8Start).assumingMemoryBound(to: CChar.self)
                    guard let pointer = PyCapsule_GetPointer(capsule, name) else {
                        PyErr_Clear()
                        return
                    }
                    let stream = Unmanaged<BlobStream>.fromOpaque(pointer).takeRetainedValue()
                    stream.cancel()
                })
        else {
            stream.cancel()
            Unmanaged<BlobStream>.fromOpaque(pointer).release()
            throw PythonErrorSet()
        }
        return capsule
    }
}

/// `_sqlite_next(stream)`: waits (without the GIL) for the next BLOBs of the scan and returns
/// `(blobs, None)`, the BLOBs as `(table, column, rowid, origin, page, offset, data)` tuples,
/// or `([], problems)` at the end; a scan that failed raises.
func sqliteNextFunction(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 1, name: "_sqlite_next")
        let name = UnsafeRawPointer(blobStreamName.utf8Start).assumingMemoryBound(to: CChar.self)
        guard let pointer = PyCapsule_GetPointer(given[0], name) else { throw PythonErrorSet() }
        let stream = Unmanaged<BlobStream>.fromOpaque(pointer).takeUnretainedValue()
        let (blobs, problems) = try withoutGIL { () throws(KeyedArchiveError) in try stream.next() }
        guard let list = PyList_New(blobs.count) else { throw PythonErrorSet() }
        for (index, blob) in blobs.enumerated() {
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
        let reported: PyRef?
        if let problems {
            reported = makeObject(.array(problems.map(PropertyList.string)))
        } else {
            reported = ka_none()
        }
        guard let reported else {
            ka_decref(list)
            throw PythonErrorSet()
        }
        guard let pair = PyTuple_New(2) else {
            ka_decref(list)
            ka_decref(reported)
            throw PythonErrorSet()
        }
        PyTuple_SetItem(pair, 0, list)
        PyTuple_SetItem(pair, 1, reported)
        return pair
    }
}
