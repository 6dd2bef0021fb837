import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

@Suite struct PrintTests {
    @Test func layoutFollowsPlutil() {
        let value: PropertyList = [
            "n": 5,
            "key": "value",
            "list": [1, [], [:]],
            "flag": true,
            "pi": 3.25,
            "two": 2.0,
        ]
        #expect(
            PropertyListPrinter.render(value) == """
                {
                  "flag" => true
                  "key" => "value"
                  "list" => [
                    0 => 1
                    1 => [
                    ]
                    2 => {
                    }
                  ]
                  "n" => 5
                  "pi" => 3.25
                  "two" => 2.0
                }

                """)
    }

    @Test func keysSortByUnicodeScalars() {
        let value: PropertyList = ["b": 1, "B": 2, "a": 3, "$top": 4, "é": 5]
        #expect(
            PropertyListPrinter.render(value)
                == "{\n  \"$top\" => 4\n  \"B\" => 2\n  \"a\" => 3\n  \"b\" => 1\n  \"é\" => 5\n}\n")
    }

    @Test(arguments: [
        (Data(), "{length = 0, bytes = 0x}"),
        (Data([1, 2, 3, 4]), "{length = 4, bytes = 0x01020304}"),
        (Data(0..<24), "{length = 24, bytes = 0x000102030405060708090a0b0c0d0e0f1011121314151617}"),
        (Data(0..<36), "{length = 36, bytes = 0x000102030405060708090a0b0c0d0e0f ... 1c1d1e1f20212223}"),
    ])
    func dataLikeCoreFoundation(data: Data, expected: String) {
        #expect(PropertyListPrinter.dataText(data) == expected)
    }

    @Test(arguments: [
        (0.0, "2001-01-01 00:00:00 +0000"),
        (599_627_045.75, "2020-01-02 03:04:05 +0000"),
        (-1.0, "2000-12-31 23:59:59 +0000"),
        (-63_113_904_000.0, "0001-01-01 00:00:00 +0000"),
        (Double.nan, "nan seconds since 2001-01-01 00:00:00 +0000"),
        (-Double.infinity, "-inf seconds since 2001-01-01 00:00:00 +0000"),
    ])
    func dates(seconds: Double, expected: String) {
        #expect(PropertyListPrinter.dateText(seconds) == expected)
    }

    @Test func scalars() {
        let value: PropertyList = [
            .uid(3), .real(.nan), .real(-.infinity), .real(1e100), .bool(false),
            .integer(PropertyListInteger(UInt64.max)), .integer(-7),
            .date(Date(timeIntervalSinceReferenceDate: 0)),
        ]
        #expect(
            PropertyListPrinter.render(value) == """
                [
                  0 => UID(3)
                  1 => nan
                  2 => -inf
                  3 => 1e+100
                  4 => false
                  5 => 18446744073709551615
                  6 => -7
                  7 => 2001-01-01 00:00:00 +0000
                ]

                """)
    }

    @Test func stringsAreQuotedAndControlCharactersEscaped() {
        let value: PropertyList = "say \"hi\"\nthen\ttab\u{1B}[31m\r\u{9B}\u{202E}"
        #expect(
            PropertyListPrinter.render(value)
                == "\"say \"hi\"\nthen\ttab\\u{1b}[31m\\u{d}\\u{9b}\\u{202e}\"\n")
        let key: PropertyList = ["\u{2066}key\u{7F}": 1]
        #expect(PropertyListPrinter.render(key) == "{\n  \"\\u{2066}key\\u{7f}\" => 1\n}\n")
    }

    @Test func keyedArchiveFromFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Samples.keyedArchive.data(format: .binary), to: "graph.archive")
        let run = ToolRun(["-p", path])
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        #expect(
            run.outputText == """
                {
                  "$archiver" => "NSKeyedArchiver"
                  "$objects" => [
                    0 => "$null"
                    1 => {
                      "$class" => UID(3)
                      "NS.objects" => [
                        0 => UID(2)
                      ]
                    }
                    2 => "Potato Bug"
                    3 => {
                      "$classes" => [
                        0 => "NSArray"
                        1 => "NSObject"
                      ]
                      "$classname" => "NSArray"
                    }
                  ]
                  "$top" => {
                    "root" => UID(1)
                  }
                  "$version" => 100000
                }

                """)
    }

    @Test func severalFilesAndStandardInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        let run = ToolRun(["-p", path, "-"], standardInput: Data("(1, two)".utf8))
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        #expect(
            run.outputText
                == "{\n  \"legs\" => 6\n  \"name\" => \"Potato Bug\"\n}\n[\n  0 => \"1\"\n  1 => \"two\"\n]\n"
        )
    }
}
