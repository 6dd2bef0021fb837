/// Eight bytes tested at once: the word-at-a-time byte tests the text readers and writers
/// share (looking for the next `<`, `>`, quote or backslash, classifying eight characters).
///
/// A word is eight bytes loaded little-endian, so its first byte is its lowest. A test's
/// result, its *flags*, holds 0x80 in the place of each byte that passed and 0 elsewhere;
/// `flags.trailingZeroBitCount >> 3` is then the offset of the first byte that passed
/// (see ``firstOffset(of:)``).
@usableFromInline package enum ByteWord {
    /// 0x01 in every byte.
    @usableFromInline package static var ones: UInt64 { 0x0101_0101_0101_0101 }
    /// 0x80 in every byte: the flag bits.
    @usableFromInline package static var highBits: UInt64 { 0x8080_8080_8080_8080 }

    /// `byte` in every byte of a word.
    @inline(__always)
    @inlinable package static func repeating(_ byte: UInt8) -> UInt64 { ones &* UInt64(byte) }

    /// The flags of the zero bytes of `word`, of which only the **lowest** is exact: a
    /// borrow out of a zero byte can also flag a 0x01 byte above it. Enough to find the
    /// first match, and so is the lowest flag of several such tests ORed together.
    @inline(__always)
    @inlinable package static func firstZeroByteFlags(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highBits
    }

    /// The flags of the bytes of `low7` from `first` through `last`, every one exact, for a
    /// word whose bytes are all below 0x80 (clear the high bits first: adding up to 0x80 to
    /// such a byte cannot carry into the next) and `first <= last < 0x80`.
    @inline(__always)
    @inlinable package static func bytes(of low7: UInt64, from first: UInt8, through last: UInt8) -> UInt64 {
        let atLeastFirst = low7 &+ ones &* UInt64(0x80 &- first)
        let aboveLast = low7 &+ ones &* UInt64(0x7F &- last)
        return atLeastFirst & ~aboveLast & highBits
    }

    /// The offset in its word of the first byte `flags` marks (8 when none is).
    @inline(__always)
    @inlinable package static func firstOffset(of flags: UInt64) -> Int { flags.trailingZeroBitCount &>> 3 }

    /// The offset of the first `byte` in `bytes` at or after `start` (from 0 through
    /// `bytes.count`), or `bytes.count` if there is none: eight bytes a step while eight
    /// are left, then one by one.
    @inline(__always)
    @inlinable package static func firstOffset(
        of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int
    ) -> Int {
        let count = bytes.count
        var index = start
        if let base = bytes.baseAddress {
            let pattern = repeating(byte)
            while index &+ 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let flags = firstZeroByteFlags(word ^ pattern)
                if flags != 0 { return index &+ firstOffset(of: flags) }
                index &+= 8
            }
        }
        while index < count, bytes[index] != byte { index &+= 1 }
        return index
    }
}
