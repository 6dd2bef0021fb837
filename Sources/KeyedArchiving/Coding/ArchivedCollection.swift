/// An Apple collection whose contents Swift's standard collections cannot hold, as the
/// untyped decoding methods return it.
///
/// Apple's collections hold any object, but a Swift `Set` needs `Hashable` elements and a
/// `Dictionary` `Hashable` keys. Xcode, for one, archives `NSSet`s whose elements are
/// `NSArray`s, which decode as `[Any]`. Rather than fail, the untyped decoding methods
/// (``KeyedUnarchiver/decodeObject(forKey:)``,
/// ``KeyedUnarchiver/decodeObject(of:forKey:)->Any?`` and their
/// relatives) return such a collection as an `ArchivedCollection`, keeping every member in
/// archive order:
///
/// | archived | decodes as |
/// |---|---|
/// | `NSSet`, `NSMutableSet`, `NSCountedSet` with only `Hashable` elements | `Set<AnyHashable>` |
/// | the same with an element that is not `Hashable` | `ArchivedCollection` (``Kind-swift.enum/set`` or ``Kind-swift.enum/countedSet``) |
/// | `NSDictionary`, `NSMutableDictionary` with only `String` keys | `[String: Any]` |
/// | the same with other `Hashable` keys | `[AnyHashable: Any]` |
/// | the same with a key that is not `Hashable` | `ArchivedCollection` (``Kind-swift.enum/dictionary``) |
/// | `NSArray`, `NSOrderedSet` and their mutable variants | `[Any]`, or `[T]` when every element decodes as the one type `T` |
/// | any collection that contains itself, directly or through other collections | ``ArchivedObjectGraph`` rooted at it |
///
/// A Swift value cannot contain itself, so a collection on a cycle decodes as the generic
/// graph of everything it reaches (nothing in it is constructed); the graph's
/// ``ArchivedObjectGraph/isOnCycle(_:)`` tells which objects form the cycle.
///
/// ```swift
/// let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
/// unarchiver.requiresSecureCoding = false
/// switch try unarchiver.decodeObject(forKey: "expanded") {
/// case let set as Set<AnyHashable>: print("a set of \(set.count)")
/// case let collection as ArchivedCollection: print("\(collection.className) of \(collection.elements.count)")
/// default: break
/// }
/// ```
///
/// Typed decoding never returns this value: `decodeObject(of: Set<[String]>.self, …)`
/// decodes the `NSSet` of `NSArray`s directly, and a type that cannot represent what the
/// archive holds fails as it always has.
public struct ArchivedCollection: CustomStringConvertible {
    /// Which of Apple's collections the value was archived as.
    public enum Kind: String, Hashable, Sendable {
        /// `NSSet` or `NSMutableSet`.
        case set
        /// `NSCountedSet`: ``ArchivedCollection/counts`` holds each element's count.
        case countedSet
        /// `NSDictionary` or `NSMutableDictionary`: ``ArchivedCollection/keys`` and
        /// ``ArchivedCollection/values`` hold the entries.
        case dictionary
    }

    /// Which collection this is.
    public let kind: Kind

    /// The class name as archived (`NSMutableSet`, `NSDictionary`, …).
    public let className: String

    /// The index of the collection in the archive's `$objects`.
    public let objectIndex: Int

    /// The elements of a set or counted set, in archive order; empty for a dictionary.
    public let elements: [Any]

    /// How many times each element of a counted set occurs, parallel to ``elements``;
    /// empty for other kinds (and for a counted set archived without counts).
    public let counts: [Int]

    /// The keys of a dictionary, in archive order; empty for sets.
    public let keys: [Any]

    /// The values of a dictionary, parallel to ``keys``; empty for sets.
    public let values: [Any]

    /// Creates a collection value.
    ///
    /// - Parameters:
    ///   - kind: Which collection it is.
    ///   - className: The archived class name.
    ///   - objectIndex: Its index in `$objects`.
    ///   - elements: A set's elements.
    ///   - counts: A counted set's counts, parallel to `elements`.
    ///   - keys: A dictionary's keys.
    ///   - values: A dictionary's values, parallel to `keys`.
    public init(
        kind: Kind, className: String, objectIndex: Int, elements: [Any] = [], counts: [Int] = [],
        keys: [Any] = [], values: [Any] = []
    ) {
        self.kind = kind
        self.className = className
        self.objectIndex = objectIndex
        self.elements = elements
        self.counts = counts
        self.keys = keys
        self.values = values
    }

    /// The number of elements of a set, or of entries of a dictionary.
    public var count: Int { kind == .dictionary ? keys.count : elements.count }

    /// A dictionary's entries as key–value pairs, in archive order.
    public var entries: [(key: Any, value: Any)] {
        zip(keys, values).map { (key: $0.0, value: $0.1) }
    }

    /// The class name, object index and members, for reading.
    public var description: String {
        let members: [String]
        if kind == .dictionary {
            members = entries.map { "\($0.key): \($0.value)" }
        } else if counts.count == elements.count {
            members = zip(elements, counts).map { "\($0.0) ×\($0.1)" }
        } else {
            members = elements.map { "\($0)" }
        }
        return "\(className) #\(objectIndex) [\(members.joined(separator: ", "))]"
    }
}
