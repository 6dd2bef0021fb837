import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
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
/// The objects and references live in reference-type tables (see
/// ``BinaryPropertyListChunks`` and ``BinaryPropertyListStorage``): a builder is used where
/// it was made, never copied and then used twice, which would share them.
///
/// - Complexity: Adding a scalar is O(its size) on average; `finish` is O(output size).
@usableFromInline
package struct BinaryPropertyListBuilder {
    private enum EntryKind: UInt8 {
        case scalar, array, dictionary, reserved
    }

    /// One object in 24 bytes (32-bit positions, counts and hashes keep the tables small:
    /// most of the time of a large archive goes to touching fresh memory).
    private struct Entry {
        /// Scalars: the header bytes after the marker (a count or a value, at most 8),
        /// first byte lowest, so that numbers, dates and UIDs need no other storage.
        var headerTail: UInt64 = 0
        /// Scalars: start of the payload in `scalarBytes`; containers: start in `references`.
        var start: UInt32
        /// Scalars: payload length; arrays: elements; dictionaries: pairs.
        var count: UInt32
        /// Hash of a scalar's encoded bytes, or of a shareable container's references
        /// (the low 32 bits; the tables use no more).
        var hash: UInt32
        /// Scalars: the marker byte.
        var marker: UInt8 = 0
        /// Scalars: the number of header bytes, marker included (1 to 9).
        var headerLength: UInt8 = 0
        var kind: EntryKind

        init(kind: EntryKind, start: Int, count: Int, hash: Int) {
            self.kind = kind
            self.start = UInt32(truncatingIfNeeded: start)
            self.count = UInt32(truncatingIfNeeded: count)
            self.hash = UInt32(truncatingIfNeeded: hash)
        }

        /// A scalar; `header` holds at most 9 bytes (callers check).
        init(scalar header: ScalarHeader, start: Int, count: Int, hash: Int) {
            self.init(kind: .scalar, start: start, count: count, hash: hash)
            marker = header.marker
            headerTail = header.tail
            headerLength = UInt8(truncatingIfNeeded: header.count)
        }

        var header: ScalarHeader { ScalarHeader(marker: marker, tail: headerTail, count: Int(headerLength)) }

        /// Whether this scalar's header is `header`.
        @inline(__always)
        func hasHeader(_ header: ScalarHeader) -> Bool {
            headerTail == header.tail && marker == header.marker && Int(headerLength) == header.count
        }

        var startIndex: Int { Int(start) }
        var elementCount: Int { Int(count) }
        /// The number of bytes a scalar takes in the output.
        var scalarLength: Int { Int(headerLength) + Int(count) }
    }

    /// The objects, in order, in chunks (see ``BinaryPropertyListChunks``): for a large
    /// archive this table is most of the builder's memory.
    private let entries = BinaryPropertyListChunks<Entry>(
        outOfRange: Entry(kind: .reserved, start: 0, count: 0, hash: 0))
    /// The payloads of strings and data (what follows their headers), back to back.
    private let scalarBytes = BinaryPropertyListStorage<UInt8>(outOfRange: 0)
    /// Element references of arrays; key then value references of dictionaries.
    /// `UInt32.max` (never an object) stands for a reference that cannot be stored.
    private let references = BinaryPropertyListStorage<UInt32>(outOfRange: UInt32.max)
    private var referenceCount: Int { references.count }
    /// Open-addressing table of scalar entries (entry index + 1; 0 is empty).
    private let slots = BinaryPropertyListSlots()
    private var scalarCount = 0
    /// Open-addressing table of shareable containers (entry index + 1; 0 is empty).
    private let dictionarySlots = BinaryPropertyListSlots()
    private var shareableCount = 0
    /// The objects of UIDs added so far, by UID value (object + 1; 0 is unknown), for
    /// values below ``directUIDLimit`` when they were added.
    @usableFromInline var uidObjects = BinaryPropertyListUIDTable()
    /// Whether a UID was added through the scalar table (its value was beyond
    /// ``directUIDLimit`` then): from then on new UIDs are looked up there too, so that a
    /// UID is stored once whichever way it was added first.
    private var hasTableUIDs = false
    /// The most objects, references and payload bytes the builder holds: positions and
    /// counts are stored in 32 bits. Below `UInt32.max`, which marks a reference that
    /// cannot exist; lowered by tests.
    var limit = Int(UInt32.max - 1)
    /// The first limit passed; ``finish(topObject:)`` throws it.
    private var limitError: KeyedArchiveError?
    /// The first reference given that 32 bits cannot hold (stored as `UInt32.max`).
    private var unrepresentableReference: Int?
    /// Seeds the hashes, so that colliding inputs cannot be prepared in advance.
    private let hashSeed = ByteHash.randomSeed()

    /// Creates an empty builder.
    package init() {}

    /// The number of objects added or reserved so far.
    package var objectCount: Int { entries.count }

    /// The slots of the table of UIDs remembered by value, for tests.
    var uidTableCount: Int { uidObjects.count }

    // MARK: Scalars

    /// Adds a Boolean, or returns the existing object for it.
    package mutating func addBool(_ value: Bool) -> Int {
        var header = ScalarHeader()
        header.append(value ? 0x09 : 0x08)
        return intern(header)
    }

    /// Adds an integer in the smallest width plistlib and Cocoa use: 1, 2 or 4 bytes
    /// unsigned, 8 bytes signed for negatives and up to `Int64.max`, 16 bytes beyond.
    package mutating func addInteger(_ value: PropertyListInteger) -> Int {
        var header = ScalarHeader()
        if let unsigned = value.uint64Value, unsigned <= UInt64(Int64.max) {
            BinaryPropertyListWidth.withWidth(toHold: unsigned) { width in
                header.append(BinaryPropertyListWidth.integerMarker(width: width))
                header.appendBigEndian(unsigned, width: width)
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
    package mutating func addReal(_ value: Double) -> Int {
        var header = ScalarHeader()
        header.append(0x23)
        header.appendBigEndian(value.bitPattern, width: 8)
        return intern(header)
    }

    /// Adds a single-precision real (marker `0x22`, 4 bytes), as Foundation writes a
    /// `Float`; readers widen it to `Double` exactly. Infinities and NaN are written in 8
    /// bytes, as CoreFoundation writes them (its shared `kCFNumberPositiveInfinity` and
    /// `kCFNumberNaN` are doubles).
    package mutating func addFloat(_ bits: UInt32) -> Int {
        let value = Float(bitPattern: bits)
        guard value.isFinite else { return addReal(Double(value)) }
        var header = ScalarHeader()
        header.append(0x22)
        header.appendBigEndian(UInt64(bits), width: 4)
        return intern(header)
    }

    /// Adds a date.
    ///
    /// - Throws: `invalidValue` for a NaN or infinite date, which readers refuse.
    package mutating func addDate(_ date: Date) throws -> Int {
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
    @_specialize(exported:true,where Bytes == Data)
    @_specialize(exported:true,where Bytes == [UInt8])
    package mutating func addData<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
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

    /// Whether ``KnownASCII`` reads the standard library's flag here. A copy of
    /// `KnownASCII.isAvailable` in this module: read through that module's accessor (a call
    /// for every string), it cost strings-heavy writes 0.9% (callgrind).
    private static let readsASCIIFlag = KnownASCII.isAvailable

    /// Adds a string: ASCII as marker `0x5n`, anything else as UTF-16BE (`0x6n`). A string
    /// the standard library flags as ASCII is not scanned again.
    package mutating func addString(_ string: String) -> Int {
        let knownASCII = Self.readsASCIIFlag && KnownASCII.flag(string)
        // Read in place (a native or small string), without the copy `withUTF8` needs.
        if let object = string.utf8.withContiguousStorageIfAvailable({
            addString(utf8: $0, knownASCII: knownASCII)
        }) {
            return object
        }
        var string = string
        return string.withUTF8 { addString(utf8: $0, knownASCII: knownASCII) }
    }

    private mutating func addString(utf8: UnsafeBufferPointer<UInt8>, knownASCII: Bool) -> Int {
        if knownASCII || BinaryPropertyListScanner.isASCII(utf8) {
            var header = ScalarHeader()
            header.appendCount(0x50, count: utf8.count)
            return intern(header, payload: UnsafeRawBufferPointer(utf8))
        }
        // UTF-16 takes at most twice the bytes of UTF-8 (a 1-byte scalar becomes 2 bytes, a
        // 4-byte one 4), so the units fit in space on the stack (or the heap, for a long
        // string) with no array to grow.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * utf8.count) { units in
            let written = Self.bigEndianUTF16(utf8, into: units)
            var header = ScalarHeader()
            header.appendCount(0x60, count: written / 2)
            return intern(
                header, payload: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: units[0..<written])))
        }
    }

    /// Writes the UTF-16BE form of `utf8` (a `String`'s bytes, so valid UTF-8) into
    /// `units`, which has room for twice as many bytes, and returns the bytes written.
    ///
    /// Decoded from the bytes in one pass: iterating `String.UTF16View` was a sixth of
    /// writing small documents with non-ASCII strings to binary (callgrind).
    static func bigEndianUTF16(
        _ utf8: UnsafeBufferPointer<UInt8>, into units: UnsafeMutableBufferPointer<UInt8>
    )
        -> Int
    {
        let count = utf8.count
        guard units.count >= 2 * count else { return 0 }
        var index = 0
        var written = 0
        while index < count {
            let lead = UInt32(utf8[index])
            var scalar = lead
            var length = 1
            if lead >= 0xF0, index + 3 < count {
                scalar =
                    (lead & 0x07) << 18 | UInt32(utf8[index + 1] & 0x3F) << 12
                    | UInt32(utf8[index + 2] & 0x3F) << 6 | UInt32(utf8[index + 3] & 0x3F)
                length = 4
            } else if lead >= 0xE0, index + 2 < count {
                scalar =
                    (lead & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F)
                length = 3
            } else if lead >= 0xC0, index + 1 < count {
                scalar = (lead & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)
                length = 2
            }
            index += length
            if scalar < 0x1_0000 {
                units[written] = UInt8(truncatingIfNeeded: scalar >> 8)
                units[written + 1] = UInt8(truncatingIfNeeded: scalar)
                written += 2
            } else {
                let offset = scalar - 0x1_0000
                let high = 0xD800 | offset >> 10
                let low = 0xDC00 | offset & 0x3FF
                units[written] = UInt8(truncatingIfNeeded: high >> 8)
                units[written + 1] = UInt8(truncatingIfNeeded: high)
                units[written + 2] = UInt8(truncatingIfNeeded: low >> 8)
                units[written + 3] = UInt8(truncatingIfNeeded: low)
                written += 4
            }
        }
        return written
    }

    /// Adds an ASCII string from its bytes (all below 0x80): the object ``addString(_:)``
    /// adds for the same text, without making a `String`.
    mutating func addASCIIString(_ bytes: UnsafeRawBufferPointer) -> Int {
        var header = ScalarHeader()
        header.appendCount(0x50, count: bytes.count)
        return intern(header, payload: bytes)
    }

    /// Adds a UID in 1, 2, 4 or 8 bytes.
    ///
    /// Inlinable for its first line: the keyed archiver, in another module, adds a UID for
    /// nearly every reference, and most are known already.
    @inlinable
    package mutating func addUID(_ value: UInt64) -> Int {
        // Archives refer to UIDs 0..<n over and over: remember their objects directly.
        if let known = uidObjects.object(of: value) { return known }
        return addNewUID(value)
    }

    /// Adds a UID not remembered in ``uidObjects``.
    @usableFromInline
    mutating func addNewUID(_ value: UInt64) -> Int {
        var header = ScalarHeader()
        BinaryPropertyListWidth.withWidth(toHold: value) { width in
            header.append(BinaryPropertyListWidth.uidMarker(width: width))
            header.appendBigEndian(value, width: width)
        }
        let limit = directUIDLimit
        guard value < UInt64(limit) else {
            hasTableUIDs = true
            return intern(header)
        }
        // Small UIDs are remembered in `uidObjects`, which never grows past the limit.
        let object = hasTableUIDs ? intern(header) : appendScalar(header)
        uidObjects.remember(object, for: value, below: limit)
        return object
    }

    /// UIDs below this are remembered by value. Archives refer to UIDs below their object
    /// count, so the table grows with the objects added (four slots for each), never with
    /// a UID's value: a property list of one UID of 2^26 must not cost 256 MB.
    private var directUIDLimit: Int { max(1 << 12, 4 * entries.count) }

    // MARK: Containers

    /// Reserves the next object number for a container whose contents come later; set
    /// it with ``setArray(_:elements:)`` or ``setDictionary(_:keys:values:)`` before
    /// ``finish(topObject:)``.
    package mutating func reserveObject() -> Int {
        appendEntry(Entry(kind: .reserved, start: 0, count: 0, hash: 0))
    }

    /// Makes a reserved object an array of the given object references.
    ///
    /// - Throws: `invalidValue` if `object` was not reserved or is already set.
    mutating func setArray<Elements: Collection<Int>>(_ object: Int, elements: Elements) throws {
        try checkReserved(object)
        entries[object] = Entry(kind: .array, start: referenceCount, count: elements.count, hash: 0)
        appendReferences(elements)
    }

    /// Makes a reserved object a dictionary; `keys` should refer to strings.
    ///
    /// - Throws: `invalidValue` if `object` was not reserved, or the counts differ.
    @_specialize(exported:true,where Keys == [Int], Values == [Int])
    package mutating func setDictionary<Keys: Collection<Int>, Values: Collection<Int>>(
        _ object: Int, keys: Keys, values: Values
    ) throws {
        try checkReserved(object)
        guard keys.count == values.count else {
            throw KeyedArchiveError(
                .invalidValue, "object \(object): \(keys.count) dictionary keys but \(values.count) values")
        }
        entries[object] = Entry(kind: .dictionary, start: referenceCount, count: keys.count, hash: 0)
        appendReferences(keys)
        appendReferences(values)
    }

    // The keyed archiver calls the generic entry points from its module with arrays of
    // object numbers; without these specializations each call walked its collection
    // through protocol witnesses (callgrind, `creatures-500/encode/binary`).

    /// Adds an array of already-added objects.
    @_specialize(exported:true,where Elements == [Int])
    package mutating func addArray<Elements: Collection<Int>>(_ elements: Elements) -> Int {
        let object = appendEntry(Entry(kind: .array, start: referenceCount, count: elements.count, hash: 0))
        appendReferences(elements)
        return object
    }

    /// Adds a dictionary of already-added objects.
    ///
    /// - Throws: `invalidValue` if the counts differ.
    @_specialize(exported:true,where Keys == [Int], Values == [Int])
    package mutating func addDictionary<Keys: Collection<Int>, Values: Collection<Int>>(
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
        guard 2 * keys.count <= limit - referenceCount else {
            exceedLimit("more than \(limit) object references")
            return object
        }
        let hash = Self.tableHash(ByteHash.hash(keys, values, seed: hashSeed))
        growDictionarySlotsIfNeeded()
        let (slot, found) = sharedSlot(hash: hash) { entry in
            entry.kind == .dictionary && entry.elementCount == keys.count
                && references[entry.startIndex..<entry.startIndex + keys.count].elementsEqual(
                    keys, by: Self.same)
                && references[entry.startIndex + keys.count..<entry.startIndex + 2 * keys.count]
                    .elementsEqual(
                        values, by: Self.same)
        }
        if found, mayRelease, object == entries.count - 1 {
            entries.removeLast()
            return Int(dictionarySlots[slot]) - 1
        }
        let isNew = !found
        entries[object] = Entry(
            kind: .dictionary, start: referenceCount, count: keys.count, hash: isNew ? hash : 0)
        appendReferences(keys)
        appendReferences(values)
        if isNew {
            dictionarySlots[slot] = UInt32(truncatingIfNeeded: object + 1)
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
    package mutating func setObjectDictionary(
        _ object: Int, leadingKey: Int, leadingValue: Int, keys: UnsafeBufferPointer<Int>,
        values: UnsafeBufferPointer<Int>, shareable: Bool, mayRelease: Bool
    ) throws -> Int {
        try checkReserved(object)
        guard keys.count == values.count else {
            throw KeyedArchiveError(
                .invalidValue, "object \(object): \(keys.count) dictionary keys but \(values.count) values")
        }
        let start = referenceCount
        let count = keys.count + 1
        guard 2 * count <= limit - start else {
            exceedLimit("more than \(limit) object references")
            return object
        }
        appendReferences(CollectionOfOne(leadingKey))
        appendReferences(keys)
        appendReferences(CollectionOfOne(leadingValue))
        appendReferences(values)
        guard shareable else {
            entries[object] = Entry(kind: .dictionary, start: start, count: count, hash: 0)
            return object
        }
        let hash = Self.tableHash(
            ByteHash.hash(
                references[start..<start + count], references[start + count..<start + 2 * count],
                seed: hashSeed))
        growDictionarySlotsIfNeeded()
        let (slot, found) = sharedSlot(hash: hash) { entry in
            entry.kind == .dictionary && entry.elementCount == count
                && references[entry.startIndex..<entry.startIndex + 2 * count].elementsEqual(
                    references[start..<start + 2 * count])
        }
        if found, mayRelease, object == entries.count - 1 {
            references.truncate(to: start)
            entries.removeLast()
            return Int(dictionarySlots[slot]) - 1
        }
        let isNew = !found
        entries[object] = Entry(kind: .dictionary, start: start, count: count, hash: isNew ? hash : 0)
        if isNew {
            dictionarySlots[slot] = UInt32(truncatingIfNeeded: object + 1)
            shareableCount += 1
        }
        return object
    }

    /// Adds an array that may stand for any equal array added this way: an equal one
    /// added before is returned instead of a new object.
    ///
    /// The keyed archiver stores the reference arrays of equal collections once this way.
    package mutating func addShareableArray(_ elements: UnsafeBufferPointer<Int>) -> Int {
        let start = referenceCount
        appendReferences(elements)
        return shareArray(from: start)
    }

    /// Adds a UID for each value (as ``addUID(_:)`` does, in order), then a shareable
    /// array of them (as ``addShareableArray(_:)`` does), without a buffer in between.
    @_specialize(exported:true,where Values == [Int])
    package mutating func addShareableUIDArray<Values: Collection<Int>>(_ values: Values) -> Int {
        let start = referenceCount
        for value in values {
            let object = addUID(UInt64(value))
            appendReferences(CollectionOfOne(object))
        }
        return shareArray(from: start)
    }

    /// Makes the references from `start` on (the last ones appended) a shareable array:
    /// an equal one added before is returned instead, and the references dropped.
    private mutating func shareArray(from start: Int) -> Int {
        let count = referenceCount - start
        let hash = Self.tableHash(
            ByteHash.hash(references[start..<referenceCount], EmptyCollection<UInt32>(), seed: hashSeed))
        growDictionarySlotsIfNeeded()
        let end = referenceCount
        let (slot, found) = sharedSlot(hash: hash) { entry in
            entry.kind == .array && entry.elementCount == count
                && references[entry.startIndex..<entry.startIndex + count].elementsEqual(
                    references[start..<end])
        }
        if found {
            references.truncate(to: start)
            return Int(dictionarySlots[slot]) - 1
        }
        let object = appendEntry(Entry(kind: .array, start: start, count: count, hash: hash))
        dictionarySlots[slot] = UInt32(truncatingIfNeeded: object + 1)
        shareableCount += 1
        return object
    }

    /// Replaces the value at `position` (in the order the values were given) of a
    /// dictionary that was set and is not shareable.
    ///
    /// - Throws: `invalidValue` if `object` is not such a dictionary or has no such position.
    package mutating func replaceValue(ofDictionary object: Int, at position: Int, with value: Int) throws {
        guard entries.contains(object), entries[object].kind == .dictionary,
            entries[object].hash == 0, (0..<entries[object].elementCount).contains(position)
        else {
            throw KeyedArchiveError(.invalidValue, "object \(object) has no replaceable value \(position)")
        }
        references[entries[object].startIndex + entries[object].elementCount + position] = storedReference(
            value)
    }

    /// Appends references, written in place (see ``BinaryPropertyListStorage``).
    @inline(__always)
    private mutating func appendReferences<Run: Collection<Int>>(_ run: Run) {
        guard references.count + run.count <= limit else {
            exceedLimit("more than \(limit) object references")
            return
        }
        var unrepresentable: Int?
        references.append(run) { reference in
            if reference >= 0, reference < Int(UInt32.max) { return UInt32(truncatingIfNeeded: reference) }
            unrepresentable = unrepresentable ?? reference
            return UInt32.max
        }
        if let unrepresentable { noteUnrepresentable(unrepresentable) }
    }

    /// A reference as stored: `UInt32.max` (never an object) for one 32 bits cannot hold,
    /// remembered so that ``finish(topObject:)`` names it.
    private mutating func storedReference(_ reference: Int) -> UInt32 {
        if reference >= 0, reference < Int(UInt32.max) { return UInt32(truncatingIfNeeded: reference) }
        noteUnrepresentable(reference)
        return UInt32.max
    }

    private mutating func noteUnrepresentable(_ reference: Int) {
        if unrepresentableReference == nil { unrepresentableReference = reference }
    }

    /// Appends an entry and returns its object; past ``limit`` objects, records the error
    /// and returns the last object (or 0) instead: ``finish(topObject:)`` throws.
    @inline(__always)
    private mutating func appendEntry(_ entry: Entry) -> Int {
        guard entries.count < limit else {
            exceedLimit("more than \(limit) objects")
            return max(entries.count - 1, 0)
        }
        entries.append(entry)
        return entries.count - 1
    }

    private mutating func exceedLimit(_ what: String) {
        if limitError == nil {
            limitError = KeyedArchiveError(.invalidValue, "the property list is too large to write: \(what)")
        }
    }

    /// The part of a hash the tables and entries keep.
    @inline(__always)
    private static func tableHash(_ hash: Int) -> Int { Int(UInt32(truncatingIfNeeded: hash)) }

    @inline(__always)
    private static func same(_ stored: UInt32, _ reference: Int) -> Bool { Int(stored) == reference }

    /// Grows the table of shareable containers before it is half full.
    @inline(__always)
    private mutating func growDictionarySlotsIfNeeded() {
        if LinearProbing.needsGrowth(count: shareableCount, capacity: dictionarySlots.capacity) {
            rehash(dictionarySlots)
        }
    }

    /// The slot of the shareable container with `hash` that `matches` (`found`), or the
    /// empty slot where a new one goes.
    @inline(__always)
    private func sharedSlot(hash: Int, matches: (Entry) -> Bool) -> (slot: Int, found: Bool) {
        LinearProbing.probe(
            hash: hash, capacity: dictionarySlots.capacity, isEmpty: { dictionarySlots[$0] == 0 }
        ) {
            let entry = entries[Int(dictionarySlots[$0]) - 1]
            return entry.hash == hash && matches(entry)
        }
    }

    /// Doubles a table (to at least `minimum` slots), keeping its entries.
    private func rehash(_ table: BinaryPropertyListSlots, minimum: Int = 64) {
        table.rehash(to: LinearProbing.grownCapacity(from: table.capacity, minimum: minimum)) { stored in
            Int(entries[Int(stored) - 1].hash)
        }
    }

    private func checkReserved(_ object: Int) throws {
        guard entries.contains(object), entries[object].kind == .reserved else {
            throw KeyedArchiveError(.invalidValue, "object \(object) is not a reserved, unset container")
        }
    }

    // MARK: Output

    /// Writes header, objects, offset table and trailer, with the smallest reference
    /// and offset sizes that fit.
    ///
    /// The tables that find equal objects are freed first: nothing is looked up any more,
    /// and the output is allocated next. Objects added afterwards are not de-duplicated
    /// against those added before.
    ///
    /// - Parameter topObject: The root object.
    /// - Returns: The binary property list.
    /// - Throws: `invalidValue` if there are no objects, `topObject` or a reference is out
    ///   of range, or a reserved object was never set.
    package mutating func finish(topObject: Int) throws -> Data {
        if let limitError { throw limitError }
        let objectCount = entries.count
        if let unrepresentableReference {
            throw KeyedArchiveError(
                .invalidValue,
                "object reference \(unrepresentableReference) does not exist (\(objectCount) objects)")
        }
        guard entries.contains(topObject) else {
            throw KeyedArchiveError(
                .invalidValue, "top object \(topObject) does not exist (\(objectCount) objects)")
        }
        let referenceSize = BinaryPropertyListWidth.bytes(forCount: objectCount)
        let tableOffset = try references.withUnsafeBufferPointer { references in
            try Self.checkedObjectsEnd(entries, references, referenceSize: referenceSize)
        }
        let offsetSize = BinaryPropertyListWidth.bytes(forCount: tableOffset)
        let total = tableOffset + objectCount * offsetSize + BinaryPropertyListTrailer.size
        releaseLookupTables()

        // Every byte is written below (the check after writing makes sure), so the output
        // is not zero-filled first: its pages are touched once, by the writing.
        let base = malloc(total) ?? .allocate(byteCount: total, alignment: 16)
        do {
            var output = Output(
                buffer: UnsafeMutableRawBufferPointer(start: base, count: total), scratchLimit: tableOffset)
            output.appendBigEndian(0x6270_6C69_7374_3030, width: 8)  // "bplist00"
            scalarBytes.withUnsafeBufferPointer { scalars in
                references.withUnsafeBufferPointer { references in
                    var index = 0
                    entries.forEachChunk { chunk in
                        for entry in chunk {
                            output.store(
                                output.position, width: offsetSize, at: tableOffset + index * offsetSize)
                            switch entry.kind {
                            case .scalar:
                                output.appendScalar(
                                    entry.header,
                                    payload: UnsafeRawBufferPointer(
                                        UnsafeBufferPointer(
                                            rebasing: scalars[
                                                entry.startIndex..<entry.startIndex + entry.elementCount])))
                            case .array, .dictionary:
                                let count = entry.elementCount
                                output.appendHeader(entry.kind == .array ? 0xA0 : 0xD0, count: count)
                                let length = entry.kind == .array ? count : 2 * count
                                output.appendReferences(
                                    UnsafeBufferPointer(
                                        rebasing: references[entry.startIndex..<entry.startIndex + length]),
                                    width: referenceSize)
                            case .reserved:
                                break
                            }
                            index += 1
                        }
                    }
                }
            }
            let objectsEnd = output.position
            output.skip(objectCount * offsetSize)
            output.appendBigEndian(0, width: 6)  // 5 unused bytes and the sort version
            output.appendBigEndian(UInt64(offsetSize), width: 1)
            output.appendBigEndian(UInt64(referenceSize), width: 1)
            output.appendBigEndian(UInt64(objectCount), width: 8)
            output.appendBigEndian(UInt64(topObject), width: 8)
            output.appendBigEndian(UInt64(tableOffset), width: 8)
            guard objectsEnd == tableOffset, !output.overflowed, output.position == total else {
                free(base)
                throw KeyedArchiveError(
                    .invalidValue, "internal error: wrote \(output.position) of \(total) bytes")
            }
        }
        return Data(bytesNoCopy: base, count: total, deallocator: .free)
    }

    /// Makes room for `extraReferences` more references, exactly (for a caller that knows
    /// what it will add last).
    package mutating func reserve(references extraReferences: Int) {
        references.reserve(references.count + extraReferences)
    }

    /// Frees the tables that find equal objects (scalars, shareable containers, UIDs).
    private mutating func releaseLookupTables() {
        slots.removeAll()
        scalarCount = 0
        dictionarySlots.removeAll()
        shareableCount = 0
        uidObjects = BinaryPropertyListUIDTable()
        hasTableUIDs = false
    }

    /// Where the objects end (the offset table's offset), after checking that every object
    /// was set, every reference exists and every dictionary key is a string.
    private static func checkedObjectsEnd(
        _ entries: BinaryPropertyListChunks<Entry>, _ references: UnsafeBufferPointer<UInt32>,
        referenceSize: Int
    ) throws -> Int {
        let objectCount = entries.count
        var position = 8
        for index in 0..<objectCount {
            let entry = entries[index]
            let length: Int
            let count = entry.elementCount
            switch entry.kind {
            case .scalar:
                position += entry.scalarLength
                continue
            case .array:
                length = count
            case .dictionary:
                length = 2 * count
            case .reserved:
                throw KeyedArchiveError(.invalidValue, "object \(index) was reserved but never set")
            }
            position += BinaryPropertyListCountHeader.length(count: count) + length * referenceSize
            let start = entry.startIndex
            guard start <= references.count - length else {
                throw KeyedArchiveError(.invalidValue, "object \(index): references out of range")
            }
            for reference in references[start..<start + length] where Int(reference) >= objectCount {
                throw KeyedArchiveError(
                    .invalidValue, "object reference \(reference) does not exist (\(objectCount) objects)")
            }
            guard entry.kind == .dictionary else { continue }
            for key in references[start..<start + count] {
                let key = Int(key)
                let marker = entries[key].marker >> 4
                guard entries[key].kind == .scalar, marker == 0x5 || marker == 0x6 else {
                    throw KeyedArchiveError(
                        .invalidValue, "object \(index): dictionary key \(key) is not a string object")
                }
            }
        }
        return position
    }

    // MARK: Encoding helpers

    /// Returns the existing scalar encoded as `header` followed by `payload`, or stores
    /// it as a new object. Nothing is copied unless the scalar is new.
    private mutating func intern(
        _ header: ScalarHeader, payload: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) -> Int {
        let hash = Self.tableHash(ByteHash.hash(payload, seed: hashSeed ^ header.hashWord))
        // 256 slots (1 KB) to start with: a small document's strings and numbers fit, where
        // growing from 64 was 3.6% of writing one.
        if LinearProbing.needsGrowth(count: scalarCount, capacity: slots.capacity) {
            rehash(slots, minimum: 256)
        }
        let (slot, found) = LinearProbing.probe(
            hash: hash, capacity: slots.capacity, isEmpty: { slots[$0] == 0 }
        ) { slot in
            let entry = entries[Int(slots[slot]) - 1]
            return entry.hash == hash && entry.hasHeader(header) && entry.elementCount == payload.count
                && (payload.isEmpty || storedPayload(at: entry.startIndex, equals: payload))
        }
        if found { return Int(slots[slot]) - 1 }
        let start = scalarBytes.count
        guard payload.count <= limit - start, header.count <= ScalarHeader.storedLimit else {
            exceedLimit("more than \(limit) bytes of strings and data")
            return max(entries.count - 1, 0)
        }
        guard entries.count < limit else {
            exceedLimit("more than \(limit) objects")
            return max(entries.count - 1, 0)
        }
        scalarBytes.append(bytes: payload)
        let object = appendEntry(Entry(scalar: header, start: start, count: payload.count, hash: hash))
        slots[slot] = UInt32(truncatingIfNeeded: object + 1)
        scalarCount += 1
        return object
    }

    /// Stores a scalar without a payload without looking it up (the caller de-duplicates it).
    private mutating func appendScalar(_ header: ScalarHeader) -> Int {
        appendEntry(Entry(scalar: header, start: 0, count: 0, hash: 0))
    }

    private func storedPayload(at start: Int, equals payload: UnsafeRawBufferPointer) -> Bool {
        // One bounds check by hand: the storage's clamped `subscript(range:)` cost archive
        // writes 0.3% more here (callgrind), this being on every de-duplicated payload.
        scalarBytes.withUnsafeBufferPointer { bytes in
            guard start >= 0, start + payload.count <= bytes.count else { return false }
            return ByteHash.equal(
                UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<start + payload.count])),
                payload)
        }
    }
}

