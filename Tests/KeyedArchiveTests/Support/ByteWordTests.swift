import Testing

@testable import KeyedArchiveSupport

/// The word-at-a-time byte tests the text readers and writers share, each against the
/// byte-by-byte answer.
@Suite("Word-at-a-time byte tests")
struct ByteWordTests {
    private static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    /// The first occurrence from every start, the byte at every offset or absent, in inputs
    /// of every length to 40 (whole words and a tail). The bytes around it include the one
    /// that differs from it in the lowest bit, which a borrow can also flag.
    @Test(arguments: [UInt8(ascii: "<"), UInt8(ascii: ">"), 0x00, 0x01, 0x80, 0xFF])
    func firstOffsetFromEveryStart(target: UInt8) {
        let fillers: [UInt8] = [0x30, target ^ 0x01, 0xBE, 0x3F, 0x00, 0x7E, target &+ 1].filter {
            $0 != target
        }
        for count in 0...40 {
            for at in 0...count {
                var bytes = (0..<count).map { fillers[$0 % fillers.count] }
                if at < count { bytes[at] = target }
                for start in 0...count {
                    let found = bytes.withUnsafeBufferPointer {
                        ByteWord.firstOffset(of: target, in: $0, from: start)
                    }
                    let expected = bytes[start...].firstIndex(of: target) ?? count
                    #expect(found == expected, "count \(count), byte \(target) at \(at), from \(start)")
                }
            }
        }
        #expect(ByteWord.firstOffset(of: target, in: UnsafeBufferPointer(start: nil, count: 0), from: 0) == 0)
    }

    /// The lowest flag is the first zero byte, for words of every mix of zero, one, and
    /// other bytes in every lane (a zero byte's borrow may flag a one above it, never below).
    @Test func firstZeroByteFlagsLowestIsExact() {
        let values: [UInt8] = [0x00, 0x01, 0x80, 0xFF]
        var lanes = [Int](repeating: 0, count: 8)
        // Every combination of the four values in the eight lanes: 65,536 words.
        for combination in 0..<(1 << 16) {
            for lane in 0..<8 { lanes[lane] = combination >> (2 * lane) & 3 }
            let bytes = lanes.map { values[$0] }
            let flags = ByteWord.firstZeroByteFlags(Self.word(bytes))
            let expected = bytes.firstIndex(of: 0) ?? 8
            #expect(ByteWord.firstOffset(of: flags) == expected, "\(bytes)")
            #expect(flags & ~ByteWord.highBits == 0, "\(bytes)")
            if flags == 0 { #expect(expected == 8) }
        }
    }

    /// Range flags exactly for every 7-bit value in every lane, for ranges of one value,
    /// of the ends of the 7-bit range and in the middle.
    @Test func rangeFlagsAreExactInEveryLane() {
        let ranges: [(UInt8, UInt8)] = [
            (0x30, 0x39), (0x61, 0x66), (0x00, 0x00), (0x7F, 0x7F), (0x00, 0x7F), (0x24, 0x24),
        ]
        for (first, last) in ranges {
            for filler in [0x00, 0x30, 0x3A, 0x7F] as [UInt8] {
                for lane in 0..<8 {
                    for value in 0..<128 {
                        var bytes = [UInt8](repeating: filler, count: 8)
                        bytes[lane] = UInt8(value)
                        let flags = ByteWord.bytes(of: Self.word(bytes), from: first, through: last)
                        for index in 0..<8 {
                            let inRange = (first...last).contains(bytes[index])
                            #expect(
                                flags >> (8 * index) & 0xFF == (inRange ? 0x80 : 0),
                                "\(first)...\(last): byte \(bytes[index]) in lane \(index)")
                        }
                    }
                }
            }
        }
    }

    @Test func repeatingFillsEveryByte() {
        #expect(ByteWord.repeating(0x3C) == 0x3C3C_3C3C_3C3C_3C3C)
        #expect(ByteWord.repeating(0) == 0 && ByteWord.repeating(0xFF) == .max)
        #expect(ByteWord.firstOffset(of: 0) == 8 && ByteWord.firstOffset(of: 0x80 << 16) == 2)
    }
}
