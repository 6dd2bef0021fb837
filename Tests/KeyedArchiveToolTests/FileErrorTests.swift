import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bad inputs give one line naming the file on standard error and exit status 1, never
/// a crash, and do not stop the files after them.
@Suite struct FileErrorTests {
    @Test(arguments: ["-lint", "-p"])
    func missingFile(command: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("absent.plist")
        let run = ToolRun([command, path])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.errorLines == ["\(path): No such file or directory"])
    }

    @Test func directory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = ToolRun(["-lint", directory.url.path])
        #expect(run.status == 1)
        #expect(run.errorLines == ["\(directory.url.path): Is a directory"])
    }

    @Test func emptyFileAndEmptyStandardInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Data(), to: "empty.plist")
        let run = ToolRun(["-lint", path, "-"])
        #expect(run.status == 1)
        #expect(run.errorLines == ["\(path): file is empty", "-: standard input is empty"])
    }

    @Test(arguments: [("garbage.plist", Samples.garbage), ("broken.bplist", Samples.brokenBinary)])
    func unparsableFile(name: String, bytes: Data) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(bytes, to: name)
        for command in [["-lint"], ["-p"], ["-convert", "xml1"]] {
            let run = ToolRun(command + [path])
            #expect(run.status == 1, "\(command)")
            #expect(run.output.isEmpty, "\(command)")
            #expect(run.errorLines.count == 1, "\(command): \(run.error)")
            #expect(run.error.hasPrefix("\(path): "), "\(command): \(run.error)")
        }
        // The message is the library's error, with its location.
        do {
            _ = try PropertyList(from: bytes)
            Issue.record("\(name) parsed")
        } catch let error as KeyedArchiveError {
            #expect(ToolRun(["-lint", path]).error == "\(path): \(error.description)\n")
        }
        #expect(try directory.read(name) == bytes, "a failed conversion must leave the file alone")
    }

    @Test func unreadableFileThroughInjectedFileSystem() {
        struct Unreadable: ToolFileSystem {
            func contentsOfFile(atPath path: String, largest: Int) throws(FileSystemError) -> Data {
                throw FileSystemError(message: "Permission denied")
            }
            func writeAtomically(_ data: Data, toPath path: String) throws(FileSystemError) {
                Issue.record("nothing should be written")
            }
        }
        let run = ToolRun(["-convert", "xml1", "secret.plist"], fileSystem: Unreadable())
        #expect(run.status == 1)
        #expect(run.errorLines == ["secret.plist: Permission denied"])
    }

    @Test(.enabled(if: geteuid() != 0, "running as root: every file is readable"))
    func unreadableFileOnDisk() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "secret.plist")
        #expect(chmod(path, 0) == 0)
        let run = ToolRun(["-lint", path])
        #expect(run.status == 1)
        #expect(run.errorLines == ["\(path): Permission denied"])
    }

    @Test func laterFilesStillProcessed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let good = try directory.write(Samples.xmlText, to: "good.plist")
        let bad = try directory.write(Samples.garbage, to: "bad.plist")
        let missing = directory.path("missing.plist")
        let run = ToolRun(["-lint", bad, missing, good])
        #expect(run.status == 1)
        #expect(run.outputText == "\(good): OK\n")
        #expect(run.errorLines.count == 2)
        #expect(run.errorLines.first?.hasPrefix("\(bad): ") == true)
        #expect(run.errorLines.last == "\(missing): No such file or directory")
    }
}
