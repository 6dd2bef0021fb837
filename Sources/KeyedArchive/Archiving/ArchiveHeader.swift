/// Checks of a keyed archive's root dictionary, made when it is opened.
enum ArchiveHeader {
    static func validate(archiver: PropertyList?, version: PropertyList?) throws {
        guard let archiver else {
            throw KeyedArchiveError(
                .invalidArchive, "the archive has no $archiver", at: .keyPath("$archiver"))
        }
        guard archiver.stringValue == "NSKeyedArchiver" else {
            throw KeyedArchiveError(
                .invalidArchive, "$archiver is \(describe(archiver)), expected \"NSKeyedArchiver\"",
                at: .keyPath("$archiver"))
        }
        guard let version else {
            throw KeyedArchiveError(.invalidArchive, "the archive has no $version", at: .keyPath("$version"))
        }
        guard version.intValue == 100000 else {
            throw KeyedArchiveError(
                .invalidArchive, "$version is \(describe(version)), expected 100000", at: .keyPath("$version")
            )
        }
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

    static func validate(null entry: PropertyList) throws {
        guard entry.stringValue == "$null" else {
            throw KeyedArchiveError(
                .invalidArchive, "$objects[0] is \(describe(entry)), expected \"$null\"",
                at: .keyPath("$objects[0]"))
        }
    }

    private static func describe(_ value: PropertyList) -> String {
        switch value {
        case .string(let text): return DisplayText.quoted(text, maximumScalars: 64)
        case .integer(let integer): return integer.description
        default: return "a \(value.typeName)"
        }
    }
}
