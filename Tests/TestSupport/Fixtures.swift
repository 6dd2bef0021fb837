import Foundation
import KeyedArchive

/// Access to the shared fixtures in `../shared/fixtures` (beside the package root), for
/// every test target. Tests that need them are skipped, saying so (``skipNote``), when the
/// folder is absent.
public enum Fixtures {
    /// The package's root folder.
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // Tests/TestSupport/Fixtures.swift -> package root
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// `../shared/fixtures`.
    public static let root: URL = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures")

    /// Whether the fixtures are there (their manifest is).
    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("manifest.json").path)
    }

    /// What a test skipped for want of the fixtures says.
    public static let skipNote = "../shared/fixtures is absent: fixture tests skipped"

    /// One entry of the manifest: a fixture file, what it is and what reading it gives.
    public struct Entry: Sendable, CustomStringConvertible {
        /// The file's path below ``Fixtures/root``.
        public let file: String
        /// The manifest's category (`plists`, `malformed`, `typedstream`, …).
        public let category: String
        /// What reading it must do (`reject`, …), where the manifest says.
        public let expect: String?
        /// The format the manifest names, or empty.
        public let format: String
        /// The path of its `*.expected.json`, if any.
        public let expected: String?
        /// The file's path, as tests name their cases.
        public var description: String { file }
        /// Where the file is.
        public var url: URL { Fixtures.root.appendingPathComponent(file) }
        /// Where the file is, as a path.
        public var path: String { url.path }
        /// The file's name.
        public var name: String { (file as NSString).lastPathComponent }
    }

    /// Every manifest entry, or none when the fixtures are absent.
    public static let manifest: [Entry] = {
        guard isAvailable,
            let data = try? Data(contentsOf: root.appendingPathComponent("manifest.json")),
            let array = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return array.compactMap { item in
            guard let file = item["file"] as? String, let category = item["category"] as? String else {
                return nil
            }
            return Entry(
                file: file, category: category, expect: item["expect"] as? String,
                format: item["format"] as? String ?? "", expected: item["expected"] as? String)
        }
    }()

    /// The entries of `category`.
    public static func entries(_ category: String) -> [Entry] {
        manifest.filter { $0.category == category }
    }

    /// The bytes of `entry`'s file.
    public static func data(_ entry: Entry) throws -> Data {
        try Data(contentsOf: entry.url)
    }

    /// The `*.expected.json` of an entry, converted back to a property list using the
    /// convention in SOURCES.md.
    public static func expectedValue(_ entry: Entry) throws -> PropertyList? {
        guard let expected = entry.expected else { return nil }
        let text = try String(contentsOf: root.appendingPathComponent(expected), encoding: .utf8)
        var parser = ExpectedJSONParser(text: Array(text.utf8))
        return try parser.parseDocument()
    }
}

