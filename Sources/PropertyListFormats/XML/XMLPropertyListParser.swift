import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The scanner behind ``XMLPropertyListReader``, which hands each value to an
/// ``XMLValueBuilder``. Every read of `bytes` is
/// preceded by a check against `count`.
struct XMLPropertyListParser {
    enum Tag: UInt8, CaseIterable {
        case plist, array, dict, key, string, data, date, real, integer, `true`, `false`

        /// The name's bytes packed little-endian, as ``XMLPropertyListParser/packedName(_:)`` makes them.
        @inline(__always)
        var packedName: UInt64 {
            switch self {
            case .plist: return 0x74_7369_6C70
            case .array: return 0x79_6172_7261
            case .dict: return 0x7463_6964
            case .key: return 0x79_656B
            case .string: return 0x676E_6972_7473
            case .data: return 0x6174_6164
            case .date: return 0x6574_6164
            case .real: return 0x6C61_6572
            case .integer: return 0x72_6567_6574_6E69
            case .true: return 0x6575_7274
            case .false: return 0x65_736C_6166
            }
        }

        @inline(__always)
        var nameLength: Int {
            switch self {
            case .key: return 3
            case .dict, .data, .date, .real, .true: return 4
            case .plist, .array, .false: return 5
            case .string: return 6
            case .integer: return 7
            }
        }

        var name: String {
            switch self {
            case .plist: return "plist"
            case .array: return "array"
            case .dict: return "dict"
            case .key: return "key"
            case .string: return "string"
            case .data: return "data"
            case .date: return "date"
            case .real: return "real"
            case .integer: return "integer"
            case .true: return "true"
            case .false: return "false"
            }
        }
    }

    enum Markup {
        case start(Tag, isEmpty: Bool, offset: Int)
        case end(Tag, offset: Int)
    }

    /// An open `<array>` or `<dict>`: its children sit on the shared value (and key) stacks
    /// from these positions.
    struct Frame {
        let tag: Tag
        let offset: Int
        let valueStart: Int
        let keyStart: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let count: Int
    let start: Int
    let maximumDepth: Int
    let valueBudget: Int
    var index: Int
    var valuesBuilt = 0
    /// Whether values laid out as writers lay them out are read by the quick path.
    var readsQuickly = true
    /// The bytes the quick reading read (and checked), when it read the value.
    var quicklyRead: Range<Int>?
    /// The end of the root element, once read: the document stops there.
    var documentEnd = 0
    /// The markup that ended the root element: `</plist>`, `</dict>`, `<true/>`.
    var rootEnd = ""
    /// The first byte after the root element (and the whitespace, comments and processing
    /// instructions after it) when there is one: it and all after it are ignored.
    var ignoredStart: Int?
    var scratch: [UInt8] = []
    /// The last UID read in the compact form: where its text starts (right after `<dict>`,
    /// -1 before the first), the length up to its digits, and where and how long its text
    /// after the digits is (`</integer>`, whitespace, `</dict>`). The next UID usually has
    /// the same bytes around its digits, which are then compared rather than read again.
    var lastUID = (start: -1, headLength: 0, tailStart: 0, tailLength: 0)

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int, maximumDepth: Int, valueBudget: Int) {
        self.bytes = bytes
        self.count = bytes.count
        self.start = start
        self.index = start
        self.maximumDepth = maximumDepth
        self.valueBudget = valueBudget
    }

    // MARK: - Encoding

    /// Checks that every character starting in `bytes[lower..<upper]` is valid UTF-8 (the
    /// last one may run past `upper`).
    ///
    /// - Throws: `corruptData` naming the first such byte and its line and column.
    func validateText(from lower: Int, to upper: Int) throws {
        guard lower < upper else { return }
        // A character is at most four bytes: one that starts before `upper` is whole here.
        let range = UnsafeBufferPointer(rebasing: bytes[lower..<min(count, upper + 3)])
        guard let found = UTF8Text.firstInvalid(in: range, from: 0), lower + found < upper else {
            return
        }
        let invalid = lower + found
        throw KeyedArchiveError(
            .corruptData, "invalid UTF-8 (byte 0x\(hexByte(bytes[invalid])))",
            at: UTF8Text.location(of: invalid, in: bytes, from: start))
    }

    // MARK: - Document

