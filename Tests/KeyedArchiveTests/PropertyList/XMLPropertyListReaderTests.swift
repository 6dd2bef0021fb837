import Foundation
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// Reads `text` as an XML property list.
private func readXML(
    _ text: String, options: PropertyListReadingOptions = PropertyListReadingOptions()
) throws -> PropertyList {
    try PropertyList(from: Data(text.utf8), format: .xml, options: options)
}

/// Wraps `body` in a `<plist>` element and reads it.
private func readPlist(_ body: String) throws -> PropertyList {
    try readXML("<plist version=\"1.0\">\(body)</plist>")
}

/// The error `body` throws, recording a failure if it throws none or another type.
private func readError(
    _ body: () throws -> PropertyList, sourceLocation: SourceLocation = #_sourceLocation
) -> KeyedArchiveError? {
    #expect(throws: KeyedArchiveError.self, sourceLocation: sourceLocation) { _ = try body() }
}

/// One malformed document, the error code it must raise and where (1-based line and column
/// of the offending character).
struct MalformedXML: Sendable, CustomTestStringConvertible {
    let name: String
    let xml: String
    let code: KeyedArchiveError.Code
    let line: Int
    let column: Int

    init(_ name: String, _ xml: String, _ code: KeyedArchiveError.Code, _ line: Int, _ column: Int) {
        self.name = name
        self.xml = xml
        self.code = code
        self.line = line
        self.column = column
    }

    var testDescription: String { name }
}

