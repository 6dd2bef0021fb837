import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The parser proper, over validated UTF-8. Every read of `bytes` is preceded by an
/// explicit bounds check.
struct OpenStepParser {
    private let text: WellFormedUTF8
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    private let maximumDepth: Int
    private var remainingValues: Int
    /// The finished values and the keys of the open containers, innermost last: a
    /// container takes its own off the top when it closes, as arrays of exactly its size
    /// (one buffer for the whole parse, not one per container; on the call stack while it
    /// fits, see ``withParser(text:maximumDepth:valueBudget:_:)``).
    private let values: Stack<PropertyList>
    private let keys: Stack<String>
    /// Whether short ASCII strings may be built in place (``SmallText``), read once a parse.
    private let buildsSmallStrings = SmallText.isAvailable
    /// Reused by every quoted string with escapes (see ``parseQuotedString()``).
    private var escapeBuffer: [UInt8] = []

    private init(
        text: WellFormedUTF8, maximumDepth: Int, valueBudget: Int,
        valueSpace: UnsafeMutableBufferPointer<PropertyList>, keySpace: UnsafeMutableBufferPointer<String>
    ) {
        self.text = text
        self.bytes = text.bytes
        self.maximumDepth = maximumDepth
        self.remainingValues = valueBudget
        values = Stack(lending: valueSpace)
        keys = Stack(lending: keySpace)
    }

    /// Runs `body` with a parser over `bytes` whose stacks start on the call stack: a small
    /// file's parse allocates nothing but its values. The stacks are emptied when `body`
    /// returns or throws.
    static func withParser<Result>(
        text: WellFormedUTF8, maximumDepth: Int, valueBudget: Int,
        _ body: (inout OpenStepParser) throws -> Result
    ) throws -> Result {
        // At most 1 KB each: larger temporary allocations ask the system for the stack's
        // bounds first, which costs more than the heap.
        try withUnsafeTemporaryAllocation(
            of: PropertyList.self, capacity: Swift.max(1, 1024 / MemoryLayout<PropertyList>.stride)
        ) { valueSpace in
            try withUnsafeTemporaryAllocation(of: String.self, capacity: 32) { keySpace in
                var parser = OpenStepParser(
                    text: text, maximumDepth: maximumDepth, valueBudget: valueBudget,
                    valueSpace: valueSpace, keySpace: keySpace)
                defer {
                    parser.values.releaseAll()
                    parser.keys.releaseAll()
                }
                return try body(&parser)
            }
        }
    }

    var isAtEnd: Bool { position >= bytes.count }

    /// The character at the current position, for "found …" in messages.
    var found: String { OpenStepText.describeCharacter(at: position, in: bytes) }

    func error(_ message: String, at offset: Int? = nil) -> KeyedArchiveError {
        KeyedArchiveError(
            .corruptData, message, at: UTF8Text.location(of: offset ?? position, in: bytes))
    }

    private func describeLocation(of offset: Int) -> String {
        UTF8Text.location(of: offset, in: bytes).description
    }

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    // MARK: - Structure

    private enum ContainerKind {
        case array
        case dictionary
        /// The brace-less dictionary of a strings file, ended by the end of input.
        case stringsFile
    }

    /// An open array or dictionary: its elements (and keys) are those on the value (and
    /// key) stack from these positions up.
    private struct Frame {
        let kind: ContainerKind
        let openedAt: Int
        let valueBase: Int
        let keyBase: Int
    }

    /// Closes the innermost container, which must be an array.
    private mutating func closeArray(_ stack: Stack<Frame>) -> Step {
        guard let frame = stack.popLast() else { return .completed(.array([])) }
        return .completed(.array(values.popArray(from: frame.valueBase)))
    }

    /// Closes the innermost container, which must be a dictionary; the last of repeated
    /// keys wins.
    private mutating func closeDictionary(_ stack: Stack<Frame>) -> Step {
        guard let frame = stack.popLast() else { return .completed(.dictionary(PropertyListDictionary())) }
        let keyArray = keys.popArray(from: frame.keyBase)
        return .completed(
            .dictionary(
                PropertyListDictionary(readKeys: keyArray, values: values.popArray(from: frame.valueBase))))
    }

