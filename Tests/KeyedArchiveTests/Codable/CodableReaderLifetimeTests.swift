import Foundation
import KeyedArchive
import Testing

/// What the Codable bridge does with containers used after `init(from:)` returns, and with
/// damaged values that nothing asks for.
@Suite("Codable reading: kept containers and unread values")
struct CodableReaderLifetimeTests {
    /// A value that keeps its keyed container, to read from it later.
    final class Keeper: Decodable, @unchecked Sendable {
        enum Keys: String, CodingKey { case name, weight, tags }
        let name: String
        let container: KeyedDecodingContainer<Keys>

        init(from decoder: any Decoder) throws {
            container = try decoder.container(keyedBy: Keys.self)
            name = try container.decode(String.self, forKey: .name)
        }
    }

    struct Record: Encodable {
        var name = "first"
        var weight = 2.5
        var tags = ["a", "b"]
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func aKeptContainerReadsTheSameValuesLater(_ format: PropertyListFormat) throws {
        var encoder = KeyedArchiveEncoder()
        encoder.outputFormat = format
        let data = try encoder.encode(Record())
        let keeper = try KeyedArchiveDecoder().decode(Keeper.self, from: data)
        #expect(keeper.name == "first")
        #expect(try keeper.container.decode(String.self, forKey: .name) == "first")
        #expect(try keeper.container.decode(Double.self, forKey: .weight) == 2.5)
        #expect(try keeper.container.decode([String].self, forKey: .tags) == ["a", "b"])
    }

    struct WithJunk: Encodable {
        var name = "first"
        var junk = "JUNKJUNK"
    }

    struct NameOnly: Decodable {
        var name: String
    }

    struct NameAndJunk: Decodable {
        var name: String
        var junk: String
    }

    /// A binary archive is read lazily: a damaged value that no `init(from:)` asks for is
    /// never looked at, and the same damage fails the decode that reads it, with its path.
    @Test func aDamagedValueFailsOnlyTheDecodeThatReadsIt() throws {
        var data = try KeyedArchiveEncoder().encode(WithJunk())
        let text = Data("JUNKJUNK".utf8)
        let range = try #require(data.range(of: text))
        #expect(data[range.lowerBound - 1] == 0x58)  // an ASCII string of 8 bytes
        data[range.lowerBound - 1] = 0x0F  // a fill byte: not an object

        #expect(try KeyedArchiveDecoder().decode(NameOnly.self, from: data).name == "first")
        do {
            _ = try KeyedArchiveDecoder().decode(NameAndJunk.self, from: data)
            Issue.record("the damaged value decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["junk"])
            let underlying = try #require(context.underlyingError as? KeyedArchiveError)
            #expect(underlying.code == .corruptData)
        }
    }
}