@Suite struct XMLPropertyListReaderTests {
    static let malformed: [MalformedXML] = [
        MalformedXML("empty input", "", .corruptData, 1, 1),
        MalformedXML("only whitespace", "  \n ", .corruptData, 2, 2),
        MalformedXML("text before the root", "hello", .corruptData, 1, 1),
        MalformedXML("empty plist element", "<plist/>", .corruptData, 1, 1),
        MalformedXML("plist without a value", "<plist></plist>", .corruptData, 1, 1),
        MalformedXML(
            "two values in plist", "<plist><string>a</string><string>b</string></plist>", .corruptData, 1, 26),
        MalformedXML("unknown element", "<plist><doct><key>a</key></doct></plist>", .corruptData, 1, 8),
        MalformedXML(
            "value without key", "<plist><dict><string>a</string></dict></plist>", .corruptData, 1, 14),
        MalformedXML("key without value", "<plist><dict><key>a</key></dict></plist>", .corruptData, 1, 26),
        MalformedXML(
            "key followed by key", "<plist><dict><key>a</key><key>b</key><string>c</string></dict></plist>",
            .corruptData, 1, 26),
        MalformedXML(
            "data element as key", "<plist><dict><data>abcd</data><string>xyz</string></dict></plist>",
            .corruptData, 1, 14),
        MalformedXML("mismatched end tag", "<plist><array></dict></plist>", .corruptData, 1, 15),
        MalformedXML("unclosed array", "<plist><array><string>a</string></plist>", .corruptData, 1, 33),
        MalformedXML("end of input in array", "<plist><array>", .corruptData, 1, 15),
        MalformedXML("end of input in tag", "<pl", .corruptData, 1, 1),
        MalformedXML("key outside dict", "<plist><key>a</key></plist>", .corruptData, 1, 8),
        MalformedXML("nested plist", "<plist><array><plist/></array></plist>", .corruptData, 1, 15),
        MalformedXML("empty integer", "<plist><integer></integer></plist>", .corruptData, 1, 8),
        MalformedXML("empty integer element", "<plist><integer/></plist>", .corruptData, 1, 8),
        MalformedXML("integer with letters", "<plist><integer>12a</integer></plist>", .corruptData, 1, 17),
        MalformedXML(
            "hex prefix without digits", "<plist><integer>0x</integer></plist>", .corruptData, 1, 17),
        MalformedXML(
            "integer beyond 128 bits",
            "<plist><integer>99999999999999999999999999999999999999999</integer></plist>", .valueOutOfRange,
            1, 17),
        MalformedXML(
            "integer of 2^127", "<plist><integer>170141183460469231731687303715884105728</integer></plist>",
            .valueOutOfRange, 1, 17),
        MalformedXML(
            "hex integer beyond 128 bits",
            "<plist><integer>0x1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF</integer></plist>", .valueOutOfRange, 1, 17),
        MalformedXML(
            "comment inside integer", "<plist><integer>1<!-- x --></integer></plist>", .corruptData, 1, 18),
        MalformedXML("malformed real", "<plist><real>abc123</real></plist>", .corruptData, 1, 14),
        MalformedXML("hexadecimal real", "<plist><real>0x1p3</real></plist>", .corruptData, 1, 14),
        MalformedXML("real with two points", "<plist><real>1.2.3</real></plist>", .corruptData, 1, 14),
        MalformedXML("real without exponent digits", "<plist><real>1e</real></plist>", .corruptData, 1, 14),
        MalformedXML("empty real", "<plist><real></real></plist>", .corruptData, 1, 8),
        MalformedXML("empty date", "<plist><date></date></plist>", .corruptData, 1, 8),
        MalformedXML("month 13", "<plist><date>2020-13-01T00:00:00Z</date></plist>", .corruptData, 1, 14),
        MalformedXML("February 31", "<plist><date>2021-02-31T00:00:00Z</date></plist>", .corruptData, 1, 14),
        MalformedXML("date without time", "<plist><date>2020-01-01</date></plist>", .corruptData, 1, 14),
        MalformedXML("bad base64 byte", "<plist><data>AB*D</data></plist>", .corruptData, 1, 16),
        MalformedXML("entity in data", "<plist><data>*@&amp;%#helo</data></plist>", .corruptData, 1, 14),
        MalformedXML("truncated base64", "<plist><data>QUJDR</data></plist>", .corruptData, 1, 19),
        MalformedXML("data after padding", "<plist><data>QQ==QQ==</data></plist>", .corruptData, 1, 18),
        MalformedXML("content in true", "<plist><true>x</true></plist>", .corruptData, 1, 14),
        MalformedXML("unknown entity", "<plist><string>a &bogus; b</string></plist>", .corruptData, 1, 18),
        MalformedXML(
            "entity without semicolon", "<plist><string>a &amp b</string></plist>", .corruptData, 1, 18),
        MalformedXML("surrogate reference", "<plist><string>&#xD800;</string></plist>", .corruptData, 1, 16),
        MalformedXML(
            "reference beyond U+10FFFF", "<plist><string>&#x110000;</string></plist>", .corruptData, 1, 16),
        MalformedXML(
            "overlong reference", "<plist><string>&#000000065;</string></plist>", .corruptData, 1, 16),
        MalformedXML("reference with letters", "<plist><string>&#12a;</string></plist>", .corruptData, 1, 16),
        MalformedXML("empty reference", "<plist><string>&#;</string></plist>", .corruptData, 1, 16),
        MalformedXML(
            "element inside string", "<plist><string>a<true/></string></plist>", .corruptData, 1, 17),
        MalformedXML(
            "element inside key", "<plist><dict><key><true/>k</key><string>v</string></dict></plist>",
            .corruptData, 1, 19),
        MalformedXML("unterminated comment", "<plist><!-- x </plist>", .corruptData, 1, 8),
        MalformedXML("unterminated CDATA", "<plist><string><![CDATA[x</string></plist>", .corruptData, 1, 16),
        MalformedXML("unterminated processing instruction", "<plist><?pi x </plist>", .corruptData, 1, 8),
        MalformedXML("string closed by plist", "<plist><string>x</plist>", .corruptData, 1, 17),
        MalformedXML("end tag not closed", "<plist><string>a</string x</plist>", .corruptData, 1, 26),
        MalformedXML("CDATA between elements", "<plist><![CDATA[x]]></plist>", .corruptData, 1, 8),
        MalformedXML(
            "text between elements", "<plist><array>oops<true/></array></plist>", .corruptData, 1, 15),
        MalformedXML("reference between elements", "<plist>\n&#32;&amp;\n</plist>", .corruptData, 2, 1),
        MalformedXML(
            "attribute without name", "<plist><string =\">apple</string></plist>", .corruptData, 1, 16),
        MalformedXML(
            "attribute without quotes", "<plist><string a=b>x</string></plist>", .corruptData, 1, 18),
        MalformedXML("unterminated attribute value", "<plist Q=\">\n<true/>\n</plist>", .corruptData, 2, 1),
        MalformedXML(
            "markup declaration in key",
            "<plist><dict><key>test<!test></key><string>v</string></dict></plist>", .corruptData, 1, 23),
        MalformedXML("missing leading angle bracket", "?xml version=\"1.0\"?><plist/>", .corruptData, 1, 1),
        MalformedXML("unknown declaration", "<!foobar plist><plist><true/></plist>", .corruptData, 1, 1),
        MalformedXML(
            "processing instruction DOCTYPE", "<?DOCTYPE plist PUBLIC \"x\" \"y\"\n<plist><true/></plist>",
            .corruptData, 1, 1),
        MalformedXML(
            "unterminated DOCTYPE identifier",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0", .corruptData, 2, 24),
        MalformedXML(
            "second DOCTYPE", "<!DOCTYPE plist><!DOCTYPE plist><plist><true/></plist>", .corruptData, 1, 17),
        MalformedXML(
            "internal DTD subset", "<!DOCTYPE plist [<!ELEMENT foo (#PCDATA)>]><plist><true/></plist>",
            .unsupportedFormat, 1, 17),
        MalformedXML(
            "entity declaration at top level", "<!ENTITY a \"b\"><plist><true/></plist>", .unsupportedFormat,
            1, 1),
        MalformedXML(
            "entity declaration in content", "<plist><array><!ENTITY a \"b\"></array></plist>",
            .unsupportedFormat, 1, 15),
        MalformedXML(
            "unsupported encoding", "<?xml version=\"1.0\" encoding=\"foobar\"?>\n<plist><true/></plist>",
            .unsupportedFormat, 1, 31),
        MalformedXML(
            "ISO-8859-1 encoding", "<?xml version='1.0' encoding='ISO-8859-1'?><plist><true/></plist>",
            .unsupportedFormat, 1, 31),
        MalformedXML(
            "negative CF$UID", "<plist><dict><key>CF$UID</key><integer>-1</integer></dict></plist>",
            .valueOutOfRange, 1, 8),
        MalformedXML(
            "CF$UID beyond 64 bits",
            "<plist><dict><key>CF$UID</key><integer>18446744073709551616</integer></dict></plist>",
            .valueOutOfRange, 1, 8),
        MalformedXML(
            "error on a later line", "<plist>\n<dict>\n\t<key>a</key>\n</dict>\n</plist>", .corruptData, 4, 1),
        MalformedXML(
            "carriage-return line ends", "<plist>\r<array>\r\t<foo/>\r</array>\r</plist>", .corruptData, 3, 2),
        MalformedXML(
            "CR LF line ends", "<plist>\r\n<array>\r\n\t<foo/>\r\n</array>\r\n</plist>", .corruptData, 3, 2),
        MalformedXML(
            "columns count characters", "<plist><string>\u{e9}\u{4e16}</strin></plist>", .corruptData, 1, 18),
    ]

    @Test(arguments: malformed)
    func malformedInputIsRejected(_ sample: MalformedXML) {
        let error = readError { try readXML(sample.xml) }
        #expect(error?.code == sample.code, "\(error.map(String.init(describing:)) ?? "no error")")
        #expect(error?.location == .text(line: sample.line, column: sample.column), "\(error?.message ?? "")")
        #expect(error?.message.isEmpty == false)
    }

    @Test func messagesNameWhatWasExpectedAndFound() {
        let mismatch = readError { try readPlist("<dict><key>a</key><array></dict>") }
        #expect(mismatch?.message == "unexpected </dict>, expected </array>")
        let missing = readError { try readPlist("<dict><key>name</key></dict>") }
        #expect(missing?.message == "missing value for key \"name\": found </dict>")
        let integer = readError { try readPlist("<integer>42q</integer>") }
        #expect(integer?.message == "invalid integer \"42q\"")
    }

    @Test func minimalDocuments() throws {
        #expect(try readXML("<plist><string>hi</string></plist>") == "hi")
        #expect(try readXML("<plist version=\"1.0\"><true/></plist>") == true)
        #expect(try readXML("<plist><true></true></plist>") == true)
        #expect(try readXML("<plist><false/></plist>") == false)
        #expect(try readXML("<plist><array/></plist>") == [])
        #expect(try readXML("<plist><dict/></plist>") == .dictionary(PropertyListDictionary()))
        #expect(try readXML("<plist><array></array></plist>") == [])
        #expect(try readXML("<plist><string/></plist>") == "")
        #expect(try readXML("<plist><data/></plist>") == .data(Data()))
        #expect(try readXML("<plist><data></data></plist>") == .data(Data()))
    }

    @Test func bareValueWithoutPlistWrapperIsAccepted() throws {
        // CoreFoundation accepts a document whose root is the value itself.
        #expect(try readXML("<array><integer>1</integer></array>") == [1])
        #expect(try readXML("<?xml version=\"1.0\"?>\n<string>x</string>\n") == "x")
    }

    @Test func prologAndEpilogAreSkipped() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <?some-instruction with data?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <!-- before --><string>x</string><!-- after -->
            </plist>
            <!-- trailing comment -->
            <?trailing instruction?>

            """
        #expect(try readXML(xml) == "x")
        #expect(
            try readXML(
                "<!DOCTYPE plist SYSTEM 'file://localhost/System/Library/DTDs/PropertyList.dtd'><plist/>"
                    .replacingOccurrences(of: "<plist/>", with: "<plist><true/></plist>")) == true)
        #expect(try readXML("<?xml version='1.0' encoding='utf-8'?><plist><true/></plist>") == true)
        #expect(try readXML("<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>") == true)
    }

    @Test func textDecoding() throws {
        #expect(
            try readPlist("<string>&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos;</string>") == "<a> & \"b\" 'c'"
        )
        #expect(try readPlist("<string>&#169;&#xA9;&#x1F600;&#65;</string>") == "©©😀A")
        #expect(try readPlist("<string>&#1;&#13;&#0;</string>") == "\u{1}\r\u{0}")
        #expect(try readPlist("<string><![CDATA[<not> &markup;]]></string>") == "<not> &markup;")
        #expect(try readPlist("<string>a<![CDATA[]]>b<!-- c -->d<?pi e?>f</string>") == "abdf")
        #expect(try readPlist("<string>  spaced\n\tout  </string>") == "  spaced\n\tout  ")
        #expect(try readPlist("<string>line\r\nend</string>") == "line\r\nend")
        #expect(try readPlist("<string>Mässig, Maß 世界</string>") == "Mässig, Maß 世界")
        #expect(try readPlist("<string>]]&gt;</string>") == "]]>")
    }

    @Test func tagsMayCarryWhitespaceAndAttributes() throws {
        let xml =
            "<plist><dict><key Q=\">\">name</key ><string a='1' b = \"2\" >value</string\n></dict ></plist >"
        #expect(try readXML(xml) == ["name": "value"])
        #expect(try readPlist("<true />") == true)
        #expect(
            try readPlist("<dict><key><!-- only a comment --></key><string>v</string></dict>") == ["": "v"])
    }

    @Test func dictionaryKeepsOrderAndLastDuplicateWins() throws {
        let value = try readPlist(
            "<dict><key>b</key><integer>1</integer><key>a</key><integer>2</integer><key>b</key><integer>3</integer></dict>"
        )
        #expect(value.dictionaryValue?.keys == ["b", "a"])
        #expect(value["b"] == 3)
    }

    @Test func entityDeclarationsAreRefused() {
        let billionLaughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
              <!ENTITY lol "lol">
              <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
            ]>
            <plist><string>&lol3;</string></plist>
            """
        let error = readError { try readXML(billionLaughs) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.location == .text(line: 2, column: 16))

        let external = """
            <!DOCTYPE plist SYSTEM "http://example.com/evil.dtd" [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <plist><string>&x;</string></plist>
            """
        #expect(readError { try readXML(external) }?.code == .unsupportedFormat)
        // An entity that was never declared is simply unknown.
        #expect(readError { try readPlist("<string>&lol3;</string>") }?.code == .corruptData)
    }

