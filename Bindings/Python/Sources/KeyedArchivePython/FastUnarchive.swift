import CPythonShim
import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `unarchive` of a binary keyed archive straight from its bytes into Python values, with the
/// results ``ArchiveConverter`` gives from the library's object graph (the same values,
/// `Cycle` markers at the same places, each object converted once).
///
/// First every `$objects` entry is checked, without building anything: the header
/// (`$archiver`, `$version`, `$top` with a `root`, `$objects` starting with `$null`), every
/// entry a plain scalar, a class description or an object whose `$class` is one, every field a
/// reference in range, a scalar or a flat array of those, and every class one whose natural
/// value this reader builds exactly as the converter does (Foundation's collections, strings,
/// data, dates, `NSNull`, `NSUUID`, `NSURL` without a base) or a class outside Apple's
/// prefixes whose value is the `dict` of its fields. Anything else (classes the catalogue
/// summarises, nested plain containers, escaped `$` keys, a malformed entry) is *declined*
/// before any Python object exists, and the library's path reads the archive as before,
/// errors included.
struct FastUnarchiver {
    let plist: FastBinaryPropertyList
    let helpers: PythonHelpers
    /// The plist object of each `$objects` entry.
    private var entries: [Int] = []
    /// What each entry is (``EntryKind``).
    private var kinds: [EntryKind] = []
    /// The natural conversion of each object's class, by entry.
    private var natures: [Nature] = []
    /// The class-description entry of each object.
    private var classOf: [Int] = []
    /// Converted objects (owned), and plain values (owned), by entry.
    private var converted: [PyRef?] = []
    /// 1 while an object is being converted (a reference back is a `Cycle`).
    private var enclosing: [Bool] = []
    private var rootUID = 0

    enum EntryKind: UInt8 {
        case null, plain, classDescription, object
    }

    enum Nature: UInt8 {
        case none, list, dictionary, string, data, date, null, uuid, url, generic
    }

    init(plist: FastBinaryPropertyList, helpers: PythonHelpers) {
        self.plist = plist
        self.helpers = helpers
    }

    /// Releases every Python object held.
    func release() {
        for object in converted { ka_xdecref(object) }
    }

    // MARK: Checking

