import Foundation
import Testing

@testable import KeyedArchive
@testable import KeyedArchiving

@Suite("Display text: one escape set, two quoting styles")
struct DisplayTextTests {
    /// (input, escaped style, plutil style)
    static let cases: [(String, String, String)] = [
        ("plain", #""plain""#, #""plain""#),
        ("Mässig 😀 日本", #""Mässig 😀 日本""#, #""Mässig 😀 日本""#),
        ("say \"hi\" \\", #""say \"hi\" \\""#, #""say "hi" \""#),
        ("a\nb\tc\rd", #""a\nb\tc\rd""#, "\"a\nb\tc\\u{d}d\""),
        ("\u{0}\u{1B}[31m\u{1F}", #""\u{0}\u{1b}[31m\u{1f}""#, #""\u{0}\u{1b}[31m\u{1f}""#),
        (
            "del\u{7F} c1\u{80}\u{85}\u{9B}\u{9F}", #""del\u{7f} c1\u{80}\u{85}\u{9b}\u{9f}""#,
            #""del\u{7f} c1\u{80}\u{85}\u{9b}\u{9f}""#
        ),
        ("\u{A0}nbsp\u{200D}zwj", "\"\u{A0}nbsp\u{200D}zwj\"", "\"\u{A0}nbsp\u{200D}zwj\""),
        (
            "bidi\u{202E}evil\u{2066}\u{2069}\u{200E}\u{200F}\u{061C}",
            #""bidi\u{202e}evil\u{2066}\u{2069}\u{200e}\u{200f}\u{61c}""#,
            #""bidi\u{202e}evil\u{2066}\u{2069}\u{200e}\u{200f}\u{61c}""#
        ),
    ]

    @Test func eachStyleQuotesAsDocumented() {
        for (input, escaped, plutil) in Self.cases {
            #expect(DisplayText.quoted(input) == escaped, "\(escaped)")
            #expect(DisplayText.quoted(input, style: .plutil) == plutil, "\(plutil)")
        }
    }

    /// The escape set is exactly C0, DEL, C1 and Unicode's bidirectional controls (the
    /// check skips the property lookup outside U+061C...U+2069).
    @Test func theEscapeSetIsC0DelC1AndBidiControls() {
        var wrong: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected = value < 0x20 || (0x7F...0x9F).contains(value) || scalar.properties.isBidiControl
            if DisplayText.isEscaped(scalar) != expected { wrong.append(String(value, radix: 16)) }
        }
        #expect(wrong.isEmpty, "U+\(wrong.prefix(10))")
    }

    @Test func longTextIsCutInsideTheQuotes() {
        #expect(DisplayText.quoted("abcdef", maximumScalars: 3) == "\"abc…\"")
        #expect(DisplayText.quoted("abc", maximumScalars: 3) == "\"abc\"")
        #expect(DisplayText.quoted("\u{1B}\u{1B}\u{1B}", maximumScalars: 2) == #""\u{1b}\u{1b}…""#)
    }

    @Test func namesAreQuotedOnlyWhenNeeded() {
        #expect(DisplayText.quotedIfNeeded("NSMutableArray") == "NSMutableArray")
        #expect(DisplayText.quotedIfNeeded("Käfer.Shape<Int>") == "Käfer.Shape<Int>")
        #expect(DisplayText.quotedIfNeeded("") == "\"\"")
        #expect(DisplayText.quotedIfNeeded("two words") == "\"two words\"")
        #expect(DisplayText.quotedIfNeeded("NS\u{85}Array") == #""NS\u{85}Array""#)
        #expect(DisplayText.quotedIfNeeded("NS\u{202E}yarrA") == #""NS\u{202e}yarrA""#)
    }

    /// Every rendering of hostile text goes through the one escape set.
    @Test func everyRenderingEscapesTheSameSet() throws {
        let hostile = "x\u{1B}[2J\u{9B}\u{202E}"
        let escaped = #""x\u{1b}[2J\u{9b}\u{202e}""#
        #expect(PropertyList.string(hostile).description == escaped)
        #expect(PropertyList.dictionary([hostile: 1]).description == "{\(escaped): 1}")
        #expect(ArchivedObjectGraph.Value.string(hostile).description == escaped)
        #expect(
            ArchivedObjectGraph.Value.dictionary([ArchivedObjectGraph.Field(key: hostile, value: .integer(1))]
            ).description
                == "{\(escaped) = 1}")

        let data = try KeyedArchiver.archivedData(withRootObject: [hostile], requiringSecureCoding: true)
        let outline = try KeyedUnarchiver.objectGraph(from: data).outline()
        #expect(outline.contains("[0]: \(escaped)"), "\(outline)")

        let openStep = #expect(throws: KeyedArchiveError.self) {
            try PropertyList(from: Data("{ \"x\u{1B}[2J\u{202E}\" }".utf8), format: .openStep)
        }
        #expect(
            openStep?.message.contains(#""x\u{1b}[2J\u{202e}""#) == true, "\(String(describing: openStep))")
        let xml = #expect(throws: KeyedArchiveError.self) {
            try PropertyList(
                from: Data("<plist><integer>1\u{1B}[2J\u{202E}</integer></plist>".utf8), format: .xml)
        }
        #expect(xml?.message.contains(#""1\u{1b}[2J\u{202e}""#) == true, "\(String(describing: xml))")
    }

    /// Error messages and locations name text from the input (class names, keys, a bad
    /// version) through the same escape set, since the tool prints them as they are.
    @Test func messagesAndKeyPathsEscapeInputText() throws {
        #expect(
            ArchiveKeyPath.render([.key("root"), .key("a\u{1B}b"), .dictionaryValue("x\u{202E}")])
                == #"root."a\u{1b}b"["x\u{202e}"]"#)
        let evil = "Evil\u{1B}[2J"
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(2)], ["$classname": .string(evil), "$classes": [.string(evil)]],
            ],
        ]
        let data = try archive.data(format: .binary)
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: String.self, from: data)
        }
        #expect(error?.message.contains(#""Evil\u{1b}[2J""#) == true, "\(String(describing: error))")
        #expect(error?.message.contains("\u{1B}") == false)
        var bytes = [UInt8](try PropertyList.string("x").data(format: .binary))
        bytes[6] = 0x1B
        let version = #expect(throws: KeyedArchiveError.self) {
            try PropertyList(from: Data(bytes), format: .binary)
        }
        #expect(version?.message.contains(#"version "\u{1b}0""#) == true, "\(String(describing: version))")
    }

    /// An archive whose class `name` no type is known for, nor standard.
    static func unknownClassArchive(_ name: String, superclass: String = "NSObject") throws -> Data {
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(2)],
                ["$classname": .string(name), "$classes": [.string(name), .string(superclass)]],
            ],
        ]
        return try archive.data(format: .binary)
    }

    /// The "no type is known" message quotes the class name and its chain through
    /// DisplayText (it printed them raw, in hand-written quotes).
    @Test func unknownClassMessageEscapesTheNameAndChain() throws {
        let data = try Self.unknownClassArchive("Evil\u{202E}\"x\n", superclass: "Base\u{1B}")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        let error = #expect(throws: KeyedArchiveError.self) { try unarchiver.decodeObject(forKey: "root") }
        #expect(error?.code == .classNotFound)
        let message = error?.message ?? ""
        #expect(message.contains(#"no type is known for class "Evil\u{202e}\"x\n""#), "\(message)")
        #expect(message.contains(#"("Evil\u{202e}\"x\n" < "Base\u{1b}")"#), "\(message)")
        #expect(!message.unicodeScalars.contains { DisplayText.isEscaped($0) }, "\(message)")

        let plain = try KeyedUnarchiver(forReadingFrom: try Self.unknownClassArchive("Plain"))
        plain.requiresSecureCoding = false
        let plainError = #expect(throws: KeyedArchiveError.self) { try plain.decodeObject(forKey: "root") }
        #expect(
            plainError?.message.hasPrefix(#"no type is known for class "Plain" (Plain < NSObject)"#) == true)
    }

    /// Other messages that name a class found in the input, and XML element and attribute
    /// names, escape it too.
    @Test func otherMessagesNamingInputEscapeIt() throws {
        let data = try Self.unknownClassArchive("Odd\u{202E}")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        let scalar = #expect(throws: KeyedArchiveError.self) { try unarchiver.decodeInteger(forKey: "root") }
        #expect(
            scalar?.message == #"expected an integer, found "Odd\u{202e}""#, "\(String(describing: scalar))")
        let codable = #expect(throws: DecodingError.self) {
            try KeyedArchiveDecoder().decode(String.self, from: data)
        }
        #expect(
            "\(String(describing: codable))".contains(#""Odd\u{202e}""#), "\(String(describing: codable))")

        for (xml, expected) in [
            ("<plist><do\u{202E}ct/></plist>", #"unknown element <"do\u{202e}ct">"#),
            ("<plist><dict></di\u{202E}></plist>", #"unexpected </"di\u{202e}">, expected </dict>"#),
            (
                "<plist><dict a\u{202E} ></dict></plist>",
                #"expected '=' after attribute "a\u{202e}" in the <dict> tag"#
            ),
            ("<plist><doct/></plist>", "unknown element <doct>"),
        ] {
            let error = #expect(throws: KeyedArchiveError.self) { try PropertyList(from: Data(xml.utf8)) }
            #expect(error?.message == expected, "\(xml): \(String(describing: error))")
        }
    }
}
