import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// One command of the differential table: what Apple's `plutil` prints and exits with, as
/// its manual page and `-help` describe (and Foundation's Linux `plutil` does).
struct PlutilCase: CustomStringConvertible, Sendable {
    /// The arguments; `FILE` is replaced by the input's path.
    let arguments: [String]
    let status: Int32
    /// Standard output, exactly; `nil` when not checked.
    let output: String?
    /// After an edit: `(keyPath, raw value)` read back from the file, or `(keyPath, nil)`
    /// when the key path must hold nothing.
    let after: (String, String?)?
    /// Whether Foundation's Linux `plutil` is expected to agree (status, output, file bytes).
    /// `false` marks a documented difference, or a case where it crashes.
    let reference: Bool

    init(
        _ arguments: [String], status: Int32 = 0, output: String? = nil, after: (String, String?)? = nil,
        reference: Bool = true
    ) {
        self.arguments = arguments
        self.status = status
        self.output = output
        self.after = after
        self.reference = reference
    }

    var description: String { arguments.joined(separator: " ") }
}

enum PlutilTable {
    /// `creature.plist` of the guide, with a key holding a dot.
    static let creature = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>Harmless</key>
        \t<true/>
        \t<key>Legs</key>
        \t<integer>14</integer>
        \t<key>Rating</key>
        \t<real>3.5</real>
        \t<key>Seen</key>
        \t<date>2024-05-01T09:30:00Z</date>
        \t<key>Tags</key>
        \t<array>
        \t\t<string>small</string>
        \t\t<string>grey</string>
        \t</array>
        \t<key>Thumbnail</key>
        \t<data>
        \tiVBORw0KGgo=
        \t</data>
        \t<key>Title</key>
        \t<string>Potato Bug</string>
        \t<key>a.b</key>
        \t<string>dotted</string>
        \t<key>nest</key>
        \t<dict>
        \t\t<key>y</key>
        \t\t<string>q</string>
        \t\t<key>x</key>
        \t\t<false/>
        \t</dict>
        </dict>
        </plist>

        """

    static let cases: [PlutilCase] = [
        // -extract KEYPATH raw: "the value printed depends on its type" (man page).
        PlutilCase(["-extract", "Title", "raw", "FILE"], output: "Potato Bug\n"),
        PlutilCase(["-extract", "Legs", "raw", "FILE"], output: "14\n"),
        PlutilCase(["-extract", "Rating", "raw", "FILE"], output: "3.500000\n"),
        PlutilCase(["-extract", "Harmless", "raw", "FILE"], output: "true\n"),
        PlutilCase(["-extract", "Seen", "raw", "FILE"], output: "2024-05-01T09:30:00Z\n"),
        PlutilCase(["-extract", "Thumbnail", "raw", "FILE"], output: "iVBORw0KGgo=\n"),
        PlutilCase(["-extract", "Tags", "raw", "FILE"], output: "2\n"),
        PlutilCase(["-extract", "nest", "raw", "FILE"], output: "x\ny\n"),
        PlutilCase(["-extract", "Tags.1", "raw", "FILE"], output: "grey\n"),
        PlutilCase(["-extract", "a\\.b", "raw", "FILE"], output: "dotted\n"),
        PlutilCase(["-extract", "nest.x", "raw", "FILE"], output: "false\n"),
        PlutilCase(["-extract", "Legs", "raw", "-n", "FILE"], output: "14"),
        PlutilCase(["-extract", "Legs", "raw", "-o", "-", "FILE"], output: "14\n"),
        PlutilCase(["-extract", "Tags", "raw", "-s", "FILE"], output: "2\n"),
        PlutilCase(["-extract", "Tags.2", "raw", "FILE"], status: 1, output: ""),
        PlutilCase(["-extract", "Nope", "raw", "FILE"], status: 1, output: ""),
        PlutilCase(["-extract", "a.b", "raw", "FILE"], status: 1, output: ""),
        PlutilCase(["-extract", "", "raw", "FILE"], status: 1, output: ""),
        PlutilCase(["-extract", "Legs", "raw", "-expect", "integer", "FILE"], output: "14\n"),
        PlutilCase(["-extract", "Legs", "raw", "-expect", "string", "FILE"], status: 1, output: ""),
        PlutilCase(["-extract", "Tags", "json", "-o", "-", "FILE"], output: #"["small","grey"]"# + "\n"),
        PlutilCase(
            ["-extract", "nest", "xml1", "-o", "-", "FILE"],
            output: """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>x</key>
                \t<false/>
                \t<key>y</key>
                \t<string>q</string>
                </dict>
                </plist>

