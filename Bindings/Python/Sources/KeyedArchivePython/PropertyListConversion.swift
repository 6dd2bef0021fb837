import CPythonShim
import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The deepest Python value `dumps` walks (a list that contains itself would otherwise
/// recurse without end): the reader's own default depth.
let maximumPythonDepth = 512

/// The format numbers `keyedarchive/__init__.py` passes: 0 detects.
func propertyListFormat(_ number: Int) -> PropertyListFormat? {
    switch number {
    case 1: return .xml
    case 2: return .binary
    case 3: return .openStep
    default: return nil
    }
}

/// The Python value of `value`, as plistlib builds it: `dict`, `list`, `str`, `int`,
/// `float`, `bool`, `bytes`, naive UTC `datetime`, `plistlib.UID`. The tree is as deep as
/// the reader allowed (512 levels by default), so recursion is bounded.
func makeObject(_ value: PropertyList) -> PyRef? {
    switch value {
    case .string(let text): return makeString(text)
    case .integer(let integer): return makeInteger(integer)
    case .real(let real): return PyFloat_FromDouble(real)
    case .bool(let flag): return PyBool_FromLong(flag ? 1 : 0)
    case .date(let date): return makeDate(date)
    case .data(let data): return makeBytes(data)
    case .array(let elements):
        guard let list = PyList_New(elements.count) else { return nil }
        for (index, element) in elements.enumerated() {
            guard let item = makeObject(element) else {
                ka_decref(list)
                return nil
            }
            PyList_SetItem(list, index, item)
        }
        return list
    case .dictionary(let entries):
        guard let dictionary = PyDict_New() else { return nil }
        for (key, entry) in zip(entries.keys, entries.values) {
            guard let name = makeString(key) else {
                ka_decref(dictionary)
                return nil
            }
            guard let item = makeObject(entry) else {
                ka_decref(name)
                ka_decref(dictionary)
                return nil
            }
            let status = PyDict_SetItem(dictionary, name, item)
            ka_decref(name)
            ka_decref(item)
            if status != 0 {
                ka_decref(dictionary)
                return nil
            }
        }
        return dictionary
    case .uid(let index):
        guard let helpers else { return nil }
        return call(helpers.uidClass, [PyLong_FromUnsignedLongLong(index)])
    }
}

/// `_loads(data, fmt)`: parses without the GIL, then builds the Python value with it.
func loadsFunction(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 2, name: "_loads")
        let format = propertyListFormat(PyLong_AsLong(given[1]))
        if PyErr_Occurred() != nil { throw PythonErrorSet() }
        // A binary property list is built straight from its bytes, with the GIL held (as
        // plistlib reads): most of the time is building Python objects, which needs it.
        // What the fast reader declines goes through the library's reader below.
        if fastPathsEnabled, format == nil || format == .binary, let helpers {
            let outcome = try withBuffer(of: given[0]) { fastLoads($0, helpers: helpers) }
            switch outcome {
            case .value(let value): return value
            case .pythonError: throw PythonErrorSet()
            case .declined: break
            }
        }
        let data = try bytes(of: given[0])
        let value = try withoutGIL { () throws(KeyedArchiveError) -> PropertyList in
            do {
                if let format { return try PropertyList(from: data, format: format) }
                return try PropertyList(from: data)
            } catch let error as KeyedArchiveError {
                throw error
            } catch {
                throw KeyedArchiveError(.corruptData, "\(error)")
            }
        }
        return makeObject(value)
    }
}

/// What `dumps` does with a value plistlib cannot write either.
struct DumpsSettings {
    var sortKeys: Bool
    var skipKeys: Bool
}

