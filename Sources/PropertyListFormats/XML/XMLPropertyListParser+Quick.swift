import KeyedArchiveSupport

/// The quick reading of values laid out as writers lay them out.
///
/// Property lists written by Apple's, this package's and Python's writers use a small part
/// of what XML allows: each tag exactly `<name>`, `</name>` or `<name/>`, no comments between
/// values. (Text with references, CDATA or comments is read by the general text reading.) ``XMLPropertyListParser/readValueQuickly(_:into:)``
/// reads that part with fewer checks per tag than the general path
/// (``XMLPropertyListParser/parseValue(_:into:)``), into the same builder. Anything else
/// (an attribute, an entity, a comment, a malformed value, a limit reached) makes it give
/// up, and the general path reads the value again from its start: the general path alone
/// decides what is accepted and what every error says, and the quick reading only ever
/// accepts what the general path would accept, giving the same value.
extension XMLPropertyListParser {
    /// Reads the value that starts with `first`: quickly when it is laid out as writers lay
    /// it out, otherwise (starting over, with a new builder) by the general path.
    mutating func parseValueTryingQuickly<Builder: XMLValueBuilder>(
        _ first: Markup, into builder: inout Builder
    ) throws -> Builder.Value {
        guard readsQuickly else { return try parseValue(first, into: &builder) }
        let restart = (index: index, valuesBuilt: valuesBuilt)
        if let value = readValueQuickly(first, into: &builder) {
            quicklyRead = restart.index..<index
            return value
        }
        index = restart.index
        valuesBuilt = restart.valuesBuilt
        builder.restart(inputLength: count)
        return try parseValue(first, into: &builder)
    }

    /// An open container of the quick reading.
    private struct QuickFrame {
        let isDictionary: Bool
        let valueStart: Int
        let keyStart: Int
    }

    /// The value that starts with `first`, or `nil` as soon as anything falls outside the
    /// quick subset (the builder and the position are then left as they are).
    private mutating func readValueQuickly<Builder: XMLValueBuilder>(
        _ first: Markup, into builder: inout Builder
    ) -> Builder.Value? {
        guard case .start(var tag, var isEmpty, _) = first, let base = bytes.baseAddress else { return nil }
        // The innermost open container apart from the others: read for every value.
        var innermost: QuickFrame?
        var outer: [QuickFrame] = []
        outer.reserveCapacity(16)
        var depth = 0
        var haveStartTag = true
        while true {
            if !haveStartTag {
                // The next markup: an end tag closing the innermost container, a key, or a
                // start tag.
                let position = skippingWhitespace(from: index)
                guard count - position >= 2, base[position] == UInt8(ascii: "<"), let frame = innermost
                else {
                    return nil
                }
                index = position
                let expectingKey =
                    frame.isDictionary
                    && builder.keyCount - frame.keyStart == builder.valueCount - frame.valueStart
                if base[position + 1] == UInt8(ascii: "/") {
                    guard skipEndTag(frame.isDictionary ? .dict : .array) else { return nil }
                    innermost = outer.popLast()
                    depth -= 1
                    let value: Builder.Value
                    if frame.isDictionary {
                        guard expectingKey,
                            case .value(let dictionary) = builder.dictionary(
                                keysFrom: frame.keyStart, valuesFrom: frame.valueStart)
                        else { return nil }
                        value = dictionary
                    } else {
                        value = builder.array(from: frame.valueStart)
                    }
                    switch finish(value, isOutermost: innermost == nil, into: &builder) {
                    case .pushed: continue
                    case .outermost(let done): return done
                    case .overBudget: return nil
                    }
                }
                if expectingKey, count - position >= 16,
                    UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                        & 0xFF_FFFF_FFFF == 0x3E_7965_6B3C  // "<key>"
                {
                    // The key, read in place: its text, `</key>`.
                    let textStart = position + 5
                    var validated: WellFormedUTF8?
                    guard let end = quickTextEnd(from: textStart, validated: &validated) else {
                        index = textStart
                        guard
                            readQuickText(
                                closing: .key, { text, _ in builder.pushKey(text, readable: text.count) })
                                != nil
                        else { return nil }
                        continue
                    }
                    index = end
                    guard skipEndTag(.key) else { return nil }
                    // An ASCII key goes to the builder as bytes (it builds short ones in
                    // place); a non-ASCII one, which the scan validated, as well-formed text
                    // that is not validated again.
                    if let validated, !validated.isKnownASCII {
                        builder.pushKey(wellFormed: validated)
                    } else {
                        builder.pushKey(
                            UnsafeBufferPointer(start: base + textStart, count: end - textStart),
                            readable: count - textStart)
                    }
                    continue
                }
                guard case .start(let nextTag, let nextIsEmpty, _)? = readCompactStartTag() else {
                    return nil
                }
                if expectingKey {
                    guard nextTag == .key else { return nil }
                    if nextIsEmpty {
                        builder.pushKey(UnsafeBufferPointer(start: nil, count: 0), readable: 0)
                    } else {
                        guard
                            readQuickText(
                                closing: .key, { text, _ in builder.pushKey(text, readable: text.count) })
                                != nil
                        else {
                            return nil
                        }
                    }
                    continue
                }
                tag = nextTag
                isEmpty = nextIsEmpty
            }
            haveStartTag = false
            let value: Builder.Value
            switch tag {
            case .dict, .array:
                if isEmpty {
                    value = tag == .array ? builder.emptyArray() : builder.emptyDictionary()
                } else if depth >= maximumDepth {
                    return nil
                } else if tag == .dict, let uid = readCompactUID() {
                    // Counted as the general path counts it: the integer, then the UID.
                    valuesBuilt += 1
                    value = builder.uid(uid)
                } else {
                    if let innermost { outer.append(innermost) }
                    innermost = QuickFrame(
                        isDictionary: tag == .dict, valueStart: builder.valueCount, keyStart: builder.keyCount
                    )
                    depth += 1
                    builder.open(dictionary: tag == .dict)
                    continue
                }
            case .string:
                if isEmpty {
                    value = builder.string(UnsafeBufferPointer(start: nil, count: 0))
                } else {
                    guard
                        let string = readQuickText(
                            closing: .string,
                            { text, wellFormed in
                                wellFormed.map { builder.string(wellFormed: $0) } ?? builder.string(text)
                            })
                    else {
                        return nil
                    }
                    value = string
                }
            case .integer, .real, .date, .data:
                guard let scalar = readQuickScalar(tag, isEmpty: isEmpty, into: &builder) else { return nil }
                value = scalar
            case .true, .false:
                guard isEmpty else { return nil }
                value = builder.bool(tag == .true)
            case .key, .plist:
                return nil
            }
            switch finish(value, isOutermost: innermost == nil, into: &builder) {
            case .pushed: continue
            case .outermost(let done): return done
            case .overBudget: return nil
            }
        }
    }

