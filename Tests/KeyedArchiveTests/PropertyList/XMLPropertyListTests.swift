import Foundation
import KeyedArchive
import TestSupport
import Testing

/// The XML text the writer produces for `value`.
private func xmlText(_ value: PropertyList, sortsKeys: Bool = true) throws -> String {
    let data = try value.data(format: .xml, options: PropertyListWritingOptions(sortsKeys: sortsKeys))
    return String(decoding: data, as: UTF8.self)
}

private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">

    """

@Suite struct XMLPropertyListWriterTests {
    @Test func layoutMatchesApple() throws {
        let value: PropertyList = [
            "string": "a & <b> > 'c' \"d\"",
            "empty array": [],
            "empty dict": .dictionary(PropertyListDictionary()),
            "flags": [true, false],
            "numbers": [0, -5, .integer(PropertyListInteger(UInt64.max)), 32.5, 3.0, -0.0],
            "uid": .uid(42),
            "date": .date(Date(timeIntervalSinceReferenceDate: 120_479_613.75)),
            "data": .data(Data("<binary gunk>".utf8)),
        ]
        let expected =
            header + """
                <dict>
                \t<key>data</key>
                \t<data>
                \tPGJpbmFyeSBndW5rPg==
                \t</data>
                \t<key>date</key>
                \t<date>2004-10-26T10:33:33Z</date>
                \t<key>empty array</key>
                \t<array/>
                \t<key>empty dict</key>
                \t<dict/>
                \t<key>flags</key>
                \t<array>
                \t\t<true/>
                \t\t<false/>
                \t</array>
                \t<key>numbers</key>
                \t<array>
                \t\t<integer>0</integer>
                \t\t<integer>-5</integer>
                \t\t<integer>18446744073709551615</integer>
                \t\t<real>32.5</real>
                \t\t<real>3</real>
                \t\t<real>-0</real>
                \t</array>
                \t<key>string</key>
                \t<string>a &amp; &lt;b&gt; &gt; 'c' "d"</string>
                \t<key>uid</key>
                \t<dict>
                \t\t<key>CF$UID</key>
                \t\t<integer>42</integer>
                \t</dict>
                </dict>
                </plist>

                """
        #expect(try xmlText(value) == expected)
    }

    @Test func scalarRoots() throws {
        #expect(try xmlText("x") == header + "<string>x</string>\n</plist>\n")
        #expect(try xmlText(true) == header + "<true/>\n</plist>\n")
        #expect(try xmlText([]) == header + "<array/>\n</plist>\n")
        #expect(
            try xmlText(.uid(0)) == header
                + "<dict>\n\t<key>CF$UID</key>\n\t<integer>0</integer>\n</dict>\n</plist>\n")
        #expect(try xmlText(.data(Data())) == header + "<data>\n</data>\n</plist>\n")
    }

    @Test(arguments: [
        (Double.nan, "nan"), (.infinity, "inf"), (-.infinity, "-inf"), (0.1, "0.1"), (1e16, "1e+16"),
        (123456789012345.0, "123456789012345"), (1e15, "1000000000000000"), (-2.5e-7, "-2.5e-07"), (0.0, "0"),
        (1.0 / 3.0, "0.3333333333333333"), (.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        (.leastNonzeroMagnitude, "5e-324"),
    ])
    func reals(_ number: Double, _ text: String) throws {
        #expect(try xmlText(.real(number)) == header + "<real>\(text)</real>\n</plist>\n")
        let back = try PropertyList(from: try PropertyList.real(number).data(format: .xml), format: .xml)
        #expect(back == .real(number))
    }

    @Test func integersAreExactAcrossTheWholeRange() throws {
        let values: [PropertyListInteger] = [
            PropertyListInteger(Int64.min), PropertyListInteger(Int64.max), PropertyListInteger(UInt64.max),
            PropertyListInteger(high: .max, low: .max), PropertyListInteger(high: .min, low: 0),
            PropertyListInteger(high: 1, low: 0), PropertyListInteger(high: -2, low: 12345),
        ]
        for number in values {
            #expect(try xmlText(.integer(number)) == header + "<integer>\(number)</integer>\n</plist>\n")
            #expect(
                try PropertyList(from: try PropertyList.integer(number).data(format: .xml))
                    == .integer(number))
        }
    }

    @Test func charactersXMLCannotCarryAreWrittenAsReferences() throws {
        let string = "tab\tnewline\ncr\rnul\u{0}bell\u{7}esc\u{1B}del\u{7F}"
        #expect(
            try xmlText(.string(string))
                == header
                + "<string>tab\tnewline\ncr&#13;nul&#0;bell&#7;esc&#27;del\u{7F}</string>\n</plist>\n")
        let keyed: PropertyList = ["\u{1}key": "v"]
        #expect(try xmlText(keyed).contains("<key>&#1;key</key>"))
        #expect(try PropertyList(from: try PropertyList.string(string).data(format: .xml)) == .string(string))
    }

    @Test func base64WrapsRelativeToIndentation() throws {
        let bytes = Data((0..<100).map { UInt8($0) })
        let encoded = bytes.base64EncodedString()
        func lines(at depth: Int) throws -> [Substring] {
            var value: PropertyList = .data(bytes)
            for _ in 0..<depth { value = [value] }
            let text = try xmlText(value)
            let start = try #require(text.range(of: "<data>\n"))
            let end = try #require(text.range(of: "</data>"))
            // The last piece is the indentation of the closing tag.
            return Array(
                text[start.upperBound..<end.lowerBound].split(
                    separator: "\n", omittingEmptySubsequences: false
                ).dropLast())
        }
        for depth in [0, 1, 2, 5, 8, 9, 12] {
            let tabs = min(depth, 8)
            let perLine = 76 - 8 * tabs
            let found = try lines(at: depth)
            // Every line but the last is full; all are indented min(depth, 8) tabs; the
            // closing tag is indented to the real depth.
            var joined = ""
            for (index, line) in found.enumerated() {
                #expect(line.prefix(tabs).allSatisfy { $0 == "\t" })
                let content = line.dropFirst(tabs)
                #expect(!content.hasPrefix("\t"))
                if index < found.count - 1 { #expect(content.count == perLine, "depth \(depth)") }
                joined += content
            }
            #expect(joined == encoded, "depth \(depth)")
        }
        var deep: PropertyList = .data(bytes)
        for _ in 0..<10 { deep = [deep] }
        #expect(try xmlText(deep).contains(String(repeating: "\t", count: 10) + "</data>\n"))
    }

    @Test func keysAreSortedByUnicodeScalarsUnlessAskedNotTo() throws {
        let value: PropertyList = ["é": 1, "z": 2, "B": 3, "a": 4, "😀": 5, "ﬀ": 6]
        let sorted = try xmlText(value)
        let order = sorted.split(separator: "\n").filter { $0.contains("<key>") }.map {
            $0.replacingOccurrences(of: "\t<key>", with: "").replacingOccurrences(of: "</key>", with: "")
        }
        #expect(order == ["B", "a", "z", "é", "ﬀ", "😀"])
        let unsorted = try xmlText(value, sortsKeys: false)
        let kept = unsorted.split(separator: "\n").filter { $0.contains("<key>") }.map {
            $0.replacingOccurrences(of: "\t<key>", with: "").replacingOccurrences(of: "</key>", with: "")
        }
        #expect(kept == ["é", "z", "B", "a", "😀", "ﬀ"])
        let back = try PropertyList(from: Data(unsorted.utf8))
        #expect(back.dictionaryValue?.keys == ["é", "z", "B", "a", "😀", "ﬀ"])
    }

    @Test func datesThatCannotBePrintedThrowWithTheirPath() throws {
        let value: PropertyList = ["a": ["ok", .date(Date(timeIntervalSinceReferenceDate: .nan))]]
        let error = #expect(throws: KeyedArchiveError.self) { try value.data(format: .xml) }
        #expect(error?.code == .invalidValue)
        #expect(error?.location == .keyPath("root.a[1]"))
        #expect(throws: KeyedArchiveError.self) {
            try PropertyList.date(Date(timeIntervalSinceReferenceDate: .infinity)).data(format: .xml)
        }
        #expect(throws: KeyedArchiveError.self) {
            try PropertyList.date(Date(timeIntervalSinceReferenceDate: 9.5e15)).data(format: .xml)
        }
        // Far-away dates still round-trip, with years of more than four digits or a sign.
        for seconds in [8.9e15, -8.9e15, -63_114_076_800, 253_402_300_800] {
            let date = PropertyList.date(Date(timeIntervalSinceReferenceDate: seconds))
            #expect(try PropertyList(from: try date.data(format: .xml), format: .xml) == date, "\(seconds)")
        }
        // Fractions of a second are dropped, as Apple does.
        let text = try xmlText(.date(Date(timeIntervalSinceReferenceDate: -0.5)))
        #expect(text.contains("<date>2000-12-31T23:59:59Z</date>"))
    }

    @Test func deepNestingIsWrittenWithoutRecursion() throws {
        var value: PropertyList = "leaf"
        for index in 0..<5000 { value = index.isMultiple(of: 2) ? [value] : ["k": value] }
        let data = try value.data(format: .xml)
        var options = PropertyListReadingOptions()
        options.maximumDepth = 10_000
        #expect(try PropertyList(from: data, format: .xml, options: options) == value)
    }

    @Test(arguments: 0..<40)
    func generatedValuesRoundTrip(_ seed: Int) throws {
        var generator = ValueGenerator(seed: UInt64(seed))
        let value = generator.value(depth: 0)
        for sortsKeys in [true, false] {
            let data = try value.data(format: .xml, options: PropertyListWritingOptions(sortsKeys: sortsKeys))
            let back = try PropertyList(from: data, format: .xml)
            #expect(back == value, "seed \(seed)")
            if !sortsKeys, case .dictionary(let original) = value, case .dictionary(let read) = back {
                #expect(read.keys == original.keys)
            }
        }
    }
}

@Suite(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
struct XMLPropertyListFixtureTests {
    static let valid = (Fixtures.entries("plists") + Fixtures.entries("apple-keyed-archives"))
        .filter { $0.format.hasPrefix("xml") }
    static let malformed = Fixtures.entries("malformed").filter {
        $0.format.hasPrefix("xml") || $0.name.contains("_xml")
    }

    @Test func fixturesArePresent() {
        #expect(Self.valid.count >= 27)
        #expect(Self.malformed.count >= 60)
    }

    @Test(arguments: valid)
    func validFixtureReadsAsExpected(_ entry: Fixtures.Entry) throws {
        let data = try Fixtures.data(entry)
        let value = try PropertyList(from: data, format: .xml)
        let expected = try #require(try Fixtures.expectedValue(entry), "\(entry.name) has no expectation")
        #expect(value == expected, "\(entry.name)")
        #expect(try PropertyList(from: data) == expected, "\(entry.name) through format detection")
        // And it survives being written and read back.
        let rewritten = try value.data(format: .xml)
        #expect(try PropertyList(from: rewritten, format: .xml) == value, "\(entry.name) round trip")
    }

    @Test(arguments: malformed)
    func malformedFixtureIsRejected(_ entry: Fixtures.Entry) throws {
        let data = try Fixtures.data(entry)
        do {
            let value = try PropertyList(from: data, format: .xml)
            #expect(entry.expect == "reject-or-decode", "\(entry.name) was accepted as \(value)")
        } catch let error as KeyedArchiveError {
            #expect(
                error.code == .corruptData || error.code == .unsupportedFormat
                    || error.code == .valueOutOfRange,
                "\(entry.name): \(error)")
            #expect(error.location != nil, "\(entry.name): \(error)")
        }
    }

    @Test func appleMadeFixtureIsReproducedByteForByte() throws {
        let entry = try #require(Self.valid.first { $0.name == "cpython_TESTDATA_xml.plist" })
        let original = try Fixtures.data(entry)
        let value = try PropertyList(from: original, format: .xml)
        #expect(try value.data(format: .xml) == original)
        let expected = try #require(try Fixtures.expectedValue(entry))
        let written = try expected.data(format: .xml)
        #expect(
            written == original,
            "\(entry.name): first difference at byte \(firstDifference(written, original))")
    }

    private func firstDifference(_ a: Data, _ b: Data) -> Int {
        zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    }
}

/// A deterministic generator of property lists that exercise the writer: awkward strings,
/// special reals, the whole integer range, dates in whole seconds, data of every length.
struct ValueGenerator {
    private var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func next() -> UInt64 { random.next() }

    mutating func below(_ bound: Int) -> Int { random.below(bound) }

    mutating func string() -> String {
        let pieces: [String] = [
            "a", "Z", " ", "\t", "\n", "\r", "\r\n", "&", "<", ">", "&amp;", "]]>", "\"", "'", "é", "世", "😀",
            "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "\u{FEFF}", "\u{FFFD}", "CF$UID", "<!--", "-->", "$null",
        ]
        var result = ""
        for _ in 0..<below(12) { result += pieces[below(pieces.count)] }
        return result
    }

    mutating func scalar() -> PropertyList {
        switch below(8) {
        case 0: return .string(string())
        case 1:
            let number = PropertyListInteger(high: Int64(bitPattern: next()) >> below(64), low: next())
            return .integer(number)
        case 2: return .integer(PropertyListInteger(Int64(bitPattern: next()) >> below(64)))
        case 3:
            let specials: [Double] = [
                .nan, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, 1e300, 0.1,
            ]
            return .real(below(2) == 0 ? specials[below(specials.count)] : Double(bitPattern: next()))
        case 4: return .bool(below(2) == 0)
        case 5:
            return .date(Date(timeIntervalSinceReferenceDate: Double(below(8_000_000_000) - 4_000_000_000)))
        case 6: return .data(Data((0..<below(200)).map { _ in UInt8(truncatingIfNeeded: next()) }))
        default: return .uid(next() >> below(64))
        }
    }

    mutating func value(depth: Int) -> PropertyList {
        guard depth < 5, below(3) != 0 else { return scalar() }
        let count = below(6)
        if below(2) == 0 {
            return .array((0..<count).map { _ in value(depth: depth + 1) })
        }
        var dictionary = PropertyListDictionary()
        for _ in 0..<count { dictionary[string()] = value(depth: depth + 1) }
        return .dictionary(dictionary)
    }
}
