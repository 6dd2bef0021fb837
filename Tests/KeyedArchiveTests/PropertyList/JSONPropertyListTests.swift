import Foundation
import KeyedArchive
import TestSupport
import Testing

/// A value and the compact JSON it must render as.
struct JSONCase: Sendable, CustomTestStringConvertible {
    let name: String
    let value: PropertyList
    let json: String

    init(_ name: String, _ value: PropertyList, _ json: String) {
        self.name = name
        self.value = value
        self.json = json
    }

    var testDescription: String { name }
}

@Suite struct JSONPropertyListTests {
    static let compact = PropertyListJSONOptions(prettyPrinted: false)

    static func render(_ value: PropertyList, _ options: PropertyListJSONOptions = compact) throws -> String {
        String(decoding: try value.jsonData(options: options), as: UTF8.self)
    }

    static func date(_ seconds: Double) -> PropertyList {
        .date(Date(timeIntervalSinceReferenceDate: seconds))
    }

    static let cases: [JSONCase] = [
        // Strings
        JSONCase("plain string", "abc", #""abc""#),
        JSONCase("empty string", "", #""""#),
        JSONCase("quote and backslash", #"a"b\c"#, #""a\"b\\c""#),
        JSONCase("short escapes", "\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
        JSONCase("other control characters", "\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        JSONCase("slash and DEL are not escaped", "/\u{7F}", "\"/\u{7F}\""),
        JSONCase("non-ASCII as UTF-8", "é日😀\u{2028}", "\"é日😀\u{2028}\""),

        // Integers
        JSONCase("zero", 0, "0"),
        JSONCase("negative", -42, "-42"),
        JSONCase("Int64.min", .integer(PropertyListInteger(Int64.min)), "-9223372036854775808"),
        JSONCase("UInt64.max", .integer(PropertyListInteger(UInt64.max)), "18446744073709551615"),
        JSONCase(
            "2^64, beyond 64 bits", .integer(PropertyListInteger(high: 1, low: 0)), "18446744073709551616"),
        JSONCase(
            "-2^127", .integer(PropertyListInteger(high: Int64.min, low: 0)),
            "-170141183460469231731687303715884105728"),

        // Reals
        JSONCase("integral real keeps .0", 1.0, "1.0"),
        JSONCase("fraction", 0.1, "0.1"),
        JSONCase("negative zero", .real(-0.0), "-0.0"),
        JSONCase("large exponent", 1e100, "1e+100"),
        JSONCase("2^53 + 2", 9_007_199_254_740_994.0, "9.007199254740994e+15"),
        JSONCase("1e16", 1e16, "1e+16"),
        JSONCase("smallest subnormal", .real(.leastNonzeroMagnitude), "5e-324"),
        JSONCase("shortest round trip", 1.0000000000000002, "1.0000000000000002"),
        JSONCase("NaN", .real(.nan), #"{"real":"nan"}"#),
        JSONCase("infinity", .real(.infinity), #"{"real":"inf"}"#),
        JSONCase("negative infinity", .real(-.infinity), #"{"real":"-inf"}"#),

        // Booleans
        JSONCase("true", true, "true"),
        JSONCase("false", false, "false"),

        // Dates
        JSONCase("reference date", date(0), #"{"date":"2001-01-01T00:00:00Z"}"#),
        JSONCase("before 2001", date(-86_400 * 366), #"{"date":"2000-01-01T00:00:00Z"}"#),
        JSONCase("half a second", date(0.5), #"{"date":"2001-01-01T00:00:00.5Z"}"#),
        JSONCase("negative fraction", date(-0.5), #"{"date":"2000-12-31T23:59:59.5Z"}"#),
        JSONCase("microseconds", date(508_476_995.382174), #"{"date":"2017-02-11T03:36:35.382174Z"}"#),
        JSONCase(
            "trailing zeros dropped", date(1_454_557_055.10146), #"{"date":"2047-02-04T03:37:35.10146Z"}"#),
        JSONCase("rounds up to the next second", date(0.9999999), #"{"date":"2001-01-01T00:00:01Z"}"#),
        JSONCase("below a microsecond", date(1e-7), #"{"date":"2001-01-01T00:00:00Z"}"#),

        // Data
        JSONCase("empty data", .data(Data()), #"{"data":""}"#),
        JSONCase("one byte", .data(Data([0])), #"{"data":"AA=="}"#),
        JSONCase("two bytes", .data(Data([0, 1])), #"{"data":"AAE="}"#),
        JSONCase("three bytes", .data(Data([0, 1, 2])), #"{"data":"AAEC"}"#),
        JSONCase("high bits", .data(Data([0xFF, 0xFE, 0xFD, 0xFC])), #"{"data":"//79/A=="}"#),
        JSONCase("text", .data(Data("Potato Bug".utf8)), #"{"data":"UG90YXRvIEJ1Zw=="}"#),

        // UIDs
        JSONCase("UID", .uid(3), #"{"CF$UID":3}"#),
        JSONCase("largest UID", .uid(UInt64.max), #"{"CF$UID":18446744073709551615}"#),

        // Containers
        JSONCase("empty array", [], "[]"),
        JSONCase("empty dictionary", [:], "{}"),
        JSONCase("array", [1, "a", [true]], #"[1,"a",[true]]"#),
        JSONCase("dictionary keeps its order", ["b": 1, "a": 2], #"{"b":1,"a":2}"#),
        JSONCase("escaped key", ["a\"\n": 1], #"{"a\"\n":1}"#),
        JSONCase(
            "nested", ["x": [["y": .uid(1)], [:]], "z": .data(Data([1]))],
            #"{"x":[{"y":{"CF$UID":1}},{}],"z":{"data":"AQ=="}}"#),
    ]

    @Test(arguments: cases)
    func rendersCompactJSON(_ testCase: JSONCase) throws {
        #expect(try Self.render(testCase.value) == testCase.json, "\(testCase.name)")
    }

    @Test func prettyPrintsWithTwoSpaces() throws {
        let value: PropertyList = [
            "b": [1, .uid(2)],
            "a": [:],
            "c": [],
            "d": ["e": .data(Data([0xAB])), "f": .real(.nan)],
        ]
        let expected = """
            {
              "b": [
                1,
                {"CF$UID": 2}
              ],
              "a": {},
              "c": [],
              "d": {
                "e": {"data": "qw=="},
                "f": {"real": "nan"}
              }
            }
            """
        #expect(try Self.render(value, PropertyListJSONOptions()) == expected)
        #expect(try Self.render("top") == #""top""#)
        #expect(try Self.render("top", PropertyListJSONOptions()) == #""top""#)
    }

    @Test func sortsKeysByUnicodeScalarsWhenAsked() throws {
        let value: PropertyList = ["é": 1, "z": 2, "Z": 3, "a": ["y": 4, "b": 5], "ab": 6]
        let sorted = PropertyListJSONOptions(prettyPrinted: false, sortsKeys: true)
        #expect(try Self.render(value, sorted) == #"{"Z":3,"a":{"b":5,"y":4},"ab":6,"z":2,"é":1}"#)
        #expect(try Self.render(value) == #"{"é":1,"z":2,"Z":3,"a":{"y":4,"b":5},"ab":6}"#)
    }

    /// The output is valid JSON by a strict parser's standard.
    @Test(arguments: [true, false])
    func foundationParsesTheOutput(prettyPrinted: Bool) throws {
        let value: PropertyList = [
            "string": "quote \" backslash \\ control \u{1} tab \t é 😀",
            "numbers": [0, -1, .integer(PropertyListInteger(UInt64.max)), 1.5, 1e100, .real(-0.0)],
            "special": [
                .real(.nan), .date(Date(timeIntervalSinceReferenceDate: 1.25)), .data(Data([1, 2, 3])),
            ],
            "uid": .uid(7),
            "bools": [true, false],
            "empty": [[], [:]],
        ]
        let data = try value.jsonData(options: PropertyListJSONOptions(prettyPrinted: prettyPrinted))
        let object = try JSONSerialization.jsonObject(with: data)
        let dictionary = try #require(object as? [String: Any])
        #expect(dictionary["string"] as? String == "quote \" backslash \\ control \u{1} tab \t é 😀")
        #expect((dictionary["uid"] as? [String: Any])?["CF$UID"] as? Int == 7)
        #expect(dictionary.count == 6)
    }

    /// Rendering and reading back through the fixtures' convention gives the value again.
    @Test func roundTripsThroughTheExpectedJSONConvention() throws {
        let value: PropertyList = [
            "string": "a\"b\\c\n\u{1}é",
            "integers": [0, -5, .integer(PropertyListInteger(high: 1, low: 5))],
            "reals": [0.1, 1e100, .real(.infinity), .real(-.infinity), .real(.nan)],
            "date": .date(Date(timeIntervalSinceReferenceDate: 123_456_789)),
            "data": .data(Data((0..<40).map { UInt8($0 * 7 & 0xFF) })),
            "uid": .uid(42),
            "nested": [["deep": [[[:]]]]],
            "bool": true,
        ]
        for options in [PropertyListJSONOptions(), Self.compact] {
            let text = try value.jsonData(options: options)
            var parser = ExpectedJSONParser(text: Array(text))
            #expect(try parser.parseDocument() == value)
        }
    }

    // MARK: - Depth

    static func nested(_ depth: Int) -> PropertyList {
        var value: PropertyList = []
        for level in 1..<depth { value = level.isMultiple(of: 2) ? [value] : ["k": value] }
        return value
    }

    @Test func rendersNestingUpTo512Levels() throws {
        let text = try Self.render(Self.nested(512))
        #expect(text.filter { $0 == "[" || $0 == "{" }.count == 512)
    }

    @Test func refusesNestingBeyond512Levels() {
        #expect {
            try Self.render(Self.nested(513))
        } throws: { error in
            guard let error = error as? KeyedArchiveError, case .keyPath(let path)? = error.location else {
                return false
            }
            return error.code == .limitExceeded && path.hasPrefix("root[0].k[0].k[0]")
        }
    }

    // MARK: - Fixtures

    static let fixtureEntries = (Fixtures.entries("plists") + Fixtures.entries("apple-keyed-archives"))
        .filter { $0.expected != nil }

    /// The values the fixtures' `*.expected.json` describe (real-world shapes: keyed
    /// archives, big integers, UIDs, dates, data) survive rendering and reading back, with
    /// no reader involved.
    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)), arguments: fixtureEntries)
    func expectedValueRoundTrips(_ entry: Fixtures.Entry) throws {
        let expected = try #require(try Fixtures.expectedValue(entry), "\(entry.file): no expected value")
        for options in [PropertyListJSONOptions(), Self.compact] {
            var parser = ExpectedJSONParser(text: Array(try expected.jsonData(options: options)))
            #expect(try parser.parseDocument() == expected, "\(entry.file)")
        }
    }

    /// Every fixture the readers can read renders as JSON that equals its
    /// `*.expected.json` (both read back with the same convention-aware parser).
    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)), arguments: fixtureEntries)
    func fixtureRendersAsItsExpectedJSON(_ entry: Fixtures.Entry) throws {
        let data = try Fixtures.data(entry)
        guard let value = try? PropertyList(from: data) else {
            // Not readable yet (a reader still in progress, or a format it refuses): the
            // readers' own fixture tests judge that; here only readable files are compared.
            return
        }
        let json = try value.jsonData()
        var parser = ExpectedJSONParser(text: Array(json))
        let rendered = try parser.parseDocument()
        let expected = try #require(try Fixtures.expectedValue(entry), "\(entry.file): no expected value")
        #expect(rendered == expected, "\(entry.file): JSON differs from \(entry.expected ?? "")")
    }
}
