import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// `-convert` of an OpenStep file builds no tree where the event reader reads it: the bytes
/// are the tree's way's (the OpenStep reader, then the value written), and wherever the
/// event reader gives up, the tool answers as it did.
@Suite struct StreamedOpenStepInputTests {
    typealias Target = StreamedJSONInputTests.Target

    /// What the tool wrote the tree's way, or nil when it refuses `data`.
    static func tree(
        _ data: Data, _ target: Target,
        readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) -> Data? {
        guard let value = try? PropertyList(from: data, options: readingOptions) else { return nil }
        return StreamedJSONInputTests.written(value, target, inputLength: data.count)
    }

    static func streamed(
        _ data: Data, _ target: Target,
        readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws -> Data {
        let limit = Tool.outputLimit(forInputLength: data.count)
        var text = Data()
        switch target {
        case .json, .prettyJSON:
            try PropertyListStreamedConversion.json(
                fromOpenStep: data, readingOptions: readingOptions,
                options: PropertyListJSONOptions(
                    prettyPrinted: target == .prettyJSON, sortsKeys: false, maximumOutputBytes: limit)
            ) { text.append(contentsOf: $0) }
        case .xml:
            try PropertyListStreamedConversion.xml(
                fromOpenStep: data, readingOptions: readingOptions, maximumOutputBytes: limit
            ) { text.append(contentsOf: $0) }
        case .binary:
            text = try PropertyListStreamedConversion.binary(
                fromOpenStep: data, readingOptions: readingOptions)
        }
        return text
    }

    /// Checks the stream (where it finishes) and the tool against the tree's way.
    static func expectTreesResults(_ data: Data, _ label: String, throughTool: Bool = true) {
        for target in Target.allCases {
            let expected = tree(data, target)
            if let streamed = try? streamed(data, target) {
                #expect(streamed == expected, "\(label) \(target): streamed differs from the tree's")
            }
            guard throughTool else { continue }
            let run = ToolRun(["-convert"] + target.arguments + ["-o", "-", "--", "-"], standardInput: data)
            if target == .json { StreamedPrintTests.expectTreesResult(data, "\(label) -p") }
            if let expected {
                #expect(run.status == 0, "\(label) \(target): \(run.error)")
                // JSON on standard output ends with a newline.
                let newline: [UInt8] = target == .json || target == .prettyJSON ? [0x0A] : []
                #expect(
                    run.output == expected + newline,
                    "\(label) \(target): the tool's output differs from the tree's")
            } else {
                #expect(run.status == 1, "\(label) \(target)")
                #expect(run.output.isEmpty && !run.error.isEmpty, "\(label) \(target)")
            }
        }
    }

