import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

@Suite("Real numbers: one formatter, two spellings of integral values")
struct RealTextTests {
    static func written(_ value: Double, keepsPointZero: Bool) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RealText.maximumLength) { buffer in
            guard let start = buffer.baseAddress else { return "" }
            let length = RealText.write(value, keepsPointZero: keepsPointZero, to: start)
            return String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self)
        }
    }

    /// Integral values, values around the fast paths' bounds, short and long fractions,
    /// subnormals and random bit patterns.
    static func samples() -> [Double] {
        var values: [Double] = [
            0, -0.0, 1, -1, 2, 10, 1e14, 1e15 - 1, 1e15, 1e15 + 2, 9_007_199_254_740_992,
            9_007_199_254_740_994, 1e16, 1e100, -1e300,
            0.5, 0.25, 1e-4, 0.0001220703125, 6.103515625e-05, 999_999_999_999_999.5, 1234.5625, 0.1, 1.0 / 3,
            .pi, .ulpOfOne, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, -2.2250738585072014e-308,
        ]
        var random = SeededGenerator(seed: 0x5EED)
        for _ in 0..<20_000 {
            let state = random.next()
            let value = Double(bitPattern: state)
            if value.isFinite { values.append(value) }
            values.append(Double(Int64(bitPattern: state) >> (state % 64)) / Double(1 << (state % 20)))
        }
        return values
    }

    @Test func finiteValuesAreDoubleDescriptionWithOrWithoutPointZero() {
        var mismatches: [String] = []
        for value in Self.samples() {
            let description = value.description
            var withoutPointZero = description
            if withoutPointZero.hasSuffix(".0") { withoutPointZero.removeLast(2) }
            if Self.written(value, keepsPointZero: true) != description
                || RealText.string(value) != description
                || Self.written(value, keepsPointZero: false) != withoutPointZero
            {
                mismatches.append(description)
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test func nonFiniteValuesAreNanAndInfinities() {
        for keepsPointZero in [true, false] {
            #expect(Self.written(.nan, keepsPointZero: keepsPointZero) == "nan")
            #expect(Self.written(-.nan, keepsPointZero: keepsPointZero) == "nan")
            #expect(Self.written(.signalingNaN, keepsPointZero: keepsPointZero) == "nan")
            #expect(Self.written(.infinity, keepsPointZero: keepsPointZero) == "inf")
            #expect(Self.written(-.infinity, keepsPointZero: keepsPointZero) == "-inf")
        }
    }

    /// Each text form keeps its own spelling.
    @Test func eachFormKeepsItsSpelling() throws {
        let value: PropertyList = [2.0, 0.5, .real(.nan), .real(-.infinity)]
        #expect(value.description == "[2.0, 0.5, nan, -inf]")
        let xml = String(decoding: try value.data(format: .xml), as: UTF8.self)
        #expect(
            xml.contains("<real>2</real>\n\t<real>0.5</real>\n\t<real>nan</real>\n\t<real>-inf</real>"),
            "\(xml)")
        let json = String(
            decoding: try value.jsonData(options: PropertyListJSONOptions(prettyPrinted: false)),
            as: UTF8.self)
        #expect(json == #"[2.0,0.5,{"real":"nan"},{"real":"-inf"}]"#)
        #expect(ArchivedObjectGraph.Value.real(-.nan).description == "nan")
    }
}
