/// Where an unarchiver reads `$objects` entries from, one at a time, by index.
///
/// This seam lets the unarchiver read a binary property list lazily (materializing only
/// the entries a decode reaches; an XML archive is first rewritten as one, see
/// ``BinaryArchiveSource``), while OpenStep text and values the caller already parsed are
/// served from a ``PropertyList`` tree (``PropertyListArchiveSource``).
protocol ArchiveObjectSource {
    /// The number of entries in `$objects`, including `$null` at index 0.
    var objectCount: Int { get }

    /// The `$top` dictionary: top-level keys mapped to references or inline scalars.
    var top: PropertyListDictionary { get }

    /// The `$objects` entry at `index`, shallow: object dictionaries contain UIDs.
    ///
    /// - Parameter index: An index below ``objectCount``.
    /// - Throws: ``KeyedArchiveError`` if the entry cannot be read.
    func object(at index: Int) throws -> PropertyList

    /// What was unusual about the archive's header, read anyway because the options
    /// recover from damage (``KeyedUnarchivingOptions/recoversFromDamage``).
    var headerNotes: [KeyedArchiveError] { get }
}

/// A field value as the hot decoding paths read it (see
/// ``KeyedUnarchiver/quickValue(forKey:)``): a reference or a scalar, read without a
/// ``PropertyList`` from a binary archive, or taken from a parsed dictionary.
enum QuickValue {
    /// A UID, checked to be below the object count; 0 is nil.
    case reference(Int)
    case real(Double)
    /// An integer that fits in 64 bits (binary: 1, 2, 4 bytes unsigned or 8 signed).
    case integer(Int64)
    case bool(Bool)

    /// `value` as a quick value, or `nil` for any other kind (or an integer beyond `Int64`).
    @inline(__always)
    init?(_ value: PropertyList?, objectCount: Int) {
        switch value {
        case .uid(let raw)?:
            guard raw < UInt64(objectCount) else { return nil }
            self = .reference(Int(raw))
        case .real(let real)?: self = .real(real)
        case .integer(let integer)?:
            guard let exact = integer.int64Value else { return nil }
            self = .integer(exact)
        case .bool(let flag)?: self = .bool(flag)
        default: return nil
        }
    }
}

/// Checks of the archive's root dictionary shared by every source.
enum ArchiveHeader {
    /// Checks `$archiver` and `$version`. When `recovering`
    /// (``KeyedUnarchivingOptions/recoversFromDamage``), a missing or unexpected value is
    /// returned as a note instead of thrown: `$archiver` variants (`NRKeyedArchiver`, …) and
    /// other `$version`s are read as `NSKeyedArchiver` 100000.
    @discardableResult
    static func validate(archiver: PropertyList?, version: PropertyList?, recovering: Bool = false) throws
        -> [KeyedArchiveError]
    {
        var notes: [KeyedArchiveError] = []
        func fail(_ error: KeyedArchiveError) throws {
            guard recovering else { throw error }
            notes.append(error)
        }
        if let archiver {
            if archiver.stringValue != "NSKeyedArchiver" {
                try fail(
                    KeyedArchiveError(
                        .invalidArchive, "$archiver is \(describe(archiver)), expected \"NSKeyedArchiver\"",
                        at: .keyPath("$archiver")))
            }
        } else {
            try fail(
                KeyedArchiveError(.invalidArchive, "the archive has no $archiver", at: .keyPath("$archiver")))
        }
        if let version {
            if version.intValue != 100000 {
                try fail(
                    KeyedArchiveError(
                        .invalidArchive, "$version is \(describe(version)), expected 100000",
                        at: .keyPath("$version")))
            }
        } else {
            try fail(
                KeyedArchiveError(.invalidArchive, "the archive has no $version", at: .keyPath("$version")))
        }
        return notes
    }

    static func validate(objectCount: Int, options: KeyedUnarchivingOptions) throws {
        guard objectCount > 0 else {
            throw KeyedArchiveError(
                .invalidArchive, "$objects is empty; it must start with $null", at: .keyPath("$objects"))
        }
        guard objectCount <= options.maximumObjectCount else {
            throw KeyedArchiveError(
                .limitExceeded,
                "$objects has \(objectCount) entries, more than the limit of \(options.maximumObjectCount)",
                at: .keyPath("$objects"))
        }
    }

    @discardableResult
    static func validate(null entry: PropertyList, recovering: Bool = false) throws -> [KeyedArchiveError] {
        guard entry.stringValue == "$null" else {
            let error = KeyedArchiveError(
                .invalidArchive, "$objects[0] is \(describe(entry)), expected \"$null\"",
                at: .keyPath("$objects[0]"))
            if recovering { return [error] }
            throw error
        }
        return []
    }

    /// `$top` as a dictionary; when `recovering`, a missing or malformed `$top` is empty
    /// and noted.
    static func top(_ value: PropertyList?, recovering: Bool, notes: inout [KeyedArchiveError]) throws
        -> PropertyListDictionary
    {
        let error: KeyedArchiveError
        if let value {
            if case .dictionary(let top) = value { return top }
            error = KeyedArchiveError(
                .invalidArchive, "$top is \(value.typeName), not a dictionary", at: .keyPath("$top"))
        } else {
            error = KeyedArchiveError(.invalidArchive, "the archive has no $top", at: .keyPath("$top"))
        }
        guard recovering else { throw error }
        notes.append(error)
        return PropertyListDictionary()
    }

    private static func describe(_ value: PropertyList) -> String {
        switch value {
        case .string(let text): return DisplayText.quoted(text, maximumScalars: 64)
        case .integer(let integer): return integer.description
        default: return "a \(value.typeName)"
        }
    }
}
