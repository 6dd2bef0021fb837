#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Parsing of the text inside `<integer>` and `<real>` elements, straight from bytes.
///
/// Both accept surrounding XML whitespace. Integers follow CoreFoundation: an optional
/// sign (whitespace may follow it), then decimal digits or `0x` and hexadecimal digits,
/// exact across the signed 128-bit range. Reals are decimal with an optional fraction and
/// exponent, or one of `nan`, `inf`, `infinity` (any case, `inf`/`infinity` optionally
/// signed); hexadecimal floating point is refused.
enum XMLScalarText {
    enum IntegerResult {
        case value(PropertyListInteger)
        case empty
        case invalid
        case outOfRange
    }

    enum RealResult {
        case value(Double)
        case empty
        case invalid
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        // Space, line feed, tab and carriage return, as bits of one mask.
        byte <= 0x20 && (0x1_0000_2600 as UInt64) >> UInt64(byte) & 1 != 0
    }

    /// Narrows `range` to its part without leading and trailing XML whitespace.
    @inline(__always)
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower, isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> IntegerResult {
        let text = trimmed(bytes, range)
        var index = text.lowerBound
        let end = text.upperBound
        guard index < end else { return .empty }
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
            while index < end, isWhitespace(bytes[index]) { index += 1 }
        }
        guard index < end else { return .invalid }
        var high: UInt64 = 0
        var low: UInt64 = 0
        if end - index >= 2, bytes[index] == UInt8(ascii: "0"), bytes[index + 1] | 0x20 == UInt8(ascii: "x") {
            index += 2
            guard index < end else { return .invalid }
            while index < end {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
                default: return .invalid
                }
                guard high >> 60 == 0 else { return .outOfRange }
                high = high << 4 | low >> 60
                low = low << 4 | UInt64(digit)
                index += 1
            }
        } else if end - index <= 19 {
            // Nineteen decimal digits always fit in 64 bits.
            while index < end {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return .invalid }
                low = low &* 10 &+ UInt64(digit)
                index += 1
            }
        } else {
            while index < end {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return .invalid }
                let (carry, product) = low.multipliedFullWidth(by: 10)
                let (highProduct, overflow1) = high.multipliedReportingOverflow(by: 10)
                let (highSum, overflow2) = highProduct.addingReportingOverflow(carry)
                let (lowSum, lowCarry) = product.addingReportingOverflow(UInt64(digit))
                let (highTotal, overflow3) = highSum.addingReportingOverflow(lowCarry ? 1 : 0)
                if overflow1 || overflow2 || overflow3 { return .outOfRange }
                high = highTotal
                low = lowSum
                index += 1
            }
        }
        if negative {
            // Down to -2¹²⁷.
            guard high < 1 << 63 || (high == 1 << 63 && low == 0) else { return .outOfRange }
            let negatedLow = ~low &+ 1
            let negatedHigh = ~high &+ (low == 0 ? 1 : 0)
            return .value(PropertyListInteger(high: Int64(bitPattern: negatedHigh), low: negatedLow))
        }
        guard high < 1 << 63 else { return .outOfRange }
        return .value(PropertyListInteger(high: Int64(bitPattern: high), low: low))
    }

    /// Powers of ten that a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    static func parseReal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> RealResult {
        let text = trimmed(bytes, range)
        let start = text.lowerBound
        let end = text.upperBound
        guard start < end else { return .empty }
        // `nan`, `inf` and `infinity` start with a letter, or a sign and a letter.
        if bytes[start] > UInt8(ascii: "9") || (end - start > 1 && bytes[start + 1] > UInt8(ascii: "9")),
            let special = specialReal(bytes, text)
        {
            return .value(special)
        }

        var index = start
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        if let value = plainDecimal(bytes, from: index, to: end) { return .value(negative ? -value : value) }
        // Collect up to 19 significant digits exactly; more send us to the slow path.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var decimalExponent = 0
        var sawDigit = false
        var exact = true
        while index < end, bytes[index] &- UInt8(ascii: "0") < 10 {
            let digit = bytes[index] &- UInt8(ascii: "0")
            sawDigit = true
            if mantissa != 0 || digit != 0 {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits += 1
                } else {
                    exact = false
                }
            }
            index += 1
        }
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < end, bytes[index] &- UInt8(ascii: "0") < 10 {
                let digit = bytes[index] &- UInt8(ascii: "0")
                sawDigit = true
                if mantissa != 0 || digit != 0 {
                    if significantDigits < 19 {
                        mantissa = mantissa &* 10 &+ UInt64(digit)
                        significantDigits += 1
                        decimalExponent -= 1
                    } else {
                        exact = false
                    }
                } else {
                    decimalExponent -= 1
                }
                index += 1
            }
        }
        guard sawDigit else { return .invalid }
        if index < end, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < end, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponent = 0
            var sawExponentDigit = false
            while index < end, bytes[index] &- UInt8(ascii: "0") < 10 {
                sawExponentDigit = true
                // Clamp: anything this large is already zero or infinity.
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")) }
                index += 1
            }
            guard sawExponentDigit else { return .invalid }
            decimalExponent += exponentNegative ? -exponent : exponent
        }
        guard index == end else { return .invalid }

        // Clinger's fast path: both operands exact, so one IEEE operation rounds correctly.
        if exact && mantissa <= 1 << 53 && decimalExponent >= -22 && decimalExponent <= 22 {
            var value = Double(mantissa)
            if decimalExponent > 0 {
                value *= exactPowersOfTen[decimalExponent]
            } else if decimalExponent < 0 {
                value /= exactPowersOfTen[-decimalExponent]
            }
            return .value(negative ? -value : value)
        }
        let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard let value = Double(string) else { return .invalid }
        return .value(value)
    }

    /// The value of `digits` or `digits.digits` (no sign, no exponent) in `bytes[start..<end]`
    /// in one pass, when it has at most 19 digits in all and Clinger's fast path applies; the
    /// same value as the general reading below, which also reads the rest (it does not count
    /// leading zeros, so a few texts this leaves to it take its fast path too). `nil` otherwise.
    @inline(__always)
    private static func plainDecimal(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
        -> Double?
    {
        guard end - start <= 20, let base = bytes.baseAddress else { return nil }
        var index = start
        var mantissa: UInt64 = 0
        while index < end {
            let digit = base[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            index &+= 1
        }
        let integerDigits = index &- start
        var fractionDigits = 0
        if index < end, base[index] == UInt8(ascii: ".") {
            index &+= 1
            let fractionStart = index
            while index < end {
                let digit = base[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                index &+= 1
            }
            fractionDigits = index &- fractionStart
        }
        // Nineteen digits always fit in 64 bits.
        guard index == end, integerDigits &+ fractionDigits > 0, integerDigits &+ fractionDigits <= 19,
            mantissa <= 1 << 53, fractionDigits <= 22
        else { return nil }
        return fractionDigits == 0 ? Double(mantissa) : Double(mantissa) / exactPowersOfTen[fractionDigits]
    }

    /// `nan`, `inf`, `infinity`, any case, with an optional sign.
    private static func specialReal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        var index = range.lowerBound
        let end = range.upperBound
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        let length = end - index
        guard length == 3 || length == 8 else { return nil }
        func matches(_ word: StaticString) -> Bool {
            guard word.utf8CodeUnitCount == length else { return false }
            let letters = UnsafeBufferPointer(start: word.utf8Start, count: length)
            for offset in 0..<length where bytes[index + offset] | 0x20 != letters[offset] { return false }
            return true
        }
        if matches("nan") { return .nan }
        if matches("inf") || matches("infinity") { return negative ? -.infinity : .infinity }
        return nil
    }
}
