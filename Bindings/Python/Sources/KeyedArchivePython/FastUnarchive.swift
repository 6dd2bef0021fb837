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
    /// The plist objects (values) of the fields a natural conversion reads, by entry; for a
    /// class description, its `$classname`.
    private var fieldA: [Int] = []
    private var fieldB: [Int] = []
    /// What each plist object is as a dictionary key (``Key``), by plist object; 0 unknown.
    private var keyKinds: [UInt8] = []
    /// The `str` of each plist object used as a field name (owned), by plist object.
    private var keyStrings: [PyRef?] = []
    /// Converted objects (owned), and plain values (owned), by entry.
    private var converted: [PyRef?] = []
    /// 1 while an object is being converted (a reference back is a `Cycle`).
    private var enclosing: [Bool] = []
    private var rootUID = 0
    /// `$top`, when it has no `root`.
    private var topEntries: FastBinaryPropertyList.Object?

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
        for object in keyStrings { ka_xdecref(object) }
    }

    /// The dictionary keys an archive's checks and conversions look for, numbered for
    /// ``keyKinds``: each distinct key object is compared with the names once.
    enum Key {
        static let names: [StaticString] = [
            "$class", "$classname", "$classes", "$classhints", "NS.objects", "NS.keys", "NS.string",
            "NS.data",
            "NS.bytes", "NS.time", "NS.uuidbytes", "NS.base", "NS.relative",
        ]
        static let classReference: UInt8 = 1
        static let className: UInt8 = 2
        static let classes: UInt8 = 3
        static let classHints: UInt8 = 4
        static let objects: UInt8 = 5
        static let keys: UInt8 = 6
        static let string: UInt8 = 7
        static let data: UInt8 = 8
        static let bytes: UInt8 = 9
        static let time: UInt8 = 10
        static let uuidBytes: UInt8 = 11
        static let base: UInt8 = 12
        static let relative: UInt8 = 13
        /// Slots of the names above, 1 to 13.
        static let slots = 14
        /// Another key starting with `$` (escaped or reserved).
        static let otherDollar: UInt8 = 14
        /// Any other key.
        static let other: UInt8 = 15
    }

    // MARK: Checking

    /// Reads the header and checks every entry; throws ``FastStop/declined`` for anything
    /// this reader does not convert exactly as the library's path.
    mutating func check() throws(FastStop) {
        guard let root = plist.object(plist.topObject), root.kind == 0xD, root.count == 4 else {
            throw declined()
        }
        var objectsArray: FastBinaryPropertyList.Object?
        var top: FastBinaryPropertyList.Object?
        var sawArchiver = false
        var sawVersion = false
        for entry in 0..<4 {
            guard let keyIndex = plist.reference(root, entry),
                let valueIndex = plist.reference(root, 4 + entry),
                let key = plist.object(keyIndex), let value = plist.object(valueIndex)
            else { throw declined() }
            if plist.equals(key, "$archiver") {
                guard !sawArchiver, plist.equals(value, "NSKeyedArchiver") else { throw declined() }
                sawArchiver = true
            } else if plist.equals(key, "$version") {
                guard !sawVersion, value.kind == 0x1, value.count <= 8,
                    plist.unsigned(value.payload, value.count) == 100_000
                else { throw declined() }
                sawVersion = true
            } else if plist.equals(key, "$top") {
                guard top == nil, value.kind == 0xD else { throw declined() }
                top = value
            } else if plist.equals(key, "$objects") {
                guard objectsArray == nil, value.kind == 0xA else { throw declined() }
                objectsArray = value
            } else {
                throw declined()
            }
        }
        guard sawArchiver, sawVersion, let top, let objectsArray else { throw declined() }
        let count = objectsArray.count
        guard count >= 1, count <= 1 << 24 else { throw declined() }
        entries = []
        entries.reserveCapacity(count)
        for uid in 0..<count {
            guard let index = plist.reference(objectsArray, uid) else { throw declined() }
            entries.append(index)
        }
        guard let null = plist.object(entries[0]), plist.equals(null, "$null") else { throw declined() }
        // `$top`: references in range and scalars, under unescaped keys; `root` a reference,
        // or absent (the archive's value is then its `$top` entries).
        var foundRoot = false
        for entry in 0..<top.count {
            guard let keyIndex = plist.reference(top, entry),
                let valueIndex = plist.reference(top, top.count + entry),
                let key = plist.object(keyIndex), key.kind == 0x5, key.count > 0,
                plist.base[key.payload] != UInt8(ascii: "$"), let value = plist.object(valueIndex)
            else { throw declined() }
            if value.kind == 0x8 {
                guard plist.unsigned(value.payload, value.count) < UInt64(count) else { throw declined() }
            } else {
                try checkScalar(value)
            }
            if plist.equals(key, "root") {
                guard !foundRoot, value.kind == 0x8 else { throw declined() }
                foundRoot = true
                rootUID = Int(plist.unsigned(value.payload, value.count))
            }
        }
        topEntries = foundRoot ? nil : top

        kinds = Array(repeating: .null, count: count)
        natures = Array(repeating: .none, count: count)
        classOf = Array(repeating: 0, count: count)
        fieldA = Array(repeating: -1, count: count)
        fieldB = Array(repeating: -1, count: count)
        keyKinds = Array(repeating: 0, count: plist.objectCount)
        keyStrings = Array(repeating: nil, count: plist.objectCount)
        /// The nature of each class description's objects, by entry (0: not yet known).
        var classNatures = [UInt8](repeating: 0, count: count)
        var slots = [Int](repeating: -1, count: Key.slots)
        // Values the library's reader counts (shared plain objects count each time).
        var values = 0
        let budget = defaultValueBudget(plist.length) / 2
        for uid in 1..<max(1, count) {
            guard let entry = plist.object(entries[uid]) else { throw declined() }
            values += 1
            if entry.kind != 0xD {
                guard entry.kind != 0xA, entry.kind != 0x8 else { throw declined() }
                try checkScalar(entry)
                kinds[uid] = .plain
                continue
            }
            // The entry's fields: each known key at most once (a key given twice is the
            // library's to read), every value a reference in range, a scalar or a flat array.
            for slot in 0..<Key.slots { slots[slot] = -1 }
            var others = 0
            for field in 0..<entry.count {
                guard let keyIndex = plist.reference(entry, field),
                    let valueIndex = plist.reference(entry, entry.count + field)
                else { throw declined() }
                let kind = try keyKind(keyIndex)
                if kind < Key.otherDollar {
                    guard slots[Int(kind)] == -1 else { throw declined() }
                    slots[Int(kind)] = valueIndex
                } else if kind == Key.otherDollar {
                    throw declined()
                } else {
                    others += 1
                }
                if kind != Key.classReference {
                    guard let value = plist.object(valueIndex) else { throw declined() }
                    values += try checkFieldValue(value, count: count)
                }
            }
            values += 2 * entry.count
            guard values <= budget else { throw declined() }
            guard slots[Int(Key.classReference)] >= 0 else {
                try checkClassDescription(slots: slots, others: others)
                kinds[uid] = .classDescription
                fieldA[uid] = slots[Int(Key.className)]
                continue
            }
            guard let classReference = plist.object(slots[Int(Key.classReference)]),
                classReference.kind == 0x8
            else { throw declined() }
            let classUID = plist.unsigned(classReference.payload, classReference.count)
            guard classUID > 0, classUID < UInt64(count) else { throw declined() }
            let classIndex = Int(classUID)
            if classNatures[classIndex] == 0 {
                classNatures[classIndex] = try natureOfClass(at: classIndex).rawValue
            }
            guard let nature = Nature(rawValue: classNatures[classIndex]) else { throw declined() }
            try checkFields(uid, slots: slots, nature: nature, count: count)
            kinds[uid] = .object
            natures[uid] = nature
            classOf[uid] = classIndex
        }
        guard values <= budget else { throw declined() }
        converted = Array(repeating: nil, count: count)
        enclosing = Array(repeating: false, count: count)
    }

    /// What plist object `index` is as a dictionary key (``Key``): an ASCII string is
    /// required (any other key is declined).
    private mutating func keyKind(_ index: Int) throws(FastStop) -> UInt8 {
        let known = keyKinds[index]
        if known != 0 { return known }
        guard let key = plist.object(index), key.kind == 0x5, key.count > 0 else { throw declined() }
        var kind = Key.other
        if plist.base[key.payload] == UInt8(ascii: "$") || plist.base[key.payload] == UInt8(ascii: "N") {
            if plist.base[key.payload] == UInt8(ascii: "$") { kind = Key.otherDollar }
            for (number, name) in Key.names.enumerated() where plist.equals(key, name) {
                kind = UInt8(number + 1)
                break
            }
        }
        keyKinds[index] = kind
        return kind
    }

    /// A scalar as the library reads it (no UID, no container).
    private func checkScalar(_ object: FastBinaryPropertyList.Object) throws(FastStop) {
        switch object.kind {
        case 0x0, 0x1, 0x2, 0x4, 0x5: return
        case 0x3:
            guard Double(bitPattern: plist.unsigned(object.payload, 8)).isFinite else { throw declined() }
        case 0x6:
            guard plist.isWellFormedUTF16(object) else { throw declined() }
        default: throw declined()
        }
    }

    /// A field's value; returns the values it counts for.
    private func checkFieldValue(_ value: FastBinaryPropertyList.Object, count: Int) throws(FastStop) -> Int {
        switch value.kind {
        case 0x8:
            guard plist.unsigned(value.payload, value.count) < UInt64(count) else { throw declined() }
            return 2
        case 0xA:
            for element in 0..<value.count {
                guard let index = plist.reference(value, element), let object = plist.object(index) else {
                    throw declined()
                }
                if object.kind == 0x8 {
                    guard plist.unsigned(object.payload, object.count) < UInt64(count) else {
                        throw declined()
                    }
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

    /// A class description as `ClassDescription(parsing:)` accepts it, with no other keys:
    /// `$classname` a string, `$classes` and `$classhints` (if any) arrays of strings.
    private func checkClassDescription(slots: [Int], others: Int) throws(FastStop) {
        guard others == 0, let name = plist.object(slots[Int(Key.className)]), name.kind == 0x5 else {
            throw declined()
        }
        for slot in [Key.classes, Key.classHints] where slots[Int(slot)] >= 0 {
            guard let value = plist.object(slots[Int(slot)]), value.kind == 0xA else { throw declined() }
            for element in 0..<value.count {
                guard let index = plist.reference(value, element), let name = plist.object(index),
                    name.kind == 0x5
                else { throw declined() }
            }
        }
        for slot in 1..<Key.slots
        where slot != Int(Key.className) && slot != Int(Key.classes) && slot != Int(Key.classHints) {
            guard slots[slot] == -1 else { throw declined() }
        }
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

    /// The conversion of the objects of the class described at entry `uid` (checked here);
    /// declined for a class whose value the library's catalogue or natural conversions give
    /// in a way this reader does not.
    private mutating func natureOfClass(at uid: Int) throws(FastStop) -> Nature {
        guard let description = plist.object(entries[uid]), description.kind == 0xD else { throw declined() }
        var slots = [Int](repeating: -1, count: Key.slots)
        var others = 0
        for field in 0..<description.count {
            guard let keyIndex = plist.reference(description, field),
                let valueIndex = plist.reference(description, description.count + field)
            else { throw declined() }
            let kind = try keyKind(keyIndex)
            guard kind < Key.otherDollar, slots[Int(kind)] == -1 else {
                others += 1
                continue
            }
            slots[Int(kind)] = valueIndex
        }
        guard slots[Int(Key.classReference)] == -1 else { throw declined() }
        try checkClassDescription(slots: slots, others: others)
        guard let name = plist.object(slots[Int(Key.className)]) else { throw declined() }
        let known: [(StaticString, Nature)] = [
            ("NSArray", .list), ("NSMutableArray", .list), ("NSSet", .list), ("NSMutableSet", .list),
            ("NSOrderedSet", .list), ("NSMutableOrderedSet", .list), ("NSDictionary", .dictionary),
            ("NSMutableDictionary", .dictionary), ("NSString", .string), ("NSMutableString", .string),
            ("NSData", .data), ("NSMutableData", .data), ("NSDate", .date), ("NSNull", .null),
            ("NSUUID", .uuid), ("NSURL", .url),
        ]
        for (text, nature) in known where plist.equals(name, text) { return nature }
        if isApplePrefixed(name) { throw declined() }
        // A class of its own: its ancestors other than NSObject must not be Apple's either
        // (a subclass of NSMutableArray is a list, of NSAttributedString a summary).
        if slots[Int(Key.classes)] >= 0, let chain = plist.object(slots[Int(Key.classes)]) {
            for element in 0..<min(chain.count, 64) {
                guard let index = plist.reference(chain, element), let ancestor = plist.object(index) else {
                    throw declined()
                }
                if plist.equals(ancestor, "NSObject") { continue }
                if isApplePrefixed(ancestor) { throw declined() }
            }
        }
        return .generic
    }

    /// The fields a natural conversion reads, present in the form it reads them; kept in
    /// ``fieldA`` and ``fieldB``.
    private mutating func checkFields(_ uid: Int, slots: [Int], nature: Nature, count: Int) throws(FastStop) {
        func slot(_ key: UInt8) -> FastBinaryPropertyList.Object? {
            slots[Int(key)] >= 0 ? plist.object(slots[Int(key)]) : nil
        }
        switch nature {
        case .list:
            guard let objects = slot(Key.objects), objects.kind == 0xA else { throw declined() }
            fieldA[uid] = slots[Int(Key.objects)]
        case .dictionary:
            guard let keys = slot(Key.keys), keys.kind == 0xA, let objects = slot(Key.objects),
                objects.kind == 0xA,
                keys.count == objects.count
            else { throw declined() }
            fieldA[uid] = slots[Int(Key.keys)]
            fieldB[uid] = slots[Int(Key.objects)]
        case .string:
            guard slots[Int(Key.string)] >= 0 else { throw declined() }
            fieldA[uid] = slots[Int(Key.string)]
        case .data:
            fieldA[uid] = slots[Int(Key.data)] >= 0 ? slots[Int(Key.data)] : slots[Int(Key.bytes)]
            guard fieldA[uid] >= 0 else { throw declined() }
        case .date:
            guard let time = slot(Key.time), (time.kind == 0x1 && time.count <= 8) || time.kind == 0x2 else {
                throw declined()
            }
            fieldA[uid] = slots[Int(Key.time)]
        case .uuid:
            guard let bytes = slot(Key.uuidBytes), bytes.kind == 0x4, bytes.count == 16 else {
                throw declined()
            }
            fieldA[uid] = slots[Int(Key.uuidBytes)]
        case .url:
            if let base = slot(Key.base) {
                guard base.kind == 0x8, plist.unsigned(base.payload, base.count) == 0 else {
                    throw declined()
                }
            }
            guard let relative = slot(Key.relative) else { throw declined() }
            if relative.kind == 0x8 {
                let target = Int(plist.unsigned(relative.payload, relative.count))
                guard target > 0, target < count, let text = plist.object(entries[target]),
                    text.kind == 0x5 || text.kind == 0x6
                else { throw declined() }
                fieldA[uid] = entries[target]
            } else {
                guard relative.kind == 0x5 || relative.kind == 0x6 else { throw declined() }
                fieldA[uid] = slots[Int(Key.relative)]
            }
        case .null, .generic, .none: return
        }
    }

    // MARK: Converting

    /// The root's value (a new reference).
    mutating func convertRoot() throws(FastStop) -> PyRef {
        guard let top = topEntries else { return try reference(rootUID, depth: 0) }
        // No `root` (Interface Builder's `IB.objectdata`, Xcode's `State`): the `$top` entries.
        guard let result = PyDict_New() else { throw .pythonError }
        do throws(FastStop) {
            for entry in 0..<top.count {
                guard let keyIndex = plist.reference(top, entry),
                    let valueIndex = plist.reference(top, top.count + entry),
                    let key = plist.object(keyIndex)
                else { throw declined() }
                let name = try plist.string(key)
                let made: PyRef
                do { made = try value(at: valueIndex, depth: 1) } catch {
                    ka_decref(name)
                    throw error
                }
                try setItem(result, made, name)
            }
            guard PyDict_Size(result) == top.count else { throw declined() }
        } catch {
            ka_decref(result)
            throw error
        }
        return result
    }

    /// The value at `$objects[uid]`.
    private mutating func reference(_ uid: Int, depth: Int) throws(FastStop) -> PyRef {
        guard depth < FastBinaryPropertyList.maximumDepth else { throw declined() }
        if let known = converted[uid] {
            ka_incref(known)
            return known
        }
        switch kinds[uid] {
        case .null: return ka_none()
        case .plain:
            guard let object = plist.object(entries[uid]) else { throw declined() }
            let made = try plist.scalar(object)
            converted[uid] = made
            ka_incref(made)
            return made
        case .classDescription:
            guard let name = plist.object(fieldA[uid]) else { throw declined() }
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
    private mutating func value(_ object: FastBinaryPropertyList.Object, depth: Int) throws(FastStop) -> PyRef
    {
        switch object.kind {
        case 0x8:
            let uid = Int(plist.unsigned(object.payload, object.count))
            return uid == 0 ? ka_none() : try reference(uid, depth: depth)
        case 0xA: return try list(object, depth: depth)
        default: return try plist.scalar(object)
        }
    }

    /// The value of plist object `index` (a field's value).
    private mutating func value(at index: Int, depth: Int) throws(FastStop) -> PyRef {
        guard let object = plist.object(index) else { throw declined() }
        return try value(object, depth: depth)
    }

    private mutating func list(_ array: FastBinaryPropertyList.Object, depth: Int) throws(FastStop) -> PyRef {
        guard let list = PyList_New(array.count) else { throw .pythonError }
        for element in 0..<array.count {
            do throws(FastStop) {
                guard let index = plist.reference(array, element), let object = plist.object(index) else {
                    throw declined()
                }
                PyList_SetItem(list, element, try value(object, depth: depth + 1))
            } catch {
                ka_decref(list)
                throw error
            }
        }
        return list
    }

    /// The `str` of a field name (plist object `index`), made once.
    private mutating func keyString(_ index: Int) throws(FastStop) -> PyRef {
        if let known = keyStrings[index] {
            ka_incref(known)
            return known
        }
        guard let key = plist.object(index) else { throw declined() }
        let made = try plist.string(key)
        keyStrings[index] = made
        ka_incref(made)
        return made
    }

    private mutating func naturalValue(_ uid: Int, depth: Int) throws(FastStop) -> PyRef {
        switch natures[uid] {
        case .list:
            guard let objects = plist.object(fieldA[uid]) else { throw declined() }
            return try list(objects, depth: depth)
        case .dictionary:
            guard let keys = plist.object(fieldA[uid]), let objects = plist.object(fieldB[uid]),
                keys.count == objects.count
            else { throw declined() }
            guard let result = PyDict_New() else { throw .pythonError }
            for entry in 0..<keys.count {
                do throws(FastStop) {
                    guard let keyIndex = plist.reference(keys, entry), let key = plist.object(keyIndex),
                        let valueIndex = plist.reference(objects, entry), let item = plist.object(valueIndex)
                    else { throw declined() }
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
        case .string, .data:
            return try value(at: fieldA[uid], depth: depth)
        case .date:
            guard let time = plist.object(fieldA[uid]) else { throw declined() }
            let bits = plist.unsigned(time.payload, time.count)
            let seconds: Double
            if time.kind == 0x2 {
                seconds =
                    time.count == 4
                    ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
            } else {
                seconds = Double(time.count == 8 ? Int64(bitPattern: bits) : Int64(bits))
            }
            guard let made = makeDate(Date(timeIntervalSinceReferenceDate: seconds)) else {
                throw .pythonError
            }
            return made
        case .null:
            return ka_none()
        case .uuid:
            guard let bytes = plist.object(fieldA[uid]) else { throw declined() }
            guard
                let made = call(
                    helpers.uuidFromBytes,
                    [
                        PyBytes_FromStringAndSize(
                            UnsafeRawPointer(plist.base + bytes.payload).assumingMemoryBound(to: CChar.self),
                            16)
                    ])
            else { throw .pythonError }
            return made
        case .url:
            guard let text = plist.object(fieldA[uid]) else { throw declined() }
            return try plist.string(text)
        case .generic:
            guard let entry = plist.object(entries[uid]), let name = plist.object(fieldA[classOf[uid]]) else {
                throw declined()
            }
            guard let result = PyDict_New() else { throw .pythonError }
            do throws(FastStop) {
                let className = try plist.string(name)
                guard let classKey = PyUnicode_FromStringAndSize("$class", 6) else {
                    ka_decref(className)
                    throw FastStop.pythonError
                }
                try setItem(result, className, classKey)
                var fields = 1
                for field in 0..<entry.count {
                    guard let keyIndex = plist.reference(entry, field),
                        let valueIndex = plist.reference(entry, entry.count + field)
                    else { throw declined() }
                    if keyKinds[keyIndex] == Key.classReference { continue }
                    let keyObject = try keyString(keyIndex)
                    let made: PyRef
                    do { made = try value(at: valueIndex, depth: depth + 1) } catch {
                        ka_decref(keyObject)
                        throw error
                    }
                    try setItem(result, made, keyObject)
                    fields += 1
                }
                // A field name given twice: the library's to read.
                guard PyDict_Size(result) == fields else { throw declined() }
            } catch {
                ka_decref(result)
                throw error
            }
            return result
        case .none:
            throw declined()
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
