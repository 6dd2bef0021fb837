import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import KeyedArchiveSupport
@testable import PropertyListFormats

/// The OpenStep reader's fast paths: strings and data read inline in dictionaries and
/// arrays, short ASCII strings built in place, word-at-a-time scans, the reused escape
/// buffer and the stacks lent from the call stack. Each is checked against what the
/// general path (or the standard library) gives.
@Suite("OpenStep reader fast paths")
struct OpenStepFastPathTests {
    static func read(_ text: String, options: PropertyListReadingOptions = PropertyListReadingOptions())
        throws -> PropertyList
    {
        try PropertyList(from: Data(text.utf8), format: .openStep, options: options)
    }

    // MARK: - Short strings built in place

    @Test func smallStringsAreBitForBitTheStandardLibrarys() throws {
        #if _pointerBitWidth(_64) && _endian(little)
        #expect(SmallText.isAvailable, "64-bit little-endian: the in-place layout should hold")
        #endif
        guard SmallText.isAvailable else { return }
        let text = Array("CFBundleIdentifier = org.example.app0; 0123456789:;<=>?@".utf8)
        try text.withUnsafeBufferPointer { bytes in
            for start in 0..<bytes.count {
                // Every length up to 16, near the end of the input too (the bytewise path).
                for end in start...min(bytes.count, start + 16) {
                    let expected = String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                    let built = SmallText.string(bytes, from: start, to: end)
                    if end - start > 15 {
                        #expect(built == nil, "\(start)..<\(end)")
                        continue
                    }
                    let string = try #require(built, "\(start)..<\(end)")
                    #expect(string == expected)
                    #expect(Array(string.utf8) == Array(text[start..<end]))
                    #expect(string.count == end - start)
                    #expect(string.hashValue == expected.hashValue)
                    #expect(string + "!" == expected + "!")
                    #expect([string: 1][expected] == 1)
                }
            }
        }
        // Not ASCII, or out of bounds: nil, for the ordinary path to take.
        let accented = Array("café".utf8)
        accented.withUnsafeBufferPointer { bytes in
            #expect(SmallText.string(bytes, from: 0, to: bytes.count) == nil)
            #expect(SmallText.string(bytes, from: 0, to: 3) == "caf")
            #expect(SmallText.string(bytes, from: 2, to: bytes.count + 1) == nil)
            #expect(SmallText.string(bytes, from: 3, to: 2) == nil)
        }
    }

    // MARK: - Word-at-a-time classification

