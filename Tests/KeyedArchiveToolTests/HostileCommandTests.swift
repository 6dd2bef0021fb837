import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        ("bomb.bplist", BPlist.nestedBomb(depth: 100, levels: 22)),
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
        guard Fixtures.isAvailable else {
            withKnownIssue(Fixtures.skipComment) { throw CancellationError() }
            return
        }
        for entry in Fixtures.malformed {
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
        let data = BPlist.nestedBomb(depth: 0, levels: 22)
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

    // MARK: - Edits whose result the readers would refuse

    /// Arrays nested `depth` deep (the innermost empty), built without recursion.
    static func nestedArrays(_ depth: Int) -> PropertyList {
        var value: PropertyList = .array([])
        for _ in 1..<max(1, depth) { value = .array([value]) }
        return value
    }

    /// `{"a": arrays 500 deep}` (501 levels) in each format the tool edits.
    static let deepDocuments: [(format: String, data: Data)] = {
        let value: PropertyList = ["a": nestedArrays(500)]
        return [
            ("xml", (try? value.data(format: .xml)) ?? Data()),
            ("binary", (try? value.data(format: .binary)) ?? Data()),
            ("json", (try? value.jsonData()) ?? Data()),
        ]
    }()

    /// A value 500 deep replaced 500 levels down would be written 1,000 deep, which no
    /// reader opens again (not even for `-remove`): refused, nothing written. Reaching 512
    /// exactly is allowed; 513 is not.
    @Test(arguments: deepDocuments.map(\.format))
    func anEditNestingDeeperThanTheReadersIsRefused(format: String) throws {
        let data = try #require(Self.deepDocuments.first { $0.format == format }?.data)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: "deep.\(format)")
        // `a` and 499 `0`s: the innermost array, at depth 501.
        let keyPath = (["a"] + Array(repeating: "0", count: 499)).joined(separator: ".")
        func arrays(_ depth: Int) -> String {
            String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        }

        let tooDeep = ToolRun(["-replace", keyPath, "-json", arrays(500), path])
        #expect(tooDeep.status == 1)
        #expect(
            tooDeep.errorLines == [
                "\(path): the edit would nest values 1000 levels deep at key path \(keyPath), more than the "
                    + "512 that property-list readers accept; nothing was written"
            ])
        #expect(try directory.read("deep.\(format)") == data, "a refused edit changed the file")

        let oneTooMany = ToolRun(["-insert", keyPath + ".0", "-json", arrays(12), path])
        #expect(oneTooMany.status == 1)
        #expect(oneTooMany.error.contains("513 levels deep"), "\(oneTooMany.error)")

        let deepest = ToolRun(["-replace", keyPath, "-json", arrays(12), path])
        #expect(deepest.status == 0, "\(deepest.error)")
        #expect(ToolRun(["-lint", "-s", path]).status == 0, "a file 512 deep must read again")
        #expect(ToolRun(["-remove", "a", path]).status == 0)
        #expect(ToolRun(["-type", "a", path]).status == 1)
    }

    /// An edit whose result is larger than the most the tool reads is refused, whether the
    /// writer stops at the limit (XML, JSON) or the bytes are counted after (binary).
    @Test(arguments: ["xml", "binary", "json"])
    func anEditLargerThanTheInputMaximumIsRefused(format: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let value: PropertyList = ["a": "x"]
        let data =
            format == "json" ? try value.jsonData() : try value.data(format: format == "xml" ? .xml : .binary)
        let path = try directory.write(data, to: "small.\(format)")
        let largest = 1024
        let refused = ToolRun(
            ["-insert", "b", "-string", String(repeating: "y", count: 1100), path], maximumInputBytes: largest
        )
        #expect(refused.status == 1)
        #expect(
            refused.errorLines == [
                "\(path): the edited file would be larger than 1024 bytes, the most keyed-archive reads from "
                    + "one input; nothing was written"
            ])
        #expect(try directory.read("small.\(format)") == data)
        let accepted = ToolRun(
            ["-insert", "b", "-string", String(repeating: "y", count: 500), path], maximumInputBytes: largest)
        #expect(accepted.status == 0, "\(accepted.error)")
        #expect(try directory.read("small.\(format)").count <= largest)
    }

    // MARK: - Numbers in key paths and values

    /// `{"a": [1, 2]}` beside a keyed archive's keys: an object that refers to itself.
    static func numberSample(farUID: Bool = false) -> PropertyList {
        var top: PropertyList = ["root": .uid(1)]
        if farUID { top = ["root": .uid(1), "far": .uid(UInt64.max)] }
        return [
            "a": [1, 2],
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": top,
            "$objects": [
                "$null", ["$class": .uid(2), "me": .uid(1)], ["$classname": "Thing", "$classes": ["Thing"]],
            ],
        ]
    }

    /// Key paths whose numbers do not fit, or are no index, fail with a message that says
    /// so; none traps, none edits the file.
    @Test(arguments: [
        (
            ["-insert", "a.99999999999999999999", "-string", "x"],
            "Index 99999999999999999999 out of bounds in array of 2 at key path a.99999999999999999999"
        ),
        (
            ["-replace", "a.18446744073709551616", "-string", "x"],
            "Index 18446744073709551616 out of bounds in array of 2 at key path a.18446744073709551616"
        ),
        (
            ["-insert", "a.9223372036854775807", "-string", "x"],
            "Index 9223372036854775807 out of bounds in array of 2 at key path a.9223372036854775807"
        ),
        (["-remove", "a.9223372036854775807"], "No value to remove at key path a.9223372036854775807"),
        (["-remove", "a.99999999999999999999"], "No value to remove at key path a.99999999999999999999"),
        (
            ["-insert", "a.-1", "-string", "x"],
            "Unable to index into array with key path a.-1: '-1' is not an index (a decimal number from 0)"
        ),
        (
            ["-replace", "a.+1", "-string", "x"],
            "Unable to index into array with key path a.+1: '+1' is not an index (a decimal number from 0)"
        ),
        (
            ["-insert", "a.99999999999999999999.b", "-string", "x"],
            "Key path not found a.99999999999999999999.b"
        ),
        (
            ["-extract", "$objects.9223372036854775807", "raw"],
            "Could not extract value, error: No value at that key path or invalid key path: "
                + "$objects.9223372036854775807"
        ),
        (
            ["-extract", "root.99999999999999999999", "raw", "--resolve"],
            "Could not extract value, error: No value at that key path or invalid key path: "
                + "root.99999999999999999999"
        ),
        (
            ["decode", "--path", "root.18446744073709551615"],
            "no value at key path root.18446744073709551615 of the object graph"
        ),
    ])
    func numbersInKeyPathsGiveClearErrors(command: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = try Self.numberSample().data(format: .binary)
        let path = try directory.write(data, to: "numbers.bplist")
        let run = ToolRun(command + [path])
        #expect(run.status == 1)
        #expect(run.errorLines == ["\(path): \(message)"])
        #expect(try directory.read("numbers.bplist") == data)
    }

    /// A UID of 2⁶⁴ − 1 reads as a number; followed, it is refused as out of range (or,
    /// with `--recover`, shown as missing). A reference back to an enclosing object is left
    /// as its UID.
    @Test func aUIDNearTheTopOfItsRangeIsReadAsANumber() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            try Self.numberSample(farUID: true).data(format: .binary), to: "numbers.bplist")
        let raw = ToolRun(["-extract", "$top.far", "raw", path])
        #expect(raw.status == 0, "\(raw.error)")
        #expect(raw.outputText == "18446744073709551615\n")
        #expect(ToolRun(["-type", "$top.far", path]).outputText == "uid\n")
        let resolved = ToolRun(["-extract", "far", "json", "-o", "-", "--resolve", path])
        #expect(resolved.status == 1)
        #expect(
            resolved.errorLines == [
                "\(path): not a readable keyed archive: $top.far: object reference 18446744073709551615 is "
                    + "out of range (3 objects)"
            ])
        let recovered = ToolRun(["decode", "--recover", path])
        #expect(recovered.status == 0, "\(recovered.error)")
        // (The graph holds references as `Int`: a UID past `Int.max` is shown as `Int.max`.)
        let far = recovered.outputLines.first { $0.hasPrefix("far: → #") }
        #expect(far?.hasSuffix(" (missing)") == true, "\(recovered.outputText)")

        let cyclePath = try directory.write(try Self.numberSample().data(format: .binary), to: "cycle.bplist")
        let cycle = ToolRun(["-extract", "root", "json", "-o", "-", "--resolve", cyclePath])
        #expect(cycle.status == 0, "\(cycle.error)")
        #expect(cycle.outputText == #"{"$class":"Thing","me":{"CF$UID":1}}"# + "\n", "\(cycle.outputText)")
    }

    /// Values with a sign too many, or a sign inside a `\\u` escape, are refused, not read
    /// as another number.
    @Test(arguments: [
        (["-integer", "+-5"], "-integer needs a 64-bit decimal integer, not '+-5'"),
        (["-integer", "++5"], "-integer needs a 64-bit decimal integer, not '++5'"),
        (
            ["-integer", "18446744073709551616"],
            "-integer needs a 64-bit decimal integer, not '18446744073709551616'"
        ),
        (["-json", #""\u+123""#], "-json: invalid \\u escape at byte 3"),
        (["-json", #""\u-123""#], "-json: invalid \\u escape at byte 3"),
    ])
    func signsInValuesAreRefused(value: [String], message: String) throws {
        let run = ToolRun(["-insert", "k"] + value + ["unused.plist"])
        #expect(run.status == 64)
        #expect(run.errorLines.first == "keyed-archive: \(message)")
        #expect(
            ToolRun(["-insert", "k", "-integer", "+5", "-"], standardInput: Data(Samples.xmlText.utf8)).status
                == 0)
    }

    // MARK: - Inputs larger than the tool reads

    static let tooLargeFile =
        "file is larger than 67108864 bytes (64 MB), the most keyed-archive reads from one input"

    /// `/dev/zero` never ends: it is read to one byte past the maximum and refused, fast.
    @Test func devZeroIsRefusedAtTheMaximum() throws {
        let start = ContinuousClock.now
        let run = ToolRun(["-lint", "/dev/zero"])
        let elapsed = ContinuousClock.now - start
        #expect(run.status == 1)
        #expect(run.errorLines == ["/dev/zero: \(Self.tooLargeFile)"])
        #expect(elapsed < .seconds(1), "\(elapsed)")
        let sweep = ToolRun(["decode", "--jsonl", "/dev/zero"])
        #expect(sweep.outputText == #"{"path":"/dev/zero","error":"\#(Self.tooLargeFile)"}"# + "\n")
    }

    /// The built tool, on `/dev/zero` as a file and as standard input, within a second.
    @Test(.enabled(if: EndToEndTests.executable != nil, EndToEndTests.skipNote))
    func theToolRefusesDevZeroWithinASecond() throws {
        let executable = try #require(EndToEndTests.executable)
        for (arguments, expected) in [
            (["-lint", "/dev/zero"], "/dev/zero: \(Self.tooLargeFile)\n"),
            (
                ["-lint", "-"],
                "-: standard input is larger than 67108864 bytes (64 MB), the most keyed-archive reads from one input\n"
            ),
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"exec "$@" < /dev/zero"#, "sh", executable.path] + arguments
            let error = Pipe()
            process.standardError = error
            let start = ContinuousClock.now
            try process.run()
            let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let elapsed = ContinuousClock.now - start
            #expect(process.terminationStatus == 1, "\(arguments)")
            #expect(text == expected)
            #expect(elapsed < .seconds(1), "\(arguments): \(elapsed)")
        }
    }

    /// An XML property list of exactly `count` bytes (padded with spaces after `</plist>`,
    /// which no command mentions).
    static func paddedPropertyList(_ count: Int) -> Data {
        var data = Data(Samples.xmlText.utf8)
        data.append(contentsOf: [UInt8](repeating: 0x20, count: max(0, count - data.count)))
        return data
    }

    /// A file or standard input of exactly the maximum is read; one byte more is refused,
    /// naming the maximum (lowered here so that the inputs stay small).
    @Test func anInputOfExactlyTheMaximumIsReadAndOneByteMoreIsNot() throws {
        let largest = 4096
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let exact = try directory.write(Self.paddedPropertyList(largest), to: "exact.plist")
        let over = try directory.write(Self.paddedPropertyList(largest + 1), to: "over.plist")
        let run = ToolRun(["-lint", exact, over], maximumInputBytes: largest)
        #expect(run.status == 1)
        #expect(run.outputText == "\(exact): OK\n")
        #expect(
            run.errorLines == [
                "\(over): file is larger than 4096 bytes, the most keyed-archive reads from one input"
            ])

        let exactInput = ToolRun(
            ["-lint", "-"], standardInput: Self.paddedPropertyList(largest), maximumInputBytes: largest)
        #expect(exactInput.status == 0, "\(exactInput.error)")
        let overInput = ToolRun(
            ["-lint", "-"], standardInput: Self.paddedPropertyList(largest + 1), maximumInputBytes: largest)
        #expect(overInput.status == 1)
        #expect(
            overInput.errorLines == [
                "-: standard input is larger than 4096 bytes, the most keyed-archive reads from one input"
            ])

        // Every command reads the same way: an edit, a conversion, a sweep.
        for command in [["-insert", "k", "-string", "v"], ["-convert", "binary1"], ["-p"], ["decode"]] {
            let refused = ToolRun(command + [over], maximumInputBytes: largest)
            #expect(refused.status == 1, "\(command)")
            #expect(refused.error.contains("larger than 4096 bytes"), "\(command): \(refused.error)")
        }
        let sweep = ToolRun(["decode", "--jsonl", directory.url.path], maximumInputBytes: largest)
        #expect(sweep.outputText.contains("larger than 4096 bytes"), "\(sweep.outputText)")
        #expect(try directory.read("over.plist") == Self.paddedPropertyList(largest + 1))
    }

    /// The bounded reader itself, on a pipe (no size to go by): it reads exactly one byte
    /// past the maximum and stops, whatever follows.
    @Test(arguments: [0, 1, 4095, 4096, 65_536, 200_000])
    func theBoundedReaderStopsOneBytePastTheMaximum(largest: Int) throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        defer { _ = close(readEnd) }
        let sent = largest + 10
        let writer = Thread {
            let bytes = [UInt8](repeating: 0x41, count: sent)
            var offset = 0
            while offset < sent {
                let count = bytes[offset...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                offset += count
            }
            _ = close(writeEnd)
        }
        writer.start()
        #expect(throws: BoundedInput.Failure.tooLarge) {
            _ = try BoundedInput.read(readEnd, largest: largest)
        }
        // What is left is what the reader did not take: all but maximum + 1 bytes. (Read to
        // the end, so the writer never meets a closed pipe.)
        var left = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            left += count
        }
        #expect(left == sent - (largest + 1))
    }

    /// A FIFO is read like any input: up to the maximum, and refused past it.
    @Test func aFIFOFedMoreThanTheMaximumIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path("input.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let largest = 65_536
        // A writer that would go on far past the maximum; it dies of SIGPIPE once the
        // tool closes its end.
        let feeder = Process()
        feeder.executableURL = URL(fileURLWithPath: "/bin/sh")
        feeder.arguments = ["-c", #"head -c 10000000 /dev/zero > "$1""#, "sh", fifo]
        try feeder.run()
        let run = ToolRun(["-lint", fifo], maximumInputBytes: largest)
        feeder.waitUntilExit()
        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "\(fifo): file is larger than 65536 bytes, the most keyed-archive reads from one input"
            ])

        // One that holds less is read whole.
        let source = try directory.write(Samples.xmlText, to: "small.plist")
        let small = Process()
        small.executableURL = URL(fileURLWithPath: "/bin/sh")
        small.arguments = ["-c", #"cat "$1" > "$2""#, "sh", source, fifo]
        try small.run()
        let fine = ToolRun(["-lint", fifo], maximumInputBytes: largest)
        small.waitUntilExit()
        #expect(fine.status == 0, "\(fine.error)")
        #expect(fine.outputText == "\(fifo): OK\n")
    }
}
