/// Limits and choices for reading a keyed archive, with defaults that are safe for
/// archives from anywhere.
///
/// ```swift
/// var options = KeyedUnarchivingOptions()
/// options.decodesUnknownClassesGenerically = true
/// let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
/// ```
public struct KeyedUnarchivingOptions: Hashable, Sendable {
    /// The deepest nesting of objects decoded inside one another (an `init(coder:)`
    /// decoding an object whose `init(coder:)` decodes another, …). Default 512, as
    /// CoreFoundation's nesting limit; deeper archives fail with `limitExceeded` instead
    /// of exhausting the stack.
    public var maximumDepth: Int

    /// The most entries `$objects` may have. Default 16,777,216. Larger archives fail
    /// with `limitExceeded` when opened.
    public var maximumObjectCount: Int

    /// Whether an object whose class maps to no known type decodes, in the untyped
    /// decoding methods (those returning `Any`), as an ``ArchivedObjectGraph`` rooted at
    /// it instead of failing with `classNotFound`. Default `false`.
    ///
    /// A class that maps to a known type is still checked against the allowed classes
    /// when secure coding is required.
    public var decodesUnknownClassesGenerically: Bool

    /// The limits applied when parsing the property list that holds the archive.
    public var propertyListOptions: PropertyListReadingOptions

    /// Creates options.
    ///
    /// - Parameters:
    ///   - maximumDepth: The deepest nesting of decoded objects.
    ///   - maximumObjectCount: The most entries `$objects` may have.
    ///   - decodesUnknownClassesGenerically: Whether unknown classes decode as
    ///     ``ArchivedObjectGraph`` values in untyped decodes.
    ///   - propertyListOptions: Limits for the property-list parser.
    public init(
        maximumDepth: Int = 512, maximumObjectCount: Int = 1 << 24,
        decodesUnknownClassesGenerically: Bool = false,
        propertyListOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) {
        self.maximumDepth = maximumDepth
        self.maximumObjectCount = maximumObjectCount
        self.decodesUnknownClassesGenerically = decodesUnknownClassesGenerically
        self.propertyListOptions = propertyListOptions
    }
}
