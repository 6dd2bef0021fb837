/// Checks of a keyed archive's root dictionary, made when it is opened.
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