/// Writes into the preallocated output; refuses (and remembers) any write past the end
/// rather than touching memory it does not own.
private struct Output {
    let buffer: UnsafeMutableRawBufferPointer
    /// Bytes before this offset may be overwritten ahead of the position (they are
    /// written again in order); bytes from it on are written once.
    let scratchLimit: Int
    var position = 0
    var overflowed = false

    init(buffer: UnsafeMutableRawBufferPointer, scratchLimit: Int) {
        self.buffer = buffer
        self.scratchLimit = min(scratchLimit, buffer.count)
    }

    /// Appends a scalar: its header, then its payload.
    @inline(__always)
    mutating func appendScalar(_ header: ScalarHeader, payload: UnsafeRawBufferPointer) {
        let length = header.count + payload.count
        guard length <= buffer.count - position, let base = buffer.baseAddress else {
            overflowed = true
            return
        }
        let start = base + position
        if position <= scratchLimit - 16 {
            // Both words at once; the bytes past the header are overwritten next.
            start.storeBytes(of: header.low.littleEndian, as: UInt64.self)
            (start + 8).storeBytes(of: header.high.littleEndian, as: UInt64.self)
        } else {
            for index in 0..<header.count {
                start.storeBytes(of: header.byte(index), toByteOffset: index, as: UInt8.self)
            }
        }
        if !payload.isEmpty, let source = payload.baseAddress {
            (start + header.count).copyMemory(from: source, byteCount: payload.count)
        }
        position += length
    }

