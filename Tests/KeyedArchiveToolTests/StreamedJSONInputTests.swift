import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// `-convert` of a JSON file builds no tree: the JSON is read as events into the JSON
/// writer, or into a compact binary form that is copied (`binary1`) or transcoded (`xml1`).
/// These check the bytes against the tree's way (the tool's JSON reader, then the value
/// written), and that the tool answers as it did wherever the stream gives up.
@Suite struct StreamedJSONInputTests {
    enum Target: CaseIterable {
        case json, prettyJSON, xml, binary

        var arguments: [String] {
            switch self {
            case .json: return ["json"]
            case .prettyJSON: return ["json", "-r"]
            case .xml: return ["xml1"]
            case .binary: return ["binary1"]
            }
        }
    }

    /// The value the tool reads from `data` the tree's way, or nil when it refuses it.
    static func treeValue(_ data: Data) -> PropertyList? {
        if let value = try? PropertyList(from: data) { return value }
        var text = data[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        return try? JSONValueReader.read(String(decoding: text, as: UTF8.self))
    }

    /// What the tool wrote the tree's way.
    static func tree(_ data: Data, _ target: Target) -> Data? {
        guard let value = treeValue(data) else { return nil }
        return written(value, target, inputLength: data.count)
    }

    /// What the tool writes as `target` for `value`, read from a file of `inputLength` bytes.
    static func written(_ value: PropertyList, _ target: Target, inputLength: Int) -> Data? {
        let limit = Tool.outputLimit(forInputLength: inputLength)
        switch target {
        case .json, .prettyJSON:
            var text = Data()
            let options = PropertyListJSONOptions(
                prettyPrinted: target == .prettyJSON, sortsKeys: false, maximumOutputBytes: limit)
            guard (try? value.writeJSON(options: options, to: { text.append(contentsOf: $0) })) != nil else {
                return nil
            }
            return text
        case .xml:
            return try? value.data(
                format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: limit))
        case .binary:
            return try? value.data(format: .binary)
        }
    }

    /// The library's streamed conversion.
    static func streamed(_ data: Data, _ target: Target, limit: Int? = nil) throws -> Data {
        let limit = limit ?? Tool.outputLimit(forInputLength: data.count)
        var text = Data()
        switch target {
        case .json, .prettyJSON:
            try PropertyListStreamedConversion.json(
                fromJSON: data,
                options: PropertyListJSONOptions(
                    prettyPrinted: target == .prettyJSON, sortsKeys: false, maximumOutputBytes: limit)
            ) { text.append(contentsOf: $0) }
        case .xml:
            try PropertyListStreamedConversion.xml(fromJSON: data, maximumOutputBytes: limit) {
                text.append(contentsOf: $0)
            }
        case .binary:
            text = try PropertyListStreamedConversion.binary(fromJSON: data)
        }
        return text
    }