    @Test func uidDictionaries() throws {
        let uid = try readPlist("<dict><key>CF$UID</key><integer>7</integer></dict>")
        #expect(uid == .uid(7))
        let big = try readPlist("<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>")
        #expect(big == .uid(UInt64.max))
        let spaced = try readPlist("<dict>\n\t<key>CF$UID</key>\n\t<integer>0</integer>\n</dict>")
        #expect(spaced == .uid(0))
        // Anything else stays a dictionary.
        let text = try readPlist("<dict><key>CF$UID</key><string>7</string></dict>")
        #expect(text == ["CF$UID": "7"])
        let two = try readPlist("<dict><key>CF$UID</key><integer>7</integer><key>x</key><true/></dict>")
        #expect(two == ["CF$UID": 7, "x": true])
        let other = try readPlist("<dict><key>CF$UIDs</key><integer>7</integer></dict>")
        #expect(other == ["CF$UIDs": 7])
    }

    @Test(arguments: [
        ("nan", Double.nan), ("NaN", .nan), ("inf", .infinity), ("-inf", -.infinity), ("+inf", .infinity),
        ("infinity", .infinity), ("+infinity", .infinity), ("-Infinity", -.infinity), ("INF", .infinity),
        ("0", 0), ("-0", -0.0), ("1", 1), ("1.5", 1.5), ("-2.25", -2.25), (".5", 0.5), ("5.", 5),
        ("1e3", 1000), ("1E-3", 0.001), ("+3.5e+2", 350), ("  32.5\n", 32.5), ("0.1", 0.1),
        ("3.1400000000000001", 3.14), ("1.7976931348623157e308", .greatestFiniteMagnitude),
        ("4.9406564584124654e-324", .leastNonzeroMagnitude),
        ("123456789012345678901234567890", 1.2345678901234568e29),
        ("0.000000000000000000000000000001", 1e-30), ("1e400", .infinity),
    ])
    func reals(_ text: String, _ expected: Double) throws {
        let value = try readPlist("<real>\(text)</real>")
        guard case .real(let number) = value else {
            Issue.record("\(text) read as \(value)")
            return
        }
        if expected.isNaN {
            #expect(number.isNaN)
        } else {
            #expect(number == expected)
            #expect(number.sign == expected.sign)
        }
    }