/// A JSON reader that keeps integers exact (any size) and maps the fixture conventions
/// (`{"CF$UID": n}`, `{"data": b64}`, `{"date": iso}`, `{"real": "nan"}`) back to
/// property-list values.
public struct ExpectedJSONParser {
    /// Why a document could not be read.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, and where.
        public let description: String
    }

    let text: [UInt8]
    var index = 0

    /// A reader of `text`, a whole JSON document.
    public init(text: [UInt8]) { self.text = text }

    /// The whole document's value.
    public mutating func parseDocument() throws -> PropertyList {
        let value = try parseValue()
        skipSpace()
        guard index == text.count else { throw Failure(description: "trailing JSON at \(index)") }
        return value
    }

    mutating func skipSpace() {
        while index < text.count, [0x20, 0x0A, 0x0D, 0x09].contains(text[index]) { index += 1 }
    }

    mutating func parseValue() throws -> PropertyList {
        skipSpace()
        guard index < text.count else { throw Failure(description: "unexpected end") }
        switch text[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["):
            index += 1
            var elements: [PropertyList] = []
            skipSpace()
            if text[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try parseValue())
                skipSpace()
                let byte = text[index]
                index += 1
                if byte == UInt8(ascii: "]") { return .array(elements) }
                guard byte == UInt8(ascii: ",") else { throw Failure(description: "bad array at \(index)") }
            }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            index += 4
            return .bool(true)
        case UInt8(ascii: "f"):
            index += 5
            return .bool(false)
        case UInt8(ascii: "n"):
            throw Failure(description: "null has no property-list equivalent")
        default: return try parseNumber()
        }
    }

    mutating func parseObject() throws -> PropertyList {
        index += 1
        var dictionary = PropertyListDictionary()
        skipSpace()
        if text[index] == UInt8(ascii: "}") {
            index += 1
            return .dictionary(dictionary)
        }
        while true {
            skipSpace()
            let key = try parseString()
            skipSpace()
            guard text[index] == UInt8(ascii: ":") else {
                throw Failure(description: "expected : at \(index)")
            }
            index += 1
            dictionary[key] = try parseValue()
            skipSpace()
            let byte = text[index]
            index += 1
            if byte == UInt8(ascii: "}") { break }
            guard byte == UInt8(ascii: ",") else { throw Failure(description: "bad object at \(index)") }
        }
        if dictionary.count == 1, let key = dictionary.keys.first, let value = dictionary[key] {
            switch (key, value) {
            case ("CF$UID", .integer(let n)):
                if let uid = n.uint64Value { return .uid(uid) }
            case ("data", .string(let base64)):
                if let data = Data(base64Encoded: base64) { return .data(data) }
            case ("date", .string(let iso)):
                // Fractions to the microsecond, as plistlib writes them.
                if let seconds = ISO8601Text.secondsSince2001(iso) {
                    return .date(Date(timeIntervalSinceReferenceDate: seconds))
                }
            case ("real", .string(let special)):
                switch special {
                case "nan": return .real(.nan)
                case "inf": return .real(.infinity)
                case "-inf": return .real(-.infinity)
                default: break
                }
            default: break
            }
        }
        return .dictionary(dictionary)
    }

    mutating func parseString() throws -> String {
        guard text[index] == UInt8(ascii: "\"") else {
            throw Failure(description: "expected string at \(index)")
        }
        index += 1
        var scalars = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
            bytes.removeAll()
        }
        while true {
            let byte = text[index]
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                flush()
                let escape = text[index]
                index += 1
                switch escape {
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{c}")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), text[index] == UInt8(ascii: "\\"),
                        text[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try hex4()
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: scalars.append(Unicode.Scalar(escape))
                }
            } else {
                bytes.append(byte)
            }
        }
        flush()
        return String(scalars)
    }

    mutating func hex4() throws -> UInt32 {
        guard let value = UInt32(String(decoding: text[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw Failure(description: "bad \\u escape at \(index)")
        }
        index += 4
        return value
    }

    mutating func parseNumber() throws -> PropertyList {
        let start = index
        while index < text.count,
            !([UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")] + [0x20, 0x0A, 0x0D, 0x09]).contains(
                text[index])
        {
            index += 1
        }
        let token = String(decoding: text[start..<index], as: UTF8.self)
        if token.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            guard let real = Double(token) else { throw Failure(description: "bad real \(token)") }
            return .real(real)
        }
        guard let integer = PropertyListInteger(decimal: Substring(token)) else {
            throw Failure(description: "bad integer \(token)")
        }
        return .integer(integer)
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` with up to microsecond fractions, as Python's
/// `datetime.isoformat()` writes it; Foundation's formatter only keeps milliseconds.
public enum ISO8601Text {
    /// The seconds from 2001-01-01 of `text`, or `nil` when it is not of that form.
    public static func secondsSince2001(_ text: String) -> Double? {
        var body = Substring(text)
        guard body.hasSuffix("Z") else { return nil }
        body = body.dropLast()
        var fraction: Substring = ""
        if let dot = body.firstIndex(of: ".") {
            fraction = body[body.index(after: dot)...]
            body = body[..<dot]
        }
        let parts = body.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" })
        guard parts.count == 6, fraction.count <= 6, fraction.allSatisfy(\.isASCII),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let hour = Int(parts[3]), let minute = Int(parts[4]), let second = Int(parts[5])
        else { return nil }
        let microseconds =
            fraction.isEmpty ? 0 : Int(fraction.padding(toLength: 6, withPad: "0", startingAt: 0))
        guard let microseconds else { return nil }
        let days =
            daysFromCivil(year: year, month: month, day: day) - daysFromCivil(year: 2001, month: 1, day: 1)
        let whole = Double(((days * 24 + hour) * 60 + minute) * 60 + second)
        return whole + Double(microseconds) / 1_000_000
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
