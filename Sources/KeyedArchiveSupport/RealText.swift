/// Real numbers as every text form of this library spells them: the shortest digits that
/// read back as the same `Double` (those of `Double.description`), and `nan`, `inf` and
/// `-inf` for the values that are not finite.
///
/// What differs between forms is whether an integral value keeps `Double.description`'s
/// `.0`: descriptions, outlines, JSON and the tool's `-p` keep it (`2.0`), XML property
/// lists drop it (`<real>2</real>`, as CoreFoundation writes them). JSON writes the
/// non-finite names inside `{"real": …}`, since JSON has no such numbers.
///
/// Integers below 10^15 and fractions whose exact decimal expansion has at most 15
/// significant digits (such as `0.5` or `1234.5625`) are formatted here without a `String`;
/// any other value goes through `Double.description`.
package enum RealText {
    /// The most bytes ``write(_:keepsPointZero:to:)`` writes.
    package static let maximumLength = 32

    /// `value` as text, integral values with `.0`: `2.5`, `2.0`, `1e+100`, `nan`, `inf`,
    /// `-inf`.
    package static func string(_ value: Double) -> String {
        String(unsafeUninitializedCapacity: maximumLength) { buffer in
            guard let start = buffer.baseAddress else { return 0 }
            return write(value, keepsPointZero: true, to: start)
        }
    }

    /// Writes the text of `value` at `destination`, which has room for ``maximumLength``
    /// bytes, and returns the number of bytes written.
    ///
    /// - Parameters:
    ///   - value: Any `Double`.
    ///   - keepsPointZero: Whether integral values end with `.0`, as `Double.description`
    ///     writes them.
    ///   - destination: Where the text goes.
    @inline(__always)
    package static func write(
        _ value: Double, keepsPointZero: Bool, to destination: UnsafeMutablePointer<UInt8>
    )
        -> Int
    {
        if value.isNaN { return copy("nan", to: destination) }
        if value.isInfinite { return copy(value < 0 ? "-inf" : "inf", to: destination) }
        if value == value.rounded(.towardZero), abs(value) < 1e15 {
            // Integral: the digits Double.description writes before its ".0".
            var length = 0
            if value.sign == .minus {
                destination[0] = UInt8(ascii: "-")
                length = 1
            }
            length += writeDecimal(UInt64(abs(value)), to: destination + length)
            if keepsPointZero { length += copy(".0", to: destination + length) }
            return length
        }
        let short = writeShortFraction(value, to: destination)
        return short > 0 ? short : writeDescription(value, keepsPointZero: keepsPointZero, to: destination)
    }

    /// Writes the decimal digits of `value` (at most 20) at `destination` and returns how
    /// many there are.
    @inline(__always)
    package static func writeDecimal(_ value: UInt64, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        // The digits are produced from the end, two at a time.
        var digits = 1
        var threshold: UInt64 = 10
        while value >= threshold {
            digits += 1
            if digits == 20 { break }
            threshold &*= 10
        }
        var remaining = value
        var position = digits
        while remaining >= 10 {
            let pair = remaining % 100
            remaining /= 100
            position -= 2
            destination[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: pair / 10)
            destination[position + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: pair % 10)
        }
        if position > 0 {
            destination[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining)
        }
        return digits
    }

    @inline(__always)
    private static func copy(_ literal: StaticString, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        destination.update(from: literal.utf8Start, count: literal.utf8CodeUnitCount)
        return literal.utf8CodeUnitCount
    }

    /// `Double.description`, with its trailing `.0` unless `keepsPointZero`.
    @inline(never)
    private static func writeDescription(
        _ value: Double, keepsPointZero: Bool, to destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var text = value.description
        if !keepsPointZero, text.hasSuffix(".0") { text.removeLast(2) }
        return text.withUTF8 { utf8 in
            let length = min(utf8.count, maximumLength)
            if let source = utf8.baseAddress { destination.update(from: source, count: length) }
            return length
        }
    }

    /// Powers of five up to 5^18 (see ``writeShortFraction(_:to:)``).
    private static let powersOfFive: [UInt64] = (0...18).map { exponent in
        var power: UInt64 = 1
        for _ in 0..<exponent { power *= 5 }
        return power
    }

    /// Writes a finite, non-integral `number` of at least 10^-4 and below 10^15 whose
    /// exact decimal expansion has at most 15 significant digits, and returns the number
    /// of bytes written; 0, with nothing written, for any other number.
    ///
    /// Such a number is `m / 2^k` with `m` odd, so its expansion is `m * 5^k` with the
    /// decimal point `k` digits from the right. No shorter decimal reads back as the same
    /// double: another decimal with at most 15 significant digits differs from it by at
    /// least 10^-15 of its size, more than half the spacing of doubles (2^-53 of it). So
    /// these are the digits the shortest round-trip formatting chooses. At most 21 bytes
    /// are written: a sign, 18 digits, the point and a leading `0`.
    private static func writeShortFraction(_ number: Double, to destination: UnsafeMutablePointer<UInt8>)
        -> Int
    {
        let magnitude = abs(number)
        guard magnitude >= 1e-4, magnitude < 1e15, magnitude.isNormal else { return 0 }
        let significand = magnitude.significandBitPattern | 1 << 52
        let trailingZeros = significand.trailingZeroBitCount
        let scale = 52 - trailingZeros - (Int(magnitude.exponentBitPattern) - 1023)
        // At least 10^-4 with at most 15 digits leaves at most 18 after the point.
        guard scale > 0, scale < Self.powersOfFive.count else { return 0 }
        let odd = significand >> UInt64(trailingZeros)
        let (digits, overflow) = odd.multipliedReportingOverflow(by: Self.powersOfFive[scale])
        guard !overflow, digits < 1_000_000_000_000_000 else { return 0 }
        var divisor: UInt64 = 1
        for _ in 0..<scale { divisor *= 10 }
        var length = 0
        if number.sign == .minus {
            destination[0] = UInt8(ascii: "-")
            length = 1
        }
        length += writeDecimal(digits / divisor, to: destination + length)
        destination[length] = UInt8(ascii: ".")
        length += 1
        let fraction = digits % divisor
        // Leading zeros of the fraction, then its digits (it ends in 5, never in 0).
        var width = 1
        var rest = fraction / 10
        while rest > 0 {
            width += 1
            rest /= 10
        }
        for _ in width..<scale {
            destination[length] = UInt8(ascii: "0")
            length += 1
        }
        length += writeDecimal(fraction, to: destination + length)
        return length
    }
}
