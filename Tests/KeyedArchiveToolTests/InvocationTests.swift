import Testing

@testable import KeyedArchiveTool

@Suite struct InvocationTests {
    @Test func filesAloneMeanLint() throws {
        let invocation = try Invocation.parse(["a.plist", "b.plist"])
        #expect(invocation.command == .lint)
        #expect(invocation.files == ["a.plist", "b.plist"])
    }

    @Test(arguments: [
        (["-lint", "a"], Invocation.Command.lint),
        (["-p", "a"], .print),
        (["-convert", "xml1", "a"], .convert(.xml1)),
        (["-convert", "binary1", "a"], .convert(.binary1)),
        (["-convert", "json", "a"], .convert(.json)),
        (["-help"], .help),
        (["-h"], .help),
        (["--help"], .help),
        (["a", "-p"], .print),
    ])
    func commandSpellings(arguments: [String], command: Invocation.Command) throws {
        #expect(try Invocation.parse(arguments).command == command)
    }

    @Test func optionsAnywhereBeforeDoubleDash() throws {
        let invocation = try Invocation.parse(["in.plist", "-s", "-convert", "json", "-r", "-o", "-"])
        #expect(invocation.command == .convert(.json))
        #expect(invocation.files == ["in.plist"])
        #expect(invocation.outputPath == "-")
        #expect(invocation.readableJSON)
        #expect(invocation.silent)
    }

    @Test func doubleDashAndDashAreFiles() throws {
        let invocation = try Invocation.parse(["-lint", "-", "--", "-p", "-weird.plist"])
        #expect(invocation.command == .lint)
        #expect(invocation.files == ["-", "-p", "-weird.plist"])
    }

    @Test func extensionLosesLeadingDot() throws {
        #expect(try Invocation.parse(["-convert", "xml1", "-e", ".xml", "a"]).outputExtension == "xml")
        #expect(try Invocation.parse(["-convert", "xml1", "-e", "xml", "a"]).outputExtension == "xml")
    }

    @Test func helpIgnoresTheRest() throws {
        #expect(try Invocation.parse(["-help", "-o", "x", "a", "b"]).command == .help)
    }

    @Test(arguments: [
        ([], "no command or files given"),
        (["-lint"], "no files given"),
        (["-convert", "xml1"], "no files given"),
        (
            ["-convert"],
            "-convert needs a format (one of: xml1, binary1, json, swift, objc, keyed, typedstream)"
        ),
        (
            ["-convert", "yaml", "a"],
            "unknown format 'yaml' for -convert (use one of: xml1, binary1, json, swift, objc, keyed, typedstream)"
        ),
        (
            ["-convert", "XML1", "a"],
            "unknown format 'XML1' for -convert (use one of: xml1, binary1, json, swift, objc, keyed, typedstream)"
        ),
        (["-x", "a"], "unknown option '-x'"),
        (["-lint", "-p", "a"], "-lint and -p cannot be combined"),
        (
            ["-p", "-o", "out", "a"],
            "-o is only valid with -convert, -extract, -insert, -replace and -remove"
        ),
        (["-lint", "-e", "xml", "a"], "-e is only valid with -convert"),
        (["-p", "-r", "a"], "-r is only valid with -convert and -extract"),
        (["-convert", "xml1", "-o"], "-o needs a value"),
        (["-convert", "xml1", "-o", "x", "a", "b"], "-o takes exactly one input file (2 given)"),
        (["-convert", "xml1", "-o", "x", "-e", "y", "a"], "-o and -e cannot be combined"),
        (["-convert", "xml1", "-o", "x", "-o", "y", "a"], "-o given more than once"),
        (["-convert", "xml1", "-e", ".", "a"], "-e needs an extension such as 'xml' or 'plist'"),
        (["-convert", "xml1", "-e", "a/b", "a"], "-e needs an extension such as 'xml' or 'plist'"),
        (["-convert", "xml1", "-o", "", "a"], "-o needs a non-empty path"),
    ])
    func badUsage(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Invocation.parse(arguments) }
    }

    @Test(arguments: [
        ("a.plist", "a.xml"),
        ("dir/a.b.plist", "dir/a.b.xml"),
        ("noextension", "noextension.xml"),
        ("dir.d/noextension", "dir.d/noextension.xml"),
        (".hidden", ".hidden.xml"),
        ("/abs/.hidden.plist", "/abs/.hidden.xml"),
    ])
    func extensionReplacement(input: String, expected: String) {
        #expect(Tool.path(input, replacingExtensionWith: "xml") == expected)
    }
}
