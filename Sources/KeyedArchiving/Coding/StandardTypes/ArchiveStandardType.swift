/// A type of the standard set (strings, numbers, data, dates, URLs, UUIDs, collections)
/// that decodes from several of Apple's class names, such as `NSArray` and
/// `NSMutableArray`.
///
/// Standard types are always allowed by secure decoding, as the types that the keyed
/// archive format itself is built from.
package protocol ArchiveStandardType: SecureKeyedCoding {
    /// Every archived class name this type decodes from, ``KeyedCoding/archivedClassName`` first.
    static var acceptedClassNames: [String] { get }
}

/// A standard type whose value is one property-list scalar: the strings, the numbers,
/// `Bool`, `Data` and `Date`. The keyed archiver, the unarchiver and the Codable bridge
/// (both layouts, both directions) read and write these directly through this one
/// protocol instead of through their coding methods.
package protocol ArchivePrimitive: ArchiveStandardType {
    /// Whether a keyed archive stores every value of the type as its
    /// ``archivePlainRecord`` in `$objects`; `false` for `Date`, which Apple archives as
    /// an `NSDate` object.
    static var isArchivedPlain: Bool { get }

    /// The plain `$objects` entry for this value, or `nil` when ``isArchivedPlain`` is
    /// `false`.
    var archivePlainRecord: ArchivedObjectRecord? { get }

    /// Creates a value from a plain value (an `$objects` entry, an inline field, a Codable
    /// slot).
    ///
    /// - Throws: ``KeyedArchiveError`` (without a location; the caller adds it) with
    ///   code `typeMismatch` or `valueOutOfRange`.
    init(archiveValue value: PropertyList) throws
}

extension ArchivePrimitive {
    package static var isArchivedPlain: Bool { true }
}

/// The number types (all of at most 64 bits) share one conformance.
extension ArchivePrimitive where Self: FixedWidthInteger {
    package static var acceptedClassNames: [String] { FoundationClass.names(ofKinds: .number) }

    /// The value as a property-list integer.
    @inline(__always)
    var archiveInteger: PropertyListInteger {
        Self.isSigned
            ? PropertyListInteger(Int64(truncatingIfNeeded: self))
            : PropertyListInteger(UInt64(truncatingIfNeeded: self))
    }

    package var archivePlainRecord: ArchivedObjectRecord? { .integer(archiveInteger) }

    package init(archiveValue value: PropertyList) throws {
        self = try ArchiveScalar.integer(value, as: Self.self)
    }
}

extension ArchiveStandardType {
    static func accepts(className name: String) -> Bool {
        acceptedClassNames.contains(name)
    }
}

extension PropertyList {
    /// What a plain `$objects` entry or inline value is, in the words of the archive
    /// format (`NSString`, `NSNumber`, `NSData`) for error messages.
    package var archivedKindName: String {
        switch self {
        case .string: return "NSString"
        case .integer: return "NSNumber (integer)"
        case .real: return "NSNumber (real)"
        case .bool: return "NSNumber (Boolean)"
        case .data: return "NSData"
        case .date: return "a date"
        case .array: return "an inline array"
        case .dictionary: return "a dictionary without $class"
        case .uid: return "an object reference"
        }
    }
}

/// Errors shared by the standard conformances; the unarchiver adds the key path.
enum StandardTypeError {
    static func mismatch(expected: String, found value: PropertyList) -> KeyedArchiveError {
        KeyedArchiveError(.typeMismatch, "expected \(expected), found \(value.archivedKindName)")
    }

    static func outOfRange(_ value: CustomStringConvertible, _ type: Any.Type) -> KeyedArchiveError {
        KeyedArchiveError(.valueOutOfRange, "value \(value) does not fit in \(type)")
    }
}