    /// Writes a big-endian integer of `width` bytes at `offset`, leaving the position alone.
    @inline(__always)
    mutating func store(_ value: Int, width: Int, at offset: Int) {
        guard offset >= 0, width <= buffer.count - offset, let base = buffer.baseAddress else {
            overflowed = true
            return
        }
        switch width {
        case 1: base.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: offset, as: UInt8.self)
        case 2:
            base.storeBytes(
                of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt16.self)
        case 4:
            base.storeBytes(
                of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt32.self)
        default:
            base.storeBytes(
                of: UInt64(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt64.self)
        }
    }

    /// Moves past `count` bytes written with ``store(_:width:at:)``.
    mutating func skip(_ count: Int) {
        guard count <= buffer.count - position else {
            overflowed = true
            return
        }
        position += count
    }

    /// Appends big-endian integers of `width` bytes (1, 2, 4 or 8), checking the room once.
    mutating func appendReferences(_ values: UnsafeBufferPointer<UInt32>, width: Int) {
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

    /// Appends an object's marker and count (see ``BinaryPropertyListCountHeader``).
    @inline(__always)
    mutating func appendHeader(_ marker: UInt8, count: Int) {
        BinaryPropertyListCountHeader.write(marker, count: count) { appendBigEndian($0, width: $1) }
    }
}

/// The leading bytes of an encoded scalar (marker, count or value), up to 16, kept in
/// registers while the scalar is looked up.
private struct ScalarHeader: Equatable {
    private(set) var low: UInt64 = 0
    private(set) var high: UInt64 = 0
    /// The number of bytes, as one byte so that an ``BinaryPropertyListBuilder`` entry
    /// stays small.
    private var length: UInt8 = 0

