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

/// Writes a binary property list object by object, straight into its final bytes: each
/// object is encoded the moment it is added, and a container is added after its contents
/// (so a reader of a document, which finishes the contents first, can stream into it).
///
/// ``BinaryPropertyListBuilder`` keeps a table of objects and lays the file out at the end,
/// which lets it share equal scalars and number containers before their contents; this
/// writer trades that for one pass with no table. Nothing is shared except small UIDs,
/// whose object is remembered by value (archives refer to the same UIDs over and over);
/// callers that want a value stored once keep its object number themselves. References
/// and offsets are 4 bytes; past that, ``finish(topObject:)`` throws.
///
/// Nothing it allocates is sized by a value it is given: UIDs are remembered only below
/// ``sharedUIDLimit``, which the caller derives from the input's length (larger ones are
/// written each time), and the output grows with what is written. When the output cannot
/// grow (memory ran out, or it would pass ``maximumLength``) every later write is dropped
/// at once and ``finish(topObject:)`` throws `limitExceeded`.
///
/// The XML reader writes through it when the keyed unarchiver opens an XML archive.
final class BinaryPropertyListStream {
    // Every property is touched for every object written, and no access spans a call that
    // could reach the writer again, so Swift's dynamic exclusivity checks on class
    // properties would only cost time (they were most of the writer's profile).

    /// The output, `malloc`ed so that ``finish(topObject:)`` can hand it to `Data` as is.
    @exclusivity(unchecked) private var bytes: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var length = 8
    /// The byte offset of each object.
    @exclusivity(unchecked) private var offsets: [UInt32] = []
    /// The object of each UID value below ``sharedUIDLimit``, + 1 (0: none yet).
    @exclusivity(unchecked) private var uidObjects = BinaryPropertyListUIDTable()
    /// Set when the output or the object count passes what 4-byte offsets and references
    /// address; ``finish(topObject:)`` throws it.
    @exclusivity(unchecked) private var tooLarge = false
    /// Set when the output could not grow; ``finish(topObject:)`` throws it.
    @exclusivity(unchecked) private var outOfMemory = false
    /// The size the output failed to grow to (`Int.max` for more than `Int` counts).
    @exclusivity(unchecked) private var failedLength = 0

