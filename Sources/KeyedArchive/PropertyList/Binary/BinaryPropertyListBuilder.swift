#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Assembles a binary property list (`bplist00`) from a flat table of objects.
///
/// Objects are numbered in the order they are added (or reserved), and written in that
/// order. Scalars are de-duplicated by their encoded bytes, so `1`, `1.0` and `true` stay
/// distinct while equal strings, numbers, dates, data and UIDs share one object (`-0.0`
/// and `0.0` stay distinct too). Containers are never shared.
///
/// A container's number can be reserved before its elements are added, which is how
/// Python's `plistlib` and Cocoa order objects (a container before its contents):
///
/// ```swift
/// var builder = BinaryPropertyListBuilder()
/// let root = builder.reserveObject()
/// let key = builder.addString("name")
/// let value = builder.addString("Potato Bug")
/// try builder.setDictionary(root, keys: [key], values: [value])
/// let data = try builder.finish(topObject: root)
/// ```
///
/// The keyed archiver streams its object table straight into a builder, without building
/// a ``PropertyList`` tree first.
///
/// - Complexity: Adding a scalar is O(its size) on average; `finish` is O(output size).
struct BinaryPropertyListBuilder {
    private enum EntryKind: UInt8 {
        case scalar, array, dictionary, reserved
    }

    private struct Entry {
        var kind: EntryKind
        /// Scalars: start in `scalarBytes`; containers: start in `references`.
        var start: Int
        /// Scalars: encoded length; arrays: elements; dictionaries: pairs.
        var count: Int
        /// Hash of a scalar's encoded bytes, or of a shareable dictionary's references.
        var hash: Int
    }

    private var entries: [Entry] = []
    /// Every scalar, fully encoded (marker, count, payload), back to back.
    private var scalarBytes: [UInt8] = []
    /// Element references of arrays; key then value references of dictionaries.
    private var references: [Int] = []
    /// Open-addressing table of scalar entries (entry index + 1; 0 is empty).
    private var slots: [Int] = []
    private var scalarCount = 0
    /// Open-addressing table of shareable containers (entry index + 1; 0 is empty).
    private var dictionarySlots: [Int] = []
    private var shareableCount = 0
    /// The objects of UIDs added so far, by UID value (object + 1; 0 is unknown).
    private var uidObjects: [Int] = []
    /// Seeds the hashes, so that colliding inputs cannot be prepared in advance.
    private let hashSeed = ByteHash.randomSeed()

    /// Creates an empty builder.
    init() {}

    /// The number of objects added or reserved so far.
    var objectCount: Int { entries.count }

    // MARK: Scalars

    /// Adds a Boolean, or returns the existing object for it.
    mutating func addBool(_ value: Bool) -> Int {
        var header = ScalarHeader()
        header.append(value ? 0x09 : 0x08)
        return intern(header)
    }

    /// Adds an integer in the smallest width plistlib and Cocoa use: 1, 2 or 4 bytes
    /// unsigned, 8 bytes signed for negatives and up to `Int64.max`, 16 bytes beyond.
    mutating func addInteger(_ value: PropertyListInteger) -> Int {
        var header = ScalarHeader()
        if let unsigned = value.uint64Value, unsigned <= UInt64(Int64.max) {
            if unsigned < 1 << 8 {
                header.append(0x10)
                header.appendBigEndian(unsigned, width: 1)
            } else if unsigned < 1 << 16 {
                header.append(0x11)
                header.appendBigEndian(unsigned, width: 2)
            } else if unsigned < 1 << 32 {
                header.append(0x12)
                header.appendBigEndian(unsigned, width: 4)
            } else {
                header.append(0x13)
                header.appendBigEndian(unsigned, width: 8)
            }
        } else if let signed = value.int64Value {
            header.append(0x13)
            header.appendBigEndian(UInt64(bitPattern: signed), width: 8)
        } else {
            header.append(0x14)
            header.appendBigEndian(UInt64(bitPattern: value.high), width: 8)
            // The low half is the payload: the header holds at most 16 bytes.
            let low = value.low.bigEndian
            return withUnsafeBytes(of: low) { intern(header, payload: $0) }
        }
        return intern(header)
    }

