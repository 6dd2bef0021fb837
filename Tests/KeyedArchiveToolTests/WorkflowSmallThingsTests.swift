import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

#if canImport(Glibc)
import Glibc
#endif

/// Issue 30's small things: destinations that are not regular files, `help`, `VERB --help`,
/// the final newline of JSON on standard output, and the readers naming what they were given.
@Suite struct WorkflowSmallThingsTests {
    /// Reads a FIFO on another thread while the tool writes it: the FIFO is written in place
    /// (it stays a FIFO, and no temporary file is left in its folder).
    private func readFIFO(_ path: String, while body: () -> ToolRun) -> (ToolRun, Data) {
        final class Box: @unchecked Sendable { var data = Data() }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            if let handle = FileHandle(forReadingAtPath: path) {
                box.data = handle.readDataToEndOfFile()
                try? handle.close()
            }
            done.signal()
        }
        thread.start()
        let run = body()
        done.wait()
        return (run, box.data)
    }

    @Test func convertWritesAFIFOInPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(#"{"Title": "Potato Bug"}"#, to: "in.json")
        let fifo = directory.path("out.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let (run, data) = readFIFO(fifo) { ToolRun(["-convert", "xml1", "-o", fifo, input]) }
        #expect(run.status == 0, "\(run.error)")
        #expect(String(decoding: data, as: UTF8.self).contains("<string>Potato Bug</string>"))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
        #expect(try directory.contents() == ["in.json", "out.fifo"])
    }

    @Test func extractAndEditsWriteAFIFOInPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(#"{"Title": "Potato Bug", "Legs": 14}"#, to: "in.json")
        let fifo = directory.path("out.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let (extract, extracted) = readFIFO(fifo) {
            ToolRun(["-extract", "Legs", "json", "-o", fifo, input])
        }
        #expect(extract.status == 0, "\(extract.error)")
        #expect(String(decoding: extracted, as: UTF8.self) == "14")
        let (edit, edited) = readFIFO(fifo) {
            ToolRun(["-replace", "Legs", "-integer", "8", "-o", fifo, input])
        }
        #expect(edit.status == 0, "\(edit.error)")
        #expect(String(decoding: edited, as: UTF8.self).contains("8"))
        #expect(try directory.contents() == ["in.json", "out.fifo"])
    }

    @Test(arguments: [["help"], ["help", "decode"]])
    func helpWordPrintsUsage(arguments: [String]) {
        let run = ToolRun(arguments)
        #expect(run.status == 0)
        #expect(run.outputText == Usage.text)
        #expect(run.error.isEmpty)
    }

    @Test(arguments: ["decode", "textconv", "diff"])
    func verbHelpPrintsThatVerbsHelp(verb: String) {
        for option in ["--help", "-help", "-h"] {
            let run = ToolRun([verb, option])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.outputText.hasPrefix("usage: keyed-archive \(verb)"), "\(run.outputText)")
            #expect(run.outputText == Usage.help(for: verb))
        }
    }

    @Test func jsonOnStandardOutputEndsWithANewline() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            #"<plist><dict><key>a</key><array><integer>1</integer></array></dict></plist>"#, to: "a.plist")
        for arguments in [
            ["-convert", "json", "-o", "-", path], ["-convert", "json", "-r", "-o", "-", path],
            ["-extract", "a", "json", "-o", "-", path], ["-create", "json", "-"],
        ] {
            let run = ToolRun(arguments)
            #expect(run.status == 0, "\(arguments): \(run.error)")
            #expect(run.outputText.hasSuffix("\n"), "\(arguments)")
            #expect(!run.outputText.hasSuffix("\n\n"), "\(arguments)")
        }
        // A file gets the JSON alone.
        let run = ToolRun(["-convert", "json", "-o", directory.path("a.json"), path])
        #expect(run.status == 0)
        #expect(try directory.read("a.json") == Data(#"{"a":[1]}"#.utf8))
    }

    @Test func readersNameTypedstreamsEmptyInputAndJSON() throws {
        let typedstream = Data(
            [4, 11] + Array("streamtyped".utf8) + [0x81, 0xe8, 0x03, 0x84, 0x01, 0x40, 0x84])
        for read in [
            { (data: Data) throws -> Void in _ = try PropertyList(from: data) },
            { (data: Data) throws -> Void in _ = try KeyedUnarchiver(forReadingFrom: data) },
            { (data: Data) throws -> Void in _ = try KeyedUnarchiver.objectGraph(from: data) },
        ] {
            #expect {
                try read(typedstream)
            } throws: { error in
                "\(error)".contains("typedstream (NSArchiver)")
                    && "\(error)".contains("TypedStreamUnarchiver")
            }
            #expect {
                try read(Data())
            } throws: { error in
                "\(error)".contains("empty input")
            }
            #expect {
                try read(Data(#"{"Title": "Potato Bug"}"#.utf8))
            } throws: { error in
                "\(error)".contains("JSON, not a property list")
            }
            #expect {
                try read(Data("[1, 2]".utf8))
            } throws: { error in
                "\(error)".contains("JSON, not a property list")
            }
        }
        // OpenStep is still OpenStep.
        #expect(try PropertyList(from: Data(#"{ "a" = 1; }"#.utf8)) == ["a": "1"])
    }
}
