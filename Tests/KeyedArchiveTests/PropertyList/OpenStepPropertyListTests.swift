import Foundation
import KeyedArchive
import TestSupport
import Testing

/// One OpenStep input and the value it must read as.
struct OpenStepCase: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let expected: PropertyList
    /// Whether Foundation's `PropertyListSerialization` (CoreFoundation's parser) reads the
    /// same value; `false` where this package deliberately differs.
    var foundationAgrees = true

    var testDescription: String { name }
}

/// One malformed OpenStep input and the error it must raise.
struct OpenStepErrorCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let code: KeyedArchiveError.Code
    let line: Int
    let column: Int
    let message: String
    /// Whether Foundation's `PropertyListSerialization` refuses the input too; `false`
    /// where this package is deliberately stricter than CoreFoundation.
    let foundationRejects: Bool

    init(
        _ name: String, _ text: String, _ line: Int, _ column: Int, _ message: String,
        code: KeyedArchiveError.Code = .corruptData, foundationRejects: Bool = true
    ) {
        self.init(
            name, bytes: Array(text.utf8), line, column, message, code: code,
            foundationRejects: foundationRejects)
    }

    init(
        _ name: String, bytes: [UInt8], _ line: Int, _ column: Int, _ message: String,
        code: KeyedArchiveError.Code = .corruptData, foundationRejects: Bool = true
    ) {
        self.name = name
        self.bytes = bytes
        self.code = code
        self.line = line
        self.column = column
        self.message = message
        self.foundationRejects = foundationRejects
    }

    var testDescription: String { name }
}

@Suite struct OpenStepPropertyListTests {
    static func read(_ text: String, options: PropertyListReadingOptions = PropertyListReadingOptions())
        throws
        -> PropertyList
    {
        try PropertyList(from: Data(text.utf8), format: .openStep, options: options)
    }