    /// Runs the tool on `data` for every target and checks its result is the tree's way's;
    /// and the library's stream, where it finishes, gives the same bytes.
    static func expectTreesResults(_ data: Data, _ label: String) {
        for target in Target.allCases {
            let expected = tree(data, target)
            if let streamed = try? streamed(data, target) {
                #expect(streamed == expected, "\(label) \(target): streamed differs from the tree's")
            }
            let run = ToolRun(["-convert"] + target.arguments + ["-o", "-", "--", "-"], standardInput: data)
            if target == .json {
                let printed = ToolRun(["-p", "--", "-"], standardInput: data)
                #expect(
                    printed.outputText == treeValue(data).map { PropertyListPrinter.render($0) } ?? "",
                    "\(label) -p")
                #expect(printed.status == (treeValue(data) == nil ? 1 : 0), "\(label) -p")
            }
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

    /// Every fixture as the tool's JSON (compact and indented): data, dates and UIDs are
    /// one-key objects, which read back as dictionaries.
    static let jsonFixtures: [(name: String, data: Data)] = {
        var found: [(name: String, data: Data)] = []
        for (name, data) in StreamedConversionTests.binaryFixtures {
            guard let value = try? PropertyList(from: data) else { continue }
            for pretty in [false, true] {
                var text = Data()
                let options = PropertyListJSONOptions(prettyPrinted: pretty, sortsKeys: false)
                guard (try? value.writeJSON(options: options, to: { text.append(contentsOf: $0) })) != nil,
                    text.first == UInt8(ascii: "{") || text.first == UInt8(ascii: "[")
                else { continue }
                found.append(("\(name) as JSON\(pretty ? ", indented" : "")", text))
            }
        }
        return found
    }()

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func everyFixtureAsJSONStreamsTheTreesBytes() throws {
        #expect(Self.jsonFixtures.count > 250, "fixtures found: \(Self.jsonFixtures.count)")
        var streamed = 0
        for (index, (name, data)) in Self.jsonFixtures.enumerated() {
            for target in Target.allCases {
                let expected = Self.tree(data, target)
                #expect(expected != nil, "\(name) \(target): the tree's way reads it")
                if let text = try? Self.streamed(data, target) {
                    #expect(text == expected, "\(name) \(target): streamed differs from the tree's")
                    streamed += 1
                }
            }
            if index % 5 == 0 { Self.expectTreesResults(data, name) }
        }
        #expect(streamed > 4 * 250, "conversions streamed: \(streamed)")
    }

    @Test func shapes() throws {
        let shapes: [(String, String, streams: Bool)] = [
            ("empty object (OpenStep reads it)", "{}", false),
            ("empty array", "[]", true),
            ("spaces", " \n\t{ \"a\" :\r\n [ 1 , 2.5 , true , false , \"x\" ] } \n", true),
            (
                "UID-like object stays a dictionary", #"{"$top":{"root":{"CF$UID":1}},"o":[{"CF$UID":2}]}"#,
                true
            ),
            ("key given twice", #"{"a":1,"b":2,"a":3}"#, false),
            ("escapes", #"["\"\\\/\b\f\n\r\t\u0000\u001f\u00e9\u20ac\ud83e\udd54"]"#, true),
            ("escape in the first key", #"{"a\"b":1}"#, false),
            ("escaped keys", #"{"k":1,"\u00e9":2,"tab\tkey":4}"#, true),
            ("canonically equivalent keys", #"{"k":1,"\u00e9":2,"e\u0301":3}"#, false),
            ("Kelvin sign and K", #"{"a":1,"K":2,"\u212a":3}"#, false),
            ("numbers", "[0,-0,7,-7,123456789012345678,-123456789012345678,1.0,1e3,-2.5E-3,0.1]", true),
            ("wide integers", "[9223372036854775807,-9223372036854775808,18446744073709551615]", true),
            ("beyond 64 bits", "[18446744073709551616,-9223372036854775809]", true),
            ("leading zeros", "[007,-00,00.5]", true),
            ("a plus sign", "[+1]", true),
            ("odd \\u", #"["\u+041"]"#, false),
            ("null", #"{"a":null}"#, false),
            ("infinite", "[1e400]", false),
            ("not a number", "[1-2]", false),
            ("trailing comma", "[1,]", false),
            ("trailing text", "[1] x", false),
            ("lone surrogate", #"["\ud800"]"#, false),
            ("bad surrogate pair", #"["\ud800\u0041"]"#, false),
            ("control character", "[\"a\u{1}b\"]", false),
            ("unterminated", #"{"a":[1,2"#, false),
            ("byte-order mark", "\u{FEFF}{\"a\":[]}", true),
            ("unicode", #"{"café":"🥔 日本語"}"#, true),
        ]
        for (label, text, streams) in shapes {
            let data = Data(text.utf8)
            Self.expectTreesResults(data, label)
            let streamed = try? Self.streamed(data, .json)
            let streamedInTool = Tool.isJSONNotOpenStep(data) && streamed != nil
            #expect(streamedInTool == streams, "\(label): streams \(streamedInTool)")
        }
        var invalid = Data(#"{"a":""#.utf8)
        invalid += Data([0xC3, 0x28]) + Data(#""}"#.utf8)
        #expect(throws: KeyedArchiveError.self) { try Self.streamed(invalid, .json) }
        Self.expectTreesResults(invalid, "invalid UTF-8")
    }

    @Test func jsonOutputBoundFallsWhereTheTreesFalls() throws {
        let value: PropertyList = [
            "items": .array(
                (0..<200).map { .string("item \($0) " + String(repeating: "x", count: $0 % 40)) }),
            "nested": ["a": [1, 2.5, true], "c": [[], [:]]],
        ]
        var json = Data()
        try value.writeJSON(options: PropertyListJSONOptions(prettyPrinted: false, sortsKeys: false)) {
            json.append(contentsOf: $0)
        }
        let reread = try #require(Self.treeValue(json))
        for target in [Target.json, .prettyJSON, .xml] {
            guard let length = Self.tree(json, target)?.count else { continue }
            for limit in stride(from: 0, through: length + 64, by: 9) {
                let tree: Data?
                if target == .xml {
                    tree = try? reread.data(
                        format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: limit))
                } else {
                    var text = Data()
                    let options = PropertyListJSONOptions(
                        prettyPrinted: target == .prettyJSON, sortsKeys: false, maximumOutputBytes: limit)
                    tree =
                        (try? reread.writeJSON(options: options, to: { text.append(contentsOf: $0) })) != nil
                        ? text : nil
                }
                let streamed = try? Self.streamed(json, target, limit: limit)
                #expect(tree == streamed, "\(target) limit \(limit)")
            }
        }
    }

    /// Files the tool reads as OpenStep or refuses are not taken for JSON.
    @Test func openStepIsNotJSON() throws {
        for text in [#"{ "a" = "b"; }"#, "(1, 2)", #"{ a = ("x", "y"); }"#, "[1, 2", #"{"a" = 1}"#] {
            #expect(
                !Tool.isJSONNotOpenStep(Data(text.utf8)) || Self.treeValue(Data(text.utf8)) == nil, "\(text)")
            Self.expectTreesResults(Data(text.utf8), text)
        }
    }
}
