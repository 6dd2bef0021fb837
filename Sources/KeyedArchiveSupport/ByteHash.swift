/// A fast seeded hash for the writers' de-duplication tables.
///
/// `Hasher` (SipHash) is built to resist any adversary but costs several times more per
/// short string than this; writers hash every key, string and number they store. This
/// is the folded-multiply construction of wyhash and foldhash: each 64-bit word is mixed
/// with a secret seed through a full 128-bit product. The seed is random per table, so
/// colliding inputs cannot be computed in advance, and the tables probe linearly at a
/// load of at most one half.
@usableFromInline package enum ByteHash {
    @usableFromInline static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
    @usableFromInline static let secondary: UInt64 = 0xBF58_476D_1CE4_E5B9

    /// A random seed for one table.
    @inlinable package static func randomSeed() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next() | 1
    }

    /// Multiplies to 128 bits and folds the halves together.
    @inline(__always)
    @inlinable static func fold(_ first: UInt64, _ second: UInt64) -> UInt64 {
        let product = first.multipliedFullWidth(by: second)
        return product.high ^ product.low
    }

    /// The state of ``hash(_:seed:)`` and ``hashPadded(_:seed:)`` after every whole 16-byte
    /// block of `bytes` (the seed and the length first), and the offset of the 0 to 15 bytes
    /// left after them, which each hashes its own way.
    @inline(__always)
    @inlinable static func blocks(_ bytes: UnsafeRawBufferPointer, seed: UInt64)
        -> (state: UInt64, offset: Int)
    {
        let count = bytes.count
        var state = seed ^ (UInt64(count) &* multiplier)
        var offset = 0
        while count - offset >= 16 {
            let first = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let second = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            state = fold(first ^ state, second ^ secondary)
            offset += 16
        }
        return (state, offset)
    }

    /// Hashes bytes; never 0.
    @inline(__always)
    @inlinable package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> Int {
        var (state, offset) = blocks(bytes, seed: seed)
        let count = bytes.count
        if count - offset >= 8 {
            state = fold(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ state, secondary)
            offset += 8
        }
        if offset < count {
            // The last 1 to 7 bytes in one or two loads, not byte by byte: the last eight
            // bytes (overlapping those hashed) when there are eight, else two overlapping
            // 4-byte loads, or the first, middle and last byte. The length is in the state
            // already, so the overlap loses nothing. Keys are mostly this short.
            let remaining = count - offset
            let tail: UInt64
            if count >= 8 {
                tail = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            } else if remaining >= 4 {
                let low = UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let high = UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
                tail = low | high << 32
            } else {
                tail =
                    UInt64(bytes[offset]) | UInt64(bytes[offset + remaining / 2]) << 8
                    | UInt64(bytes[count - 1]) << 16
            }
            state = fold(tail ^ state, secondary ^ multiplier)
        }
        let result = Int(truncatingIfNeeded: fold(state, multiplier))
        return result == 0 ? 1 : result
    }

    /// Hashes bytes as 16-byte words, the last one filled up with zeros; never 0. For at
    /// most 15 bytes it equals ``hashPadded(first:second:count:seed:)`` of the bytes'
    /// words, so a short string's hash can be taken from its two words where they hold its
    /// bytes in order (a small string's) and from its bytes otherwise, alike.
    @inline(__always)
    @inlinable package static func hashPadded(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> Int {
        let (afterBlocks, offset) = blocks(bytes, seed: seed)
        var state = afterBlocks
        if offset < bytes.count {
            let (first, second) = paddedTail(bytes, from: offset)
            state = fold(first ^ state, second ^ secondary ^ multiplier)
        }
        let result = Int(truncatingIfNeeded: fold(state, multiplier))
        return result == 0 ? 1 : result
    }

    /// The last 1 to 15 bytes of `bytes`, from `offset`, as two little-endian words filled
    /// up with zeros: with loads inside the buffer and shifts (a copy into a zeroed pair of
    /// words was a `memcpy` call a key).
    @inline(__always)
    @inlinable static func paddedTail(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> (UInt64, UInt64) {
        let count = bytes.count
        let remaining = count - offset
        func word(_ at: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        if count >= 16 {
            // The last 16 bytes, shifted right past the `16 - remaining` already hashed.
            let low = word(count - 16)
            let high = word(count - 8)
            let shift = UInt64(8 * (16 - remaining))
            if shift >= 64 { return (high &>> (shift - 64), 0) }
            return (low &>> shift | high &<< (64 - shift), high &>> shift)
        }
        if count >= 8 {
            // The first eight, and the last eight shifted past those among the first.
            return (word(0), remaining == 8 ? 0 : word(count - 8) &>> UInt64(8 * (16 - count)))
        }
        if count >= 4 {
            let low = UInt64(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
            let high = UInt64(
                UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            return (low | (high &>> UInt64(8 * (8 - count))) &<< 32, 0)
        }
        var low: UInt64 = 0
        for index in 0..<count { low |= UInt64(bytes[index]) &<< UInt64(8 * index) }
        return (low, 0)
    }

    /// ``hashPadded(_:seed:)`` of `count` bytes (at most 15) given as two words: the bytes
    /// in memory order, zeros after them.
    @inline(__always)
    @inlinable package static func hashPadded(first: UInt64, second: UInt64, count: Int, seed: UInt64) -> Int
    {
        var state = seed ^ (UInt64(truncatingIfNeeded: count) &* multiplier)
        if count > 0 { state = fold(first ^ state, second ^ secondary ^ multiplier) }
        let result = Int(truncatingIfNeeded: fold(state, multiplier))
        return result == 0 ? 1 : result
    }

    /// Hashes two runs of integers (a dictionary's key and value references); never 0.
    /// Equal values hash alike whatever their integer types.
    @inline(__always)
    @inlinable package static func hash<First: Collection, Second: Collection>(
        _ first: First, _ second: Second, seed: UInt64
    )
        -> Int
    where First.Element: BinaryInteger, Second.Element: BinaryInteger {
        var state = seed ^ (UInt64(first.count) &* multiplier)
        for value in first { state = fold(UInt64(truncatingIfNeeded: value) ^ state, secondary) }
        for value in second { state = fold(UInt64(truncatingIfNeeded: value) ^ state, multiplier) }
        let result = Int(truncatingIfNeeded: fold(state, multiplier))
        return result == 0 ? 1 : result
    }

    /// Whether two byte runs are equal.
    @inline(__always)
    @inlinable package static func equal(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer)
        -> Bool
    {
        guard first.count == second.count else { return false }
        let count = first.count
        var offset = 0
        while count - offset >= 8 {
            guard
                first.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == second.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < count {
            guard first[offset] == second[offset] else { return false }
            offset += 1
        }
        return true
    }
}