    @Test(arguments: [
        ("0", PropertyListInteger(0)), ("-0", PropertyListInteger(0)), ("42", PropertyListInteger(42)),
        ("+42", PropertyListInteger(42)), ("- 42", PropertyListInteger(-42)), (" 7 ", PropertyListInteger(7)),
        ("18446744073709551615", PropertyListInteger(UInt64.max)),
        ("-9223372036854775808", PropertyListInteger(Int64.min)),
        ("9223372036854775807", PropertyListInteger(Int64.max)),
        ("00000000000000000000000000000000000000000042", PropertyListInteger(42)),
        ("170141183460469231731687303715884105727", PropertyListInteger(high: .max, low: .max)),
        ("-170141183460469231731687303715884105728", PropertyListInteger(high: .min, low: 0)),
        ("18446744073709551616", PropertyListInteger(high: 1, low: 0)),
        ("-18446744073709551616", PropertyListInteger(high: -1, low: 0)),
        ("0xDEADBEEF", PropertyListInteger(0xDEAD_BEEF)), ("0Xff", PropertyListInteger(255)),
        ("-0x10", PropertyListInteger(-16)), ("0xFFFFFFFFFFFFFFFF", PropertyListInteger(UInt64.max)),
        ("0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", PropertyListInteger(high: .max, low: .max)),
        ("-0x80000000000000000000000000000000", PropertyListInteger(high: .min, low: 0)),
    ])
    func integers(_ text: String, _ expected: PropertyListInteger) throws {
        #expect(try readPlist("<integer>\(text)</integer>") == .integer(expected))
    }

    @Test func dates() throws {
        let epoch = try readPlist("<date>2001-01-01T00:00:00Z</date>")
        #expect(epoch == .date(Date(timeIntervalSinceReferenceDate: 0)))
        let date = try readPlist("<date>2004-10-26T10:33:33Z</date>")
        #expect(date.dateValue?.timeIntervalSinceReferenceDate == 120_479_613)
        let old = try readPlist("<date>1976-04-01T12:00:00Z</date>")
        #expect(old.dateValue?.timeIntervalSince1970 == 197_208_000)
        let spaced = try readPlist("<date>\n  2004-10-26T10:33:33Z\n</date>")
        #expect(spaced == date)
    }

    @Test func base64MayHoldWhitespaceAnywhere() throws {
        let bytes = Data("<lots of binary gunk>\u{0}\u{1}\u{2}\u{3}".utf8)
        let encoded = bytes.base64EncodedString()
        var spaced = ""
        for (index, character) in encoded.enumerated() {
            spaced.append(character)
            if index % 3 == 1 { spaced += index % 2 == 0 ? "\n\t\t" : " " }
        }
        #expect(try readPlist("<data>\(spaced)</data>") == .data(bytes))
        #expect(try readPlist("<data>\n\tAAAAvgAAAA\n\tMAAAAeAAAA\n</data>").dataValue?.count == 15)
        // Padding may be left out.
        #expect(try readPlist("<data>QUI</data>") == .data(Data("AB".utf8)))
        #expect(try readPlist("<data>QQ</data>") == .data(Data("A".utf8)))
        #expect(try readPlist("<data>QQ==</data>") == .data(Data("A".utf8)))
    }

