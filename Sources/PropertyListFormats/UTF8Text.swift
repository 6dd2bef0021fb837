import KeyedArchiveSupport

/// The rules of UTF-8 text that the XML and OpenStep readers share: which bytes are
/// well-formed, how a scalar is written, and where a byte offset is for a person (line
/// and column).
enum UTF8Text {
    /// A `String` of UTF-8 bytes (ill-formed sequences repaired as `String(decoding:as:)`
    /// repairs them), copied in by `String(unsafeUninitializedCapacity:)`: measured 3% faster
    /// than `String(decoding:as:)` reading small documents, whose strings are mostly short.
    /// The checked path of ``WellFormedUTF8/string(from:to:)``, for a range that cuts a
    /// character.
    @inline(__always)
    static func string(copying bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return "" }
        return String(unsafeUninitializedCapacity: bytes.count) { output in
            guard let target = output.baseAddress else { return 0 }
            target.initialize(from: source, count: bytes.count)
            return bytes.count
        }
    }

    /// Appends the UTF-8 form of a Unicode scalar value (the caller guarantees it is one).
    @inline(__always)
    static func append(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            output.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }

    /// The offset of the first byte that does not begin a well-formed UTF-8 sequence
    /// (overlong forms, surrogates and values beyond U+10FFFF included), or `nil`.
    ///
    /// - Complexity: O(*n*), up to 32 ASCII bytes at a time.
    static func firstInvalid(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        let high: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while index < count {
            if base[index] >= 0x80 {
                // A run of non-ASCII text is checked scalar after scalar, one byte test apart.
                guard let next = scalarEnd(base, at: index, count: count) else { return index }
                index = next
            } else if index + 8 <= count {
                // ASCII: the next eight bytes as one word (first byte lowest), all skipped, or
                // up to the first high byte. Text that interleaves scripts costs a word test a
                // switch of script, not a test a byte.
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let highBits = word & high
                guard highBits == 0 else {
                    index += highBits.trailingZeroBitCount &>> 3
                    continue
                }
                index += 8
                // Long ASCII runs, almost all of a property list, 32 bytes at a time.
                while index + 32 <= count {
                    let chunk = UnsafeRawPointer(base + index)
                    let combined =
                        chunk.loadUnaligned(as: UInt64.self)
                        | chunk.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                        | chunk.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                        | chunk.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                    guard combined & high == 0 else { break }
                    index += 32
                }
            } else {
                index += 1
            }
        }
        return nil
    }

    /// The offset after the well-formed UTF-8 sequence at `index` (which is before
    /// `count`), or `nil` if none starts there.
    @inline(__always)
    private static func scalarEnd(_ base: UnsafePointer<UInt8>, at index: Int, count: Int) -> Int? {
        let lead = base[index]
        if lead < 0x80 { return index + 1 }
        if lead < 0xC2 { return nil }
        if lead < 0xE0 {
            guard index + 1 < count, base[index + 1] & 0xC0 == 0x80 else { return nil }
            return index + 2
        } else if lead < 0xF0 {
            guard index + 2 < count else { return nil }
            let second = base[index + 1]
            guard second & 0xC0 == 0x80, base[index + 2] & 0xC0 == 0x80 else { return nil }
            if lead == 0xE0 && second < 0xA0 { return nil }  // overlong
            if lead == 0xED && second >= 0xA0 { return nil }  // surrogate
            return index + 3
        } else if lead < 0xF5 {
            guard index + 3 < count else { return nil }
            let second = base[index + 1]
            guard second & 0xC0 == 0x80, base[index + 2] & 0xC0 == 0x80, base[index + 3] & 0xC0 == 0x80
            else { return nil }
            if lead == 0xF0 && second < 0x90 { return nil }  // overlong
            if lead == 0xF4 && second >= 0x90 { return nil }  // beyond U+10FFFF
            return index + 4
        } else {
            return nil
        }
    }

    /// The one-based line and column (in Unicode scalars) of `offset`, counting LF, CR and
    /// CR LF as line breaks.
    ///
    /// - Complexity: O(`offset`); only used to report errors.
    static func location(
        of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0
    ) -> KeyedArchiveError.Location {
        var line = 1
        var column = 1
        var index = start
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte == 0x0D {
                line += 1
                column = 1
                if index + 1 < end, bytes[index + 1] == 0x0A { index += 1 }
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return .text(line: line, column: column)
    }
}

/// Bytes that ``UTF8Text/firstInvalid(in:from:)`` found well-formed UTF-8 from first to
/// last, and the one place strings are built without the standard library validating their
/// bytes again (``unchecked(_:isASCII:)``; each entry says what vouches for its bytes).
///
/// A reader that validated its whole input builds each string from a range of it; the
/// standard library's `String(decoding:as:)` would validate those bytes a second time (11%
/// of reading a small OpenStep document of non-ASCII text, callgrind). A range of
/// well-formed UTF-8 that neither starts nor ends inside a character is well-formed too,
/// and that is checked for every range (two byte tests), so ``string(from:to:)`` is safe
/// whatever range it is given: one that cuts a character is built by the checked path.
/// (See "Unsafe code" in `Documentation/Internals.md`: unchecked UTF-8, allowed in this
/// module only.)
struct WellFormedUTF8 {
    /// The bytes, all well-formed UTF-8.
    let bytes: UnsafeBufferPointer<UInt8>

