import Foundation
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// `PropertyList.write(format:options:to:)`, `writeJSON(options:to:)` and
/// `DurableFile.write(to:_:)`: the text arrives in pieces, the same bytes as the one-piece
/// writers, within the output bound, and a failure leaves a file untouched.
@Suite struct StreamingWriteTests {
    /// About 2 MB of XML: many pieces.
    static let large: PropertyList = .array(
        (0..<20_000).map { index in
            [
                "name": .string("creature \(index)"), "rating": .integer(PropertyListInteger(index % 5)),
                "tags": ["scary", "small"],
            ]
        })

    struct Pieces {
        var sizes: [Int] = []
        var bytes = Data()
        mutating func take(_ piece: UnsafeRawBufferPointer) {
            sizes.append(piece.count)
            bytes.append(contentsOf: piece)
        }
    }

    @Test func xmlArrivesInPiecesEqualToTheWholeDocument() throws {
        var pieces = Pieces()
        try Self.large.write(format: .xml) { pieces.take($0) }
        #expect(pieces.bytes == (try Self.large.data(format: .xml)))
        #expect(pieces.sizes.count > 4, "\(pieces.sizes.count) pieces")
        // Each piece is the chunk plus at most one value's text.
        #expect(pieces.sizes.allSatisfy { $0 < XMLPropertyListEmitter.chunkSize + 4096 })
    }

    @Test func jsonArrivesInPiecesEqualToTheWholeText() throws {
        for options in [
            PropertyListJSONOptions(), PropertyListJSONOptions(prettyPrinted: false, sortsKeys: true),
        ] {
            var pieces = Pieces()
            try Self.large.writeJSON(options: options) { pieces.take($0) }
            #expect(pieces.bytes == (try Self.large.jsonData(options: options)))
            #expect(pieces.sizes.count > 2, "\(pieces.sizes.count) pieces")
            #expect(pieces.sizes.allSatisfy { $0 < JSONTextWriter.chunkSize + 4096 })
        }
    }

    @Test func binaryArrivesInOnePiece() throws {
        var pieces = Pieces()
        try Self.large.write(format: .binary) { pieces.take($0) }
        #expect(pieces.sizes.count == 1)
        #expect(pieces.bytes == (try Self.large.data(format: .binary)))
        #expect(throws: KeyedArchiveError.self) { try Self.large.write(format: .openStep) { _ in } }
    }

    @Test func theBoundCountsEveryPiece() throws {
        var xml = Pieces()
        let xmlError = #expect(throws: KeyedArchiveError.self) {
            try Self.large.write(
                format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: 600_000)
            ) {
                xml.take($0)
            }
        }
        #expect(xmlError?.code == .limitExceeded)
        #expect(xml.bytes.count <= 600_000)
        #expect(xml.bytes.count > 0)

        var json = Pieces()
        let jsonError = #expect(throws: KeyedArchiveError.self) {
            try Self.large.writeJSON(options: PropertyListJSONOptions(maximumOutputBytes: 600_000)) {
                json.take($0)
            }
        }
        #expect(jsonError?.code == .limitExceeded)
        #expect(json.bytes.count <= 600_000)
    }

    struct Stop: Error {}

    @Test func anErrorOfTheDestinationStopsTheWriting() throws {
        var calls = 0
        #expect(throws: Stop.self) {
            try Self.large.write(format: .xml) { _ in
                calls += 1
                throw Stop()
            }
        }
        #expect(calls == 1)
        #expect(throws: Stop.self) { try Self.large.writeJSON { _ in throw Stop() } }
    }

    @Test func aDurableFileIsWrittenInPieces() throws {
        let folder = try DurableWriteTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("large.plist")
        try DurableFileWriter.write(to: file) { write in try Self.large.write(format: .xml, to: write) }
        #expect(try Data(contentsOf: file) == (try Self.large.data(format: .xml)))
    }

    @Test func aFailedProducerLeavesTheFileUntouched() throws {
        let folder = try DurableWriteTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("kept.plist")
        try Data("old".utf8).write(to: file)
        #expect(throws: Stop.self) {
            try DurableFileWriter.write(to: file) { write in
                try Self.large.write(format: .xml, to: write)
                throw Stop()
            }
        }
        let limited = #expect(throws: KeyedArchiveError.self) {
            try DurableFileWriter.write(to: file) { write in
                try Self.large.write(
                    format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: 300_000), to: write)
            }
        }
        #expect(limited?.code == .limitExceeded)
        #expect(try Data(contentsOf: file) == Data("old".utf8))
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["kept.plist"])
    }
}