    @Test func nestingDepthIsLimited() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        }
        var value = try readPlist(nested(512))
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            value = elements.first ?? .bool(false)
        }
        #expect(depth == 512)
        let error = readError { try readPlist(nested(513)) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.location == .text(line: 1, column: 1 + 21 + 512 * 7))
        let dictionaries =
            String(repeating: "<dict><key>k</key>", count: 600) + "<true/>"
            + String(repeating: "</dict>", count: 600)
        #expect(readError { try readPlist(dictionaries) }?.code == .limitExceeded)
        // Very deep input fails cleanly, without exhausting the stack.
        #expect(readError { try readPlist(nested(200_000)) }?.code == .limitExceeded)

        var shallow = PropertyListReadingOptions()
        shallow.maximumDepth = 2
        #expect(try readXML(nested(2), options: shallow) == [[]])
        #expect(readError { try readXML(nested(3), options: shallow) }?.code == .limitExceeded)
        var unlimited = PropertyListReadingOptions()
        unlimited.maximumDepth = 100_000
        #expect(throws: Never.self) { try readXML(nested(20_000), options: unlimited) }
    }

    @Test func valueBudgetIsEnforced() {
        var options = PropertyListReadingOptions()
        options.maximumExpansionFactor = 0
        options.baseValueAllowance = 3
        #expect(throws: Never.self) { try readXML("<array><true/><true/></array>", options: options) }
        let error = readError { try readXML("<array><true/><true/><true/></array>", options: options) }
        #expect(error?.code == .limitExceeded)
    }

    @Test func encodings() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist><string>Hello, 世界 😀</string></plist>"
        let expected: PropertyList = "Hello, 世界 😀"
        var bigEndian = Data([0xFE, 0xFF])
        var littleEndian = Data([0xFF, 0xFE])
        var bigEndianWithoutMark = Data()
        for unit in text.utf16 {
            bigEndian.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xFF)])
            bigEndianWithoutMark.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xFF)])
            littleEndian.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)])
        }
        #expect(try PropertyList(from: bigEndian, format: .xml) == expected)
        #expect(try PropertyList(from: littleEndian, format: .xml) == expected)
        #expect(try PropertyList(from: bigEndianWithoutMark, format: .xml) == expected)
        #expect(try PropertyList(from: bigEndian) == expected)
        let withMark = Data([0xEF, 0xBB, 0xBF]) + Data("<plist><string>é</string></plist>".utf8)
        #expect(try PropertyList(from: withMark, format: .xml) == "é")
        #expect(try PropertyList(from: withMark) == "é")

        // A lone surrogate and a dangling byte.
        let surrogate = Data([0xFE, 0xFF, 0x00, 0x3C, 0xD8, 0x00, 0x00, 0x41])
        let surrogateError = readError { try PropertyList(from: surrogate, format: .xml) }
        #expect(surrogateError?.code == .corruptData)
        #expect(surrogateError?.location == .text(line: 1, column: 2))
        let odd = Data([0xFE, 0xFF, 0x00, 0x3C, 0x00])
        #expect(readError { try PropertyList(from: odd, format: .xml) }?.code == .corruptData)
    }

    @Test(
        arguments: [
            ([0xFF], 1, 17), ([0xC3], 1, 17), ([0xC0, 0xAF], 1, 17), ([0xE0, 0x80, 0xAF], 1, 17),
            ([0xED, 0xA0, 0x80], 1, 17), ([0xF4, 0x90, 0x80, 0x80], 1, 17), ([0xC3, 0xA9, 0x80], 1, 18),
        ] as [([UInt8], Int, Int)])
    func invalidUTF8IsRejectedWithItsPosition(_ bad: [UInt8], _ line: Int, _ column: Int) {
        let data = Data("<plist><string>x".utf8) + Data(bad) + Data("</string></plist>".utf8)
        let error = readError { try PropertyList(from: data, format: .xml) }
        #expect(error?.code == .corruptData)
        #expect(error?.location == .text(line: line, column: column))
        let later = Data("<plist>\n<string>".utf8) + Data(bad) + Data("</string></plist>".utf8)
        #expect(
            readError { try PropertyList(from: later, format: .xml) }?.location?.description.hasPrefix(
                "line 2") == true)
    }
}

/// Damaged documents must give a value or a `KeyedArchiveError`, never a crash or hang.
@Suite struct XMLPropertyListMutationTests {
    static let fragments: [[UInt8]] = [
        "<", ">", "&", ";", "</", "/>", "<!--", "-->", "<![CDATA[", "]]>", "<?", "?>", "<!DOCTYPE x ",
        "<!ENTITY", "[", "\"", "'", "=", "&#x", "&#", "&amp", "<dict>", "</dict>", "<key>", "<array>",
        "<plist>",
        "<integer>", "<data>", "=", "\u{0}", "\u{FF}", "é", "\r\n",
    ].map { Array($0.utf8) }

