import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The 32 bytes at the end of a binary property list, validated.
///
/// Validation follows CoreFoundation's `__CFBinaryPlistGetTopLevelInfo`: the header is
/// `bplist0` and any eighth byte (CoreFoundation has read `bplist0?` since Mac OS X 10.6, and
/// swift-foundation tests that `bplist0x` reads; `bplist1…` is the newer format); both sizes are
/// 1 to 8 bytes and wide enough for what they address, there is at least one object, the
/// top object exists, and the file is exactly header, objects, offset table and trailer
/// (nothing between the offset table and the trailer). The 6 bytes before the sizes are
/// unused and ignored, as CoreFoundation does.
@usableFromInline package struct BinaryPropertyListTrailer: Hashable, Sendable {
    /// Bytes per entry of the offset table, 1 to 8.
    @usableFromInline var offsetIntSize: Int
    /// Bytes per object reference inside arrays, sets and dictionaries, 1 to 8.
    @usableFromInline var objectRefSize: Int
    /// Number of objects (entries of the offset table), at least 1.
    @usableFromInline var objectCount: Int
    /// Index of the root object.
    package var topObject: Int
    /// Byte offset of the offset table; objects live in `8..<offsetTableOffset`.
    @usableFromInline var offsetTableOffset: Int

    /// Size of the trailer in bytes.
    static let size = 32

    /// Reads and validates the header and trailer of `bytes`.
    ///
    /// - Throws: `corruptData` naming the field and its byte offset;
    ///   `unsupportedFormat` for the newer `bplist1x` formats.
    package init(validating bytes: UnsafeRawBufferPointer) throws {
        let length = bytes.count
        // Header, at least one object byte, one offset byte, trailer.
        let minimum = 8 + 1 + 1 + Self.size
        guard length >= minimum else {
            throw KeyedArchiveError(
                .corruptData,
                "a binary property list needs at least \(minimum) bytes (header, one object, offset table "
                    + "and trailer), found \(length)",
                at: .byteOffset(0))
        }
        // "bplist0" as the low seven bytes of a little-endian word (length >= 42 here): the
        // generic `starts(with:)` cost about 1% of reading a small file.
        let head = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) & 0x00FF_FFFF_FFFF_FFFF
        guard head == 0x0030_7473_696C_7062 else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            if bytes.starts(with: "bplist1".utf8) {
                throw KeyedArchiveError(
                    .unsupportedFormat,
                    "binary property list version \(DisplayText.quoted(version)) is not supported",
                    at: .byteOffset(6))
            }
            if bytes.starts(with: "bplist".utf8) {
                throw KeyedArchiveError(
                    .corruptData, "unknown binary property list version \(DisplayText.quoted(version))",
                    at: .byteOffset(6))
            }
            throw KeyedArchiveError(.corruptData, "missing \"bplist00\" header", at: .byteOffset(0))
        }
        let start = length - Self.size
        let offsetIntSize = Int(bytes[start + 6])
        let objectRefSize = Int(bytes[start + 7])
        let objectCount = Self.bigEndian64(bytes, start + 8)
        let topObject = Self.bigEndian64(bytes, start + 16)
        let tableOffset = Self.bigEndian64(bytes, start + 24)

        guard (1...8).contains(offsetIntSize) else {
            throw KeyedArchiveError(
                .corruptData, "trailer: offset size \(offsetIntSize) is not between 1 and 8 bytes",
                at: .byteOffset(start + 6))
        }
        guard (1...8).contains(objectRefSize) else {
            throw KeyedArchiveError(
                .corruptData, "trailer: object reference size \(objectRefSize) is not between 1 and 8 bytes",
                at: .byteOffset(start + 7))
        }
        // Every count below is compared with the file length before any multiplication.
        guard objectCount >= 1, objectCount <= UInt64(length) else {
            throw KeyedArchiveError(
                .corruptData,
                "trailer: object count \(objectCount) is impossible in a file of \(length) bytes",
                at: .byteOffset(start + 8))
        }
        guard topObject < objectCount else {
            throw KeyedArchiveError(
                .corruptData, "trailer: top object \(topObject) is not below the object count \(objectCount)",
                at: .byteOffset(start + 16))
        }
        guard tableOffset >= 9, tableOffset < UInt64(start) else {
            throw KeyedArchiveError(
                .corruptData,
                "trailer: offset table at byte \(tableOffset) is outside the object area (bytes 9..<\(start))",
                at: .byteOffset(start + 24))
        }
        let count = Int(objectCount)
        let table = Int(tableOffset)
        let tableEnd = table + count * offsetIntSize  // both factors are at most `length`
        guard tableEnd == start else {
            throw KeyedArchiveError(
                .corruptData,
                "trailer: offset table at byte \(table) with \(count) entries of \(byteCount(offsetIntSize)) ends at "
                    + "byte \(tableEnd), but the trailer starts at byte \(start)",
                at: .byteOffset(start + 24))
        }
        if objectRefSize < 8, UInt64(1) << (8 * objectRefSize) <= objectCount {
            throw KeyedArchiveError(
                .corruptData,
                "trailer: object references of \(byteCount(objectRefSize)) cannot address \(count) objects",
                at: .byteOffset(start + 7))
        }
        if offsetIntSize < 8, UInt64(1) << (8 * offsetIntSize) <= tableOffset {
            throw KeyedArchiveError(
                .corruptData,
                "trailer: offsets of \(byteCount(offsetIntSize)) cannot reach the offset table at byte \(table)",
                at: .byteOffset(start + 6))
        }
        self.offsetIntSize = offsetIntSize
        self.objectRefSize = objectRefSize
        self.objectCount = count
        self.topObject = Int(topObject)
        self.offsetTableOffset = table
    }

    private static func bigEndian64(_ bytes: UnsafeRawBufferPointer, _ position: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }
}

