import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// Apple's `plutil` reads JSON files as well as property lists; so does every command here.
@Suite struct JSONInputTests {
    static let text = #"{"Title": "Potato Bug", "Rating": 3, "Scale": 2.5, "Tags": ["small", true]}"#
    static let value: PropertyList = [
        "Title": "Potato Bug", "Rating": 3, "Scale": 2.5, "Tags": ["small", true],
    ]

    @Test func everyReadingCommandReadsJSON() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Data(("\u{FEFF}\n  " + Self.text).utf8), to: "bug.json")
        #expect(ToolRun(["-lint", path]).outputText == "\(path): OK\n")
        let xml = ToolRun(["-convert", "xml1", "-o", "-", path])
        #expect(xml.status == 0)
        #expect(try PropertyList(from: xml.output) == Self.value)
        let extract = ToolRun(["-extract", "Tags.0", "raw", "-o", "-", path])
        #expect(extract.outputText == "small\n")
        #expect(ToolRun(["-type", "Rating", path]).outputText == "integer\n")
        #expect(ToolRun(["-p", path]).outputText.contains("\"Title\" => \"Potato Bug\""))
    }

    @Test func anEditKeepsTheFileJSON() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Data(Self.text.utf8), to: "bug.json")
        let run = ToolRun(["-insert", "Legs", "-integer", "6", path])
        #expect(run.status == 0, "\(run.error)")
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written.first == UInt8(ascii: "{"))
        let expected: PropertyList = [
            "Title": "Potato Bug", "Rating": 3, "Scale": 2.5, "Tags": ["small", true], "Legs": 6,
        ]
        #expect(try JSONValueReader.read(String(decoding: written, as: UTF8.self)) == expected)
    }

    @Test func badJSONSaysWhyInBothReadings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Data(#"{"a": 1,}"#.utf8), to: "bad.json")
        let run = ToolRun(["-lint", path])
        #expect(run.status == 1)
        #expect(run.error.contains("as JSON: "), "\(run.error)")
        let null = try directory.write(Data(#"[null]"#.utf8), to: "null.json")
        #expect(ToolRun(["-lint", null]).status == 1)
        // Not JSON-shaped: the property-list error alone.
        let text = try directory.write(Data("hello <".utf8), to: "text.plist")
        #expect(!ToolRun(["-lint", text]).error.contains("as JSON"))
    }
}
