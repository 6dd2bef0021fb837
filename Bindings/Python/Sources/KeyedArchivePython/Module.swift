import CPythonShim
import KeyedArchive

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

/// A Python object pointer (a new or borrowed reference, as each use says).
typealias PyRef = UnsafeMutablePointer<PyObject>

/// A Python exception has been set; the function returns `NULL` to raise it.
struct PythonErrorSet: Error {}

/// The Python objects the package hands over once, at import (`_setup`): held for the life of
/// the process, used only with the GIL held.
struct PythonHelpers {
    /// `_make_error(message, code, location, offset, line, column, key_path)` → exception.
    var makeError: PyRef
    /// `plistlib.UID`.
    var uidClass: PyRef
    /// `datetime.datetime`.
    var datetimeClass: PyRef
    /// `_date_from_seconds(float)` → naive UTC datetime, as plistlib computes it.
    var dateFromSeconds: PyRef
    /// `_seconds_from_date(datetime)` → float seconds since 2001-01-01 UTC.
    var secondsFromDate: PyRef
    /// `uuid.UUID`, called with `bytes=`: given as a function of the 16 bytes.
    var uuidFromBytes: PyRef
    /// `_cycle(uid)` → the marker for a reference back to an enclosing object.
    var cycleMarker: PyRef
    /// `_archived_object(class_name, uid, fields)` → the object of `objects=True`.
    var archivedObject: PyRef
}

nonisolated(unsafe) var helpers: PythonHelpers?

/// Whether `loads` and `unarchive` try their fast readers (``FastBinaryPropertyList``,
/// ``FastUnarchiver``) first; the tests turn them off to compare with the library's path.
/// Read and written with the GIL held.
nonisolated(unsafe) var fastPathsEnabled = true

// MARK: - Errors

/// Raises `error` as the package's `InvalidFileError` (a `plistlib.InvalidFileException`).
func raise(_ error: KeyedArchiveError) {
    guard let helpers else {
        PyErr_SetString(ka_exc_value_error(), error.description)
        return
    }
    var offset: PyRef = ka_none()
    var line: PyRef = ka_none()
    var column: PyRef = ka_none()
    var keyPath: PyRef = ka_none()
    switch error.location {
    case .byteOffset(let byte)?:
        ka_decref(offset)
        offset = PyLong_FromLongLong(Int64(byte)) ?? ka_none()
    case .text(let lineNumber, let columnNumber)?:
        ka_decref(line)
        ka_decref(column)
        line = PyLong_FromLongLong(Int64(lineNumber)) ?? ka_none()
        column = PyLong_FromLongLong(Int64(columnNumber)) ?? ka_none()
    case .keyPath(let path)?:
        ka_decref(keyPath)
        keyPath = makeString(path) ?? ka_none()
    case nil: break
    }
    let location: PyRef = error.location.map { makeString($0.description) ?? ka_none() } ?? ka_none()
    let arguments: [PyRef?] = [
        makeString(error.description), makeString(error.code.description), location, offset, line, column,
        keyPath,
    ]
    guard let exception = call(helpers.makeError, arguments) else { return }
    PyErr_SetObject(PyObject_Type(exception), exception)
    ka_decref(exception)
}

/// Raises a `ValueError`-like exception of `type` with `message`.
func raise(_ type: PyRef, _ message: String) {
    PyErr_SetString(type, message)
}

// MARK: - Building Python objects

/// A new `str` holding `text`.
func makeString(_ text: String) -> PyRef? {
    var text = text
    return text.withUTF8 { buffer in
        guard let base = buffer.baseAddress, !buffer.isEmpty else {
            return PyUnicode_FromStringAndSize("", 0)
        }
        return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            PyUnicode_FromStringAndSize($0, buffer.count)
        }
    }
}

/// A new `bytes` holding `data`.
func makeBytes(_ data: Data) -> PyRef? {
    data.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return PyBytes_FromStringAndSize("", 0) }
        return PyBytes_FromStringAndSize(base.assumingMemoryBound(to: CChar.self), buffer.count)
    }
}