/// The property list of a Python value, accepting what plistlib accepts: `str`, `bool`,
/// `int`, `plistlib.UID`, `float`, `dict` (string keys), `bytes`/`bytearray`, `list`/`tuple`,
/// `datetime`.
func propertyList(from object: PyRef, settings: DumpsSettings, depth: Int) throws(PythonErrorSet)
    -> PropertyList
{
    guard let helpers else { throw PythonErrorSet() }
    guard depth < maximumPythonDepth else {
        raise(
            ka_exc_recursion_error(), "value nested more than \(maximumPythonDepth) levels deep (or cyclic)")
        throw PythonErrorSet()
    }
    if ka_is_str(object) != 0 { return .string(try string(of: object)) }
    if ka_is_bool(object) != 0 { return .bool(PyObject_IsTrue(object) == 1) }
    if ka_is_int(object) != 0 { return .integer(try integer(of: object)) }
    if PyObject_IsInstance(object, helpers.uidClass) == 1 {
        guard let number = PyObject_GetAttrString(object, "data") else { throw PythonErrorSet() }
        defer { ka_decref(number) }
        let index = PyLong_AsUnsignedLongLong(number)
        if PyErr_Occurred() != nil { throw PythonErrorSet() }
        return .uid(index)
    }
    if ka_is_float(object) != 0 { return .real(PyFloat_AsDouble(object)) }
    if ka_is_dict(object) != 0 {
        var entries = PropertyListDictionary(minimumCapacity: Int(PyDict_Size(object)))
        var position = 0
        var key: PyRef?
        var value: PyRef?
        var pairs: [(String, PyRef)] = []
        pairs.reserveCapacity(Int(PyDict_Size(object)))
        while PyDict_Next(object, &position, &key, &value) != 0 {
            guard let key, let value else { continue }
            guard ka_is_str(key) != 0 else {
                if settings.skipKeys { continue }
                raise(ka_exc_type_error(), "keys must be strings")
                throw PythonErrorSet()
            }
            pairs.append((try string(of: key), value))
        }
        if settings.sortKeys {
            // By code point, as plistlib sorts: UTF-8 bytes compare in code-point order.
            pairs.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        }
        for (name, value) in pairs {
            entries[name] = try propertyList(from: value, settings: settings, depth: depth + 1)
        }
        return .dictionary(entries)
    }
    if ka_is_bytes(object) != 0 || ka_is_bytearray(object) != 0 { return .data(try bytes(of: object)) }
    if ka_is_list(object) != 0 || ka_is_tuple(object) != 0 {
        guard let sequence = PySequence_Tuple(object) else { throw PythonErrorSet() }
        defer { ka_decref(sequence) }
        let count = PyTuple_Size(sequence)
        var elements: [PropertyList] = []
        elements.reserveCapacity(count)
        for index in 0..<count {
            guard let element = PyTuple_GetItem(sequence, index) else { throw PythonErrorSet() }
            elements.append(try propertyList(from: element, settings: settings, depth: depth + 1))
        }
        return .array(elements)
    }
    if PyObject_IsInstance(object, helpers.datetimeClass) == 1 {
        if let seconds = try naiveSeconds(of: object) {
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        }
        ka_incref(object)
        guard let seconds = call(helpers.secondsFromDate, [object]) else { throw PythonErrorSet() }
        defer { ka_decref(seconds) }
        let interval = PyFloat_AsDouble(seconds)
        if PyErr_Occurred() != nil { throw PythonErrorSet() }
        return .date(Date(timeIntervalSinceReferenceDate: interval))
    }
    let typeName = PyObject_Type(object).flatMap { type -> String? in
        defer { ka_decref(type) }
        guard let name = PyObject_GetAttrString(type, "__name__") else {
            PyErr_Clear()
            return nil
        }
        defer { ka_decref(name) }
        return try? string(of: name)
    }
    raise(ka_exc_type_error(), "unsupported type: \(typeName ?? "object")")
    throw PythonErrorSet()
}

/// The interned names of `datetime`'s `tzinfo` and fields, made on first use (with the GIL).
nonisolated(unsafe) var dateFieldNames: [PyRef] = []

