#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `Data` archives as Apple's `NSData`: plain data in `$objects`. It also decodes from
/// `NSMutableData` objects (`NS.data`).
extension Data: SecureKeyedCoding {
    /// `NSData`.
    public static var archivedClassName: String { "NSData" }

    /// Writes the bytes inline under `NS.data`, as `NSMutableData` does. (Encoding data
    /// as an object stores it as plain data instead.)
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeBytes(self, forKey: "NS.data")
    }

    /// Reads an `NSMutableData` object's `NS.data`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.data` is
    ///   missing, or `typeMismatch` when it is not data.
    public init(coder: KeyedUnarchiver) throws {
        guard let bytes = try coder.decodeBytes(forKey: "NS.data") else {
            throw coder.missingField("NS.data", of: "NSData")
        }
        self = bytes
    }
}

extension Data: ArchivePrimitive {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .data) }
    package var archivePlainRecord: ArchivedObjectRecord? { .data(self) }

    package init(archiveValue value: PropertyList) throws {
        guard case .data(let bytes) = value else {
            throw StandardTypeError.mismatch(expected: "NSData", found: value)
        }
        self = bytes
    }
}
