import Foundation
import Testing

@testable import KeyedArchive
@testable import KeyedArchiveSupport
@testable import PropertyListFormats

@Suite("Keys told apart by their bytes: the normalization-stable scalars and the ASCII flag")
struct NormalizationStableTextTests {
    /// Every scalar value the stable set holds (surrogates are not scalars).
    static let stableScalars: [Unicode.Scalar] = (0..<0x11_0000).compactMap { value in
        guard NormalizationStableText.isStable(UInt32(value)) else { return nil }
        return Unicode.Scalar(UInt32(value))
    }

    /// Each stable scalar is in NFC on its own and its canonical decomposition, where it has
    /// one, holds a scalar outside the set (so a decomposed spelling is never stable), and it
    /// neither composes with nor reorders around a stable scalar before it. Foundation's
    /// normalization is the reference.
    @Test func everyStableScalarIsInNormalFormC() {
        let before: [String] = ["a", "e", "A", "ω", "и", "か", "カ", "가", "中", "😀", " "]
        var failures: [String] = []
        for scalar in Self.stableScalars {
            let text = String(Character(scalar))
            if text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(text.unicodeScalars)
                == false
            {
                failures.append("U+\(String(scalar.value, radix: 16)) is not NFC")
            }
            let decomposed = text.decomposedStringWithCanonicalMapping
            if !decomposed.unicodeScalars.elementsEqual(text.unicodeScalars),
                NormalizationStableText.kind(of: decomposed) != .other
            {
                failures.append("U+\(String(scalar.value, radix: 16)) decomposes into stable scalars")
            }
            // Canonical combining class 0 (for a scalar without a decomposition; the
            // composed ones are starters): a mark of class 1 after it stays after it.
            let marked = (text + "\u{0334}").decomposedStringWithCanonicalMapping.unicodeScalars
            if decomposed.unicodeScalars.count == 1, marked.last != "\u{0334}" {
                failures.append("U+\(String(scalar.value, radix: 16)) has a class")
            }
            for first in before {
                let pair = first + text
                if !pair.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(
                    pair.unicodeScalars)
                {
                    failures.append("\(first) + U+\(String(scalar.value, radix: 16)) composes")
                }
            }
            if failures.count > 10 { break }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(Self.stableScalars.count > 30_000)
    }

    @Test func kindsOfText() {
        #expect(NormalizationStableText.kind(of: "") == .ascii)
        #expect(NormalizationStableText.kind(of: "CFBundleIdentifier-0123456789") == .ascii)
        #expect(NormalizationStableText.kind(of: "größe") == .stable)
        #expect(NormalizationStableText.kind(of: "説明 🎉 Ωμέγα Жизнь") == .stable)
        #expect(NormalizationStableText.kind(of: "caf\u{E9}") == .stable)
        #expect(NormalizationStableText.kind(of: "cafe\u{301}") == .other)
        #expect(NormalizationStableText.kind(of: "\u{212B}") == .other)  // Ångström sign, a singleton
        #expect(NormalizationStableText.kind(of: "\u{1100}\u{1161}") == .other)  // conjoining jamo
    }

    /// Distinctness by bytes agrees with `String`'s `==` on stable keys, and leaves keys
    /// that are not stable (equal under canonical equivalence, different bytes) to `==`.
    @Test func distinctKeysAgreeWithStringEquality() throws {
        try #require(KnownASCII.isAvailable)
        let cases: [[String]] = [
            ["größe", "name", "説明"], ["größe", "name", "größe"], ["説明", "説明書"], ["Ж", "ж"],
            ["caf\u{E9}", "cafe\u{301}"], ["caf\u{E9}", "x", "caf\u{E9}"], ["😀", "😁", "😀"],
        ]
        for keys in cases {
            var expected = true
            for index in keys.indices {
                for earlier in 0..<index where keys[earlier] == keys[index] { expected = false }
            }
            let decided = NormalizationStableText.areDistinct(keys)
            #expect(decided == nil || decided == expected, "\(keys)")
            // A dictionary read with these keys keeps the first position of a repeated key.
            let dictionary = PropertyListDictionary(
                readKeys: keys, values: keys.indices.map { PropertyList(integerLiteral: Int64($0)) })
            #expect(dictionary.count == Set(keys).count, "\(keys)")
        }
        // Canonically equivalent spellings are one key, as `String` says.
        #expect(NormalizationStableText.areDistinct(["caf\u{E9}", "cafe\u{301}"]) == nil)
        let read = PropertyListDictionary(readKeys: ["caf\u{E9}", "cafe\u{301}"], values: [1, 2])
        #expect(read.count == 1 && read["caf\u{E9}"] == 2)
    }

    /// The ASCII flag read from the string's layout agrees with its bytes, on strings the
    /// standard library builds in every way a reader builds them.
    @Test func asciiFlagAgreesWithTheBytes() throws {
        try #require(KnownASCII.isAvailable)
        var samples: [String] = ["", "a", "abcdefghijklmno", "abcdefghijklmnop", "é", "説明"]
        for length in [1, 7, 8, 15, 16, 40, 200] {
            let ascii = String(repeating: "k", count: length)
            samples += [ascii, ascii + "é", "é" + ascii, String(decoding: Array(ascii.utf8), as: UTF8.self)]
            samples.append(
                String(unsafeUninitializedCapacity: length) {
                    _ = $0.initialize(from: ascii.utf8); return length
                })
            samples.append(String(decoding: Array((ascii + "ß").utf16), as: UTF16.self))
        }
        for sample in samples {
            #expect(
                KnownASCII.flag(sample) == sample.utf8.allSatisfy { $0 < 0x80 }, "\(sample.debugDescription)")
        }
    }