    /// The most bytes an ``BinaryPropertyListBuilder`` entry keeps: the marker and 8 more.
    static let storedLimit = 9

    var count: Int { Int(length) }

    init() {}

    /// A header of `count` bytes: `marker`, then the bytes of `tail`, lowest first.
    init(marker: UInt8, tail: UInt64, count: Int) {
        low = UInt64(marker) | tail << 8
        high = tail >> 56
        length = UInt8(truncatingIfNeeded: count)
    }

    /// The bytes after the marker, lowest first (the first 8 of them).
    var tail: UInt64 { low >> 8 | high << 56 }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if length < 8 {
            low |= UInt64(byte) << UInt64(length &* 8)
        } else {
            high |= UInt64(byte) << UInt64((length &- 8) &* 8)
        }
        length &+= 1
    }

    /// Appends the low `width` bytes of `value`, most significant first. A width known
    /// only at run time (chosen by ``BinaryPropertyListWidth``) still runs an unrolled
    /// copy: each of the format's widths has its own case.
    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        switch width {
        case 1: appendBigEndianBytes(value, width: 1)
        case 2: appendBigEndianBytes(value, width: 2)
        case 4: appendBigEndianBytes(value, width: 4)
        case 8: appendBigEndianBytes(value, width: 8)
        default: appendBigEndianBytes(value, width: width)
        }
    }

    @inline(__always)
    private mutating func appendBigEndianBytes(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    /// Marker plus, from 15 on, an integer object holding the count (see
    /// ``BinaryPropertyListCountHeader``).
    @inline(__always)
    mutating func appendCount(_ marker: UInt8, count: Int) {
        BinaryPropertyListCountHeader.write(marker, count: count) { appendBigEndian($0, width: $1) }
    }

    /// Mixes the header into a hash seed.
    var hashWord: UInt64 {
        low ^ (high &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(count) << 59)
    }

    /// The byte at `index` (below ``count``).
    @inline(__always)
    func byte(_ index: Int) -> UInt8 {
        index < 8
            ? UInt8(truncatingIfNeeded: low >> UInt64(index * 8))
            : UInt8(truncatingIfNeeded: high >> UInt64((index - 8) * 8))
    }

    /// The first byte (the marker).
    var marker: UInt8 { UInt8(truncatingIfNeeded: low) }
}