/// "1 byte", "3 bytes".
func byteCount(_ count: Int) -> String { count == 1 ? "1 byte" : "\(count) bytes" }

/// What an object of a binary property list is, from its marker byte.
@usableFromInline package enum BinaryPropertyListKind: UInt8, Hashable, Sendable, CustomStringConvertible {
    case boolean
    case integer
    case real
    case date
    case data
    case asciiString
    case utf16String
    case uid
    case array
    case set
    case dictionary

    package var isContainer: Bool { self == .array || self == .set || self == .dictionary }

    /// The description with its indefinite article, for messages.
    package var withArticle: String {
        switch self {
        case .integer, .array, .asciiString: return "an \(self)"
        default: return "a \(self)"
        }
    }

    @usableFromInline package var description: String {
        switch self {
        case .boolean: return "boolean"
        case .integer: return "integer"
        case .real: return "real"
        case .date: return "date"
        case .data: return "data"
        case .asciiString: return "ASCII string"
        case .utf16String: return "UTF-16 string"
        case .uid: return "UID"
        case .array: return "array"
        case .set: return "set"
        case .dictionary: return "dictionary"
        }
    }
}

/// One object's marker, decoded and bounds-checked: its payload lies entirely within the
/// object area, so reading it needs no further checks.
@usableFromInline package struct BinaryPropertyListObject {
    /// The object's index in the offset table.
    @usableFromInline package var index: Int
    /// The kind, from the marker's high nibble.
    @usableFromInline package var kind: BinaryPropertyListKind
    /// The marker byte.
    @usableFromInline var marker: UInt8
    /// Byte offset of the marker.
    @usableFromInline package var offset: Int
    /// Byte offset of the payload (after the marker and any count integer).
    @usableFromInline var payload: Int
    /// Elements for containers (pairs for dictionaries), bytes for data and ASCII strings,
    /// code units for UTF-16 strings, the width in bytes for numbers, dates and UIDs.
    @usableFromInline package var count: Int

    @inlinable
    init(index: Int, kind: BinaryPropertyListKind, marker: UInt8, offset: Int, payload: Int, count: Int) {
        self.index = index
        self.kind = kind
        self.marker = marker
        self.offset = offset
        self.payload = payload
        self.count = count
    }
}

