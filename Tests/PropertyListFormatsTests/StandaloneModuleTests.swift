import Foundation
import PropertyListFormats
import Testing

// A client of the property-list module alone: this file imports nothing of the package but
// `PropertyListFormats`, so it compiles only while that module stands on its own, and it
// reads and writes every format through the public API a user of the product sees.
@Suite("PropertyListFormats used alone")
struct StandaloneModuleTests {
    let creature: PropertyList = [
        "Title": "Potato Bug", "Legs": 14, "Weight": 0.5, "Nocturnal": true,
        "Seen": .date(Date(timeIntervalSinceReferenceDate: 700_000_000)),
        "Token": .data(Data([0, 1, 2, 0xFF])), "Tags": ["garden", "damp"],
    ]

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func writesAndReadsBack(format: PropertyListFormat) throws {
        let data = try creature.data(format: format)
        #expect(PropertyListFormat.detect(data) == format)
        #expect(try PropertyList(from: data) == creature)
        #expect(try PropertyList(from: data, format: format) == creature)
    }

    @Test func readsFoundationsOutput() throws {
        let object: [String: Any] = ["Title": "Moth", "Legs": 6, "Tags": ["night"]]
        let expected: PropertyList = ["Title": "Moth", "Legs": 6, "Tags": ["night"]]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let data = try PropertyListSerialization.data(
                fromPropertyList: object, format: format, options: 0)
            #expect(try PropertyList(from: data) == expected, "format \(format.rawValue)")
        }
    }

    @Test func readsOpenStep() throws {
        let text = #"{ Title = "Stag Beetle"; Tags = (oak, "dead wood"); Token = <00ff>; }"#
        let value = try PropertyList(from: Data(text.utf8))
        #expect(PropertyListFormat.detect(Data(text.utf8)) == .openStep)
        #expect(value["Title"]?.stringValue == "Stag Beetle")
        #expect(
            value == [
                "Title": "Stag Beetle", "Tags": ["oak", "dead wood"], "Token": .data(Data([0, 0xFF])),
            ])
    }

    @Test func writesJSON() throws {
        let json = try creature.jsonData()
        let parsed = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(parsed["Title"] as? String == "Potato Bug")
        #expect(parsed["Legs"] as? Int == 14)
        #expect(parsed["Tags"] as? [String] == ["garden", "damp"])
    }

    @Test func reportsErrorsWithThePackageErrorType() {
        #expect {
            try PropertyList(from: Data("bplist00 not really".utf8))
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .corruptData
        }
        #expect {
            try creature.data(format: .openStep)
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .unsupportedFormat
        }
    }
}
