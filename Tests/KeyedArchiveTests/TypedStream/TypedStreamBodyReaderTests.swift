import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import TypedStreamFormat

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

extension TypedStreamBodyReaderTests {
    @Test("URLs nested in URLs do not make the one-pass reader recurse")
    func nestedURLs() throws {
        // An attributed string whose one run's attribute is an NSURL whose string is an
        // NSURL whose string is …, 20,000 deep: the fast path declines, the general reader
        // stops at its depth limit.
        var bytes = TypedStreamHostileTests.header + [0x84, 0x01, UInt8(ascii: "@"), 0x84, 0x84, 0x84, 0x12]
        bytes +=
            Array("NSAttributedString".utf8) + [0x00, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [
                0x00, 0x85,
            ]
        // "@" the text: NSString v1 (< NSObject, class #2), "+" "a".
        bytes += [0x92, 0x84, 0x84, 0x84, 0x08] + Array("NSString".utf8) + [0x01, 0x94]
        bytes += [0x84, 0x01, UInt8(ascii: "+"), 0x01, UInt8(ascii: "a"), 0x86]
        // "iI" 1 1, then "@" an NSDictionary with one entry whose value is the URL chain.
        bytes += [0x84, 0x02, UInt8(ascii: "i"), UInt8(ascii: "I"), 0x01, 0x01, 0x92]
        bytes += [0x84, 0x84, 0x84, 0x0c] + Array("NSDictionary".utf8) + [0x00, 0x94]
        bytes += [0x84, 0x01, UInt8(ascii: "i"), 0x01]
        bytes += [0x92, 0x84, 0x96, 0x97, 0x01, UInt8(ascii: "k"), 0x86]  // key "k"
        bytes += [0x92, 0x84, 0x84, 0x84, 0x05] + Array("NSURL".utf8) + [0x00, 0x94]
        bytes += [0x84, 0x01, UInt8(ascii: "c"), 0x00]
        // Each level: "@", a new NSURL (class #9), "c" (shared string 9) 0, and its string…
        for _ in 0..<20_000 { bytes += [0x92, 0x84, 0x9b, 0x9b, 0x00] }
        let data = Data(bytes)
        #expect(TypedStreamBodyReader.attributedString(data, maximumObjectCount: 1 << 24) == nil)
        do {
            _ = try IMessageBody(attributedBody: data)
            Issue.record("no error")
        } catch let error as KeyedArchiveError {
            #expect(error.code == .limitExceeded, "\(error)")
        }
    }
}
