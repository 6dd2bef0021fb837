import Foundation
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

@Suite("Binary property list: count headers")
struct BinaryPropertyListCountHeaderTests {
    static func written(_ marker: UInt8, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        BinaryPropertyListCountHeader.write(marker, count: count) { value, width in
            for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        return bytes
    }

    static func read(_ bytes: [UInt8]) throws(BinaryPropertyListCountHeader.Failure) -> (
        count: Int, payload: Int
    ) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(BinaryPropertyListCountHeader.Failure) in
                try BinaryPropertyListCountHeader.read(bytes[0], at: 0, in: buffer, end: buffer.count)
            }
        }.get()
    }

    static let spelled: [(count: Int, bytes: [UInt8])] = [
        (0, [0x50]), (14, [0x5E]), (15, [0x5F, 0x10, 15]), (255, [0x5F, 0x10, 0xFF]),
        (256, [0x5F, 0x11, 0x01, 0x00]), (65_535, [0x5F, 0x11, 0xFF, 0xFF]),
        (65_536, [0x5F, 0x12, 0x00, 0x01, 0x00, 0x00]),
        (Int(UInt32.max), [0x5F, 0x12, 0xFF, 0xFF, 0xFF, 0xFF]),
        (1 << 32, [0x5F, 0x13, 0, 0, 0, 1, 0, 0, 0, 0]),
        (Int.max, [0x5F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    ]

    @Test func writesTheNibbleBelowFifteenThenAnIntegerOfTheSmallestWidth() throws {
        for (count, bytes) in Self.spelled {
            #expect(Self.written(0x50, count: count) == bytes, "count \(count)")
            #expect(BinaryPropertyListCountHeader.length(count: count) == bytes.count, "count \(count)")
            let (read, payload) = try Self.read(bytes + [0xAA])
            #expect(read == count, "count \(count)")
            #expect(payload == bytes.count, "count \(count)")
        }
    }

    @Test func readingRefusesWhatIsNotACount() {
        let cases: [(bytes: [UInt8], failure: BinaryPropertyListCountHeader.Failure)] = [
            ([0x4F], .missing),
            ([0x4F, 0x23, 0, 0], .notAnInteger(marker: 0x23, position: 1)),
            ([0x4F, 0x14, 0, 0], .notAnInteger(marker: 0x14, position: 1)),
            ([0x4F, 0x11, 0], .truncated(position: 1)),
            ([0x4F, 0x13, 0x80, 0, 0, 0, 0, 0, 0, 0], .tooLarge(1 << 63, position: 1)),
        ]
        for (bytes, failure) in cases {
            #expect(throws: failure, "\(bytes)") { try Self.read(bytes) }
        }
    }

    /// The builder (which shares equal scalars) and the stream (one pass) both write strings,
    /// data and containers with counts of every width that the scanner reads back, and the
    /// stream reads its own strings back for messages.
    @Test(arguments: [0, 14, 15, 255, 256, 70_000])
    func builderAndStreamWriteCountsOfEveryWidth(count: Int) throws {
        let text = String(repeating: "a", count: count)
        let wide = String(repeating: "é", count: count)
        let data = Data(repeating: 7, count: count)

        var builder = BinaryPropertyListBuilder()
        let builtElements = [builder.addString(text), builder.addString(wide), builder.addData(data)]
        let builtArray = builder.addArray(Array(repeating: builtElements[0], count: count))
        let builtRoot = builder.addArray(builtElements + [builtArray])
        let built = try builder.finish(topObject: builtRoot)

        let stream = BinaryPropertyListStream(expectedBytes: 0, expectedObjects: 0, sharedUIDLimit: 0)
        var elements: [UInt32] = []
        for value in [text, wide] {
            var utf8 = Array(value.utf8)
            elements.append(
                UInt32(
                    utf8.withUnsafeMutableBufferPointer { stream.addString(utf8: UnsafeBufferPointer($0)) }))
        }
        elements.append(UInt32(stream.addData(data)))
        let repeated = [UInt32](repeating: elements[0], count: count)
        elements.append(UInt32(repeated.withUnsafeBufferPointer { stream.addArray($0) }))
        let root = elements.withUnsafeBufferPointer { stream.addArray($0) }
        #expect(stream.stringValue(of: 0) == text)
        #expect(stream.stringValue(of: 1) == wide)
        let streamed = try stream.finish(topObject: root)

        let expected: PropertyList = [
            .string(text), .string(wide), .data(data), .array(Array(repeating: .string(text), count: count)),
        ]
        #expect(try PropertyList(from: built) == expected)
        #expect(try PropertyList(from: streamed) == expected)
    }
}
