#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value stored under a key inside an archived object's dictionary (or `$top`), as
/// the Codable writer hands them to the archiver.
///
/// Reals are kept as bit patterns so that `0.0` and `-0.0` stay distinct.
enum ArchiveFieldValue: Hashable {
    /// A reference to `$objects[uid]`; 0 is nil.
    case reference(Int)
    /// A conditional reference: an index into the archiver's list of conditionally
    /// encoded objects, resolved when encoding finishes.
    case conditional(Int)
    /// An inline integer.
    case integer(PropertyListInteger)
    /// An inline real, as `Double.bitPattern`.
    case real(UInt64)
    /// An inline single-precision real, as `Float.bitPattern`: written in 4 bytes, as
    /// Foundation writes a `Float`.
    case float(UInt32)
    /// An inline Boolean.
    case bool(Bool)
    /// Inline bytes.
    case data(Data)
    /// An inline string (`NS.string` of `NSMutableString`).
    case string(String)
    /// An inline array of references (`NS.objects`, `NS.keys`).
    case references([Int])
}

/// One key-value pair of an archived object; the key is already `$`-escaped.
package struct ArchiveField: Hashable {
    var key: String
    var value: ArchiveFieldValue
}

/// A plain value or object to store in `$objects` by value (see
/// ``ArchiveObjectTable/uniqueIndex(of:)``).
package enum ArchivedObjectRecord: Hashable {
    /// `$objects[0]`, the string `$null`.
    case null
    /// A plain string.
    case string(String)
    /// A plain integer.
    case integer(PropertyListInteger)
    /// A plain real, as `Double.bitPattern`.
    case real(UInt64)
    /// A plain single-precision real, as `Float.bitPattern` (4 bytes, as Foundation writes
    /// an `NSNumber` of a `Float`).
    case float(UInt32)
    /// A plain Boolean.
    case bool(Bool)
    /// Plain bytes.
    case data(Data)
    /// An object dictionary: `$class` and its fields.
    case object(classUID: Int, fields: [ArchiveField])
    /// A class description `{ $classname, $classes }`.
    case classDescription(name: String, classes: [String])
}

