/// The count at the start of a data, string, array, set or dictionary object of a binary
/// property list: the marker's low nibble below 15; from 15 on the nibble is `0xF` and an
/// integer object of 1, 2, 4 or 8 bytes holding the count follows the marker.
///
/// The one place that rule is written: ``BinaryPropertyListBuilder`` and
/// ``BinaryPropertyListStream`` write headers with ``write(_:count:appendingBigEndian:)``
/// and ``length(count:)``, and ``BinaryPropertyListScanner`` and the stream read them
/// with ``read(_:at:in:end:)``. (Readers' fast paths for short objects only recognise
/// a low nibble below 15 and leave everything else to the scanner.)
enum BinaryPropertyListCountHeader {
    /// The marker's low nibble that says an integer object with the count follows.
    static let extended: UInt8 = 0x0F

    /// The bytes the header of an object of `count` takes: the marker and, from 15 on, the
    /// integer's marker and its bytes.
    @inline(__always)
    static func length(count: Int) -> Int {
        count < 15 ? 1 : 2 + BinaryPropertyListWidth.bytes(forCount: count)
    }

    /// Writes the header of an object of `count` whose marker's high nibble is `marker`.
    ///
    /// - Parameters:
    ///   - marker: The kind's marker with a zero low nibble (`0x40`, `0x50`, `0x60`, `0xA0`,
    ///     `0xC0` or `0xD0`).
    ///   - count: Bytes, UTF-16 code units, elements or entries; not negative.
    ///   - append: Appends the low `width` bytes of `value`, most significant first. Called
    ///     once with the marker (width 1), then from 15 on with the integer's marker (width
    ///     1) and the count (width 1, 2, 4 or 8). Inlined, the closure costs nothing: under
    ///     callgrind the builder's loads and stores are those of the code it replaced (a
    ///     generic `inout` output instead made it spill more).
    @inline(__always)
    static func write(
        _ marker: UInt8, count: Int, appendingBigEndian append: (_ value: UInt64, _ width: Int) -> Void
    ) {
        guard count >= 15 else {
            append(UInt64(marker | UInt8(truncatingIfNeeded: count)), 1)
            return
        }
        let width = BinaryPropertyListWidth.bytes(forCount: count)
        append(UInt64(marker | extended), 1)
        append(UInt64(0x10 | UInt8(truncatingIfNeeded: width.trailingZeroBitCount)), 1)
        append(UInt64(count), width)
    }

    /// Why a header could not be read.
    enum Failure: Error, Equatable {
        /// The marker says an integer follows, but the bytes end after it.
        case missing
        /// The byte after the marker (at `position`) is not the marker of an integer of 1, 2,
        /// 4 or 8 bytes.
        case notAnInteger(marker: UInt8, position: Int)
        /// The integer's bytes run past the end.
        case truncated(position: Int)
        /// The count does not fit an `Int`.
        case tooLarge(UInt64, position: Int)
    }

    /// Reads the header of the object whose marker is at `offset`.
    ///
    /// - Parameters:
    ///   - marker: The byte at `offset`, which the caller has read to learn the kind.
    ///   - offset: The marker's position.
    ///   - bytes: The bytes holding the object.
    ///   - end: Where the bytes the header may take end (the end of the object area).
    /// - Returns: The count, and the position of the payload (after the marker and any
    ///   count integer). The count is not checked against the bytes that remain.
    /// - Throws: ``Failure`` when the marker's nibble is `0xF` and no valid integer follows.
    @inline(__always)
    static func read(
        _ marker: UInt8, at offset: Int, in bytes: UnsafeRawBufferPointer, end: Int
    ) throws(Failure) -> (count: Int, payload: Int) {
        let low = marker & 0x0F
        guard low == extended else { return (Int(low), offset + 1) }
        return try readInteger(bytes, at: offset + 1, end: end)
    }

    /// Reads the integer object holding a count of 15 or more, at `position`.
    private static func readInteger(
        _ bytes: UnsafeRawBufferPointer, at position: Int, end: Int
    ) throws(Failure) -> (count: Int, payload: Int) {
        guard position < end else { throw .missing }
        let marker = bytes.load(fromByteOffset: position, as: UInt8.self)
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw .notAnInteger(marker: marker, position: position)
        }
        let width = 1 << Int(marker & 0x0F)
        guard width <= end - position - 1 else { throw .truncated(position: position) }
        let value: UInt64
        switch width {
        case 1: value = UInt64(bytes.load(fromByteOffset: position + 1, as: UInt8.self))
        case 2:
            value = UInt64(
                UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: position + 1, as: UInt16.self)))
        case 4:
            value = UInt64(
                UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: position + 1, as: UInt32.self)))
        default: value = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: position + 1, as: UInt64.self))
        }
        guard value <= UInt64(Int.max) else { throw .tooLarge(value, position: position) }
        return (Int(value), position + 1 + width)
    }
}
