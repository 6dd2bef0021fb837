import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

@Suite struct LintTests {
    @Test func goodFilesAreOK() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let xml = try directory.write(Samples.xmlText, to: "a.plist")
        let binary = try directory.write(try Samples.keyedArchive.data(format: .binary), to: "b.archive")
        let openStep = try directory.write("{ name = \"Potato Bug\"; legs = (1, 2); }", to: "c.strings")
        let run = ToolRun(["-lint", xml, binary, openStep])
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        #expect(run.outputText == "\(xml): OK\n\(binary): OK\n\(openStep): OK\n")
    }

    @Test func lintIsTheDefaultCommand() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        let run = ToolRun([path])
        #expect(run.status == 0)
        #expect(run.outputText == "\(path): OK\n")
    }

    @Test func silentPrintsOnlyFailures() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let good = try directory.write(Samples.xmlText, to: "good.plist")
        let bad = try directory.write(Samples.garbage, to: "bad.plist")
        let quiet = ToolRun(["-lint", "-s", good])
        #expect(quiet.status == 0)
        #expect(quiet.output.isEmpty)
        #expect(quiet.error.isEmpty)
        let failing = ToolRun(["-s", good, bad])
        #expect(failing.status == 1)
        #expect(failing.output.isEmpty)
        #expect(failing.errorLines.count == 1)
        #expect(failing.error.hasPrefix("\(bad): "))
    }

    /// CoreFoundation ignores what follows `</plist>` (a signed configuration file carries
    /// its signature there); so does the tool, and `-lint` says what it ignored, `OK` first.
    @Test func contentAfterThePropertyListIsIgnoredAndReported() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let signature = Data([0x30, 0x82, 0x04, 0x00, 0xFF, 0x00]) + Data(repeating: 0x41, count: 1228)
        let signed = try directory.write(Data(Samples.xmlText.utf8) + signature, to: "signed.plist")
        let lines = Samples.xmlText.split(separator: "\n", omittingEmptySubsequences: false).count
        let run = ToolRun(["-lint", signed])
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        #expect(run.outputText == "\(signed): OK (ignored 1234 bytes after </plist> at line \(lines))\n")
        // Silent mode prints nothing for it: it is OK.
        let quiet = ToolRun(["-lint", "-s", signed])
        #expect(quiet.status == 0)
        #expect(quiet.output.isEmpty)
        // The other commands read the same value.
        let printed = ToolRun(["-p", signed])
        #expect(printed.status == 0)
        #expect(
            printed.outputText
                == ToolRun(["-p", try directory.write(Samples.xmlText, to: "plain.plist")]).outputText)
    }

    @Test func oneIgnoredByteAfterABareValue() throws {
        let run = ToolRun(["-lint", "-"], standardInput: Data("<array/>\n\n  x".utf8))
        #expect(run.status == 0)
        #expect(run.outputText == "-: OK (ignored 1 byte after <array/> at line 3)\n")
    }

    @Test func whitespaceAfterThePropertyListIsNotReported() throws {
        let run = ToolRun(["-lint", "-"], standardInput: Data((Samples.xmlText + "\n\n<!-- c -->\n").utf8))
        #expect(run.outputText == "-: OK\n")
    }

    @Test func standardInput() throws {
        let run = ToolRun(["-lint", "-"], standardInput: Data(Samples.xmlText.utf8))
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        #expect(run.outputText == "-: OK\n")
    }

    /// Every malformed fixture gives exactly one line; those that must be rejected fail,
    /// and those that are valid property lists (but broken archives) pass.
    @Test(
        .enabled(if: Fixtures.isAvailable, Fixtures.skipComment),
        arguments: Fixtures.malformed)
    func malformedFixture(entry: Fixtures.Entry) {
        let run = ToolRun(["-lint", entry.path])
        let lines = run.outputLines + run.errorLines
        #expect(lines.count == 1, "\(entry.file): \(lines)")
        switch entry.expect ?? "" {
        case "reject":
            #expect(run.status == 1, "\(entry.file) was accepted")
            #expect(run.error.hasPrefix("\(entry.path): "), "\(entry.file): \(run.error)")
            #expect(!run.error.contains("not implemented"), "\(entry.file): \(run.error)")
        case "plist-ok-archive-bad":
            #expect(run.status == 0, "\(entry.file): \(run.error)")
            #expect(run.outputText == "\(entry.path): OK\n", "\(entry.file)")
        default:  // reject-or-decode: either, but consistently
            #expect(
                (run.status == 0 && run.error.isEmpty) || (run.status == 1 && run.output.isEmpty),
                "\(entry.file): status \(run.status), \(lines)")
        }
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func allMalformedFixturesAtOnce() {
        let paths = Fixtures.malformed.map(\.path)
        let run = ToolRun(["-lint"] + paths)
        #expect(run.status == 1)
        #expect(run.outputLines.count + run.errorLines.count == paths.count)
        let rejected = Fixtures.malformed.filter { $0.expect == "reject" }
        for entry in rejected {
            #expect(run.errorLines.contains { $0.hasPrefix("\(entry.path): ") }, "\(entry.file)")
        }
    }
}