    /// Reads an `<integer>`, `<real>`, `<date>` or `<data>` value; `nil` for anything the
    /// general path must read.
    ///
    /// Not inlined: kept out of the quick reading's loop, which past a size no longer had its
    /// small helpers inlined (callgrind: calls to `Array.count` and `Tag.nameLength`).
    @inline(never)
    private mutating func readQuickScalar<Builder: XMLValueBuilder>(
        _ tag: Tag, isEmpty: Bool, into builder: inout Builder
    ) -> Builder.Value? {
        switch tag {
        case .integer:
            guard !isEmpty, let range = readQuickContent(closing: .integer),
                case .value(let number) = XMLScalarText.parseInteger(bytes, range)
            else { return nil }
            return builder.integer(number)
        case .real:
            guard !isEmpty, let range = readQuickContent(closing: .real),
                case .value(let number) = XMLScalarText.parseReal(bytes, range)
            else { return nil }
            return builder.real(number)
        case .date:
            guard let seconds = try? readDate(isEmpty: isEmpty, offset: index) else { return nil }
            return builder.date(seconds)
        case .data:
            guard let data = try? readData(isEmpty: isEmpty, { builder.data($0) }) else { return nil }
            return data
        default:
            return nil
        }
    }

    private enum Finished<Value> {
        /// Pushed into the innermost open container.
        case pushed
        /// The value read.
        case outermost(Value)
        /// More values than the budget allows: the general path says so.
        case overBudget
    }

    /// Counts a finished value and pushes it into its container, as the general path does.
    @inline(__always)
    private mutating func finish<Builder: XMLValueBuilder>(
        _ value: Builder.Value, isOutermost: Bool, into builder: inout Builder
    ) -> Finished<Builder.Value> {
        valuesBuilt += 1
        if valuesBuilt > valueBudget { return .overBudget }
        guard !isOutermost else { return .outermost(value) }
        builder.push(value)
        return .pushed
    }

