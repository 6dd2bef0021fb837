/// Limits and choices for reading a typedstream, with defaults that are safe for streams
/// from anywhere; the names are those of ``KeyedUnarchivingOptions`` and
/// ``PropertyListReadingOptions``.
///
/// ```swift
/// var options = TypedStreamUnarchivingOptions()
/// options.maximumDepth = 64
/// options.allowedClassNames = TypedStreamUnarchiver.standardClassNames
/// let value = try TypedStreamUnarchiver.unarchivedObject(from: data, options: options)
/// ```
public struct TypedStreamUnarchivingOptions: Hashable, Sendable {
    /// The deepest nesting of objects inside one another. Default 512, as CoreFoundation's
    /// nesting limit; deeper streams fail with `limitExceeded` instead of exhausting the
    /// stack.
    public var maximumDepth: Int

    /// The most entries the shared object table (objects, classes, C strings) may have.
    /// Default 16,777,216.
    public var maximumObjectCount: Int

    /// How many values the reader may build per byte of input, on top of
    /// ``baseValueAllowance``. Arrays of empty structures take no bytes per element, so
    /// without this budget a few bytes could stand for billions of values. Default 64.
    public var maximumExpansionFactor: Int

    /// The number of values always allowed whatever the input size. Default 1,048,576.
    public var baseValueAllowance: Int

    /// The classes objects may have, checked when an object's class is read, before
    /// anything of the object is read or built; `nil` (the default) allows every class.
    ///
    /// Only an object's own class is checked, not its superclasses. Include
    /// ``TypedStreamUnarchiver/standardClassNames`` to allow Foundation's strings,
    /// numbers, data, dates, URLs and collections.
    public var allowedClassNames: Set<String>?

    /// Whether an object whose class maps to no Swift type decodes, in the untyped
    /// methods, as a ``TypedStreamGraph`` rooted at it. Default `true`: typedstreams
    /// carry no field names, and their classes (NeXT's, AppKit's, applications') rarely
    /// have Swift types, so inspecting them generically is the common case. When `false`
    /// such an object fails with `classNotFound`.
    public var decodesUnknownClassesGenerically: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - maximumDepth: The deepest nesting of objects.
    ///   - maximumObjectCount: The most entries of the shared object table.
    ///   - maximumExpansionFactor: Values the reader may build per input byte.
    ///   - baseValueAllowance: Values always allowed.
    ///   - allowedClassNames: The classes objects may have; `nil` for any.
    ///   - decodesUnknownClassesGenerically: Whether unknown classes decode as graphs.
    public init(
        maximumDepth: Int = 512, maximumObjectCount: Int = 1 << 24, maximumExpansionFactor: Int = 64,
        baseValueAllowance: Int = 1 << 20, allowedClassNames: Set<String>? = nil,
        decodesUnknownClassesGenerically: Bool = true
    ) {
        self.maximumDepth = maximumDepth
        self.maximumObjectCount = maximumObjectCount
        self.maximumExpansionFactor = maximumExpansionFactor
        self.baseValueAllowance = baseValueAllowance
        self.allowedClassNames = allowedClassNames
        self.decodesUnknownClassesGenerically = decodesUnknownClassesGenerically
    }

    /// The most values a reader may build for an input of `inputLength` bytes.
    func valueBudget(inputLength: Int) -> Int {
        let (scaled, overflow) = max(0, inputLength).multipliedReportingOverflow(
            by: max(0, maximumExpansionFactor))
        if overflow { return Int.max }
        let (total, overflow2) = scaled.addingReportingOverflow(max(0, baseValueAllowance))
        return overflow2 ? Int.max : total
    }
}
