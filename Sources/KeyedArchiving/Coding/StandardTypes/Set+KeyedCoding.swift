/// A set of ``KeyedCoding`` elements archives as Apple's `NSSet` (`NS.objects`). It
/// also decodes from `NSMutableSet`, `NSCountedSet` (ignoring the counts), `NSOrderedSet`
/// and `NSMutableOrderedSet` objects.
extension Set: KeyedCoding where Element: KeyedCoding {
    /// `NSSet`.
    public static var archivedClassName: String { "NSSet" }

    /// Writes the elements as references under `NS.objects`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeReferences(self, forKey: "NS.objects")
    }

    /// Reads the elements, each of which must be an `Element`; duplicates collapse (the
    /// first of equal elements is kept).
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` located at the offending element.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeSetElements(of: Element.self)
    }
}

extension Set: SecureKeyedCoding where Element: KeyedCoding {}

extension Set: ArchiveStandardType where Element: KeyedCoding {
    package static var acceptedClassNames: [String] {
        ClassCatalogue.names(ofKinds: .set, .countedSet, .orderedSet)
    }
}