/// Seconds since 2001-01-01 of a naive `datetime`, from its fields, exactly as
/// `(value - datetime(2001, 1, 1)).total_seconds()` computes them (whole microseconds over a
/// million, one correctly rounded division); `nil` for an aware datetime or one more than
/// 285 years from 2001, which the Python helper converts.
func naiveSeconds(of object: PyRef) throws(PythonErrorSet) -> Double? {
    if dateFieldNames.isEmpty {
        for name in ["tzinfo", "year", "month", "day", "hour", "minute", "second", "microsecond"] {
            guard let interned = PyUnicode_InternFromString(name) else { throw PythonErrorSet() }
            dateFieldNames.append(interned)
        }
    }
    guard let zone = PyObject_GetAttr(object, dateFieldNames[0]) else { throw PythonErrorSet() }
    let naive = ka_is_none(zone) != 0
    ka_decref(zone)
    guard naive else { return nil }
    var fields: (Int64, Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0, 0)
    for index in 1..<8 {
        guard let value = PyObject_GetAttr(object, dateFieldNames[index]) else { throw PythonErrorSet() }
        let number = PyLong_AsLongLong(value)
        ka_decref(value)
        if number == -1, PyErr_Occurred() != nil { throw PythonErrorSet() }
        switch index {
        case 1: fields.0 = number
        case 2: fields.1 = number
        case 3: fields.2 = number
        case 4: fields.3 = number
        case 5: fields.4 = number
        case 6: fields.5 = number
        default: fields.6 = number
        }
    }
    // Days from 1970-01-01 to the civil date (Howard Hinnant's days_from_civil); the fields
    // are datetime's own, in range.
    let year = fields.1 <= 2 ? fields.0 - 1 : fields.0
    let era = (year >= 0 ? year : year - 399) / 400
    let yearOfEra = year - era * 400
    let monthIndex = fields.1 > 2 ? fields.1 - 3 : fields.1 + 9
    let dayOfYear = (153 * monthIndex + 2) / 5 + fields.2 - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468 - 11_323  // since 2001-01-01
    let microseconds =
        ((days * 86_400 + fields.3 * 3_600 + fields.4 * 60 + fields.5) * 1_000_000) + fields.6
    guard microseconds.magnitude < 1 << 53 else { return nil }
    return Double(microseconds) / 1e6
}

/// An `int` as a property-list integer: any value from -2¹²⁷ to 2¹²⁷-1.
func integer(of object: PyRef) throws(PythonErrorSet) -> PropertyListInteger {
    var overflow: Int32 = 0
    let signed = PyLong_AsLongLongAndOverflow(object, &overflow)
    if overflow == 0 {
        if signed == -1 && PyErr_Occurred() != nil { throw PythonErrorSet() }
        return PropertyListInteger(signed)
    }
    if overflow > 0 {
        let unsigned = PyLong_AsUnsignedLongLong(object)
        if PyErr_Occurred() == nil { return PropertyListInteger(unsigned) }
        PyErr_Clear()
    }
    guard let text = PyObject_Str(object) else { throw PythonErrorSet() }
    defer { ka_decref(text) }
    let decimal = try string(of: text)
    guard let integer = PropertyListInteger(decimal: Substring(decimal)) else {
        raise(ka_exc_overflow_error(), "integer \(decimal) does not fit in 128 bits")
        throw PythonErrorSet()
    }
    return integer
}

/// `_dumps(value, fmt, sort_keys, skipkeys)`: converts with the GIL, encodes without it.
func dumpsFunction(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 4, name: "_dumps")
        let format = propertyListFormat(PyLong_AsLong(given[1])) ?? .binary
        if PyErr_Occurred() != nil { throw PythonErrorSet() }
        let settings = DumpsSettings(
            sortKeys: PyObject_IsTrue(given[2]) == 1, skipKeys: PyObject_IsTrue(given[3]) == 1)
        let value = try propertyList(from: given[0], settings: settings, depth: 0)
        // Keys are already in the order asked for (sorted by code point, as plistlib sorts).
        let data = try withoutGIL { () throws(KeyedArchiveError) -> Data in
            do {
                return try value.data(format: format, options: PropertyListWritingOptions(sortsKeys: false))
            } catch let error as KeyedArchiveError {
                throw error
            } catch {
                throw KeyedArchiveError(.invalidValue, "\(error)")
            }
        }
        return makeBytes(data)
    }
}
