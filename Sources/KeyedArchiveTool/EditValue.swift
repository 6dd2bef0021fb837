import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `-TYPE VALUE` of `-insert` and `-replace`, spelled as `plutil` spells it.
enum EditValueType: String, CaseIterable, Equatable {
    case bool, integer, float, string, date, data, xml, json, array, dictionary

    /// Whether the type takes a value on the command line (`-array` and `-dictionary`
    /// insert an empty container).
    var takesValue: Bool { self != .array && self != .dictionary }

    /// The value `text` stands for.
    ///
    /// Stricter than `plutil`, which turns an unreadable number into 0 and any Boolean
    /// other than `YES`/`true` into `NO`: a value that does not read is refused, so a typo
    /// never writes a wrong value.
    ///
    /// - Throws: ``UsageError`` saying what is wrong with the value.
    func value(from text: String?) throws(UsageError) -> PropertyList {
        let text = text ?? ""
        switch self {
        case .array: return .array([])
        case .dictionary: return .dictionary(PropertyListDictionary())
        case .string: return .string(text)
        case .bool:
            switch text.lowercased() {
            case "yes", "true": return .bool(true)
            case "no", "false": return .bool(false)
            default: throw UsageError("-bool needs YES, NO, true or false, not '\(text)'")
            }
        case .integer:
            // One sign at most (`+5`, `-5`; not `+-5`), as the reader of `<integer>` allows.
            guard let integer = PropertyListInteger(decimal: text[...]), integer.fitsIn64Bits else {
                throw UsageError("-integer needs a 64-bit decimal integer, not '\(text)'")
            }
            return .integer(integer)
        case .float:
            // Foundation's `.whitespaces`: tab and the space separators, at either end.
            let isBlank = { (scalar: Unicode.Scalar) in
                scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
            }
            var scalars = text.unicodeScalars[...]
            while let first = scalars.first, isBlank(first) { scalars.removeFirst() }
            while let last = scalars.last, isBlank(last) { scalars.removeLast() }
            let trimmed = String(scalars)
            guard !trimmed.isEmpty, let real = Double(trimmed) else {
                throw UsageError("-float needs a number, not '\(text)'")
            }
            return .real(real)
        case .date:
            // The XML property-list reader's own date rule, so that -date accepts exactly
            // what a <date> element holds.
            guard
                let value = try? PropertyList(
                    from: Data("<plist><date>\(Self.xmlEscaped(text))</date></plist>".utf8)),
                case .date = value
            else {
                throw UsageError(
                    "-date needs a date as a property list writes it (2024-05-01T09:30:00Z), not '\(text)'")
            }
            return value
        case .data:
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
                text.utf8.allSatisfy({ Self.isBase64Byte($0) })
            else {
                throw UsageError("-data needs base64-encoded bytes")
            }
            return .data(data)
        case .xml:
            return try Self.propertyList(fromXML: text)
        case .json:
            do {
                return try JSONValueReader.read(text)
            } catch {
                throw UsageError("-json: \(error.message)")
            }
        }
    }

    private static func isBase64Byte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
            UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
            return true
        default:
            return false
        }
    }

    /// `-xml`'s value: a whole property list, or (as `plutil` allows) only its root
    /// element, such as `<dict><key>a</key><true/></dict>`.
    private static func propertyList(fromXML text: String) throws(UsageError) -> PropertyList {
        let whole = text.contains("<plist")
        let document = whole ? text : "<plist version=\"1.0\">\(text)</plist>"
        do {
            return try PropertyList(from: Data(document.utf8))
        } catch let error as KeyedArchiveError {
            throw UsageError("-xml: \(error.description)")
        } catch {
            throw UsageError("-xml: \(error)")
        }
    }

    static func xmlEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// A small JSON reader for `-json` values: objects become dictionaries, arrays arrays,
/// strings strings, `true`/`false` Booleans, numbers integers when they have no fraction or
/// exponent (and fit 64 bits), reals otherwise. `null` has no property-list equivalent and
/// is refused. Nesting is bounded by ``maximumDepth``.
enum JSONValueReader {
    static let maximumDepth = 512

