/// The value of Apple's `NSNull`, a placeholder for "no object" inside collections.
///
/// The untyped decoding methods return it for `NSNull` objects; encode it to write one.
public struct ArchivedNull: SecureKeyedCoding, Hashable, Sendable {
    /// `NSNull`.
    public static var archivedClassName: String { "NSNull" }

    /// Creates the null value.
    public init() {}

    /// Writes nothing: `NSNull` has no keys.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {}

    /// Creates the null value.
    ///
    /// - Parameter coder: The unarchiver.
    public init(coder: KeyedUnarchiver) throws {}
}

extension ArchivedNull: ArchiveStandardType {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .null) }
}