// The unarchiver reads archives through it from another module, so its raw reads and
// object lookups are inlinable: as calls they cost reading 200 objects 10% more
// instructions (callgrind, `200-objects/read/binary`).
/// Random access to the objects of a validated binary property list held in memory.
///
/// Only ever used inside `withUnsafeBytes` of the buffer it reads. Every method checks
/// what the input could make wrong (offsets, markers, counts against the bytes that
/// remain, references against the object count) and throws `corruptData` naming the
/// object and the byte offset.
@usableFromInline package struct BinaryPropertyListScanner {
    @usableFromInline package let bytes: UnsafeRawBufferPointer
    @usableFromInline let trailer: BinaryPropertyListTrailer
    /// Objects live in `8..<objectsEnd`.
    @usableFromInline package let objectsEnd: Int
    @usableFromInline let base: UnsafeRawPointer
    /// Whether short ASCII strings may be built in place (``SmallText/isAvailable``).
    private let buildsSmallStrings = SmallText.isAvailable

    package init(bytes: UnsafeRawBufferPointer, trailer: BinaryPropertyListTrailer) throws {
        // The trailer must describe exactly these bytes: every read below relies on it.
        let (table, overflow) = trailer.objectCount.multipliedReportingOverflow(by: trailer.offsetIntSize)
        guard let base = bytes.baseAddress, !overflow, trailer.offsetTableOffset >= 9,
            (1...8).contains(trailer.objectRefSize),
            bytes.count - BinaryPropertyListTrailer.size - table == trailer.offsetTableOffset
        else {
            throw KeyedArchiveError(
                .corruptData, "the trailer does not describe this binary property list", at: .byteOffset(0))
        }
        self.bytes = bytes
        self.trailer = trailer
        self.objectsEnd = trailer.offsetTableOffset
        self.base = base
    }

    // MARK: Raw reads (callers have checked the bounds)

    @inlinable @inline(__always)
    package func byte(_ position: Int) -> UInt8 {
        base.load(fromByteOffset: position, as: UInt8.self)
    }

    /// A big-endian unsigned integer of 1 to 8 bytes.
    @inlinable @inline(__always)
    package func unsigned(_ position: Int, width: Int) -> UInt64 {
        switch width {
        case 1: return UInt64(byte(position))
        case 2:
            return UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
        case 3:
            // The offset width of files from 64 KB to 16 MB.
            return UInt64(byte(position)) << 16
                | UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: position + 1, as: UInt16.self)))
        case 4:
            return UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        case 8: return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        default:
            var value: UInt64 = 0
            for index in 0..<width { value = value << 8 | UInt64(byte(position + index)) }
            return value
        }
    }

    /// A big-endian unsigned integer of 1 to 8 bytes that lies before the trailer (an
    /// object reference, an offset table entry), read with one load and a shift: the
    /// trailer's 32 bytes follow every such integer, so the 8 bytes loaded are in the file.
    @inlinable @inline(__always)
    func unsignedBeforeTrailer(_ position: Int, width: Int) -> UInt64 {
        UInt64(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            &>> UInt64(truncatingIfNeeded: 64 - 8 * width)
    }

    // MARK: Objects

    /// The byte offset of object `index`, checked to lie in the object area.
    @inlinable @inline(__always)
    package func offset(of index: Int) throws -> Int {
        guard index >= 0, index < trailer.objectCount else { throw missingObject(index) }
        let entry = trailer.offsetTableOffset + index * trailer.offsetIntSize
        let offset = unsignedBeforeTrailer(entry, width: trailer.offsetIntSize)
        guard offset >= 8, offset < UInt64(objectsEnd) else {
            throw offsetOutsideObjects(index, offset: offset, entry: entry)
        }
        return Int(offset)
    }

    // The errors of the hot, inlined reads are built out of line.

    @usableFromInline @inline(never)
    func missingObject(_ index: Int) -> KeyedArchiveError {
        KeyedArchiveError(
            .corruptData, "object \(index) does not exist (\(trailer.objectCount) objects)",
            at: .byteOffset(trailer.offsetTableOffset))
    }

    @usableFromInline @inline(never)
    func offsetOutsideObjects(_ index: Int, offset: UInt64, entry: Int) -> KeyedArchiveError {
        KeyedArchiveError(
            .corruptData,
            "object \(index): offset \(offset) is outside the object area (bytes 8..<\(objectsEnd))",
            at: .byteOffset(entry))
    }

    @usableFromInline @inline(never)
    func referenceOutOfRange(
        _ container: BinaryPropertyListObject, value: UInt64, position: Int
    ) -> KeyedArchiveError {
        KeyedArchiveError(
            .corruptData,
            "object \(container.index): reference \(value) is out of range (\(trailer.objectCount) objects)",
            at: .byteOffset(position))
    }

    /// Decodes and bounds-checks the marker (and count) of object `index`.
    ///
    /// Inlined for the most frequent objects (short dictionaries, short ASCII strings,
    /// integers up to 8 bytes and UIDs); the others take ``generalObject(_:offset:marker:)``.
    ///
    /// `@inline(always)`: since the scanner is `package`, `@inline(__always)` is only a
    /// hint, and the binary reader's object loop stopped inlining it (callgrind: +4% reading
    /// `mixed-5k` binary).
    @inlinable @inline(always)
    package func object(_ index: Int) throws -> BinaryPropertyListObject {
        let offset = try offset(of: index)
        let marker = byte(offset)
        let low = Int(marker & 0x0F)
        let available = objectsEnd - offset - 1
        switch marker >> 4 {
        case 0xD where low < 0x0F && 2 * low * trailer.objectRefSize <= available:
            // A dictionary of fewer than 15 entries, as objects are: the most frequent
            // object looked up, decoded without the general path's cases.
            return BinaryPropertyListObject(
                index: index, kind: .dictionary, marker: marker, offset: offset, payload: offset + 1,
                count: low)
        case 0x5 where low < 0x0F && low <= available:
            // A short ASCII string (a key, a name): the next most frequent.
            return BinaryPropertyListObject(
                index: index, kind: .asciiString, marker: marker, offset: offset, payload: offset + 1,
                count: low)
        case 0x1 where low <= 3 && 1 << low <= available:
            return BinaryPropertyListObject(
                index: index, kind: .integer, marker: marker, offset: offset, payload: offset + 1,
                count: 1 << low)
        case 0x8 where low < 8 && low + 1 <= available:
            // A UID: most of a keyed archive's references.
            return BinaryPropertyListObject(
                index: index, kind: .uid, marker: marker, offset: offset, payload: offset + 1, count: low + 1)
        default:
            return try generalObject(index, offset: offset, marker: marker)
        }
    }

    /// ``object(_:)`` for every other object, and the errors.
    @usableFromInline @inline(never)
    func generalObject(_ index: Int, offset: Int, marker: UInt8) throws -> BinaryPropertyListObject {
        let low = Int(marker & 0x0F)
        let kind: BinaryPropertyListKind
        var payload = offset + 1
        var count: Int
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08, 0x09:
                return BinaryPropertyListObject(
                    index: index, kind: .boolean, marker: marker, offset: offset, payload: payload, count: 0)
            case 0x00:
                throw KeyedArchiveError(
                    .unsupportedFormat, "object \(index): null (marker 0x00) has no property-list value",
                    at: .byteOffset(offset))
            case 0x0F:
                throw KeyedArchiveError(
                    .corruptData, "object \(index): fill byte 0x0F is not an object", at: .byteOffset(offset))
            default:
                throw unknownMarker(marker, index: index, offset: offset)
            }
        case 0x1:
            guard low <= 4 else {
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(index): integer of \(1 << min(low, 15)) bytes (marker 0x\(hexByte(marker))); "
                        + "only 1, 2, 4, 8 and 16 bytes exist",
                    at: .byteOffset(offset))
            }
            kind = .integer
            count = 1 << low
        case 0x2:
            guard low == 2 || low == 3 else {
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(index): real of \(1 << low) bytes (marker 0x\(hexByte(marker))); only 4 and 8 bytes exist",
                    at: .byteOffset(offset))
            }
            kind = .real
            count = 1 << low
        case 0x3:
            guard marker == 0x33 else { throw unknownMarker(marker, index: index, offset: offset) }
            kind = .date
            count = 8
        case 0x8:
            guard low < 8 else {
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(index): UID of \(low + 1) bytes (marker 0x\(hexByte(marker))); at most 8 are supported",
                    at: .byteOffset(offset))
            }
            kind = .uid
            count = low + 1
        case 0x4, 0x5, 0x6, 0xA, 0xC, 0xD:
            switch marker >> 4 {
            case 0x4: kind = .data
            case 0x5: kind = .asciiString
            case 0x6: kind = .utf16String
            case 0xA: kind = .array
            case 0xC: kind = .set
            default: kind = .dictionary
            }
            do {
                (count, payload) = try BinaryPropertyListCountHeader.read(
                    marker, at: offset, in: bytes, end: objectsEnd)
            } catch {
                throw countError(error, index: index, offset: offset, kind: kind)
            }
            let remaining = objectsEnd - payload
            let unit: Int
            switch kind {
            case .data, .asciiString: unit = 1
            case .utf16String: unit = 2
            case .dictionary: unit = 2 * trailer.objectRefSize
            default: unit = trailer.objectRefSize
            }
            guard count <= remaining / unit else {
                let (needed, overflow) = count.multipliedReportingOverflow(by: unit)
                let what: String
                switch kind {
                case .data, .asciiString, .utf16String: what = "of text or data"
                default: what = "of references"
                }
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(index): \(kind) count \(count) needs \(overflow ? "more than \(Int.max)" : "\(needed)") "
                        + "bytes \(what) but only \(remaining) remain",
                    at: .byteOffset(offset))
            }
            return BinaryPropertyListObject(
                index: index, kind: kind, marker: marker, offset: offset, payload: payload, count: count)
        default:
            throw unknownMarker(marker, index: index, offset: offset)
        }
        guard count <= objectsEnd - payload else {
            throw KeyedArchiveError(
                .corruptData,
                "object \(index): \(kind) of \(count) bytes runs past the object area (ends at byte \(objectsEnd))",
                at: .byteOffset(offset))
        }
        return BinaryPropertyListObject(
            index: index, kind: kind, marker: marker, offset: offset, payload: payload, count: count)
    }

    private func unknownMarker(_ marker: UInt8, index: Int, offset: Int) -> KeyedArchiveError {
        KeyedArchiveError(
            .corruptData, "object \(index): unknown marker 0x\(hexByte(marker))", at: .byteOffset(offset))
    }

    /// The error for a count header that ``BinaryPropertyListCountHeader`` could not read.
    @inline(never)
    private func countError(
        _ failure: BinaryPropertyListCountHeader.Failure, index: Int, offset: Int,
        kind: BinaryPropertyListKind
    ) -> KeyedArchiveError {
        switch failure {
        case .missing:
            return KeyedArchiveError(
                .corruptData, "object \(index): \(kind) count is missing at the end of the object area",
                at: .byteOffset(offset))
        case .notAnInteger(let marker, let position):
            return KeyedArchiveError(
                .corruptData,
                "object \(index): \(kind) count must be an integer of 1, 2, 4 or 8 bytes, found marker "
                    + "0x\(hexByte(marker))",
                at: .byteOffset(position))
        case .truncated(let position):
            return KeyedArchiveError(
                .corruptData, "object \(index): \(kind) count runs past the object area",
                at: .byteOffset(position))
        case .tooLarge(let value, let position):
            return KeyedArchiveError(
                .corruptData, "object \(index): \(kind) count \(value) is too large",
                at: .byteOffset(position))
        }
    }

    /// Reads reference `element` of a container whose references start at `start`.
    @inlinable @inline(__always)
    package func reference(_ container: BinaryPropertyListObject, at element: Int) throws -> Int {
        let position = container.payload + element * trailer.objectRefSize
        let value = unsignedBeforeTrailer(position, width: trailer.objectRefSize)
        guard value < UInt64(trailer.objectCount) else {
            throw referenceOutOfRange(container, value: value, position: position)
        }
        return Int(value)
    }

    // MARK: Scalars

    /// The value of a non-container object.
    package func scalar(_ object: BinaryPropertyListObject) throws -> PropertyList {
        switch object.kind {
        case .boolean:
            return .bool(object.marker == 0x09)
        case .integer:
            return .integer(integer(object))
        case .real:
            if object.count == 4 {
                let bits = UInt32(truncatingIfNeeded: unsigned(object.payload, width: 4))
                return .real(Double(Float(bitPattern: bits)))
            }
            return .real(Double(bitPattern: unsigned(object.payload, width: 8)))
        case .date:
            let seconds = Double(bitPattern: unsigned(object.payload, width: 8))
            guard seconds.isFinite else {
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(object.index): date is \(seconds), not a finite number of seconds",
                    at: .byteOffset(object.offset))
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data:
            return .data(Data(bytes: base + object.payload, count: object.count))
        case .asciiString, .utf16String:
            return .string(try string(object))
        case .uid:
            return .uid(unsigned(object.payload, width: object.count))
        case .array, .set, .dictionary:
            throw KeyedArchiveError(
                .typeMismatch, "object \(object.index): \(object.kind) is not a scalar",
                at: .byteOffset(object.offset))
        }
    }

    /// An integer object: 1, 2 and 4 bytes unsigned, 8 and 16 bytes signed.
    func integer(_ object: BinaryPropertyListObject) -> PropertyListInteger {
        switch object.count {
        case 8:
            return PropertyListInteger(Int64(bitPattern: unsigned(object.payload, width: 8)))
        case 16:
            let high = Int64(bitPattern: unsigned(object.payload, width: 8))
            return PropertyListInteger(high: high, low: unsigned(object.payload + 8, width: 8))
        default:
            return PropertyListInteger(unsigned(object.payload, width: object.count))
        }
    }

    /// The text of a string object.
    ///
    /// ASCII strings with bytes above 0x7F are read as Latin-1, as CoreFoundation does.
    /// UTF-16 strings with a lone surrogate are refused, since `String` cannot hold one.
    package func string(_ object: BinaryPropertyListObject) throws -> String {
        let count = object.count
        if count == 0 { return "" }
        let start = (base + object.payload).assumingMemoryBound(to: UInt8.self)
        if object.kind == .asciiString {
            // At most 15 ASCII bytes: built in the string's inline form (the 16 bytes read
            // from the payload lie before the trailer's end).
            if count <= 15, buildsSmallStrings,
                let text = SmallText.string(
                    bytes.assumingMemoryBound(to: UInt8.self), from: object.payload,
                    to: object.payload + count)
            {
                return text
            }
            let buffer = UnsafeBufferPointer(start: start, count: count)
            if let text = WellFormedUTF8.string(ifASCII: buffer) { return text }
            return String(unsafeUninitializedCapacity: count * 2) { output in
                var written = 0
                for byte in buffer {
                    if byte < 0x80 {
                        output[written] = byte
                        written += 1
                    } else {
                        output[written] = 0xC0 | byte >> 6
                        output[written + 1] = 0x80 | byte & 0x3F
                        written += 2
                    }
                }
                return written
            }
        }
        guard object.kind == .utf16String else {
            throw KeyedArchiveError(
                .typeMismatch, "object \(object.index): \(object.kind) is not a string",
                at: .byteOffset(object.offset))
        }
        let units = base + object.payload
        // Transcoded into scratch space and built without the standard library validating
        // the bytes again: the loop below writes well-formed UTF-8 by construction (see
        // ``WellFormedUTF8/string(transcodedFromUTF16:isASCII:)``).
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count * 3) { output in
            var written = 0
            var unitIndex = 0
            var isASCII = true
            while unitIndex < count {
                let unit = UInt32(
                    UInt16(bigEndian: units.loadUnaligned(fromByteOffset: 2 * unitIndex, as: UInt16.self)))
                if unit < 0x80 {
                    output[written] = UInt8(truncatingIfNeeded: unit)
                    written += 1
                    unitIndex += 1
                    continue
                }
                isASCII = false
                if unit < 0x800 {
                    output[written] = UInt8(truncatingIfNeeded: 0xC0 | unit >> 6)
                    output[written + 1] = UInt8(truncatingIfNeeded: 0x80 | unit & 0x3F)
                    written += 2
                } else if unit & 0xF800 != 0xD800 {
                    output[written] = UInt8(truncatingIfNeeded: 0xE0 | unit >> 12)
                    output[written + 1] = UInt8(truncatingIfNeeded: 0x80 | unit >> 6 & 0x3F)
                    output[written + 2] = UInt8(truncatingIfNeeded: 0x80 | unit & 0x3F)
                    written += 3
                } else {
                    let next =
                        unitIndex + 1 < count
                        ? UInt32(
                            UInt16(
                                bigEndian: units.loadUnaligned(
                                    fromByteOffset: 2 * unitIndex + 2, as: UInt16.self))) : 0
                    guard unit < 0xDC00, next & 0xFC00 == 0xDC00 else {
                        throw KeyedArchiveError(
                            .corruptData,
                            "object \(object.index): UTF-16 string has a lone surrogate 0x"
                                + "\(hexByte(UInt8(truncatingIfNeeded: unit >> 8)))"
                                + "\(hexByte(UInt8(truncatingIfNeeded: unit)))",
                            at: .byteOffset(object.payload + 2 * unitIndex))
                    }
                    let scalar = 0x10000 + ((unit - 0xD800) << 10) + (next - 0xDC00)
                    output[written] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
                    output[written + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F)
                    output[written + 2] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
                    output[written + 3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
                    written += 4
                    unitIndex += 1
                }
                unitIndex += 1
            }
            return WellFormedUTF8.string(
                transcodedFromUTF16: UnsafeBufferPointer(start: output.baseAddress, count: written),
                isASCII: isASCII)
        }
    }

    /// The bytes of a container's references (the keys' references, for a dictionary).
    @inlinable
    package func referenceBytes(_ container: BinaryPropertyListObject) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(
            start: base + container.payload, count: container.count * trailer.objectRefSize)
    }

    /// Whether two string objects hold the same text: the same object, or the same bytes
    /// in the same encoding; an ASCII (Latin-1) and a UTF-16 string, unit by unit.
    package func sameText(_ first: BinaryPropertyListObject, _ second: BinaryPropertyListObject) -> Bool {
        if first.index == second.index { return true }
        guard first.count == second.count else { return false }
        if first.kind == second.kind {
            let length = first.kind == .utf16String ? 2 * first.count : first.count
            return UnsafeRawBufferPointer(start: base + first.payload, count: length)
                .elementsEqual(UnsafeRawBufferPointer(start: base + second.payload, count: length))
        }
        let (ascii, utf16) = first.kind == .asciiString ? (first, second) : (second, first)
        for unit in 0..<ascii.count
        where unsigned(utf16.payload + 2 * unit, width: 2) != UInt64(byte(ascii.payload + unit)) {
            return false
        }
        return true
    }

    /// Whether a string object holds exactly the UTF-8 bytes `key` (which must be ASCII).
    package func asciiStringEquals(_ object: BinaryPropertyListObject, _ key: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        guard object.kind == .asciiString, object.count == key.count else { return false }
        return UnsafeRawBufferPointer(start: base + object.payload, count: key.count)
            .elementsEqual(UnsafeRawBufferPointer(key))
    }

    /// Whether the `key.count` bytes at `bytes` are those of `key`.
    @inline(__always)
    static func bytesEqual(_ bytes: UnsafeRawPointer, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<key.count where bytes.load(fromByteOffset: index, as: UInt8.self) != key[index] {
            return false
        }
        return true
    }

    static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = buffer.baseAddress else { return true }
        let raw = UnsafeRawPointer(start)
        var index = 0
        let count = buffer.count
        while index + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return false
            }
            index += 8
        }
        while index < count {
            if buffer[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }
}

