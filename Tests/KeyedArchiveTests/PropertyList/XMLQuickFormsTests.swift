import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import KeyedArchiveSupport

/// The quick reading's shortcuts for what writers write: a UID's indentation compared as
/// one word with the indentation before its key, its digits read eight at a time, and plain
/// decimals read in one pass. Each is tried around its boundaries (indentations of 8 and 9
/// bytes, 8 and 9 digits, 19 and 20 digits, 2⁵³, the end of the input), and every reading
/// of the document must agree with the general one and give the expected value.
@Suite struct XMLQuickFormsTests {
    /// A UID as Foundation writes one, inside an array, with `indentation` before its key and
    /// `integer` and `closing` before `</dict>`.
    static func uidDocument(
        digits: String, indentation: String, integerIndentation: String? = nil, closing: String? = nil
    ) -> Data {
        let closingIndentation = closing ?? String(indentation.dropLast())
        return Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            \t<dict>\(indentation)<key>CF$UID</key>\(integerIndentation ?? indentation)<integer>\(digits)</integer>\
            \(closingIndentation)</dict>
            </array>
            </plist>

            """.utf8)
    }

    @Test(arguments: 1...20)
    func uidsOfEveryLength(_ digitCount: Int) throws {
        // 1, 12, 123, … up to twenty digits (past 64 bits: refused on every path).
        let digits = String("12345678901234567890".prefix(digitCount))
        for tabs in [0, 1, 2, 6, 7, 8, 9, 12] {
            let indentation = "\n" + String(repeating: "\t", count: tabs)
            let outcome = XMLReadingPathsTests.expectAgreement(
                Self.uidDocument(digits: digits, indentation: indentation),
                "\(digitCount) digits, \(tabs) tabs")
            if let number = UInt64(digits) {
                #expect(outcome == .value([.uid(number)]), "\(digitCount) digits, \(tabs) tabs")
            } else {
                guard case .error(let message) = outcome else {
                    Issue.record("\(digits) read as \(outcome)")
                    continue
                }
                #expect(message.contains("out of range"), "\(message)")
            }
        }
    }

    @Test(
        arguments: [
            // Indentation that differs from the key's: the general skipping reads it.
            ("\n\t\t", "\n\t\t ", "\n\t"), ("\n\t\t", "\n\t", "\n\t"), ("\n\t\t", "\n\t\t\t", "\n\t\t\t"),
            ("\n\t\t", "\n  ", " "), ("\r\n\t\t", "\r\n\t\t", "\r\n\t"), ("\n\t\t", "\n\t\t", "\n\t\t"),
            ("\n\t\t", "", ""), ("", "\n\t\t", "\n\t"), (" ", " ", ""), ("  ", "  ", " "),
            ("\n\t\t\t\t\t\t\t\t\t", "\n\t\t\t\t\t\t\t\t\t", "\n\t\t\t\t\t\t\t\t"),
            ("\n\t\t\t\t\t\t\t", "\n\t\t\t\t\t\t\t", "\n\t\t\t\t\t\t\t"),
        ])
    func uidsWithOtherIndentation(_ key: String, _ integer: String, _ closing: String) throws {
        let data = Self.uidDocument(
            digits: "4096", indentation: key, integerIndentation: integer, closing: closing)
        #expect(
            XMLReadingPathsTests.expectAgreement(data, "\(key.debugDescription)") == .value([.uid(4096)]))
    }

    @Test(arguments: ["12a", "1 2", "", "-1", "1.0", "１２", "99999999999999999999"])
    func uidsWithDigitsThatAreNotPlainAreRefused(_ digits: String) throws {
        let data = Self.uidDocument(digits: digits, indentation: "\n\t\t")
        let outcome = XMLReadingPathsTests.expectAgreement(data, digits)
        guard case .error = outcome else {
            Issue.record("\(digits) read as \(outcome)")
            return
        }
    }

    /// A UID whose bytes end the input, so that no word can be read past them.
    @Test(arguments: ["", "\n", "\n\t", "\n\t\t"])
    func uidsAtTheEndOfTheInput(_ indentation: String) throws {
        for digits in ["7", "1234567", "12345678", "123456789"] {
            let body = "<dict>\(indentation)<key>CF$UID</key>\(indentation)<integer>\(digits)</integer>"
            for closing in ["</dict>", "\(indentation.dropLast())</dict>"] {
                let data = Data((body + closing).utf8)
                #expect(
                    XMLReadingPathsTests.expectAgreement(data, "\(digits) \(indentation.debugDescription)")
                        == .value(.uid(UInt64(digits) ?? 0)))
            }
        }
    }

    /// Many UIDs in a row, most laid out as the one before (read by comparing their bytes
    /// with its), some not: other indentation, other spacing, more digits, no digits, a sign.
    @Test(arguments: 0..<8)
    func uidsInARowReadAsTheirOwnBytesSay(_ seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        let indentations = ["\n\t\t", "\n\t\t\t", "\n\t", " ", "\n\t\t\t\t\t\t\t\t\t\t", ""]
        var document = "<plist version=\"1.0\">\n<array>"
        var expected: [PropertyList] = []
        for _ in 0..<200 {
            // Mostly the layout of the one before: the first indentation, 1 to 8 digits.
            let indentation = next(4) == 0 ? indentations[next(indentations.count)] : indentations[0]
            // Odd seeds also write what is not a UID (past 64 bits, no digits, a letter).
            let valid = seed.isMultiple(of: 2)
            let digitCount = next(5) == 0 ? 1 + next(valid ? 19 : 20) : 1 + next(8)
            var digits = String((0..<digitCount).map { _ in Character(String(next(10))) })
            if next(40) == 0 { digits = ["+1", " 1", "", "1x"][next(valid ? 2 : 4)] }
            let closing = next(10) == 0 ? " " : String(indentation.dropLast())
            document +=
                "\n\t<dict>\(indentation)<key>CF$UID</key>\(indentation)<integer>\(digits)</integer>\(closing)</dict>"
            let trimmed = digits.trimmingCharacters(in: .whitespaces)
            if let number = UInt64(trimmed) {
                expected.append(.uid(number))
            } else {
                expected.append(.string("not a UID"))
            }
        }
        document += "\n</array>\n</plist>\n"
        let outcome = XMLReadingPathsTests.expectAgreement(Data(document.utf8), "seed \(seed)")
        #expect(seed % 2 == 1 || !expected.contains(.string("not a UID")))
        if expected.contains(.string("not a UID")) {
            guard case .error = outcome else {
                Issue.record("seed \(seed): read as \(outcome)")
                return
            }
        } else {
            #expect(outcome == .value(.array(expected)), "seed \(seed)")
        }
    }

    /// Dictionaries whose keys mostly follow the order of the one before (the rewriting to
    /// a binary property list compares the key that followed last time first), with keys
    /// in another order, empty, longer than 16 bytes, and more distinct keys than its table
    /// of recent keys holds.
    @Test(arguments: 0..<4)
    func keysInRepeatedOrdersReadAlike(_ seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed) &+ 77)
        func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        let common = ["$class", "name", "seen", "tags", "weight", "", "NS.objects", "a key of twenty bytes"]
        var expected: [PropertyList] = []
        var document = "<plist version=\"1.0\">\n<array>"
        for index in 0..<300 {
            var keys = Array(common.prefix(1 + next(common.count)))
            if next(4) == 0 {
                keys.shuffle(using: &random)
            }
            // Now and then a key seen once, so that the table fills and forgets.
            if next(3) == 0 { keys.append("key \(index)") }
            var entries = PropertyListDictionary()
            document += "\n\t<dict>"
            for (position, key) in keys.enumerated() {
                document += "\n\t\t<key>\(key)</key>\n\t\t<integer>\(position)</integer>"
                entries[key] = .integer(PropertyListInteger(position))
            }
            document += "\n\t</dict>"
            expected.append(.dictionary(entries))
        }
        document += "\n</array>\n</plist>\n"
        #expect(
            XMLReadingPathsTests.expectAgreement(Data(document.utf8), "seed \(seed)")
                == .value(.array(expected)))
    }

    static let decimals = [
        "0", "0.0", "-0.0", "+0.0", "00.5", ".5", "5.", "-.5", "1.5", "1234.421875", "680000000.5",
        "0.000001", "0.1", "0.3", "123456789", "1234567890123456789", "12345678901234567890",
        "1234567890.123456789", "1234567890.1234567891", "9007199254740992", "9007199254740993",
        "900719925474099.3", "0.0000000000000000000001", "0.00000000000000000000001",
        "0.0000000000000000001", "1000000000000000000.0", "99999999999999999.99", "3.1400000000000001",
    ]

    @Test(arguments: decimals)
    func plainDecimalsReadAsTheirNearestDouble(_ text: String) throws {
        let expected = try #require(Double(text))
        let signed = text.hasPrefix("-") || text.hasPrefix("+")
        for form in [text, " \(text)\n"] + (signed ? [] : ["-\(text)"]) {
            let data = Data("<plist version=\"1.0\"><array><real>\(form)</real></array></plist>".utf8)
            let outcome = XMLReadingPathsTests.expectAgreement(data, form)
            guard case .value(.array(let values)) = outcome, case .real(let number) = values.first else {
                Issue.record("\(form) read as \(outcome)")
                continue
            }
            let wanted = form.hasPrefix("-") && !signed ? -expected : expected
            #expect(number.bitPattern == wanted.bitPattern, "\(form): \(number) instead of \(wanted)")
        }
    }

    @Test func plainDecimalsAgreeWithFoundation() throws {
        let numbers = Self.decimals.compactMap(Double.init) + [1234.421875, 680_000_000.5, 1.0 / 3, 2.0 / 64]
        let written = try PropertyListSerialization.data(
            fromPropertyList: numbers, format: .xml, options: 0)
        let read = try PropertyList(from: written, format: .xml)
        let expected = try #require(
            PropertyListSerialization.propertyList(from: written, format: nil) as? [Double])
        #expect(read == .array(expected.map { .real($0) }))
        #expect(XMLReadingPathsTests.expectAgreement(written, "Foundation's reals") == .value(read))
    }

    @Test(arguments: [
        ".", "-.", "+", "1.2.3", "1..2", "1.5e3", "1e", "1.-5", "1,5", "١٫٥",
    ])
    func otherRealsAreReadByTheGeneralReading(_ text: String) throws {
        let data = Data("<plist version=\"1.0\"><array><real>\(text)</real></array></plist>".utf8)
        let outcome = XMLReadingPathsTests.expectAgreement(data, text)
        if let number = Double(text) {
            #expect(outcome == .value([.real(number)]), "\(text)")
        } else {
            #expect(outcome != .value([.real(0)]), "\(text)")
            guard case .error = outcome else {
                Issue.record("\(text) read as \(outcome)")
                return
            }
        }
    }

    /// An archive that Foundation wrote, read as Foundation reads it (compared through its
    /// binary form, which Foundation writes from what it read).
    @Test func foundationArchivesReadThroughEveryPath() throws {
        var value: Any = ["leaf", 1.5, 42] as [Any]
        for depth in 0..<12 {
            value =
                ["level \(depth)": value, "weight": Double(depth) / 64, "count": depth * 1_000_003]
                as [String: Any]
        }
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .xml
        archiver.encode(value, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let data = archiver.encodedData
        let outcome = XMLReadingPathsTests.expectAgreement(data, "Foundation's archive")
        guard case .value(let tree) = outcome else {
            Issue.record("Foundation's archive read as \(outcome)")
            return
        }
        let foundationValue = try PropertyListSerialization.propertyList(from: data, format: nil)
        let binary = try PropertyListSerialization.data(
            fromPropertyList: foundationValue, format: .binary, options: 0)
        #expect(try PropertyList(from: binary, format: .binary) == tree)
    }
}

/// The tree builder's short ASCII keys, built in place from the input's bytes: every length
/// to 20 and every position of the input's end after them, ASCII and not, bit for bit the
/// strings the standard library builds.
@Suite struct XMLShortKeyTests {
    @Test func shortKeysAreTheStandardLibrarys() throws {
        let alphabets = ["k", "Key_0.9-", "é", "説"]
        for alphabet in alphabets {
            let characters = Array(alphabet)
            for length in 0...20 {
                let key = String((0..<length).map { characters[$0 % characters.count] })
                for tail in ["", "\n", "</plist>\n"] {
                    let document = "<dict><key>\(key)</key><true/></dict>" + tail
                    let read = try PropertyList(from: Data(document.utf8), format: .xml)
                    let expected = String(decoding: Array(key.utf8), as: UTF8.self)
                    guard case .dictionary(let dictionary) = read, let stored = dictionary.keys.first else {
                        Issue.record("\(document): not a dictionary of one key")
                        continue
                    }
                    #expect(stored == expected && Array(stored.utf8) == Array(expected.utf8), "\(document)")
                    if expected.utf8.count <= 15 {
                        #expect(
                            unsafeBitCast(stored, to: (UInt64, UInt64).self)
                                == unsafeBitCast(expected, to: (UInt64, UInt64).self), "\(document)")
                    }
                    #expect(dictionary[key] == .bool(true), "\(document)")
                }
                // Keys the general text reading builds: a reference, CDATA, a comment first.
                let forms = [
                    ("<dict><key>\(key)&amp;</key><true/></dict>", key + "&"),
                    ("<dict><key><![CDATA[\(key)]]></key><true/></dict>", key),
                    ("<dict><!-- c --><key>\(key)</key><true/></dict>", key),
                ]
                for (document, expected) in forms {
                    let read = try PropertyList(from: Data(document.utf8), format: .xml)
                    #expect(read == [expected: true], "\(document)")
                    guard case .dictionary(let dictionary) = read, let stored = dictionary.keys.first else {
                        continue
                    }
                    #expect(Array(stored.utf8) == Array(expected.utf8), "\(document)")
                }
            }
        }
    }

    /// `<string>` text the quick reading found ASCII (made without validation, flagged ASCII
    /// from the scan) or validated (non-ASCII), at every length to 40 and in four alphabets:
    /// the standard library's string, bit for bit when small, with its ASCII flag right.
    @Test func quickStringsAreTheStandardLibrarys() throws {
        let alphabets = ["s", "Text_0.9- /", "é", "説", "a😀"]
        for alphabet in alphabets {
            let characters = Array(alphabet)
            for length in 0...40 {
                let text = String((0..<length).map { characters[$0 % characters.count] })
                // In an array, and alone (the text then ends 9 bytes before the input).
                let documents = ["", "\n", "</plist>\n"].map {
                    "<array><string>\(text)</string></array>" + $0
                }
                for document in documents + ["<string>\(text)</string>"] {
                    let data = Data(document.utf8)
                    let isAlone = document.hasPrefix("<string>")
                    #expect(
                        XMLReadingPathsTests.expectAgreement(data, document)
                            == .value(isAlone ? .string(text) : [.string(text)]), "\(document)")
                    let read = try PropertyList(from: data, format: .xml)
                    let expected = String(decoding: Array(text.utf8), as: UTF8.self)
                    guard let stored = isAlone ? read.stringValue : read.arrayValue?.first?.stringValue else {
                        Issue.record("\(document): not a string")
                        continue
                    }
                    #expect(Array(stored.utf8) == Array(expected.utf8), "\(document)")
                    if KnownASCII.isAvailable {
                        #expect(KnownASCII.flag(stored) == text.utf8.allSatisfy { $0 < 0x80 }, "\(document)")
                    }
                    if expected.utf8.count <= 15 {
                        #expect(
                            unsafeBitCast(stored, to: (UInt64, UInt64).self)
                                == unsafeBitCast(expected, to: (UInt64, UInt64).self), "\(document)")
                    }
                }
            }
        }
    }

    /// A non-ASCII key that is canonically equivalent to an ASCII one (the Kelvin sign and
    /// `K`, `Å` spelled three ways) is the same key, whichever path made its string.
    @Test func nonASCIIKeysEquivalentToOthersAreOneKey() throws {
        let pairs = [
            ("K", "\u{212A}"), ("\u{212B}", "\u{C5}"), ("A\u{30A}", "\u{212B}"), ("caf\u{E9}", "cafe\u{301}"),
        ]
        for (first, second) in pairs {
            let document =
                "<dict><key>\(first)</key><integer>1</integer><key>\(second)</key><integer>2</integer></dict>"
            let data = Data(document.utf8)
            #expect(XMLReadingPathsTests.expectAgreement(data, document) == .value(.dictionary([first: 2])))
            let read = try PropertyList(from: data, format: .xml)
            guard case .dictionary(let dictionary) = read else {
                Issue.record("\(document): not a dictionary")
                continue
            }
            #expect(dictionary.count == 1 && dictionary[first] == 2 && dictionary[second] == 2, "\(document)")
        }
    }
}
