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
        // One look-up, not `containsValue` then `decodeDouble`: every date goes through here.
        guard let seconds = try coder.decodeDoubleIfPresent(forKey: "NS.time") else {
            throw coder.missingField("NS.time", of: "NSDate")
        }
        self.init(timeIntervalSinceReferenceDate: seconds)
    }
}

extension Date: ArchivePrimitive {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .date) }

    /// `false`: a date is an `NSDate` object in a keyed archive, a scalar only in the
    /// Codable bridge's slots.
    package static var isArchivedPlain: Bool { false }

    package var archivePlainRecord: ArchivedObjectRecord? { nil }

    /// Reads a date, or a real: the seconds since 2001-01-01.
    package init(archiveValue value: PropertyList) throws {
        switch value {
        case .date(let date): self = date
        case .real(let seconds): self = Date(timeIntervalSinceReferenceDate: seconds)
        default: throw StandardTypeError.mismatch(expected: "a date", found: value)
        }
    }
}