/// The archiver's object table, `$objects`, written straight into a binary
/// property-list builder as objects are encoded: no intermediate records, no second
/// pass. Binary output finishes the builder; XML is transcoded from that binary form and
/// ``KeyedArchiver/encodedPropertyList`` reads it back (one mechanism for every format).
///
/// - Every `$objects` entry is one builder object; its index in `$objects` is its UID.
/// - Plain values (strings, numbers, data) are stored once per value: the builder
///   de-duplicates scalars by their encoded bytes, and ``entryIndexByObject`` maps the
///   builder object back to its entry.
/// - Objects with identity (class instances) reserve their entry before their contents
///   are encoded, as Apple's archiver numbers them; value objects (structs) are shared
///   with an equal earlier object when nothing was stored after their reservation.
/// - Object fields refer to builder objects: key strings and values (UIDs, inline
///   numbers); a negative value `-1 - token` marks a conditional reference, patched by
///   ``resolveConditionals(_:)``.
package struct ArchiveObjectTable {
    package var builder = BinaryPropertyListBuilder()
    /// For each `$objects` entry, its object in ``builder``.
    private(set) var entries: [Int] = []
    /// For builder objects that are plain or shareable entries, the entry's index + 1
    /// (0: none). Indexed by builder object, grown on demand.
    private var entryIndexByObject: [UInt32] = []
    /// Class descriptions already stored, by class name.
    private var classDescriptions: [String: Int] = [:]
    /// Object fields holding conditional references, to patch at the end.
    private var pendingConditionals: [(object: Int, position: Int, token: Int)] = []
    /// Key strings seen so far and their builder objects.
    private var keys = ArchiveKeyCache()
    /// Reused buffers for an object's final keys and values.
    private var scratchKeys: [Int] = []
    private var scratchValues: [Int] = []
    /// The builder objects of the strings `$class` and `$null`.
    private let classKey: Int
    private let nullString: Int

    init() {
        nullString = builder.addString("$null")
        classKey = builder.addString("$class")
        entries = [nullString]
    }

    /// The number of entries, including `$null`.
    var count: Int { entries.count }

    // MARK: Plain values

    /// Returns the entry for a plain value already added to ``builder``, creating it if needed.
    mutating func plainEntry(_ object: Int) -> Int {
        if object < entryIndexByObject.count {
            let known = entryIndexByObject[object]
            if known != 0 { return Int(known) - 1 }
        } else {
            growEntryIndex(to: object + 1)
        }
        let index = entries.count
        entries.append(object)
        entryIndexByObject[object] = UInt32(truncatingIfNeeded: index + 1)
        return index
    }

    private mutating func growEntryIndex(to count: Int) {
        guard count > entryIndexByObject.count else { return }
        // Growing by half keeps the growth amortized (plain values are added one at a time)
        // and zero-fills less ahead of the objects than doubling.
        let target = max(count, builder.objectCount, entryIndexByObject.count + entryIndexByObject.count / 2)
        entryIndexByObject.append(contentsOf: repeatElement(0, count: target - entryIndexByObject.count))
    }

    /// The entry for a plain string.
    @inline(__always)
    mutating func uniqueString(_ text: String) -> Int {
        plainEntry(builder.addString(text))
    }

    /// Returns the index of a plain value (or, for an object record, of an equal object),
    /// storing it if it is new.
    mutating func uniqueIndex(of record: ArchivedObjectRecord) -> Int {
        switch record {
        case .null: return 0
        case .string(let value): return plainEntry(builder.addString(value))
        case .integer(let value): return plainEntry(builder.addInteger(value))
        case .real(let bits): return plainEntry(builder.addReal(Double(bitPattern: bits)))
        case .float(let bits): return plainEntry(builder.addFloat(bits))
        case .bool(let value): return plainEntry(builder.addBool(value))
        case .data(let value): return plainEntry(builder.addData(value))
        case .object(let classUID, let fields):
            let uid = reserve()
            return fill(uid, classUID: classUID, fields: fields, shareable: true)
        case .classDescription(let name, let classes): return classIndex(name: name, classes: classes)
        }
    }

    // MARK: Objects

    /// The builder object of a key string (already `$`-escaped).
    ///
    /// Objects repeat the same few keys; ``keys`` finds them without encoding the key
    /// as the builder would.
    @inline(__always)
    package mutating func keyObject(_ key: String) -> Int {
        if let object = keys.object(for: key) { return object }
        let object = builder.addString(key)
        keys.insert(key, object: object)
        return object
    }

    /// The builder object of a field value; a conditional reference becomes `-1 - token`.
    mutating func valueObject(_ value: ArchiveFieldValue) -> Int {
        switch value {
        case .reference(let uid): return builder.addUID(UInt64(uid))
        case .conditional(let token): return -1 - token
        case .integer(let value): return builder.addInteger(value)
        case .real(let bits): return builder.addReal(Double(bitPattern: bits))
        case .float(let bits): return builder.addFloat(bits)
        case .bool(let value): return builder.addBool(value)
        case .data(let value): return builder.addData(value)
        case .string(let value): return builder.addString(value)
        case .references(let uids): return referenceArray(uids)
        }
    }

    /// An inline array of UIDs; equal arrays are stored once.
    package mutating func referenceArray(_ uids: [Int]) -> Int {
        builder.addShareableUIDArray(uids)
    }

    /// Reserves an entry for an object whose contents are about to be encoded.
    mutating func reserve() -> Int {
        entries.append(builder.reserveObject())
        return entries.count - 1
    }

    /// Stores a reserved object's fields, given as ``ArchiveField`` values.
    ///
    /// - Returns: The object's index: `uid`, or for a shareable object an equal earlier one.
    @discardableResult
    mutating func fill(_ uid: Int, classUID: Int, fields: [ArchiveField], shareable: Bool = false) -> Int {
        var keys: [Int] = []
        var values: [Int] = []
        keys.reserveCapacity(fields.count)
        values.reserveCapacity(fields.count)
        for field in fields {
            keys.append(keyObject(field.key))
            values.append(valueObject(field.value))
        }
        return setObject(uid, classUID: classUID, keys: keys, values: values, shareable: shareable)
    }

    /// Stores a reserved object: `$class`, then the fields (key and value objects; a key
    /// given twice keeps its last value; negative values are conditional references).
    ///
    /// A shareable object (a struct, which has no identity) is released in favour of an
    /// equal object stored earlier when its entry is still the last one, which is always
    /// the case for an equal value: everything it refers to existed before it.
    ///
    /// - Returns: The object's index: `uid`, or an equal earlier one.
    mutating func setObject(
        _ uid: Int, classUID: Int, keys: UnsafeBufferPointer<Int>, values: UnsafeBufferPointer<Int>,
        shareable: Bool
    ) -> Int {
        guard entries.indices.contains(uid) else { return 0 }
        let object = entries[uid]
        let classValue = builder.addUID(UInt64(classUID))
        let simple = Self.hasUniqueKeys(keys) && !values.contains { $0 < 0 }
        if simple {
            // The usual case: written straight into the builder.
            let stored =
                (try? builder.setObjectDictionary(
                    object, leadingKey: classKey, leadingValue: classValue, keys: keys, values: values,
                    shareable: shareable, mayRelease: uid == entries.count - 1)) ?? object
            return entryIndex(afterStoring: object, as: stored, uid: uid, shareable: shareable)
        }
        // A repeated key keeps its last value; conditional references get a placeholder.
        scratchKeys.removeAll(keepingCapacity: true)
        scratchValues.removeAll(keepingCapacity: true)
        var conditionalPositions: [(position: Int, token: Int)] = []
        var position = keys.startIndex
        while position < keys.endIndex {
            let key = keys[position]
            let value = values[position]
            position += 1
            if keys[position...].contains(key) { continue }
            if value < 0 {
                // Position 0 of the stored values is `$class`.
                conditionalPositions.append((scratchValues.count + 1, -1 - value))
                scratchValues.append(builder.addUID(0))
            } else {
                scratchValues.append(value)
            }
            scratchKeys.append(key)
        }
        let shareableNow = shareable && conditionalPositions.isEmpty
        let mayRelease = uid == entries.count - 1
        let (fieldKeys, fieldValues) = (scratchKeys, scratchValues)
        let stored =
            fieldKeys.withUnsafeBufferPointer { keys in
                fieldValues.withUnsafeBufferPointer { values in
                    try? builder.setObjectDictionary(
                        object, leadingKey: classKey, leadingValue: classValue, keys: keys, values: values,
                        shareable: shareableNow, mayRelease: mayRelease)
                }
            } ?? object
        for (position, token) in conditionalPositions {
            pendingConditionals.append((object, position, token))
        }
        return entryIndex(afterStoring: object, as: stored, uid: uid, shareable: shareableNow)
    }

    /// ``setObject(_:classUID:keys:values:shareable:)`` for fields in arrays.
    mutating func setObject(_ uid: Int, classUID: Int, keys: [Int], values: [Int], shareable: Bool) -> Int {
        keys.withUnsafeBufferPointer { keys in
            values.withUnsafeBufferPointer { values in
                setObject(uid, classUID: classUID, keys: keys, values: values, shareable: shareable)
            }
        }
    }

    /// The entry of an object the builder stored as `stored` (itself, or an equal
    /// shareable object, in which case the reserved entry, the last one, is released).
    private mutating func entryIndex(afterStoring object: Int, as stored: Int, uid: Int, shareable: Bool)
        -> Int
    {
        guard shareable else { return uid }
        if stored != object {
            entries.removeLast()
            if stored < entryIndexByObject.count, entryIndexByObject[stored] != 0 {
                return Int(entryIndexByObject[stored]) - 1
            }
            // Not reachable: every shareable object is indexed below. Refer to it anew.
            entries.append(stored)
            return entries.count - 1
        }
        growEntryIndex(to: object + 1)
        entryIndexByObject[object] = UInt32(truncatingIfNeeded: uid + 1)
        return uid
    }

    static func hasUniqueKeys(_ keys: UnsafeBufferPointer<Int>) -> Bool {
        if keys.count < 2 { return true }
        if keys.count <= 16 {
            var first = keys.startIndex
            while first < keys.endIndex {
                let key = keys[first]
                first += 1
                if keys[first...].contains(key) { return false }
            }
            return true
        }
        return Set(keys).count == keys.count
    }

    /// Returns the index of the class description for `name`, storing it if needed.
    mutating func classIndex(name: String, classes: @autoclosure () -> [String]) -> Int {
        if let existing = classDescriptions[name] { return existing }
        let object = builder.reserveObject()
        let index = entries.count
        entries.append(object)
        classDescriptions[name] = index
        let keys = [builder.addString("$classname"), builder.addString("$classes")]
        let nameObject = builder.addString(name)
        let chain = classes().map { builder.addString($0) }
        let values = [nameObject, builder.addArray(chain)]
        try? builder.setDictionary(object, keys: keys, values: values)
        return index
    }

    /// Replaces every conditional reference with the object's index, or 0 when the
    /// object was never encoded unconditionally.
    mutating func resolveConditionals(_ resolve: (Int) -> Int) throws {
        for pending in pendingConditionals {
            let uid = builder.addUID(UInt64(resolve(pending.token)))
            try builder.replaceValue(ofDictionary: pending.object, at: pending.position, with: uid)
        }
        pendingConditionals.removeAll()
    }

    // MARK: Output

    /// Finishes the archive: `$top` from the given fields, the `$objects` array and the
    /// root dictionary, as a binary property list. Call once: the table is emptied.
    mutating func finishBinary(topKeys: UnsafeBufferPointer<Int>, topValues: UnsafeBufferPointer<Int>) throws
        -> Data
    {
        scratchKeys.removeAll(keepingCapacity: true)
        scratchValues.removeAll(keepingCapacity: true)
        let unique = Self.hasUniqueKeys(topKeys)
        var position = topKeys.startIndex
        while position < topKeys.endIndex {
            let key = topKeys[position]
            let value = topValues[position]
            position += 1
            if !unique, topKeys[position...].contains(key) { continue }
            scratchKeys.append(key)
            scratchValues.append(value)
        }
        // The last objects and references, reserved exactly: the `$objects` array alone
        // would otherwise make the references grow to twice what they need.
        builder.reserve(references: 2 * scratchKeys.count + entries.count + 8)
        let top = try builder.addDictionary(keys: scratchKeys, values: scratchValues)
        let objects = builder.addArray(entries)
        let rootKeys = ["$archiver", "$objects", "$top", "$version"].map { builder.addString($0) }
        let archiver = builder.addString("NSKeyedArchiver")
        let version = builder.addInteger(PropertyListInteger(100_000))
        let root = try builder.addDictionary(keys: rootKeys, values: [archiver, objects, top, version])
        // Only the builder's objects are written from here: what finds entries goes first,
        // before the output is allocated, and the builder once it is written.
        entries = []
        entryIndexByObject = []
        classDescriptions = [:]
        keys = ArchiveKeyCache()
        scratchKeys = []
        scratchValues = []
        let data = try builder.finish(topObject: root)
        builder = BinaryPropertyListBuilder()
        return data
    }
}