    /// Every byte value in every lane of a word, among other bytes of every class.
    @Test func wordClassificationMatchesTheBytewiseTests() {
        let fillers: [UInt8] = [0x41, 0x20, 0x7B, 0xC3, 0x00, 0x2D, 0x0A, 0xFF]
        for filler in fillers {
            for lane in 0..<8 {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[lane] = UInt8(value)
                    let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    let unquoted = OpenStepParser.unquotedCharacters(in: word)
                    for index in 0..<8 {
                        let byte = bytes[index]
                        let isUnquoted = unquoted >> (8 * index) & 0xFF == 0x80
                        #expect(
                            isUnquoted == OpenStepParser.isUnquotedCharacter(byte),
                            "unquoted: byte \(byte) in lane \(index)")
                        // Nothing but the flag bit of each byte.
                        #expect(unquoted >> (8 * index) & 0x7F == 0)
                    }
                }
            }
        }
    }

    /// Eight digits decoded at once: `nil` exactly when a byte of the eight is not a
    /// hexadecimal digit, else the bytes the digit-by-digit decoding gives.
    @Test func hexWordsMatchTheDigitByDigitDecoding() {
        let fillers: [UInt8] = Array("0a9F".utf8) + [0x20, 0xC3, 0x3E]
        for filler in fillers {
            for lane in 0..<8 {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[lane] = UInt8(value)
                    let word = bytes.withUnsafeBytes {
                        UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))
                    }
                    let values = bytes.map(OpenStepParser.hexValue)
                    let decoded = OpenStepParser.hexBytes(of: word)
                    guard values.allSatisfy({ $0 != nil }) else {
                        #expect(decoded == nil, "byte \(value) in lane \(lane) among \(filler)")
                        continue
                    }
                    let expected = (0..<4).reduce(UInt32(0)) { packed, index in
                        let byte = (values[2 * index] ?? 0) << 4 | (values[2 * index + 1] ?? 0)
                        return packed | UInt32(byte) << (8 * UInt32(index))
                    }
                    #expect(decoded == expected, "byte \(value) in lane \(lane) among \(filler)")
                }
            }
        }
    }

    /// Data of every length to 40 bytes, in either case, with spacing anywhere or nowhere,
    /// inside a document and at the very end of the input (where no whole word is left).
    @Test func dataOfEveryLengthAcrossWordBoundaries() throws {
        var random = SeededGenerator(seed: 0xDA7A_0001)
        for length in 0...40 {
            for _ in 0..<12 {
                let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                let spacing = random.next() % 3
                var text = "<"
                for (index, byte) in bytes.enumerated() {
                    if index > 0, spacing == 1 && index % 4 == 0 || spacing == 2 && random.next() % 5 == 0 {
                        text += [" ", "\n", "\t"][Int(random.next() % 3)]
                    }
                    text += String(format: random.next() % 2 == 0 ? "%02x" : "%02X", byte)
                }
                text += ">"
                #expect(try Self.read(text) == .data(Data(bytes)), "\(text)")
                #expect(
                    try Self.read("(\(text), \(text))") == [.data(Data(bytes)), .data(Data(bytes))], "\(text)"
                )
            }
        }
        // A bad digit or an unterminated run at every place in a word.
        for bad in 0..<16 {
            var digits = Array(repeating: UInt8(ascii: "a"), count: 16)
            digits[bad] = UInt8(ascii: "g")
            let text = "<" + String(decoding: digits, as: UTF8.self) + ">"
            #expect(throws: KeyedArchiveError.self) { try Self.read(text) }
            let cut = "<" + String(repeating: "ab", count: bad)
            #expect(throws: KeyedArchiveError.self) { try Self.read(cut) }
        }
    }

    /// Data around the size decoded before its end is looked for (a kilobyte), and well past
    /// it: the part decoded first is carried over, spacing and case anywhere; an error after
    /// the first kilobyte is the same error at the same place.
    @Test func dataAcrossTheShortDataCapacity() throws {
        var random = SeededGenerator(seed: 0xDA7A_0002)
        let capacity = OpenStepParser.shortDataCapacity
        for length in Array(capacity - 5...capacity + 5) + [2 * capacity, 4 * capacity + 3] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var text = "<"
            for (index, byte) in bytes.enumerated() {
                if index > 0, random.next() % 7 == 0 { text += [" ", "\n", "\t"][Int(random.next() % 3)] }
                text += String(format: random.next() % 2 == 0 ? "%02x" : "%02X", byte)
            }
            #expect(try Self.read(text + ">") == .data(Data(bytes)), "\(length) bytes")
            #expect(
                try Self.read("{ a = \(text)>; b = <0aff>; }") == [
                    "a": .data(Data(bytes)), "b": .data(Data([0x0A, 0xFF])),
                ],
                "\(length) bytes")
            // Broken past the first kilobyte: unterminated, a bad digit, an odd digit.
            #expect(throws: KeyedArchiveError.self) { try Self.read(text) }
            let expectedMessages = [
                "expected hexadecimal digits or '>' in data, found 'g'", "odd number of hexadecimal digits",
            ]
            for (suffix, message) in zip(["g0>", "0>"], expectedMessages) {
                do {
                    _ = try Self.read(text + suffix)
                    Issue.record("\(length) bytes + \(suffix): read")
                } catch let error as KeyedArchiveError {
                    #expect(error.description.contains(message), "\(error)")
                }
            }
        }
    }

    @Test func stringsOfEveryLengthAcrossWordBoundaries() throws {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$/:.-")
        for length in 1...40 {
            let word = String((0..<length).map { letters[($0 * 7 + length) % letters.count] })
            let quoted = String(word.reversed())
            for indent in 0...9 {
                let space = "\n" + String(repeating: " ", count: indent)
                let text =
                    "{\(space)\(word) =\(space)\(word);\(space)\"\(quoted)\" = (\(word),\(space)'\(quoted)');\(space)}"
                #expect(
                    try Self.read(text) == [word: .string(word), quoted: [.string(word), .string(quoted)]],
                    "\(text)")
                // At the very end of the input: the word-at-a-time scans run out of words.
                #expect(try Self.read(space + word) == .string(word))
                #expect(try Self.read(space + "\"" + quoted + "\"") == .string(quoted))
            }
        }
    }

    // MARK: - Values read inline

    @Test func scalarValuesInlineAndContainersBetweenThem() throws {
        let text = """
            {
                name = "Potato Bug"; // a comment
                plain = bare/path:1.0-x_$;
                token = < 0fBD 77aa
                    00 >;
                empty = <>;
                list = (a, "b", <01>, (c), { d = e; }, f, );
                nested = { inner = ( ); deeper = { x = "y"; }; };
                shorthand;
                /* between */ last = 'z';
            }
            """
        let expected: PropertyList = [
            "name": "Potato Bug", "plain": "bare/path:1.0-x_$",
            "token": .data(Data([0x0F, 0xBD, 0x77, 0xAA, 0x00])), "empty": .data(Data()),
            "list": ["a", "b", .data(Data([0x01])), ["c"], ["d": "e"], "f"],
            "nested": ["inner": [], "deeper": ["x": "y"]], "shorthand": "shorthand", "last": "z",
        ]
        #expect(try Self.read(text) == expected)
        let object = try PropertyListSerialization.propertyList(
            from: Data(text.utf8), options: [], format: nil)
        #expect(OpenStepPropertyListTests.propertyList(fromFoundation: object) == expected)
    }

    @Test func stringsFileEntriesInline() throws {
        let text =
            "\"greeting\" = \"Hello, \\\"world\\\"\";\nname = Mantis;\ntoken = <0a0b>;\nflag;\nlist = (1, 2);\n"
        #expect(
            try Self.read(text) == [
                "greeting": #"Hello, "world""#, "name": "Mantis", "token": .data(Data([0x0A, 0x0B])),
                "flag": "flag", "list": ["1", "2"],
            ])
    }

    /// The errors of the inline paths say what and where, as the general path did.
    @Test(arguments: [
        ("{ a = b c; }", 1, 9, "expected ';' after dictionary value, found 'c'"),
        ("{ a = \"b\" }", 1, 11, "expected ';' after dictionary value, found '}'"),
        ("{ a = <0a> b; }", 1, 12, "expected ';' after dictionary value, found 'b'"),
        ("{ a = <0a; }", 1, 10, "expected hexadecimal digits or '>' in data, found ';'"),
        ("{ a = <0a0>; }", 1, 10, "odd number of hexadecimal digits in data: '0' has no second digit"),
        ("(a b)", 1, 4, "expected ',' or ')' after array element, found 'b'"),
        ("(a, \"b\" <0c>)", 1, 9, "expected ',' or ')' after array element, found '<'"),
        (
            "(a, b", 1, 6,
            "unterminated array opened at line 1, column 1: expected ',' or ')', found end of input"
        ),
        ("{ a = \"b", 1, 7, "unterminated string: no closing '\"' before end of input"),
        ("(a, 'b\\", 1, 5, "unterminated string: no closing \"'\" before end of input"),
        ("{ a = ; }", 1, 7, "expected a value after '=' for key \"a\", found ';'"),
        ("(a, ;)", 1, 5, "expected an array element or ')', found ';'"),
    ])
    func inlineErrors(text: String, line: Int, column: Int, message: String) {
        #expect {
            try Self.read(text)
        } throws: { error in
            guard let error = error as? KeyedArchiveError else { return false }
            #expect(error.message == message, "\(text)")
            #expect(error.location == .text(line: line, column: column), "\(text): \(error)")
            return error.code == .corruptData
        }
    }

    /// The value budget counts values read inline exactly as before: the error is raised
    /// just after the value that exceeds it.
    @Test func valueBudgetCountsInlineValues() throws {
        // A value and its dictionary are two values; keys are not counted.
        let two = PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: 2)
        #expect(try Self.read("{ a = b; }", options: two) == ["a": "b"])
        #expect(try Self.read("(<0a>)", options: two) == [.data(Data([0x0A]))])
        let options = PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: 1)
        for (text, column) in [("{ a = b; c = d; }", 15), ("(a, <0b>, c)", 9), ("{ a = (b, 'c'); }", 14)] {
            #expect {
                try Self.read(text, options: options)
            } throws: { error in
                let error = error as? KeyedArchiveError
                return error?.code == .limitExceeded && error?.location == .text(line: 1, column: column)
            }
        }
    }

    // MARK: - Escapes and the reused buffer

    @Test func stringsWithEscapesOneAfterAnother() throws {
        let text =
            #"( "first\nline, the longest of all", "x\ty", "\"", 'it\'s', "plain", "\U00e9t\U00e9\101", "caf\U00e9 \U2713 done", "\\" )"#
        #expect(
            try Self.read(text) == [
                "first\nline, the longest of all", "x\ty", "\"", "it's", "plain", "étéA", "café ✓ done", "\\",
            ])
        let object = try PropertyListSerialization.propertyList(
            from: Data(text.utf8), options: [], format: nil)
        #expect(OpenStepPropertyListTests.propertyList(fromFoundation: object) == (try Self.read(text)))
    }

    /// Strings with escapes among plain text of every script, built from the escape buffer
    /// without the standard library validating it again: the expected text, well-formed,
    /// and flagged ASCII exactly when it is (escapes of every kind: control letters, octal
    /// in both halves of the NeXTSTEP table, `\\U` units and surrogate pairs, lone
    /// surrogates, a backslash before a non-ASCII character).
    @Test func escapedStringsAreTheStandardLibrarys() throws {
        var random = SeededGenerator(seed: 0xE5CA_9E5)
        func below(_ bound: Int) -> Int { Int(random.next() >> 33) % bound }
        let plain = ["a", "Zz", " ", "é", "ß", "説明", "😀", "Жи", "0123456789abcdef"]
        let escapes: [(String, String)] = [
            (#"\n"#, "\n"), (#"\t"#, "\t"), (#"\a"#, "\u{07}"), (#"\""#, "\""), (#"\\"#, "\\"),
            (#"\101"#, "A"), (#"\000"#, "\u{0}"), (#"\341"#, "Æ"), (#"\200"#, "\u{A0}"),
            (#"\U00e9"#, "é"), (#"\U8AAC"#, "説"), (#"\Ud83d\Ude00"#, "😀"), (#"\Ud83dx"#, "\u{FFFD}x"),
            (#"\Ude00"#, "\u{FFFD}"), (#"\é"#, "é"), (#"\説"#, "説"), (#"\😀"#, "😀"),
            (#"\Ud83d\U0041"#, "\u{FFFD}A"), (#"\18"#, "\u{1}8"), (#"\U41-"#, "A-"), (#"\U3b1-"#, "α-"),
            ("\\\n", "\n"), ("\\\u{2028}", "\u{2028}"),
        ]
        for _ in 0..<3000 {
            var source = "\""
            var expected = ""
            for _ in 0..<(1 + below(8)) {
                if below(2) == 0 {
                    let (escaped, value) = escapes[below(escapes.count)]
                    source += escaped
                    expected += value
                } else {
                    let run = plain[below(plain.count)]
                    source += run
                    expected += run
                }
            }
            source += "\""
            let read = try Self.read(source)
            let text = try #require(read.stringValue, "\(source)")
            #expect(text == expected, "\(source)")
            let bytes = Array(text.utf8)
            #expect(bytes == Array(expected.utf8), "\(source)")
            #expect(String(validating: bytes, as: UTF8.self) != nil, "\(source)")
            if KnownASCII.isAvailable {
                #expect(KnownASCII.flag(text) == bytes.allSatisfy { $0 < 0x80 }, "\(source)")
            }
        }
    }

    @Test func nonASCIIStringsTakeTheOrdinaryPath() throws {
        #expect(
            try Self.read("{ \"clé\" = \"été\"; k = \"Ünïcødé note ✓ longer than fifteen\"; }") == [
                "clé": "été", "k": "Ünïcødé note ✓ longer than fifteen",
            ])
    }

    // MARK: - Lent stacks outgrown

    @Test func manyValuesAndDeepNestingMoveTheStacksToTheHeap() throws {
        let count = 300
        let entries = (0..<count).map {
            "key\($0) = (v\($0), \"w\($0)\", <\(String(format: "%02x", $0 % 256))>);"
        }
        let text = "{ " + entries.joined(separator: " ") + " }"
        var expected = PropertyListDictionary()
        for index in 0..<count {
            expected["key\(index)"] = [
                .string("v\(index)"), .string("w\(index)"), .data(Data([UInt8(index % 256)])),
            ]
        }
        #expect(try Self.read(text) == .dictionary(expected))

        let depth = 100
        let nested =
            String(repeating: "{ k = (a, ", count: depth) + "end" + String(repeating: "); }", count: depth)
        var value = try Self.read(nested)
        var levels = 0
        while case .dictionary(let dictionary) = value, case .array(let elements)? = dictionary["k"] {
            #expect(elements.first == "a")
            levels += 1
            value = elements.last ?? "missing"
        }
        #expect(levels == depth)
        #expect(value == "end")
    }

    // MARK: - Generated documents

    /// Documents made of every construct, with random spacing and comments, read as the
    /// generator says they should be and as CoreFoundation reads them.
    @Test func generatedDocumentsReadAsGenerated() throws {
        var generator = DocumentGenerator(seed: 0x0FEE_D5EE_D)
        for round in 0..<150 {
            let (text, expected) = generator.dictionaryDocument()
            let value = try Self.read(text)
            #expect(value == expected, "document \(round):\n\(text)")
            let object = try PropertyListSerialization.propertyList(
                from: Data(text.utf8), options: [], format: nil)
            #expect(
                OpenStepPropertyListTests.propertyList(fromFoundation: object) == expected,
                "document \(round) through Foundation:\n\(text)")
        }
    }
}

/// Random OpenStep documents and the values they stand for.
private struct DocumentGenerator {
    private var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    private mutating func next() -> UInt64 { random.next() }

    private mutating func below(_ bound: Int) -> Int { random.below(bound) }

    private mutating func space() -> String {
        [
            "", " ", " ", "\n    ", "\n        ", "\t", "\r\n  ", " /* note */ ", " // line\n",
            "\n\n            ",
        ][below(10)]
    }

    private static let unquoted = Array(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$/:.-")
    private static let plain = Array("abc XYZ 0123 ,;=(){}<>/*+!?#%&@[]|~^`é✓ü")

    /// Text and value of a string in one of the forms.
    mutating func string() -> (String, String) {
        switch below(4) {
        case 0:
            // Starting with a letter: `//` would start a comment.
            let length = below(24)
            let text =
                String(Self.unquoted[below(52)])
                + String((0..<length).map { _ in Self.unquoted[below(Self.unquoted.count)] })
            return (text, text)
        case 1:
            let length = below(30)
            let text = String((0..<length).map { _ in Self.plain[below(Self.plain.count)] })
            return ("\"" + text + "\"", text)
        default:
            // Quoted, with escapes among plain characters.
            var source = below(2) == 0 ? "\"" : "'"
            let quote = source
            var value = ""
            for _ in 0..<(1 + below(12)) {
                switch below(9) {
                case 0: source += "\\n"; value += "\n"
                case 1: source += "\\t"; value += "\t"
                case 2: source += "\\\""; value += "\""
                case 3: source += "\\\\"; value += "\\"
                case 4: source += "\\'"; value += "'"
                case 5: source += "\\U00e9"; value += "é"
                case 6: source += "\\101"; value += "A"
                default:
                    let run = String((0..<below(10)).map { _ in Self.plain[below(Self.plain.count)] })
                    source += run
                    value += run
                }
            }
            return (source + quote, value)
        }
    }

    mutating func data() -> (String, PropertyList) {
        let bytes = (0..<below(20)).map { _ in UInt8(truncatingIfNeeded: next()) }
        var text = "<"
        for (index, byte) in bytes.enumerated() {
            if index > 0, below(3) == 0 { text += [" ", "\n", "\t", "  "][below(4)] }
            let pair = String(format: below(2) == 0 ? "%02x" : "%02X", byte)
            text += pair
        }
        return (text + (below(2) == 0 ? "" : " ") + ">", .data(Data(bytes)))
    }

    mutating func value(depth: Int) -> (String, PropertyList) {
        switch depth < 3 ? below(6) : below(3) {
        case 0, 1:
            let (text, value) = string()
            return (text, .string(value))
        case 2: return data()
        case 3, 4: return array(depth: depth + 1)
        default: return dictionary(depth: depth + 1)
        }
    }

    mutating func array(depth: Int) -> (String, PropertyList) {
        var text = "(" + space()
        var elements: [PropertyList] = []
        let count = below(7)
        for index in 0..<count {
            let (element, value) = value(depth: depth)
            text += element + space()
            elements.append(value)
            if index < count - 1 || below(3) == 0 { text += "," + space() }
        }
        return (text + ")", .array(elements))
    }

    mutating func dictionary(depth: Int) -> (String, PropertyList) {
        let (body, value) = entries(depth: depth)
        return ("{" + space() + body + "}", value)
    }

    private mutating func entries(depth: Int) -> (String, PropertyList) {
        var text = ""
        var result = PropertyListDictionary()
        for _ in 0..<below(14) {
            let (keyText, key) = string()
            if below(8) == 0 {
                text += keyText + space() + ";" + space()
                result[key] = .string(key)
                continue
            }
            let (valueText, value) = value(depth: depth)
            text += keyText + space() + "=" + space() + valueText + space() + ";" + space()
            result[key] = value
        }
        return (text, .dictionary(result))
    }

    mutating func dictionaryDocument() -> (String, PropertyList) {
        let (text, value) = dictionary(depth: 0)
        return (space() + text + space(), value)
    }
}
