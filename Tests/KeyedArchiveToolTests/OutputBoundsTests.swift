import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// What is printed or written for a file grows with the file, not with values × depth:
/// indentation stops growing, and output past 64 bytes per input byte (at least 64 MB) is
/// refused.
@Suite struct OutputBoundsTests {
    @Test func printingStopsIndentingAt32Levels() throws {
        var value: PropertyList = "deep"
        for _ in 0..<40 { value = [value] }
        let text = PropertyListPrinter.render(value)
        let deepest = try #require(text.split(separator: "\n").first { $0.contains("\"deep\"") })
        #expect(deepest == String(repeating: "  ", count: 32) + "⋯40 0 => \"deep\"")
        #expect(text.split(separator: "\n").allSatisfy { !$0.hasPrefix(String(repeating: " ", count: 65)) })
    }

    @Test func printingHandsOutTextInPiecesAndStopsAtItsLimit() throws {
        let value = PropertyList.array(Array(repeating: "0123456789", count: 20_000))
        var pieces: [String] = []
        try PropertyListPrinter.render(value, limit: .max) { pieces.append($0) }
        #expect(pieces.count > 3)
        #expect(pieces.allSatisfy { $0.utf8.count < 2 * PropertyListPrinter.chunkSize })
        #expect(pieces.joined() == PropertyListPrinter.render(value))
        var written = 0
        #expect(throws: PropertyListPrinter.OutputLimitExceeded.self) {
            try PropertyListPrinter.render(value, limit: 100_000) { written += $0.utf8.count }
        }
        #expect(written <= 100_000)
    }

    @Test func writersStopAtTheirLimit() throws {
        let value = try PropertyList(from: BPlist.nestedBomb(depth: 100, levels: 12))
        let xml = #expect(throws: KeyedArchiveError.self) {
            try value.data(format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: 50_000))
        }
        #expect(xml?.code == .limitExceeded)
        let json = #expect(throws: KeyedArchiveError.self) {
            try value.jsonData(options: PropertyListJSONOptions(maximumOutputBytes: 50_000))
        }
        #expect(json?.code == .limitExceeded)
        // Without a limit they write it all; JSON's indentation stops at 32 levels.
        let full = try value.jsonData()
        let lines = String(decoding: full, as: UTF8.self).split(separator: "\n")
        let longestIndent = lines.map { line in line.prefix { $0 == " " }.count }.max()
        #expect(longestIndent == 64)
    }

    @Test func theToolRefusesOutputFarBeyondItsInput() throws {
        // 490 nested arrays then a 2^19-leaf bomb: about 2.6 KB. As XML every leaf sits
        // under ~500 tabs: 270 MB before, refused at 64 MB now.
        let data = BPlist.nestedBomb(depth: 490, levels: 20)
        #expect(data.count < 3000)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: "bomb.plist")
        // To standard output the text streams until the bound: never more than the bound.
        let xml = ToolRun(["-convert", "xml1", "-o", "-", path])
        #expect(xml.status == 1)
        #expect(xml.error.contains("longer than 67108864 bytes"), "\(xml.error)")
        #expect(xml.output.count <= 64 << 20)
        // To a file it streams through the durable writer, which leaves nothing behind.
        let file = ToolRun(["-convert", "xml1", "-o", directory.path("bomb.xml"), path])
        #expect(file.status == 1)
        #expect(file.error.contains("longer than 67108864 bytes"), "\(file.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["bomb.plist"])
        #expect(Tool.outputLimit(forInputLength: data.count) == 64 << 20)
        #expect(Tool.outputLimit(forInputLength: 10 << 20) == 640 << 20)
    }
}