    mutating func parseDocument<Builder: XMLValueBuilder>(into builder: inout Builder) throws -> Builder.Value
    {
        var sawDoctype = false
        // Prolog: declaration, comments, processing instructions, one DOCTYPE.
        while true {
            skipWhitespace()
            guard index < count else {
                throw failure(
                    index == start ? "the input is empty" : "unexpected end of input, expected <plist>",
                    at: index)
            }
            guard bytes[index] == UInt8(ascii: "<") else {
                throw failure("unexpected \(describe(at: index)), expected <plist>", at: index)
            }
            if matches("<?", at: index) {
                try skipProcessingInstruction(checkingDeclaration: true)
            } else if matches("<!--", at: index) {
                try skipComment()
            } else if matches("<!DOCTYPE", at: index) {
                guard !sawDoctype else { throw failure("a second DOCTYPE declaration", at: index) }
                sawDoctype = true
                try skipDoctype()
            } else if matches("<!", at: index) {
                throw unexpectedDeclaration(in: nil)
            } else if matches("</", at: index) {
                throw failure("unexpected \(describe(at: index)), expected <plist>", at: index)
            } else {
                break
            }
        }

        let root = try readStartTag()
        let value: Builder.Value
        if case .start(.plist, let isEmpty, let offset) = root {
            guard !isEmpty else {
                throw failure("empty <plist/>: a property list holds one value", at: offset)
            }
            let first = try nextMarkup(closing: .plist)
            guard case .start = first else {
                throw failure("empty <plist>: expected a value, found </plist>", at: offset)
            }
            value = try parseValueTryingQuickly(first, into: &builder)
            let after = try nextMarkup(closing: .plist)
            if case .start(let tag, _, let extraOffset) = after {
                throw failure(
                    "unexpected <\(tag.name)>, expected </plist>: a property list holds exactly one value",
                    at: extraOffset)
            }
            rootEnd = "</plist>"
        } else {
            value = try parseValueTryingQuickly(root, into: &builder)
            if case .start(let tag, let isEmpty, _) = root {
                rootEnd = isEmpty ? "<\(tag.name)/>" : "</\(tag.name)>"
            }
        }
        documentEnd = index

        // The document ends here, as CoreFoundation reads it. Whitespace, comments and
        // processing instructions may follow in XML; anything else is ignored (a signature
        // appended to a signed configuration file, for instance).
        while true {
            skipWhitespace()
            guard index < count else { return value }
            let position = index
            if matches("<!--", at: position), (try? skipComment()) != nil { continue }
            if matches("<?", at: position),
                (try? skipProcessingInstruction(checkingDeclaration: false)) != nil
            {
                continue
            }
            index = position
            ignoredStart = position
            return value
        }
    }

    // MARK: - Values

    /// Builds the value that starts with `first` (a start tag) with `builder`, iterating
    /// with an explicit stack of open containers.
    mutating func parseValue<Builder: XMLValueBuilder>(
        _ first: Markup, into builder: inout Builder
    ) throws -> Builder.Value {
        var frames: [Frame] = []
        var markup = first
        while true {
            var value: Builder.Value
            switch markup {
            case .start(let tag, let isEmpty, let offset):
                if let frame = frames.last, frame.tag == .dict,
                    builder.keyCount - frame.keyStart == builder.valueCount - frame.valueStart
                {
                    // A dictionary expecting its next key.
                    guard tag == .key else {
                        throw failure("unexpected <\(tag.name)>, expected <key> or </dict>", at: offset)
                    }
                    if isEmpty {
                        builder.pushKey(UnsafeBufferPointer(start: nil, count: 0), readable: 0)
                    } else {
                        try readText(closing: .key) { builder.pushKey($0, readable: $0.count) }
                    }
                    markup = try nextMarkup(closing: .dict)
                    continue
                }
                switch tag {
                case .array, .dict:
                    if isEmpty {
                        value = tag == .array ? builder.emptyArray() : builder.emptyDictionary()
                    } else {
                        guard frames.count < maximumDepth else {
                            throw failure(
                                "nesting deeper than \(maximumDepth) levels", at: offset, code: .limitExceeded
                            )
                        }
                        if tag == .dict, let uid = readCompactUID() {
                            // Counted as the general path counts it: the integer, then the UID.
                            valuesBuilt += 1
                            value = builder.uid(uid)
                        } else {
                            frames.append(
                                Frame(
                                    tag: tag, offset: offset, valueStart: builder.valueCount,
                                    keyStart: builder.keyCount))
                            builder.open(dictionary: tag == .dict)
                            markup = try nextMarkup(closing: tag)
                            continue
                        }
                    }
                case .string:
                    if isEmpty {
                        value = builder.string(UnsafeBufferPointer(start: nil, count: 0))
                    } else {
                        value = try readText(closing: .string) { builder.string($0) }
                    }
                case .integer:
                    value = builder.integer(try readInteger(isEmpty: isEmpty, offset: offset))
                case .real:
                    value = builder.real(try readReal(isEmpty: isEmpty, offset: offset))
                case .date:
                    value = builder.date(try readDate(isEmpty: isEmpty, offset: offset))
                case .data:
                    value = try readData(isEmpty: isEmpty) { builder.data($0) }
                case .true, .false:
                    if !isEmpty { try expectEndTag(tag) }
                    value = builder.bool(tag == .true)
                case .key:
                    if let frame = frames.last, frame.tag == .dict,
                        let key = builder.key(at: builder.keyCount - 1)
                    {
                        throw missingValue(forKey: key, found: "<key>", at: offset)
                    }
                    throw failure("unexpected <key> outside a <dict>", at: offset)
                case .plist:
                    throw failure("unexpected <plist> inside a value", at: offset)
                }
            case .end(_, let offset):
                // `nextMarkup(closing:)` has checked that the tag closes the innermost frame.
                guard let frame = frames.popLast() else {
                    throw failure("unexpected \(describe(at: offset))", at: offset)
                }
                if frame.tag == .array {
                    value = builder.array(from: frame.valueStart)
                } else {
                    guard builder.keyCount - frame.keyStart == builder.valueCount - frame.valueStart else {
                        throw missingValue(
                            forKey: builder.key(at: builder.keyCount - 1) ?? "", found: "</dict>", at: offset)
                    }
                    // A dictionary whose only entry (after duplicates are merged, as
                    // CoreFoundation decides it) is `CF$UID` with an integer is a UID.
                    switch builder.dictionary(keysFrom: frame.keyStart, valuesFrom: frame.valueStart) {
                    case .value(let dictionary):
                        value = dictionary
                    case .uidOutOfRange(let number):
                        throw failure(
                            "CF$UID \(number) is out of range (0 through \(UInt64.max))", at: frame.offset,
                            code: .valueOutOfRange)
                    }
                }
            }
            valuesBuilt += 1
            if valuesBuilt > valueBudget {
                throw failure(
                    "more than \(valueBudget) values for an input of this size", at: index,
                    code: .limitExceeded)
            }
            guard let parent = frames.last else { return value }
            builder.push(value)
            markup = try nextMarkup(closing: parent.tag)
        }
    }

