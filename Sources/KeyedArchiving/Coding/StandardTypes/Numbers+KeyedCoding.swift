/// The number types and `Bool` archive as Apple's `NSNumber`: a plain property-list
/// integer, real or Boolean in `$objects` (or inline, for the typed scalar methods).
///
/// Decoding is strict: an integer type accepts only integers that fit it
/// (`valueOutOfRange` otherwise), floating-point types accept reals and integers, `Bool`
/// accepts Booleans (and the integers 0 and 1); anything else is `typeMismatch`.
///
/// Apple never archives `NSNumber` as an object dictionary; when a number's
/// ``KeyedCoding/encode(with:)`` is called directly it writes its value inline under
/// `NS.number`, and its ``KeyedCoding/init(coder:)`` reads that back.

extension Int: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a Int.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: Int.self)
    }
}

extension Int: ArchivePrimitive {}

extension Int8: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a Int8.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: Int8.self)
    }
}

extension Int8: ArchivePrimitive {}

extension Int16: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a Int16.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: Int16.self)
    }
}

extension Int16: ArchivePrimitive {}

extension Int32: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a Int32.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: Int32.self)
    }
}

extension Int32: ArchivePrimitive {}

extension Int64: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a Int64.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: Int64.self)
    }
}

extension Int64: ArchivePrimitive {}

extension UInt: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a UInt.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: UInt.self)
    }
}

extension UInt: ArchivePrimitive {}

extension UInt8: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a UInt8.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: UInt8.self)
    }
}

extension UInt8: ArchivePrimitive {}

extension UInt16: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a UInt16.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: UInt16.self)
    }
}

extension UInt16: ArchivePrimitive {}

extension UInt32: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a UInt32.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: UInt32.self)
    }
}

extension UInt32: ArchivePrimitive {}

extension UInt64: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.integer(archiveInteger), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a UInt64.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: UInt64.self)
    }
}

extension UInt64: ArchivePrimitive {}

extension Double: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.real(bitPattern), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a number.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: Double.self)
    }
}

extension Double: ArchivePrimitive {
    package static var acceptedClassNames: [String] { FoundationClass.names(ofKinds: .number) }
    package var archivePlainRecord: ArchivedObjectRecord? { .real(bitPattern) }
    package init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.double(value) }
}

extension Float: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.float(bitPattern), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a number in Float's range.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: Float.self)
    }
}

extension Float: ArchivePrimitive {
    package static var acceptedClassNames: [String] { FoundationClass.names(ofKinds: .number) }
    package var archivePlainRecord: ArchivedObjectRecord? { .float(bitPattern) }
    package init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.float(value) }
}

extension Bool: SecureKeyedCoding {
    /// `NSNumber`.
    public static var archivedClassName: String { "NSNumber" }

    /// Writes the value inline under `NS.number`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeInlinePlain(.bool(self), forKey: "NS.number")
    }

    /// Reads the value written by ``encode(with:)``.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.number` is
    ///   missing, `typeMismatch` or `valueOutOfRange` when it does not hold a Boolean.
    public init(coder: KeyedUnarchiver) throws {
        self = try coder.decodeNumberField(of: Bool.self)
    }
}

extension Bool: ArchivePrimitive {
    package static var acceptedClassNames: [String] { FoundationClass.names(ofKinds: .number) }
    package var archivePlainRecord: ArchivedObjectRecord? { .bool(self) }
    package init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.bool(value) }
}

extension KeyedUnarchiver {
    /// `NS.number` of the current object, for the number types' `init(coder:)`.
    func decodeNumberField<T: KeyedCoding>(of type: T.Type) throws -> T {
        guard let value = try decodeObject(of: T.self, forKey: "NS.number") else {
            throw KeyedArchiveError(
                .invalidArchive, "NSNumber has no NS.number", at: .keyPath(ArchiveKeyPath.render(path)))
        }
        return value
    }
}
