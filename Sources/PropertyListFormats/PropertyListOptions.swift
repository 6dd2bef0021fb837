/// Limits that bound what reading an untrusted property list can cost.
///
/// The defaults are safe for input from anywhere: nesting deeper than CoreFoundation
/// allows is refused, and no input can make the reader build more than a fixed multiple
/// of its own size, however its objects share one another.
///
/// ```swift
/// var options = PropertyListReadingOptions()
/// options.maximumDepth = 64
/// let value = try PropertyList(from: data, options: options)
/// ```
public struct PropertyListReadingOptions: Hashable, Sendable {
    /// The deepest nesting of arrays and dictionaries accepted. Default 512, as
    /// CoreFoundation on macOS.
    public var maximumDepth: Int

    /// How many values the reader may build per byte of input, on top of a fixed
    /// allowance of ``baseValueAllowance``.
    ///
    /// A value is a string, number, date, data, UID, array or dictionary; a subtree that
    /// a binary property list references several times counts each time it is reached.
    /// This bounds time and memory on "bombs" whose objects refer to one another many
    /// times. Default 64.
    public var maximumExpansionFactor: Int

    /// The number of values always allowed whatever the input size. Default 1,048,576.
    public var baseValueAllowance: Int

    /// Creates options with the safe defaults.
    ///
    /// - Parameters:
    ///   - maximumDepth: The deepest nesting accepted.
    ///   - maximumExpansionFactor: Values the reader may build per input byte.
    ///   - baseValueAllowance: Values always allowed.
    public init(maximumDepth: Int = 512, maximumExpansionFactor: Int = 64, baseValueAllowance: Int = 1 << 20)
    {
        self.maximumDepth = maximumDepth
        self.maximumExpansionFactor = maximumExpansionFactor
        self.baseValueAllowance = baseValueAllowance
    }

    /// The most values a reader may build for an input of `inputLength` bytes.
    ///
    /// - Parameter inputLength: The size of the input in bytes.
    /// - Returns: The budget of values, saturating instead of overflowing.
    package func valueLimit(forInputLength inputLength: Int) -> Int {
        let (scaled, overflow) = max(0, inputLength).multipliedReportingOverflow(
            by: max(0, maximumExpansionFactor))
        if overflow { return Int.max }
        let (total, overflowTotal) = scaled.addingReportingOverflow(max(0, baseValueAllowance))
        return overflowTotal ? Int.max : total
    }

    /// The most values a reader may build for an input of `inputLength` bytes.
    ///
    /// - Parameter inputLength: The size of the input in bytes.
    /// - Returns: The budget of values.
    @available(*, deprecated, message: "an implementation detail; the readers apply the budget themselves")
    public func valueBudget(forInputLength inputLength: Int) -> Int {
        valueLimit(forInputLength: inputLength)
    }
}

/// Choices for writing a property list.
public struct PropertyListWritingOptions: Hashable, Sendable {
    /// Whether dictionary keys are written in sorted order (by Unicode scalar values).
    ///
    /// Apple's XML writer always sorts; sorted binary output matches what Cocoa produces
    /// for the same dictionaries. When `false`, keys keep the order of the
    /// ``PropertyListDictionary``. Default `true`.
    public var sortsKeys: Bool

    /// The most bytes an XML property list may take; writing a longer one fails with
    /// `limitExceeded`. Default `Int.max` (no limit).
    ///
    /// A value read from a small binary property list can stand for far more text than
    /// its bytes (its objects may be shared many times over, and XML indents each level
    /// by a tab): set a limit when writing what came from untrusted input.
    public var maximumOutputBytes: Int

    /// Creates writing options.
    ///
    /// - Parameters:
    ///   - sortsKeys: Whether dictionary keys are written in sorted order.
    ///   - maximumOutputBytes: The most bytes of XML to write.
    public init(sortsKeys: Bool = true, maximumOutputBytes: Int = .max) {
        self.sortsKeys = sortsKeys
        self.maximumOutputBytes = maximumOutputBytes
    }
}

/// Choices for rendering a property list as JSON for inspection.
///
/// JSON cannot hold every property-list type, so some are rendered as one-key objects
/// (documented in `Documentation/PropertyLists.md`):
///
/// | property list | JSON |
/// |---|---|
/// | data | `{"data": "<base64>"}` |
/// | date | `{"date": "2001-01-01T00:00:00Z"}` |
/// | UID | `{"CF$UID": 3}` |
/// | NaN, ±infinity | `{"real": "nan"}`, `{"real": "inf"}`, `{"real": "-inf"}` |
///
/// Integers are written exactly, however large; reals always carry a `.` or exponent.
public struct PropertyListJSONOptions: Hashable, Sendable {
    /// Whether to indent the output. Default `true`.
    public var prettyPrinted: Bool
    /// Whether dictionary keys are sorted; otherwise they keep the dictionary's order.
    /// Default `false`.
    public var sortsKeys: Bool
    /// The most bytes of JSON to write; a longer rendering fails with `limitExceeded`.
    /// Default `Int.max` (no limit). Indentation stops growing at 32 levels whatever
    /// the limit, so that the text grows with the value, not with values × depth.
    public var maximumOutputBytes: Int

    /// Creates JSON rendering options.
    ///
    /// - Parameters:
    ///   - prettyPrinted: Whether to indent the output.
    ///   - sortsKeys: Whether dictionary keys are sorted.
    ///   - maximumOutputBytes: The most bytes of JSON to write.
    public init(prettyPrinted: Bool = true, sortsKeys: Bool = false, maximumOutputBytes: Int = .max) {
        self.prettyPrinted = prettyPrinted
        self.sortsKeys = sortsKeys
        self.maximumOutputBytes = maximumOutputBytes
    }
}
