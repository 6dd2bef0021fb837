/// Whether a `String` is ASCII, read from the flag the standard library keeps in the string
/// itself, without looking at its bytes.
///
/// The standard library marks every string it builds from ASCII bytes: a small string (at
/// most 15 bytes, inline) in the top byte of its second word (`0xE0`: immortal, ASCII,
/// small), a large one in the top bit of its first word (its count and flags). The layout
/// is not public API, so ``isAvailable`` checks once per process, against strings the
/// standard library builds itself, that both flags read as they should; where they do not,
/// callers take their general path.
/// (See "Unsafe code" in `Documentation/Internals.md`: a layout trick, allowed in this
/// module only.)
@usableFromInline package enum KnownASCII {
    /// Whether ``flag(_:)`` reads the flags; `false` where the layout is not the expected one.
    package static let isAvailable: Bool = {
        guard MemoryLayout<String>.size == 16, MemoryLayout<(UInt64, UInt64)>.size == 16 else { return false }
        // Small and large, ASCII and not: copies the standard library makes from bytes, not
        // literals (which it may lay out differently). Few, short and without new generic
        // types, since every process that reads a dictionary pays for this once.
        func reads(_ bytes: [UInt8], as ascii: Bool) -> Bool {
            flag(String(decoding: bytes, as: UTF8.self)) == ascii
        }
        let large: [UInt8] = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        guard reads(Array(large.suffix(3)), as: true), reads(large, as: true),
            reads(Array("yé".utf8), as: false), reads(large + Array("é".utf8), as: false)
        else { return false }
        return true
    }()

    /// The two words of `text` if it is a small ASCII string (at most 15 bytes, stored
    /// inline), else `nil`. Two small ASCII strings are equal exactly when their words are:
    /// the bytes, zeros after them, and the length. Only meaningful where ``isAvailable``
    /// and ``SmallText/isAvailable`` are `true` (the latter checks that the standard
    /// library's small strings are laid out so).
    @inline(__always)
    @inlinable package static func smallWords(_ text: String) -> (UInt64, UInt64)? {
        let (first, second) = unsafeBitCast(text, to: (UInt64, UInt64).self)
        // Bits 61 (small) and 62 (ASCII) of the second word.
        return second & (0b11 << 61) == 0b11 << 61 ? (first, second) : nil
    }

    /// The number of bytes of a small string, from its second word (as ``smallWords(_:)``
    /// gives it).
    @inline(__always)
    @inlinable package static func smallCount(_ second: UInt64) -> Int {
        Int(truncatingIfNeeded: second &>> 56) & 0x0F
    }

    /// Whether the flag of `text` says ASCII. Only meaningful where ``isAvailable`` is `true`
    /// (read it once, outside a loop).
    @inline(__always)
    @inlinable package static func flag(_ text: String) -> Bool {
        let (first, second) = unsafeBitCast(text, to: (UInt64, UInt64).self)
        // Small: bit 61 of the second word; then its bit 62 is the ASCII flag. Large: bit 63
        // of the first word.
        if second & (1 << 61) != 0 { return second & (1 << 62) != 0 }
        return first & (1 << 63) != 0
    }
}
