#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `URL` archives as Apple's `NSURL`: an object whose `NS.base` refers to the base URL
/// (nil for none) and `NS.relative` to the string relative to it.
extension URL: SecureKeyedCoding {
    /// `NSURL`.
    public static var archivedClassName: String { "NSURL" }

    /// Writes `NS.base` and `NS.relative`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        if let baseURL {
            coder.encode(baseURL, forKey: "NS.base")
            coder.encode(relativeString, forKey: "NS.relative")
        } else {
            coder.encode(nil, forKey: "NS.base")
            coder.encode(absoluteString, forKey: "NS.relative")
        }
    }

    /// Reads `NS.base` and `NS.relative`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.relative` is
    ///   missing or not a valid URL, or `typeMismatch` when a value has the wrong type.
    public init(coder: KeyedUnarchiver) throws {
        let base = try coder.decodeObject(of: URL.self, forKey: "NS.base")
        guard let relative = try coder.decodeObject(of: String.self, forKey: "NS.relative") else {
            throw coder.missingField("NS.relative", of: "NSURL")
        }
        guard let url = URL(string: relative, relativeTo: base) else {
            throw coder.failure(
                .invalidArchive,
                "NS.relative \(DisplayText.quoted(relative, maximumScalars: 100)) is not a valid URL")
        }
        self = url
    }
}

extension URL: ArchiveStandardType {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .url) }
}
