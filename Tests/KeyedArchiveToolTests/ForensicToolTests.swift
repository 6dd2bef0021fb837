import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// `decode --recover`, `--expand` and `--jsonl`.
@Suite struct ForensicToolTests {
    /// A keyed archive holding the string "hidden note" as an `NSMutableString`.
    static let innerArchive: PropertyList = [
        "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
        "$objects": [
            "$null", ["$class": .uid(3), "NS.string": .uid(2)], "hidden note",
            ["$classname": "NSMutableString", "$classes": ["NSMutableString", "NSString", "NSObject"]],
        ],
    ]

    /// An `NRKeyedArchiver` archive, `$version` 99, `$top` without `root`, a dangling
    /// reference, a keyed archive inside `NS.data`, a bplist and a typedstream in data.
    static func damaged() throws -> PropertyList {
        let inner = ArchiveSamples.binary(innerArchive)
        let plain = ArchiveSamples.binary(["a": 1])
        let typedstream = try TypedStreamArchiver.archivedData(withRootObject: "typed away")
        return [
            "$archiver": "NRKeyedArchiver", "$version": 99, "$top": ["object": .uid(1)],
            "$objects": [
                "$null",
                [
                    "$class": .uid(4), "title": .uid(2), "blob": .uid(3), "next": .uid(99),
                    "plain": .data(plain),
                    "ts": .data(typedstream),
                ],
                "Damaged",
                ["$class": .uid(5), "NS.data": .data(inner)],
                ["$classname": "Note", "$classes": ["Note", "NSObject"]],
                ["$classname": "NSData", "$classes": ["NSData", "NSObject"]],
            ],
        ]
    }