/// Key strings and their builder objects: an open-addressing table hashed with
/// ``ByteHash`` over the key's UTF-8, compared with `==` (which answers at once for the
/// same string value, as a repeated key literal is).
struct ArchiveKeyCache {
    private var strings: [String] = []
    private var objects: [Int] = []
    private var count = 0
    private let seed = ByteHash.randomSeed()

    private func hash(_ key: String) -> Int? {
        key.utf8.withContiguousStorageIfAvailable { ByteHash.hash(UnsafeRawBufferPointer($0), seed: seed) }
    }

    /// The object of `key`, or `nil`.
    @inline(__always)
    func object(for key: String) -> Int? {
        guard !objects.isEmpty, let hash = hash(key) else { return nil }
        let (slot, found) = LinearProbing.probe(
            hash: hash, capacity: objects.count, isEmpty: { objects[$0] == 0 },
            matches: { strings[$0] == key })
        return found ? objects[slot] - 1 : nil
    }

    /// Records the object of a key not in the table.
    mutating func insert(_ key: String, object: Int) {
        guard let hash = hash(key) else { return }
        if LinearProbing.needsGrowth(count: count, capacity: objects.count) { grow() }
        let (slot, found) = LinearProbing.probe(
            hash: hash, capacity: objects.count, isEmpty: { objects[$0] == 0 },
            matches: { strings[$0] == key })
        if found { return }
        strings[slot] = key
        objects[slot] = object + 1
        count += 1
    }

    private mutating func grow() {
        let oldStrings = strings
        let oldObjects = objects
        let capacity = LinearProbing.grownCapacity(from: objects.count, minimum: 32)
        strings = [String](repeating: "", count: capacity)
        objects = [Int](repeating: 0, count: capacity)
        count = 0
        for (key, object) in zip(oldStrings, oldObjects) where object != 0 {
            insert(key, object: object - 1)
        }
    }
}
