import Foundation
import TestSupport
import Testing

@testable import PropertyListFormats

/// The writers' key order (``KeyOrder``): 16-byte prefixes compared as two words, keys with
/// equal prefixes compared in full, checked against the general order (Unicode scalar
/// values) on keys chosen to make prefixes tie, differ in their last byte, hold NUL or
/// non-ASCII, and on random sets of every size around the insertion-sort limit.
@Suite("Key order")
struct KeyOrderTests {
    /// The general path: Unicode scalar order, as `sortedByKey` sorts.
    static func generalOrder(_ keys: [String]) -> [String] {
        keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
    }

    static func fastOrder(_ keys: [String]) -> [String] {
        let order = KeyOrder.sortedPositions(keys)
        return order.isEmpty ? keys : order.map { keys[$0] }
    }

    static let alphabet: [String] = [
        "a", "b", "z", "A", "Z", "0", "_", "\u{0}", "\u{7F}", "é", "ß", "説", "明", "Ω", "ж", "😀", "🐞",
        "\u{FFFD}", "\u{E000}", "\u{10FFFF}", "&", "<",
    ]

    static func randomKey(_ generator: inout SeededGenerator) -> String {
        // A shared stem of 0, 8, 15, 16 or 17 bytes, then a few random characters: prefixes
        // tie, or differ exactly at a word's edge.
        let stems = ["", "CFBundle", "CFBundleIdentif", "CFBundleIdentifi", "CFBundleIdentifie"]
        var key = stems[Int.random(in: 0..<stems.count, using: &generator)]
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            key += alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
        }
        return key
    }

    @Test func randomKeySetsSortAsTheGeneralOrder() {
        var generator = SeededGenerator(seed: 31)
        for size in [0, 1, 2, 3, 8, 15, 16, 17, 40, 200] {
            for round in 0..<40 {
                var keys: [String] = []
                var seen = Set<String>()
                while keys.count < size {
                    let key = Self.randomKey(&generator)
                    if seen.insert(key).inserted { keys.append(key) }
                }
                #expect(Self.fastOrder(keys) == Self.generalOrder(keys), "size \(size), round \(round)")
                let sorted = Self.generalOrder(keys)
                #expect(KeyOrder.sortedPositions(sorted).isEmpty, "sorted keys need no order")
            }
        }
    }

    @Test func prefixesOrderAsTheirBytes() {
        let keys = [
            "ab", "ab\u{0}", "ab\u{1}", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq",
            "abcdefghijklmnoq", "\u{7F}", "é", "説明",
        ]
        for first in keys {
            for second in keys {
                let a = KeyOrder.prefix(first)
                let b = KeyOrder.prefix(second)
                if a < b {
                    #expect(
                        first.unicodeScalars.lexicographicallyPrecedes(second.unicodeScalars),
                        "\(first) \(second)")
                }
                #expect(
                    KeyOrder.precedes(first, second)
                        == first.unicodeScalars.lexicographicallyPrecedes(second.unicodeScalars))
            }
        }
    }

    @Test func bridgedAndSharedStringsSortToo() {
        // Substring-made and multi-byte keys go through the same path.
        let keys = ["größe", "説明", "Zürich", "größer", "a"].map { String($0[...]) }
        #expect(Self.fastOrder(keys) == Self.generalOrder(keys))
    }

    @Test func writtenKeysFollowTheOrder() throws {
        var generator = SeededGenerator(seed: 7)
        var dictionary = PropertyListDictionary()
        while dictionary.count < 30 {
            // XML has no NUL.
            let key = Self.randomKey(&generator)
            if !key.contains("\u{0}") { dictionary[key] = .bool(true) }
        }
        let expected = Self.generalOrder(dictionary.keys)
        for format in [PropertyListFormat.binary, .xml] {
            let data = try PropertyList.dictionary(dictionary).data(format: format)
            let read = try #require(try PropertyList(from: data).dictionaryValue)
            #expect(read.keys == expected, "\(format)")
        }
    }
}