    /// The two words of a small ASCII string decide its equality: on strings built every
    /// way a reader builds them (from bytes, from a prefix, in place, from UTF-16, by
    /// `SmallText`), `smallWords` is given for ASCII strings of at most 15 bytes only, and
    /// two strings with words are equal exactly when their words are; and reading keys
    /// with such words finds repeats as `==` does.
    @Test func smallWordsDecideEqualityOfShortASCIIStrings() throws {
        try #require(KnownASCII.isAvailable)
        var samples: [String] = ["", "é", "説明"]
        for text in [
            "a", "b", "ab", "ba", "key7", "key70", "abcdefgh", "abcdefghi", "abcdefghijklmno",
            "abcdefghijklmnop",
        ] {
            let bytes = Array(text.utf8)
            samples.append(String(decoding: bytes, as: UTF8.self))
            samples.append(
                String(
                    String(decoding: bytes + Array("-tail-of-a-large-string".utf8), as: UTF8.self).prefix(
                        text.count)))
            samples.append(
                String(unsafeUninitializedCapacity: bytes.count) {
                    _ = $0.initialize(from: bytes); return bytes.count
                })
            samples.append(String(decoding: Array(text.utf16), as: UTF16.self))
            if SmallText.isAvailable,
                let small = bytes.withUnsafeBufferPointer({ SmallText.string($0, from: 0, to: $0.count) })
            {
                samples.append(small)
            }
        }
        for sample in samples where KnownASCII.smallWords(sample) != nil {
            #expect(
                sample.utf8.count <= 15 && sample.utf8.allSatisfy { $0 < 0x80 }, "\(sample.debugDescription)")
        }
        // The short ASCII ones built here are small strings (the fast path is taken).
        let short = samples.filter { $0.utf8.count <= 15 && $0.utf8.allSatisfy { $0 < 0x80 } }
        #expect(short.count >= 36)
        #expect(short.allSatisfy { KnownASCII.smallWords($0) != nil })
        for first in samples {
            for second in samples {
                guard let a = KnownASCII.smallWords(first), let b = KnownASCII.smallWords(second) else {
                    continue
                }
                #expect((a == b) == (first == second), "\(first.debugDescription) \(second.debugDescription)")
            }
        }
        // A dictionary read from these keys holds each distinct one once.
        let read = PropertyListDictionary(
            readKeys: samples, values: samples.indices.map { PropertyList(integerLiteral: Int64($0)) })
        #expect(read.count == Set(samples).count)
    }

    /// Past eight entries the position table hashes stable keys by their bytes; a key that
    /// is canonically equal but spelled otherwise (decomposed) still finds its entry, and a
    /// key that is not stable, inserted later, moves the table to `String`'s own hash.
    @Test func positionTableFindsStableKeysUnderEverySpelling() {
        let composed = ["caf\u{E9}", "größe", "説明", "Ωμέγα", "Жизнь", "😀", "カタカナ", "한국어", "naïve", "über"]
        let keys = composed + (0..<10).map { "key\($0)" }
        let read = PropertyListDictionary(
            readKeys: keys, values: keys.indices.map { PropertyList(integerLiteral: Int64($0)) })
        #expect(read.count == keys.count)
        for (index, key) in keys.enumerated() {
            #expect(read[key] == PropertyList(integerLiteral: Int64(index)), "\(key)")
            let decomposed = key.decomposedStringWithCanonicalMapping
            #expect(
                read[decomposed] == PropertyList(integerLiteral: Int64(index)),
                "\(decomposed.debugDescription)")
        }
        // A repeated key, spelled decomposed, is found as the same key.
        let repeated = PropertyListDictionary(
            readKeys: keys + ["cafe\u{301}"],
            values: (0...keys.count).map { PropertyList(integerLiteral: Int64($0)) })
        #expect(repeated.count == keys.count)
        #expect(repeated["caf\u{E9}"] == PropertyList(integerLiteral: Int64(keys.count)))
        // Inserting keys one by one, a decomposed one last.
        var built = PropertyListDictionary()
        for (index, key) in keys.enumerated() { built[key] = PropertyList(integerLiteral: Int64(index)) }
        built["u\u{308}ber"] = 99
        #expect(built.count == keys.count)
        #expect(built["über"] == 99)
        built["\u{212B}ngström"] = 7  // not stable: the table hashes as `String` from here on
        #expect(built["Ångström"] == 7 && built.count == keys.count + 1)
        for key in composed where key != "über" { #expect(built[key] != nil, "\(key)") }
    }

    /// Past eight entries, a short ASCII key is found however it is stored: a small string
    /// (hashed from its two words) or a short string in allocated storage (hashed from its
    /// bytes), as key and as the string looked up.
    @Test func positionTableFindsShortKeysStoredEitherWay() {
        func allocated(_ text: String) -> String {
            let bytes = Array(text.utf8)
            return String(unsafeUninitializedCapacity: 40) { buffer in
                _ = buffer.initialize(from: bytes)
                return bytes.count
            }
        }
        let texts =
            (0..<12).map { "key\($0)" } + ["", "a", "abcdefgh", "abcdefghijklmno", "abcdefghijklmnop"]
        for (readAllocated, lookUpAllocated) in [(false, true), (true, false), (true, true)] {
            let keys = texts.map {
                readAllocated ? allocated($0) : String(decoding: Array($0.utf8), as: UTF8.self)
            }
            let read = PropertyListDictionary(
                readKeys: keys, values: keys.indices.map { PropertyList(integerLiteral: Int64($0)) })
            var inserted = PropertyListDictionary()
            for (index, key) in keys.enumerated() {
                inserted[key] = PropertyList(integerLiteral: Int64(index))
            }
            for (index, text) in texts.enumerated() {
                let key =
                    lookUpAllocated ? allocated(text) : String(decoding: Array(text.utf8), as: UTF8.self)
                #expect(read[key] == PropertyList(integerLiteral: Int64(index)), "\(text)")
                #expect(inserted[key] == PropertyList(integerLiteral: Int64(index)), "\(text)")
            }
            #expect(read["key12"] == nil && inserted["abcdefghijklmn"] == nil)
        }
    }
}
