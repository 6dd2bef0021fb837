/// Short ASCII strings built in place, without the standard library's general path.
///
/// A `String` of at most 15 UTF-8 bytes is stored inline in its two words: the bytes in
/// order from the low byte of the first word, then a discriminator in the top byte of the
/// second (`0xE0` for ASCII, `|` the length). `String(unsafeUninitializedCapacity:)`
/// arrives at the same two words after a closure call and a validation pass: about 110
/// instructions a string, against about 30 here (bounds and ASCII checks included), for
/// the keys and short values that make most of an OpenStep file, and the short strings of a
/// binary one. The layout is not public API, so ``isAvailable`` checks once,
/// against strings the standard library builds itself, that it holds on this platform
/// (64-bit, little-endian, this layout); where it does not, callers take the ordinary path.
@usableFromInline package enum SmallText {
    /// Whether ``string(_:from:to:)`` may be used: strings it builds are bit for bit the
    /// ones the standard library builds from the same bytes.
    package static let isAvailable: Bool = {
        guard MemoryLayout<String>.size == 16, MemoryLayout<(UInt64, UInt64)>.size == 16 else { return false }
        for sample in ["", "a", "Count", "CFBundle", "org.example.app", "0123456789:;<=>"] {
            let bytes = Array(sample.utf8)
            let built = bytes.withUnsafeBufferPointer { words(of: $0, from: 0, to: $0.count) }
            // A copy the standard library makes from bytes, not a literal (which it may lay
            // out differently).
            let made = String(decoding: bytes, as: UTF8.self)
            guard let built, unsafeBitCast(made, to: (UInt64, UInt64).self) == built else { return false }
            let text = unsafeBitCast(built, to: String.self)
            guard text == made, text.utf8.count == bytes.count, Array(text.utf8) == bytes else {
                return false
            }
        }
        return true
    }()

    /// The string of `bytes[start..<end]` if it is ASCII and at most 15 bytes, else `nil`.
    /// Only call where ``isAvailable`` is `true`.
    @inline(__always)
    @inlinable package static func string(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
        -> String?
    {
        guard let words = words(of: bytes, from: start, to: end) else { return nil }
        return unsafeBitCast(words, to: String.self)
    }

    /// The two words of the small ASCII string of `bytes[start..<end]`, or `nil` if the
    /// range is longer than 15 bytes, out of bounds, or not ASCII.
    @inline(__always)
    @inlinable static func words(of bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (
        UInt64, UInt64
    )? {
        let count = end &- start
        guard start >= 0, count >= 0, count <= 15, end <= bytes.count else { return nil }
        var low: UInt64 = 0
        var high: UInt64 = 0
        if let base = bytes.baseAddress, start + 16 <= bytes.count {
            // Two whole words, then the bytes past the end masked off.
            let raw = UnsafeRawPointer(base + start)
            low = raw.loadUnaligned(as: UInt64.self)
            high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            if count < 8 {
                low &= (1 &<< UInt64(8 &* count)) &- 1
                high = 0
            } else {
                high &= (1 &<< UInt64(8 &* (count &- 8))) &- 1
            }
        } else {
            // Near the end of the input: byte by byte.
            var index = 0
            while index < count {
                let byte = UInt64(bytes[start + index])
                if index < 8 {
                    low |= byte &<< UInt64(8 &* index)
                } else {
                    high |= byte &<< UInt64(8 &* (index &- 8))
                }
                index += 1
            }
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return (low, high | (0xE0 | UInt64(count)) &<< 56)
    }
}
