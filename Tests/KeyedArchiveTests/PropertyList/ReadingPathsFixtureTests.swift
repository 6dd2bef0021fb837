import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import KeyedArchive
@testable import PropertyListFormats

/// The shared fixtures through each differential of reading paths that the fuzzers run:
/// ``XMLReadingPaths`` (the XML readers, tree and binary rewriting, quick and general)
/// on the XML documents, ``StreamedConversionPaths`` (every conversion without a tree
/// against the tree's) on every property list.
@Suite(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
struct ReadingPathsFixtureTests {
    /// A differential of reading paths.
    enum Paths: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case xmlReading, streamedConversion
        var testDescription: String { rawValue }

        /// The fixtures it reads, and how many there must be at least.
        var documents: [Fixtures.Entry] {
            switch self {
            case .xmlReading:
                return Fixtures.manifest.filter { $0.format.hasPrefix("xml") || $0.name.contains("_xml") }
            case .streamedConversion:
                return Fixtures.manifest.filter { $0.category != "typedstream" }
            }
        }
        var minimumCount: Int {
            switch self {
            case .xmlReading: return 80
            case .streamedConversion: return 100
            }
        }

        /// Checks that the paths agree on `data`.
        func expectAgreement(_ data: Data, _ name: String) {
            switch self {
            case .xmlReading: XMLReadingPathsTests.expectAgreement(data, name)
            case .streamedConversion: StreamedConversionPathsTests.expectAgreement(data, name)
            }
        }
    }

    static let cases: [(Paths, Fixtures.Entry)] = Paths.allCases.flatMap { paths in
        paths.documents.map { (paths, $0) }
    }

    @Test(arguments: Paths.allCases)
    func fixturesArePresent(_ paths: Paths) {
        #expect(paths.documents.count >= paths.minimumCount)
    }

    @Test(arguments: cases)
    func fixtureReadsAlike(_ paths: Paths, _ entry: Fixtures.Entry) throws {
        paths.expectAgreement(try Fixtures.data(entry), entry.name)
    }
}