    /// Reads the rest of a UID written as every writer writes one, right after its opening
    /// `<dict>`: `<key>CF$UID</key>`, `<integer>` holding 1 to 19 decimal digits, and
    /// `</dict>`, separated by whitespace only. Returns the number and moves past `</dict>`;
    /// anything else returns `nil` without moving, for the general path to read (or explain).
    ///
    /// Keyed archives hold a UID for every reference; reading them this way skips building
    /// a key, an integer and a dictionary for each.
    mutating func readCompactUID() -> UInt64? {
        guard let base = bytes.baseAddress else { return nil }
        let start = index
        let (previous, headLength, previousTail, tailLength) = lastUID
        // The bytes before and after the digits equal those of the last UID read, which
        // were checked: the same whitespace and tags, so the same reading.
        if previous >= 0, count - start >= headLength &+ 8,
            Self.equalBytes(base + start, base + previous, count: headLength)
        {
            let digitsStart = start &+ headLength
            let values = UInt64(
                littleEndian: UnsafeRawPointer(base + digitsStart).loadUnaligned(as: UInt64.self))
            if let (number, digitCount) = Self.decimalDigits(values) {
                let tailStart = digitsStart &+ digitCount
                if count - tailStart >= tailLength,
                    Self.equalBytes(base + tailStart, base + previousTail, count: tailLength)
                {
                    index = tailStart &+ tailLength
                    return number
                }
            }
        }
        return readCompactUIDInFull()
    }

    /// Whether the `count` bytes (at least 8) at `first` and `second` are equal, a word at a time.
    @inline(__always)
    private static func equalBytes(_ first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>, count: Int)
        -> Bool
    {
        let first = UnsafeRawPointer(first)
        let second = UnsafeRawPointer(second)
        var offset = 0
        while count &- offset > 8 {
            guard
                first.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == second.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset &+= 8
        }
        // The last word ends with the last byte (and may overlap the one before).
        return first.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            == second.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
    }

    /// The number written by the decimal digits at the start of `word` (its bytes in
    /// memory order, little-endian) and how many there are (1 to 8); `nil` when it starts
    /// with no digit.
    @inline(__always)
    private static func decimalDigits(_ word: UInt64) -> (number: UInt64, count: Int)? {
        // Each byte's value less '0', and a high nibble bit set in each byte that is not a
        // digit (a carry out of one only reaches bytes after the first that is not a digit,
        // which are not used).
        let values = word ^ 0x3030_3030_3030_3030
        let notDigits = ((values &+ 0x0606_0606_0606_0606) | values) & 0xF0F0_F0F0_F0F0_F0F0
        let digitCount = notDigits.trailingZeroBitCount >> 3
        guard digitCount > 0 else { return nil }
        // The digits moved to the top bytes (the first, most significant, lowest), then
        // combined in pairs, fours and eights.
        var number = values << UInt64((8 &- digitCount) &* 8)
        number = (number &* 10 &+ (number >> 8)) & 0x00FF_00FF_00FF_00FF
        number = (number &* 100 &+ (number >> 16)) & 0x0000_FFFF_0000_FFFF
        number = (number &* 10000 &+ (number >> 32)) & 0xFFFF_FFFF
        return (number, digitCount)
    }