    /// Reads text without markup or references up to `</tag>` and hands its bytes to `body`,
    /// with the same bytes as ``WellFormedUTF8`` when they are not ASCII (validated on the
    /// way; `nil` for ASCII, or text read by the general path); `nil` for anything else
    /// (the general path reads it).
    @inline(__always)
    private mutating func readQuickText<R>(
        closing tag: Tag, _ body: (UnsafeBufferPointer<UInt8>, WellFormedUTF8?) -> R
    ) -> R? {
        let contentStart = index
        var wellFormed: WellFormedUTF8?
        guard let end = quickTextEnd(from: contentStart, validated: &wellFormed) else {
            // References, CDATA or comments in the text: the general text reading (so that
            // one `&amp;` does not send the whole document to the general path), on bytes
            // then checked to be UTF-8 (so `body` is told nothing was validated).
            guard let value = try? readText(closing: tag, { body($0, nil) }),
                UTF8Text.firstInvalid(
                    in: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), from: 0)
                    == nil
            else { return nil }
            return value
        }
        index = end
        guard skipEndTag(tag) else { return nil }
        return body(UnsafeBufferPointer(rebasing: bytes[contentStart..<end]), wellFormed)
    }

    /// Reads the content of `<integer>` or `<real>` up to `</tag>`.
    @inline(__always)
    private mutating func readQuickContent(closing tag: Tag) -> Range<Int>? {
        let contentStart = index
        let position = nextMarkupStart(from: index)
        index = position
        guard skipEndTag(tag) else { return nil }
        return contentStart..<position
    }

    /// The offset of the first `<` at or after `start`, or the input's length: eight
    /// bytes at a time while there are eight.
    @inline(__always)
    func nextMarkupStart(from start: Int) -> Int {
        ByteWord.firstOffset(of: UInt8(ascii: "<"), in: bytes, from: start)
    }

    /// Moves past `</tag>` at `index`, written exactly so; `false` for anything else.
    @inline(__always)
    private mutating func skipEndTag(_ tag: Tag) -> Bool {
        let position = index
        let length = tag.nameLength
        // `</`, the name read as one masked word (names are at most 7 bytes), `>`.
        guard count - position >= 10, let base = bytes.baseAddress else {
            // Near the end of the input: the general reading, once `</` is there.
            return matches("</", at: position) && (try? readEndTag(expected: tag)) != nil
        }
        let raw = UnsafeRawPointer(base + position)
        guard UInt16(littleEndian: raw.loadUnaligned(as: UInt16.self)) == 0x2F3C,
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
                & (1 << UInt64(length &* 8) &- 1) == tag.packedName,
            base[position + 2 + length] == UInt8(ascii: ">")
        else { return false }
        index = position + 3 + length
        return true
    }

    /// The position of the first `<` from `start` on, eight bytes at a time; `nil` when an
    /// `&` comes first, there is none, or the text is not valid UTF-8. The text is put in
    /// `validated` as ``WellFormedUTF8`` so that its string is not validated again: known
    /// ASCII when no byte had its high bit set (seen in passing), else checked here, as the
    /// quick reading reads unchecked input.
    @inline(__always)
    private func quickTextEnd(from start: Int, validated: inout WellFormedUTF8?) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var position = start
        var highBits: UInt64 = 0
        var end = -1
        while count - position >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            // The lowest flag of either test is exact, so the lowest of both is.
            let found =
                ByteWord.firstZeroByteFlags(word ^ ByteWord.repeating(UInt8(ascii: "<")))
                | ByteWord.firstZeroByteFlags(word ^ ByteWord.repeating(UInt8(ascii: "&")))
            if found != 0 {
                let length = ByteWord.firstOffset(of: found)
                // Only the bytes before the delimiter count.
                highBits |= length == 0 ? 0 : word & (1 << UInt64(length &* 8) &- 1)
                position += length
                guard base[position] == UInt8(ascii: "<") else { return nil }
                end = position
                break
            }
            highBits |= word
            position += 8
        }
        if end < 0 {
            while position < count {
                let byte = base[position]
                if byte == UInt8(ascii: "<") { break }
                if byte == UInt8(ascii: "&") { return nil }
                highBits |= UInt64(byte)
                position += 1
            }
            guard position < count else { return nil }
            end = position
        }
        // `start..<end` lies in the input (the loops above stay below `count`).
        let text = UnsafeBufferPointer(start: base + start, count: end - start)
        if highBits & ByteWord.highBits != 0 {
            guard let wellFormed = WellFormedUTF8(validating: text) else { return nil }
            validated = wellFormed
        } else {
            validated = WellFormedUTF8(ascii: text)
        }
        return end
    }
}