    /// Adds an integer.
    mutating func addInteger(_ value: Int64) -> Int {
        addInteger(PropertyListInteger(value))
    }

    /// Adds a real, always as a 64-bit float (marker `0x23`).
    mutating func addReal(_ value: Double) -> Int {
        var header = ScalarHeader()
        header.append(0x23)
        header.appendBigEndian(value.bitPattern, width: 8)
        return intern(header)
    }

    /// Adds a date.
    ///
    /// - Throws: `invalidValue` for a NaN or infinite date, which readers refuse.
    mutating func addDate(_ date: Date) throws -> Int {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite else {
            throw KeyedArchiveError(.invalidValue, "a date of \(seconds) seconds cannot be written")
        }
        var header = ScalarHeader()
        header.append(0x33)
        header.appendBigEndian(seconds.bitPattern, width: 8)
        return intern(header)
    }

    /// Adds bytes.
    mutating func addData<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
        var header = ScalarHeader()
        header.appendCount(0x40, count: bytes.count)
        if let object = bytes.withContiguousStorageIfAvailable({
            intern(header, payload: UnsafeRawBufferPointer($0))
        }) {
            return object
        }
        let copy = Array(bytes)
        return copy.withUnsafeBytes { intern(header, payload: $0) }
    }

    /// Adds a string: ASCII as marker `0x5n`, anything else as UTF-16BE (`0x6n`).
    mutating func addString(_ string: String) -> Int {
        var string = string
        let ascii: Int? = string.withUTF8 { utf8 in
            guard BinaryPropertyListScanner.isASCII(utf8) else { return nil }
            var header = ScalarHeader()
            header.appendCount(0x50, count: utf8.count)
            return intern(header, payload: UnsafeRawBufferPointer(utf8))
        }
        if let ascii { return ascii }
        var units: [UInt8] = []
        units.reserveCapacity(string.utf8.count * 2)
        var count = 0
        for unit in string.utf16 {
            units.append(UInt8(truncatingIfNeeded: unit >> 8))
            units.append(UInt8(truncatingIfNeeded: unit))
            count += 1
        }
        var header = ScalarHeader()
        header.appendCount(0x60, count: count)
        return units.withUnsafeBytes { intern(header, payload: $0) }
    }

    /// Adds a UID in 1, 2, 4 or 8 bytes.
    mutating func addUID(_ value: UInt64) -> Int {
        // Archives refer to UIDs 0..<n over and over: remember their objects directly.
        if value < UInt64(uidObjects.count) {
            let known = uidObjects[Int(value)]
            if known != 0 { return known - 1 }
        }
        var header = ScalarHeader()
        if value < 1 << 8 {
            header.append(0x80)
            header.appendBigEndian(value, width: 1)
        } else if value < 1 << 16 {
            header.append(0x81)
            header.appendBigEndian(value, width: 2)
        } else if value < 1 << 32 {
            header.append(0x83)
            header.appendBigEndian(value, width: 4)
        } else {
            header.append(0x87)
            header.appendBigEndian(value, width: 8)
        }
        guard value < 1 << 26 else { return intern(header) }
        // Small UIDs are found through `uidObjects` alone, never through the hash table.
        let object = appendScalar(header)
        let index = Int(value)
        if index >= uidObjects.count {
            uidObjects.append(
                contentsOf: repeatElement(0, count: max(index + 1, uidObjects.count * 2) - uidObjects.count))
        }
        uidObjects[index] = object + 1
        return object
    }

    // MARK: Containers

    /// Reserves the next object number for a container whose contents come later; set
    /// it with ``setArray(_:elements:)`` or ``setDictionary(_:keys:values:)`` before
    /// ``finish(topObject:)``.
    mutating func reserveObject() -> Int {
        entries.append(Entry(kind: .reserved, start: 0, count: 0, hash: 0))
        return entries.count - 1
    }

    /// Makes a reserved object an array of the given object references.
    ///
    /// - Throws: `invalidValue` if `object` was not reserved or is already set.
    mutating func setArray<Elements: Collection<Int>>(_ object: Int, elements: Elements) throws {
        try checkReserved(object)
        entries[object] = Entry(kind: .array, start: references.count, count: elements.count, hash: 0)
        references.append(contentsOf: elements)
    }

    /// Makes a reserved object a dictionary; `keys` should refer to strings.
    ///
    /// - Throws: `invalidValue` if `object` was not reserved, or the counts differ.
    mutating func setDictionary<Keys: Collection<Int>, Values: Collection<Int>>(
        _ object: Int, keys: Keys, values: Values
    ) throws {
        try checkReserved(object)
        guard keys.count == values.count else {
            throw KeyedArchiveError(
                .invalidValue, "object \(object): \(keys.count) dictionary keys but \(values.count) values")
        }
        entries[object] = Entry(kind: .dictionary, start: references.count, count: keys.count, hash: 0)
        references.append(contentsOf: keys)
        references.append(contentsOf: values)
    }

    /// Adds an array of already-added objects.
    mutating func addArray<Elements: Collection<Int>>(_ elements: Elements) -> Int {
        entries.append(Entry(kind: .array, start: references.count, count: elements.count, hash: 0))
        references.append(contentsOf: elements)
        return entries.count - 1
    }

    /// Adds a dictionary of already-added objects.
    ///
    /// - Throws: `invalidValue` if the counts differ.
    mutating func addDictionary<Keys: Collection<Int>, Values: Collection<Int>>(
        keys: Keys, values: Values
    ) throws -> Int {
        let object = reserveObject()
        try setDictionary(object, keys: keys, values: values)
        return object
    }

    /// Makes a reserved object a dictionary that may stand for any equal dictionary: if
    /// an equal one was set this way before, `mayRelease` is `true` and `object` is the
    /// last object, `object` is released and the earlier one returned. Otherwise `object`
    /// becomes the dictionary.
    ///
    /// The keyed archiver stores equal struct values once this way.
    ///
    /// - Returns: The object that holds the dictionary: `object` or an earlier equal one.
    /// - Throws: `invalidValue` if `object` was not reserved, or the counts differ.
    mutating func setShareableDictionary(
        _ object: Int, keys: ArraySlice<Int>, values: ArraySlice<Int>, mayRelease: Bool = true
    ) throws -> Int {
        try checkReserved(object)
        guard keys.count == values.count else {
            throw KeyedArchiveError(
                .invalidValue, "object \(object): \(keys.count) dictionary keys but \(values.count) values")
        }
        let hash = ByteHash.hash(keys, values, seed: hashSeed)
        if (shareableCount + 1) * 2 > dictionarySlots.count { growDictionarySlots() }
        let mask = dictionarySlots.count - 1
        var slot = hash & mask
        while dictionarySlots[slot] != 0 {
            let candidate = dictionarySlots[slot] - 1
            let entry = entries[candidate]
            if entry.hash == hash, entry.kind == .dictionary, entry.count == keys.count,
                references[entry.start..<entry.start + entry.count].elementsEqual(keys),
                references[entry.start + entry.count..<entry.start + 2 * entry.count].elementsEqual(values)
            {
                guard mayRelease, object == entries.count - 1 else { break }
                entries.removeLast()
                return candidate
            }
            slot = (slot + 1) & mask
        }
        let isNew = dictionarySlots[slot] == 0
        entries[object] = Entry(
            kind: .dictionary, start: references.count, count: keys.count, hash: isNew ? hash : 0)
        references.append(contentsOf: keys)
        references.append(contentsOf: values)
        if isNew {
            dictionarySlots[slot] = object + 1
            shareableCount += 1
        }
        return object
    }

    /// Makes a reserved object an archived object's dictionary: one leading pair (the
    /// archiver's `$class`) followed by `keys` and `values`, written straight into the
    /// reference table. A `shareable` dictionary stands for any equal one set this way:
    /// when one exists, `mayRelease` is `true` and `object` is the last object, `object`
    /// is released and the earlier one returned.
    ///
    /// - Returns: The object that holds the dictionary.
    /// - Throws: `invalidValue` if `object` was not reserved, or the counts differ.
    mutating func setObjectDictionary(
        _ object: Int, leadingKey: Int, leadingValue: Int, keys: ArraySlice<Int>, values: ArraySlice<Int>,
        shareable: Bool, mayRelease: Bool
    ) throws -> Int {
        try checkReserved(object)
        guard keys.count == values.count else {
            throw KeyedArchiveError(
                .invalidValue, "object \(object): \(keys.count) dictionary keys but \(values.count) values")
        }
        let start = references.count
        let count = keys.count + 1
        references.append(leadingKey)
        references.append(contentsOf: keys)
        references.append(leadingValue)
        references.append(contentsOf: values)
        guard shareable else {
            entries[object] = Entry(kind: .dictionary, start: start, count: count, hash: 0)
            return object
        }
        let hash = ByteHash.hash(
            references[start..<start + count], references[start + count..<start + 2 * count], seed: hashSeed)
        if (shareableCount + 1) * 2 > dictionarySlots.count { growDictionarySlots() }
        let mask = dictionarySlots.count - 1
        var slot = hash & mask
        while dictionarySlots[slot] != 0 {
            let candidate = dictionarySlots[slot] - 1
            let entry = entries[candidate]
            if entry.hash == hash, entry.kind == .dictionary, entry.count == count,
                references[entry.start..<entry.start + 2 * count].elementsEqual(
                    references[start..<start + 2 * count])
            {
                guard mayRelease, object == entries.count - 1 else { break }
                references.removeLast(2 * count)
                entries.removeLast()
                return candidate
            }
            slot = (slot + 1) & mask
        }
        let isNew = dictionarySlots[slot] == 0
        entries[object] = Entry(kind: .dictionary, start: start, count: count, hash: isNew ? hash : 0)
        if isNew {
            dictionarySlots[slot] = object + 1
            shareableCount += 1
        }
        return object
    }

    /// Adds an array that may stand for any equal array added this way: an equal one
    /// added before is returned instead of a new object.
    ///
    /// The keyed archiver stores the reference arrays of equal collections once this way.
    mutating func addShareableArray(_ elements: ArraySlice<Int>) -> Int {
        let hash = ByteHash.hash(elements, [][...], seed: hashSeed)
        if (shareableCount + 1) * 2 > dictionarySlots.count { growDictionarySlots() }
        let mask = dictionarySlots.count - 1
        var slot = hash & mask
        while dictionarySlots[slot] != 0 {
            let candidate = dictionarySlots[slot] - 1
            let entry = entries[candidate]
            if entry.hash == hash, entry.kind == .array, entry.count == elements.count,
                references[entry.start..<entry.start + entry.count].elementsEqual(elements)
            {
                return candidate
            }
            slot = (slot + 1) & mask
        }
        entries.append(Entry(kind: .array, start: references.count, count: elements.count, hash: hash))
        references.append(contentsOf: elements)
        dictionarySlots[slot] = entries.count
        shareableCount += 1
        return entries.count - 1
    }

    /// Replaces the value at `position` (in the order the values were given) of a
    /// dictionary that was set and is not shareable.
    ///
    /// - Throws: `invalidValue` if `object` is not such a dictionary or has no such position.
    mutating func replaceValue(ofDictionary object: Int, at position: Int, with value: Int) throws {
        guard entries.indices.contains(object), entries[object].kind == .dictionary,
            entries[object].hash == 0, (0..<entries[object].count).contains(position)
        else {
            throw KeyedArchiveError(.invalidValue, "object \(object) has no replaceable value \(position)")
        }
        references[entries[object].start + entries[object].count + position] = value
    }

    private mutating func growDictionarySlots() {
        let capacity = max(64, dictionarySlots.count * 2)
        dictionarySlots = [Int](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (index, entry) in entries.enumerated() where entry.kind != .scalar && entry.hash != 0 {
            var slot = entry.hash & mask
            while dictionarySlots[slot] != 0 { slot = (slot + 1) & mask }
            dictionarySlots[slot] = index + 1
        }
    }

    private func checkReserved(_ object: Int) throws {
        guard entries.indices.contains(object), entries[object].kind == .reserved else {
            throw KeyedArchiveError(.invalidValue, "object \(object) is not a reserved, unset container")
        }
    }

    // MARK: Output

    /// Writes header, objects, offset table and trailer, with the smallest reference
    /// and offset sizes that fit.
    ///
    /// - Parameter topObject: The root object.
    /// - Returns: The binary property list.
    /// - Throws: `invalidValue` if there are no objects, `topObject` or a reference is out
    ///   of range, or a reserved object was never set.
    func finish(topObject: Int) throws -> Data {
        let objectCount = entries.count
        guard entries.indices.contains(topObject) else {
            throw KeyedArchiveError(
                .invalidValue, "top object \(topObject) does not exist (\(objectCount) objects)")
        }
        let referenceSize = Self.byteWidth(forCount: objectCount)
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        var position = 8
        for (index, entry) in entries.enumerated() {
            offsets.append(position)
            switch entry.kind {
            case .scalar:
                position += entry.count
            case .array:
                position += Self.headerLength(count: entry.count) + entry.count * referenceSize
            case .dictionary:
                position += Self.headerLength(count: entry.count) + 2 * entry.count * referenceSize
            case .reserved:
                throw KeyedArchiveError(.invalidValue, "object \(index) was reserved but never set")
            }
        }
        for reference in references where reference < 0 || reference >= objectCount {
            throw KeyedArchiveError(
                .invalidValue, "object reference \(reference) does not exist (\(objectCount) objects)")
        }
        for (index, entry) in entries.enumerated() where entry.kind == .dictionary {
            for key in references[entry.start..<entry.start + entry.count] where !isString(key) {
                throw KeyedArchiveError(
                    .invalidValue, "object \(index): dictionary key \(key) is not a string object")
            }
        }
        let tableOffset = position
        let offsetSize = Self.byteWidth(forCount: tableOffset)
        let total = tableOffset + objectCount * offsetSize + BinaryPropertyListTrailer.size

        var data = Data(count: total)
        let written = data.withUnsafeMutableBytes { buffer in
            var output = Output(buffer: buffer)
            output.append(contentsOf: "bplist00".utf8)
            scalarBytes.withUnsafeBufferPointer { scalars in
                references.withUnsafeBufferPointer { references in
                    for entry in entries {
                        switch entry.kind {
                        case .scalar:
                            output.append(
                                UnsafeBufferPointer(
                                    rebasing: scalars[entry.start..<entry.start + entry.count]))
                        case .array, .dictionary:
                            output.appendHeader(entry.kind == .array ? 0xA0 : 0xD0, count: entry.count)
                            let length = entry.kind == .array ? entry.count : 2 * entry.count
                            output.appendReferences(
                                UnsafeBufferPointer(rebasing: references[entry.start..<entry.start + length]),
                                width: referenceSize)
                        case .reserved:
                            break
                        }
                    }
                }
            }
            offsets.withUnsafeBufferPointer { output.appendReferences($0, width: offsetSize) }
            output.appendBigEndian(0, width: 6)  // 5 unused bytes and the sort version
            output.appendBigEndian(UInt64(offsetSize), width: 1)
            output.appendBigEndian(UInt64(referenceSize), width: 1)
            output.appendBigEndian(UInt64(objectCount), width: 8)
            output.appendBigEndian(UInt64(topObject), width: 8)
            output.appendBigEndian(UInt64(tableOffset), width: 8)
            return output.overflowed ? -1 : output.position
        }
        guard written == total else {
            throw KeyedArchiveError(.invalidValue, "internal error: wrote \(written) of \(total) bytes")
        }
        return data
    }

    private func isString(_ object: Int) -> Bool {
        let entry = entries[object]
        guard entry.kind == .scalar else { return false }
        let marker = scalarBytes[entry.start] >> 4
        return marker == 0x5 || marker == 0x6
    }

    /// The smallest of 1, 2, 4 and 8 bytes that holds `count` itself (so also every value
    /// below it). Reference and offset sizes use the object count and the offset table's
    /// offset, as plistlib does and CoreFoundation's validation requires.
    static func byteWidth(forCount count: Int) -> Int {
        if count < 1 << 8 { return 1 }
        if count < 1 << 16 { return 2 }
        if count < 1 << 32 { return 4 }
        return 8
    }

    /// Marker plus, from 15 on, an integer object holding the count.
    static func headerLength(count: Int) -> Int {
        count < 15 ? 1 : 2 + byteWidth(forCount: count)
    }

    // MARK: Encoding helpers

    fileprivate static func log2(_ width: Int) -> UInt8 {
        switch width {
        case 1: return 0
        case 2: return 1
        case 4: return 2
        default: return 3
        }
    }

    /// Returns the existing scalar encoded as `header` followed by `payload`, or stores
    /// it as a new object. Nothing is copied unless the scalar is new.
    private mutating func intern(
        _ header: ScalarHeader, payload: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) -> Int {
        let length = header.count + payload.count
        let hash = ByteHash.hash(payload, seed: hashSeed ^ header.hashWord)
        if (scalarCount + 1) * 2 > slots.count { growSlots() }
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let candidate = slots[slot] - 1
            let entry = entries[candidate]
            if entry.hash == hash, entry.count == length,
                storedScalar(at: entry.start, equals: header, payload)
            {
                return candidate
            }
            slot = (slot + 1) & mask
        }
        let start = scalarBytes.count
        header.append(to: &scalarBytes)
        if payload.count > 0 { scalarBytes.append(contentsOf: payload) }
        entries.append(Entry(kind: .scalar, start: start, count: length, hash: hash))
        slots[slot] = entries.count
        scalarCount += 1
        return entries.count - 1
    }

    /// Stores a scalar without looking it up (the caller de-duplicates it).
    private mutating func appendScalar(_ header: ScalarHeader) -> Int {
        let start = scalarBytes.count
        header.append(to: &scalarBytes)
        entries.append(Entry(kind: .scalar, start: start, count: header.count, hash: 0))
        return entries.count - 1
    }

    private func storedScalar(at start: Int, equals header: ScalarHeader, _ payload: UnsafeRawBufferPointer)
        -> Bool
    {
        scalarBytes.withUnsafeBytes { bytes in
            let payloadStart = start + header.count
            guard start >= 0, payloadStart + payload.count <= bytes.count,
                header.matches(UnsafeRawBufferPointer(rebasing: bytes[start..<payloadStart]))
            else { return false }
            return ByteHash.equal(
                UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + payload.count]), payload)
        }
    }

    private mutating func growSlots() {
        let capacity = max(64, slots.count * 2)
        slots = [Int](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (index, entry) in entries.enumerated() where entry.kind == .scalar && entry.hash != 0 {
            var slot = entry.hash & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = index + 1
        }
    }
}

