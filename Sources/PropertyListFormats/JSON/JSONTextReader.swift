#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads JSON text as the `keyed-archive` tool reads a JSON file, handing each value to an
/// ``XMLValueBuilder`` as the XML parser does, so that the builders that write JSON text or
/// a compact binary property list serve JSON input too, with no tree in between.
///
/// The tool's reader (`-convert` of a `.json` file) gives: objects dictionaries, arrays
/// arrays, strings strings, `true`/`false` Booleans, numbers integers when they have no `.`,
/// `e` or `E` (and fit 64 bits), reals otherwise; `{"CF$UID": 1}` stays a dictionary. This
/// reader is stricter, never looser: anything it is unsure of — `null`, invalid UTF-8
/// (which the tool reads as U+FFFD), a `\u` escape that is not four hexadecimal digits,
/// nesting past ``maximumDepth`` levels, anything malformed — throws, and the caller goes
/// the tree's way, which says what is wrong. It keeps an explicit stack, so deep input
/// cannot exhaust the call stack.
struct JSONTextReader {
    /// The deepest nesting of the tool's reader: a container at depth 512 is refused.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position: Int
    /// Unescaped text of strings that have escapes.
    private var scratch: [UInt8] = []

    private struct Frame {
        let isDictionary: Bool
        let valueStart: Int
        let keyStart: Int
    }

    /// Reads `data` (after a UTF-8 byte-order mark, if any) into `builder`.
    ///
    /// - Throws: `corruptData` naming the byte offset for anything the reader does not
    ///   accept (see above); what `builder` reports is its own business.
    static func read<Builder: XMLValueBuilder>(_ data: Data, into builder: inout Builder) throws
        -> Builder.Value
    {
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
            if let invalid = UTF8Text.firstInvalid(in: bytes, from: start) {
                throw KeyedArchiveError(.corruptData, "invalid UTF-8 in JSON", at: .byteOffset(invalid))
            }
            var reader = JSONTextReader(bytes: bytes, position: start)
            return try reader.readDocument(into: &builder)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, position: Int) {
        self.bytes = bytes
        self.position = position
    }

    private func failure(_ message: String) -> KeyedArchiveError {
        KeyedArchiveError(.corruptData, "JSON: \(message)", at: .byteOffset(position))
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next byte after whitespace, not consumed.
    private mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    private mutating func readDocument<Builder: XMLValueBuilder>(into builder: inout Builder) throws
        -> Builder.Value
    {
        var frames: [Frame] = []
        while true {
            // A value starts here (an array's element, a dictionary's value, or the root).
            guard let first = peek() else { throw failure("unexpected end of JSON") }
            var value: Builder.Value
            switch first {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard frames.count < Self.maximumDepth else { throw failure("JSON nested too deeply") }
                let isDictionary = first == UInt8(ascii: "{")
                position += 1
                let close = isDictionary ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if peek() == close {
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
            case UInt8(ascii: "\""):
                value = try readString { text, _ in builder.string(text) }
            case UInt8(ascii: "t"):
                try expect("true")
                value = builder.bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                value = builder.bool(false)
            default:
                value = try readNumber(into: &builder)
            }
            // The value is complete: add it to its container, and close those that end.
            while true {
                guard let frame = frames.last else {
                    guard peek() == nil else { throw failure("unexpected text after the value") }
                    return value
                }
                builder.push(value)
                let separator = peek()
                if separator == UInt8(ascii: ",") {
                    position += 1
                    if frame.isDictionary { try readKey(into: &builder) }
                    break
                }
                guard separator == (frame.isDictionary ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw failure(frame.isDictionary ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                position += 1
                frames.removeLast()
                if frame.isDictionary {
                    guard
                        case .value(let dictionary) = builder.dictionary(
                            keysFrom: frame.keyStart, valuesFrom: frame.valueStart)
                    else { throw failure("a dictionary read as a UID") }
                    value = dictionary
                } else {
                    value = builder.array(from: frame.valueStart)
                }
            }
        }
    }

    /// A dictionary's key and the `:` after it.
    private mutating func readKey<Builder: XMLValueBuilder>(into builder: inout Builder) throws {
        guard peek() == UInt8(ascii: "\"") else { throw failure("expected a string key") }
        try readString { builder.pushKey($0, readable: $1) }
        guard peek() == UInt8(ascii: ":") else { throw failure("expected ':'") }
        position += 1
    }

    private mutating func expect(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count,
            literal.withUTF8Buffer({
                UnsafeBufferPointer(rebasing: bytes[position..<position + count]).elementsEqual($0)
            })
        else { throw failure("unexpected text") }
        position += count
    }

    /// Reads the string starting at the opening quote and hands its UTF-8 bytes to `body`
    /// (valid only during the call), with how many bytes from their start may be read.
    private mutating func readString<R>(_ body: (UnsafeBufferPointer<UInt8>, Int) -> R) throws -> R {
        position += 1
        let start = position
        // The common case: no escape, read in place.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                return body(text, bytes.count - start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("control character in a string") }
            position += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return scratch.withUnsafeBufferPointer { body($0, $0.count) }
            }
            guard byte == UInt8(ascii: "\\") else {
                if byte < 0x20 { throw failure("control character in a string") }
                scratch.append(byte)
                position += 1
                continue
            }
            guard position + 1 < bytes.count else { break }
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var unit = try hex4()
                if (0xD800..<0xDC00).contains(unit) {
                    guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { throw failure("lone surrogate in a string") }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("invalid surrogate pair") }
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(unit) else { throw failure("lone surrogate in a string") }
                UTF8.encode(scalar) { scratch.append($0) }
            default:
                throw failure("invalid escape in a string")
            }
        }
        throw failure("unterminated string")
    }

    /// Four hexadecimal digits, exactly.
    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("invalid \\u escape") }
        var unit: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[position + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            unit = unit << 4 | UInt32(digit)
        }
        position += 4
        return unit
    }

    /// A number, read as the tool reads it: the run of `0-9 + - . e E`; an integer when it
    /// has no `.`, `e` or `E` and fits 64 bits, else a finite real.
    private mutating func readNumber<Builder: XMLValueBuilder>(into builder: inout Builder) throws
        -> Builder.Value
    {
        let start = position
        var isInteger = true
        var isPlain = true  // an optional `-` and digits
        while position < bytes.count, Self.isNumberByte(bytes[position]) {
            switch bytes[position] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): break
            case UInt8(ascii: "-"): if position != start { isPlain = false }
            case UInt8(ascii: "+"): isPlain = false
            default: isInteger = false
            }
            position += 1
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
        guard !text.isEmpty else { throw failure("unexpected character") }
        if isInteger {
            let negative = text[0] == UInt8(ascii: "-")
            let digits = negative ? UnsafeBufferPointer(rebasing: text.dropFirst()) : text
            if isPlain, (1...18).contains(digits.count), digits.count == 1 || digits[0] != UInt8(ascii: "0") {
                var magnitude: Int64 = 0
                for digit in digits { magnitude = magnitude * 10 + Int64(digit - UInt8(ascii: "0")) }
                return builder.integer(PropertyListInteger(negative ? -magnitude : magnitude))
            }
            let string = String(decoding: text, as: UTF8.self)
            if let integer = PropertyListInteger(decimal: string[...]), integer.fitsIn64Bits {
                return builder.integer(integer)
            }
        }
        guard let real = Double(String(decoding: text, as: UTF8.self)), real.isFinite else {
            throw failure("invalid number")
        }
        return builder.real(real)
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }
}