    /// Reads the header and checks every entry; throws ``FastStop/declined`` for anything
    /// this reader does not convert exactly as the library's path.
    mutating func check() throws(FastStop) {
        guard let root = plist.object(plist.topObject), root.kind == 0xD, root.count == 4 else { throw .declined }
        var objectsArray: FastBinaryPropertyList.Object?
        var top: FastBinaryPropertyList.Object?
        var sawArchiver = false
        var sawVersion = false
        for entry in 0..<4 {
            guard let keyIndex = plist.reference(root, entry), let valueIndex = plist.reference(root, 4 + entry),
                let key = plist.object(keyIndex), let value = plist.object(valueIndex)
            else { throw .declined }
            if plist.equals(key, "$archiver") {
                guard !sawArchiver, plist.equals(value, "NSKeyedArchiver") else { throw .declined }
                sawArchiver = true
            } else if plist.equals(key, "$version") {
                guard !sawVersion, value.kind == 0x1, value.count <= 8,
                    plist.unsigned(value.payload, value.count) == 100_000
                else { throw .declined }
                sawVersion = true
            } else if plist.equals(key, "$top") {
                guard top == nil, value.kind == 0xD else { throw .declined }
                top = value
            } else if plist.equals(key, "$objects") {
                guard objectsArray == nil, value.kind == 0xA else { throw .declined }
                objectsArray = value
            } else {
                throw .declined
            }
        }
        guard sawArchiver, sawVersion, let top, let objectsArray else { throw .declined }
        let count = objectsArray.count
        guard count >= 1, count <= 1 << 24 else { throw .declined }
        entries = []
        entries.reserveCapacity(count)
        for uid in 0..<count {
            guard let index = plist.reference(objectsArray, uid) else { throw .declined }
            entries.append(index)
        }
        guard let null = plist.object(entries[0]), plist.equals(null, "$null") else { throw .declined }
        // `$top`: references only, one of them `root`.
        var foundRoot = false
        for entry in 0..<top.count {
            guard let keyIndex = plist.reference(top, entry), let valueIndex = plist.reference(top, top.count + entry),
                let key = plist.object(keyIndex), key.kind == 0x5, key.count > 0,
                plist.base[key.payload] != UInt8(ascii: "$"), let value = plist.object(valueIndex),
                value.kind == 0x8
            else { throw .declined }
            let uid = plist.unsigned(value.payload, value.count)
            guard uid < UInt64(count) else { throw .declined }
            if plist.equals(key, "root") {
                guard !foundRoot else { throw .declined }
                foundRoot = true
                rootUID = Int(uid)
            }
        }
        guard foundRoot else { throw .declined }

        kinds = Array(repeating: .null, count: count)
        natures = Array(repeating: .none, count: count)
        classOf = Array(repeating: 0, count: count)
        var classNatures: [Int: Nature] = [:]
        // Values the library's reader counts (shared plain objects count each time).
        var values = 0
        let budget = defaultValueBudget(plist.length) / 2
        for uid in 1..<max(1, count) {
            guard let entry = plist.object(entries[uid]) else { throw .declined }
            values += 1
            if entry.kind != 0xD {
                guard entry.kind != 0xA, entry.kind != 0x8 else { throw .declined }
                try checkScalar(entry)
                kinds[uid] = .plain
                continue
            }
            guard entry.count <= 64 else { throw .declined }
            var classReference: FastBinaryPropertyList.Object?
            var hasClassName = false
            for field in 0..<entry.count {
                guard let keyIndex = plist.reference(entry, field), let key = plist.object(keyIndex),
                    key.kind == 0x5, key.count > 0
                else { throw .declined }
                // A key given twice: the library's choice is its own.
                for earlier in 0..<field {
                    guard let otherIndex = plist.reference(entry, earlier), let other = plist.object(otherIndex),
                        !plist.sameBytes(other, key)
                    else { throw .declined }
                }
                if plist.equals(key, "$class") {
                    guard let valueIndex = plist.reference(entry, entry.count + field),
                        let value = plist.object(valueIndex), value.kind == 0x8
                    else { throw .declined }
                    classReference = value
                } else if plist.equals(key, "$classname") {
                    hasClassName = true
                }
            }
            values += 2 * entry.count
            guard let classReference else {
                guard hasClassName else { throw .declined }
                try checkClassDescription(entry)
                kinds[uid] = .classDescription
                continue
            }
            let classUID = plist.unsigned(classReference.payload, classReference.count)
            guard classUID > 0, classUID < UInt64(count) else { throw .declined }
            let classIndex = Int(classUID)
            let nature: Nature
            if let known = classNatures[classIndex] {
                nature = known
            } else {
                guard let description = plist.object(entries[classIndex]), description.kind == 0xD else {
                    throw .declined
                }
                try checkClassDescription(description)
                nature = try self.nature(ofClassDescription: description)
                classNatures[classIndex] = nature
            }
            // Every field: `$class`, or an unescaped key whose value is a reference in range, a
            // scalar or a flat array of those.
            for field in 0..<entry.count {
                guard let keyIndex = plist.reference(entry, field), let key = plist.object(keyIndex),
                    let valueIndex = plist.reference(entry, entry.count + field), let value = plist.object(valueIndex)
                else { throw .declined }
                if plist.base[key.payload] == UInt8(ascii: "$") {
                    guard plist.equals(key, "$class") else { throw .declined }
                    continue
                }
                values += try checkFieldValue(value, count: count)
            }
            guard values <= budget else { throw .declined }
            try checkFields(of: entry, nature: nature, count: count)
            kinds[uid] = .object
            natures[uid] = nature
            classOf[uid] = classIndex
        }
        guard values <= budget else { throw .declined }
        converted = Array(repeating: nil, count: count)
        enclosing = Array(repeating: false, count: count)
    }

    /// A scalar as the library reads it (no UID, no container).
    private func checkScalar(_ object: FastBinaryPropertyList.Object) throws(FastStop) {
        switch object.kind {
        case 0x0, 0x1, 0x2, 0x4, 0x5: return
        case 0x3:
            guard Double(bitPattern: plist.unsigned(object.payload, 8)).isFinite else { throw .declined }
        case 0x6:
            guard plist.isWellFormedUTF16(object) else { throw .declined }
        default: throw .declined
        }
    }

