import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

@Suite struct ConvertTests {
    @Test func inPlaceToBinaryAndBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")

        let toBinary = ToolRun(["-convert", "binary1", path])
        #expect(toBinary.error.isEmpty)
        #expect(toBinary.status == 0)
        #expect(toBinary.output.isEmpty)
        let binary = try directory.read("a.plist")
        #expect(binary.starts(with: Data("bplist00".utf8)))
        #expect(try PropertyList(from: binary) == Samples.xmlValue)

        let toXML = ToolRun(["-convert", "xml1", path])
        #expect(toXML.status == 0)
        let xml = try directory.read("a.plist")
        #expect(xml.starts(with: Data("<?xml".utf8)))
        #expect(try PropertyList(from: xml) == Samples.xmlValue)
        #expect(try directory.contents() == ["a.plist"], "no temporary file is left behind")
    }

    @Test func severalFilesInPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let values: [PropertyList] = [Samples.xmlValue, Samples.keyedArchive, ["x": [1, 2, 3]]]
        var paths: [String] = []
        for (index, value) in values.enumerated() {
            paths.append(try directory.write(try value.data(format: .xml), to: "\(index).plist"))
        }
        let run = ToolRun(["-convert", "binary1"] + paths)
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        for (index, value) in values.enumerated() {
            let data = try directory.read("\(index).plist")
            #expect(PropertyListFormat.detect(data) == .binary)
            #expect(try PropertyList(from: data) == value)
        }
    }

    @Test func outputPath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(Samples.xmlText, to: "in.plist")
        let output = directory.path("out.bplist")
        let run = ToolRun(["-convert", "binary1", "-o", output, input])
        #expect(run.status == 0)
        #expect(try directory.read("in.plist") == Data(Samples.xmlText.utf8), "the input is untouched")
        #expect(try PropertyList(from: directory.read("out.bplist")) == Samples.xmlValue)
    }

    @Test func outputToStandardOutput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(try Samples.xmlValue.data(format: .binary), to: "in.plist")
        let run = ToolRun(["-convert", "xml1", "-o", "-", input])
        #expect(run.status == 0)
        #expect(run.output == (try Samples.xmlValue.data(format: .xml)))
        #expect(try directory.contents() == ["in.plist"])
    }

    @Test func standardInputToStandardOutput() throws {
        let input = try Samples.keyedArchive.data(format: .binary)
        for arguments in [["-convert", "xml1", "-"], ["-convert", "xml1", "-o", "-", "-"]] {
            let run = ToolRun(arguments, standardInput: input)
            #expect(run.error.isEmpty)
            #expect(run.status == 0)
            #expect(run.output == (try Samples.keyedArchive.data(format: .xml)))
        }
    }

    @Test func extensionWritesBeside() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try directory.write(Samples.xmlText, to: "first.plist")
        let second = try directory.write(try Samples.keyedArchive.data(format: .xml), to: "second.archive")
        let run = ToolRun(["-convert", "json", "-e", "json", first, second])
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        #expect(try directory.contents() == ["first.json", "first.plist", "second.archive", "second.json"])
        #expect(
            try directory.read("first.json")
                == (try Samples.xmlValue.jsonData(options: .init(prettyPrinted: false))))
    }

    @Test func extensionCannotNameStandardInput() {
        let run = ToolRun(["-convert", "xml1", "-e", "xml", "-"], standardInput: Data(Samples.xmlText.utf8))
        #expect(run.status == 1)
        #expect(run.errorLines == ["-: -e cannot name a file for standard input; use -o"])
    }

    /// The point of the tool: `plutil` on Linux refuses keyed archives because of their
    /// UIDs; ours converts them.
    @Test func keyedArchiveToXML() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Samples.keyedArchive.data(format: .binary), to: "graph.archive")
        let run = ToolRun(["-convert", "xml1", path])
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        let xml = try directory.read("graph.archive")
        let text = String(decoding: xml, as: UTF8.self)
        #expect(text.contains("<key>CF$UID</key>"))
        #expect(try PropertyList(from: xml) == Samples.keyedArchive)
    }

    @Test func keyedArchiveToJSON() throws {
        let archive = try Samples.keyedArchive.data(format: .binary)
        let run = ToolRun(["-convert", "json", "-o", "-", "-"], standardInput: archive)
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        // Keys keep the file's order, which the binary writer sorted.
        let inFileOrder = try PropertyList(from: archive)
        #expect(run.output == (try inFileOrder.jsonData(options: .init(prettyPrinted: false))) + [0x0A])
        #expect(run.outputText.hasPrefix(#"{"$archiver":"NSKeyedArchiver","$objects":["$null",{"#))
        let json = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
        let top = try #require(json["$top"] as? [String: Any])
        let root = try #require(top["root"] as? [String: Any])
        #expect(root["CF$UID"] as? Int == 1)
        let objects = try #require(json["$objects"] as? [Any])
        #expect(objects.count == 4)
    }

    @Test func jsonRendersDataAndDates() throws {
        let value: PropertyList = [
            "raw": .data(Data([1, 2, 3, 4])),
            "when": .date(Date(timeIntervalSinceReferenceDate: 0)),
        ]
        let run = ToolRun(
            ["-convert", "json", "-o", "-", "-"], standardInput: try value.data(format: .binary))
        #expect(run.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
        #expect((json["raw"] as? [String: Any])?["data"] as? String == "AQIDBA==")
        #expect((json["when"] as? [String: Any])?["date"] as? String == "2001-01-01T00:00:00Z")
    }

    @Test func readableJSONIsIndented() throws {
        let input = Data(Samples.xmlText.utf8)
        let compact = ToolRun(["-convert", "json", "-o", "-", "-"], standardInput: input)
        let readable = ToolRun(["-convert", "json", "-r", "-o", "-", "-"], standardInput: input)
        #expect(compact.status == 0 && readable.status == 0)
        #expect(
            compact.output == (try Samples.xmlValue.jsonData(options: .init(prettyPrinted: false))) + [0x0A])
        #expect(
            readable.output == (try Samples.xmlValue.jsonData(options: .init(prettyPrinted: true))) + [0x0A])
        #expect(!compact.outputText.trimmingCharacters(in: .newlines).contains("\n"))
        #expect(readable.outputText.contains("\n  "))
    }

    @Test func inPlaceKeepsPermissionsAndFollowsSymbolicLinks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "real.plist")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let link = directory.path("link.plist")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.plist")

        let run = ToolRun(["-convert", "binary1", link])
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.plist")
        #expect(try directory.read("real.plist").starts(with: Data("bplist00".utf8)))
        #expect(try directory.contents() == ["link.plist", "real.plist"])
    }

    @Test func unwritableDestination() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(Samples.xmlText, to: "in.plist")
        let missingFolder = directory.path("no/such/folder/out.plist")
        let run = ToolRun(["-convert", "binary1", "-o", missingFolder, input])
        #expect(run.status == 1)
        #expect(run.errorLines == ["\(input): cannot write \(missingFolder): No such file or directory"])
        let onDirectory = ToolRun(["-convert", "binary1", "-o", directory.url.path, input])
        #expect(onDirectory.errorLines == ["\(input): cannot write \(directory.url.path): Is a directory"])
    }

    @Test func writeFailureThroughInjectedFileSystem() {
        struct ReadOnly: ToolFileSystem {
            func contentsOfFile(atPath path: String, largest: Int) throws(FileSystemError) -> Data {
                Data(Samples.xmlText.utf8)
            }
            func writeAtomically(_ data: Data, toPath path: String) throws(FileSystemError) {
                throw FileSystemError(message: "cannot write \(path): Read-only file system")
            }
        }
        let run = ToolRun(["-convert", "xml1", "a.plist", "b.plist"], fileSystem: ReadOnly())
        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "a.plist: cannot write a.plist: Read-only file system",
                "b.plist: cannot write b.plist: Read-only file system",
            ])
    }
}
