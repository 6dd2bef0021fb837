import CPythonShim
import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The outcome of a fast path: a value, a Python exception set (returned as `NULL`), or
/// "not here": the input holds something the fast path does not read exactly as the
/// library does, and the library's own path must read it (no exception is set then).
enum FastOutcome {
    case value(PyRef)
    case pythonError
    case declined
}

/// Why a fast build stopped: a Python call failed (its exception is set) or the input needs
/// the library's path.
enum FastStop: Error {
    case pythonError
    case declined
}

/// The source line of the last ``FastStop/declined``, 0 if none: why the last input took
/// the library's path (`_keyedarchive._fast_paths(None)` returns it, for diagnostics).
nonisolated(unsafe) var lastDeclinedLine = 0

/// ``FastStop/declined``, noting where.
func declined(_ line: Int = #line) -> FastStop {
    lastDeclinedLine = line
    return .declined
}

/// A binary property list read in place, for building Python objects straight from its bytes
/// (no ``PropertyList`` tree, no Swift `String`): `loads` and `unarchive` read binary input
/// through it, as plistlib's own reader does, with each object built once.
///
/// It accepts only what it reads exactly as the library does and *declines* anything else
/// (``FastStop/declined``): a malformed trailer, object or reference, an unknown marker, a
/// set, a non-string or repeated dictionary key, a non-finite date, a lone surrogate, a container that contains itself, nesting beyond 400 levels, an expansion
/// beyond half the library's value budget. The caller then runs the library's reader, which
/// gives the same value or the library's error with its location: the fast path never
/// decides an error itself. Every read is bounds-checked against the buffer.
struct FastBinaryPropertyList {
    let base: UnsafePointer<UInt8>
    let length: Int
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let topObject: Int
    /// Objects live in `8..<objectsEnd` (the offset table starts there).
    let objectsEnd: Int

    /// Deeper nesting is left to the library (its limit is 512 levels).
    static let maximumDepth = 400