    /// Where a value is expected, for the wording of errors.
    private enum ValueContext {
        case topLevel
        case arrayElement
        case dictionaryValue
    }

    private enum Step {
        case value(ValueContext)
        case entry
        case completed(PropertyList)
    }

    /// Parses one value (or, for a strings file, entries up to the end of input),
    /// leaving the position just after it.
    mutating func parse(asStringsFile: Bool) throws -> PropertyList {
        try withUnsafeTemporaryAllocation(of: Frame.self, capacity: 16) { space in
            let stack = Stack<Frame>(lending: space)
            defer { stack.releaseAll() }
            return try parse(asStringsFile: asStringsFile, stack: stack)
        }
    }

    private mutating func parse(asStringsFile: Bool, stack: Stack<Frame>) throws -> PropertyList {
        var step: Step
        if asStringsFile {
            try open(.stringsFile, on: stack)
            step = .entry
        } else {
            step = .value(.topLevel)
        }
        while true {
            // Consumed, so that a finished value moves on without a retain and release.
            switch consume step {
            case .value(let context):
                step = try startValue(context, stack: stack)
            case .entry:
                step = try startEntry(stack: stack)
            case .completed(let value):
                try countValue()
                guard !stack.isEmpty else { return value }
                step = try add(value, to: stack)
            }
        }
    }

    private mutating func open(_ kind: ContainerKind, on stack: Stack<Frame>) throws {
        guard stack.count < maximumDepth else {
            throw KeyedArchiveError(
                .limitExceeded,
                "arrays and dictionaries are nested more than \(maximumDepth) deep (maximumDepth)",
                at: UTF8Text.location(of: position, in: bytes))
        }
        stack.push(Frame(kind: kind, openedAt: position, valueBase: values.count, keyBase: keys.count))
    }

    private mutating func startValue(_ context: ValueContext, stack: Stack<Frame>) throws -> Step {
        try skipWhitespace()
        guard let byte = peek() else { throw expectedValue(context, stack: stack) }
        switch byte {
        case UInt8(ascii: "{"):
            try open(.dictionary, on: stack)
            position += 1
            return .entry
        case UInt8(ascii: "("):
            try open(.array, on: stack)
            position += 1
            return try nextElementOrEnd(stack: stack)
        case UInt8(ascii: "<"):
            return .completed(.data(try parseData()))
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .completed(.string(try parseQuotedString()))
        default:
            guard Self.isUnquotedCharacter(byte) else { throw expectedValue(context, stack: stack) }
            return .completed(.string(parseUnquotedString()))
        }
    }

    private func expectedValue(_ context: ValueContext, stack: Stack<Frame>) -> KeyedArchiveError {
        switch context {
        case .topLevel:
            return error("expected a value, found \(found)")
        case .arrayElement:
            if isAtEnd, let frame = stack.last {
                return unterminated(frame, expecting: "an array element or ')'")
            }
            return error("expected an array element or ')', found \(found)")
        case .dictionaryValue:
            let key = keys[keys.count - 1].map { DisplayText.quoted($0, maximumScalars: 40) } ?? "\"\""
            return error("expected a value after '=' for key \(key), found \(found)")
        }
    }

    private func unterminated(_ frame: Frame, expecting expected: String) -> KeyedArchiveError {
        let name = frame.kind == .array ? "array" : "dictionary"
        return error(
            "unterminated \(name) opened at \(describeLocation(of: frame.openedAt)): "
                + "expected \(expected), found end of input")
    }