    /// UIDs below this are written once and shared; larger ones are written each time.
    let sharedUIDLimit: Int
    /// The most bytes the output may take (objects, offset table and trailer): growing past
    /// it fails as running out of memory does. Objects must start below 4 GB, the offset
    /// table takes 4 bytes for each; lowered by tests.
    let maximumLength: Int
    /// `realloc`, or a stand-in that fails, for tests.
    private let reallocate: (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?

    static let referenceSize = 4

    /// Creates a writer expecting about `expectedBytes` of output and `expectedObjects` objects.
    ///
    /// - Parameters:
    ///   - sharedUIDLimit: UIDs below it are shared; their table takes 4 bytes per value
    ///     up to the largest UID seen, so derive it from the input's length, never from a
    ///     value read.
    ///   - maximumLength: The most bytes the output may take.
    ///   - reallocate: How the output grows (`realloc`).
    init(
        expectedBytes: Int, expectedObjects: Int, sharedUIDLimit: Int,
        maximumLength: Int = 5 * Int(UInt32.max),
        reallocate: @escaping (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = {
            realloc($0, $1)
        }
    ) {
        self.sharedUIDLimit = max(0, sharedUIDLimit)
        self.maximumLength = maximumLength
        self.reallocate = reallocate
        capacity = min(max(64, expectedBytes), max(8, maximumLength))
        bytes = reallocate(nil, capacity)
        offsets.reserveCapacity(max(16, expectedObjects))
        if let bytes {
            bytes.copyMemory(from: "bplist00", byteCount: 8)
        } else {
            failedLength = capacity
            capacity = 0
            length = 0
            outOfMemory = true
        }
    }

    deinit { free(bytes) }

    /// The number of objects added so far.
    var objectCount: Int { offsets.count }

    /// The slots of the table of shared UIDs (at most ``sharedUIDLimit``), for tests.
    var uidTableCount: Int { uidObjects.count }

    // MARK: Output

    /// Room for `count` more bytes at the end of the output; `nil` once the output could
    /// not grow (then every later call returns `nil` at once).
    @inline(__always)
    private func room(_ count: Int) -> UnsafeMutableRawPointer? {
        if capacity - length < count, !grow(count) { return nil }
        guard let bytes else { return nil }
        return bytes + length
    }

    /// Makes room for `count` more bytes; `false`, with the output dropped for good, when
    /// it cannot. A failed writer never tries again: its capacity is 0, and doubling 0
    /// would never reach what is needed.
    @inline(never)
    private func grow(_ count: Int) -> Bool {
        guard let bytes, !outOfMemory else { return false }
        let (needed, overflow) = length.addingReportingOverflow(count)
        guard !overflow, needed <= maximumLength else {
            dropOutput(wanting: overflow ? Int.max : needed)
            return false
        }
        var newCapacity = max(capacity, 64)
        while newCapacity < needed {
            newCapacity = newCapacity > maximumLength / 2 ? maximumLength : newCapacity * 2
        }
        guard let moved = reallocate(bytes, newCapacity) else {
            dropOutput(wanting: newCapacity)
            return false
        }
        self.bytes = moved
        capacity = newCapacity
        return true
    }

    /// Gives the output up after a failed growth: later writes are dropped, and
    /// ``finish(topObject:)`` throws `limitExceeded`.
    private func dropOutput(wanting wanted: Int) {
        failedLength = wanted
        free(bytes)
        bytes = nil
        capacity = 0
        length = 0
        outOfMemory = true
    }

    /// Starts the next object at the end of the output.
    @inline(__always)
    private func beginObject() -> Int {
        if length >= Int(UInt32.max) || offsets.count >= Int(UInt32.max) { tooLarge = true }
        offsets.append(UInt32(truncatingIfNeeded: length))
        return offsets.count - 1
    }

    /// Writes an object's marker and count (see ``BinaryPropertyListCountHeader``).
    @inline(__always)
    private func writeHeader(_ marker: UInt8, count: Int) {
        BinaryPropertyListCountHeader.write(marker, count: count) { writeBigEndian($0, width: $1) }
    }

    @inline(__always)
    private func writeByte(_ byte: UInt8) {
        guard let destination = room(1) else { return }
        destination.storeBytes(of: byte, as: UInt8.self)
        length += 1
    }

    @inline(__always)
    private func writeBigEndian(_ value: UInt64, width: Int) {
        guard let destination = room(8) else { return }
        // All eight bytes are stored; the output then moves on by `width`.
        destination.storeBytes(of: (value << UInt64(64 - width * 8)).bigEndian, as: UInt64.self)
        length += width
    }

    private func writeBytes(_ source: UnsafeRawBufferPointer) {
        guard !source.isEmpty, let base = source.baseAddress, let destination = room(source.count) else {
            return
        }
        destination.copyMemory(from: base, byteCount: source.count)
        length += source.count
    }

    // MARK: Objects

    /// Adds a string given as UTF-8: ASCII as marker `0x5n`, anything else as UTF-16BE (`0x6n`).
    func addString(utf8 text: UnsafeBufferPointer<UInt8>) -> Int {
        let object = beginObject()
        if BinaryPropertyListScanner.isASCII(text) {
            writeHeader(0x50, count: text.count)
            writeBytes(UnsafeRawBufferPointer(text))
        } else {
            let units = Array(String(decoding: text, as: UTF8.self).utf16)
            writeHeader(0x60, count: units.count)
            guard let destination = room(units.count * 2) else { return object }
            for (position, unit) in units.enumerated() {
                destination.storeBytes(of: unit.bigEndian, toByteOffset: position * 2, as: UInt16.self)
            }
            length += units.count * 2
        }
        return object
    }

    /// Adds an integer in the widths Apple's writer uses: 1, 2 or 4 bytes unsigned, 8 bytes
    /// signed, 16 bytes beyond `Int64.max`.
    func addInteger(_ value: PropertyListInteger) -> Int {
        let object = beginObject()
        if let unsigned = value.uint64Value, unsigned <= UInt64(Int64.max) {
            BinaryPropertyListWidth.withWidth(toHold: unsigned) { width in
                writeByte(BinaryPropertyListWidth.integerMarker(width: width))
                writeBigEndian(unsigned, width: width)
            }
        } else if let signed = value.int64Value {
            writeByte(0x13)
            writeBigEndian(UInt64(bitPattern: signed), width: 8)
        } else {
            writeByte(0x14)
            writeBigEndian(UInt64(bitPattern: value.high), width: 8)
            writeBigEndian(value.low, width: 8)
        }
        return object
    }

    @inline(__always)
    func addReal(_ value: Double) -> Int {
        let object = beginObject()
        writeByte(0x23)
        writeBigEndian(value.bitPattern, width: 8)
        return object
    }

    /// Adds a date, as seconds since 2001-01-01.
    func addDate(_ seconds: Double) -> Int {
        let object = beginObject()
        writeByte(0x33)
        writeBigEndian(seconds.bitPattern, width: 8)
        return object
    }

    func addBool(_ value: Bool) -> Int {
        let object = beginObject()
        writeByte(value ? 0x09 : 0x08)
        return object
    }

    func addData(_ data: Data) -> Int {
        let object = beginObject()
        writeHeader(0x40, count: data.count)
        data.withUnsafeBytes { writeBytes($0) }
        return object
    }

    /// Adds a UID in 1, 2, 4 or 8 bytes; a small UID added before is that same object.
    @inline(__always)
    func addUID(_ value: UInt64) -> Int {
        if let known = uidObjects.object(of: value) { return known }
        return addNewUID(value)
    }

    @inline(__always)
    private func addNewUID(_ value: UInt64) -> Int {
        let object = beginObject()
        BinaryPropertyListWidth.withWidth(toHold: value) { width in
            writeByte(BinaryPropertyListWidth.uidMarker(width: width))
            writeBigEndian(value, width: width)
        }
        uidObjects.remember(object, for: value, below: sharedUIDLimit)
        return object
    }

    /// Adds an array of objects added before.
    @inline(__always)
    func addArray(_ elements: UnsafeBufferPointer<UInt32>) -> Int {
        let object = beginObject()
        writeHeader(0xA0, count: elements.count)
        writeReferences(elements)
        return object
    }

    /// Adds a dictionary of objects added before (as many keys as values).
    func addDictionary(keys: UnsafeBufferPointer<UInt32>, values: UnsafeBufferPointer<UInt32>) -> Int {
        let object = beginObject()
        let count = min(keys.count, values.count)
        writeHeader(0xD0, count: count)
        // Keys, then values, in one pass.
        guard let keyReferences = keys.baseAddress, let valueReferences = values.baseAddress,
            let destination = room(count * 2 * Self.referenceSize)
        else { return object }
        let valuesOffset = count &* Self.referenceSize
        for position in 0..<count {
            let offset = position &* Self.referenceSize
            destination.storeBytes(
                of: keyReferences[position].bigEndian, toByteOffset: offset, as: UInt32.self)
            destination.storeBytes(
                of: valueReferences[position].bigEndian, toByteOffset: valuesOffset &+ offset, as: UInt32.self
            )
        }
        length += 2 &* valuesOffset
        return object
    }

    @inline(__always)
    private func writeReferences(_ references: UnsafeBufferPointer<UInt32>) {
        guard let source = references.baseAddress,
            let destination = room(references.count * Self.referenceSize)
        else { return }
        var offset = 0
        for position in 0..<references.count {
            destination.storeBytes(of: source[position].bigEndian, toByteOffset: offset, as: UInt32.self)
            offset &+= 4
        }
        length += references.count * Self.referenceSize
    }

    // MARK: Reading back

    /// The integer an object holds, if it is one.
    func integerValue(of object: Int) -> PropertyListInteger? {
        guard let encoded = encoded(object), let marker = encoded.first else { return nil }
        let available = encoded.count - 1
        func bigEndian(_ from: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(UInt64(0)) { $0 << 8 | UInt64(encoded[1 + from + $1]) }
        }
        switch marker {
        case 0x10, 0x11, 0x12:
            let width = 1 << Int(marker & 0x0F)
            return available >= width ? PropertyListInteger(bigEndian(0, width)) : nil
        case 0x13:
            return available >= 8 ? PropertyListInteger(Int64(bitPattern: bigEndian(0, 8))) : nil
        case 0x14:
            guard available >= 16 else { return nil }
            return PropertyListInteger(high: Int64(bitPattern: bigEndian(0, 8)), low: bigEndian(8, 8))
        default:
            return nil
        }
    }

    /// The text of a string object, for messages.
    func stringValue(of object: Int) -> String? {
        guard let encoded = encoded(object), let marker = encoded.first,
            let (count, start) = try? encoded.withUnsafeBytes({
                try BinaryPropertyListCountHeader.read(marker, at: 0, in: $0, end: $0.count)
            })
        else { return nil }
        switch marker & 0xF0 {
        case 0x50:
            guard encoded.count - start >= count else { return nil }
            return String(decoding: encoded[start..<start + count], as: Unicode.ASCII.self)
        case 0x60:
            guard (encoded.count - start) / 2 >= count else { return nil }
            let units = (0..<count).map {
                UInt16(encoded[start + 2 * $0]) << 8 | UInt16(encoded[start + 2 * $0 + 1])
            }
            return String(decoding: units, as: UTF16.self)
        default:
            return nil
        }
    }

    /// An object's bytes, marker first, up to the next object (or the end).
    private func encoded(_ object: Int) -> [UInt8]? {
        guard offsets.indices.contains(object), let bytes else { return nil }
        let start = Int(offsets[object])
        let end = object + 1 < offsets.count ? Int(offsets[object + 1]) : length
        guard start < end, end <= length else { return nil }
        return Array(UnsafeRawBufferPointer(start: bytes + start, count: end - start))
    }

    // MARK: Finishing

    /// Appends the offset table and trailer and hands the bytes over; the writer is empty
    /// afterwards.
    ///
    /// - Throws: `invalidValue` when `topObject` does not exist; `limitExceeded` when the
    ///   output passes 4 GB or 4 billion objects, or memory ran out.
    func finish(topObject: Int) throws -> Data {
        guard !tooLarge else {
            throw KeyedArchiveError(
                .limitExceeded, "the binary property list would pass 4 GB or \(UInt32.max) objects")
        }
        guard !outOfMemory else { throw outOfMemoryError() }
        guard offsets.indices.contains(topObject) else {
            throw KeyedArchiveError(
                .invalidValue, "top object \(topObject) does not exist (\(offsets.count) objects)")
        }
        let tableOffset = length
        guard let table = room(offsets.count * 4 + BinaryPropertyListTrailer.size) else {
            throw outOfMemoryError()
        }
        for (position, offset) in offsets.enumerated() {
            table.storeBytes(of: offset.bigEndian, toByteOffset: position * 4, as: UInt32.self)
        }
        length += offsets.count * 4
        // Trailer: 5 unused bytes, the sort version, the offset size, the reference size,
        // then the object count, top object and offset-table offset as 8-byte integers.
        for _ in 0..<6 { writeByte(0) }
        writeByte(4)
        writeByte(UInt8(Self.referenceSize))
        writeBigEndian(UInt64(offsets.count), width: 8)
        writeBigEndian(UInt64(topObject), width: 8)
        writeBigEndian(UInt64(tableOffset), width: 8)
        guard !tooLarge, !outOfMemory, let bytes else { throw outOfMemoryError() }
        self.bytes = nil
        let data = Data(bytesNoCopy: bytes, count: length, deallocator: .free)
        capacity = 0
        length = 0
        offsets = []
        return data
    }

    private func outOfMemoryError() -> KeyedArchiveError {
        let size = failedLength == Int.max ? "more than \(Int.max)" : "\(failedLength)"
        let limit = failedLength > maximumLength ? " (at most \(maximumLength) are allowed)" : ""
        return KeyedArchiveError(
            .limitExceeded,
            "out of memory for the binary property list: its \(size) bytes\(limit) could not be allocated")
    }
}