                """),
        // -extract without -o replaces the file with the extract (plutil's behaviour).
        PlutilCase(["-extract", "nest", "xml1", "FILE"], output: "", after: ("y", "q")),
        // -type KEYPATH [-expect TYPE].
        PlutilCase(["-type", "Title", "FILE"], output: "string\n"),
        PlutilCase(["-type", "Legs", "FILE"], output: "integer\n"),
        PlutilCase(["-type", "Rating", "FILE"], output: "float\n"),
        PlutilCase(["-type", "Harmless", "FILE"], output: "bool\n"),
        PlutilCase(["-type", "Seen", "FILE"], output: "date\n"),
        PlutilCase(["-type", "Thumbnail", "FILE"], output: "data\n"),
        PlutilCase(["-type", "Tags", "FILE"], output: "array\n"),
        PlutilCase(["-type", "nest", "FILE"], output: "dictionary\n"),
        PlutilCase(["-type", "Legs", "-expect", "integer", "FILE"], output: "integer\n"),
        PlutilCase(["-type", "Legs", "-s", "FILE"], output: "integer\n"),
        PlutilCase(["-type", "Legs", "-expect", "string", "FILE"], status: 1, output: ""),
        PlutilCase(["-type", "Nope", "FILE"], status: 1, output: ""),
        // -insert / -replace KEYPATH -TYPE VALUE, -remove KEYPATH.
        PlutilCase(["-insert", "New", "-string", "hello", "FILE"], output: "", after: ("New", "hello")),
        PlutilCase(["-insert", "Title", "-string", "again", "FILE"], status: 1, output: ""),
        PlutilCase(["-replace", "Title", "-string", "Moth", "FILE"], output: "", after: ("Title", "Moth")),
        PlutilCase(["-replace", "Fresh", "-integer", "7", "FILE"], output: "", after: ("Fresh", "7")),
        PlutilCase(
            ["-insert", "Tags.0", "-string", "first", "FILE"], output: "", after: ("Tags.0", "first")),
        PlutilCase(["-insert", "Tags.2", "-string", "end", "FILE"], output: "", after: ("Tags.2", "end")),
        PlutilCase(["-insert", "Tags.3", "-string", "far", "FILE"], status: 1, output: ""),
        PlutilCase(
            ["-insert", "Tags", "-string", "last", "-append", "FILE"], output: "", after: ("Tags.2", "last")),
        // "Overwrite an existing value" (man page); Foundation's Linux plutil inserts instead.
        PlutilCase(
            ["-replace", "Tags.1", "-string", "green", "FILE"], output: "", after: ("Tags", "2"),
            reference: false),
        PlutilCase(
            ["-replace", "Tags.0", "-string", "green", "FILE"], output: "", after: ("Tags.0", "green"),
            reference: false),
        PlutilCase(["-insert", "Deep.x", "-string", "v", "FILE"], status: 1, output: ""),
        PlutilCase(["-insert", "Title.x", "-string", "v", "FILE"], status: 1, output: ""),
        PlutilCase(["-insert", "B", "-bool", "YES", "FILE"], output: "", after: ("B", "true")),
        PlutilCase(["-insert", "B", "-bool", "false", "FILE"], output: "", after: ("B", "false")),
        PlutilCase(["-insert", "N", "-integer", "-5", "FILE"], output: "", after: ("N", "-5")),
        PlutilCase(["-insert", "F", "-float", "2.25", "FILE"], output: "", after: ("F", "2.250000")),
        PlutilCase(
            ["-insert", "D", "-date", "2020-01-02T03:04:05Z", "FILE"], output: "",
            after: ("D", "2020-01-02T03:04:05Z")),
        PlutilCase(["-insert", "Bytes", "-data", "AAEC", "FILE"], output: "", after: ("Bytes", "AAEC")),
        PlutilCase(
            ["-insert", "J", "-json", #"{"a":[1,2.5,"x",true]}"#, "FILE"], output: "", after: ("J.a.2", "x")),
        PlutilCase(
            ["-insert", "X", "-xml", "<dict><key>k</key><integer>3</integer></dict>", "FILE"], output: "",
            after: ("X.k", "3")),
        PlutilCase(["-insert", "E", "-array", "FILE"], output: "", after: ("E", "0")),
        PlutilCase(["-insert", "E", "-dictionary", "FILE"], output: "", after: ("E", "")),
        PlutilCase(
            ["-insert", "nest.k\\.x", "-integer", "9", "FILE"], output: "", after: ("nest.k\\.x", "9")),
        PlutilCase(["-remove", "Title", "FILE"], output: "", after: ("Title", nil)),
        PlutilCase(["-remove", "Tags.0", "FILE"], output: "", after: ("Tags.0", "grey")),
        PlutilCase(["-remove", "Nope", "FILE"], status: 1, output: ""),
        PlutilCase(["-remove", "Tags.5", "FILE"], status: 1, output: ""),
        // Documented differences: a value that does not read is refused (plutil writes NO
        // or 0, or crashes on a bad date), and usage errors exit 64.
        PlutilCase(["-insert", "B", "-bool", "maybe", "FILE"], status: 64, output: "", reference: false),
        PlutilCase(["-insert", "I", "-integer", "12abc", "FILE"], status: 64, output: "", reference: false),
        PlutilCase(["-insert", "F", "-float", "abc", "FILE"], status: 64, output: "", reference: false),
        PlutilCase(["-insert", "D", "-date", "nonsense", "FILE"], status: 64, output: "", reference: false),
        PlutilCase(["-insert", "B", "-data", "!!", "FILE"], status: 64, output: "", reference: false),
        PlutilCase(
            ["-extract", "Legs", "raw", "-expect", "bogus", "FILE"], status: 64, output: "", reference: false),
    ]
}

@Suite struct PlutilParityTests {
    /// Runs one case in a fresh folder; returns the run and the file's bytes afterwards.
    static func run(_ testCase: PlutilCase, tool: (([String]) -> (Int32, Data))? = nil) throws -> (
        status: Int32, output: Data, file: Data, path: String
    ) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(PlutilTable.creature, to: "creature.plist")
        let arguments = testCase.arguments.map { $0 == "FILE" ? path : $0 }
        let status: Int32
        let output: Data
        if let tool {
            (status, output) = tool(arguments)
        } else {
            let run = ToolRun(arguments)
            (status, output) = (run.status, run.output)
        }
        return (status, output, try directory.read("creature.plist"), path)
    }

    @Test(arguments: PlutilTable.cases)
    func againstTheTable(_ testCase: PlutilCase) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(PlutilTable.creature, to: "creature.plist")
        let run = ToolRun(testCase.arguments.map { $0 == "FILE" ? path : $0 })
        #expect(run.status == testCase.status, "\(run.error)")
        if let output = testCase.output { #expect(run.outputText == output) }
        let after = try directory.read("creature.plist")
        if testCase.status != 0 {
            #expect(after == Data(PlutilTable.creature.utf8), "a failed command changed the file")
        }
        if let (keyPath, expected) = testCase.after {
            let check = ToolRun(["-extract", keyPath, "raw", "-n", path])
            if let expected {
                #expect(check.status == 0, "\(check.error)")
                #expect(check.outputText == expected)
            } else {
                #expect(check.status == 1)
            }
        }
    }

    /// Foundation's `plutil` on this machine, when there is one.
    static let referencePlutil: String? = {
        let candidates =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/plutil" }
            + ["/opt/swift/usr/bin/plutil", "/usr/bin/plutil"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static func runReference(_ arguments: [String]) -> (Int32, Data) {
        guard let plutil = referencePlutil else { return (-1, Data()) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plutil)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, Data()) }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// The second reference: Foundation's Linux `plutil` gives the same status, the same
    /// output and leaves the same bytes in the file.
    @Test(arguments: PlutilTable.cases.filter(\.reference))
    func againstFoundationPlutil(_ testCase: PlutilCase) throws {
        guard Self.referencePlutil != nil else {
            withKnownIssue("Foundation's plutil is not installed here") { throw CancellationError() }
            return
        }
        let ours = try Self.run(testCase)
        let theirs = try Self.run(testCase, tool: Self.runReference)
        #expect(ours.status == theirs.status)
        // JSON on standard output ends with a newline here; Foundation's plutil writes none.
        let jsonToStandardOutput =
            testCase.arguments.contains("json") && testCase.arguments.contains("-")
            && theirs.output.last != 0x0A
        #expect(ours.output == theirs.output + (jsonToStandardOutput ? [0x0A] : []))
        #expect(ours.file == theirs.file, "the file differs after the command")
    }

    @Test func rawToAFileHasNoNewline() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(PlutilTable.creature, to: "c.plist")
        #expect(ToolRun(["-extract", "Tags", "raw", "-o", directory.path("raw.txt"), path]).status == 0)
        #expect(try directory.read("raw.txt") == Data("2".utf8))
        #expect(try directory.read("c.plist") == Data(PlutilTable.creature.utf8))
        if Self.referencePlutil != nil {
            _ = Self.runReference(["-extract", "Tags", "raw", "-o", directory.path("reference.txt"), path])
            #expect(try directory.read("reference.txt") == directory.read("raw.txt"))
        }
    }

    @Test(arguments: [
        ("creature.plist", "creature"), ("my-file.plist", "my_file"), ("1abc.plist", "_1abc"), ("-", "_"),
        ("dir/Info.plist", "Info"), (".hidden", "_hidden"), ("é.plist", "_"),
    ])
    func literalNames(file: String, identifier: String) {
        #expect(LiteralSourceWriter.identifier(forFileName: file) == identifier)
    }

    @Test func literalSourceEscapesAndCompilesItsParts() throws {
        let value: PropertyList = [
            "text": "q\"\\\n\u{1b}\u{2028}é?", "big": .integer(PropertyListInteger(UInt64.max)), "small": 0.1,
            "none": .dictionary([:]), "list": [], "nan": .real(.nan), "uid": .uid(3),
        ]
        let swift = String(
            decoding: try LiteralSourceWriter.render(
                value, language: .swift, fileName: "a\nb.plist", limit: 1 << 20),
            as: UTF8.self)
        #expect(swift.hasPrefix("/// Generated from a?b.plist\nlet a_b : [String : Any] = [\n"))
        #expect(swift.contains(#""text" : "q\"\\\n\u{1b}\u{2028}é?","#))
        #expect(swift.contains("\"big\" : 18446744073709551615 as UInt64,"))
        #expect(swift.contains("\"small\" : 0.1,"))
        #expect(swift.contains("\"none\" : [:],"))
        #expect(swift.contains("\"list\" : [],"))
        #expect(swift.contains("\"nan\" : Double.nan,"))
        #expect(swift.contains("\"uid\" : [\"CF$UID\" : 3],"))
        let objc = String(
            decoding: try LiteralSourceWriter.render(
                ["text": "q\"\u{1b}??=", "n": -5, "b": true], language: .objc, fileName: "x.plist",
                limit: 1 << 20),
            as: UTF8.self)
        #expect(
            objc == """
                /// Generated from x.plist
                __attribute__((visibility("hidden")))
                NSDictionary * const x = @{
                    @"b" : @YES,
                    @"n" : @-5,
                    @"text" : @"q\\"\\033\\077\\077=",
                };

