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
        /// Hash of a scalar's encoded bytes.
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

    /// Creates an empty builder.
    init() {}

    /// The number of objects added or reserved so far.
    var objectCount: Int { entries.count }

    // MARK: Scalars

    /// Adds a Boolean, or returns the existing object for it.
    mutating func addBool(_ value: Bool) -> Int {
        let start = scalarBytes.count
        scalarBytes.append(value ? 0x09 : 0x08)
        return intern(from: start)
    }

    /// Adds an integer in the smallest width plistlib and Cocoa use: 1, 2 or 4 bytes
    /// unsigned, 8 bytes signed for negatives and up to `Int64.max`, 16 bytes beyond.
    mutating func addInteger(_ value: PropertyListInteger) -> Int {
        let start = scalarBytes.count
        if let unsigned = value.uint64Value, unsigned <= UInt64(Int64.max) {
            if unsigned < 1 << 8 {
                scalarBytes.append(0x10)
                appendBigEndian(unsigned, width: 1)
            } else if unsigned < 1 << 16 {
                scalarBytes.append(0x11)
                appendBigEndian(unsigned, width: 2)
            } else if unsigned < 1 << 32 {
                scalarBytes.append(0x12)
                appendBigEndian(unsigned, width: 4)
            } else {
                scalarBytes.append(0x13)
                appendBigEndian(unsigned, width: 8)
            }
        } else if let signed = value.int64Value {
            scalarBytes.append(0x13)
            appendBigEndian(UInt64(bitPattern: signed), width: 8)
        } else {
            scalarBytes.append(0x14)
            appendBigEndian(UInt64(bitPattern: value.high), width: 8)
            appendBigEndian(value.low, width: 8)
        }
        return intern(from: start)
    }

    /// Adds an integer.
    mutating func addInteger(_ value: Int64) -> Int {
        addInteger(PropertyListInteger(value))
    }

    /// Adds a real, always as a 64-bit float (marker `0x23`).
    mutating func addReal(_ value: Double) -> Int {
        let start = scalarBytes.count
        scalarBytes.append(0x23)
        appendBigEndian(value.bitPattern, width: 8)
        return intern(from: start)
    }

    /// Adds a date.
    ///
    /// - Throws: `invalidValue` for a NaN or infinite date, which readers refuse.
    mutating func addDate(_ date: Date) throws -> Int {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite else {
            throw KeyedArchiveError(.invalidValue, "a date of \(seconds) seconds cannot be written")
        }
        let start = scalarBytes.count
        scalarBytes.append(0x33)
        appendBigEndian(seconds.bitPattern, width: 8)
        return intern(from: start)
    }

    /// Adds bytes.
    mutating func addData<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
        let start = scalarBytes.count
        appendHeader(0x40, count: bytes.count)
        scalarBytes.append(contentsOf: bytes)
        return intern(from: start)
    }

    /// Adds a string: ASCII as marker `0x5n`, anything else as UTF-16BE (`0x6n`).
    mutating func addString(_ string: String) -> Int {
        let start = scalarBytes.count
        var string = string
        let isASCII = string.withUTF8 { utf8 in
            guard BinaryPropertyListScanner.isASCII(utf8) else { return false }
            appendHeader(0x50, count: utf8.count)
            scalarBytes.append(contentsOf: utf8)
            return true
        }
        if !isASCII {
            let utf16 = string.utf16
            appendHeader(0x60, count: utf16.count)
            for unit in utf16 {
                scalarBytes.append(UInt8(truncatingIfNeeded: unit >> 8))
                scalarBytes.append(UInt8(truncatingIfNeeded: unit))
            }
        }
        return intern(from: start)
    }

    /// Adds a UID in 1, 2, 4 or 8 bytes.
    mutating func addUID(_ value: UInt64) -> Int {
        let start = scalarBytes.count
        if value < 1 << 8 {
            scalarBytes.append(0x80)
            appendBigEndian(value, width: 1)
        } else if value < 1 << 16 {
            scalarBytes.append(0x81)
            appendBigEndian(value, width: 2)
        } else if value < 1 << 32 {
            scalarBytes.append(0x83)
            appendBigEndian(value, width: 4)
        } else {
            scalarBytes.append(0x87)
            appendBigEndian(value, width: 8)
        }
        return intern(from: start)
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
                            for reference in references[entry.start..<entry.start + length] {
                                output.appendBigEndian(UInt64(reference), width: referenceSize)
                            }
                        case .reserved:
                            break
                        }
                    }
                }
            }
            for offset in offsets { output.appendBigEndian(UInt64(offset), width: offsetSize) }
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

    private mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            scalarBytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    private mutating func appendHeader(_ marker: UInt8, count: Int) {
        if count < 15 {
            scalarBytes.append(marker | UInt8(count))
        } else {
            scalarBytes.append(marker | 0x0F)
            let width = Self.byteWidth(forCount: count)
            scalarBytes.append(0x10 | Self.log2(width))
            appendBigEndian(UInt64(count), width: width)
        }
    }

    fileprivate static func log2(_ width: Int) -> UInt8 {
        switch width {
        case 1: return 0
        case 2: return 1
        case 4: return 2
        default: return 3
        }
    }

    /// Returns the existing object whose encoding equals the bytes from `start` to the end
    /// of `scalarBytes` (dropping them), or records them as a new object.
    private mutating func intern(from start: Int) -> Int {
        let length = scalarBytes.count - start
        let hash = scalarBytes.withUnsafeBytes { bytes in
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[start...]))
            return hasher.finalize()
        }
        if (scalarCount + 1) * 2 > slots.count { growSlots() }
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let candidate = slots[slot] - 1
            let entry = entries[candidate]
            if entry.hash == hash, entry.count == length, equalScalars(entry.start, start, length) {
                scalarBytes.removeLast(length)
                return candidate
            }
            slot = (slot + 1) & mask
        }
        entries.append(Entry(kind: .scalar, start: start, count: length, hash: hash))
        slots[slot] = entries.count
        scalarCount += 1
        return entries.count - 1
    }

    private func equalScalars(_ first: Int, _ second: Int, _ length: Int) -> Bool {
        scalarBytes.withUnsafeBufferPointer { bytes in
            bytes[first..<first + length].elementsEqual(bytes[second..<second + length])
        }
    }

    private mutating func growSlots() {
        let capacity = max(64, slots.count * 2)
        slots = [Int](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (index, entry) in entries.enumerated() where entry.kind == .scalar {
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
