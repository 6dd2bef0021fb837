import Foundation
import Testing

@testable import KeyedArchiveTool

@Suite struct UsageTests {
    @Test(arguments: [["-help"], ["-h"], ["--help"], ["-help", "ignored.plist"]])
    func helpGoesToStandardOutput(arguments: [String]) {
        let run = ToolRun(arguments)
        #expect(run.status == 0)
        #expect(run.error.isEmpty)
        #expect(run.outputText == Usage.text)
    }

    @Test func helpNamesEveryCommandAndOption() {
        for word in [
            "-lint", "-p", "-convert", "xml1", "binary1", "json", "-help", "-s", "-o", "-e", "-r", "--",
        ] {
            #expect(Usage.text.contains(" \(word)"), "help does not mention \(word)")
        }
        #expect(Usage.text.contains("64"))
    }

    @Test func noArgumentsPrintsUsageOnStandardError() {
        let run = ToolRun([])
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        #expect(run.error == Usage.text)
    }

    @Test(arguments: [
        (["-frobnicate", "a.plist"], "keyed-archive: unknown option '-frobnicate'"),
        (
            ["-convert", "yaml", "a.plist"],
            "keyed-archive: unknown format 'yaml' for -convert (use one of: xml1, binary1, json, swift, objc, keyed, typedstream)"
        ),
        (["-lint"], "keyed-archive: no files given"),
        (
            ["-p", "-o", "x", "a.plist"],
            "keyed-archive: -o is only valid with -convert, -extract, -insert, -replace and -remove"
        ),
    ])
    func badUsageExplainsAndExits64(arguments: [String], firstLine: String) {
        let run = ToolRun(arguments)
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        #expect(run.errorLines.first == firstLine)
        #expect(run.error.hasSuffix(Usage.synopsis))
    }

    @Test func badUsageTouchesNoFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        let run = ToolRun(["-convert", "yaml", path])
        #expect(run.status == 64)
        #expect(try directory.read("a.plist") == Data(Samples.xmlText.utf8))
    }
}