                """)
        #expect(throws: LiteralSourceWriter.Failure.self) {
            try LiteralSourceWriter.render(
                ["d": .data(Data([1]))], language: .objc, fileName: "x", limit: 1 << 20)
        }
    }

    @Test func literalSourceEscapesBidirectionalControls() throws {
        // "Trojan Source": a right-to-left override inside a string literal would make the
        // generated code read differently from what it compiles to.
        let text = "a\u{202E}b\u{2066}c\u{200F}d\u{061C}e"
        let swift = String(
            decoding: try LiteralSourceWriter.render(
                ["t": .string(text)], language: .swift, fileName: "x", limit: 1 << 20),
            as: UTF8.self)
        #expect(swift.contains(#""t" : "a\u{202e}b\u{2066}c\u{200f}d\u{61c}e""#), "\(swift)")
        let objc = String(
            decoding: try LiteralSourceWriter.render(
                ["t": .string(text)], language: .objc, fileName: "x", limit: 1 << 20),
            as: UTF8.self)
        #expect(objc.contains(#"@"a\u202eb\u2066c\u200fd\u061ce""#), "\(objc)")
        for scalar in swift.unicodeScalars + objc.unicodeScalars {
            #expect(!LiteralSourceWriter.isBidiControl(scalar))
        }
    }

    @Test func createWritesAnEmptyDictionary() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let xml = directory.path("x.plist")
        let binary = directory.path("b.plist")
        let run = ToolRun(["-create", "xml1", xml])
        #expect(run.status == 0)
        #expect(
            String(decoding: try directory.read("x.plist"), as: UTF8.self).hasSuffix(
                "<plist version=\"1.0\">\n<dict/>\n</plist>\n"))
        #expect(ToolRun(["-create", "binary1", binary]).status == 0)
        #expect(try PropertyList(from: try directory.read("b.plist")) == .dictionary([:]))
        #expect(ToolRun(["-create", "json", "-"]).outputText == "{}\n")
        #expect(ToolRun(["-create", "swift", "-"]).status == 64)
        if Self.referencePlutil != nil {
            let reference = directory.path("r.plist")
            _ = Self.runReference(["-create", "binary1", reference])
            #expect(try directory.read("r.plist") == directory.read("b.plist"))
            _ = Self.runReference(["-create", "xml1", reference])
            #expect(try directory.read("r.plist") == directory.read("x.plist"))
        }
    }

    @Test func editsKeepABinaryFileBinary() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            try PropertyList(from: Data(PlutilTable.creature.utf8)).data(format: .binary), to: "b.plist")
        #expect(ToolRun(["-insert", "Moths", "-integer", "4", path]).status == 0)
        let after = try directory.read("b.plist")
        #expect(after.starts(with: Data("bplist00".utf8)))
        #expect(try PropertyList(from: after)["Moths"] == 4)
        #expect(try PropertyList(from: after)["Title"] == "Potato Bug")
    }

    @Test func editsWriteToOutputPathAndLeaveTheInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(PlutilTable.creature, to: "c.plist")
        let run = ToolRun(["-remove", "Tags", "-o", directory.path("out.plist"), path])
        #expect(run.status == 0)
        #expect(try directory.read("c.plist") == Data(PlutilTable.creature.utf8))
        #expect(try PropertyList(from: try directory.read("out.plist"))["Tags"] == nil)
        let filter = ToolRun(
            ["-replace", "Legs", "-integer", "6", "-"], standardInput: Data(PlutilTable.creature.utf8))
        #expect(filter.status == 0)
        #expect(try PropertyList(from: filter.output)["Legs"] == 6)
    }

    @Test func anOpenStepFileIsNotRewritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = "{ Title = \"Potato Bug\"; }"
        let path = try directory.write(text, to: "o.plist")
        let run = ToolRun(["-insert", "Legs", "-integer", "14", path])
        #expect(run.status == 1)
        #expect(run.error.contains("OpenStep"))
        #expect(try directory.read("o.plist") == Data(text.utf8))
    }

    @Test func aFailedWriteLeavesTheFileUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(PlutilTable.creature, to: "c.plist")
        let run = ToolRun(["-insert", "New", "-string", "x", "-o", directory.path("missing/out.plist"), path])
        #expect(run.status == 1)
        #expect(run.error.contains("No such file or directory"))
        #expect(try directory.read("c.plist") == Data(PlutilTable.creature.utf8))
    }

    @Test(arguments: [
        ("a.b.c", ["a", "b", "c"]),
        ("a\\.b.c", ["a.b", "c"]),
        ("a\\\\.b", ["a\\", "b"]),
        ("", [""]),
        ("a.", ["a", ""]),
        ("x\\y", ["x\\y"]),
        ("end\\", ["end\\"]),
    ])
    func keyPathSplitsAtUnescapedDots(text: String, components: [String]) {
        #expect(PropertyListKeyPath(text).components == components)
    }

    @Test(arguments: [
        (#"{"a":[1,-2,2.5,1e3,"x\n\u00e9\ud83d\ude00",true,false,{}]}"#, true),
        (#"[1, 2"#, false),
        (#"null"#, false),
        (#"{"a":null}"#, false),
        (#"{"a" 1}"#, false),
        (#""\ud800""#, false),
        (#"1 2"#, false),
        (#"99999999999999999999"#, true),
    ])
    func jsonValues(text: String, reads: Bool) throws {
        let value = try? JSONValueReader.read(text)
        #expect((value != nil) == reads, "\(text)")
        if text.hasPrefix(#"{"a":[1"#) {
            #expect(value?["a"]?[4] == .string("x\né😀"))
            #expect(value?["a"]?[3] == .real(1000))
            #expect(value?["a"]?[1] == -2)
        }
    }

    @Test func deepJSONIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let run = ToolRun(["-insert", "x", "-json", deep, "/nonexistent"])
        #expect(run.status == 64)
        #expect(run.error.contains("nested too deeply"))
    }
}
