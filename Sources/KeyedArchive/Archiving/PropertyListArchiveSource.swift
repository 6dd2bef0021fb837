#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `$objects` served from a property list parsed in full.
struct PropertyListArchiveSource: ArchiveObjectSource {
    let objects: [PropertyList]
    let top: PropertyListDictionary
    let headerNotes: [KeyedArchiveError]

    var objectCount: Int { objects.count }

    /// Validates the archive's root dictionary and keeps its `$objects` and `$top`.
    ///
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the root is not a
    ///   keyed archive, or `limitExceeded` when `$objects` is larger than allowed.
    init(_ root: PropertyList, options: KeyedUnarchivingOptions) throws {
        guard case .dictionary(let dictionary) = root else {
            throw KeyedArchiveError(
                .invalidArchive, "the property list is \(root.typeName), not a keyed archive dictionary")
        }
        let recovering = options.recoversFromDamage
        var notes = try ArchiveHeader.validate(
            archiver: dictionary["$archiver"], version: dictionary["$version"], recovering: recovering)
        let top = try ArchiveHeader.top(dictionary["$top"], recovering: recovering, notes: &notes)
        guard let objectsValue = dictionary["$objects"] else {
            throw KeyedArchiveError(.invalidArchive, "the archive has no $objects", at: .keyPath("$objects"))
        }
        guard case .array(let objects) = objectsValue else {
            throw KeyedArchiveError(
                .invalidArchive, "$objects is \(objectsValue.typeName), not an array",
                at: .keyPath("$objects"))
        }
        try ArchiveHeader.validate(objectCount: objects.count, options: options)
        notes += try ArchiveHeader.validate(null: objects[0], recovering: recovering)
        self.objects = objects
        self.top = top
        self.headerNotes = notes
    }

    func object(at index: Int) throws -> PropertyList {
        guard objects.indices.contains(index) else {
            throw KeyedArchiveError(
                .invalidArchive, "object reference \(index) is out of range (\(objects.count) objects)")
        }
        return objects[index]
    }
}
