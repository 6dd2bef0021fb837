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

    /// Whether a damaged or unusual archive is read as far as it can be, for forensic
    /// inspection, instead of failing at the first problem. Default `false`.
    ///
    /// Applies to opening an archive and to ``KeyedUnarchiver/objectGraph(from:options:)-(Data,_)``:
    /// - an `$archiver` other than `NSKeyedArchiver` (`NRKeyedArchiver` and other
    ///   variants), a missing one, a `$version` other than 100000, a missing or malformed
    ///   `$top`, and an `$objects[0]` other than `$null` are accepted;
    /// - in the object graph, a reference past the end of `$objects` is kept as a
    ///   reference to a missing object (``ArchivedObjectGraph/outline()`` shows
    ///   `→ #n (missing)`); an object with a bad `$class` keeps its fields under the class
    ///   name `(unknown class)`; an entry that cannot be read becomes an `(unreadable)`
    ///   object whose `error` field says why;
    /// - each problem is recorded, with its key path, in
    ///   ``ArchivedObjectGraph/problems``.
    ///
    /// The limits still apply: what cannot be parsed at all (not a property list, no
    /// `$objects`) still fails. Typed decoding is unaffected: a decode that reaches a
    /// damaged object still fails.
    public var recoversFromDamage: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - maximumDepth: The deepest nesting of decoded objects.
    ///   - maximumObjectCount: The most entries `$objects` may have.
    ///   - decodesUnknownClassesGenerically: Whether unknown classes decode as
    ///     ``ArchivedObjectGraph`` values in untyped decodes.
    ///   - propertyListOptions: Limits for the property-list parser.
    ///   - recoversFromDamage: Whether damaged archives are read as far as they can be.
    public init(
        maximumDepth: Int = 512, maximumObjectCount: Int = 1 << 24,
        decodesUnknownClassesGenerically: Bool = false,
        propertyListOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        recoversFromDamage: Bool = false
    ) {
        self.maximumDepth = maximumDepth
        self.maximumObjectCount = maximumObjectCount
        self.decodesUnknownClassesGenerically = decodesUnknownClassesGenerically
        self.propertyListOptions = propertyListOptions
        self.recoversFromDamage = recoversFromDamage
    }
}