    /// A field's value; returns the values it counts for.
    private func checkFieldValue(_ value: FastBinaryPropertyList.Object, count: Int) throws(FastStop) -> Int {
        switch value.kind {
        case 0x8:
            guard plist.unsigned(value.payload, value.count) < UInt64(count) else { throw .declined }
            return 2
        case 0xA:
            for element in 0..<value.count {
                guard let index = plist.reference(value, element), let object = plist.object(index) else {
                    throw .declined
                }
                if object.kind == 0x8 {
                    guard plist.unsigned(object.payload, object.count) < UInt64(count) else { throw .declined }
                } else {
                    try checkScalar(object)
                }
            }
            return 2 + value.count
        default:
            try checkScalar(value)
            return 2
        }
    }

    /// A class description as `ClassDescription(parsing:)` accepts it, with no other keys.
    private func checkClassDescription(_ entry: FastBinaryPropertyList.Object) throws(FastStop) {
        var hasName = false
        for field in 0..<entry.count {
            guard let keyIndex = plist.reference(entry, field), let key = plist.object(keyIndex),
                let valueIndex = plist.reference(entry, entry.count + field), let value = plist.object(valueIndex)
            else { throw .declined }
            if plist.equals(key, "$classname") {
                guard value.kind == 0x5 else { throw .declined }
                hasName = true
            } else if plist.equals(key, "$classes") || plist.equals(key, "$classhints") {
                guard value.kind == 0xA else { throw .declined }
                for element in 0..<value.count {
                    guard let index = plist.reference(value, element), let name = plist.object(index),
                        name.kind == 0x5
                    else { throw .declined }
                }
            } else {
                throw .declined
            }
        }
        guard hasName else { throw .declined }
    }

    /// The ASCII string object under `key` in a dictionary, if any.
    private func field(_ entry: FastBinaryPropertyList.Object, _ key: StaticString) -> FastBinaryPropertyList.Object? {
        for field in 0..<entry.count {
            guard let keyIndex = plist.reference(entry, field), let name = plist.object(keyIndex),
                plist.equals(name, key), let valueIndex = plist.reference(entry, entry.count + field)
            else { continue }
            return plist.object(valueIndex)
        }
        return nil
    }

    /// Whether the class name (ASCII) is one the natural conversions or the catalogue may
    /// know: an Apple prefix, a module-qualified or private name.
    private func isApplePrefixed(_ name: FastBinaryPropertyList.Object) -> Bool {
        let bytes = plist.bytes(name)
        if bytes.count >= 2,
            (bytes[0] == UInt8(ascii: "N") && bytes[1] == UInt8(ascii: "S"))
                || (bytes[0] == UInt8(ascii: "U") && bytes[1] == UInt8(ascii: "I"))
        {
            return true
        }
        return bytes.first == UInt8(ascii: "_") || bytes.contains(UInt8(ascii: "."))
    }

    /// The conversion of a class, from its description; declined for a class whose value
    /// the library's catalogue or natural conversions give in a way this reader does not.
    private func nature(ofClassDescription description: FastBinaryPropertyList.Object) throws(FastStop) -> Nature {
        guard let name = field(description, "$classname") else { throw .declined }
        let known: [(StaticString, Nature)] = [
            ("NSArray", .list), ("NSMutableArray", .list), ("NSSet", .list), ("NSMutableSet", .list),
            ("NSOrderedSet", .list), ("NSMutableOrderedSet", .list), ("NSDictionary", .dictionary),
            ("NSMutableDictionary", .dictionary), ("NSString", .string), ("NSMutableString", .string),
            ("NSData", .data), ("NSMutableData", .data), ("NSDate", .date), ("NSNull", .null),
            ("NSUUID", .uuid), ("NSURL", .url),
        ]
        for (text, nature) in known where plist.equals(name, text) { return nature }
        if isApplePrefixed(name) { throw .declined }
        // A class of its own: its ancestors other than NSObject must not be Apple's either
        // (a subclass of NSMutableArray is a list, of NSAttributedString a summary).
        if let chain = field(description, "$classes") {
            for element in 0..<min(chain.count, 64) {
                guard let index = plist.reference(chain, element), let ancestor = plist.object(index) else {
                    throw .declined
                }
                if plist.equals(ancestor, "NSObject") { continue }
                if isApplePrefixed(ancestor) { throw .declined }
            }
        }
        return .generic
    }