    /// At the start of a dictionary entry: a key, or the end of the dictionary.
    private mutating func startEntry(stack: Stack<Frame>) throws -> Step {
        guard let top = stack.last else { throw error("internal error: no open dictionary") }
        let isStringsFile = top.kind == .stringsFile
        while true {
            try skipWhitespace()
            guard let byte = peek() else {
                if isStringsFile { return closeDictionary(stack) }
                throw unterminated(top, expecting: "a key or '}'")
            }
            if byte == UInt8(ascii: "}") && !isStringsFile {
                position += 1
                return closeDictionary(stack)
            }
            let key: String
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                key = try parseQuotedString()
            } else if Self.isUnquotedCharacter(byte) {
                key = parseUnquotedString()
            } else {
                throw error(
                    isStringsFile
                        ? "expected a key or end of input, found \(found)"
                        : "expected a key or '}', found \(found)")
            }
            try skipWhitespace()
            switch peek() {
            case UInt8(ascii: "="):
                position += 1
                keys.push(consume key)
                // A string or data value is read here and the entry finished, without a round
                // trip through `parse`; anything else (a container, an error) goes that way.
                try skipWhitespace()
                guard position < bytes.count, let value = try parseScalar(bytes[position]) else {
                    return .value(.dictionaryValue)
                }
                try countValue()
                values.push(consume value)
                try skipWhitespace()
                guard peek() == UInt8(ascii: ";") else {
                    throw error("expected ';' after dictionary value, found \(found)")
                }
                position += 1
                continue
            case UInt8(ascii: ";"):
                // `key;` stands for `key = key;`; the ';' is left to end the entry.
                keys.push(key)
                return .completed(.string(key))
            default:
                throw error(
                    "expected '=' or ';' after key \(DisplayText.quoted(key, maximumScalars: 40)), found \(found)"
                )
            }
        }
    }

    /// Reads a string or data value starting with `byte` (the byte at the position), or
    /// returns `nil` (position unchanged) for anything else.
    @inline(__always)
    private mutating func parseScalar(_ byte: UInt8) throws -> PropertyList? {
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { return .string(try parseQuotedString()) }
        if Self.isUnquotedCharacter(byte) { return .string(parseUnquotedString()) }
        if byte == UInt8(ascii: "<") { return .data(try parseData()) }
        return nil
    }

    /// Counts one finished value against the budget, as `parse` does for those it finishes.
    @inline(__always)
    private mutating func countValue() throws {
        remainingValues -= 1
        guard remainingValues >= 0 else { throw valueBudgetExceeded() }
    }

    private func valueBudgetExceeded() -> KeyedArchiveError {
        KeyedArchiveError(
            .limitExceeded, "the property list holds more values than the reading options allow",
            at: UTF8Text.location(of: position, in: bytes))
    }

    /// Adds a finished value to the innermost open container and reads what follows it.
    /// After an array's `(` or a `,` in it: the array's end (it is empty, or the comma
    /// trails) or its next element.
    ///
    /// String and data elements are read here, one after another, without a round trip
    /// through `parse`; a container (or an error) goes that way.
    private mutating func nextElementOrEnd(stack: Stack<Frame>) throws -> Step {
        while true {
            try skipWhitespace()
            guard position < bytes.count else { return .value(.arrayElement) }
            let byte = bytes[position]
            if byte == UInt8(ascii: ")") {
                position += 1
                return closeArray(stack)
            }
            guard let value = try parseScalar(byte) else { return .value(.arrayElement) }
            try countValue()
            values.push(consume value)
            try skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: ")"):
                position += 1
                return closeArray(stack)
            case nil:
                guard let frame = stack.last else { throw error("internal error: no open array") }
                throw unterminated(frame, expecting: "',' or ')'")
            default:
                throw error("expected ',' or ')' after array element, found \(found)")
            }
        }
    }

    private mutating func add(_ value: consuming PropertyList, to stack: Stack<Frame>) throws
        -> Step
    {
        guard let top = stack.last else { return .completed(value) }
        switch top.kind {
        case .array:
            values.push(consume value)
            try skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
                return try nextElementOrEnd(stack: stack)
            case UInt8(ascii: ")"):
                position += 1
                return closeArray(stack)
            case nil:
                throw unterminated(top, expecting: "',' or ')'")
            default:
                throw error("expected ',' or ')' after array element, found \(found)")
            }
        case .dictionary, .stringsFile:
            values.push(consume value)
            try skipWhitespace()
            guard peek() == UInt8(ascii: ";") else {
                throw error("expected ';' after dictionary value, found \(found)")
            }
            position += 1
            return .entry
        }
    }

    // MARK: - Whitespace and comments

    /// Skips whitespace (tab through carriage return, space, U+2028, U+2029) and comments.
    ///
    /// Inlined for plain whitespace, what lies between almost any two tokens: the bytes
    /// are tested against one mask on a local index; comments and the Unicode separators
    /// take ``skipCommentsAndSeparators()``.
    @inline(__always)
    mutating func skipWhitespace() throws {
        position = Self.endOfPlainWhitespace(in: bytes, from: position)
        guard position < bytes.count else { return }
        let byte = bytes[position]
        if byte == UInt8(ascii: "/") || byte == 0xE2 { try skipCommentsAndSeparators() }
    }

    /// The offset of the first byte at or after `start` that is not plain whitespace (tab,
    /// line feed, vertical tab, form feed, carriage return, space), tested against one mask
    /// on a local index; shared with ``OpenStepEventReader``.
    @inline(__always)
    static func endOfPlainWhitespace(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        // Bits 9–13 (tab, line feed, vertical tab, form feed, carriage return) and 32 (space).
        let plain: UInt64 = 0x1_0000_3E00
        var index = start
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            guard byte <= 0x20, plain >> UInt64(byte) & 1 != 0 else { return index }
            index += 1
        }
        return index
    }

    /// The rest of ``skipWhitespace()`` from a `/` or a 0xE2 byte on.
    @inline(never)
    private mutating func skipCommentsAndSeparators() throws {
        switch Self.skipComments(in: bytes, from: position, skippingSeparators: true) {
        case .stopped(let end):
            position = end
        case .unterminatedComment(let start, _):
            position = start
            throw error("unterminated comment: no closing '*/' before end of input")
        case .separator(let offset):
            // Not given when separators are skipped.
            position = offset
        }
    }

    /// Where ``skipComments(in:from:skippingSeparators:)`` stopped.
    enum CommentSkip {
        /// At the first byte that is neither whitespace nor in a comment (or the end).
        case stopped(Int)
        /// A `/*` at `start` has no `*/`; `end` is where the search gave up.
        case unterminatedComment(start: Int, end: Int)
        /// At a 0xE2 byte, when separators are not skipped.
        case separator(Int)
    }

    /// Skips whitespace and `//` and `/* */` comments from `start`: the rule of both OpenStep
    /// readers. With `skippingSeparators`, U+2028 and U+2029 are whitespace too (and end a
    /// `//` comment), as the reader takes them; without, any 0xE2 byte outside a `/* */`
    /// comment stops the skipping (``OpenStepEventReader`` leaves them to the reader).
    @inline(__always)
    static func skipComments(
        in bytes: UnsafeBufferPointer<UInt8>, from start: Int, skippingSeparators: Bool
    ) -> CommentSkip {
        var position = start
        while position < bytes.count {
            switch bytes[position] {
            case 0x09...0x0D, 0x20:
                position += 1
            case 0xE2:
                guard skippingSeparators else { return .separator(position) }
                guard isLineOrParagraphSeparator(in: bytes, at: position) else { return .stopped(position) }
                position += 3
            case UInt8(ascii: "/"):
                guard position + 1 < bytes.count else { return .stopped(position) }
                let next = bytes[position + 1]
                if next == UInt8(ascii: "/") {
                    position += 2
                    while position < bytes.count {
                        let byte = bytes[position]
                        if byte == 0x0A || byte == 0x0D { break }
                        if byte == 0xE2 {
                            guard skippingSeparators else { return .separator(position) }
                            if isLineOrParagraphSeparator(in: bytes, at: position) { break }
                        }
                        position += 1
                    }
                } else if next == UInt8(ascii: "*") {
                    let commentStart = position
                    position += 2
                    while true {
                        guard position + 1 < bytes.count else {
                            return .unterminatedComment(start: commentStart, end: position)
                        }
                        if bytes[position] == UInt8(ascii: "*") && bytes[position + 1] == UInt8(ascii: "/") {
                            position += 2
                            break
                        }
                        position += 1
                    }
                } else {
                    // A '/' that starts no comment begins an unquoted string.
                    return .stopped(position)
                }
            default:
                return .stopped(position)
            }
        }
        return .stopped(position)
    }

    /// Whether U+2028 or U+2029 (E2 80 A8 / E2 80 A9) starts at `offset`.
    @inline(__always)
    static func isLineOrParagraphSeparator(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        offset + 2 < bytes.count && bytes[offset] == 0xE2 && bytes[offset + 1] == 0x80
            && (bytes[offset + 2] == 0xA8 || bytes[offset + 2] == 0xA9)
    }

    // MARK: - Strings

    /// Whether `byte` may appear in an unquoted string: `A–Z a–z 0–9 _ $ / : . -`, as
    /// two 64-bit masks (bytes 0–63 and 64–127), one shift and test per byte.
    @inline(__always)
    static func isUnquotedCharacter(_ byte: UInt8) -> Bool {
        // `$` 36, `-` 45, `.` 46, `/` 47, `0`–`9` 48–57, `:` 58.
        let low: UInt64 = 1 << 36 | 0b111 << 45 | 0x3FF << 48 | 1 << 58
        // `A`–`Z` 65–90, `_` 95, `a`–`z` 97–122 (each less 64).
        let high: UInt64 = 0x3FF_FFFF << 1 | 1 << 31 | 0x3FF_FFFF << 33
        if byte < 64 { return low >> UInt64(byte) & 1 != 0 }
        if byte < 128 { return high >> UInt64(byte - 64) & 1 != 0 }
        return false
    }

    private mutating func parseUnquotedString() -> String {
        let start = position
        var index = position
        let count = bytes.count
        // Eight bytes at a time while a whole word is left: the first byte that is not an
        // unquoted character ends the string.
        if let base = bytes.baseAddress {
            while index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let others = ~Self.unquotedCharacters(in: word) & ByteWord.highBits
                if others != 0 {
                    index += others.trailingZeroBitCount >> 3
                    position = index
                    return string(from: start, to: index)
                }
                index += 8
            }
        }
        while index < count && Self.isUnquotedCharacter(bytes[index]) { index += 1 }
        position = index
        return string(from: start, to: index)
    }

    /// The bytes of `word` that are unquoted characters, as 0x80 in their place (and 0
    /// elsewhere): ``isUnquotedCharacter(_:)`` for eight bytes at once, by per-byte range
    /// tests that cannot carry from one byte into the next.
    @inline(__always)
    static func unquotedCharacters(in word: UInt64) -> UInt64 {
        let ones = ByteWord.ones
        // Each byte less its high bit, so that the range tests cannot carry.
        let low7 = word & ~ByteWord.highBits
        // Letters (either case: 0x20 set), `-` `.` `/` digits `:`, `_`, `$`.
        let members =
            ByteWord.bytes(of: low7 | ones &* 0x20, from: 0x61, through: 0x7A)
            | ByteWord.bytes(of: low7, from: 0x2D, through: 0x3A)
            | ByteWord.bytes(of: low7, from: 0x5F, through: 0x5F)
            | ByteWord.bytes(of: low7, from: 0x24, through: 0x24)
        // Bytes with the high bit set (non-ASCII) are never members.
        return members & ~word
    }

    /// The text of `bytes[start..<end]` (whole characters) as a `String`: built in place
    /// when short and ASCII, else copied without validating it again (the input was).
    @inline(__always)
    private func string(from start: Int, to end: Int) -> String {
        if buildsSmallStrings, let text = SmallText.string(bytes, from: start, to: end) { return text }
        return text.string(from: start, to: end)
    }

    /// Parses a string in `"` or `'`, starting at the quote.
    ///
    /// A string without escapes, nearly all of them, is one scan and one `String`; the
    /// first backslash hands over to ``parseEscapedString(openedAt:quote:segmentStart:)``.
    private mutating func parseQuotedString() throws -> String {
        let start = position
        let quote = bytes[position]
        let contentStart = position + 1
        position = endOfPlainRun(from: contentStart, quote: quote)
        guard position < bytes.count else { throw unterminatedString(openedAt: start, quote: quote) }
        if bytes[position] == quote {
            position += 1
            return string(from: contentStart, to: position - 1)
        }
        return try parseEscapedString(openedAt: start, quote: quote, segmentStart: contentStart)
    }

    private func unterminatedString(openedAt start: Int, quote: UInt8) -> KeyedArchiveError {
        error(
            "unterminated string: no closing \(quote == UInt8(ascii: "'") ? "\"'\"" : "'\"'") before end of input",
            at: start)
    }

    /// The offset of the first `quote` or backslash from `index` on (or the end of the
    /// input): eight bytes at a time while a whole word is left, then byte by byte.
    @inline(__always)
    private func endOfPlainRun(from start: Int, quote: UInt8) -> Int {
        var index = start
        let count = bytes.count
        if let base = bytes.baseAddress {
            let quotes = ByteWord.repeating(quote)
            let backslashes = ByteWord.repeating(UInt8(ascii: "\\"))
            while index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                // A zero byte in `word ^ quotes` or `word ^ backslashes` marks a match.
                let flags =
                    ByteWord.firstZeroByteFlags(word ^ quotes)
                    | ByteWord.firstZeroByteFlags(word ^ backslashes)
                if flags != 0 { return index + ByteWord.firstOffset(of: flags) }
                index += 8
            }
        }
        while index < count {
            let byte = bytes[index]
            if byte == quote || byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        return index
    }

    /// The rest of a quoted string from its first backslash (at the position) on; the
    /// text before it starts at `segmentStart`.
    ///
    /// The text is gathered in the parse's one buffer for escapes (``escapeBuffer``,
    /// swapped in here and back at the end), reserved once for the rest of the string: no
    /// allocation a string once the buffer has grown.
    @inline(never)
    private mutating func parseEscapedString(openedAt start: Int, quote: UInt8, segmentStart: Int) throws
        -> String
    {
        var buffer: [UInt8] = []
        swap(&buffer, &escapeBuffer)
        // Unescaped text is never longer than its escaped form: reserve up to the closing
        // quote (or the end of input), skipping escaped characters: from backslash to
        // backslash a word at a time.
        var end = position
        while end < bytes.count {
            end = endOfPlainRun(from: end, quote: quote)
            guard end < bytes.count, bytes[end] == UInt8(ascii: "\\") else { break }
            end += 2
        }
        buffer.reserveCapacity(Swift.min(end, bytes.count) - segmentStart)
        var segmentStart = segmentStart
        while true {
            guard position < bytes.count else { throw unterminatedString(openedAt: start, quote: quote) }
            let segment = UnsafeBufferPointer(rebasing: bytes[segmentStart..<position])
            if bytes[position] == quote {
                position += 1
                buffer.append(contentsOf: segment)
                let text = buffer.withUnsafeBufferPointer { unescaped in
                    if buildsSmallStrings,
                        let text = SmallText.string(unescaped, from: 0, to: unescaped.count)
                    {
                        return text
                    }
                    return WellFormedUTF8.string(unescaped: unescaped)
                }
                buffer.removeAll(keepingCapacity: true)
                swap(&buffer, &escapeBuffer)
                return text
            }
            // A backslash.
            buffer.append(contentsOf: segment)
            position += 1
            guard position < bytes.count else { throw unterminatedString(openedAt: start, quote: quote) }
            segmentStart = try appendEscape(to: &buffer, escapeStart: position - 1)
            position = endOfPlainRun(from: position, quote: quote)
        }
    }

    /// Decodes the escape whose backslash is at `escapeStart` (the position is just after
    /// it) and appends its character. Returns where the next plain segment starts.
    private mutating func appendEscape(to buffer: inout [UInt8], escapeStart: Int) throws -> Int {
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = 0
            var digits = 0
            while digits < 3, position < bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[position])
            {
                value = value * 8 + Int(bytes[position] - UInt8(ascii: "0"))
                digits += 1
                position += 1
            }
            let text = String(
                decoding: UnsafeBufferPointer(rebasing: bytes[escapeStart..<position]), as: UTF8.self)
            guard value <= 0xFF else {
                throw error("octal escape \(text) is out of range (above \\377)", at: escapeStart)
            }
            let code = value < 0x80 ? UInt32(value) : UInt32(OpenStepText.nextStepUpperHalf[value - 0x80])
            guard code != 0 || value == 0, let scalar = Unicode.Scalar(code) else {
                throw error("octal escape \(text) is not a NeXTSTEP character", at: escapeStart)
            }
            UTF8Text.append(scalar.value, to: &buffer)
            return position
        case UInt8(ascii: "U"):
            position += 1
            guard let unit = parseHexUnit() else {
                throw error("expected 1 to 4 hexadecimal digits after \\U, found \(found)", at: position)
            }
            var scalar: Unicode.Scalar = "\u{FFFD}"
            if (0xD800..<0xDC00).contains(unit) {
                // Join with a following \U low surrogate, if there is one.
                let saved = position
                if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "U")
                {
                    position += 2
                    if let low = parseHexUnit(), (0xDC00..<0xE000).contains(low) {
                        let combined = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                        scalar = Unicode.Scalar(combined) ?? "\u{FFFD}"
                    } else {
                        position = saved
                    }
                }
            } else if let plain = Unicode.Scalar(UInt32(unit)) {
                scalar = plain
            }
            UTF8Text.append(scalar.value, to: &buffer)
            return position
        default:
            let control: UInt8?
            switch byte {
            case UInt8(ascii: "a"): control = 0x07
            case UInt8(ascii: "b"): control = 0x08
            case UInt8(ascii: "f"): control = 0x0C
            case UInt8(ascii: "n"): control = 0x0A
            case UInt8(ascii: "r"): control = 0x0D
            case UInt8(ascii: "t"): control = 0x09
            case UInt8(ascii: "v"): control = 0x0B
            default: control = nil
            }
            if let control {
                buffer.append(control)
                position += 1
                return position
            }
            // Any other character stands for itself (`\"`, `\\`, `\'`, a line break, …); it
            // starts the next plain segment and is skipped so it cannot end the string.
            let start = position
            position += 1
            while position < bytes.count && bytes[position] & 0xC0 == 0x80 { position += 1 }
            return start
        }
    }

    /// Reads one to four hex digits, or returns `nil` (position unchanged) if there is none.
    private mutating func parseHexUnit() -> UInt16? {
        var value: UInt16 = 0
        var digits = 0
        while digits < 4, position < bytes.count, let digit = Self.hexValue(bytes[position]) {
            value = value << 4 | UInt16(digit)
            digits += 1
            position += 1
        }
        return digits == 0 ? nil : value
    }

    // MARK: - Data

    /// The value of a hex digit, or 0xFF for any other byte: arithmetic, no branch per range.
    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt8 {
        let decimal = byte &- UInt8(ascii: "0")
        if decimal < 10 { return decimal }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter &+ 10 : 0xFF
    }

    /// ``hexDigit(_:)`` of every byte.
    private static let hexDigits: [UInt8] = (0...255).map { hexDigit(UInt8($0)) }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Eight hexadecimal digits (the first in the lowest byte of `word`) as four bytes (the
    /// first in the lowest byte), or `nil` if any of the eight is not a digit.
    ///
    /// Per-byte range tests (`ByteWord.bytes(of:from:through:)`, as in
    /// ``unquotedCharacters(in:)``); a digit's value is its low four bits, plus nine for a
    /// letter; pairs of values are then packed into bytes by shifts.
    @inline(__always)
    static func hexBytes(of word: UInt64) -> UInt32? {
        let high = ByteWord.highBits
        let low7 = word & ~high
        // `0`–`9`; `a`–`f` and `A`–`F` (0x20 set folds the case); never a non-ASCII byte.
        let digits = ByteWord.bytes(of: low7, from: 0x30, through: 0x39) & ~word
        let letters = ByteWord.bytes(of: low7 | ByteWord.ones &* 0x20, from: 0x61, through: 0x66) & ~word
        guard digits | letters == high else { return nil }
        let values = (word & 0x0F0F_0F0F_0F0F_0F0F) &+ (letters &>> 7) &* 9
        // Each 16-bit lane: its first digit's value times 16 plus its second's.
        let lanes = (values & 0x00FF_00FF_00FF_00FF) &<< 4 | (values &>> 8) & 0x00FF_00FF_00FF_00FF
        let halves = (lanes | lanes &>> 8) & 0x0000_FFFF_0000_FFFF
        return UInt32(truncatingIfNeeded: halves | halves &>> 16)
    }

    /// Parses `<hex pairs>`, starting at the `<`.
    private mutating func parseData() throws -> Data {
        let start = position
        position += 1
        // Decoded into scratch space on the stack, then copied into the `Data` once: one
        // allocation, not an array's and the `Data`'s. Most data fits in a kilobyte, decoded
        // straight into it; longer data goes on into room sized by the rest of the text up
        // to the closing '>' (finding that for all data cost a tenth of reading data-heavy
        // documents).
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.shortDataCapacity) {
            scratch in
            if let data = try parseHexPairs(into: scratch, written: 0, openedAt: start) { return data }
            let end = ByteWord.firstOffset(of: UInt8(ascii: ">"), in: bytes, from: position)
            let capacity = scratch.count + max(1, (end - position) / 2)
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { room in
                guard let target = room.baseAddress, let source = scratch.baseAddress else { return Data() }
                target.initialize(from: source, count: scratch.count)
                guard let data = try parseHexPairs(into: room, written: scratch.count, openedAt: start) else {
                    throw error("internal error: data longer than its text")
                }
                return data
            }
        }
    }

    /// The bytes of data decoded into stack space before its end is looked for.
    static var shortDataCapacity: Int { 1024 }

    /// The hex pairs of data and its `>`, decoded into `scratch` after the `written` bytes
    /// already there; `nil` if `scratch` fills up before the `>` (the position is then at
    /// the next pair). Errors in the text are thrown where they are met.
    private mutating func parseHexPairs(
        into scratch: UnsafeMutableBufferPointer<UInt8>, written alreadyWritten: Int, openedAt start: Int
    ) throws -> Data? {
        var written = alreadyWritten
        while true {
            guard position < bytes.count else {
                throw error(
                    "unterminated data opened at \(describeLocation(of: start)): "
                        + "expected hexadecimal digits or '>', found end of input")
            }
            // Runs of digit pairs, the bulk of data, without the checks for spacing and errors:
            // one table lookup a digit, in locals (a third of the instructions of computing
            // each digit and updating `position` per pair).
            if let input = bytes.baseAddress, let output = scratch.baseAddress {
                var source = position
                var target = written
                let end = bytes.count - 1
                let room = scratch.count
                // Eight digits at a time while they are all digits and there is room for four
                // bytes; the pair loop below takes over at anything else.
                while source + 8 <= bytes.count, target + 4 <= room {
                    let word = UInt64(
                        littleEndian: UnsafeRawPointer(input + source).loadUnaligned(as: UInt64.self))
                    guard let decoded = Self.hexBytes(of: word) else { break }
                    UnsafeMutableRawPointer(output + target).storeBytes(
                        of: decoded.littleEndian, as: UInt32.self)
                    target += 4
                    source += 8
                }
                Self.hexDigits.withUnsafeBufferPointer { digits in
                    guard let digits = digits.baseAddress else { return }
                    while source < end, target < room {
                        let high = digits[Int(input[source])]
                        let low = digits[Int(input[source + 1])]
                        guard high | low < 0x10 else { break }
                        output[target] = high << 4 | low
                        target += 1
                        source += 2
                    }
                }
                position = source
                written = target
            }
            guard position < bytes.count else { continue }  // reported as unterminated above
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                guard let base = scratch.baseAddress else { return Data() }
                return Data(bytes: base, count: written)
            }
            if let high = Self.hexValue(byte) {
                guard position + 1 < bytes.count, let low = Self.hexValue(bytes[position + 1]) else {
                    throw error(
                        "odd number of hexadecimal digits in data: "
                            + "'\(Unicode.Scalar(byte))' has no second digit")
                }
                guard written < scratch.count else { return nil }
                scratch[written] = high << 4 | low
                written += 1
                position += 2
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                position += 1
            } else if Self.isLineOrParagraphSeparator(in: bytes, at: position) {
                position += 3
            } else {
                throw error("expected hexadecimal digits or '>' in data, found \(found)")
            }
        }
    }
}