/// A new `int` for any integer a property list holds (128 bits).
func makeInteger(_ integer: PropertyListInteger) -> PyRef? {
    if let signed = integer.int64Value { return PyLong_FromLongLong(signed) }
    if let unsigned = integer.uint64Value { return PyLong_FromUnsignedLongLong(unsigned) }
    return integer.description.withCString { PyLong_FromString($0, nil, 10) }
}

/// Calls `function` with `arguments` (new references, consumed even on failure); a `nil`
/// argument means building it failed, so nothing is called.
func call(_ function: PyRef, _ arguments: [PyRef?]) -> PyRef? {
    guard arguments.allSatisfy({ $0 != nil }), let tuple = PyTuple_New(arguments.count) else {
        for argument in arguments { ka_xdecref(argument) }
        return nil
    }
    for (index, argument) in arguments.enumerated() {
        if let argument { PyTuple_SetItem(tuple, index, argument) }
    }
    defer { ka_decref(tuple) }
    return PyObject_CallObject(function, tuple)
}

/// A datetime for `date`, as plistlib makes it (naive, UTC): `datetime(2001, 1, 1) +
/// timedelta(seconds=s)`, whose microseconds are the whole seconds plus the fraction's
/// microseconds rounded half to even. Built by calling `datetime` with its fields (about ten
/// times faster than the Python expression); dates outside years 1–9999 go through the
/// Python expression, which raises `OverflowError` as plistlib does.
func makeDate(_ date: Date) -> PyRef? {
    guard let helpers else { return nil }
    let seconds = date.timeIntervalSinceReferenceDate
    // Years 1 to 9999, with a margin: 2001-01-01 is 63,113,904,000 s after 0001-01-01.
    guard seconds.isFinite, seconds > -63_000_000_000, seconds < 251_000_000_000 else {
        return call(helpers.dateFromSeconds, [PyFloat_FromDouble(seconds)])
    }
    let whole = seconds.rounded(.towardZero)
    let microseconds = Int64(whole) * 1_000_000 + Int64(((seconds - whole) * 1e6).rounded(.toNearestOrEven))
    let perDay: Int64 = 86_400_000_000
    var days = microseconds / perDay
    var within = microseconds % perDay
    if within < 0 {
        within += perDay
        days -= 1
    }
    // Days since 1970-01-01 (2001-01-01 is day 11,323), to a civil date (Howard Hinnant's
    // days_from_civil inverse).
    let z = days + 11_323 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthPrime = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
    let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    // The arguments' tuple filled directly (no Swift array per date: dates are a third of
    // reading a date-heavy binary list).
    guard let arguments = PyTuple_New(7) else { return nil }
    defer { ka_decref(arguments) }
    for (index, field) in [
        year, month, day, within / 3_600_000_000, within / 60_000_000 % 60, within / 1_000_000 % 60,
        within % 1_000_000,
    ].enumerated() {
        guard let number = PyLong_FromLongLong(field) else { return nil }
        PyTuple_SetItem(arguments, index, number)
    }
    return PyObject_CallObject(helpers.datetimeClass, arguments)
}

// MARK: - Arguments

/// The bytes of a bytes-like object (`bytes`, `bytearray`, `memoryview`, …), copied.
func bytes(of object: PyRef) throws(PythonErrorSet) -> Data {
    var view = Py_buffer()
    guard PyObject_GetBuffer(object, &view, PyBUF_SIMPLE) == 0 else { throw PythonErrorSet() }
    defer { PyBuffer_Release(&view) }
    guard let base = view.buf, view.len > 0 else { return Data() }
    return Data(bytes: base, count: view.len)
}

/// The text of a `str`.
func string(of object: PyRef) throws(PythonErrorSet) -> String {
    var length = 0
    guard ka_is_str(object) != 0, let base = PyUnicode_AsUTF8AndSize(object, &length) else {
        if PyErr_Occurred() == nil { raise(ka_exc_type_error(), "expected a str") }
        throw PythonErrorSet()
    }
    return base.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
}

/// Runs `work` with the GIL released (it must not touch Python objects).
func withoutGIL<T>(_ work: () throws(KeyedArchiveError) -> T) throws(KeyedArchiveError) -> T {
    let state = PyEval_SaveThread()
    defer { PyEval_RestoreThread(state) }
    return try work()
}

