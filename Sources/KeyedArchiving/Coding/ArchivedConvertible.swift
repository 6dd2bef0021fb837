/// The earlier name of a value type's conformance for ``ArchivedConvertible``, whose
/// requirements repeated ``KeyedCoding``'s: adopt ``SecureKeyedCoding`` instead (the same
/// `encode(with:)`, `init(coder:)` and `supportsSecureCoding`, default `true`).
///
/// Existing conformances compile unchanged and archive the same bytes.
@available(*, deprecated, renamed: "SecureKeyedCoding")
public typealias KeyedCodingConvertible = SecureKeyedCoding

/// Archives a ``KeyedCoding`` value, such as a struct you do not own, as an object of a
/// keyed archive under a class name chosen for the wrapper instead of the type.
///
/// ```swift
/// struct Coordinate: Equatable { var latitude: Double; var longitude: Double }  // not yours
///
/// extension Coordinate: SecureKeyedCoding {
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
/// wrapped type's ``KeyedCoding/archivedClassName``; choose another with
/// ``KeyedArchiver/setClassName(_:for:)-swift.type.method`` and
/// ``KeyedUnarchiver/setClass(_:forClassName:)-swift.type.method`` (or their per-archiver
/// forms) on `ArchivedConvertible<Value>`.
///
/// The wrapper is a value: a class instance wrapped twice is stored twice. Archive the
/// value itself (`coder.encode(value, forKey:)`) when its own class name will do.
/// For `Codable` values use ``ArchivedCodable`` instead, which needs no conformance.
public struct ArchivedConvertible<Value: KeyedCoding>: SecureKeyedCoding {
    /// The wrapped value.
    public var value: Value

    /// Wraps a value.
    ///
    /// - Parameter value: The value to archive.
    public init(_ value: Value) {
        self.value = value
    }

    /// The wrapped type's ``KeyedCoding/archivedClassName`` (by default its
    /// `Module.TypeName`).
    public static var archivedClassName: String { Value.archivedClassName }

    /// The wrapped type's ``SecureKeyedCoding/supportsSecureCoding``; `false` when it
    /// adopts only ``KeyedCoding``.
    public static var supportsSecureCoding: Bool {
        (Value.self as? any SecureKeyedCoding.Type)?.supportsSecureCoding ?? false
    }

    /// Writes the value's fields with its ``KeyedCoding/encode(with:)``.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        value.encode(with: coder)
    }

    /// Reads the value with its ``KeyedCoding/init(coder:)``.
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
