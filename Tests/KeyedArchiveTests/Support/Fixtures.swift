import Foundation
import KeyedArchive
import Testing

/// Access to the shared fixtures in `../shared/fixtures` (beside the package root).
/// Tests that need them are skipped, saying so, when the folder is absent.
enum Fixtures {
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // Tests/KeyedArchiveTests/Support/Fixtures.swift -> package root
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()

    static let root: URL = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures")

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("manifest.json").path)
    }

    static let skipNote = "../shared/fixtures is absent: fixture tests skipped"

    struct Entry: Sendable, CustomStringConvertible {
        let file: String
        let category: String
        let expect: String?
        let format: String
        let expected: String?
        var description: String { file }
        var url: URL { Fixtures.root.appendingPathComponent(file) }
        var name: String { (file as NSString).lastPathComponent }
    }

    /// Every manifest entry, or none when the fixtures are absent.
    static let manifest: [Entry] = {
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

    static func entries(_ category: String) -> [Entry] {
        manifest.filter { $0.category == category }
    }

    static func data(_ entry: Entry) throws -> Data {
        try Data(contentsOf: entry.url)
    }

    /// The `*.expected.json` of an entry, converted back to a property list using the
    /// convention in SOURCES.md.
    static func expectedValue(_ entry: Entry) throws -> PropertyList? {
        guard let expected = entry.expected else { return nil }
        let text = try String(contentsOf: root.appendingPathComponent(expected), encoding: .utf8)
        var parser = ExpectedJSONParser(text: Array(text.utf8))
        return try parser.parseDocument()
    }
}

/// A JSON reader that keeps integers exact (any size) and maps the fixture conventions
/// (`{"CF$UID": n}`, `{"data": b64}`, `{"date": iso}`, `{"real": "nan"}`) back to
/// property-list values.
struct ExpectedJSONParser {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let text: [UInt8]
    var index = 0

    mutating func parseDocument() throws -> PropertyList {
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
