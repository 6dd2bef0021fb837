/// A type that can be written to a keyed archive and read back: the portable
/// counterpart of `NSCoding`, adoptable by classes and structs alike.
///
/// ```swift
/// final class Creature: SecureKeyedCoding {
///     let name: String
///     let legs: Int
///
///     init(name: String, legs: Int) {
///         self.name = name
///         self.legs = legs
///     }
///
///     func encode(with coder: KeyedArchiver) {
///         coder.encode(name, forKey: "name")
///         coder.encode(legs, forKey: "legs")
///     }
///
///     init(coder: KeyedUnarchiver) throws {
///         name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
///         legs = try coder.decodeInteger(forKey: "legs")
///     }
/// }
///
/// let data = try KeyedArchiver.archivedData(withRootObject: Creature(name: "Potato Bug", legs: 14),
///                                           requiringSecureCoding: true)
/// let creature = try KeyedUnarchiver.unarchivedObject(ofClass: Creature.self, from: data)
/// ```
///
/// Class instances keep their identity in an archive (one instance encoded twice is
/// stored once and decodes as one shared instance); structs have none and may be stored
/// once per distinct value.
///
/// Non-final classes that want subclasses archived under their own names should declare
/// ``archivedClassName`` as a `class var` (the default already gives each subclass its
/// own `Module.TypeName`), and their `init(coder:)` as `required`.
public protocol KeyedCoding {
    /// The class name written to archives for this type (`$classname`).
    ///
    /// The default is `Module.TypeName` (`String(reflecting: Self.self)`), which is what
    /// Apple's `NSKeyedArchiver` writes for a top-level Swift class. Override it to keep
    /// archives stable when the type is renamed or moved, or to match an Objective-C name.
    static var archivedClassName: String { get }

    /// The archived names of this type's superclasses, nearest first, as written after
    /// the class's own name in `$classes`.
    ///
    /// The default, `nil`, derives them from the Swift class hierarchy (a superclass that
    /// conforms to ``KeyedCoding`` contributes its ``archivedClassName``); structs have
    /// none. `"NSObject"` is appended when the list does not already end with it, as
    /// Apple's archives always do.
    static var archivedSuperclassNames: [String]? { get }

    /// Writes the value's contents to `coder`.
    ///
    /// Encoding cannot throw; the archiver records the first problem (for example a type
    /// that does not support secure coding) and reports it when the data is requested.
    ///
    /// - Parameter coder: The archiver to write to.
    func encode(with coder: KeyedArchiver)

    /// Creates a value from the contents `coder` is positioned at.
    ///
    /// - Parameter coder: The unarchiver to read from.
    /// - Throws: Whatever the `decode…` calls throw (a ``KeyedArchiveError``), or an
    ///   error of your own when the contents are unacceptable; the whole decode fails.
    init(coder: KeyedUnarchiver) throws

    /// Builds a set of `elements`, keeping the first of equal elements, for the
    /// unarchiver's decoding of `Set<Self>`; `nil` when `Self` is not `Hashable`.
    ///
    /// Do not implement it: the default does the work, and its point is where it is
    /// compiled. The default is generic code the compiler specializes for each
    /// conforming type in that type's own module, so a set of your elements is built by
    /// code that knows their type, rather than by the unarchiver's unspecialized code,
    /// which would look the set's run-time metadata up again for every element.
    ///
    /// - Parameter elements: The decoded elements, in archive order.
    /// - Returns: A `Set<Self>` of them, or `nil`.
    static func keyedArchiveSet(keepingFirstOf elements: [Self]) -> Any?
}

extension KeyedCoding {
    /// `Module.TypeName`, the name Apple's archiver writes for a Swift class.
    public static var archivedClassName: String { String(reflecting: Self.self) }

    /// `nil`: superclass names are derived from the Swift class hierarchy.
    public static var archivedSuperclassNames: [String]? { nil }

    /// `nil`: only a `Hashable` type makes sets; see the `Hashable` default.
    @inlinable
    public static func keyedArchiveSet(keepingFirstOf elements: [Self]) -> Any? { nil }
}

extension KeyedCoding where Self: Hashable {
    /// A `Set<Self>` of `elements`, of equal elements the first kept (`insert` leaves an
    /// element already present), built by code specialized for `Self`.
    ///
    /// - Parameter elements: The decoded elements, in archive order.
    /// - Returns: The set.
    @inlinable
    public static func keyedArchiveSet(keepingFirstOf elements: [Self]) -> Any? {
        var set = Set<Self>(minimumCapacity: elements.count)
        for element in elements { set.insert(element) }
        return set
    }
}

/// A ``KeyedCoding`` type that can be decoded safely from untrusted archives: the
/// counterpart of `NSSecureCoding`.
///
/// Archivers and unarchivers that require secure coding (the default for
/// ``KeyedUnarchiver``) refuse types that do not adopt this protocol or whose
/// ``supportsSecureCoding`` is `false`. Adopting it is a promise that `init(coder:)`
/// decodes every object with ``KeyedUnarchiver/decodeObject(of:forKey:)->T?`` naming the
/// classes it expects.
public protocol SecureKeyedCoding: KeyedCoding {
    /// Whether this type may be decoded when secure coding is required.
    static var supportsSecureCoding: Bool { get }
}

extension SecureKeyedCoding {
    /// `true`: adopting ``SecureKeyedCoding`` opts in.
    public static var supportsSecureCoding: Bool { true }
}
