/// Big-endian integers and SQLite varints read from byte arrays. Callers check the range
/// first; these functions index the array directly.
extension Array where Element == UInt8 {
    @inline(__always)
    func bigEndian16(at offset: Int) -> Int {
        Int(self[offset]) << 8 | Int(self[offset + 1])
    }

    @inline(__always)
    func bigEndian32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }

    /// The varint at `offset` and its length in bytes (1–9), or nil when it would pass `end`.
    ///
    /// A varint is up to eight bytes of seven bits each (high bit set: more follows), then
    /// at most one byte of eight bits.
    @inline(__always)
    func varint(at offset: Int, end: Int) -> (value: UInt64, length: Int)? {
        guard offset >= 0, offset < end, end <= count else { return nil }
        let first = self[offset]
        if first < 0x80 { return (UInt64(first), 1) }
        var value: UInt64 = 0
        var index = offset
        while index < end {
            let byte = self[index]
            if index - offset == 8 {
                return (value << 8 | UInt64(byte), 9)
            }
            value = value << 7 | UInt64(byte & 0x7f)
            index += 1
            if byte < 0x80 { return (value, index - offset) }
        }
        return nil
    }
}

/// The number of bytes a value of serial type `type` takes in a record's body, or nil for
/// the reserved types 10 and 11.
@inline(__always)
func serialTypeLength(_ type: UInt64) -> Int? {
    switch type {
    case 0, 8, 9: return 0
    case 1: return 1
    case 2: return 2
    case 3: return 3
    case 4: return 4
    case 5: return 6
    case 6, 7: return 8
    case 10, 11: return nil
    default:
        // At most 2^63 / 2: a varint of nine bytes gives lengths that no page count reaches,
        // and callers compare them with what is left.
        return Int(truncatingIfNeeded: (type - 12) >> 1)
    }
}
