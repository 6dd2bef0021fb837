import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import KeyedArchiveSupport
@testable import PropertyListFormats

@Suite("UTF-8 text rules shared by the XML and OpenStep readers")
struct UTF8TextTests {
    @Test func validationAgreesWithTheStandardLibrary() {
        var random = SeededGenerator(seed: 0xC0FFEE)
        func next() -> UInt64 { random.next() >> 33 }
        let interesting: [UInt8] = [
            0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xA0, 0xED, 0x9F, 0xEF, 0xF0, 0x90, 0xF4, 0x8F,
            0xF5, 0xFF,
        ]
        var wrong: [[UInt8]] = []
        for length in 0..<48 {
            for _ in 0..<200 {
                let bytes = (0..<length).map { _ in interesting[Int(next() % UInt64(interesting.count))] }
                let invalid = bytes.withUnsafeBufferPointer { UTF8Text.firstInvalid(in: $0, from: 0) }
                let valid = String(validating: bytes, as: UTF8.self) != nil
                if (invalid == nil) != valid { wrong.append(bytes) }
                if let invalid, String(validating: bytes[..<invalid], as: UTF8.self) == nil {
                    wrong.append(bytes)
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(3))")
    }

    /// Long valid text (ASCII runs between 2-, 3- and 4-byte characters, so that word checks
    /// and the scalar-by-scalar stretches alternate) with one byte broken at a random place:
    /// the first invalid offset is the standard library's.
    @Test func mixedTextWithOneBrokenByte() {
        var random = SeededGenerator(seed: 0xBADC0DE)
        func next(_ bound: Int) -> Int { Int(random.next() >> 33) % bound }
        let pieces = [
            "a", "key = value; ", "0123456789abcdefghijklmnopqrstuv", "é", "説明", "😀", "Жизнь", "\n",
        ]
        var wrong: [[UInt8]] = []
        for _ in 0..<3000 {
            var bytes = Array((0..<(1 + next(30))).map { _ in pieces[next(pieces.count)] }.joined().utf8)
            if next(4) != 0 {
                bytes[next(bytes.count)] = [0x80, 0xC0, 0xFF, 0xE0, 0xED, 0xF4, 0x41][next(7)]
            }
            let invalid = bytes.withUnsafeBufferPointer { UTF8Text.firstInvalid(in: $0, from: 0) }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            if (invalid == nil) != valid { wrong.append(bytes) }
            if let invalid {
                // Valid up to the offset, and no sequence starting there ends well.
                if String(validating: bytes[..<invalid], as: UTF8.self) == nil { wrong.append(bytes) }
                let longest = (invalid + 1...Swift.min(bytes.count, invalid + 4)).contains {
                    String(validating: bytes[..<$0], as: UTF8.self) != nil
                }
                if longest { wrong.append(bytes) }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(3))")
    }

    /// Validation from any offset (the XML and JSON readers start past what they have read):
    /// the first invalid sequence at or after it, as the standard library finds it in the rest.
    @Test func validationFromAnyStart() {
        var random = SeededGenerator(seed: 0x57A127)
        func next(_ bound: Int) -> Int { Int(random.next() >> 33) % bound }
        let pieces = ["abc", "0123456789abcdefghijklmnopqrstuvwxyz", "é", "説明", "😀", "Жи", " ", "\u{7F}"]
        var wrong: [[UInt8]] = []
        for _ in 0..<3000 {
            var bytes = Array((0..<(1 + next(20))).map { _ in pieces[next(pieces.count)] }.joined().utf8)
            if next(3) != 0 { bytes[next(bytes.count)] = [0x80, 0xC1, 0xF5, 0xE0, 0xED][next(5)] }
            // Starts on character boundaries only, as the readers' starts are.
            let starts = (0...bytes.count).filter { $0 == bytes.count || bytes[$0] & 0xC0 != 0x80 }
            let start = starts[next(starts.count)]
            let found = bytes.withUnsafeBufferPointer { UTF8Text.firstInvalid(in: $0, from: start) }
            let rest = Array(bytes[start...])
            let expected = rest.withUnsafeBufferPointer { UTF8Text.firstInvalid(in: $0, from: 0) }.map {
                $0 + start
            }
            if found != expected { wrong.append(bytes) }
            if (found == nil) != (String(validating: rest, as: UTF8.self) != nil) { wrong.append(bytes) }
            // Well-formed up to what it found, by the standard library's reading too.
            if let found, String(validating: bytes[start..<found], as: UTF8.self) == nil {
                wrong.append(bytes)
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(3))")
    }

    /// Strings built from ranges of validated text without validating again: equal to the
    /// standard library's, ASCII-flagged exactly when ASCII, and built by the checked path
    /// (same text, no crash) when a range cuts a character.
    @Test func wellFormedTextBuildsTheStringsTheStandardLibraryBuilds() throws {
        var random = SeededGenerator(seed: 0x5EED_0008)
        let pieces = ["a", "Z", " ", "\"", "é", "ß", "Ж", "λ", "説", "明", "😀", "👍🏽", "e\u{301}", "\u{0}"]
        for _ in 0..<2000 {
            let length = Int(random.next() % 40)
            let text = (0..<length).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buffer in
                let wellFormed = try #require(WellFormedUTF8(validating: buffer))
                for _ in 0..<8 {
                    let first = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count + 1))
                    let second = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count + 1))
                    let (start, end) = (min(first, second), max(first, second))
                    let range = UnsafeBufferPointer(rebasing: buffer[start..<end])
                    let built = wellFormed.string(from: start, to: end)
                    #expect(built == String(decoding: range, as: UTF8.self), "\(bytes[start..<end])")
                    #expect(Array(built.utf8) == Array(String(decoding: range, as: UTF8.self).utf8))
                    if KnownASCII.isAvailable {
                        #expect(
                            KnownASCII.flag(built) == range.allSatisfy { $0 < 0x80 }, "\(bytes[start..<end])")
                    }
                }
            }
        }
        let broken: [UInt8] = [0x61, 0xFF, 0x62]
        broken.withUnsafeBufferPointer { #expect(WellFormedUTF8(validating: $0) == nil) }
    }

    /// ASCII bytes of every length to 80 make, without the standard library's validation,
    /// the string it makes of them, flagged ASCII; a buffer with any byte above 0x7F,
    /// wherever it is, is refused.
    @Test func asciiBytesBuildTheStringsTheStandardLibraryBuilds() throws {
        var random = SeededGenerator(seed: 80)
        for count in 0...80 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...0x7F, using: &random) }
            let text = try #require(bytes.withUnsafeBufferPointer { WellFormedUTF8.string(ifASCII: $0) })
            let expected = String(decoding: bytes, as: UTF8.self)
            #expect(text == expected && Array(text.utf8) == bytes, "\(count) bytes")
            if KnownASCII.isAvailable { #expect(KnownASCII.flag(text)) }
            guard count > 0 else { continue }
            var broken = bytes
            broken[Int.random(in: 0..<count, using: &random)] |= 0x80
            #expect(broken.withUnsafeBufferPointer { WellFormedUTF8.string(ifASCII: $0) } == nil)
        }
    }

    @Test func locationsCountLinesAndScalars() {
        let text = Array("a\r\nb\rcé\nd".utf8)
        let expected: [(Int, Int, Int)] = [
            (0, 1, 1), (1, 1, 2), (3, 2, 1), (5, 3, 1), (6, 3, 2), (8, 3, 3), (9, 4, 1),
        ]
        text.withUnsafeBufferPointer { bytes in
            for (offset, line, column) in expected {
                #expect(
                    UTF8Text.location(of: offset, in: bytes) == .text(line: line, column: column),
                    "offset \(offset)")
            }
        }
    }

    @Test func bothReadersReportTheSamePlaceForBadUTF8() {
        let xml = #expect(throws: KeyedArchiveError.self) {
            try PropertyList(
                from: Data(
                    "<plist>\n<string>é\u{FFFD}".utf8.dropLast(3) + [0xC0, 0x80]
                        + Array("</string></plist>".utf8)), format: .xml)
        }
        let openStep = #expect(throws: KeyedArchiveError.self) {
            try PropertyList(from: Data("(\n\"é".utf8 + [0xC0, 0x80] + Array("\")".utf8)), format: .openStep)
        }
        #expect(xml?.location == .text(line: 2, column: 10), "\(String(describing: xml))")
        #expect(openStep?.location == .text(line: 2, column: 3), "\(String(describing: openStep))")
    }
}
