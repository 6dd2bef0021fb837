import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// `decode` shows Apple's classes as people think of them; `--raw` keeps every field.
@Suite struct DecodeKnownClassesTests {
    static func archive(_ value: some KeyedCoding) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let data = try KeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        return (directory, try directory.write(data, to: "value.archive"))
    }

    static let text = ArchivedAttributedString(
        "Hello, world",
        runs: [
            .init(
                range: 0..<5, attributes: ["NSFont": .font(ArchivedFont(name: "Helvetica-Bold", size: 12))]),
            .init(range: 5..<12, attributes: ["NSColor": .color(ArchivedColor(red: 1, green: 0, blue: 0))]),
        ])

    @Test func attributedStringsShowTextAndRuns() throws {
        let (directory, path) = try Self.archive(Self.text)
        defer { directory.remove() }
        let run = ToolRun(["decode", path])
        #expect(run.status == 0)
        #expect(
            run.outputText == """
                root: NSAttributedString #1 "Hello, world"
                  0..<5 "Hello" NSFont = Helvetica-Bold 12 pt
                  5..<12 ", world" NSColor = calibratedRGB 1 0 0 1 #FF0000FF

                """)
        let raw = ToolRun(["decode", "--raw", path])
        #expect(raw.status == 0)
        #expect(raw.outputText.contains("NSAttributeInfo: NSMutableData"))
        #expect(raw.outputText.contains("NSName: \"Helvetica-Bold\""))
    }

    @Test func jsonCarriesSummaries() throws {
        let (directory, path) = try Self.archive(ArchivedIndexSet(ranges: [0..<50, 100..<150]))
        defer { directory.remove() }
        let run = ToolRun(["decode", "--json", path])
        #expect(run.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(run.outputText.utf8)) as? [String: Any]
        let root = try #require(json?["root"] as? [String: Any])
        #expect(root["$class"] as? String == "NSIndexSet")
        #expect(root["$summary"] as? String == "[0..<50, 100..<150]")
        #expect((root["ranges"] as? [[Int]]) == [[0, 50], [100, 150]])
        let raw = ToolRun(["decode", "--json", "--raw", path])
        let rawRoot = (try JSONSerialization.jsonObject(with: Data(raw.outputText.utf8)) as? [String: Any])?[
            "root"]
        #expect((rawRoot as? [String: Any])?["NSRangeCount"] as? Int == 2)
    }

    @Test func fontsColoursAndDecimals() throws {
        for (value, expected) in [
            (ArchivedAttributeValue.font(ArchivedFont(name: "Menlo", size: 11.5)), "NSFont #1 Menlo 11.5 pt"),
            (.color(ArchivedColor(white: 0.5)), "NSColor #1 calibratedWhite 0.5 1"),
        ] {
            let text = ArchivedAttributedString("x", attributes: ["a": value])
            let (directory, path) = try Self.archive(text)
            defer { directory.remove() }
            let raw = ToolRun(["decode", "--raw", path])
            #expect(
                raw.outputText.contains(
                    expected.replacingOccurrences(of: " #1", with: "").components(separatedBy: " ")[0]))
            let run = ToolRun(["decode", path])
            #expect(run.outputText.contains(String(expected.split(separator: " ", maxSplits: 2)[2])))
        }
        let (directory, path) = try Self.archive(Decimal(string: "-12.5")!)
        defer { directory.remove() }
        #expect(ToolRun(["decode", path]).outputText == "root: NSDecimalNumber #1 -12.5\n")
    }

    @Test func urlRequestsShowMethodURLAndHeaders() throws {
        let request = ArchivedURLRequest(
            url: URL(string: "https://example.com/upload")!, httpMethod: "PUT",
            headerFields: ["Accept": "*/*", "X-Token": "abc"], isMutable: true)
        let (directory, path) = try Self.archive(request)
        defer { directory.remove() }
        let run = ToolRun(["decode", path])
        #expect(run.status == 0)
        #expect(
            run.outputText == """
                root: NSMutableURLRequest #1 PUT https://example.com/upload
                  Accept: */*
                  X-Token: abc

                """)
        let json = ToolRun(["decode", "--json", path])
        let root = (try JSONSerialization.jsonObject(with: Data(json.outputText.utf8)) as? [String: Any])?[
            "root"]
        #expect((root as? [String: Any])?["method"] as? String == "PUT")
        #expect((root as? [String: Any])?["url"] as? String == "https://example.com/upload")
        let raw = ToolRun(["decode", "--raw", path])
        #expect(raw.outputText.contains("NS.httpMethod: \"PUT\""))
    }

    @Test func rawIsOnlyForDecode() {
        let run = ToolRun(["-lint", "--raw", "x.plist"])
        #expect(run.status == 64)
    }
}
