/// A type that can be read from a typedstream (what `NSArchiver` wrote): the portable
/// counterpart of an `initWithCoder:` that calls `decodeValueOfObjCType:at:` and
/// `decodeObject` in order.
///
/// Typedstream fields have no names: a type reads its object's values in the order
/// the class wrote them, superclasses' values first.
///
/// ```swift
/// struct Marker: TypedStreamDecodable {
///     static var typedStreamClassName: String { "Marker" }
///     var label: String
///     var position: Int32
///
///     init(typedStreamCoder coder: TypedStreamUnarchiver) throws {
///         label = try coder.decodeObject(of: String.self) ?? ""
///         position = try coder.decodeInt32()
///     }
/// }
/// ```
///
/// A type that also adopts ``KeyedCoding`` is read from both formats under one name:
/// ``typedStreamClassName`` defaults to its ``KeyedCoding/archivedClassName``.
public protocol TypedStreamDecodable {
    /// The class name this type is read from. Default: `Module.TypeName`, or the
    /// ``KeyedCoding/archivedClassName`` of a type that also adopts ``KeyedCoding``.
    static var typedStreamClassName: String { get }

    /// Creates a value from the object `coder` is positioned at, reading its values in
    /// stream order.
    ///
    /// - Parameter coder: The unarchiver to read from.
    /// - Throws: Whatever the `decode…` calls throw (a ``KeyedArchiveError``), or an error
    ///   of your own; the whole decode fails.
    init(typedStreamCoder coder: TypedStreamUnarchiver) throws
}

extension TypedStreamDecodable {
    /// `Module.TypeName`.
    public static var typedStreamClassName: String { String(reflecting: Self.self) }
}

extension TypedStreamDecodable where Self: KeyedCoding {
    /// The keyed-archive class name, so that one name serves both formats.
    public static var typedStreamClassName: String { archivedClassName }
}
