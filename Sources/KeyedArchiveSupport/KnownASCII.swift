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
        let samples: [(String, Bool)] = [
            ("a", true), ("Count", true), ("0123456789:;<=>", true),
            ("0123456789:;<=>?", true), (String(repeating: "key", count: 20), true),
            ("é", false), ("größe", false), ("説明", false), ("0123456789:;<=>é", false),
            (String(repeating: "説明", count: 20), false), (String(repeating: "k", count: 40) + "é", false),
        ]
        for (sample, ascii) in samples {
            // Copies the standard library makes from bytes, not literals (which it may lay
            // out differently).
            let made = String(decoding: Array(sample.utf8), as: UTF8.self)
            guard flag(made) == ascii else { return false }
        }
        return true
    }()

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
