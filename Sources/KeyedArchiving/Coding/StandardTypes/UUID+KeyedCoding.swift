#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `UUID` archives as Apple's `NSUUID`: an object whose `NS.uuidbytes` holds the 16
/// bytes inline.
extension UUID: SecureKeyedCoding {
    /// `NSUUID`.
    public static var archivedClassName: String { "NSUUID" }

    /// Writes `NS.uuidbytes`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        let bytes = withUnsafeBytes(of: uuid) { Array($0) }
        coder.encodeBytes(bytes, forKey: "NS.uuidbytes")
    }

    /// Reads `NS.uuidbytes`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.uuidbytes` is
    ///   missing or not 16 bytes, or `typeMismatch` when it is not data.
    public init(coder: KeyedUnarchiver) throws {
        guard let data = try coder.decodeBytes(forKey: "NS.uuidbytes") else {
            throw coder.missingField("NS.uuidbytes", of: "NSUUID")
        }
        guard data.count == 16 else {
            throw coder.failure(.invalidArchive, "NS.uuidbytes has \(data.count) bytes, expected 16")
        }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { buffer in
            for (index, byte) in data.enumerated() where index < buffer.count { buffer[index] = byte }
        }
        self.init(uuid: value)
    }
}

extension UUID: ArchiveStandardType {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .uuid) }
}
