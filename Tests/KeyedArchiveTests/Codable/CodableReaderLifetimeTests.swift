import Foundation
import KeyedArchive
import TestSupport
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

    struct Pair: Decodable, Equatable {
        var a: Int?
        var b: Int?
    }

    /// Two records whose key lists differ only in their first key, whose string objects are
    /// 16 apart: the reader's cache of key layouts puts both in one slot, and must still
    /// tell them apart.
    @Test func recordsWithTheSameSlotInTheShapeCacheKeepTheirOwnKeys() throws {
        func ascii(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return (bytes.count < 15 ? [0x50 | UInt8(bytes.count)] : [0x5F, 0x10, UInt8(bytes.count)]) + bytes
        }
        func dictionary(_ keys: [Int], _ values: [Int]) -> [UInt8] {
            [0xD0 | UInt8(keys.count)] + (keys + values).map { UInt8($0) }
        }
        let objects: [[UInt8]] =
            [
                dictionary([1, 2, 3, 4], [5, 6, 7, 8]),  // 0: the archive
                ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),  // 1–4
                ascii("NSKeyedArchiver"), [0x12, 0x00, 0x01, 0x86, 0xA0],  // 5, 6: 100000
                dictionary([9], [10]),  // 7: $top, root = $objects[5]
                [0xA6, 11, 12, 13, 14, 15, 16],  // 8: $objects
                ascii("root"), [0x80, 5], ascii("$null"),  // 9–11
                dictionary([17, 18], [19, 20]),  // 12, $objects[1]: the record's class
                dictionary([33, 22], [24, 23]),  // 13, $objects[2]: a = 1 ("a" is object 33)
                dictionary([49, 22], [25, 23]),  // 14, $objects[3]: b = 2 ("b" is object 49)
                dictionary([17, 18], [26, 27]),  // 15, $objects[4]: NSArray's class
                dictionary([22, 28], [29, 30]),  // 16, $objects[5]: the array of both
                // 17–21
                ascii("$classes"), ascii("$classname"), [0xA2, 20, 21], ascii("Pair"), ascii("NSObject"),
                ascii("$class"), [0x80, 1], [0x10, 1], [0x10, 2], [0xA2, 27, 21], ascii("NSArray"),  // 22–27
                ascii("NS.objects"), [0x80, 4], [0xA2, 31, 32], [0x80, 2], [0x80, 3],  // 28–32
                ascii("a"),  // 33
            ] + Array(repeating: ascii("unused"), count: 15) + [ascii("b")]  // 34–48, 49
        let data = BPlist.data(objects, minimumOffsetSize: 2)
        let pairs = try KeyedArchiveDecoder().decode([Pair].self, from: data)
        #expect(pairs == [Pair(a: 1, b: nil), Pair(a: nil, b: 2)])
    }
}
