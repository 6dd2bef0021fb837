#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedUnarchiver {
    /// Decodes a `Decodable` value stored under `key` by
    /// ``KeyedArchiver/encodeEncodable(_:forKey:)`` or Apple's
    /// `NSKeyedArchiver.encodeEncodable(_:forKey:)`.
    ///
    /// ```swift
    /// let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
    /// let settings = try unarchiver.decodeDecodable(Settings.self, forKey: "settings")
    /// ```
    ///
    /// The archived value must be made of the property-list classes (`NSDictionary`,
    /// `NSArray`, their mutable variants, strings, numbers, data, `NSDate`), decoded the way
    /// `PropertyListDecoder` decodes them; the string `$null` is `nil`. Nothing else is
    /// constructed, so this is safe with secure coding.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The key in the current object (or in `$top`).
    /// - Returns: The value, or `nil` if the key is missing or holds nil.
    /// - Throws: `DecodingError` whose `underlyingError` is a ``KeyedArchiveError`` located
    ///   at the key path (`settings.names[1]`): `typeMismatch` for a value of the wrong
    ///   kind, `invalidArchive` for a missing key or malformed object, `unresolvableCycle`
    ///   or `limitExceeded` for hostile graphs; or whatever the type's `init(from:)` throws.
    public func decodeDecodable<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        let location = ArchiveKeyPath.render(path + [.key(key)])
        guard let value = try withInput({ try fieldValue(forKey: archiveEscapedKey(key)) }), value != .uid(0)
        else { return nil }
        let reader = CodableArchiveReader(
            source: source, layout: .propertyList, pathPrefix: location, maximumDepth: options.maximumDepth)
        do {
            return try reader.decodeRoot(T.self, from: value)
        } catch let failure as DecodingError {
            // Inside an init(coder:), make the whole decode fail with this error.
            if depth > 0, recordedError == nil, let underlying = failure.archiveError {
                recordedError = underlying
            }
            throw failure
        }
    }
}

extension DecodingError {
    /// The ``KeyedArchiveError`` under this error, if any.
    var archiveError: KeyedArchiveError? {
        let context: Context?
        switch self {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found),
            .dataCorrupted(let found):
            context = found
        @unknown default:
            context = nil
        }
        return context?.underlyingError as? KeyedArchiveError
    }
}

extension EncodingError {
    /// The ``KeyedArchiveError`` under this error, if any.
    var archiveError: KeyedArchiveError? {
        switch self {
        case .invalidValue(_, let context): return context.underlyingError as? KeyedArchiveError
        @unknown default: return nil
        }
    }
}
