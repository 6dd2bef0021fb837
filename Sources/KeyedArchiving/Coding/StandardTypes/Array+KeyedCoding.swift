/// An array of ``KeyedCoding`` elements archives as Apple's `NSArray` (`NS.objects`, a
/// list of references). It also decodes from `NSMutableArray`, `NSOrderedSet` and
/// `NSMutableOrderedSet` objects.
extension Array: KeyedCoding where Element: KeyedCoding {
    /// `NSArray`.
    public static var archivedClassName: String { "NSArray" }

    /// Writes the elements as references under `NS.objects`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeElements(self, forKey: "NS.objects")
    }

    /// Reads the elements, each of which must be an `Element`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` located at the offending element.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeElements(of: Element.self)
    }
}

extension Array: SecureKeyedCoding where Element: KeyedCoding {}

extension Array: ArchiveStandardType where Element: KeyedCoding {
    package static var acceptedClassNames: [String] {
        ClassCatalogue.names(ofKinds: .array, .orderedSet)
    }
}
