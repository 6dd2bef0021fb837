import KeyedArchiveSupport

/// Text for which `String`'s equality (canonical equivalence) is byte equality, so that
/// dictionary keys made of it can be told apart by their bytes.
///
/// `String`'s `==` on two non-ASCII strings walks both through Unicode normalization (about
/// 300 instructions for two short CJK keys), and reading a dictionary checks that its keys
/// are distinct: with non-ASCII keys, a tenth of reading a binary document. A scalar is
/// *stable* here when it is in NFC on its own (Unicode's `NFC_Quick_Check` is Yes: no singleton
/// decomposition, no composition with a character before it) and has canonical combining
/// class 0 (nothing reorders around it). A string of stable scalars only is therefore in NFC,
/// and two strings in NFC are canonically equivalent exactly when their bytes are equal.
///
/// The set is a conservative list of ranges (Latin up to U+02FF, Greek and Cyrillic letters,
/// general punctuation, kana, CJK ideographs, Hangul syllables, variation selectors,
/// pictographs and emoji); a string with any other scalar is simply not stable, and takes
/// `String`'s own comparison. `NormalizationStableTextTests` checks every listed scalar
/// against Foundation's normalization.
enum NormalizationStableText {
    /// Whether `scalar` (a Unicode scalar value) is in the stable set.
    @inline(__always)
    static func isStable(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0..<0x300: return true
        // Greek and Coptic, without the singletons U+0374, U+037E and U+0387.
        case 0x370..<0x374, 0x375..<0x37E, 0x37F..<0x387, 0x388..<0x400: return true
        // Cyrillic and its supplement, without the combining marks U+0483–U+0489.
        case 0x400..<0x483, 0x48A..<0x530: return true
        // General punctuation, without the singletons U+2000 and U+2001.
        case 0x2002..<0x2060: return true
        // Hiragana and katakana, without the combining sound marks U+3099–U+309C.
        case 0x3041..<0x3099, 0x309D..<0x3100: return true
        case 0x4E00..<0xA000: return true  // CJK unified ideographs
        case 0xAC00..<0xD7A4: return true  // Hangul syllables
        case 0xFE00..<0xFE10: return true  // variation selectors
        case 0x1F300..<0x1FB00: return true  // pictographs, emoticons, symbols
        default: return false
        }
    }

    /// What ``kind(of:)`` finds.
    enum Kind {
        case ascii, stable, other
    }

    /// Whether `text` is ASCII, else whether every scalar of it is stable.
    static func kind(of text: String) -> Kind {
        var text = text
        return text.withUTF8 { kind(of: $0) }
    }

    /// Whether `bytes` (valid UTF-8, as a `String` holds) are ASCII, else whether every
    /// scalar of them is stable.
    static func kind(of bytes: UnsafeBufferPointer<UInt8>) -> Kind {
        guard let base = bytes.baseAddress else { return .ascii }
        let count = bytes.count
        var index = 0
        // ASCII eight bytes at a time while there are eight.
        while count - index >= 8 {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        var ascii = true
        while index < count {
            let lead = UInt32(base[index])
            if lead < 0x80 {
                index += 1
                continue
            }
            ascii = false
            // Valid UTF-8: the lead byte gives the length.
            let scalar: UInt32
            if lead < 0xE0 {
                guard index + 1 < count else { return .other }
                scalar = (lead & 0x1F) << 6 | UInt32(base[index + 1]) & 0x3F
                index += 2
            } else if lead < 0xF0 {
                guard index + 2 < count else { return .other }
                scalar =
                    (lead & 0x0F) << 12 | (UInt32(base[index + 1]) & 0x3F) << 6 | UInt32(base[index + 2])
                    & 0x3F
                index += 3
            } else {
                guard index + 3 < count else { return .other }
                scalar =
                    (lead & 0x07) << 18 | (UInt32(base[index + 1]) & 0x3F) << 12
                    | (UInt32(base[index + 2]) & 0x3F) << 6 | UInt32(base[index + 3]) & 0x3F
                index += 4
            }
            guard isStable(scalar) else { return .other }
        }
        return ascii ? .ascii : .stable
    }

    /// Whether `keys`, some not ASCII, are pairwise distinct, decided by their bytes when
    /// every key is stable; `nil` when all are ASCII (`String`'s `==` is quick on those) or
    /// one is not stable (the caller compares with `==`). Only call where
    /// `KnownASCII.isAvailable` is `true`.
    static func areDistinct(_ keys: [String]) -> Bool? {
        var ascii = true
        for key in keys where !KnownASCII.flag(key) {
            switch kind(of: key) {
            case .ascii: break
            case .stable: ascii = false
            case .other: return nil
            }
        }
        if ascii { return nil }
        var index = 1
        while index < keys.count {
            let key = keys[index].utf8
            for earlier in 0..<index {
                let other = keys[earlier].utf8
                if other.count == key.count, other.elementsEqual(key) { return false }
            }
            index += 1
        }
        return true
    }
}