    static let validCases: [OpenStepCase] = [
        // Strings
        OpenStepCase(name: "bare word", text: "abc", expected: "abc"),
        OpenStepCase(
            name: "every unquoted character", text: "azAZ09_$/:.-", expected: "azAZ09_$/:.-"),
        OpenStepCase(name: "bare word with surrounding space", text: "  word \n", expected: "word"),
        OpenStepCase(name: "double-quoted", text: #""hello, world""#, expected: "hello, world"),
        OpenStepCase(name: "single-quoted", text: "'hello'", expected: "hello"),
        OpenStepCase(name: "single quotes around double", text: #"'say "hi"'"#, expected: #"say "hi""#),
        OpenStepCase(name: "double quotes around single", text: #""it's""#, expected: "it's"),
        OpenStepCase(name: "empty string", text: #""""#, expected: ""),
        OpenStepCase(
            name: "C escapes", text: #""\a\b\f\n\r\t\v""#, expected: "\u{7}\u{8}\u{C}\n\r\t\u{B}"),
        OpenStepCase(name: "quote and backslash escapes", text: #""\"\\\'""#, expected: #""\'"#),
        OpenStepCase(name: "escaped quote in single quotes", text: #"'a\'b'"#, expected: "a'b"),
        OpenStepCase(name: "unknown escape is the character", text: #""\q\%""#, expected: "q%"),
        OpenStepCase(name: "escaped line break", text: "\"a\\\nb\"", expected: "a\nb"),
        OpenStepCase(name: "escaped non-ASCII", text: #""\é""#, expected: "é"),
        OpenStepCase(name: "octal, three digits", text: #""\012\101\060""#, expected: "\nA0"),
        OpenStepCase(name: "octal, fewer digits", text: #""\0x\12y""#, expected: "\u{0}x\ny"),
        OpenStepCase(name: "octal stops after three digits", text: #""\1011""#, expected: "A1"),
        OpenStepCase(
            name: "octal above 127 is NeXTSTEP", text: #""\200\341\251\320""#,
            expected: "\u{A0}Æ\u{2019}\u{2014}"),
        OpenStepCase(name: "\\U with four digits", text: #""caf\U00e9""#, expected: "café"),
        OpenStepCase(name: "\\U with fewer digits", text: #""\U41\U3bb!""#, expected: "Aλ!"),
        OpenStepCase(name: "\\U uppercase hex", text: #""\U00C9""#, expected: "É"),
        OpenStepCase(name: "\\U surrogate pair", text: #""\UD83D\UDE00""#, expected: "😀"),
        OpenStepCase(name: "\\U lone high surrogate", text: #""\UD800x""#, expected: "\u{FFFD}x"),
        OpenStepCase(name: "\\U lone low surrogate", text: #""\UDC00""#, expected: "\u{FFFD}"),
        OpenStepCase(
            name: "\\U high surrogate then non-surrogate", text: #""\UD800\U0041""#, expected: "\u{FFFD}A"),
        OpenStepCase(name: "raw UTF-8", text: #""日本語 ü 😀""#, expected: "日本語 ü 😀"),
        OpenStepCase(name: "line breaks inside a string", text: "\"a\nb\r\nc\"", expected: "a\nb\r\nc"),
        OpenStepCase(name: "the bplist magic as a word", text: "bplist00", expected: "bplist00"),

        // Data
        OpenStepCase(name: "empty data", text: "<>", expected: .data(Data())),
        OpenStepCase(
            name: "data with spaces", text: "<0fbd 77AA>", expected: .data(Data([0x0F, 0xBD, 0x77, 0xAA]))),
        OpenStepCase(
            name: "data with line breaks and tabs", text: "< 00\n\tff\r\n10 >",
            expected: .data(Data([0, 255, 16]))),
        OpenStepCase(
            name: "data split by U+2028", text: "<01\u{2028}02>", expected: .data(Data([1, 2]))),

        // Arrays
        OpenStepCase(name: "empty array", text: "()", expected: []),
        OpenStepCase(name: "empty array with space", text: "( /* none */ )", expected: []),
        OpenStepCase(name: "one element", text: "(a)", expected: ["a"]),
        OpenStepCase(name: "elements", text: #"(a, "b c", 'd')"#, expected: ["a", "b c", "d"]),
        OpenStepCase(name: "trailing comma", text: "(a, b,)", expected: ["a", "b"]),
        OpenStepCase(
            name: "mixed nesting", text: "((a), {b = c;}, <00>, ())",
            expected: [["a"], ["b": "c"], .data(Data([0])), []]),

        // Dictionaries
        OpenStepCase(name: "empty dictionary", text: "{}", expected: [:]),
        OpenStepCase(
            name: "entries", text: #"{ a = b; "c d" = 'e'; 1 = (x); }"#,
            expected: ["a": "b", "c d": "e", "1": ["x"]]),
        OpenStepCase(name: "no spaces", text: "{a=b;c=d;}", expected: ["a": "b", "c": "d"]),
        OpenStepCase(
            name: "key; means key = key", text: #"{ a; "b c"; }"#, expected: ["a": "a", "b c": "b c"]),
        OpenStepCase(name: "last duplicate wins", text: "{ a = 1; a = 2; }", expected: ["a": "2"]),
        OpenStepCase(
            name: "nested dictionaries", text: "{ a = { b = { c = d; }; }; }",
            expected: ["a": ["b": ["c": "d"]]]),
        OpenStepCase(
            name: "slashes in unquoted values", text: "{ path = /usr/bin; url = http://example.org/a; }",
            expected: ["path": "/usr/bin", "url": "http://example.org/a"]),

        // Strings files
        OpenStepCase(name: "strings file", text: "a = b;\n\"c\" = \"d\";\n", expected: ["a": "b", "c": "d"]),
        OpenStepCase(name: "strings file, key only", text: #""x";"#, expected: ["x": "x"]),
        OpenStepCase(
            name: "strings file with container values", text: "k = (1, 2); m = { n = o; };",
            expected: ["k": ["1", "2"], "m": ["n": "o"]]),
        OpenStepCase(
            name: "strings file after a comment", text: "/* header */\n\"k\" = \"v\"; // note\n",
            expected: ["k": "v"]),

        // Whitespace and comments
        OpenStepCase(name: "only whitespace", text: " \n\t\r\n ", expected: [:]),
        OpenStepCase(name: "only comments", text: "/* one */ // two\n/**/", expected: [:]),
        OpenStepCase(
            name: "comments everywhere", text: "/*a*/{/*b*/k /*c*/=/*d*/v /*e*/;//f\n}//g",
            expected: ["k": "v"]),
        OpenStepCase(name: "comment with stars", text: "/** a * b **/ (x)", expected: ["x"]),
        OpenStepCase(name: "line comment at end", text: "(a) // done", expected: ["a"]),
        OpenStepCase(
            name: "vertical tab, form feed, U+2028, U+2029", text: "\u{B}\u{C}(a,\u{2028}b\u{2029})",
            expected: ["a", "b"]),
        OpenStepCase(name: "CRLF line ends", text: "{\r\n  a = b;\r\n}\r\n", expected: ["a": "b"]),
    ]

    @Test(arguments: validCases)
    func readsValidInput(_ testCase: OpenStepCase) throws {
        let value = try Self.read(testCase.text)
        #expect(value == testCase.expected, "\(testCase.name): read \(value)")
    }

    /// CoreFoundation's parser (through Foundation) must read the same value, except where
    /// this package documents a difference.
    @Test(arguments: validCases.filter(\.foundationAgrees))
    func agreesWithFoundation(_ testCase: OpenStepCase) throws {
        let object = try PropertyListSerialization.propertyList(
            from: Data(testCase.text.utf8), options: [], format: nil)
        let converted = OpenStepPropertyListTests.propertyList(fromFoundation: object)
        #expect(
            converted == testCase.expected, "\(testCase.name): Foundation read \(String(describing: object))")
    }

    static func propertyList(fromFoundation object: Any) -> PropertyList? {
        if let string = object as? String { return .string(string) }
        if let data = object as? Data { return .data(data) }
        if let array = object as? [Any] {
            var elements: [PropertyList] = []
            for element in array {
                guard let value = propertyList(fromFoundation: element) else { return nil }
                elements.append(value)
            }
            return .array(elements)
        }
        if let dictionary = object as? [AnyHashable: Any] {
            var result = PropertyListDictionary()
            for (key, element) in dictionary {
                guard let key = key.base as? String, let value = propertyList(fromFoundation: element) else {
                    return nil
                }
                result[key] = value
            }
            return .dictionary(result)
        }
        return nil
    }

    static let errorCases: [OpenStepErrorCase] = [
        OpenStepErrorCase(
            "'+' is not an unquoted-string character, as in CF", "c++", 1, 2,
            #"expected '=' or ';' after key "c", found '+'"#),
        OpenStepErrorCase(
            "missing ';' before '}'", "{\n  a = b;\n  c = d }", 3, 9,
            "expected ';' after dictionary value, found '}'"),
        OpenStepErrorCase(
            "missing ';' at end of input", "{ a = b", 1, 8,
            "expected ';' after dictionary value, found end of input"),
        OpenStepErrorCase(
            "strings file missing ';'", "a = b", 1, 6,
            "expected ';' after dictionary value, found end of input"),
        OpenStepErrorCase(
            "missing '='", "{ a b; }", 1, 5, #"expected '=' or ';' after key "a", found 'b'"#),
        OpenStepErrorCase(
            "strings file missing '='", "\"greeting\" \"hello\";", 1, 12,
            #"expected '=' or ';' after key "greeting", found '"'"#),
        OpenStepErrorCase(
            "missing value", "{ a = ; }", 1, 7, #"expected a value after '=' for key "a", found ';'"#),
        OpenStepErrorCase(
            "missing value at end", "{ a =", 1, 6,
            #"expected a value after '=' for key "a", found end of input"#),
        OpenStepErrorCase("array as key", "{ (a) = b; }", 1, 3, "expected a key or '}', found '('"),
        OpenStepErrorCase("data as key", "{ <00> = b; }", 1, 3, "expected a key or '}', found '<'"),
        OpenStepErrorCase(
            "unterminated dictionary", "{ a = b;\n", 2, 1,
            "unterminated dictionary opened at line 1, column 1: expected a key or '}', found end of input"),
        OpenStepErrorCase(
            "unterminated array", "(a, b", 1, 6,
            "unterminated array opened at line 1, column 1: expected ',' or ')', found end of input"),
        OpenStepErrorCase(
            "unterminated array after comma", "x = (a,", 1, 8,
            "unterminated array opened at line 1, column 5: "
                + "expected an array element or ')', found end of input"),
        OpenStepErrorCase(
            "unterminated empty array", "(", 1, 2,
            "unterminated array opened at line 1, column 1: "
                + "expected an array element or ')', found end of input"),
        OpenStepErrorCase(
            "missing comma", "(a b)", 1, 4, "expected ',' or ')' after array element, found 'b'"),
        OpenStepErrorCase("double comma", "(a,,b)", 1, 4, "expected an array element or ')', found ','"),
        OpenStepErrorCase("leading comma", "(,)", 1, 2, "expected an array element or ')', found ','"),
        OpenStepErrorCase(
            "unterminated double-quoted string", "{ a = \"abc", 1, 7,
            "unterminated string: no closing '\"' before end of input"),
        OpenStepErrorCase(
            "unterminated single-quoted string", "\n  'abc\ndef", 2, 3,
            "unterminated string: no closing \"'\" before end of input"),
        OpenStepErrorCase(
            "string ending in a backslash", "\"abc\\", 1, 1,
            "unterminated string: no closing '\"' before end of input"),
        OpenStepErrorCase(
            "unterminated comment", "(a, /* b", 1, 5,
            "unterminated comment: no closing '*/' before end of input"),
        OpenStepErrorCase(
            "unterminated data", "<0a", 1, 4,
            "unterminated data opened at line 1, column 1: "
                + "expected hexadecimal digits or '>', found end of input"),
        OpenStepErrorCase(
            "odd number of hex digits", "<0a1>", 1, 4,
            "odd number of hexadecimal digits in data: '1' has no second digit"),
        OpenStepErrorCase(
            "space inside a hex pair", "<0 a>", 1, 2,
            "odd number of hexadecimal digits in data: '0' has no second digit"),
        OpenStepErrorCase(
            "invalid hex digit", "<0g>", 1, 2,
            "odd number of hexadecimal digits in data: '0' has no second digit"),
        OpenStepErrorCase(
            "invalid character in data", "<00 zz>", 1, 5,
            "expected hexadecimal digits or '>' in data, found 'z'"),
        OpenStepErrorCase(
            "vertical tab in data", "<00\u{B}11>", 1, 4,
            "expected hexadecimal digits or '>' in data, found U+000B"),
        OpenStepErrorCase(
            "junk after a dictionary", "{ a = b; } x", 1, 12,
            "expected end of input after the top-level value, found 'x'"),
        OpenStepErrorCase(
            "junk after an array", "(a)\n(b)", 2, 1,
            "expected end of input after the top-level value, found '('"),
        OpenStepErrorCase(
            "junk after strings-file entries", "a = b; }", 1, 8, "expected a key or end of input, found '}'",
            foundationRejects: false),
        OpenStepErrorCase(
            "comment glued to a word is part of it", "{ k/*c*/ = v; }", 1, 5,
            #"expected '=' or ';' after key "k/", found '*'"#),
        OpenStepErrorCase("invalid top-level character", "#", 1, 1, "expected a value, found '#'"),
        OpenStepErrorCase("control character", "\u{1}", 1, 1, "expected a value, found U+0001"),
        OpenStepErrorCase(
            "non-ASCII outside quotes", "(\"é\", ü)", 1, 7,
            "expected an array element or ')', found 'ü' (U+00FC)"),
        OpenStepErrorCase(
            "octal escape out of range", #"("a\777")"#, 1, 4,
            #"octal escape \777 is out of range (above \377)"#,
            foundationRejects: false),
        OpenStepErrorCase(
            "octal escape with no NeXTSTEP character", #""\376""#, 1, 2,
            #"octal escape \376 is not a NeXTSTEP character"#,
            foundationRejects: false),
        OpenStepErrorCase(
            "\\U without digits", #""\Uzz""#, 1, 4,
            "expected 1 to 4 hexadecimal digits after \\U, found 'z'", foundationRejects: false),
        OpenStepErrorCase(
            "invalid UTF-8", bytes: Array("(\"é".utf8) + [0xFF] + Array("\")".utf8), 1, 4,
            "invalid UTF-8 (byte 0xff)"),
        OpenStepErrorCase(
            "overlong UTF-8", bytes: Array("\"".utf8) + [0xC0, 0xAF] + Array("\"".utf8), 1, 2,
            "invalid UTF-8 (byte 0xc0)"),
        OpenStepErrorCase(
            "UTF-8 surrogate", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], 1, 2, "invalid UTF-8 (byte 0xed)"),
        OpenStepErrorCase(
            "truncated UTF-8", bytes: [0x22, 0x61, 0xE2, 0x82], 1, 3, "invalid UTF-8 (byte 0xe2)"),
    ]

    /// Empty input is named before the OpenStep reader runs (it has no line to point at),
    /// asked for as OpenStep or with the format detected.
    @Test func emptyInputIsNamed() {
        for read in [
            { try PropertyList(from: Data(), format: .openStep) }, { try PropertyList(from: Data()) },
        ] {
            #expect {
                try read()
            } throws: { error in
                (error as? KeyedArchiveError)?.message == "empty input: no property list (0 bytes)"
            }
        }
    }

    @Test(arguments: errorCases)
    func rejectsMalformedInput(_ testCase: OpenStepErrorCase) {
        do {
            let value = try PropertyList(from: Data(testCase.bytes), format: .openStep)
            Issue.record("\(testCase.name): expected an error, read \(value)")
        } catch let error as KeyedArchiveError {
            #expect(error.code == testCase.code, "\(testCase.name): \(error)")
            #expect(
                error.location == .text(line: testCase.line, column: testCase.column),
                "\(testCase.name): \(error)")
            #expect(error.message == testCase.message, "\(testCase.name)")
        } catch {
            Issue.record("\(testCase.name): unexpected error type \(error)")
        }
    }

    /// CoreFoundation's parser refuses the same input, except where this package is
    /// documented to be stricter.
    @Test(arguments: errorCases.filter(\.foundationRejects))
    func foundationRejectsToo(_ testCase: OpenStepErrorCase) {
        #expect(throws: (any Error).self, "\(testCase.name)") {
            try PropertyListSerialization.propertyList(from: Data(testCase.bytes), options: [], format: nil)
        }
    }

    @Test func errorDescriptionSaysWhereAndWhat() {
        #expect(throws: KeyedArchiveError.self) { try Self.read("{\n  a = b;\n  c = d }") }
        do {
            _ = try Self.read("{\n  a = b;\n  c = d }")
        } catch {
            #expect("\(error)" == "line 3, column 9: expected ';' after dictionary value, found '}'")
        }
    }

    // MARK: - Encodings

    @Test func readsUTF8WithByteOrderMark() throws {
        let value = try PropertyList(
            from: Data([0xEF, 0xBB, 0xBF] + Array("{ k = \"é\"; }".utf8)), format: .openStep)
        #expect(value == ["k": "é"])
    }

    @Test(arguments: [true, false])
    func readsUTF16WithByteOrderMark(bigEndian: Bool) throws {
        let text = "/* ü */ { \"k\" = \"日本 😀\"; list = (a, <0f>); }"
        let value = try PropertyList(from: Self.utf16(text, bigEndian: bigEndian), format: .openStep)
        #expect(value == ["k": "日本 😀", "list": ["a", .data(Data([0x0F]))]])
    }

    @Test func utf16ErrorsCountCharacters() {
        let data = Self.utf16("{\n\"ü\" = x y; }", bigEndian: false)
        #expect {
            try PropertyList(from: data, format: .openStep)
        } throws: { error in
            (error as? KeyedArchiveError)?.location == .text(line: 2, column: 9)
        }
    }

    @Test func rejectsOddLengthUTF16() {
        #expect {
            try PropertyList(from: Data([0xFF, 0xFE, 0x28, 0x00, 0x29]), format: .openStep)
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .corruptData
        }
    }

    @Test func byteOrderMarkAloneIsEmptyInput() {
        #expect {
            try PropertyList(from: Data([0xEF, 0xBB, 0xBF]), format: .openStep)
        } throws: { error in
            (error as? KeyedArchiveError)?.message.hasPrefix("empty input") == true
        }
    }

    static func utf16(_ text: String, bigEndian: Bool) -> Data {
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            let high = UInt8(unit >> 8)
            let low = UInt8(unit & 0xFF)
            bytes += bigEndian ? [high, low] : [low, high]
        }
        return Data(bytes)
    }

    // MARK: - Limits

    static func nestedArrays(_ depth: Int) -> String {
        String(repeating: "(", count: depth) + String(repeating: ")", count: depth)
    }

    @Test func acceptsNestingUpToTheDefaultLimit() throws {
        var value = try Self.read(Self.nestedArrays(512))
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            guard let first = elements.first else { break }
            value = first
        }
        #expect(depth == 512)
    }

    @Test(arguments: [513, 100_000])
    func refusesNestingBeyondTheLimit(depth: Int) {
        #expect {
            try Self.read(Self.nestedArrays(depth))
        } throws: { error in
            let error = error as? KeyedArchiveError
            return error?.code == .limitExceeded && error?.location == .text(line: 1, column: 513)
        }
    }

    @Test func honoursACustomDepthLimit() throws {
        let options = PropertyListReadingOptions(maximumDepth: 2)
        #expect(try Self.read("{ a = (b); }", options: options) == ["a": ["b"]])
        #expect(throws: KeyedArchiveError.self) { try Self.read("{ a = { b = (c); }; }", options: options) }
        // The implicit dictionary of a strings file is one level.
        #expect(try Self.read("a = (b);", options: options) == ["a": ["b"]])
        #expect(throws: KeyedArchiveError.self) {
            try Self.read("a = (b);", options: PropertyListReadingOptions(maximumDepth: 1))
        }
    }

    @Test func honoursTheValueBudget() throws {
        let options = PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: 3)
        #expect(try Self.read("(a, b)", options: options) == ["a", "b"])
        #expect {
            try Self.read("(a, b, c)", options: options)
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .limitExceeded
        }
        // `k;` builds a value too.
        #expect(throws: KeyedArchiveError.self) { try Self.read("{ a; b; c; }", options: options) }
    }

    // MARK: - Through format detection

    static let detectedCases: [(String, PropertyList)] = [
        ("{ a = b; }", ["a": "b"]),
        ("(a)", ["a"]),
        ("\"s\"", "s"),
        ("<0a0b>", .data(Data([0x0A, 0x0B]))),
        ("  <abc0>", .data(Data([0xAB, 0xC0]))),
        ("/* strings */ \"k\" = \"v\";", ["k": "v"]),
    ]

    @Test(arguments: detectedCases)
    func detectedAsOpenStep(text: String, expected: PropertyList) throws {
        #expect(PropertyListFormat.detect(Data(text.utf8)) == .openStep)
        #expect(try PropertyList(from: Data(text.utf8)) == expected)
    }

    // MARK: - Realistic files

    /// A localisation file as Xcode and translators write them.
    static let stringsFile = """
        /*
          Localizable.strings
          Potato Bug Tracker
        */

        /* Title of the main window */
        "MainWindow.Title" = "Potato Bug Tracker";

        /* Button that adds a bug; %@ is the bug's name */
        "AddBug.Button" = "Add “%@”";

        // Shown when the list is empty.
        "EmptyList.Message" = "No bugs yet.\\nTap + to add one.";

        "Quote" = "She said \\"hello\\"";
        "Escaped.Unicode" = "Caf\\U00e9";
        "Multiline" = "first
        second";
        Unquoted.Key = Unquoted.Value;
        "OK";
        """

    static let stringsFileValue: PropertyList = [
        "MainWindow.Title": "Potato Bug Tracker",
        "AddBug.Button": "Add “%@”",
        "EmptyList.Message": "No bugs yet.\nTap + to add one.",
        "Quote": "She said \"hello\"",
        "Escaped.Unicode": "Café",
        "Multiline": "first\nsecond",
        "Unquoted.Key": "Unquoted.Value",
        "OK": "OK",
    ]

    @Test func readsAStringsFile() throws {
        #expect(try Self.read(Self.stringsFile) == Self.stringsFileValue)
    }

    @Test func readsAUTF16StringsFile() throws {
        let value = try PropertyList(from: Self.utf16(Self.stringsFile, bigEndian: false))
        #expect(value == Self.stringsFileValue)
    }

    /// The shape of an Xcode project file (`project.pbxproj`).
    static let xcodeProject = """
        // !$*UTF8*$!
        {
        \tarchiveVersion = 1;
        \tclasses = {
        \t};
        \tobjectVersion = 56;
        \tobjects = {

        /* Begin PBXBuildFile section */
        \t\tA1000001000000000000AA01 /* main.swift in Sources */ = {isa = PBXBuildFile; \
        fileRef = A1000001000000000000AA02 /* main.swift */; };
        /* End PBXBuildFile section */

        /* Begin PBXFileReference section */
        \t\tA1000001000000000000AA02 /* main.swift */ = {isa = PBXFileReference; \
        lastKnownFileType = sourcecode.swift; path = main.swift; sourceTree = "<group>"; };
        \t\tA1000001000000000000AA03 /* Tool */ = {isa = PBXFileReference; \
        explicitFileType = "compiled.mach-o.executable"; includeInIndex = 0; path = Tool; \
        sourceTree = BUILT_PRODUCTS_DIR; };
        /* End PBXFileReference section */

        /* Begin XCBuildConfiguration section */
        \t\tA1000001000000000000AA04 /* Debug */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tGCC_PREPROCESSOR_DEFINITIONS = (
        \t\t\t\t\t"DEBUG=1",
        \t\t\t\t\t"$(inherited)",
        \t\t\t\t);
        \t\t\t\tOTHER_SWIFT_FLAGS = "-D DEBUG";
        \t\t\t\tSWIFT_VERSION = 5.0;
        \t\t\t};
        \t\t\tname = Debug;
        \t\t};
        /* End XCBuildConfiguration section */
        \t};
        \trootObject = A1000001000000000000AA05 /* Project object */;
        }

        """

    @Test func readsAnXcodeProject() throws {
        let project = try PropertyList(from: Data(Self.xcodeProject.utf8))
        #expect(project["archiveVersion"] == "1")
        #expect(project["objectVersion"] == "56")
        #expect(project["classes"] == [:])
        #expect(project["rootObject"] == "A1000001000000000000AA05")
        let objects = try #require(project["objects"]?.dictionaryValue)
        #expect(objects.count == 4)
        #expect(objects["A1000001000000000000AA01"]?["fileRef"] == "A1000001000000000000AA02")
        #expect(objects["A1000001000000000000AA02"]?["sourceTree"] == "<group>")
        #expect(objects["A1000001000000000000AA03"]?["explicitFileType"] == "compiled.mach-o.executable")
        let settings = objects["A1000001000000000000AA04"]?["buildSettings"]
        #expect(settings?["GCC_PREPROCESSOR_DEFINITIONS"] == ["DEBUG=1", "$(inherited)"])
        #expect(settings?["SWIFT_VERSION"] == "5.0")
        #expect(settings?["OTHER_SWIFT_FLAGS"] == "-D DEBUG")
        // Keys keep file order.
        #expect(
            project.dictionaryValue?.keys == [
                "archiveVersion", "classes", "objectVersion", "objects", "rootObject",
            ])
    }

    @Test func xcodeProjectAgreesWithFoundation() throws {
        let object = try PropertyListSerialization.propertyList(
            from: Data(Self.xcodeProject.utf8), options: [], format: nil)
        #expect(Self.propertyList(fromFoundation: object) == (try Self.read(Self.xcodeProject)))
    }

    // MARK: - Mutations

    /// Damaged inputs give a value or a `KeyedArchiveError`, never a trap or another error,
    /// and whatever is read renders as JSON.
    @Test(arguments: [xcodeProject, stringsFile])
    func mutatedInputNeverTraps(_ text: String) throws {
        var generator = SeededGenerator(seed: UInt64(text.utf8.count))
        let original = Array(text.utf8)
        let interesting = Array("{}();=,<>\"'\\/*U0123456789abcdef \n".utf8) + [0x00, 0xC3, 0xE2, 0xFF]
        for round in 0..<1500 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = interesting.randomElement(using: &generator) ?? 0
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(interesting.randomElement(using: &generator) ?? 0, at: position)
                default: bytes = Array(bytes[..<position])
                }
                if bytes.isEmpty { break }
            }
            do {
                let value = try PropertyList(from: Data(bytes), format: .openStep)
                _ = try value.jsonData()
            } catch is KeyedArchiveError {
                // Refusing damaged input is fine.
            } catch {
                Issue.record("round \(round): unexpected error \(error)")
            }
        }
    }
}
