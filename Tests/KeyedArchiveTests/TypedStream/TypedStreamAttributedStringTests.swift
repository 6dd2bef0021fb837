import Foundation
import KeyedArchive
import TestSupport
import Testing

/// The attributed-string fixtures (iMessage bodies) give the text and runs that
/// pytypedstream's dump shows, parsed from the dump itself.
@Suite("Typedstream attributed strings")
struct TypedStreamAttributedStringTests {
    /// What a reference dump says about an attributed string.
    struct Expected {
        var text = ""
        var runs: [(index: Int, length: Int)] = []
        var tables: [[String: String]] = []
    }

    /// Reads the text, the `iI` pairs and each dictionary's entries (values as dumped)
    /// of the root attributed string in a pytypedstream dump.
    static func parse(_ dump: String) -> Expected? {
        let lines = dump.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first, first.contains("AttributedString") else { return nil }
        var expected = Expected()
        var index = 1
        var pendingIndex: Int?
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("\ttype b'@': NSString(") || line.hasPrefix("\ttype b'@': NSMutableString(") {
                let start = line.index(after: line.firstIndex(of: "(") ?? line.startIndex)
                expected.text = unrepr(String(line[start..<line.index(before: line.endIndex)]))
            } else if line.hasPrefix("\t\ttype b'i': ") {
                pendingIndex = Int(line.dropFirst("\t\ttype b'i': ".count))
            } else if line.hasPrefix("\t\ttype b'I': "), let runIndex = pendingIndex,
                let length = Int(line.dropFirst("\t\ttype b'I': ".count))
            {
                expected.runs.append((runIndex, length))
            } else if line.hasPrefix("\ttype b'@': NSDictionary")
                || line.hasPrefix("\ttype b'@': NSMutableDictionary")
            {
                var table: [String: String] = [:]
                while index + 1 < lines.count, lines[index + 1].hasPrefix("\t\t") {
                    index += 1
                    let entry = lines[index].dropFirst(2)
                    // Keys are NSString('…'); values are the rest of the line.
                    if entry.hasPrefix("NSString("), let close = entry.range(of: "'): ") {
                        let key = String(
                            entry[entry.index(entry.startIndex, offsetBy: 10)..<close.lowerBound])
                        table[key] = String(entry[close.upperBound...])
                    }
                }
                expected.tables.append(table)
            }
            index += 1
        }
        return expected
    }

    /// Undoes Python's `repr` of a `str` (the quotes included).
    static func unrepr(_ quoted: String) -> String {
        var scalars = Array(quoted.unicodeScalars.dropFirst().dropLast())
        var result = String.UnicodeScalarView()
        var position = 0
        func hex(_ count: Int) -> Unicode.Scalar? {
            guard position + count < scalars.count + 1 else { return nil }
            let text = String(String.UnicodeScalarView(scalars[position..<position + count]))
            position += count
            return UInt32(text, radix: 16).flatMap(Unicode.Scalar.init)
        }
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            guard scalar == "\\", position < scalars.count else {
                result.append(scalar)
                continue
            }
            let escape = scalars[position]
            position += 1
            switch escape {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "x": if let value = hex(2) { result.append(value) }
            case "u": if let value = hex(4) { result.append(value) }
            case "U": if let value = hex(8) { result.append(value) }
            default: result.append(escape)
            }
        }
        scalars = []
        return String(result)
    }

    /// How the dump prints an attribute value, for the kinds it prints on one line.
    static func dumped(_ value: ArchivedAttributeValue) -> String? {
        switch value {
        case .string(let text): return "NSString(\(PyTypedStreamDump.stringRepr(text)))"
        case .integer(let number): return String(number)
        case .real(let number): return PyTypedStreamDump.floatRepr(number)
        default: return nil
        }
    }

    static let names = TypedStreamFixtureTests.names.filter { name in
        TypedStreamFixtureTests.reference(name)?.hasPrefix("type b'@': object of class NS") == true
            && TypedStreamFixtureTests.reference(name)?.contains("AttributedString") == true
    }

    @Test("text and runs agree with the reference dump", arguments: names)
    func runs(_ name: String) throws {
        let dump = try #require(TypedStreamFixtureTests.reference(name))
        let expected = try #require(Self.parse(dump))
        let value = try TypedStreamUnarchiver.unarchivedObject(from: try TypedStreamFixtureTests.data(name))
        let string = try #require(value as? ArchivedAttributedString, "\(name): \(type(of: value))")
        #expect(string.string == expected.text, "\(name)")
        #expect(string.runs.count == expected.runs.count, "\(name)")
        var location = 0
        for (run, want) in zip(string.runs, expected.runs) {
            #expect(run.range == location..<location + want.length, "\(name)")
            location += want.length
            let table = expected.tables[want.index - 1]
            #expect(Set(run.attributes.keys) == Set(table.keys), "\(name)")
            for (key, attribute) in run.attributes {
                guard let text = Self.dumped(attribute), let reference = table[key] else { continue }
                // Numbers print as "NSNumber, type b'q': 1".
                let shown =
                    reference.hasPrefix("NSNumber")
                    ? String(reference.split(separator: ": ").last ?? "") : reference
                #expect(text == shown, "\(name) \(key)")
            }
        }
    }

    @Test("the fixture list holds the iMessage bodies")
    func count() {
        #expect(Self.names.count >= 40 || !Fixtures.isAvailable)
    }
}