// MARK: - Building values

extension BinaryPropertyListScanner {
    /// Builds the value of object `root` and everything it contains, iteratively.
    ///
    /// Open containers are plain records on a stack; finished children wait on a value
    /// stack (and dictionary keys on a key stack) and are moved, not copied, into their
    /// container when it closes, which keeps reference counting out of the loop.
    ///
    /// An object referenced more than once (a string used as a key everywhere, a subtree
    /// shared by several containers) is built twice at most: on its second reference its
    /// value is kept, and later references reuse it (strings, data and collections share
    /// their storage; an ASCII string of at most 15 bytes, which has no storage, is simply
    /// built again). So memory and time stay proportional to the file's objects and
    /// references, even for a "bomb" whose objects each refer twice to the next. The budget
    /// and the depth limit still count a reused subtree in full, as if it were copied:
    /// whoever walks the value meets it each time.
    ///
    /// - Parameters:
    ///   - maximumDepth: Containers may nest this deep; the root container is level 1.
    ///   - budget: Values that may be built, counting a shared object each time it is reached
    ///     and each dictionary key.
    /// - Throws: `corruptData` for malformed objects, non-string keys and plist-level cycles;
    ///   `limitExceeded` when the depth or the budget is exceeded.
    package func materialize(_ root: Int, maximumDepth: Int, budget: Int) throws -> PropertyList {
        var remaining = budget
        return try materialize(root, maximumDepth: maximumDepth, remaining: &remaining, budget: budget)
    }

