/// A type of the standard set (strings, numbers, data, dates, URLs, UUIDs, collections)
/// that decodes from several of Apple's class names, such as `NSArray` and
/// `NSMutableArray`.
///
/// Standard types are always allowed by secure decoding, as the types that the keyed
/// archive format itself is built from.
protocol ArchiveStandardType: SecureKeyedCoding {
    /// Every archived class name this type decodes from, ``KeyedCoding/archivedClassName`` first.
    static var acceptedClassNames: [String] { get }
}

/// A standard type that Apple stores as a plain property-list object in `$objects`
/// (a string, number or data) rather than as an object dictionary with a class.
protocol ArchivePlainValue: ArchiveStandardType {
    /// The plain `$objects` entry for this value.
    var archivePlainRecord: ArchivedObjectRecord { get }

    /// Creates a value from a plain `$objects` entry.
    ///
    /// - Throws: ``KeyedArchiveError`` (without a location; the caller adds it) with
    ///   code `typeMismatch` or `valueOutOfRange`.
    init(archivePlainValue value: PropertyList) throws
}

extension ArchiveStandardType {
    static func accepts(className name: String) -> Bool {
        acceptedClassNames.contains(name)
    }
}

extension PropertyList {
    /// What a plain `$objects` entry or inline value is, in the words of the archive
    /// format (`NSString`, `NSNumber`, `NSData`) for error messages.
    var archivedKindName: String {
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