    /// `value` as OpenStep text, with the variations `seed` picks: unquoted strings where
    /// they may be, `'` quotes, escapes, comments, spaced data, trailing commas. Everything
    /// but data, arrays and dictionaries is written as a string.
    static func openStep(_ value: PropertyList, seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        func next() -> UInt64 { random.next() }
        func string(_ text: String) -> String {
            let unquoted = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$/:.-".utf8)
            if !text.isEmpty, text.utf8.allSatisfy({ unquoted.contains($0) }), !text.contains("//"),
                !text.contains("/*"), next() % 2 == 0
            {
                return text
            }
            let quote: Character = next() % 4 == 0 ? "'" : "\""
            var out = String(quote)
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += next() % 2 == 0 ? "\\t" : "\t"
                case "\u{7}": out += "\\a"
                case "\"" where quote == "\"": out += "\\\""
                case "'" where quote == "'": out += "\\'"
                default: out.unicodeScalars.append(scalar)
                }
            }
            out.append(quote)
            return out
        }
        func write(_ value: PropertyList, _ indent: String) -> String {
            let comment = next() % 9 == 0 ? (next() % 2 == 0 ? " /* note */ " : " // note\n\(indent)") : " "
            switch value {
            case .string(let text): return string(text)
            case .integer(let number): return string("\(number)")
            case .real(let number): return string("\(number)")
            case .bool(let flag): return string(flag ? "YES" : "NO")
            case .date(let date): return string("\(date.timeIntervalSinceReferenceDate)")
            case .uid(let number): return "{ CF$UID = \(number); }"
            case .data(let bytes):
                let spaced = next() % 2 == 0
                return "<"
                    + bytes.enumerated().map {
                        String(format: "%02x", $0.element) + (spaced && $0.offset % 4 == 3 ? " " : "")
                    }.joined() + ">"
            case .array(let elements):
                let body = elements.map { write($0, indent + "  ") }.joined(separator: ",\(comment)")
                return "(" + body + (elements.isEmpty || next() % 3 != 0 ? "" : ",") + ")"
            case .dictionary(let dictionary):
                var out = "{\n"
                for (key, value) in zip(dictionary.keys, dictionary.values) {
                    out += indent + "  " + string(key) + " =" + comment + write(value, indent + "  ") + ";\n"
                }
                return out + indent + "}"
            }
        }
        return write(value, "")
    }

    @Test func readingLimitsFallWhereTheReadersFall() throws {
        var outcomes: Set<Bool> = []
        for seed in UInt64(1)...10 {
            var value = GeneratedPropertyLists.value(seed: seed * 11)
            if case .array = value {} else if case .dictionary = value {} else { value = [value] }
            let data = Data(Self.openStep(value, seed: seed).utf8)
            var options: [PropertyListReadingOptions] = (0...8).map {
                PropertyListReadingOptions(maximumDepth: $0)
            }
            options += (0...60).map {
                PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: $0 * 4)
            }
            for option in options {
                for target in Target.allCases {
                    let tree = Self.tree(data, target, readingOptions: option)
                    if let text = try? Self.streamed(data, target, readingOptions: option) {
                        #expect(
                            text == tree,
                            "seed \(seed) \(target) depth \(option.maximumDepth) allowance \(option.baseValueAllowance)"
                        )
                    }
                    outcomes.insert(tree != nil)
                }
            }
        }
        #expect(outcomes == [true, false])
    }

    @Test func shapes() throws {
        let shapes: [(String, String, streams: Bool)] = [
            ("plain", #"{ a = b; "c d" = ("e", 'f', <0a0B 0c>); }"#, true),
            ("comments", "// head\n{ /* x */ a = b; // tail\n c = ( d, ); }\n/* end */", true),
            ("empty containers", "( (), {}, ( ) , { } )", true),
            ("unquoted characters", "{ $a_b.c/d:e-f = 0x1.5; }", true),
            ("escapes", #"( "a\tb\nc\\d\"e", 'it\'s', "\a\b\f\v\r" )"#, true),
            ("raw control characters and line breaks in quotes", "( \"a\u{1}b\nc\" )", true),
            ("unicode", "{ \"caf\u{E9}\" = \"\u{1F954}\"; }", true),
            ("byte-order mark", "\u{FEFF}( a )", true),
            ("CF$UID stays a dictionary", "{ o = { CF$UID = 1; }; }", true),
            ("octal escape", #"( "\101\351" )"#, false),
            ("U escape", #"( "\U00e9\Ud83e\Udd54" )"#, false),
            ("other escape", #"( "\q" )"#, false),
            ("key shorthand", "{ a; b = c; }", false),
            ("strings file", "a = b;\nc = d;\n", false),
            ("root string", "\"alone\"", false),
            ("only a comment", "/* nothing */", false),
            ("key given twice", "{ a = 1; b = 2; a = 3; }", false),
            ("canonically equivalent keys", "{ \"\u{E9}\" = 1; f = 2; \"e\u{301}\" = 3; }", false),
            ("line separator", "{ a = b;\u{2028} c = d; }", false),
            ("unterminated comment", "( a /* )", false),
            ("missing semicolon", "{ a = b }", false),
            ("odd data", "( <abc> )", false),
            ("data with a tab inside a pair", "( <a\tb> )", false),
            ("text after the root", "( a ) b", false),
            ("unterminated", "{ a = (b, c", false),
            ("two trailing commas", "( a,, )", false),
        ]
        for (label, text, streams) in shapes {
            let data = Data(text.utf8)
            Self.expectTreesResults(data, label)
            let streamed = try? Self.streamed(data, .json)
            #expect((streamed != nil) == streams, "\(label): streams \(streamed != nil)")
        }
        // UTF-16 with a byte-order mark is read as the tree reads it.
        let utf16 = Data([0xFF, 0xFE]) + "{ caf\u{E9} = \"\u{1F954}\"; }".data(using: .utf16LittleEndian)!
        Self.expectTreesResults(utf16, "UTF-16")
    }
}