    /// `original` with one to four random edits: a byte overwritten, a markup fragment
    /// inserted, a run removed, the end cut off, or a run copied elsewhere (duplicate keys,
    /// extra values, unbalanced tags).
    static func mutated(_ original: [UInt8], _ generator: inout ValueGenerator) -> [UInt8] {
        var bytes = original
        for _ in 0..<(1 + generator.below(4)) {
            let position = generator.below(bytes.count + 1)
            switch generator.below(5) {
            case 0 where position < bytes.count:
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            case 1:
                bytes.insert(contentsOf: fragments[generator.below(fragments.count)], at: position)
            case 2:
                bytes.removeSubrange(position..<min(bytes.count, position + generator.below(40)))
            case 3:
                bytes.removeSubrange(position...)
            default:
                let end = min(bytes.count, position + generator.below(60))
                bytes.insert(contentsOf: bytes[position..<end], at: generator.below(bytes.count + 1))
            }
        }
        return bytes
    }

    @Test(arguments: 0..<8)
    func mutatedDocumentsFailCleanly(_ seed: Int) throws {
        var generator = ValueGenerator(seed: UInt64(seed) &+ 1000)
        let original = [UInt8](try generator.value(depth: 0).data(format: .xml))
        var outcomes = (values: 0, errors: 0)
        for _ in 0..<300 {
            let bytes = Self.mutated(original, &generator)
            do {
                _ = try PropertyList(from: Data(bytes), format: .xml)
                outcomes.values += 1
            } catch let error as KeyedArchiveError {
                #expect(error.location != nil, "\(error)")
                outcomes.errors += 1
            }
        }
        #expect(outcomes.errors > 0)
    }
}

extension XMLPropertyListReaderTests {
    @Test func uidIsDecidedAfterDuplicateKeysMerge() throws {
        // CoreFoundation looks at the finished dictionary: one entry, CF$UID, an integer.
        let duplicated =
            "<dict><key>CF$UID</key><integer>4</integer><key>CF$UID</key><integer>3</integer></dict>"
        #expect(try readPlist(duplicated) == .uid(3))
        let negative =
            "<dict><key>CF$UID</key><integer>4</integer><key>CF$UID</key><integer>-3</integer></dict>"
        #expect(readError { try readPlist(negative) }?.code == .valueOutOfRange)
    }
}

/// The compact forms read by the fast paths (`<name>` tags, UIDs as writers lay them out)
/// and their near misses, which the general path reads, must give the same values.
@Suite struct XMLPropertyListReaderCompactFormTests {
    @Test(
        arguments: [
            ("<dict><key>CF$UID</key><integer>12</integer></dict>", PropertyList.uid(12)),
            ("<dict>\r\n <key>CF$UID</key> \n<integer>0012</integer>\t</dict >", .uid(12)),
            (
                "<dict><key>CF$UID</key><integer>1234567890123456789</integer></dict>",
                .uid(1_234_567_890_123_456_789)
            ),
            ("<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>", .uid(.max)),
            ("<dict><key>CF$UID</key><integer> 12 </integer></dict>", .uid(12)),
            ("<dict><key>CF$UID</key><integer>+12</integer></dict>", .uid(12)),
            ("<dict><key>CF$UID</key><integer>0x1F</integer></dict>", .uid(31)),
            ("<dict><key>CF$UID</key><!-- c --><integer>12</integer></dict>", .uid(12)),
            ("<dict><key>CF&#36;UID</key><integer>12</integer></dict>", .uid(12)),
            (
                "<dict><key>CF$UID</key><integer>12</integer><key>b</key><true/></dict>",
                ["CF$UID": 12, "b": true]
            ),
            ("<dict><key>CF$UIDs</key><integer>12</integer></dict>", ["CF$UIDs": 12]),
            ("<array><key/></array>", nil),
            (
                "<array><string/><true/><false/><array/><dict/><data/><integer>1</integer></array>",
                ["", true, false, [], .dictionary(PropertyListDictionary()), .data(Data()), 1]
            ),
            (
                "<array ><string a='>'>x</string><real\t>2.5</real><date>2001-01-01T00:00:00Z</date></array>",
                ["x", 2.5, .date(Date(timeIntervalSinceReferenceDate: 0))]
            ),
            ("<array><strings/></array>", nil),
            ("<array><datum/></array>", nil),
        ] as [(String, PropertyList?)])
    func compactAndGeneralFormsAgree(_ body: String, _ expected: PropertyList?) throws {
        let data = Data("<plist version=\"1.0\">\(body)</plist>".utf8)
        if let expected {
            #expect(try PropertyList(from: data, format: .xml) == expected, "\(body)")
        } else {
            #expect(throws: KeyedArchiveError.self, "\(body)") { try PropertyList(from: data, format: .xml) }
        }
    }

    @Test func compactUIDsCountAgainstDepthAndBudget() throws {
        let data = Data("<array><dict><key>CF$UID</key><integer>1</integer></dict></array>".utf8)
        var shallow = PropertyListReadingOptions()
        shallow.maximumDepth = 1
        #expect(throws: KeyedArchiveError.self) {
            try PropertyList(from: data, format: .xml, options: shallow)
        }
        var deepEnough = PropertyListReadingOptions()
        deepEnough.maximumDepth = 2
        #expect(try PropertyList(from: data, format: .xml, options: deepEnough) == [.uid(1)])
    }
}

