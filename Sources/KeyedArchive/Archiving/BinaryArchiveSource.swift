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
    // The two caches below are buffers, not dictionaries or stored arrays: every decoded
    // object goes through them, and hashing, then the exclusivity checks on mutable
    // class properties, dominated the lookups. One slot per entry (or per document
    // object) is justified by the offset table already read; indices are checked.
    /// Materialized `$objects` entries, by entry index.
    private let materialized: UnsafeMutableBufferPointer<PropertyList?>
    /// Dictionary keys already read, by document object index: an archive's objects
    /// share a few key strings, which are decoded once instead of once per object.
    private let keyStrings: UnsafeMutableBufferPointer<String?>
    private let valueBudget: Int
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
        self.materialized = .allocate(capacity: entries.count)
        materialized.initialize(repeating: nil)
        self.keyStrings = .allocate(capacity: document.objectCount)
        keyStrings.initialize(repeating: nil)
        self.valueBudget = options.propertyListOptions.valueBudget(forInputLength: data.count)
        self.top = top
        try ArchiveHeader.validate(null: object(at: 0))
    }

    func object(at index: Int) throws -> PropertyList {
        guard entries.indices.contains(index) else {
            throw KeyedArchiveError(
                .invalidArchive, "object reference \(index) is out of range (\(entries.count) objects)")
        }
        if let known = materialized[index] { return known }
        let reference = entries[index]
        let value = try shallowDictionary(at: reference) ?? document.value(at: reference)
        materialized[index] = value
        return value
    }

    deinit {
        materialized.deinitialize().deallocate()
        keyStrings.deinitialize().deallocate()
    }

    /// The dictionary at `reference` when it holds only scalars and references, as an
    /// object's does, read with cached key strings; `nil` for anything else, which the
    /// general `value(at:)` reads with its depth, cycle and budget checks and errors.
    private func shallowDictionary(at reference: Int) throws -> PropertyList? {
        try document.withScanner { scanner in
            let object = try scanner.object(reference)
            // Each entry spends two values of the budget, as `value(at:)` counts them.
            guard object.kind == .dictionary, object.count < valueBudget / 2 else { return nil }
            var dictionary = PropertyListDictionary(minimumCapacity: object.count)
            for position in 0..<object.count {
                let keyIndex = try scanner.reference(object, at: position)
                let key: String
                if keyStrings.indices.contains(keyIndex), let known = keyStrings[keyIndex] {
                    key = known
                } else {
                    key = try scanner.key(keyIndex, position: position, of: object)
                    if keyStrings.indices.contains(keyIndex) { keyStrings[keyIndex] = key }
                }
                let value = try scanner.object(scanner.reference(object, at: object.count + position))
                guard !value.kind.isContainer else { return nil }
                dictionary.setValue(try scanner.scalar(value), forKey: key)
            }
            return .dictionary(dictionary)
        }
    }
}