    /// The trailer of `bytes` checked as the library checks it; `nil` where the library
    /// might refuse or read differently.
    init?(_ bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        guard length >= 42, let raw = bytes.baseAddress else { return nil }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        // "bplist0" and any eighth byte, as the library.
        let magic: [UInt8] = Array("bplist0".utf8)
        for index in 0..<7 where base[index] != magic[index] { return nil }
        let start = length - 32
        func big64(_ position: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(base[position + index]) }
            return value
        }
        let offsetSize = Int(base[start + 6])
        let referenceSize = Int(base[start + 7])
        let count = big64(start + 8)
        let top = big64(start + 16)
        let table = big64(start + 24)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count >= 1,
            count <= UInt64(length), top < count, table >= 9, table < UInt64(start)
        else { return nil }
        guard Int(table) + Int(count) * offsetSize == start else { return nil }
        if referenceSize < 8, UInt64(1) << (8 * referenceSize) <= count { return nil }
        if offsetSize < 8, UInt64(1) << (8 * offsetSize) <= table { return nil }
        self.base = base
        self.length = length
        self.offsetSize = offsetSize
        self.referenceSize = referenceSize
        self.objectCount = Int(count)
        self.topObject = Int(top)
        self.objectsEnd = Int(table)
    }

    /// A big-endian unsigned integer of `width` (1 to 8) bytes at `position`, which the
    /// caller has checked to lie in the buffer.
    @inline(__always)
    func unsigned(_ position: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<width { value = value << 8 | UInt64(base[position + index]) }
        return value
    }

    /// One object's marker, decoded and bounds-checked.
    struct Object {
        /// The marker's high nibble (0x0 Boolean, 0x1 integer, 0x2 real, 0x3 date, 0x4 data,
        /// 0x5 ASCII string, 0x6 UTF-16 string, 0x8 UID, 0xA array, 0xD dictionary).
        var kind: UInt8
        var marker: UInt8
        /// Byte offset of the payload.
        var payload: Int
        /// Elements (pairs), bytes, UTF-16 units, or the width of a number.
        var count: Int
    }

    /// Object `index`, checked as the library checks it; `nil` to decline.
    @inline(__always)
    func object(_ index: Int) -> Object? {
        guard index >= 0, index < objectCount else { return nil }
        let offset = unsigned(objectsEnd + index * offsetSize, offsetSize)
        guard offset >= 8, offset < UInt64(objectsEnd) else { return nil }
        let position = Int(offset)
        let marker = base[position]
        let kind = marker >> 4
        let low = Int(marker & 0x0F)
        var payload = position + 1
        switch kind {
        case 0x0:
            guard marker == 0x08 || marker == 0x09 else { return nil }
            return Object(kind: 0, marker: marker, payload: payload, count: 0)
        case 0x1, 0x2, 0x3, 0x8:
            let width: Int
            switch kind {
            case 0x1:
                guard low <= 4 else { return nil }
                width = 1 << low
            case 0x2:
                guard low == 2 || low == 3 else { return nil }
                width = 1 << low
            case 0x3:
                guard marker == 0x33 else { return nil }
                width = 8
            default:
                guard low < 8 else { return nil }
                width = low + 1
            }
            guard width <= objectsEnd - payload else { return nil }
            return Object(kind: kind, marker: marker, payload: payload, count: width)
        case 0x4, 0x5, 0x6, 0xA, 0xD:
            var count = low
            if low == 0x0F {
                guard payload < objectsEnd else { return nil }
                let header = base[payload]
                guard header >> 4 == 0x1, header & 0x0F <= 3 else { return nil }
                let width = 1 << Int(header & 0x0F)
                guard width <= objectsEnd - payload - 1 else { return nil }
                let value = unsigned(payload + 1, width)
                guard value <= UInt64(length) else { return nil }
                count = Int(value)
                payload += 1 + width
            }
            let unit: Int
            switch kind {
            case 0x4, 0x5: unit = 1
            case 0x6: unit = 2
            case 0xD: unit = 2 * referenceSize
            default: unit = referenceSize
            }
            guard count <= (objectsEnd - payload) / unit else { return nil }
            return Object(kind: kind, marker: marker, payload: payload, count: count)
        default:
            return nil
        }
    }

    /// Reference `element` of a container (a dictionary's keys first, then its values);
    /// `nil` when out of range.
    @inline(__always)
    func reference(_ container: Object, _ element: Int) -> Int? {
        let value = unsigned(container.payload + element * referenceSize, referenceSize)
        guard value < UInt64(objectCount) else { return nil }
        return Int(value)
    }

    /// Whether a string object is exactly the ASCII bytes of `text`.
    func equals(_ object: Object, _ text: StaticString) -> Bool {
        guard object.kind == 0x5, object.count == text.utf8CodeUnitCount else { return false }
        let bytes = text.utf8Start
        for index in 0..<object.count where base[object.payload + index] != bytes[index] { return false }
        return true
    }

    /// Whether two string objects of the same kind hold the same bytes.
    func sameBytes(_ first: Object, _ second: Object) -> Bool {
        guard first.kind == second.kind, first.count == second.count else { return false }
        let length = first.kind == 0x6 ? 2 * first.count : first.count
        for index in 0..<length where base[first.payload + index] != base[second.payload + index] {
            return false
        }
        return true
    }

    /// The bytes of a string or data object.
    func bytes(_ object: Object) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(
            start: base + object.payload, count: object.kind == 0x6 ? 2 * object.count : object.count)
    }

    /// Whether a UTF-16 string object has no lone surrogate (the library refuses one).
    func isWellFormedUTF16(_ object: Object) -> Bool {
        var index = 0
        while index < object.count {
            let unit = unsigned(object.payload + 2 * index, 2)
            if unit & 0xF800 == 0xD800 {
                guard unit < 0xDC00, index + 1 < object.count,
                    unsigned(object.payload + 2 * index + 2, 2) & 0xFC00 == 0xDC00
                else { return false }
                index += 1
            }
            index += 1
        }
        return true
    }

    // MARK: Python scalars

    /// The Python value of a scalar object (not a container, not a UID); `nil` with a
    /// Python exception set, or ``FastStop/declined``.
    func scalar(_ object: Object) throws(FastStop) -> PyRef {
        let made: PyRef?
        switch object.kind {
        case 0x0: made = PyBool_FromLong(object.marker == 0x09 ? 1 : 0)
        case 0x1 where object.count == 16:
            // 128 bits, signed (as the library and plistlib read them): high << 64 | low.
            let high = Int64(bitPattern: unsigned(object.payload, 8))
            let low = unsigned(object.payload + 8, 8)
            if high == 0 {
                made = PyLong_FromUnsignedLongLong(low)
            } else if high == -1, low >= 1 << 63 {
                made = PyLong_FromLongLong(Int64(bitPattern: low))
            } else {
                guard let upper = PyLong_FromLongLong(high) else { throw .pythonError }
                defer { ka_decref(upper) }
                guard let shift = PyLong_FromLong(64) else { throw .pythonError }
                defer { ka_decref(shift) }
                guard let shifted = PyNumber_Lshift(upper, shift) else { throw .pythonError }
                defer { ka_decref(shifted) }
                guard let lower = PyLong_FromUnsignedLongLong(low) else { throw .pythonError }
                defer { ka_decref(lower) }
                made = PyNumber_Or(shifted, lower)
            }
        case 0x1:
            let value = unsigned(object.payload, object.count)
            made =
                object.count == 8
                ? PyLong_FromLongLong(Int64(bitPattern: value)) : PyLong_FromLongLong(Int64(value))
        case 0x2:
            let bits = unsigned(object.payload, object.count)
            made = PyFloat_FromDouble(
                object.count == 4
                    ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits))
        case 0x3:
            let seconds = Double(bitPattern: unsigned(object.payload, 8))
            guard seconds.isFinite else { throw declined() }
            made = makeDate(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            made = PyBytes_FromStringAndSize(
                UnsafeRawPointer(base + object.payload).assumingMemoryBound(to: CChar.self), object.count)
        case 0x5, 0x6: return try string(object)
        default: throw declined()
        }
        guard let made else { throw .pythonError }
        return made
    }

    /// The `str` of a string object: ASCII bytes, bytes above 0x7F as Latin-1 (as the
    /// library and CoreFoundation read them), big-endian UTF-16 without lone surrogates.
    func string(_ object: Object) throws(FastStop) -> PyRef {
        let start = UnsafeRawPointer(base + object.payload).assumingMemoryBound(to: CChar.self)
        let made: PyRef?
        switch object.kind {
        case 0x5:
            var ascii = true
            for index in 0..<object.count where base[object.payload + index] >= 0x80 {
                ascii = false
                break
            }
            made =
                ascii
                ? PyUnicode_FromStringAndSize(start, object.count)
                : PyUnicode_DecodeLatin1(start, object.count, nil)
        case 0x6:
            guard isWellFormedUTF16(object) else { throw declined() }
            var order: Int32 = 1
            made = PyUnicode_DecodeUTF16(start, 2 * object.count, nil, &order)
        default: throw declined()
        }
        guard let made else { throw .pythonError }
        return made
    }
}