    /// Materializes `root` spending from `remaining`, a budget shared by several calls (one
    /// budget for a whole archive, say); `budget` is the whole of it, for the error message.
    package func materialize(
        _ root: Int, maximumDepth: Int, remaining: inout Int, budget: Int,
        context: BinaryPropertyListReadingContext? = nil
    ) throws -> PropertyList {
        let objectCount = trailer.objectCount
        if objectCount <= Self.borrowedBitsLimit {
            // A small file (a document of a few hundred objects): the objects referenced
            // and the open path as bits on the stack, with no allocation.
            let words = BorrowedIndexBits.wordCount(bound: objectCount)
            let value: PropertyList? = try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * words)
            {
                buffer in
                guard let start = buffer.baseAddress, buffer.count >= 2 * words else { return nil }
                buffer.initialize(repeating: 0)
                // The bits themselves, not an `ObjectSet` over them: the check for every
                // reference is then inlined (a twentieth of a small parse's instructions).
                var seen = BorrowedIndexBits(words: start, bound: objectCount)
                var path = ObjectPath(borrowing: BorrowedIndexBits(words: start + words, bound: objectCount))
                return try materialize(
                    root, maximumDepth: maximumDepth, remaining: &remaining, budget: budget, seen: &seen,
                    path: &path, context: context)
            }
            if let value { return value }
        }
        var seen = ObjectSet(objectCount: objectCount)
        var path = ObjectPath(objectCount: objectCount)
        return try materialize(
            root, maximumDepth: maximumDepth, remaining: &remaining, budget: budget, seen: &seen, path: &path,
            context: context)
    }

    /// Files of at most this many objects are materialized with ``BorrowedIndexBits`` on
    /// the stack (512 bytes).
    private static var borrowedBitsLimit: Int { 2048 }

    private func materialize(
        _ root: Int, maximumDepth: Int, remaining: inout Int, budget: Int, seen: inout some ReferencedObjects,
        path: inout ObjectPath, context: BinaryPropertyListReadingContext?
    ) throws -> PropertyList {
        let start = remaining
        let rootObject = try object(root)
        try Self.spend(&remaining, budget: budget, at: rootObject)
        if !rootObject.kind.isContainer { return try scalar(rootObject) }

        try enter(rootObject, depth: 1, path: &path, maximumDepth: maximumDepth)
        // A reused context's stacks are empty; this reader's values start at its bases.
        let values = context?.values ?? Stack<PropertyList>(capacity: 16)
        let keys = context?.keys ?? Stack<String>(capacity: 16)
        let keyTable = context?.keyTable
        let keyLists = context?.keyLists
        let sharedBase = keyLists?.pendingCount ?? 0
        defer { keyLists?.removePending(from: sharedBase) }
        // Objects referenced so far, and the values kept for those referenced again.
        _ = seen.markReferenced(root)
        // Object indices hashed with a multiply, not SipHash: consulted for every key.
        var shared = IndexTable<SharedValue>(keysBelow: trailer.objectCount)
        // The innermost open container, kept out of `parents`.
        var current = OpenContainer(
            object: rootObject, valueBase: values.count, keyBase: keys.count, remainingBefore: start)
        if let keyLists, rootObject.kind == .dictionary {
            current.keysShared = keyLists.match(count: rootObject.count) {
                rawKey(rootObject, at: $0)
            }
        }
        // The open containers start in space on the call stack (no allocation for a
        // document nested at most 16 levels deep).
        return try withUnsafeTemporaryAllocation(of: OpenContainer.self, capacity: 16) { space in
            let parents = Stack(lending: space)
            defer { parents.releaseAll() }
            while true {
                let next = current.next
                let container = current.object
                if next < container.count {
                    current.next = next + 1
                    let childIndex: Int
                    if container.kind == .dictionary {
                        // Keys shared with an earlier dictionary are not read again.
                        if !current.keysShared {
                            let keyIndex = try reference(container, at: next)
                            if let keyTable,
                                let text = try tableKey(keyIndex, position: next, of: container, in: keyTable)
                            {
                                keys.push(text)
                            } else if seen.markReferenced(keyIndex) {
                                if case .string(let text)? = shared[keyIndex]?.value {
                                    keys.push(text)
                                } else {
                                    let text = try key(keyIndex, position: next, of: container)
                                    shared.insert(
                                        SharedValue(value: .string(text), size: 1, height: 0),
                                        forKey: keyIndex)
                                    keys.push(text)
                                }
                            } else {
                                keys.push(try key(keyIndex, position: next, of: container))
                            }
                        }
                        try Self.spend(&remaining, budget: budget, at: container)
                        childIndex = try reference(container, at: container.count + next)
                    } else {
                        childIndex = try reference(container, at: next)
                    }
                    let again = seen.markReferenced(childIndex)
                    if again, let reused = shared[childIndex] {
                        // Counted in full, and checked against the depth limit where it lands.
                        let child = try object(childIndex)
                        remaining -= reused.size
                        guard remaining >= 0 else { throw Self.budgetExceeded(budget, at: child) }
                        if reused.height > 0 {
                            try checkDepth(
                                child, depth: parents.count + 1 + reused.height, maximumDepth: maximumDepth)
                        }
                        current.height = max(current.height, reused.height)
                        values.push(reused.value)
                        continue
                    }
                    let child = try object(childIndex)
                    let remainingBefore = remaining
                    try Self.spend(&remaining, budget: budget, at: child)
                    if child.kind.isContainer {
                        try enter(child, depth: parents.count + 2, path: &path, maximumDepth: maximumDepth)
                        parents.push(current)
                        current = OpenContainer(
                            object: child, valueBase: values.count, keyBase: keys.count,
                            remainingBefore: remainingBefore, keepsValue: again)
                        if let keyLists, child.kind == .dictionary {
                            current.keysShared = keyLists.match(count: child.count) {
                                rawKey(child, at: $0)
                            }
                        }
                    } else {
                        let value = try scalar(child)
                        // Kept for reuse when it holds storage: an ASCII string of at most 15
                        // bytes is stored inline, and building it again is cheaper than a table.
                        if again,
                            (child.kind == .asciiString && child.count > 15) || child.kind == .utf16String
                                || child.kind == .data
                        {
                            shared.insert(SharedValue(value: value, size: 1, height: 0), forKey: childIndex)
                        }
                        values.push(value)
                    }
                } else {
                    path.remove(container.index)
                    let value: PropertyList
                    if container.kind == .dictionary {
                        value = finishDictionary(current, keys: keys, values: values, keyLists: keyLists)
                    } else {
                        value = .array(values.popArray(from: current.valueBase))
                    }
                    let height = current.height + 1
                    if current.keepsValue {
                        shared.insert(
                            SharedValue(
                                value: value, size: current.remainingBefore - remaining, height: height),
                            forKey: container.index)
                    }
                    guard let parent = parents.popLast() else { return value }
                    current = parent
                    current.height = max(current.height, height)
                    values.push(value)
                }
            }
        }
    }

    /// The dictionary `current` whose values (and keys, unless it shares those of an
    /// earlier dictionary, the innermost of `keyLists`' pending matches) are on the stacks,
    /// moved out of them.
    ///
    /// Out of line: the rest of the loop then inlines better (callgrind).
    @inline(never)
    private func finishDictionary(
        _ current: OpenContainer, keys: Stack<String>, values: Stack<PropertyList>,
        keyLists: BinaryPropertyListReadingContext.KeyLists?
    ) -> PropertyList {
        if current.keysShared, let same = keyLists?.popPending() {
            // The keys of a dictionary read before: its keys array and table shared.
            return .dictionary(same.dictionary(values: values.popArray(from: current.valueBase)))
        }
        // Keys and values moved out as two arrays, which usually become the dictionary's
        // storage as they are (no append per entry).
        let keyArray = keys.popArray(from: current.keyBase)
        let dictionary = PropertyListDictionary(
            readKeys: keyArray, values: values.popArray(from: current.valueBase))
        if let keyLists {
            let container = current.object
            keyLists.remember(dictionary, count: container.count) { rawKey(container, at: $0) }
        }
        return .dictionary(dictionary)
    }

    /// A container being read: which object, and where its finished children start on the
    /// value and key stacks.
    private struct OpenContainer {
        let object: BinaryPropertyListObject
        let valueBase: Int
        let keyBase: Int
        /// The budget left before this container was counted; what it spent is its size.
        let remainingBefore: Int
        /// Whether the object was referenced before, so its value is kept for reuse.
        var keepsValue = false
        var next = 0
        /// The nesting levels of the deepest finished child container (0 if none).
        var height = 0
        /// Whether this is a dictionary with the keys of one read before, whose keys and
        /// position table wait among the context's pending key-list matches (see
        /// ``BinaryPropertyListReadingContext/KeyLists``); its keys are then not read.
        var keysShared = false
    }

    /// A finished value kept for objects referenced more than once.
    private struct SharedValue {
        let value: PropertyList
        /// The values it counts for against the budget (itself, its keys and descendants).
        let size: Int
        /// The levels of containers it holds, itself included; 0 for a scalar.
        let height: Int
    }

    /// Throws if a reused container would reach below level `depth` of the limit.
    private func checkDepth(_ container: BinaryPropertyListObject, depth: Int, maximumDepth: Int) throws {
        guard depth <= maximumDepth else {
            throw KeyedArchiveError(
                .limitExceeded,
                "object \(container.index): \(container.kind) nested deeper than the limit of \(maximumDepth) levels",
                at: .byteOffset(container.offset))
        }
    }

    /// Checks that `container` may be opened at nesting level `depth` (the root is 1).
    private func enter(
        _ container: BinaryPropertyListObject, depth: Int, path: inout ObjectPath, maximumDepth: Int
    ) throws {
        guard depth <= maximumDepth else {
            throw KeyedArchiveError(
                .limitExceeded,
                "object \(container.index): \(container.kind) nested deeper than the limit of \(maximumDepth) levels",
                at: .byteOffset(container.offset))
        }
        if path.contains(container.index) {
            throw KeyedArchiveError(
                .corruptData,
                "object \(container.index): \(container.kind) contains itself (plist-level cycles are not allowed)",
                at: .byteOffset(container.offset))
        }
        path.insert(container.index)
    }

    /// Spends one value of `budget` from `remaining` on `object`; the error past the budget.
    /// The rule of every reading of a binary property list that counts values (the tree,
    /// the walk of the streamed conversions, the XML transcoder): shared objects count each
    /// time they are referenced.
    @inline(__always)
    static func spend(_ remaining: inout Int, budget: Int, at object: BinaryPropertyListObject) throws {
        remaining -= 1
        guard remaining >= 0 else { throw budgetExceeded(budget, at: object) }
    }

    static func budgetExceeded(_ budget: Int, at object: BinaryPropertyListObject) -> KeyedArchiveError {
        KeyedArchiveError(
            .limitExceeded,
            "object \(object.index): the property list expands to more than \(budget) values "
                + "(shared objects count each time they are referenced)",
            at: .byteOffset(object.offset))
    }

    /// The string of a dictionary key that is an ASCII string object short enough for
    /// `table`, from the table when it holds it; `nil` for any other key.
    @inline(__always)
    private func tableKey(
        _ index: Int, position: Int, of dictionary: BinaryPropertyListObject,
        in table: BinaryPropertyListReadingContext.KeyTable
    ) throws -> String? {
        let key = try object(index)
        guard key.kind == .asciiString, key.count > 0,
            key.count <= BinaryPropertyListReadingContext.KeyTable.maximumLength
        else { return nil }
        // Up to `maximumLength` bytes from the payload may be read: at least the offset
        // table's byte and the 32-byte trailer follow the object area.
        return try table.text(at: base + key.payload, count: key.count) { try string(key) }
    }

    /// The bytes of key `position` of `dictionary` if it is an ASCII string object of 1
    /// to ``BinaryPropertyListReadingContext/KeyTable/maximumLength`` bytes; `nil` for
    /// any other key, and for a reference or object that is not valid (reading the key
    /// the usual way then reports it).
    @inline(__always)
    func rawKey(_ dictionary: BinaryPropertyListObject, at position: Int) -> BinaryPropertyListReadingContext
        .RawKey?
    {
        guard position >= 0, position < dictionary.count else { return nil }
        let reference = unsignedBeforeTrailer(
            dictionary.payload + position * trailer.objectRefSize, width: trailer.objectRefSize)
        guard reference < UInt64(trailer.objectCount) else { return nil }
        let entry = trailer.offsetTableOffset + Int(reference) * trailer.offsetIntSize
        let offset = unsignedBeforeTrailer(entry, width: trailer.offsetIntSize)
        guard offset >= 8, offset < UInt64(objectsEnd) else { return nil }
        let start = Int(offset)
        let marker = byte(start)
        let count: Int
        let payload: Int
        if marker >> 4 == 0x5, marker & 0x0F != 0x0F {
            count = Int(marker & 0x0F)
            payload = start + 1
        } else if marker == 0x5F, start + 2 < objectsEnd, byte(start + 1) == 0x10 {
            // A count of one byte: strings of 15 to 255 bytes.
            count = Int(byte(start + 2))
            payload = start + 3
        } else {
            return nil
        }
        guard count > 0, count <= BinaryPropertyListReadingContext.KeyTable.maximumLength,
            count <= objectsEnd - payload
        else { return nil }
        // Up to 32 bytes from the payload may be read: at least the offset table's byte and
        // the 32-byte trailer follow the object area.
        return BinaryPropertyListReadingContext.RawKey(base + payload, count: count)
    }

    /// The string of a dictionary key.
    func key(_ index: Int, position: Int, of dictionary: BinaryPropertyListObject) throws -> String {
        let key = try object(index)
        guard key.kind == .asciiString || key.kind == .utf16String else {
            throw KeyedArchiveError(
                .corruptData,
                "object \(dictionary.index): dictionary key \(position) is object \(index), \(key.kind.withArticle); "
                    + "keys must be strings",
                at: .byteOffset(key.offset))
        }
        return try string(key)
    }
}

