#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every output format comes from one place: the binary property list that the object
/// table builds while objects are encoded. XML is transcoded from it in one pass
/// (``XMLPropertyListTranscoder``, no ``PropertyList`` in between), and
/// ``KeyedArchiver/encodedPropertyList`` reads it back as a ``PropertyList``.
extension KeyedArchiver {
    /// The archive as a binary property list, finished once (after ``finishTable()``).
    func finishedArchiveBytes() throws -> Data {
        if let archiveBytes { return archiveBytes }
        let bytes = try table.finishBinary(
            topKeys: fieldKeys.elements(from: 0), topValues: fieldValues.elements(from: 0))
        archiveBytes = bytes
        return bytes
    }

    /// The archive as a property-list value.
    func finishedPropertyList() throws -> PropertyList {
        // The archive is our own output: read it without the limits meant for untrusted input.
        let options = PropertyListReadingOptions(
            maximumDepth: 64, maximumExpansionFactor: 1 << 20, baseValueAllowance: 1 << 30)
        return try PropertyList(from: try finishedArchiveBytes(), format: .binary, options: options)
    }
}
