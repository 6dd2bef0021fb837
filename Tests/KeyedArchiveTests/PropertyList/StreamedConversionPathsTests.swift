import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import KeyedArchive
@testable import PropertyListFormats

/// `keyed-archive -convert` and `-p` read binary, XML, OpenStep and JSON without building a
/// tree; ``StreamedConversionPaths`` runs every such conversion of a document and compares
/// each one that succeeds with the tree's output (what `FuzzStreamed` checks on the
/// fuzzer's inputs). These tests run it on documents where the conversions must succeed,
/// so that the comparison is made, and on damaged ones.
@Suite struct StreamedConversionPathsTests {
    /// Expects agreement and at least `agreements` conversions compared.
    static func expectAgreement(
        _ data: Data, _ name: String, atLeast agreements: Int = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let comparison = StreamedConversionPaths.comparison(of: data)
        #expect(
            comparison.disagreement == nil, "\(name): \(comparison.disagreement ?? "")",
            sourceLocation: sourceLocation)
        #expect(
            comparison.agreements >= agreements, "\(name): \(comparison.agreements) conversions compared",
            sourceLocation: sourceLocation)
        #expect(
            StreamedConversionPaths.disagreement(in: data) == comparison.disagreement,
            sourceLocation: sourceLocation)
    }

    static let value: PropertyList = [
        "name": "Potato Bug", "legs": 14, "weight": 0.25, "big": .integer(.init(UInt64.max)), "small": -7,
        "seen": .date(Date(timeIntervalSinceReferenceDate: 12_345.5)), "data": .data(Data([0, 1, 254, 255])),
        "nested": [["a": [], "b": [:]], "é\u{301}", "<&>\"'\u{1}", true, false],
        "Zebra": "last", "zebra": "case", "": "empty key",
    ]

    @Test func binaryAndXMLDocumentsConvertAlikeEveryWay() throws {
        // Four outputs and the walk, each compared.
        Self.expectAgreement(try Self.value.data(format: .binary), "binary", atLeast: 5)
        Self.expectAgreement(try Self.value.data(format: .xml), "XML", atLeast: 5)
    }

    @Test func archivesWithUIDsConvertAlike() throws {
        let archive = try KeyedArchiver.archivedData(
            withRootObject: ["a", "b", "a"] as [String], requiringSecureCoding: true)
        Self.expectAgreement(archive, "binary archive", atLeast: 5)
        let xml = try PropertyList(from: archive).data(format: .xml)
        Self.expectAgreement(xml, "XML archive", atLeast: 5)
    }

    @Test func openStepAndJSONTextsConvertAlike() {
        let openStep =
            #"{ name = "Potato Bug"; legs = 14; tags = (a, "b c", <0fbd77>); nested = { x = ""; }; }"#
        // OpenStep's three outputs (no walk for OpenStep); its text is no JSON.
        Self.expectAgreement(Data(openStep.utf8), "OpenStep", atLeast: 3)
        let json = #"{"name":"Potato Bug","legs":14,"weight":-0.5,"ok":true,"tags":["a",{"b":[]}],"n":1e3}"#
        // JSON's four outputs and its walk; OpenStep refuses it.
        Self.expectAgreement(Data(json.utf8), "JSON", atLeast: 5)
    }

    @Test func damagedDocumentsNeverDisagree() throws {
        // Every prefix and a byte changed at every position: conversions that fail are
        // skipped, and any that succeeds must match the tree.
        for document in [try Self.value.data(format: .binary), try Self.value.data(format: .xml)] {
            for end in stride(from: 0, through: document.count, by: max(1, document.count / 60)) {
                Self.expectAgreement(Data(document[..<end]), "prefix of \(end) bytes")
            }
            for position in stride(from: 0, to: document.count, by: max(1, document.count / 60)) {
                var damaged = document
                damaged[position] ^= 0x21
                Self.expectAgreement(damaged, "byte \(position) changed")
            }
        }
    }
}