// MARK: - Key lookup

extension BinaryPropertyListScanner {
    /// The reference of the value under `key` in `dictionary`, comparing key bytes; with
    /// repeated keys, the last wins.
    package func valueReference(forKey key: String, in dictionary: BinaryPropertyListObject) throws -> Int? {
        var key = key
        guard let found = try key.withUTF8({ try position(ofKeyText: $0, in: dictionary) }) else {
            return nil
        }
        return try reference(dictionary, at: dictionary.count + found.position)
    }

    /// The last position of `dictionary` whose key string holds the UTF-8 bytes
    /// `keyBytes`, and the object index of that string. ASCII keys are compared as bytes,
    /// without building strings.
    package func position(
        ofKeyText keyBytes: UnsafeBufferPointer<UInt8>, in dictionary: BinaryPropertyListObject
    )
        throws -> (position: Int, keyIndex: Int)?
    {
        let keyIsASCII = Self.isASCII(keyBytes)
        // Short ASCII key strings are told apart by their marker byte (which holds the
        // length) and bytes, without decoding each object: archives written by Foundation
        // on Linux give every dictionary key strings of its own, so keys are found by text.
        let shortKey = keyIsASCII && keyBytes.count < 15
        let shortMarker = 0x50 | UInt8(truncatingIfNeeded: keyBytes.count)
        var position = dictionary.count
        while position > 0 {
            position -= 1
            let keyIndex = try reference(dictionary, at: position)
            if shortKey {
                let offset = try offset(of: keyIndex)
                let marker = byte(offset)
                if marker >> 4 == 0x5, marker & 0x0F < 0x0F, Int(marker & 0x0F) <= objectsEnd - offset - 1 {
                    if marker == shortMarker && Self.bytesEqual(base + offset + 1, keyBytes) {
                        return (position, keyIndex)
                    }
                    continue
                }
            }
            let candidate = try object(keyIndex)
            let matches: Bool
            if keyIsASCII && candidate.kind == .asciiString {
                matches = asciiStringEquals(candidate, keyBytes)
            } else {
                matches = try key(keyIndex, position: position, of: dictionary).utf8.elementsEqual(keyBytes)
            }
            if matches { return (position, keyIndex) }
        }
        return nil
    }
}

/// The objects referenced so far while materializing: an ``ObjectSet``, or for a small
/// file the ``BorrowedIndexBits`` on the stack directly.
protocol ReferencedObjects {
    /// Inserts `object` (an index below the object count) and returns whether it was there.
    mutating func markReferenced(_ object: Int) -> Bool
}

extension ObjectSet: ReferencedObjects {
    /// Not inlined: inlining an `ObjectSet`'s list and bits into the loop of a large file
    /// cost more than the call (callgrind, an archive of 30,000 objects).
    @inline(never)
    mutating func markReferenced(_ object: Int) -> Bool { insertReportingPresence(object) }
}

extension BorrowedIndexBits: ReferencedObjects {
    @inline(__always)
    func markReferenced(_ object: Int) -> Bool { insertReportingPresence(object) }
}