/// Builds the Python value of a whole binary property list, as plistlib does: each object
/// once (an object referenced again is the same Python object, so a key used by a thousand
/// dictionaries is one `str`), with the library's checks (see ``FastBinaryPropertyList``).
struct FastPropertyListBuilder {
    let plist: FastBinaryPropertyList
    let helpers: PythonHelpers
    /// The Python object built for each object index (owned references).
    private var built: [PyRef?]
    /// 1 while an object's container is open (a second entry is a cycle), 2 once built.
    private var state: [UInt8]
    /// Values each object counts for in the library's budget (shared objects count each time
    /// they are reached), saturating.
    private var sizes: [Int]
    /// Container levels each object holds, itself included.
    private var heights: [Int]

    init(plist: FastBinaryPropertyList, helpers: PythonHelpers) {
        self.plist = plist
        self.helpers = helpers
        built = Array(repeating: nil, count: plist.objectCount)
        state = Array(repeating: 0, count: plist.objectCount)
        sizes = Array(repeating: 0, count: plist.objectCount)
        heights = Array(repeating: 0, count: plist.objectCount)
    }

    /// Releases every object built.
    func release() {
        for object in built { ka_xdecref(object) }
    }

    /// The value of the top object: a new reference.
    mutating func build(budget: Int) throws(FastStop) -> PyRef {
        let root = try value(plist.topObject, depth: 1)
        // The library refuses more than `budget` values or 512 levels: leave anything near
        // either to it.
        guard sizes[plist.topObject] <= budget / 2,
            heights[plist.topObject] <= FastBinaryPropertyList.maximumDepth
        else {
            ka_decref(root)
            throw declined()
        }
        return root
    }

