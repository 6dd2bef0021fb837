import Foundation
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

@Suite("Base64: one encoder for XML lines and JSON strings")
struct PropertyListBase64Tests {
    static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ count) }
    }

    @Test func encodesAsFoundationDoes() {
        for count in 0..<100 {
            let bytes = Self.bytes(count)
            var output: [UInt8] = [0x21]
            bytes.withUnsafeBytes { PropertyListBase64.append($0, to: &output) }
            #expect(output == [0x21] + Array(Data(bytes).base64EncodedString().utf8), "\(count) bytes")
            #expect(PropertyListBase64.encodedLength(of: count) == output.count - 1, "\(count) bytes")
        }
    }

    /// The 6-bytes-at-a-time path (12-bit pairs, one 8-byte store) and the tail after it,
    /// on random bytes of every value, at every alignment of the source.
    @Test func encodesRandomBytesAtAnyOffsetAsFoundationDoes() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<3000 {
            let count = round < 64 ? round : Int.random(in: 0...600, using: &generator)
            let offset = round % 8
            let buffer = (0..<(count + offset)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let bytes = Array(buffer[offset...])
            var output: [UInt8] = []
            buffer.withUnsafeBytes { whole in
                PropertyListBase64.append(UnsafeRawBufferPointer(rebasing: whole[offset...]), to: &output)
            }
            #expect(
                output == Array(Data(bytes).base64EncodedString().utf8),
                "\(count) bytes at offset \(offset): \(bytes)")
        }
    }

    @Test(arguments: [(76, 0), (68, 1), (12, 8)])
    func linesAreIndentedAndWrapped(charactersPerLine: Int, indentation: Int) {
        for count in [0, 1, 2, 3, 56, 57, 58, 200] {
            let bytes = Self.bytes(count)
            let length = PropertyListBase64.linesLength(
                of: count, charactersPerLine: charactersPerLine, indentation: indentation)
            var output = [UInt8](repeating: 0, count: length)
            let written = bytes.withUnsafeBytes { source in
                output.withUnsafeMutableBufferPointer { destination in
                    guard let start = destination.baseAddress else { return 0 }
                    return PropertyListBase64.writeLines(
                        of: source, charactersPerLine: charactersPerLine, indentation: indentation, to: start)
                }
            }
            #expect(written == length, "\(count) bytes")
            let text = String(decoding: output, as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let tabs = String(repeating: "\t", count: indentation)
            #expect(lines.allSatisfy { $0.hasPrefix(tabs) && $0.count - indentation <= charactersPerLine })
            #expect(lines.dropLast().allSatisfy { $0.count - indentation == charactersPerLine })
            #expect(lines.map { $0.dropFirst(indentation) }.joined() == Data(bytes).base64EncodedString())
        }
    }

    /// The decoder's outcome, comparable: the bytes, or the failure with its offset.
    enum Outcome: Equatable {
        case bytes([UInt8])
        case invalidByte(Int)
        case misplacedPadding(Int)
        case truncated
    }

    /// A plain byte-at-a-time decoder with the same rules, to check the fast one against.
    static func referenceDecode(_ text: [UInt8]) -> Outcome {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        var accumulator: UInt32 = 0
        var pending = 0
        var padding = 0
        for (index, byte) in text.enumerated() {
            if let value = alphabet.firstIndex(of: byte) {
                guard padding == 0 else { return .misplacedPadding(index) }
                accumulator = accumulator << 6 | UInt32(value)
                pending += 1
                if pending == 4 {
                    output += [
                        UInt8(accumulator >> 16 & 0xFF), UInt8(accumulator >> 8 & 0xFF),
                        UInt8(accumulator & 0xFF),
                    ]
                    accumulator = 0
                    pending = 0
                }
            } else if byte == UInt8(ascii: "=") {
                padding += 1
                guard pending >= 2, pending + padding <= 4 else { return .misplacedPadding(index) }
            } else if ![0x20, 0x0A, 0x09, 0x0D].contains(byte) {
                return .invalidByte(index)
            }
        }
        switch pending {
        case 0: break
        case 2: output.append(UInt8(accumulator >> 4 & 0xFF))
        case 3: output += [UInt8(accumulator >> 10 & 0xFF), UInt8(accumulator >> 2 & 0xFF)]
        default: return .truncated
        }
        return .bytes(output)
    }

    static func decode(_ text: [UInt8], padded: Int = 0) -> Outcome {
        // Surrounded by bytes outside the range, which the decoder must not read.
        let buffer = [UInt8](repeating: UInt8(ascii: "!"), count: padded) + text + [UInt8(ascii: "!")]
        return buffer.withUnsafeBufferPointer { pointer in
            do throws(PropertyListBase64.DecodeFailure) {
                return .bytes(Array(try PropertyListBase64.decode(pointer, padded..<(padded + text.count))))
            } catch {
                switch error {
                case .invalidByte(let offset): return .invalidByte(offset - padded)
                case .misplacedPadding(let offset): return .misplacedPadding(offset - padded)
                case .truncated: return .truncated
                }
            }
        }
    }

    @Test func decodesWhatFoundationEncodes() {
        for count in 0..<200 {
            let bytes = Self.bytes(count)
            let text = Array(Data(bytes).base64EncodedString(options: [.lineLength64Characters]).utf8)
            #expect(Self.decode(text, padded: count % 3) == .bytes(bytes), "\(count) bytes")
            #expect(
                Self.decode(text.filter { $0 != UInt8(ascii: "=") }) == .bytes(bytes),
                "\(count) bytes, unpadded")
        }
    }

    /// The fast four-character path against the reference, on random text made mostly of the
    /// alphabet with whitespace, padding and stray bytes sprinkled in (a fixed-seed generator,
    /// so a failure repeats).
    @Test func fastPathMatchesTheReferenceOnRandomText() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let others: [UInt8] = [0x20, 0x0A, 0x09, 0x0D, 0x3D, 0x3D, 0x00, 0x2D, 0x5F, 0x80, 0xFF, 0x3C]
        var failures = 0
        var errors = 0
        for round in 0..<4000 {
            let length = Int(next() % 90)
            // Rare strays in most rounds, so that long valid texts are common too.
            let strayRate = round % 4 == 0 ? 4 : 60
            let text = (0..<length).map { _ -> UInt8 in
                next() % UInt64(strayRate) == 0
                    ? others[Int(next() % UInt64(others.count))] : alphabet[Int(next() % 64)]
            }
            let expected = Self.referenceDecode(text)
            if case .bytes = expected {} else { errors += 1 }
            if Self.decode(text, padded: round % 5) != expected {
                failures += 1
                if failures <= 5 { Issue.record("\(String(decoding: text, as: UTF8.self).debugDescription)") }
            }
        }
        #expect(failures == 0)
        // Both kinds of text were tried.
        #expect(errors > 200 && errors < 3800)
    }
}
