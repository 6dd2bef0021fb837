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
}
