/// A dictionary of ``KeyedCoding`` keys and values archives as Apple's `NSDictionary`
/// (`NS.keys` and `NS.objects`, two lists of references of the same length). It also
/// decodes from `NSMutableDictionary` objects. Keys need not be strings: an `[Int: T]`
/// reads an `NSDictionary` with `NSNumber` keys.
extension Dictionary: KeyedCoding where Key: KeyedCoding, Value: KeyedCoding {
    /// `NSDictionary`.
    public static var archivedClassName: String { "NSDictionary" }

    /// Writes the keys under `NS.keys` and the values under `NS.objects`, in the same order.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeReferences(keys, forKey: "NS.keys")
        coder.encodeReferences(values, forKey: "NS.objects")
    }

    /// Reads the entries; a repeated key keeps its last value.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` located at the offending key or value;
    ///   `invalidArchive` when `NS.keys` and `NS.objects` differ in length.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeEntries(keys: Key.self, values: Value.self)
    }
}

extension Dictionary: SecureKeyedCoding where Key: KeyedCoding, Value: KeyedCoding {}

extension Dictionary: ArchiveStandardType where Key: KeyedCoding, Value: KeyedCoding {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .dictionary) }
}
