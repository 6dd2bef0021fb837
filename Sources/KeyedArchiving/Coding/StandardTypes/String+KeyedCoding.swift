/// `String` archives as Apple's `NSString`: a plain string in `$objects`. It also
/// decodes from `NSMutableString` objects (`NS.string`).
extension String: SecureKeyedCoding {
    /// `NSString`.
    public static var archivedClassName: String { "NSString" }

    /// Writes the string inline under `NS.string`, as `NSMutableString` does. (Encoding
    /// a string as an object stores it as a plain string instead.)
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.string(self), forKey: "NS.string")
    }

    /// Reads an `NSMutableString` object's `NS.string`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.string` is
    ///   missing, or `typeMismatch` when it is not a string.
    public init(coder: KeyedUnarchiver) throws {
        guard let value = try coder.decodeObject(of: String.self, forKey: "NS.string") else {
            throw coder.missingField("NS.string", of: "NSString")
        }
        self = value
    }
}

extension String: ArchivePrimitive {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .string) }
    package var archivePlainRecord: ArchivedObjectRecord? { .string(self) }

    package init(archiveValue value: PropertyList) throws {
        guard case .string(let text) = value else {
            throw StandardTypeError.mismatch(expected: "NSString", found: value)
        }
        self = text
    }
}

extension KeyedUnarchiver {
    /// The error for a standard object that lacks one of its keys.
    package func missingField(_ key: String, of className: String) -> KeyedArchiveError {
        failure(.invalidArchive, "\(className) object has no \(key)")
    }
}