    struct Failure: Error {
        var message: String
    }

    static func read(_ text: String) throws(Failure) -> PropertyList {
        var reader = Reader(bytes: Array(text.utf8))
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.position == reader.bytes.count else {
            throw reader.failure("unexpected text after the value")
        }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func failure(_ message: String) -> Failure {
            Failure(message: "\(message) at byte \(position)")
        }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func expect(_ literal: String) -> Bool {
            let literalBytes = Array(literal.utf8)
            guard bytes[position...].starts(with: literalBytes) else { return false }
            position += literalBytes.count
            return true
        }

        mutating func value(depth: Int) throws(Failure) -> PropertyList {
            guard position < bytes.count else { throw failure("unexpected end of JSON") }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                guard depth < JSONValueReader.maximumDepth else { throw failure("JSON nested too deeply") }
                position += 1
                var dictionary = PropertyListDictionary()
                skipWhitespace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .dictionary(dictionary)
                }
                while true {
                    skipWhitespace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                        throw failure("expected a string key")
                    }
                    let key = try string()
                    skipWhitespace()
                    guard expect(":") else { throw failure("expected ':'") }
                    skipWhitespace()
                    dictionary[key] = try value(depth: depth + 1)
                    skipWhitespace()
                    if expect(",") { continue }
                    guard expect("}") else { throw failure("expected ',' or '}'") }
                    return .dictionary(dictionary)
                }
            case UInt8(ascii: "["):
                guard depth < JSONValueReader.maximumDepth else { throw failure("JSON nested too deeply") }
                position += 1
                var elements: [PropertyList] = []
                skipWhitespace()
                if expect("]") { return .array(elements) }
                while true {
                    skipWhitespace()
                    elements.append(try value(depth: depth + 1))
                    skipWhitespace()
                    if expect(",") { continue }
                    guard expect("]") else { throw failure("expected ',' or ']'") }
                    return .array(elements)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                guard expect("true") else { throw failure("unexpected text") }
                return .bool(true)
            case UInt8(ascii: "f"):
                guard expect("false") else { throw failure("unexpected text") }
                return .bool(false)
            case UInt8(ascii: "n"):
                guard expect("null") else { throw failure("unexpected text") }
                throw failure("null has no property-list equivalent")
            default:
                return try number()
            }
        }

        mutating func number() throws(Failure) -> PropertyList {
            let start = position
            var isInteger = true
            while position < bytes.count {
                let byte = bytes[position]
                if (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
                    position += 1
                } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                {
                    isInteger = false
                    position += 1
                } else {
                    break
                }
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            guard !text.isEmpty else { throw failure("unexpected character") }
            if isInteger, let integer = PropertyListInteger(decimal: text[...]), integer.fitsIn64Bits {
                return .integer(integer)
            }
            guard let real = Double(text), real.isFinite else { throw failure("invalid number '\(text)'") }
            return .real(real)
        }

        mutating func string() throws(Failure) -> String {
            position += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            var runStart = position
            func flushRun(_ end: Int) {
                scalars.append(
                    contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    flushRun(position)
                    position += 1
                    return String(scalars)
                }
                guard byte == UInt8(ascii: "\\") else {
                    if byte < 0x20 { throw failure("control character in a string") }
                    position += 1
                    continue
                }
                flushRun(position)
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800..<0xDC00).contains(unit), expect("\\u") {
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("invalid surrogate pair") }
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(unit) else {
                        throw failure("lone surrogate in a string")
                    }
                    scalars.append(scalar)
                default:
                    throw failure("invalid escape in a string")
                }
                runStart = position
            }
            throw failure("unterminated string")
        }

        /// Four hexadecimal digits (not `UInt32(_:radix:)`, which also takes a sign: `\u+123`).
        mutating func hex4() throws(Failure) -> UInt32 {
            guard bytes.count - position >= 4 else { throw failure("invalid \\u escape") }
            var unit: UInt32 = 0
            for byte in bytes[position..<position + 4] {
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
    }
}
