import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// Hostile inputs through every command added for `plutil` parity and forensic reading:
/// each gives a status of 0 or 1 (never a crash), output within the tool's limit, and a
/// failed edit leaves the file as it was.
@Suite struct HostileCommandTests {
    static let commands: [[String]] = [
        ["-extract", "a.0.b", "raw"],
        ["-extract", "$objects.1", "xml1", "-o", "-"],
        ["-extract", "root", "json", "--resolve", "-o", "-"],
        ["-extract", "root.0.0.0", "raw", "--resolve"],
        ["-type", "$top.root"],
        ["-insert", "k", "-string", "v"],
        ["-insert", "0", "-integer", "1"],
        ["-insert", "$objects", "-string", "v", "-append"],
        ["-replace", "$objects.1", "-bool", "YES"],
        ["-remove", "$objects.1"],
        ["-convert", "swift", "-o", "-"],
        ["-convert", "objc", "-o", "-"],
        ["decode", "--path", "root.0.1"],
        ["decode", "--recover", "--expand"],
        ["decode", "--recover", "--expand", "--json"],
        ["decode", "--jsonl", "--recover", "--expand"],
    ]

    /// A keyed archive whose objects refer to themselves, to each other past the end, and
    /// whose data holds a copy of an archive holding a copy …
    static func tangledArchive() -> PropertyList {
        var inner: PropertyList = ForensicToolTests.innerArchive
        for _ in 0..<6 {
            inner = [
                "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
                "$objects": [
                    "$null",
                    ["$class": .uid(1), "NS.data": .data(ArchiveSamples.binary(inner)), "me": .uid(1)],
                ],
            ]
        }
        return [
            "$archiver": "X", "$version": "odd", "$top": ["root": .uid(1), "other": .uid(UInt64.max)],
            "$objects": [
                7, ["$class": .uid(2), "NS.objects": [.uid(1), .uid(3), .uid(1 << 40)], "blob": .uid(3)],
                ["$classname": .uid(2)], .data(ArchiveSamples.binary(inner)),
            ],
        ]
    }

    /// Named hostile inputs built here.
    static let inputs: [(name: String, data: Data)] = [
        ("bomb.bplist", OutputBoundsTests.nestedBomb(depth: 100, levels: 22)),
        (
            "deep.plist",
            Data((String(repeating: "<array>", count: 600) + String(repeating: "</array>", count: 600)).utf8)
        ),
        ("random.bin", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })),
        ("truncated.bplist", ArchiveSamples.binary(ArchiveSamples.folder()).prefix(200)),
        ("tangled.archive", ArchiveSamples.binary(tangledArchive())),
        (
            "entity.plist",
            Data(#"<!DOCTYPE plist [<!ENTITY a "aaaa">]><plist><string>&a;</string></plist>"#.utf8)
        ),
        ("folder.archive", ArchiveSamples.binary(ArchiveSamples.folder())),
    ]

    static func check(_ name: String, _ data: Data, _ command: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: name)
        let run = ToolRun(command + [path])
        let context = "\(name) \(command.joined(separator: " ")): \(run.status) \(run.error.prefix(300))"
        #expect(run.status == 0 || run.status == 1, "\(context)")
        #expect(run.output.count <= Tool.outputLimit(forInputLength: data.count), "\(context)")
        let isEdit = ["-insert", "-replace", "-remove"].contains(command[0])
        if run.status != 0 && isEdit {
            #expect(try directory.read(name) == data, "a failed edit changed the file: \(context)")
        }
        if run.status != 0 {
            #expect(!run.error.isEmpty || command.contains("--jsonl"), "a failure says nothing: \(context)")
        }
    }

    @Test(arguments: commands)
    func builtInputs(command: [String]) throws {
        for (name, data) in Self.inputs { try Self.check(name, data, command) }
    }

    @Test(arguments: commands)
    func malformedFixtures(command: [String]) throws {
        guard ToolFixtures.isAvailable else {
            withKnownIssue(ToolFixtures.skipNote) { throw CancellationError() }
            return
        }
        for entry in ToolFixtures.malformed {
            let data = try Data(contentsOf: URL(fileURLWithPath: entry.path))
            try Self.check(URL(fileURLWithPath: entry.file).lastPathComponent, data, command)
        }
    }

    @Test func tangledArchiveIsReadWithItsProblems() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(ArchiveSamples.binary(Self.tangledArchive()), to: "t.archive")
        let run = ToolRun(["decode", "--recover", "--expand", path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputText.contains("→ #1099511627776 (missing)"))
        #expect(
            run.errorLines.contains {
                $0.hasSuffix(
                    "$objects[1].NS.objects[2]: object reference 1099511627776 is out of range (4 objects)")
            })
        #expect(run.errorLines.contains { $0.contains("$objects[0]") })
    }

    @Test func aBombIsRefusedByEveryWriter() throws {
        // 2^21 leaves from about 400 bytes: every writer stops at the limit.
        let data = OutputBoundsTests.nestedBomb(depth: 0, levels: 22)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: "bomb.bplist")
        for command in [
            ["-convert", "swift", "-o", "-"], ["-convert", "objc", "-o", "-"],
            ["-extract", "0", "xml1", "-o", "-"],
        ] {
            let run = ToolRun(command + [path])
            #expect(run.output.count <= Tool.outputLimit(forInputLength: data.count))
            if run.status == 0 { #expect(!run.output.isEmpty) } else { #expect(!run.error.isEmpty) }
        }
    }
}