    /// ``readCompactUID()`` for a UID whose bytes differ from the last one's: read in full,
    /// and remembered for the next.
    @inline(never)
    private mutating func readCompactUIDInFull() -> UInt64? {
        guard let base = bytes.baseAddress else { return nil }
        let start = index
        // Bytes are compared a word at a time, little-endian: `load(at:)` needs 8 bytes.
        @inline(__always) func load(at position: Int) -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
        }
        // The low `length` bytes (1 to 8) of a word.
        @inline(__always) func mask(_ length: Int) -> UInt64 {
            length >= 8 ? ~0 : (1 << UInt64(length &* 8)) &- 1
        }
        // The indentation before `<key>`: writers indent `<integer>` the same and `</dict>`
        // one tab less, which is compared as one word with it (bytes skipped as whitespace,
        // then a `<`: exactly where skipping stops) rather than skipped byte by byte.
        let indentation = index
        var position = skippingWhitespace(from: index)
        let indentationLength = position - indentation
        // `<key>CF$UID</key>` (17 bytes), then whitespace and `<integer>`.
        guard count - position >= 17, load(at: position) == 0x2446_433E_7965_6B3C,  // "<key>CF$"
            load(at: position + 8) == 0x7965_6B2F_3C44_4955,  // "UID</key"
            base[position + 16] == UInt8(ascii: ">")
        else { return nil }
        position += 17
        // The same indentation again: one word compared with the first.
        if indentationLength > 0, indentationLength <= 8, count - position > 8,
            (load(at: position) ^ load(at: indentation)) & mask(indentationLength) == 0,
            base[position + indentationLength] == UInt8(ascii: "<")
        {
            position += indentationLength
        } else {
            position = skippingWhitespace(from: position)
        }
        guard count - position >= 9, load(at: position) == 0x7265_6765_746E_693C,  // "<integer"
            base[position + 8] == UInt8(ascii: ">")
        else { return nil }
        position += 9
        let digitsStart = position
        var number: UInt64 = 0
        if count - position >= 8 {
            // Up to eight digits at once.
            guard let (digits, digitCount) = Self.decimalDigits(load(at: position)) else { return nil }
            number = digits
            position += digitCount
        } else {
            while position < count, position - digitsStart < 19 {
                let digit = base[position] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                number = number &* 10 &+ UInt64(digit)
                position += 1
            }
        }
        // `</integer>` (10 bytes), whitespace, `</dict>` (7 bytes).
        let tailStart = position
        guard position > digitsStart, count - position >= 10,
            load(at: position) == 0x6567_6574_6E69_2F3C,  // "</intege"
            base[position + 8] == UInt8(ascii: "r"), base[position + 9] == UInt8(ascii: ">")
        else { return nil }
        position += 10
        // One tab less: the first's bytes but its last.
        if indentationLength > 1, indentationLength <= 9, count - position > 8,
            (load(at: position) ^ load(at: indentation)) & mask(indentationLength - 1) == 0,
            base[position + indentationLength - 1] == UInt8(ascii: "<")
        {
            position += indentationLength - 1
        } else {
            position = skippingWhitespace(from: position)
        }
        guard count - position >= 7,
            UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self)
                == UInt32(littleEndian: 0x6964_2F3C),  // "</di"
            UnsafeRawPointer(base + position + 3).loadUnaligned(as: UInt32.self)
                == UInt32(littleEndian: 0x3E74_6369)  // "ict>"
        else { return nil }
        index = position + 7
        lastUID = (start, digitsStart - start, tailStart, index - tailStart)
        return number
    }

    private mutating func readInteger(isEmpty: Bool, offset: Int) throws -> PropertyListInteger {
        guard !isEmpty else { throw failure("empty <integer>", at: offset) }
        let range = try readPlainContent(of: .integer)
        switch XMLScalarText.parseInteger(bytes, range) {
        case .value(let number): return number
        case .empty: throw failure("empty <integer>", at: offset)
        case .invalid: throw failure("invalid integer \(quoted(range))", at: range.lowerBound)
        case .outOfRange:
            throw failure(
                "integer \(quoted(range)) does not fit in 128 bits", at: range.lowerBound,
                code: .valueOutOfRange)
        }
    }

    private mutating func readReal(isEmpty: Bool, offset: Int) throws -> Double {
        guard !isEmpty else { throw failure("empty <real>", at: offset) }
        let range = try readPlainContent(of: .real)
        switch XMLScalarText.parseReal(bytes, range) {
        case .value(let number): return number
        case .empty: throw failure("empty <real>", at: offset)
        case .invalid: throw failure("invalid real \(quoted(range))", at: range.lowerBound)
        }
    }

    /// The date's seconds since 2001-01-01.
    mutating func readDate(isEmpty: Bool, offset: Int) throws -> Double {
        guard !isEmpty else { throw failure("empty <date>", at: offset) }
        let range = try readPlainContent(of: .date)
        let text = XMLScalarText.trimmed(bytes, range)
        guard !text.isEmpty else { throw failure("empty <date>", at: offset) }
        let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[text]), as: UTF8.self)
        switch ISO8601Date.parse(string) {
        case .seconds(let seconds):
            return seconds
        case .malformed:
            throw failure("invalid date \(quoted(range)), expected YYYY-MM-DDTHH:MM:SSZ", at: text.lowerBound)
        case .impossible(let reason):
            throw failure("impossible date \(quoted(range)): \(reason)", at: text.lowerBound)
        }
    }

    /// Decodes `<data>` and hands the bytes to `body`.
    mutating func readData<R>(isEmpty: Bool, _ body: (Data) -> R) throws -> R {
        guard !isEmpty else { return body(Data()) }
        let range = try readPlainContent(of: .data)
        do {
            return body(try PropertyListBase64.decode(bytes, range))
        } catch .invalidByte(let position) {
            throw failure("invalid base64 \(describe(at: position)) in <data>", at: position)
        } catch .misplacedPadding(let position) {
            throw failure("misplaced '=' padding in <data>", at: position)
        } catch .truncated {
            throw failure("truncated base64 in <data>", at: range.upperBound)
        }
    }

    // MARK: - Text

    /// Reads character data up to the end tag of `tag` (already opened), decoding entities,
    /// character references and CDATA sections and skipping comments and processing
    /// instructions, and hands the text's UTF-8 bytes (valid only during the call) to `body`.
    mutating func readText<R>(closing tag: Tag, _ body: (UnsafeBufferPointer<UInt8>) -> R) throws -> R {
        let contentStart = index
        var position = index
        while position < count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { break }
            position += 1
        }
        if position + 1 < count, bytes[position] == UInt8(ascii: "<"),
            bytes[position + 1] == UInt8(ascii: "/")
        {
            // The common case: plain text straight to the end tag.
            index = position
            _ = try readEndTag(expected: tag)
            return body(UnsafeBufferPointer(rebasing: bytes[contentStart..<position]))
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<position]))
        index = position
        while true {
            guard index < count else {
                throw failure("unexpected end of input, expected </\(tag.name)>", at: index)
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "&") {
                try appendReference()
            } else if byte == UInt8(ascii: "<") {
                if matches("</", at: index) {
                    _ = try readEndTag(expected: tag)
                    return scratch.withUnsafeBufferPointer(body)
                } else if matches("<![CDATA[", at: index) {
                    try appendCDATA()
                } else if matches("<!--", at: index) {
                    try skipComment()
                } else if matches("<?", at: index) {
                    try skipProcessingInstruction(checkingDeclaration: false)
                } else if matches("<!ENTITY", at: index) {
                    throw unexpectedDeclaration(in: tag)
                } else {
                    throw failure("unexpected \(describe(at: index)), expected </\(tag.name)>", at: index)
                }
            } else {
                let runStart = index
                while index < count, bytes[index] != UInt8(ascii: "<"), bytes[index] != UInt8(ascii: "&") {
                    index += 1
                }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            }
        }
    }

    /// Decodes the entity or character reference at `index` (an `&`) into `scratch`.
    private mutating func appendReference() throws {
        let offset = index
        var position = index + 1
        if position < count, bytes[position] == UInt8(ascii: "#") {
            position += 1
            var hexadecimal = false
            if position < count, bytes[position] == UInt8(ascii: "x") {
                hexadecimal = true
                position += 1
            }
            let digitsStart = position
            var scalar: UInt32 = 0
            while position < count, bytes[position] != UInt8(ascii: ";") {
                let byte = bytes[position]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte &- UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where hexadecimal:
                    digit = UInt32(byte &- UInt8(ascii: "a")) + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F") where hexadecimal:
                    digit = UInt32(byte &- UInt8(ascii: "A")) + 10
                default:
                    throw failure("malformed character reference \(referenceText(from: offset))", at: offset)
                }
                guard position - digitsStart < 8 else {
                    throw failure(
                        "character reference \(referenceText(from: offset)) is too long", at: offset)
                }
                scalar = scalar * (hexadecimal ? 16 : 10) + digit
                position += 1
            }
            guard position < count else {
                throw failure("unterminated character reference \(referenceText(from: offset))", at: offset)
            }
            guard position > digitsStart else {
                throw failure("malformed character reference \(referenceText(from: offset))", at: offset)
            }
            guard scalar <= 0x10FFFF, scalar < 0xD800 || scalar > 0xDFFF else {
                throw failure(
                    "character reference \(referenceText(from: offset)) is not a Unicode scalar value",
                    at: offset)
            }
            UTF8Text.append(scalar, to: &scratch)
            index = position + 1
            return
        }
        let nameStart = position
        while position < count, position - nameStart < 32, isNameByte(bytes[position]) { position += 1 }
        guard position < count, bytes[position] == UInt8(ascii: ";"), position > nameStart else {
            throw failure("unterminated entity reference \(referenceText(from: offset))", at: offset)
        }
        let replacement: UInt8
        switch packedName(nameStart..<position) {
        case 0x746C: replacement = UInt8(ascii: "<")  // lt
        case 0x7467: replacement = UInt8(ascii: ">")  // gt
        case 0x70_6D61: replacement = UInt8(ascii: "&")  // amp
        case 0x74_6F75_71: replacement = UInt8(ascii: "\"")  // quot
        case 0x73_6F70_61: replacement = UInt8(ascii: "'")  // apos
        default:
            throw failure("unknown entity \(referenceText(from: offset))", at: offset)
        }
        scratch.append(replacement)
        index = position + 1
    }

    private mutating func appendCDATA() throws {
        let offset = index
        let contentStart = index + 9
        var position = contentStart
        while position + 2 < count {
            if bytes[position] == UInt8(ascii: "]"), bytes[position + 1] == UInt8(ascii: "]"),
                bytes[position + 2] == UInt8(ascii: ">")
            {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<position]))
                index = position + 3
                return
            }
            position += 1
        }
        throw failure("unterminated CDATA section", at: offset)
    }

    /// The bytes of `<integer>`, `<real>`, `<date>` or `<data>` content (no markup allowed),
    /// consuming the end tag.
    private mutating func readPlainContent(of tag: Tag) throws -> Range<Int> {
        let contentStart = index
        let position = nextMarkupStart(from: index)
        index = position
        try expectEndTag(tag)
        return contentStart..<position
    }

    // MARK: - Markup

    /// Skips whitespace, comments and processing instructions in element content and reads
    /// the next tag: a start tag, or the end tag `closing` (any other end tag is an error).
    mutating func nextMarkup(closing expected: Tag) throws -> Markup {
        while true {
            skipWhitespace()
            guard index < count else {
                throw failure("unexpected end of input, expected </\(expected.name)>", at: index)
            }
            guard bytes[index] == UInt8(ascii: "<") else {
                throw failure("unexpected \(describe(at: index)) in <\(expected.name)>", at: index)
            }
            guard index + 1 < count else { throw failure("unexpected end of input after '<'", at: index) }
            switch bytes[index + 1] {
            case UInt8(ascii: "/"):
                return try readEndTag(expected: expected)
            case UInt8(ascii: "?"):
                try skipProcessingInstruction(checkingDeclaration: false)
            case UInt8(ascii: "!"):
                guard matches("<!--", at: index) else { throw unexpectedDeclaration(in: expected) }
                try skipComment()
            default:
                return try readStartTag()
            }
        }
    }

    /// Reads the start tag at `index` (a `<` followed by a name), skipping its attributes.
    mutating func readStartTag() throws -> Markup {
        if let markup = readCompactStartTag() { return markup }
        let offset = index
        var position = index + 1
        guard position < count else { throw failure("unexpected end of input after '<'", at: offset) }
        let nameStart = position
        while position < count, isNameByte(bytes[position]) { position += 1 }
        guard position > nameStart else {
            throw failure("unexpected \(describe(at: offset)), expected an element", at: offset)
        }
        guard let tag = tag(named: nameStart..<position) else {
            throw failure("unknown element <\(displayedName(nameStart..<position))>", at: offset)
        }
        var isEmpty = false
        while true {
            let whitespaceStart = position
            while position < count, XMLScalarText.isWhitespace(bytes[position]) { position += 1 }
            guard position < count else {
                throw failure("unexpected end of input inside the <\(tag.name)> tag", at: offset)
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                break
            }
            if byte == UInt8(ascii: "/") {
                guard position + 1 < count, bytes[position + 1] == UInt8(ascii: ">") else {
                    throw failure("expected '>' after '/' in the <\(tag.name)> tag", at: position)
                }
                isEmpty = true
                position += 2
                break
            }
            // An attribute: name, '=', quoted value. Its value is ignored.
            let attributeStart = position
            while position < count, isNameByte(bytes[position]) { position += 1 }
            let attributeName = attributeStart..<position
            guard !attributeName.isEmpty, attributeStart > whitespaceStart else {
                throw failure("malformed attribute in the <\(tag.name)> tag", at: attributeStart)
            }
            while position < count, XMLScalarText.isWhitespace(bytes[position]) { position += 1 }
            guard position < count, bytes[position] == UInt8(ascii: "=") else {
                throw failure(
                    "expected '=' after attribute \(displayedName(attributeName)) in the <\(tag.name)> tag",
                    at: position)
            }
            position += 1
            while position < count, XMLScalarText.isWhitespace(bytes[position]) { position += 1 }
            guard position < count,
                bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'")
            else {
                throw failure("expected a quoted attribute value in the <\(tag.name)> tag", at: position)
            }
            let quote = bytes[position]
            let valueStart = position
            position += 1
            while position < count, bytes[position] != quote {
                guard bytes[position] != UInt8(ascii: "<") else {
                    throw failure("'<' in an attribute value of the <\(tag.name)> tag", at: position)
                }
                position += 1
            }
            guard position < count else {
                throw failure("unterminated attribute value in the <\(tag.name)> tag", at: valueStart)
            }
            position += 1
        }
        index = position
        return .start(tag, isEmpty: isEmpty, offset: offset)
    }

    /// Reads the start tag at `index` when it is `<name>` or `<name/>` with a known name,
    /// as writers lay them out; otherwise returns `nil` without moving, for the general
    /// path. The name is told by its first bytes and checked whole with one comparison.
    @inline(__always)
    mutating func readCompactStartTag() -> Markup? {
        let offset = index
        // The longest tag, `<integer/>`, is ten bytes; the name is read as one word.
        guard offset + 10 <= count, let base = bytes.baseAddress else { return nil }
        let word = UInt64(littleEndian: UnsafeRawPointer(base + offset + 1).loadUnaligned(as: UInt64.self))
        let tag: Tag
        switch UInt8(truncatingIfNeeded: word) {
        case UInt8(ascii: "k"): tag = .key
        case UInt8(ascii: "s"): tag = .string
        case UInt8(ascii: "i"): tag = .integer
        case UInt8(ascii: "r"): tag = .real
        case UInt8(ascii: "a"): tag = .array
        case UInt8(ascii: "t"): tag = .true
        case UInt8(ascii: "f"): tag = .false
        case UInt8(ascii: "p"): tag = .plist
        case UInt8(ascii: "d"):
            // dict, data, date: the second and fourth bytes tell them apart.
            if UInt8(truncatingIfNeeded: word >> 8) == UInt8(ascii: "i") {
                tag = .dict
            } else {
                tag = UInt8(truncatingIfNeeded: word >> 24) == UInt8(ascii: "a") ? .data : .date
            }
        default: return nil
        }
        let length = tag.nameLength
        guard word & (1 << UInt64(length * 8) &- 1) == tag.packedName else { return nil }
        let end = offset + 1 + length
        switch base[end] {
        case UInt8(ascii: ">"):
            index = end + 1
            return .start(tag, isEmpty: false, offset: offset)
        case UInt8(ascii: "/") where base[end + 1] == UInt8(ascii: ">"):
            index = end + 2
            return .start(tag, isEmpty: true, offset: offset)
        default:
            return nil
        }
    }

    /// Reads the end tag at `index` (`</`), which must close `expected`.
    mutating func readEndTag(expected: Tag) throws -> Markup {
        let offset = index
        var position = index + 2
        // The common case: exactly `</name>`.
        let nameEnd = position + expected.nameLength
        if nameEnd < count, bytes[nameEnd] == UInt8(ascii: ">"),
            packedName(position..<nameEnd) == expected.packedName
        {
            index = nameEnd + 1
            return .end(expected, offset: offset)
        }
        let nameStart = position
        while position < count, isNameByte(bytes[position]) { position += 1 }
        let name = nameStart..<position
        guard tag(named: name) == expected else {
            throw failure("unexpected </\(displayedName(name))>, expected </\(expected.name)>", at: offset)
        }
        while position < count, XMLScalarText.isWhitespace(bytes[position]) { position += 1 }
        guard position < count else {
            throw failure("unexpected end of input inside the </\(expected.name)> tag", at: offset)
        }
        guard bytes[position] == UInt8(ascii: ">") else {
            throw failure(
                "expected '>' to end the </\(expected.name)> tag, found \(describe(at: position))",
                at: position)
        }
        index = position + 1
        return .end(expected, offset: offset)
    }

    private mutating func expectEndTag(_ tag: Tag) throws {
        guard matches("</", at: index) else {
            throw failure("unexpected \(describe(at: index)), expected </\(tag.name)>", at: index)
        }
        _ = try readEndTag(expected: tag)
    }

    private mutating func skipComment() throws {
        let offset = index
        var position = index + 4
        while position + 2 < count {
            if bytes[position] == UInt8(ascii: "-"), bytes[position + 1] == UInt8(ascii: "-"),
                bytes[position + 2] == UInt8(ascii: ">")
            {
                index = position + 3
                return
            }
            position += 1
        }
        throw failure("unterminated comment", at: offset)
    }

    /// Skips `<?…?>`. In the prolog, an XML declaration's encoding is checked.
    private mutating func skipProcessingInstruction(checkingDeclaration: Bool) throws {
        let offset = index
        var position = index + 2
        let targetStart = position
        while position < count, isNameByte(bytes[position]) { position += 1 }
        let target = targetStart..<position
        while position + 1 < count,
            !(bytes[position] == UInt8(ascii: "?") && bytes[position + 1] == UInt8(ascii: ">"))
        {
            position += 1
        }
        guard position + 1 < count else {
            throw failure("unterminated processing instruction", at: offset)
        }
        if checkingDeclaration, target.count == 3, packedName(target) | 0x20_2020 == 0x6C_6D78 {  // "xml"
            try checkEncoding(in: target.upperBound..<position)
        }
        index = position + 2
    }

    /// Refuses an XML declaration whose `encoding` is neither UTF-8 nor UTF-16.
    private func checkEncoding(in range: Range<Int>) throws {
        let keyword: StaticString = "encoding"
        var position = range.lowerBound
        while position + keyword.utf8CodeUnitCount <= range.upperBound {
            if matches(keyword, at: position) { break }
            position += 1
        }
        guard position + keyword.utf8CodeUnitCount <= range.upperBound else { return }
        position += keyword.utf8CodeUnitCount
        while position < range.upperBound, XMLScalarText.isWhitespace(bytes[position]) { position += 1 }
        guard position < range.upperBound, bytes[position] == UInt8(ascii: "=") else {
            throw failure("malformed encoding in the XML declaration", at: position)
        }
        position += 1
        while position < range.upperBound, XMLScalarText.isWhitespace(bytes[position]) { position += 1 }
        guard position < range.upperBound,
            bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'")
        else {
            throw failure("malformed encoding in the XML declaration", at: position)
        }
        let quote = bytes[position]
        let valueStart = position + 1
        position = valueStart
        while position < range.upperBound, bytes[position] != quote { position += 1 }
        guard position < range.upperBound else {
            throw failure("malformed encoding in the XML declaration", at: valueStart)
        }
        let name = text(valueStart..<position).lowercased()
        let supported: Set<String> = ["utf-8", "utf8", "utf-16", "utf-16be", "utf-16le", "us-ascii", "ascii"]
        guard supported.contains(name) else {
            throw failure(
                "unsupported encoding \(DisplayText.quoted(text(valueStart..<position))); only UTF-8 and UTF-16 are supported",
                at: valueStart, code: .unsupportedFormat)
        }
    }

    /// Skips `<!DOCTYPE name PUBLIC "…" "…">` or `SYSTEM "…"`; refuses an internal subset.
    private mutating func skipDoctype() throws {
        let offset = index
        var position = index + 9
        guard position < count, XMLScalarText.isWhitespace(bytes[position]) else {
            throw failure("malformed DOCTYPE declaration", at: offset)
        }
        while position < count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quoteOffset = position
                position += 1
                while position < count, bytes[position] != byte { position += 1 }
                guard position < count else {
                    throw failure(
                        "unterminated quoted identifier in the DOCTYPE declaration", at: quoteOffset)
                }
                position += 1
            case UInt8(ascii: "["):
                throw failure(
                    "internal DTD subsets (and the entity declarations they can hold) are not supported",
                    at: position, code: .unsupportedFormat)
            case UInt8(ascii: ">"):
                index = position + 1
                return
            case UInt8(ascii: "<"):
                throw failure("unterminated DOCTYPE declaration", at: offset)
            default:
                position += 1
            }
        }
        throw failure("unterminated DOCTYPE declaration", at: offset)
    }

    /// The error for `<!` markup that is neither a comment nor allowed here.
    private func unexpectedDeclaration(in parent: Tag?) -> KeyedArchiveError {
        if matches("<!ENTITY", at: index) {
            return failure("entity declarations are not supported", at: index, code: .unsupportedFormat)
        }
        let place = parent.map { " in <\($0.name)>" } ?? ""
        return failure("unexpected \(describe(at: index))\(place)", at: index)
    }

    // MARK: - Bytes

    @inline(__always)
    private mutating func skipWhitespace() {
        index = skippingWhitespace(from: index)
    }

    /// The first position from `position` on that is not whitespace (or `count`).
    @inline(__always)
    func skippingWhitespace(from position: Int) -> Int {
        guard position < count, let base = bytes.baseAddress, base[position] <= 0x20 else { return position }
        var position = position
        // Indentation as writers write it, a line end or tab followed by tabs, is measured a
        // word at a time; whatever follows is checked byte by byte.
        if count - position >= 8, XMLScalarText.isWhitespace(base[position]) {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            // The bytes after the first, tabs made zero.
            let rest = (word ^ 0x0909_0909_0909_0909) >> 8
            position += rest == 0 ? 8 : 1 + rest.trailingZeroBitCount >> 3
        }
        while position < count, XMLScalarText.isWhitespace(base[position]) { position += 1 }
        return position
    }

    @inline(__always)
    private func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"),
            UInt8(ascii: "."), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    /// Whether `literal` occurs at `position`.
    @inline(__always)
    func matches(_ literal: StaticString, at position: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard position >= 0, length <= count - position, let base = bytes.baseAddress else { return false }
        // Eight bytes at a time, then the rest one by one.
        let text = UnsafeRawPointer(base + position)
        let pattern = UnsafeRawPointer(literal.utf8Start)
        var offset = 0
        while length - offset >= 8 {
            guard
                text.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == pattern.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < length {
            guard base[position + offset] == literal.utf8Start[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// Up to eight name bytes packed little-endian into an integer; 0 for longer names.
    @inline(__always)
    private func packedName(_ range: Range<Int>) -> UInt64 {
        let length = range.count
        guard length <= 8 else { return 0 }
        if length > 0, range.lowerBound + 8 <= count, let base = bytes.baseAddress {
            let word = UInt64(
                littleEndian: UnsafeRawPointer(base + range.lowerBound).loadUnaligned(as: UInt64.self))
            return length == 8 ? word : word & (1 << UInt64(length * 8) &- 1)
        }
        var packed: UInt64 = 0
        var shift: UInt64 = 0
        for position in range {
            packed |= UInt64(bytes[position]) << shift
            shift += 8
        }
        return packed
    }

    private func tag(named range: Range<Int>) -> Tag? {
        switch packedName(range) {
        case Tag.key.packedName: return .key
        case Tag.dict.packedName: return .dict
        case Tag.integer.packedName: return .integer
        case Tag.string.packedName: return .string
        case Tag.real.packedName: return .real
        case Tag.array.packedName: return .array
        case Tag.true.packedName: return .true
        case Tag.false.packedName: return .false
        case Tag.data.packedName: return .data
        case Tag.date.packedName: return .date
        case Tag.plist.packedName: return .plist
        default: return nil
        }
    }

    // MARK: - Messages

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// An element or attribute name of the input, for a message: as it is when it is
    /// ASCII and at most 40 bytes, otherwise in quotes, escaped for display and shortened
    /// to 40 scalars (a name may hold any byte from 0x80 up, bidirectional controls too).
    private func displayedName(_ range: Range<Int>) -> String {
        if range.count <= 40, !bytes[range].contains(where: { $0 >= 0x80 }) { return text(range) }
        var end = min(range.upperBound, range.lowerBound + 164)
        while end < range.upperBound, end > range.lowerBound, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return DisplayText.quoted(text(range.lowerBound..<end), maximumScalars: 40)
    }

    /// The trimmed text of `range` in quotes, escaped for display and shortened to 40
    /// scalars.
    private func quoted(_ range: Range<Int>) -> String {
        let trimmed = XMLScalarText.trimmed(bytes, range)
        // 164 bytes, cut back to a character's start, hold at least 41 scalars: enough to
        // tell whether the text is longer than what is shown.
        var end = min(trimmed.upperBound, trimmed.lowerBound + 164)
        while end < trimmed.upperBound, end > trimmed.lowerBound, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return DisplayText.quoted(text(trimmed.lowerBound..<end), maximumScalars: 40)
    }

    private func referenceText(from offset: Int) -> String {
        var end = offset + 1
        while end < count, end - offset < 16, bytes[end] != UInt8(ascii: ";"),
            bytes[end] != UInt8(ascii: "<"),
            !XMLScalarText.isWhitespace(bytes[end])
        {
            end += 1
        }
        if end < count, bytes[end] == UInt8(ascii: ";") { end += 1 }
        while end < count, end > offset, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return text(offset..<end)
    }

    /// Names what stands at `offset`, for messages: `</array>`, `<string>`, `a comment`,
    /// `text "abc"`, `end of input`.
    func describe(at offset: Int) -> String {
        guard offset < count else { return "end of input" }
        if bytes[offset] == UInt8(ascii: "<") {
            if matches("<!--", at: offset) { return "a comment" }
            if matches("<![CDATA[", at: offset) { return "a CDATA section" }
            if matches("<?", at: offset) { return "a processing instruction" }
            var position = offset + 1
            let closing = position < count && bytes[position] == UInt8(ascii: "/")
            let declaration = position < count && bytes[position] == UInt8(ascii: "!")
            if closing || declaration { position += 1 }
            let nameStart = position
            while position < count, position - nameStart < 32, isNameByte(bytes[position]) { position += 1 }
            let name = text(nameStart..<position)
            if declaration { return "<!\(name)" }
            return closing ? "</\(name)>" : "<\(name)>"
        }
        var end = offset
        while end < count, end - offset < 24, bytes[end] != UInt8(ascii: "<"), bytes[end] != 0x0A,
            bytes[end] != 0x0D
        {
            end += 1
        }
        while end < count, end > offset, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        if end == offset { end = min(offset + 1, count) }
        return "text \(DisplayText.quoted(text(offset..<end)))"
    }

    func failure(
        _ message: String, at offset: Int, code: KeyedArchiveError.Code = .corruptData
    ) -> KeyedArchiveError {
        KeyedArchiveError(code, message, at: UTF8Text.location(of: offset, in: bytes, from: start))
    }

    /// A dictionary's last key has no value: `found` stands where the value should be.
    /// Built out of line, away from the parsing loop.
    @inline(never)
    private func missingValue(forKey key: String, found: StaticString, at offset: Int) -> KeyedArchiveError {
        failure("missing value for key \(DisplayText.quoted(key)): found \(found)", at: offset)
    }
}
