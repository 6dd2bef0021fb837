#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `Date` archives as Apple's `NSDate`: an object whose `NS.time` is a real, the
/// seconds since 2001-01-01T00:00:00Z.
extension Date: SecureKeyedCoding {
    /// `NSDate`.
    public static var archivedClassName: String { "NSDate" }

    /// Writes `NS.time`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(timeIntervalSinceReferenceDate, forKey: "NS.time")
    }

    /// Reads `NS.time`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.time` is
    ///   missing, or `typeMismatch` when it is not a number.
    public init(coder: KeyedUnarchiver) throws {
        guard coder.containsValue(forKey: "NS.time") else {
            throw coder.missingField("NS.time", of: "NSDate")
        }
        self.init(timeIntervalSinceReferenceDate: try coder.decodeDouble(forKey: "NS.time"))
    }
}

extension Date: ArchiveStandardType {
    static var acceptedClassNames: [String] { ["NSDate"] }
}