/// The arguments of a METH_FASTCALL call, checked for their count.
func arguments(
    _ args: UnsafePointer<PyRef?>?, _ count: Int, expected: Int, name: String
) throws(PythonErrorSet) -> [PyRef] {
    guard count == expected, let args else {
        raise(ka_exc_type_error(), "\(name)() takes \(expected) arguments (\(count) given)")
        throw PythonErrorSet()
    }
    var result: [PyRef] = []
    for index in 0..<count {
        guard let argument = args[index] else {
            raise(ka_exc_type_error(), "\(name)(): missing argument")
            throw PythonErrorSet()
        }
        result.append(argument)
    }
    return result
}

/// Runs a function body: a thrown library error becomes the package's exception, a set
/// Python exception is returned as `NULL`.
func entry(_ body: () throws -> PyRef?) -> PyRef? {
    do {
        return try body()
    } catch let error as KeyedArchiveError {
        raise(error)
        return nil
    } catch is PythonErrorSet {
        if PyErr_Occurred() == nil { raise(ka_exc_value_error(), "keyedarchive: unknown failure") }
        return nil
    } catch {
        raise(ka_exc_value_error(), "\(error)")
        return nil
    }
}

// MARK: - The module

private func setup(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 8, name: "_setup")
        for object in given { ka_incref(object) }
        helpers = PythonHelpers(
            makeError: given[0], uidClass: given[1], datetimeClass: given[2], dateFromSeconds: given[3],
            secondsFromDate: given[4], uuidFromBytes: given[5], cycleMarker: given[6],
            archivedObject: given[7])
        return ka_none()
    }
}

/// `_fast_paths(enabled)`: turns the fast readers on or off (for the tests); returns the
/// previous setting.
private func fastPaths(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 1, name: "_fast_paths")
        if ka_is_none(given[0]) != 0 { return PyLong_FromLongLong(Int64(lastDeclinedLine)) }
        let previous = fastPathsEnabled
        fastPathsEnabled = PyObject_IsTrue(given[0]) == 1
        return PyBool_FromLong(previous ? 1 : 0)
    }
}

private let functions: [(name: String, function: KAFastFunction, doc: String)] = [
    ("_setup", { setup($0, $1, $2) }, "Hands the package's Python helpers to the extension."),
    (
        "_fast_paths", { fastPaths($0, $1, $2) },
        "_fast_paths(enabled) -> previous (for the tests); _fast_paths(None) -> line of the last decline"
    ),
    ("_loads", { loadsFunction($0, $1, $2) }, "_loads(data, fmt) -> value"),
    ("_dumps", { dumpsFunction($0, $1, $2) }, "_dumps(value, fmt, sort_keys, skipkeys) -> bytes"),
    ("_unarchive", { unarchiveFunction($0, $1, $2) }, "_unarchive(data, allowed, objects) -> value"),
    ("_typedstream_loads", { typedStreamFunction($0, $1, $2) }, "_typedstream_loads(data, objects) -> value"),
    ("_imessage_text", { iMessageTextFunction($0, $1, $2) }, "_imessage_text(data) -> (text, runs)"),
    ("_sqlite_open", { sqliteOpenFunction($0, $1, $2) }, "_sqlite_open(path, recover) -> stream"),
    ("_sqlite_next", { sqliteNextFunction($0, $1, $2) }, "_sqlite_next(stream) -> (blobs, problems or None)"),
]

/// The entry point Python calls when it imports `keyedarchive._keyedarchive`.
@_cdecl("PyInit__keyedarchive")
public func initializeModule() -> UnsafeMutablePointer<PyObject>? {
    // Strings and tables that live as long as the process, as the method table must.
    let count = functions.count
    let names = UnsafeMutablePointer<UnsafePointer<CChar>>.allocate(capacity: count)
    let docs = UnsafeMutablePointer<UnsafePointer<CChar>>.allocate(capacity: count)
    let pointers = UnsafeMutablePointer<KAFastFunction>.allocate(capacity: count)
    for (index, entry) in functions.enumerated() {
        guard let name = strdup(entry.name), let doc = strdup(entry.doc) else { return PyErr_NoMemory() }
        names[index] = UnsafePointer(name)
        docs[index] = UnsafePointer(doc)
        pointers.advanced(by: index).initialize(to: entry.function)
    }
    return ka_module_create(names, pointers, docs, Int32(count))
}