    /// The value of object `index` (a new reference), reached at nesting level `depth`.
    mutating func value(_ index: Int, depth: Int) throws(FastStop) -> PyRef {
        if state[index] == 2, let known = built[index] {
            ka_incref(known)
            return known
        }
        guard state[index] == 0, depth <= FastBinaryPropertyList.maximumDepth,
            let object = plist.object(index)
        else { throw declined() }
        let made: PyRef
        switch object.kind {
        case 0xA:
            state[index] = 1
            guard let list = PyList_New(object.count) else { throw .pythonError }
            var size = 1
            var height = 0
            for element in 0..<object.count {
                guard let child = plist.reference(object, element) else {
                    ka_decref(list)
                    throw declined()
                }
                let item: PyRef
                do { item = try value(child, depth: depth + 1) } catch {
                    ka_decref(list)
                    throw error
                }
                PyList_SetItem(list, element, item)
                size = Self.add(size, sizes[child])
                height = max(height, heights[child])
            }
            sizes[index] = size
            heights[index] = height + 1
            made = list
        case 0xD:
            state[index] = 1
            guard let dictionary = PyDict_New() else { throw .pythonError }
            var size = 1
            var height = 0
            for entry in 0..<object.count {
                do throws(FastStop) {
                    guard let keyIndex = plist.reference(object, entry),
                        let valueIndex = plist.reference(object, object.count + entry)
                    else { throw declined() }
                    let key = try self.key(keyIndex)
                    let item: PyRef
                    do { item = try value(valueIndex, depth: depth + 1) } catch {
                        ka_decref(key)
                        throw error
                    }
                    let status = PyDict_SetItem(dictionary, key, item)
                    ka_decref(key)
                    ka_decref(item)
                    guard status == 0 else { throw FastStop.pythonError }
                    size = Self.add(Self.add(size, 1), sizes[valueIndex])
                    height = max(height, heights[valueIndex])
                } catch {
                    ka_decref(dictionary)
                    throw error
                }
            }
            // A key given twice: the library's order and choice are its own.
            guard PyDict_Size(dictionary) == object.count else {
                ka_decref(dictionary)
                throw declined()
            }
            sizes[index] = size
            heights[index] = height + 1
            made = dictionary
        case 0x8:
            // A UID is rare outside archives: built each time.
            let number = plist.unsigned(object.payload, object.count)
            guard let uid = call(helpers.uidClass, [PyLong_FromUnsignedLongLong(number)]) else {
                throw .pythonError
            }
            sizes[index] = 1
            return uid
        default:
            made = try plist.scalar(object)
            sizes[index] = 1
        }
        built[index] = made
        state[index] = 2
        ka_incref(made)
        return made
    }

    /// A dictionary key: a string object, built once.
    private mutating func key(_ index: Int) throws(FastStop) -> PyRef {
        if state[index] == 2, let known = built[index] {
            guard ka_is_str(known) != 0 else { throw declined() }
            ka_incref(known)
            return known
        }
        guard state[index] == 0, let object = plist.object(index), object.kind == 0x5 || object.kind == 0x6
        else {
            throw declined()
        }
        let made = try plist.string(object)
        built[index] = made
        state[index] = 2
        sizes[index] = 1
        ka_incref(made)
        return made
    }

    static func add(_ first: Int, _ second: Int) -> Int {
        let (sum, overflow) = first.addingReportingOverflow(second)
        return overflow ? Int.max : sum
    }
}

/// The value budget the library's readers give an input of `length` bytes by default.
func defaultValueBudget(_ length: Int) -> Int {
    let options = PropertyListReadingOptions()
    let (scaled, overflow) = max(0, length).multipliedReportingOverflow(
        by: max(0, options.maximumExpansionFactor))
    if overflow { return Int.max }
    let (total, overflowTotal) = scaled.addingReportingOverflow(max(0, options.baseValueAllowance))
    return overflowTotal ? Int.max : total
}

/// Runs `body` on the bytes of a bytes-like object, in place (no copy).
func withBuffer<T>(of object: PyRef, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
    var view = Py_buffer()
    guard PyObject_GetBuffer(object, &view, PyBUF_SIMPLE) == 0 else { throw PythonErrorSet() }
    defer { PyBuffer_Release(&view) }
    guard let base = view.buf, view.len > 0 else {
        return try body(UnsafeRawBufferPointer(start: nil, count: 0))
    }
    return try body(UnsafeRawBufferPointer(start: base, count: view.len))
}

/// `loads` of a binary property list straight into Python objects.
func fastLoads(_ bytes: UnsafeRawBufferPointer, helpers: PythonHelpers) -> FastOutcome {
    guard let plist = FastBinaryPropertyList(bytes) else { return .declined }
    var builder = FastPropertyListBuilder(plist: plist, helpers: helpers)
    defer { builder.release() }
    do {
        return .value(try builder.build(budget: defaultValueBudget(bytes.count)))
    } catch {
        // A Python exception (a date out of datetime's range, an unhashable key) is left to
        // the library's path too: it reads the whole input before building anything, so a
        // malformed object further on is reported first, as before.
        if PyErr_Occurred() != nil { PyErr_Clear() }
        return .declined
    }
}
