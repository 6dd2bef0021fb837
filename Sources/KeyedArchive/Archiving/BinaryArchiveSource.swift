#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `$objects` read lazily from a binary property list: opening reads the header, the
/// trailer, the archive's root dictionary and the list of `$objects` references; each
/// entry is materialized (shallowly: object dictionaries hold UIDs) the first time a
/// decode reaches it, and kept.
///
/// Decoding one key of a large archive therefore touches only the objects that key
/// reaches.
final class BinaryArchiveSource: ArchiveObjectSource {
    private let document: BinaryPropertyListDocument
    /// The document's object index of each `$objects` entry.
    private let entries: [Int]
    /// Materialized entries by index: an array rather than a dictionary because every
    /// decode looks entries up, and hashing dominated the lookups (one slot per entry,
    /// already justified by the offset table that `entries` was read from).
    private var materialized: [PropertyList?]
    let top: PropertyListDictionary

    var objectCount: Int { entries.count }

    /// Opens a binary keyed archive.
    ///
    /// - Throws: ``KeyedArchiveError``: the binary reader's errors (`corruptData` with a
    ///   byte offset, …), `invalidArchive` when the root is not a keyed archive, or
    ///   `limitExceeded` when `$objects` is larger than allowed.
    init(data: Data, options: KeyedUnarchivingOptions) throws {
        let document = try BinaryPropertyListDocument(data, options: options.propertyListOptions)
        let root = document.topObject
        guard try document.kind(of: root) == .dictionary else {
            throw KeyedArchiveError(
                .invalidArchive,
                "the property list is \(try document.value(at: root).typeName), "
                    + "not a keyed archive dictionary")
        }
        func value(_ key: String) throws -> PropertyList? {
            try document.dictionaryValueReference(forKey: key, inDictionaryAt: root).map(document.value(at:))
        }
        try ArchiveHeader.validate(archiver: value("$archiver"), version: value("$version"))
        guard let topIndex = try document.dictionaryValueReference(forKey: "$top", inDictionaryAt: root)
        else {
            throw KeyedArchiveError(.invalidArchive, "the archive has no $top", at: .keyPath("$top"))
        }
        let topValue = try document.value(at: topIndex)
        guard case .dictionary(let top) = topValue else {
            throw KeyedArchiveError(
                .invalidArchive, "$top is \(topValue.typeName), not a dictionary", at: .keyPath("$top"))
        }
        guard
            let objectsIndex = try document.dictionaryValueReference(forKey: "$objects", inDictionaryAt: root)
        else {
            throw KeyedArchiveError(.invalidArchive, "the archive has no $objects", at: .keyPath("$objects"))
        }
        let objectsKind = try document.kind(of: objectsIndex)
        guard objectsKind == .array else {
            throw KeyedArchiveError(
                .invalidArchive, "$objects is \(objectsKind), not an array", at: .keyPath("$objects"))
        }
        let entries = try document.arrayReferences(at: objectsIndex)
        try ArchiveHeader.validate(objectCount: entries.count, options: options)
        self.document = document
        self.entries = entries
        self.materialized = [PropertyList?](repeating: nil, count: entries.count)
        self.top = top
        try ArchiveHeader.validate(null: object(at: 0))
    }

    func object(at index: Int) throws -> PropertyList {
        guard entries.indices.contains(index) else {
            throw KeyedArchiveError(
                .invalidArchive, "object reference \(index) is out of range (\(entries.count) objects)")
        }
        if let known = materialized[index] { return known }
        let value = try document.value(at: entries[index])
        materialized[index] = value
        return value
    }
}
