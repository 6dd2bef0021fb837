#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an OpenStep property list into an ``XMLValueBuilder``, as the XML parser hands
/// its values over, so that the builders that write JSON text or a compact binary property
/// list serve OpenStep input too, with no tree in between.
///
/// It reads the part of the format that files use — a root `{…}` or `(…)`, quoted and
/// unquoted strings, `<hex>` data, `//` and `/* */` comments — exactly as
/// ``OpenStepPropertyListReader`` reads it (the same text, through ``OpenStepText``; the
/// same nesting limit and value budget, counted as it counts them), and throws for the
/// rest, for the caller to go the tree's way: a strings file or a root string, an entry
/// `key;`, an octal or `\U` escape or any escape other than `\a \b \f \n \r \t \v \\ \" \'`,
/// the separators U+2028 and U+2029, anything malformed. It is never looser than the
/// reader, and keeps an explicit stack.
struct OpenStepEventReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private let maximumDepth: Int
    private var remainingValues: Int
    /// Unescaped text of quoted strings that have escapes.
    private var scratch: [UInt8] = []

    private struct Frame {
        let isDictionary: Bool
        let valueStart: Int
        let keyStart: Int
    }

    /// Reads `data` into `builder` with the limits of `options`.
    static func read<Builder: XMLValueBuilder>(
        _ data: Data, options: PropertyListReadingOptions, into builder: inout Builder
    ) throws -> Builder.Value {
        let budget = options.valueLimit(forInputLength: data.count)
        return try OpenStepText.withUTF8(from: data) { text in
            var reader = OpenStepEventReader(
                bytes: text.bytes, maximumDepth: options.maximumDepth, budget: budget)
            return try reader.readDocument(into: &builder)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, budget: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.remainingValues = budget
    }

    private func unread(_ what: String) -> KeyedArchiveError {
        KeyedArchiveError(
            .unsupportedFormat, "OpenStep: \(what) is left to the reader", at: .byteOffset(position))
    }

    private mutating func readDocument<Builder: XMLValueBuilder>(into builder: inout Builder) throws
        -> Builder.Value
    {
        try skipWhitespace()
        guard let first = peek(), first == UInt8(ascii: "{") || first == UInt8(ascii: "(") else {
            throw unread("a root that is not a dictionary or an array")
        }
        var frames: [Frame] = []
        while true {
            // A value starts here.
            try skipWhitespace()
            guard let byte = peek() else { throw unread("an unfinished value") }
            var value: Builder.Value
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "("):
                guard frames.count < maximumDepth else { throw unread("nesting past the limit") }
                let isDictionary = byte == UInt8(ascii: "{")
                position += 1
                try skipWhitespace()
                if peek() == (isDictionary ? UInt8(ascii: "}") : UInt8(ascii: ")")) {
                    position += 1
                    value = isDictionary ? builder.emptyDictionary() : builder.emptyArray()
                } else {
                    frames.append(
                        Frame(
                            isDictionary: isDictionary, valueStart: builder.valueCount,
                            keyStart: builder.keyCount))
                    builder.open(dictionary: isDictionary)
                    if isDictionary { try readKey(into: &builder) }
                    continue
                }
            case UInt8(ascii: "<"):
                value = builder.data(try readData())
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                value = try readQuoted { builder.string($0) }
            default:
                guard OpenStepParser.isUnquotedCharacter(byte) else {
                    throw unread("an unexpected character")
                }
                value = builder.string(readUnquoted())
            }
            // The value is complete: count it, add it to its container, close those that end.
            while true {
                remainingValues -= 1
                guard remainingValues >= 0 else { throw unread("more values than the budget") }
                guard let frame = frames.last else {
                    try skipWhitespace()
                    guard position == bytes.count else { throw unread("text after the root") }
                    return value
                }
                builder.push(value)
                try skipWhitespace()
                if frame.isDictionary {
                    guard peek() == UInt8(ascii: ";") else { throw unread("a dictionary value without ';'") }
                    position += 1
                    try skipWhitespace()
                    guard peek() == UInt8(ascii: "}") else {
                        try readKey(into: &builder)
                        break
                    }
                    position += 1
                    frames.removeLast()
                    guard
                        case .value(let dictionary) = builder.dictionary(
                            keysFrom: frame.keyStart, valuesFrom: frame.valueStart)
                    else { throw unread("a dictionary read as a UID") }
                    value = dictionary
                } else {
                    if peek() == UInt8(ascii: ",") {
                        position += 1
                        try skipWhitespace()
                        guard peek() == UInt8(ascii: ")") else { break }
                    }
                    guard peek() == UInt8(ascii: ")") else {
                        throw unread("an array element without ',' or ')'")
                    }
                    position += 1
                    frames.removeLast()
                    value = builder.array(from: frame.valueStart)
                }
            }
        }
    }

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    /// A dictionary's key and the `=` after it.
    private mutating func readKey<Builder: XMLValueBuilder>(into builder: inout Builder) throws {
        try skipWhitespace()
        guard let byte = peek() else { throw unread("an unfinished dictionary") }
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            try readQuoted { builder.pushKey($0, readable: $0.count) }
        } else if OpenStepParser.isUnquotedCharacter(byte) {
            let key = readUnquoted()
            builder.pushKey(key, readable: bytes.count - (position - key.count))
        } else {
            throw unread("a key that is not a string")
        }
        try skipWhitespace()
        guard peek() == UInt8(ascii: "=") else { throw unread("a key without '='") }
        position += 1
    }

    private mutating func readUnquoted() -> UnsafeBufferPointer<UInt8> {
        let start = position
        var index = position
        let count = bytes.count
        while index < count, OpenStepParser.isUnquotedCharacter(bytes[index]) { index += 1 }
        position = index
        return UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    /// A string in `"` or `'`, starting at the quote; its bytes are handed to `body`.
    private mutating func readQuoted<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws -> R {
        let quote = bytes[position]
        position += 1
        let start = position
        var index = position
        let count = bytes.count
        while index < count, bytes[index] != quote, bytes[index] != UInt8(ascii: "\\") { index += 1 }
        position = index
        guard position < bytes.count else { throw unread("an unterminated string") }
        if bytes[position] == quote {
            defer { position += 1 }
            return body(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            if byte == quote {
                position += 1
                return scratch.withUnsafeBufferPointer(body)
            }
            guard byte == UInt8(ascii: "\\") else {
                scratch.append(byte)
                position += 1
                continue
            }
            guard position + 1 < bytes.count else { break }
            let escaped = bytes[position + 1]
            switch escaped {
            case UInt8(ascii: "a"): scratch.append(0x07)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "v"): scratch.append(0x0B)
            case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): scratch.append(escaped)
            default: throw unread("an escape other than a letter or a quote")
            }
            position += 2
        }
        throw unread("an unterminated string")
    }

    /// `<hex pairs>`, starting at the `<`: pairs of hexadecimal digits, with spaces, tabs
    /// and line breaks between them.
    private mutating func readData() throws -> Data {
        position += 1
        var data = Data()
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                position += 1
            case UInt8(ascii: ">"):
                position += 1
                return data
            default:
                guard position + 1 < bytes.count, let high = OpenStepParser.hexValue(byte),
                    let low = OpenStepParser.hexValue(bytes[position + 1])
                else { throw unread("data that is not pairs of hexadecimal digits") }
                data.append(high << 4 | low)
                position += 2
            }
        }
        throw unread("unterminated data")
    }

    /// Skips whitespace and comments; throws for the separators U+2028 and U+2029 and an
    /// unterminated comment. Plain whitespace, between almost any two tokens, is tested
    /// against one mask on a local index, as the reader does.
    @inline(__always)
    private mutating func skipWhitespace() throws {
        position = OpenStepParser.endOfPlainWhitespace(in: bytes, from: position)
        guard position < bytes.count else { return }
        let byte = bytes[position]
        if byte == UInt8(ascii: "/") || byte == 0xE2 { try skipComments() }
    }

    /// The rest of ``skipWhitespace()`` from a `/` or a 0xE2 byte on, by the reader's rule.
    @inline(never)
    private mutating func skipComments() throws {
        switch OpenStepParser.skipComments(in: bytes, from: position, skippingSeparators: false) {
        case .stopped(let end):
            position = end
        case .unterminatedComment(_, let end):
            position = end
            throw unread("an unterminated comment")
        case .separator(let offset):
            position = offset
            throw unread("a Unicode separator")
        }
    }
}
