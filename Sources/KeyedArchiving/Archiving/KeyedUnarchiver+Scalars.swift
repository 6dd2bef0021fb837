#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Scalars are read strictly: a value of another kind (a real where an integer is asked,
/// a string where a Boolean is asked) throws `typeMismatch`, and a number that does not
/// fit the requested type throws `valueOutOfRange`, instead of being converted silently.
/// A missing key gives `0` or `false`, as with Foundation.
///
/// Each method reads its value inline (what `encode(_:forKey:)` of a number writes) or
/// through a reference to a number object (what ``KeyedArchiver/encodeObject(_:forKey:)``
/// and Foundation's `encode(NSNumber(value:), forKey:)` write); Foundation's read only
/// the inline form.
extension KeyedUnarchiver {
    /// Decodes a Boolean stored under `key`.
    ///
    /// Accepts a Boolean, or the integers 0 and 1 that some writers use.
    ///
    /// - Parameter key: The key in the current object.
    /// - Returns: The value, or `false` if the key is missing.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for any other value.
    public func decodeBool(forKey key: String) throws -> Bool {
        switch quickValue(forKey: key) {
        case .bool(let flag)?: return flag
        case .integer(let integer)? where integer == 0 || integer == 1: return integer == 1
        default: break
        }
        return try perform(.key(key)) {
            guard let value = try scalar(forKey: key, expected: "a Boolean") else { return false }
            return try locating { try ArchiveScalar.bool(value) }
        }
    }

    /// Decodes an integer stored under `key`.
    ///
    /// - Parameter key: The key in the current object.
    /// - Returns: The value, or `0` if the key is missing.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for a value that is not an
    ///   integer, or `valueOutOfRange` for one that does not fit in `Int`.
    public func decodeInteger(forKey key: String) throws -> Int {
        try decodeInteger(Int.self, forKey: key)
    }

    /// Decodes a 32-bit integer stored under `key`.
    ///
    /// - Parameter key: The key in the current object.
    /// - Returns: The value, or `0` if the key is missing.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for a value that is not an
    ///   integer, or `valueOutOfRange` for one that does not fit in `Int32`.
    public func decodeInt32(forKey key: String) throws -> Int32 {
        try decodeInteger(Int32.self, forKey: key)
    }

    /// Decodes a 64-bit integer stored under `key`.
    ///
    /// - Parameter key: The key in the current object.
    /// - Returns: The value, or `0` if the key is missing.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for a value that is not an
    ///   integer, or `valueOutOfRange` for one that does not fit in `Int64`.
    public func decodeInt64(forKey key: String) throws -> Int64 {
        try decodeInteger(Int64.self, forKey: key)
    }

    /// Decodes a single-precision number stored under `key`.
    ///
    /// Accepts reals (rounded to the nearest `Float`) and integers.
    ///
    /// - Parameter key: The key in the current object.
    /// - Returns: The value, or `0` if the key is missing.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for a value that is not a
    ///   number, or `valueOutOfRange` for a finite value beyond `Float`'s range.
    public func decodeFloat(forKey key: String) throws -> Float {
        if let wide = quickNumber(forKey: key),
            !wide.isFinite || wide.magnitude <= Double(Float.greatestFiniteMagnitude)
        {
            return Float(wide)
        }
        return try perform(.key(key)) {
            guard let value = try scalar(forKey: key, expected: "a number") else { return 0 }
            return try locating { try ArchiveScalar.float(value) }
        }
    }

    /// Decodes a double-precision number stored under `key`.
    ///
    /// Accepts reals, and integers that a `Double` represents exactly.
    ///
    /// - Parameter key: The key in the current object.
    /// - Returns: The value, or `0` if the key is missing.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for a value that is not a
    ///   number, or `valueOutOfRange` for an integer a `Double` cannot hold exactly.
    public func decodeDouble(forKey key: String) throws -> Double {
        if let value = quickNumber(forKey: key) { return value }
        return try perform(.key(key)) {
            guard let value = try scalar(forKey: key, expected: "a number") else { return 0 }
            return try locating { try ArchiveScalar.double(value) }
        }
    }

    /// Decodes bytes stored under `key` with ``KeyedArchiver/encodeBytes(_:forKey:)``
    /// (or as a data object).
    ///
    /// - Parameter key: The key in the current object.
    /// - Returns: The bytes, or `nil` if the key is missing or holds nil.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for a value that is not data.
    public func decodeBytes(forKey key: String) throws -> Data? {
        try perform(.key(key)) {
            guard let value = try scalar(forKey: key, expected: "NSData") else { return nil }
            guard case .data(let bytes) = value else {
                throw failure(.typeMismatch, "expected NSData, found \(value.archivedKindName)")
            }
            return bytes
        }
    }

    // MARK: Engine

