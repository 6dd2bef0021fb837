/// A type whose values can write themselves to a keyed archive and read themselves back,
/// without a class name of their own: adopt it, retroactively if need be, for a value type
/// you do not own, and archive its values with ``ArchivedConvertible``.
///
/// The requirements are those of ``KeyedCoding``; the class name is the wrapper's, chosen
/// where the value is archived instead of by the type:
///
/// ```swift
/// struct Coordinate: Equatable { var latitude: Double; var longitude: Double }  // not yours
///
/// extension Coordinate: KeyedCodingConvertible {
///     func encode(with coder: KeyedArchiver) {
///         coder.encode(latitude, forKey: "lat")
///         coder.encode(longitude, forKey: "lon")
///     }
///
///     init(coder: KeyedUnarchiver) throws {
///         self.init(latitude: try coder.decodeDouble(forKey: "lat"),
///                   longitude: try coder.decodeDouble(forKey: "lon"))
///     }
/// }
/// ```
///
/// A type that adopts both this protocol and ``KeyedCoding`` shares one implementation of
/// `encode(with:)` and `init(coder:)`.
public protocol KeyedCodingConvertible {
    /// Whether ``ArchivedConvertible`` of this type may be decoded when secure coding is required.
    ///
    /// The default is `true`: the objects `init(coder:)` reads still go through the
    /// unarchiver's checks, which in secure mode refuse untyped `decodeObject(forKey:)` and
    /// any class not named at the call.
    static var supportsSecureCoding: Bool { get }

    /// Writes the value's contents to `coder` as the fields of the wrapping object.
    ///
    /// - Parameter coder: The archiver to write to.
    func encode(with coder: KeyedArchiver)

    /// Creates a value from the fields of the object `coder` is positioned at.
    ///
    /// - Parameter coder: The unarchiver to read from.
    /// - Throws: Whatever the `decode…` calls throw (a ``KeyedArchiveError``), or an error
    ///   of your own when the contents are unacceptable; the whole decode fails.
    init(coder: KeyedUnarchiver) throws
}

extension KeyedCodingConvertible {
    /// `true`: nested objects are still checked by the unarchiver.
    public static var supportsSecureCoding: Bool { true }
}

/// Archives a ``KeyedCodingConvertible`` value, such as a struct you do not own, as an
/// object of a keyed archive under a class name you choose.
///
/// ```swift
/// KeyedArchiver.setClassName("Coordinate", for: ArchivedConvertible<Coordinate>.self)
/// KeyedUnarchiver.setClass(ArchivedConvertible<Coordinate>.self, forClassName: "Coordinate")
/// let wrapped = ArchivedConvertible(Coordinate(latitude: 48.1, longitude: 11.6))
/// let data = try KeyedArchiver.archivedData(withRootObject: wrapped, requiringSecureCoding: true)
/// let coordinate = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedConvertible<Coordinate>.self, from: data)?.value
/// ```
///
/// The object is `{ $class: name, …fields written by encode(with:) }`, exactly what a
/// ``KeyedCoding`` struct with that class name would write, so Apple's `NSKeyedUnarchiver`
/// reads it into an `NSCoding` class mapped to the name. The class name defaults to the
/// wrapped type's `Module.TypeName`; choose another with
/// ``KeyedArchiver/setClassName(_:for:)-swift.type.method`` and
/// ``KeyedUnarchiver/setClass(_:forClassName:)-swift.type.method`` (or their per-archiver
/// forms) on `ArchivedConvertible<Value>`.
///
/// For `Codable` values use ``ArchivedCodable`` instead, which needs no conformance.
public struct ArchivedConvertible<Value: KeyedCodingConvertible>: SecureKeyedCoding {
    /// The wrapped value.
    public var value: Value

    /// Wraps a value.
    ///
    /// - Parameter value: The value to archive.
    public init(_ value: Value) {
        self.value = value
    }

    /// The wrapped type's `Module.TypeName`.
    public static var archivedClassName: String { String(reflecting: Value.self) }

    /// The wrapped type's ``KeyedCodingConvertible/supportsSecureCoding``.
    public static var supportsSecureCoding: Bool { Value.supportsSecureCoding }

    /// Writes the value's fields with its ``KeyedCodingConvertible/encode(with:)``.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        value.encode(with: coder)
    }

    /// Reads the value with its ``KeyedCodingConvertible/init(coder:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError``, or the value's own error.
    public init(coder: KeyedUnarchiver) throws {
        value = try Value(coder: coder)
    }
}

extension ArchivedConvertible: Equatable where Value: Equatable {}
extension ArchivedConvertible: Hashable where Value: Hashable {}
extension ArchivedConvertible: Sendable where Value: Sendable {}