/// Writes into the preallocated output; refuses (and remembers) any write past the end
/// rather than touching memory it does not own.
private struct Output {
    let buffer: UnsafeMutableRawBufferPointer
    var position = 0
    var overflowed = false

    init(buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    mutating func append<Bytes: Collection<UInt8>>(contentsOf bytes: Bytes) {
        for byte in bytes { appendBigEndian(UInt64(byte), width: 1) }
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= buffer.count - position else {
            overflowed = true
            return
        }
        UnsafeMutableRawBufferPointer(rebasing: buffer[position..<position + bytes.count])
            .copyMemory(from: UnsafeRawBufferPointer(bytes))
        position += bytes.count
    }

    /// Appends big-endian integers of `width` bytes (1, 2, 4 or 8), checking the room once.
    mutating func appendReferences(_ values: UnsafeBufferPointer<Int>, width: Int) {
        let length = values.count * width
        guard length <= buffer.count - position, let base = buffer.baseAddress else {
            overflowed = overflowed || length > 0
            return
        }
        let start = base + position
        switch width {
        case 1:
            for (index, value) in values.enumerated() {
                start.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: index, as: UInt8.self)
            }
        case 2:
            for (index, value) in values.enumerated() {
                start.storeBytes(
                    of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: index * 2, as: UInt16.self)
            }
        case 4:
            for (index, value) in values.enumerated() {
                start.storeBytes(
                    of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: index * 4, as: UInt32.self)
            }
        default:
            for (index, value) in values.enumerated() {
                start.storeBytes(
                    of: UInt64(truncatingIfNeeded: value).bigEndian, toByteOffset: index * 8, as: UInt64.self)
            }
        }
        position += length
    }

    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        guard width <= buffer.count - position else {
            overflowed = true
            return
        }
        var shift = (width - 1) * 8
        while shift >= 0 {
            buffer[position] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
            position += 1
            shift -= 8
        }
    }

    mutating func appendHeader(_ marker: UInt8, count: Int) {
        if count < 15 {
            appendBigEndian(UInt64(marker | UInt8(count)), width: 1)
        } else {
            appendBigEndian(UInt64(marker | 0x0F), width: 1)
            let width = BinaryPropertyListBuilder.byteWidth(forCount: count)
            appendBigEndian(UInt64(0x10 | BinaryPropertyListBuilder.log2(width)), width: 1)
            appendBigEndian(UInt64(count), width: width)
        }
    }
}