    /// Whether every byte is known to be ASCII (then any range of them is too).
    let isKnownASCII: Bool

    /// `bytes`, when they are well-formed UTF-8 from first to last; `nil` otherwise.
    init?(validating bytes: UnsafeBufferPointer<UInt8>) {
        guard UTF8Text.firstInvalid(in: bytes, from: 0) == nil else { return nil }
        self.bytes = bytes
        isKnownASCII = false
    }

    /// `bytes`, which the caller read and found all ASCII (no byte with its high bit set):
    /// the XML reader's quick scan of text (`XMLPropertyListParser.quickTextEnd`), which
    /// ORs every byte of the text into one word on its way to the `<`. Not checked here but
    /// in builds with assertions (the fuzzers).
    init(ascii bytes: UnsafeBufferPointer<UInt8>) {
        assert(BinaryPropertyListScanner.isASCII(bytes), "text the quick scan found ASCII")
        self.bytes = bytes
        isKnownASCII = true
    }

    /// The text of `bytes[start..<end]`.
    ///
    /// - Complexity: O(*n*): the bytes are copied once and looked at once (for the string's
    ///   ASCII flag), not validated again.
    @inline(__always)
    func string(from start: Int, to end: Int) -> String {
        guard start >= 0, start < end, end <= bytes.count else { return "" }
        let range = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if isKnownASCII { return Self.unchecked(range, isASCII: true) }
        // A continuation byte (10xxxxxx) at either end means the range cuts a character.
        guard bytes[start] & 0xC0 != 0x80, end == bytes.count || bytes[end] & 0xC0 != 0x80 else {
            return UTF8Text.string(copying: range)
        }
        let isASCII = BinaryPropertyListScanner.isASCII(range)
        return Self.unchecked(range, isASCII: isASCII)
    }

    /// A `String` of `bytes` if they are all ASCII (which is well-formed UTF-8), found by
    /// one scan here, not validated again by the standard library; `nil` otherwise. The
    /// binary reader's ASCII string objects of more than 15 bytes.
    @inline(__always)
    static func string(ifASCII bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard BinaryPropertyListScanner.isASCII(bytes) else { return nil }
        guard !bytes.isEmpty else { return "" }
        return unchecked(bytes, isASCII: true)
    }

    /// A `String` of the UTF-8 that the OpenStep reader's escape decoding wrote
    /// (`OpenStepParser.parseEscapedString`), not validated again.
    ///
    /// Well-formed by construction: that buffer (empty when a string starts: emptied after
    /// each string, and a string that throws leaves the empty one swapped in) holds runs of
    /// the reader's validated input, each starting just after an ASCII byte (the opening
    /// quote, a backslash, an escape's last digit or letter) and ending at one (a backslash
    /// or the closing quote), so whole characters; and scalars written by `UTF8Text.append`
    /// (octal escapes through the NeXTSTEP table, whose entries are not surrogates, `\U`
    /// units with a lone surrogate replaced by U+FFFD, control letters). The ASCII flag
    /// comes from a scan here. `OpenStepFastPathTests` compares such strings, with every
    /// kind of escape among text of several scripts, with the expected text and checks them
    /// well-formed and flagged ASCII exactly when they are; the fuzzers, built with
    /// assertions on, check every one.
    @inline(__always)
    static func string(unescaped bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard !bytes.isEmpty else { return "" }
        assert(UTF8Text.firstInvalid(in: bytes, from: 0) == nil, "the escape buffer holds well-formed UTF-8")
        let isASCII = BinaryPropertyListScanner.isASCII(bytes)
        return unchecked(bytes, isASCII: isASCII)
    }

    /// A `String` of the UTF-8 that the binary reader's UTF-16 transcoder wrote
    /// (`BinaryPropertyListScanner.string(_:)`), not validated again.
    ///
    /// One of the two sources of unchecked strings whose bytes are not checked here (the
    /// other is ``string(unescaped:)``): that loop
    /// writes each unit below 0x80 as one byte, below 0x800 as two, any other non-surrogate
    /// as three, and a high surrogate only when a low one follows, as four (a lone surrogate
    /// throws), which is well-formed UTF-8 by construction; `isASCII` is whether every unit was below 0x80.
    /// `BinaryUTF16WritingTests` and `BinaryPropertyListTests` compare its strings with the
    /// standard library's decoding of random UTF-16, lone surrogates included.
    @inline(__always)
    static func string(transcodedFromUTF16 bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String {
        guard !bytes.isEmpty else { return "" }
        return unchecked(bytes, isASCII: isASCII)
    }

    /// A `String` of `bytes`, not validated by the standard library: the one unchecked
    /// construction, for the four above, each of which answers for `bytes` being
    /// well-formed UTF-8 (see each) and for `isASCII` saying whether they are all ASCII.
    @inline(__always)
    private static func unchecked(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String {
        String(copying: unsafe UTF8Span(unchecked: bytes.span, isKnownASCII: isASCII))
    }
}