    /// The fields a natural conversion reads, present in the form it reads them.
    private func checkFields(of entry: FastBinaryPropertyList.Object, nature: Nature, count: Int) throws(FastStop) {
        switch nature {
        case .list:
            guard let objects = field(entry, "NS.objects"), objects.kind == 0xA else { throw .declined }
        case .dictionary:
            guard let keys = field(entry, "NS.keys"), keys.kind == 0xA, let objects = field(entry, "NS.objects"),
                objects.kind == 0xA, keys.count == objects.count
            else { throw .declined }
        case .string:
            guard field(entry, "NS.string") != nil else { throw .declined }
        case .data:
            guard field(entry, "NS.data") != nil || field(entry, "NS.bytes") != nil else { throw .declined }
        case .date:
            guard let time = field(entry, "NS.time"), time.kind == 0x1 || time.kind == 0x2 else { throw .declined }
        case .uuid:
            guard let bytes = field(entry, "NS.uuidbytes"), bytes.kind == 0x4, bytes.count == 16 else {
                throw .declined
            }
        case .url:
            if let base = field(entry, "NS.base") {
                guard base.kind == 0x8, plist.unsigned(base.payload, base.count) == 0 else { throw .declined }
            }
            guard let relative = field(entry, "NS.relative") else { throw .declined }
            if relative.kind == 0x8 {
                let uid = Int(plist.unsigned(relative.payload, relative.count))
                guard uid > 0, uid < count, let target = plist.object(entries[uid]),
                    target.kind == 0x5 || target.kind == 0x6
                else { throw .declined }
            } else {
                guard relative.kind == 0x5 || relative.kind == 0x6 else { throw .declined }
            }
        case .null, .generic, .none: return
        }
    }

    // MARK: Converting

    /// The root's value (a new reference).
    mutating func convertRoot() throws(FastStop) -> PyRef {
        try reference(rootUID, depth: 0)
    }

    /// The value at `$objects[uid]`.
    private mutating func reference(_ uid: Int, depth: Int) throws(FastStop) -> PyRef {
        guard depth < FastBinaryPropertyList.maximumDepth else { throw .declined }
        if let known = converted[uid] {
            ka_incref(known)
            return known
        }
        switch kinds[uid] {
        case .null: return ka_none()
        case .plain:
            guard let object = plist.object(entries[uid]) else { throw .declined }
            let made = try plist.scalar(object)
            converted[uid] = made
            ka_incref(made)
            return made
        case .classDescription:
            guard let description = plist.object(entries[uid]), let name = field(description, "$classname") else {
                throw .declined
            }
            return try plist.string(name)
        case .object:
            if enclosing[uid] {
                guard let marker = call(helpers.cycleMarker, [PyLong_FromLongLong(Int64(uid))]) else {
                    throw .pythonError
                }
                return marker
            }
            enclosing[uid] = true
            defer { enclosing[uid] = false }
            let made = try naturalValue(uid, depth: depth)
            converted[uid] = made
            ka_incref(made)
            return made
        }
    }

    /// A field's value: a reference, a scalar or a flat array.
    private mutating func value(_ object: FastBinaryPropertyList.Object, depth: Int) throws(FastStop) -> PyRef {
        switch object.kind {
        case 0x8:
            let uid = Int(plist.unsigned(object.payload, object.count))
            return uid == 0 ? ka_none() : try reference(uid, depth: depth)
        case 0xA: return try list(object, depth: depth)
        default: return try plist.scalar(object)
        }
    }

    private mutating func list(_ array: FastBinaryPropertyList.Object, depth: Int) throws(FastStop) -> PyRef {
        guard let list = PyList_New(array.count) else { throw .pythonError }
        for element in 0..<array.count {
            do throws(FastStop) {
                guard let index = plist.reference(array, element), let object = plist.object(index) else {
                    throw FastStop.declined
                }
                PyList_SetItem(list, element, try value(object, depth: depth + 1))
            } catch {
                ka_decref(list)
                throw error
            }
        }
        return list
    }