/// Dates must exist in the proleptic Gregorian calendar, as CoreFoundation's calendar
/// checks them; impossible ones are refused where their text starts, on every path.
@Suite struct XMLDateValidityTests {
    @Test(
        arguments: [
            ("2021-02-31T00:00:00Z", "February 2021 has no day 31"),
            ("2023-02-29T12:00:00Z", "February 2023 has no day 29"),
            ("1900-02-29T00:00:00Z", "February 1900 has no day 29"),
            ("2020-04-31T00:00:00Z", "April 2020 has no day 31"),
            ("2020-01-00T00:00:00Z", "January 2020 has no day 0"),
            ("2020-13-01T00:00:00Z", "there is no month 13"),
            ("2020-00-10T00:00:00Z", "there is no month 0"),
            ("2020-01-01T24:00:00Z", "there is no hour 24"),
            ("2020-01-01T23:60:00Z", "there is no minute 60"),
            ("2020-01-01T23:59:61Z", "there is no second 61"),
        ])
    func impossibleDatesAreRefused(_ text: String, _ reason: String) {
        for document in ["<plist><date>\(text)</date></plist>", "<plist>\n\t<date>\(text)</date>\n</plist>"] {
            let error = readError { try readXML(document) }
            #expect(error?.code == .corruptData)
            #expect(error?.message == "impossible date \"\(text)\": \(reason)")
            let line = document.contains("\n") ? 2 : 1
            #expect(error?.location == .text(line: line, column: line == 1 ? 14 : 8))
            XMLReadingPathsTests.expectAgreement(Data(document.utf8), text)
        }
    }

    @Test(
        arguments: [
            ("2024-02-29T00:00:00Z", 730_857_600.0),
            ("2000-02-29T00:00:00Z", -26_524_800.0),
            ("1900-02-28T00:00:00Z", -3_182_284_800.0),
            ("-0004-02-29T00:00:00Z", -63_266_659_200.0),
            ("2016-12-31T23:59:60Z", 504_921_600.0),
            ("2001-12-31T23:59:59Z", 31_535_999.0),
        ])
    func possibleDatesAreRead(_ text: String, _ seconds: Double) throws {
        let data = Data("<plist><date>\(text)</date></plist>".utf8)
        #expect(
            try PropertyList(from: data) == .date(Date(timeIntervalSinceReferenceDate: seconds)), "\(text)")
        XMLReadingPathsTests.expectAgreement(data, text)
    }
}

/// XML forbids the character U+0000, but Apple's readers read a raw NUL in text (CF's
/// `parseStringTag` keeps every byte up to `<` or `&`; swift-foundation's maintainers chose
/// to keep accepting them when they stopped its writer producing them, swift-foundation
/// PR #2039), and Foundation's writers have written them raw (swift-corelibs-foundation
/// still does: `FoundationInteropSuiteTests` reads such an archive). So a NUL in text is
/// read as written, on every path; in markup it is an error like any other stray byte.
@Suite struct XMLNulTests {
    @Test(
        arguments: [
            ("<plist><string>a\u{0}b</string></plist>", "a\u{0}b"),
            ("<plist><dict><key>k\u{0}</key><true/></dict></plist>", ["k\u{0}": true]),
            ("<plist><string>a &amp; \u{0}</string></plist>", "a & \u{0}"),
            ("<plist><string><![CDATA[\u{0}]]></string></plist>", "\u{0}"),
            ("<plist><string>&#0;</string></plist>", "\u{0}"),
            ("<plist><!-- \u{0} --><true/></plist>", true),
        ] as [(String, PropertyList)])
    func aNulInTextIsReadAsWritten(_ document: String, _ expected: PropertyList) {
        let data = Data(document.utf8)
        #expect(XMLReadingPathsTests.expectAgreement(data, document) == .value(expected))
    }

    @Test(
        arguments: [
            ("<plist>\n\t\u{0}<true/></plist>", 2, 2),
            ("<plist><integer>1\u{0}</integer></plist>", 1, 17),
            ("<plist><array><true/>\u{0}<oops/></array></plist>", 1, 22),
        ])
    func aNulInMarkupIsAnError(_ document: String, _ line: Int, _ column: Int) {
        let error = readError { try readXML(document) }
        #expect(error?.code == .corruptData)
        #expect(error?.location == .text(line: line, column: column), "\(error?.message ?? "")")
        XMLReadingPathsTests.expectAgreement(Data(document.utf8), document)
    }

    @Test func aNulAfterThePropertyListIsIgnored() throws {
        var report = PropertyListReadingReport()
        let value = try PropertyList(from: Data("<plist><true/></plist>\u{0}".utf8), report: &report)
        #expect(value == true)
        #expect(report.ignoredTrailingContent?.byteCount == 1)
    }
}

/// CoreFoundation stops reading at the end of the root element, and real files carry more
/// after it (a signed Safari configuration file has its signature after `</plist>`): that
/// is ignored, unchecked, on every path, and reported.
@Suite struct XMLTrailingContentTests {
    static func read(_ bytes: [UInt8]) throws -> (PropertyList, PropertyListReadingReport) {
        var report = PropertyListReadingReport()
        let value = try PropertyList(from: Data(bytes), report: &report)
        XMLReadingPathsTests.expectAgreement(Data(bytes), "\(bytes.prefix(40))")
        return (value, report)
    }