    /// Decodes a double-precision number stored under `key`, or `nil` when the key is
    /// missing; a nil reference gives 0, as with ``decodeDouble(forKey:)``.
    func decodeDoubleIfPresent(forKey key: String) throws -> Double? {
        if let value = quickNumber(forKey: key) { return value }
        return try perform(.key(key)) {
            let scalar: PropertyList?
            switch try fieldLookup(forKey: archiveEscapedKey(key)) {
            case .missing: return nil
            case .inline(let value): scalar = value
            case .reference(let uid): scalar = try self.scalar(referencedBy: uid, expected: "a number")
            }
            guard let scalar else { return 0 }
            return try locating { try ArchiveScalar.double(scalar) }
        }
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: String) throws -> T {
        if case .integer(let integer)? = quickValue(forKey: key), let exact = T(exactly: integer) {
            return exact
        }
        return try perform(.key(key)) {
            guard let value = try scalar(forKey: key, expected: "an integer") else { return 0 }
            return try locating { try ArchiveScalar.integer(value, as: T.self) }
        }
    }

    /// A real, or an integer a `Double` holds exactly, read by ``quickValue(forKey:)``;
    /// `nil` for the general path.
    @inline(__always)
    func quickNumber(forKey key: String) -> Double? {
        switch quickValue(forKey: key) {
        case .real(let real)?: return real
        case .integer(let integer)?: return Double(exactly: integer)
        default: return nil
        }
    }

    /// The inline value under `key`, following a reference to a plain object; `nil` when
    /// the key is missing or holds nil.
    func scalar(forKey key: String, expected: String) throws -> PropertyList? {
        switch try fieldLookup(forKey: archiveEscapedKey(key)) {
        case .missing: return nil
        case .inline(let value): return value
        case .reference(let uid): return try scalar(referencedBy: uid, expected: expected)
        }
    }

    /// A value found under a key, following a reference to a plain object; `nil` for the
    /// nil reference.
    func scalar(_ value: PropertyList, expected: String) throws -> PropertyList? {
        guard case .uid = value else { return value }
        return try scalar(referencedBy: referenceIndex(value), expected: expected)
    }

    /// The plain value `$objects[uid]`; `nil` for the nil reference.
    func scalar(referencedBy uid: Int, expected: String) throws -> PropertyList? {
        guard uid != 0 else { return nil }
        switch try entry(at: uid) {
        case .object(let fields):
            let found =
                (try? classDescription(of: fields, uid: uid).name).map(DisplayText.quotedIfNeeded)
                ?? "an object"
            throw failure(.typeMismatch, "expected \(expected), found \(found)")
        case .plain(let value):
            return value
        }
    }

    /// Runs `body`, adding the current key path to an error it throws.
    func locating<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as KeyedArchiveError {
            throw located(error)
        }
    }
}

/// Strict conversions of plain values to Swift scalars, shared by the scalar decoding
/// methods and the number types' ``KeyedCoding`` conformances. Errors carry no location.
enum ArchiveScalar {
    static func bool(_ value: PropertyList) throws -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .integer(let integer) where integer == 0 || integer == 1: return integer == 1
        default: throw StandardTypeError.mismatch(expected: "a Boolean", found: value)
        }
    }

    static func integer<T: FixedWidthInteger>(_ value: PropertyList, as type: T.Type) throws -> T {
        guard case .integer(let integer) = value else {
            throw StandardTypeError.mismatch(expected: "an integer", found: value)
        }
        if let signed = integer.int64Value {
            guard let exact = T(exactly: signed) else { throw StandardTypeError.outOfRange(integer, T.self) }
            return exact
        }
        if let unsigned = integer.uint64Value, let exact = T(exactly: unsigned) { return exact }
        throw StandardTypeError.outOfRange(integer, T.self)
    }

    static func double(_ value: PropertyList) throws -> Double {
        switch value {
        case .real(let real): return real
        case .integer(let integer):
            if let signed = integer.int64Value, let exact = Double(exactly: signed) { return exact }
            if let unsigned = integer.uint64Value, let exact = Double(exactly: unsigned) { return exact }
            throw StandardTypeError.outOfRange(integer, Double.self)
        default: throw StandardTypeError.mismatch(expected: "a number", found: value)
        }
    }

    static func float(_ value: PropertyList) throws -> Float {
        let wide: Double
        switch value {
        case .real(let real): wide = real
        case .integer(let integer):
            guard let signed = integer.int64Value.map(Double.init) ?? integer.uint64Value.map(Double.init)
            else {
                throw StandardTypeError.outOfRange(integer, Float.self)
            }
            wide = signed
        default: throw StandardTypeError.mismatch(expected: "a number", found: value)
        }
        guard !wide.isFinite || wide.magnitude <= Double(Float.greatestFiniteMagnitude) else {
            throw StandardTypeError.outOfRange(wide, Float.self)
        }
        return Float(wide)
    }
}
