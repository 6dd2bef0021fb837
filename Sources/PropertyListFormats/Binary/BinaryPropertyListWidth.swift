/// The one width rule of the binary format's numbers: integers, UIDs, counts, object
/// references and offsets each take the smallest of 1, 2, 4 and 8 bytes that holds them
/// (integers up to `Int64.max`; negatives are always 8 bytes, larger ones 16). The
/// builder and the stream write with it, the count header and the trailer's sizes too.
enum BinaryPropertyListWidth {
    /// The smallest of 1, 2, 4 and 8 bytes that holds `value`.
    @inline(__always)
    static func bytes(toHold value: UInt64) -> Int {
        withWidth(toHold: value) { $0 }
    }

    /// Calls `body` with the width ``bytes(toHold:)`` gives `value`, from a branch of its
    /// own for each width, so that code writing `width` bytes is compiled for a constant
    /// width (the builder's and stream's hot paths write integers and UIDs this way).
    @inline(__always)
    static func withWidth<R>(toHold value: UInt64, _ body: (Int) -> R) -> R {
        if value < 1 << 8 { return body(1) }
        if value < 1 << 16 { return body(2) }
        if value < 1 << 32 { return body(4) }
        return body(8)
    }

    /// The smallest of 1, 2, 4 and 8 bytes that holds `count` itself (so also every value
    /// below it): a reference size holds the object count, an offset size the offset
    /// table's offset, as plistlib does and CoreFoundation's validation requires.
    @inline(__always)
    static func bytes(forCount count: Int) -> Int {
        bytes(toHold: UInt64(max(0, count)))
    }

    /// The marker of an integer of `width` bytes (1, 2, 4 or 8): `0x10 | log2(width)`.
    @inline(__always)
    static func integerMarker(width: Int) -> UInt8 { 0x10 | UInt8(width.trailingZeroBitCount) }

    /// The marker of a UID of `width` bytes (1, 2, 4 or 8): `0x80 | (width - 1)`.
    @inline(__always)
    static func uidMarker(width: Int) -> UInt8 { 0x80 | UInt8(width - 1) }
}