/// The leading bytes of an encoded scalar (marker, count or value), up to 16, kept in
/// registers while the scalar is looked up.
private struct ScalarHeader {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    private(set) var count = 0

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count < 8 {
            low |= UInt64(byte) << UInt64(count * 8)
        } else {
            high |= UInt64(byte) << UInt64((count - 8) * 8)
        }
        count += 1
    }

    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    /// Marker plus, from 15 on, an integer object holding the count.
    @inline(__always)
    mutating func appendCount(_ marker: UInt8, count: Int) {
        if count < 15 {
            append(marker | UInt8(count))
        } else {
            append(marker | 0x0F)
            let width = BinaryPropertyListBuilder.byteWidth(forCount: count)
            append(0x10 | BinaryPropertyListBuilder.log2(width))
            appendBigEndian(UInt64(count), width: width)
        }
    }

    /// Mixes the header into a hash seed.
    var hashWord: UInt64 {
        low ^ (high &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(count) << 59)
    }

    func append(to bytes: inout [UInt8]) {
        withUnsafeBytes(of: (low.littleEndian, high.littleEndian)) { words in
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: words[0..<count]))
        }
    }

    @inline(__always)
    private func byte(_ index: Int) -> UInt8 {
        index < 8
            ? UInt8(truncatingIfNeeded: low >> UInt64(index * 8))
            : UInt8(truncatingIfNeeded: high >> UInt64((index - 8) * 8))
    }

    func matches(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == count else { return false }
        return withUnsafeBytes(of: (low.littleEndian, high.littleEndian)) { words in
            ByteHash.equal(UnsafeRawBufferPointer(rebasing: words[0..<count]), bytes)
        }
    }
}