    private mutating func naturalValue(_ uid: Int, depth: Int) throws(FastStop) -> PyRef {
        guard let entry = plist.object(entries[uid]) else { throw .declined }
        func required(_ key: StaticString) throws(FastStop) -> FastBinaryPropertyList.Object {
            guard let found = field(entry, key) else { throw .declined }
            return found
        }
        switch natures[uid] {
        case .list:
            return try list(try required("NS.objects"), depth: depth)
        case .dictionary:
            let keys = try required("NS.keys")
            let objects = try required("NS.objects")
            guard keys.count == objects.count, let result = PyDict_New() else { throw .pythonError }
            for entry in 0..<keys.count {
                do throws(FastStop) {
                    guard let keyIndex = plist.reference(keys, entry), let key = plist.object(keyIndex),
                        let valueIndex = plist.reference(objects, entry), let item = plist.object(valueIndex)
                    else { throw FastStop.declined }
                    let name = try value(key, depth: depth + 1)
                    let made: PyRef
                    do { made = try value(item, depth: depth + 1) } catch {
                        ka_decref(name)
                        throw error
                    }
                    try setItem(result, made, name)
                } catch {
                    ka_decref(result)
                    throw error
                }
            }
            return result
        case .string:
            return try value(try required("NS.string"), depth: depth)
        case .data:
            if let data = field(entry, "NS.data") { return try value(data, depth: depth) }
            return try value(try required("NS.bytes"), depth: depth)
        case .date:
            let time = try required("NS.time")
            let bits = plist.unsigned(time.payload, time.count)
            let seconds: Double
            if time.kind == 0x2 {
                seconds = time.count == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
            } else {
                seconds = Double(time.count == 8 ? Int64(bitPattern: bits) : Int64(bits))
            }
            guard let made = makeDate(Date(timeIntervalSinceReferenceDate: seconds)) else { throw .pythonError }
            return made
        case .null:
            return ka_none()
        case .uuid:
            let bytes = try required("NS.uuidbytes")
            guard
                let made = call(
                    helpers.uuidFromBytes,
                    [
                        PyBytes_FromStringAndSize(
                            UnsafeRawPointer(plist.base + bytes.payload).assumingMemoryBound(to: CChar.self), 16)
                    ])
            else { throw .pythonError }
            return made
        case .url:
            let relative = try required("NS.relative")
            if relative.kind == 0x8 {
                guard let target = plist.object(entries[Int(plist.unsigned(relative.payload, relative.count))]) else {
                    throw .declined
                }
                return try plist.string(target)
            }
            return try plist.string(relative)
        case .generic:
            guard let result = PyDict_New() else { throw .pythonError }
            do throws(FastStop) {
                guard let description = plist.object(entries[classOf[uid]]),
                    let name = field(description, "$classname")
                else { throw FastStop.declined }
                let className = try plist.string(name)
                guard let classKey = PyUnicode_FromStringAndSize("$class", 6) else {
                    ka_decref(className)
                    throw FastStop.pythonError
                }
                try setItem(result, className, classKey)
                for field in 0..<entry.count {
                    guard let keyIndex = plist.reference(entry, field), let key = plist.object(keyIndex),
                        let valueIndex = plist.reference(entry, entry.count + field),
                        let item = plist.object(valueIndex)
                    else { throw FastStop.declined }
                    if plist.equals(key, "$class") { continue }
                    let keyObject = try plist.string(key)
                    let made: PyRef
                    do { made = try value(item, depth: depth + 1) } catch {
                        ka_decref(keyObject)
                        throw error
                    }
                    try setItem(result, made, keyObject)
                }
            } catch {
                ka_decref(result)
                throw error
            }
            return result
        case .none:
            throw .declined
        }
    }

    /// `result[key] = item`, consuming both; an unhashable key becomes its `repr`, as the
    /// converter does.
    private func setItem(_ result: PyRef, _ item: PyRef, _ key: PyRef) throws(FastStop) {
        defer {
            ka_decref(key)
            ka_decref(item)
        }
        if PyDict_SetItem(result, key, item) == 0 { return }
        guard PyErr_ExceptionMatches(ka_exc_type_error()) != 0, let text = PyObject_Repr(key) else {
            throw .pythonError
        }
        PyErr_Clear()
        defer { ka_decref(text) }
        if PyDict_SetItem(result, text, item) != 0 { throw .pythonError }
    }
}

/// `unarchive` of a binary archive through ``FastUnarchiver``.
func fastUnarchive(_ bytes: UnsafeRawBufferPointer, helpers: PythonHelpers) -> FastOutcome {
    guard let plist = FastBinaryPropertyList(bytes) else { return .declined }
    var unarchiver = FastUnarchiver(plist: plist, helpers: helpers)
    defer { unarchiver.release() }
    do {
        try unarchiver.check()
        return .value(try unarchiver.convertRoot())
    } catch {
        // A Python exception (a date out of datetime's range, an unhashable key) is left to
        // the library's path too: it reads the whole input before building anything, so a
        // malformed object further on is reported first, as before.
        if PyErr_Occurred() != nil { PyErr_Clear() }
        return .declined
    }
}