    @Test func recoverReportsEachProblemAndPrintsTheRest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(ArchiveSamples.binary(try Self.damaged()), to: "damaged.archive")
        let strict = ToolRun(["decode", path])
        #expect(strict.status == 1)
        #expect(strict.output.isEmpty)
        let run = ToolRun(["decode", "--recover", path])
        #expect(run.status == 0)
        #expect(run.outputLines.first == "object: Note #1")
        #expect(run.outputText.contains("  next: → #99 (missing)\n"))
        #expect(run.outputText.contains("  title: \"Damaged\"\n"))
        #expect(
            run.errorLines == [
                "\(path): problem: $archiver: $archiver is \"NRKeyedArchiver\", expected \"NSKeyedArchiver\"",
                "\(path): problem: $version: $version is 99, expected 100000",
                "\(path): problem: $objects[1].next: object reference 99 is out of range (6 objects)",
            ])
        let json = ToolRun(["decode", "--recover", "--json", path])
        let value = try JSONValueReader.read(json.outputText)
        #expect(value["object"]?["next"] == ["$ref": 99])
        #expect(value["$problems"]?.arrayValue?.count == 3)
    }

    @Test func expandDecodesNestedArchivesInPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(ArchiveSamples.binary(try Self.damaged()), to: "damaged.archive")
        let text = ToolRun(["decode", "--recover", "--expand", path])
        #expect(text.status == 0)
        #expect(text.outputText.contains("object.blob.NS\\.data ⇒ keyed archive ("))
        #expect(text.outputText.contains("  root: NSMutableString #1\n    NS.string: \"hidden note\"\n"))
        #expect(
            text.outputText.contains("object.plain ⇒ property list (")
                && text.outputText.contains("    \"a\" => 1\n"))
        #expect(text.outputText.contains("object.ts ⇒ typedstream ("))
        #expect(text.outputText.contains("\"typed away\""), "\(text.outputText)")
        let json = ToolRun(["decode", "--recover", "--expand", "--json", path])
        let value = try JSONValueReader.read(json.outputText)
        let nested = value["object"]?["blob"]?["NS.data"]
        #expect(nested?["$expanded"] == "keyed archive")
        #expect(nested?["$value"]?["root"]?["NS.string"] == "hidden note")
        #expect(value["object"]?["plain"]?["$value"] == ["a": 1])
        #expect(value["object"]?["ts"]?["$expanded"] == "typedstream")
        #expect(json.outputText.contains("\"typed away\""))
        // Without --expand the data stays data.
        let plainJSON = try JSONValueReader.read(ToolRun(["decode", "--recover", "--json", path]).outputText)
        #expect(plainJSON["object"]?["plain"]?["data"] != nil)
    }

    /// An archive whose data holds an archive whose data holds … 10 levels: expansion
    /// stops after `NestedArchive.maximumLevels`.
    @Test func expansionIsBoundedInDepth() throws {
        var archive = Self.innerArchive
        for _ in 0..<10 {
            archive = [
                "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
                "$objects": [
                    "$null", ["$class": .uid(2), "NS.data": .data(ArchiveSamples.binary(archive))],
                    ["$classname": "NSData", "$classes": ["NSData", "NSObject"]],
                ],
            ]
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(ArchiveSamples.binary(archive), to: "deep.archive")
        let run = ToolRun(["decode", "--expand", "--json", path])
        #expect(run.status == 0)
        let count = run.outputText.components(separatedBy: "\"$expanded\"").count - 1
        #expect(count == NestedArchive.maximumLevels)
        let text = ToolRun(["decode", "--expand", path])
        #expect(
            text.outputText.components(separatedBy: "⇒ keyed archive").count - 1
                == NestedArchive.maximumLevels)
    }

    @Test func jsonlSweepsAFolder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(ArchiveSamples.binary(ArchiveSamples.folder()), to: "a.archive")
        try directory.write(ArchiveSamples.binary(try Self.damaged()), to: "b.archive")
        try FileManager.default.createDirectory(
            atPath: directory.path("sub"), withIntermediateDirectories: true)
        try directory.write(Samples.xmlText, to: "sub/c.plist")
        try directory.write(Data(), to: "sub/d.empty")
        try directory.write(Samples.brokenBinary, to: "sub/e.plist")
        try FileManager.default.createSymbolicLink(
            atPath: directory.path("link"), withDestinationPath: "/etc/passwd")
        let run = ToolRun(["decode", "--jsonl", directory.url.path])
        #expect(run.status == 1, "two files fail")
        let lines = run.outputLines
        #expect(lines.count == 5, "\(lines)")
        let values = try lines.map { try JSONValueReader.read($0) }
        #expect(
            values.map { $0["path"]?.stringValue?.split(separator: "/").suffix(2).joined(separator: "/") }
                == [
                    "\(directory.url.lastPathComponent)/a.archive",
                    "\(directory.url.lastPathComponent)/b.archive",
                    "sub/c.plist", "sub/d.empty", "sub/e.plist",
                ])
        #expect(values[0]["kind"] == "keyed archive")
        #expect(values[0]["format"] == "binary")
        #expect(values[0]["result"]?["root"]?["name"] == "Bugs")
        #expect(values[1]["error"]?.stringValue?.contains("NRKeyedArchiver") == true)
        #expect(values[2]["kind"] == "property list")
        #expect(values[2]["result"] == Samples.xmlValue)
        #expect(values[3]["error"] == "file is empty")
        #expect(values[4]["error"] != nil)
        let recovered = ToolRun(["decode", "--jsonl", "--recover", directory.path("b.archive")])
        #expect(recovered.status == 0)
        let line = try JSONValueReader.read(recovered.outputText)
        #expect(line["result"]?["$problems"]?.arrayValue?.count == 3)
        #expect(recovered.outputText.split(separator: "\n").count == 1)
    }

    @Test func jsonlReadsTypedstreams() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let good = try directory.write(
            try TypedStreamArchiver.archivedData(withRootObject: ["typed", "stream"]), to: "a.typedstream")
        let bad = try directory.write(
            Data([0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03, 0x84, 0x01, 0x40]),
            to: "b.typedstream")
        let run = ToolRun(["decode", "--jsonl", good, bad])
        #expect(run.status == 1)
        let values = try run.outputLines.map { try JSONValueReader.read($0) }
        #expect(values.count == 2)
        #expect(values[0]["format"] == "typedstream")
        #expect(values[0]["kind"] == "typedstream")
        #expect(run.outputLines[0].contains("\"typed\"") && run.outputLines[0].contains("\"stream\""))
        #expect(values[1]["format"] == "typedstream")
        #expect(
            values[1]["error"]?.stringValue?.hasPrefix("not a readable typedstream") == true, "\(values[1])")
    }

    @Test func jsonlReadsStandardInput() throws {
        let run = ToolRun(["decode", "--jsonl", "-"], standardInput: Data(Samples.xmlText.utf8))
        #expect(run.status == 0)
        let line = try JSONValueReader.read(run.outputText)
        #expect(line["path"] == "-")
        #expect(line["result"] == Samples.xmlValue)
    }

    @Test func jsonlOfAMissingPathIsOneFailedLine() {
        let run = ToolRun(["decode", "--jsonl", "/nonexistent/x.plist"])
        #expect(run.status == 1)
        #expect(
            run.outputText == #"{"path":"/nonexistent/x.plist","error":"No such file or directory"}"# + "\n")
    }
}
