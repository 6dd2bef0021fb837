import Foundation
import Testing

@testable import KeyedArchive

/// The one-pass reader of iMessage bodies gives what the general reader gives, or leaves
/// the stream to it; it never gives a value where the general reader fails.
@Suite("Typedstream body fast path")
struct TypedStreamBodyReaderTests {
    static func general(_ data: Data) -> ArchivedAttributedString?? {
        do {
            return .some(
                try TypedStreamUnarchiver(forReadingFrom: data).decodeObject(
                    of: ArchivedAttributedString.self))
        } catch {
            return nil
        }
    }

    static func check(_ data: Data, _ label: String) -> Bool {
        guard let fast = TypedStreamBodyReader.attributedString(data, maximumObjectCount: 1 << 24) else {
            return false
        }
        let slow = general(data)
        #expect(slow != nil, "\(label): the fast path read what the general reader refuses")
        #expect(slow == .some(fast), "\(label): the two readers disagree")
        return true
    }

    @Test("every attributed-string fixture, and every cut and flipped byte of them")
    func fixtures() throws {
        var taken = 0
        for name in TypedStreamAttributedStringTests.names {
            let data = try TypedStreamFixtureTests.data(name)
            if Self.check(data, name) { taken += 1 }
            for length in stride(from: 0, to: data.count, by: 7) {
                _ = Self.check(data.prefix(length), "\(name) cut")
            }
            for offset in stride(from: 13, to: data.count, by: 5) {
                var flipped = data
                flipped[offset] ^= 0x21
                _ = Self.check(flipped, "\(name) flipped at \(offset)")
            }
        }
        // Most of Messages' bodies take the fast path.
        #expect(
            taken * 4 >= TypedStreamAttributedStringTests.names.count * 3 || !Fixtures.isAvailable, "\(taken)"
        )
    }

    @Test("written bodies of several shapes")
    func written() throws {
        let url = try #require(URL(string: "https://swift.org"))
        let strings = [
            ArchivedAttributedString("plain"),
            ArchivedAttributedString(
                "a b", runs: [.init(range: 0..<3, attributes: ["n": .integer(-70_000), "r": .real(0.5)])]),
            ArchivedAttributedString(
                "link here",
                runs: [
                    .init(range: 0..<4, attributes: ["l": .url(url), "d": .data(Data([1, 2]))]),
                    .init(range: 4..<9, attributes: [:]),
                ], isMutable: true),
        ]
        for string in strings {
            let data = try TypedStreamArchiver.archivedData(withRootObject: string)
            #expect(Self.check(data, string.string))
            #expect(try IMessageBody(attributedBody: data).attributedString == string)
        }
    }
}
