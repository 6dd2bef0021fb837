/// An exact property-list integer: any value a binary property list can hold, from
/// `-2¹²⁷` to `2¹²⁷ − 1`, which covers the whole range `Int64.min ... UInt64.max`.
///
/// Property lists written by Apple use 1-, 2-, 4- and 8-byte integers, and 16-byte
/// integers for values above `Int64.max`. Use ``int64Value`` or ``uint64Value`` to get a
/// fixed-width value out; both return `nil` instead of truncating.
///
/// ```swift
/// let big: PropertyListInteger = PropertyListInteger(UInt64.max)
/// big.int64Value   // nil
/// big.uint64Value  // 18446744073709551615
/// ```
public struct PropertyListInteger: Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    /// The high 64 bits of the two's-complement 128-bit value.
    public let high: Int64
    /// The low 64 bits of the two's-complement 128-bit value.
    public let low: UInt64

    /// Creates an integer from the two halves of a two's-complement 128-bit value.
    ///
    /// - Parameters:
    ///   - high: The high 64 bits, which carry the sign.
    ///   - low: The low 64 bits.
    public init(high: Int64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates an integer equal to `value`.
    ///
    /// - Parameter value: A signed 64-bit value.
    public init(_ value: Int64) {
        self.init(high: value < 0 ? -1 : 0, low: UInt64(bitPattern: value))
    }

    /// Creates an integer equal to `value`.
    ///
    /// - Parameter value: An unsigned 64-bit value.
    public init(_ value: UInt64) {
        self.init(high: 0, low: value)
    }

    /// Creates an integer equal to `value`.
    ///
    /// - Parameter value: A signed integer.
    public init(_ value: Int) {
        self.init(Int64(value))
    }

    /// Creates an integer equal to `value`.
    ///
    /// - Parameter value: An unsigned integer.
    public init(_ value: UInt) {
        self.init(UInt64(value))
    }

    /// Creates an integer equal to `value`, or `nil` if it lies outside
    /// `Int64.min ... UInt64.max`.
    ///
    /// - Parameter value: An integer of any type.
    public init?<T: BinaryInteger>(exactly value: T) {
        if let signed = Int64(exactly: value) {
            self.init(signed)
        } else if let unsigned = UInt64(exactly: value) {
            self.init(unsigned)
        } else {
            return nil
        }
    }

    /// Creates an integer from an integer literal.
    ///
    /// - Parameter value: The literal's value.
    public init(integerLiteral value: Int64) {
        self.init(value)
    }

    /// The value as an `Int64`, or `nil` if it does not fit.
    public var int64Value: Int64? {
        let asSigned = Int64(bitPattern: low)
        if high == 0 && asSigned >= 0 { return asSigned }
        if high == -1 && asSigned < 0 { return asSigned }
        return nil
    }

    /// The value as a `UInt64`, or `nil` if it is negative or does not fit.
    public var uint64Value: UInt64? {
        high == 0 ? low : nil
    }

    /// The value as an `Int`, or `nil` if it does not fit.
    public var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    /// Whether the value is below zero.
    public var isNegative: Bool { high < 0 }

    /// Whether the value fits in `Int64.min ... UInt64.max`, the range every writer of
    /// this package and Apple's own handle.
    public var fitsIn64Bits: Bool { int64Value != nil || uint64Value != nil }

    /// Orders integers by value.
    ///
    /// - Parameters:
    ///   - lhs: An integer.
    ///   - rhs: Another integer.
    /// - Returns: Whether `lhs` is less than `rhs`.
    public static func < (lhs: PropertyListInteger, rhs: PropertyListInteger) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    /// The value in decimal, with a leading `-` when negative.
    public var description: String {
        if let value = int64Value { return String(value) }
        if let value = uint64Value { return String(value) }
        // Wider than 64 bits: convert the magnitude by repeated division by 10¹⁹.
        var magnitudeHigh = UInt64(bitPattern: high)
        var magnitudeLow = low
        let negative = high < 0
        if negative {
            magnitudeHigh = ~magnitudeHigh
            magnitudeLow = ~magnitudeLow
            let (sum, overflow) = magnitudeLow.addingReportingOverflow(1)
            magnitudeLow = sum
            if overflow { magnitudeHigh &+= 1 }
        }
        let chunk: UInt64 = 10_000_000_000_000_000_000
        var chunks: [UInt64] = []
        while magnitudeHigh != 0 || magnitudeLow != 0 {
            let (quotientHigh, remainderHigh) = magnitudeHigh.quotientAndRemainder(dividingBy: chunk)
            let (quotientLow, remainder) = chunk.dividingFullWidth((remainderHigh, magnitudeLow))
            chunks.append(remainder)
            magnitudeHigh = quotientHigh
            magnitudeLow = quotientLow
        }
        var text = negative ? "-" : ""
        for (index, value) in chunks.reversed().enumerated() {
            let digits = String(value)
            if index > 0 { text += String(repeating: "0", count: 19 - digits.count) }
            text += digits
        }
        return text
    }

    /// Parses a decimal integer with an optional sign, or `nil` if the text is not one or
    /// does not fit in 128 bits.
    ///
    /// - Parameter text: Digits with an optional leading `+` or `-`.
    public init?(decimal text: Substring) {
        var digits = text[...]
        var negative = false
        if let first = digits.first, first == "-" || first == "+" {
            negative = first == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        var magnitudeHigh: UInt64 = 0
        var magnitudeLow: UInt64 = 0
        for character in digits.utf8 {
            guard character >= 0x30 && character <= 0x39 else { return nil }
            // magnitude = magnitude * 10 + digit, in 128 bits.
            let (lowCarry, lowProduct) = magnitudeLow.multipliedFullWidth(by: 10)
            let (highProduct, highOverflow) = magnitudeHigh.multipliedReportingOverflow(by: 10)
            guard !highOverflow else { return nil }
            let (highSum, highSumOverflow) = highProduct.addingReportingOverflow(lowCarry)
            guard !highSumOverflow else { return nil }
            let (lowSum, lowSumOverflow) = UInt64(lowProduct).addingReportingOverflow(
                UInt64(character - 0x30))
            let (finalHigh, finalOverflow) = highSum.addingReportingOverflow(lowSumOverflow ? 1 : 0)
            guard !finalOverflow else { return nil }
            magnitudeHigh = finalHigh
            magnitudeLow = lowSum
        }
        if negative {
            // Allow down to -2¹²⁷.
            guard magnitudeHigh < 1 << 63 || (magnitudeHigh == 1 << 63 && magnitudeLow == 0) else {
                return nil
            }
            let invertedLow = ~magnitudeLow
            let (low, carry) = invertedLow.addingReportingOverflow(1)
            let high = ~magnitudeHigh &+ (carry ? 1 : 0)
            self.init(high: Int64(bitPattern: high), low: low)
        } else {
            guard magnitudeHigh < 1 << 63 else { return nil }
            self.init(high: Int64(bitPattern: magnitudeHigh), low: magnitudeLow)
        }
    }
}