    @Test func textAfterThePropertyListIsIgnored() throws {
        let document = "<plist><true/></plist>\ntest\n"
        let (value, report) = try Self.read(Array(document.utf8))
        #expect(value == true)
        #expect(
            report.ignoredTrailingContent
                == PropertyListReadingReport.IgnoredContent(
                    byteOffset: 23, byteCount: 5, location: .text(line: 2, column: 1), after: "</plist>"))
        #expect(try readXML(document) == true)
    }

    @Test func aSecondRootElementIsIgnored() throws {
        let (value, report) = try Self.read(Array("<plist><true/></plist><plist><false/></plist>".utf8))
        #expect(value == true)
        #expect(report.ignoredTrailingContent?.byteOffset == 22)
        #expect(report.ignoredTrailingContent?.location == .text(line: 1, column: 23))
    }

    @Test func aBinarySignatureAfterThePropertyListIsIgnored() throws {
        // As a signed configuration file: the document, then DER bytes (invalid UTF-8, NULs).
        let document = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>Name</key>
            \t<string>Potato Bug</string>
            \t<key>Ref</key>
            \t<dict>
            \t\t<key>CF$UID</key>
            \t\t<integer>3</integer>
            \t</dict>
            </dict>
            </plist>

            """.utf8)
        let signature: [UInt8] = [
            0x30, 0x82, 0x1F, 0x00, 0x06, 0x09, 0x2A, 0x86, 0x48, 0xFF, 0xFE, 0x00, 0x3C, 0x21,
        ]
        let (value, report) = try Self.read(document + signature)
        #expect(value == ["Name": "Potato Bug", "Ref": .uid(3)])
        #expect(
            report.ignoredTrailingContent
                == PropertyListReadingReport.IgnoredContent(
                    byteOffset: document.count, byteCount: signature.count,
                    location: .text(line: 14, column: 1),
                    after: "</plist>"))
        // The keyed unarchiver's rewriting reads the same.
        let rewritten = try XMLPropertyListReader.binaryPropertyList(
            Data(document + signature), options: PropertyListReadingOptions())
        #expect(try PropertyList(from: rewritten, format: .binary) == value)
    }

    @Test func whitespaceCommentsAndInstructionsAfterTheRootAreNotReported() throws {
        for epilog in ["", "\n", "\n\n \t\r\n", "\n<!-- c -->\n<?pi data?>\n"] {
            let (value, report) = try Self.read(Array("<plist><true/></plist>\(epilog)".utf8))
            #expect(value == true)
            #expect(report.ignoredTrailingContent == nil, "\(epilog.debugDescription)")
        }
    }

    @Test func whatFollowsTheLastCommentIsReported() throws {
        let (_, report) = try Self.read(
            Array("<plist><true/></plist>\n<!-- c -->\njunk <!-- unterminated".utf8))
        #expect(report.ignoredTrailingContent?.byteOffset == 34)
        #expect(report.ignoredTrailingContent?.byteCount == 22)
        #expect(report.ignoredTrailingContent?.location == .text(line: 3, column: 1))
        let (_, unterminated) = try Self.read(Array("<plist><true/></plist><!-- never ends".utf8))
        #expect(unterminated.ignoredTrailingContent?.byteOffset == 22)
    }

    @Test func aBareRootValueEndsTheDocumentToo() throws {
        let (array, arrayReport) = try Self.read(Array("<array><integer>1</integer></array>tail".utf8))
        #expect(array == [1])
        #expect(arrayReport.ignoredTrailingContent?.after == "</array>")
        let (flag, flagReport) = try Self.read(Array("<true/>\n</plist>".utf8))
        #expect(flag == true)
        #expect(flagReport.ignoredTrailingContent?.after == "<true/>")
        #expect(flagReport.ignoredTrailingContent?.location == .text(line: 2, column: 1))
    }

    @Test func utf16InputReportsItsOwnBytes() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "<plist><true/></plist>tail".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        var report = PropertyListReadingReport()
        #expect(try PropertyList(from: Data(bytes), report: &report) == true)
        #expect(report.ignoredTrailingContent?.byteCount == 8)
        #expect(report.ignoredTrailingContent?.byteOffset == bytes.count - 8)
    }

    @Test func otherFormatsReportNothing() throws {
        var report = PropertyListReadingReport()
        report.ignoredTrailingContent = PropertyListReadingReport.IgnoredContent(
            byteOffset: 0, byteCount: 1, location: .byteOffset(0), after: "x")
        _ = try PropertyList(from: PropertyList.bool(true).data(format: .binary), report: &report)
        #expect(report.ignoredTrailingContent == nil)
        _ = try PropertyList(from: Data("(a, b)".utf8), report: &report)
        #expect(report.ignoredTrailingContent == nil)
    }

    /// A document that is broken before its end reports what broke it, not a byte in
    /// what would have followed.
    @Test func errorsBeforeTheEndAreNotHiddenByWhatFollows() {
        let document = Array("<plist><array><integer>1</integer></plist>".utf8) + [0xFF, 0x00]
        let error = readError { try PropertyList(from: Data(document), format: .xml) }
        #expect(error?.message == "unexpected </plist>, expected </array>")
        XMLReadingPathsTests.expectAgreement(Data(document), "broken, then junk")
    }

    @Test func contentBeforeThePropertyListIsStillRefused() {
        let error = readError { try readXML("junk<plist><true/></plist>") }
        #expect(error?.location == .text(line: 1, column: 1))
    }
}
