#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedArchiver {
    /// Encodes a `Codable` value under `key` with the layout of Apple's
    /// `NSKeyedArchiver.encodeEncodable(_:forKey:)`.
    ///
    /// ```swift
    /// struct Settings: Codable { var volume = 7; var names = ["a", "b"] }
    ///
    /// let archiver = KeyedArchiver(requiringSecureCoding: true)
    /// try archiver.encodeEncodable(Settings(), forKey: "settings")
    /// let data = try archiver.finishedData()
    /// ```
    ///
    /// The value is flattened the way `PropertyListEncoder` flattens it and stored as plain
    /// archive objects: keyed containers as `NSMutableDictionary` (`NS.keys`/`NS.objects`),
    /// unkeyed containers as `NSMutableArray`, strings, numbers and data as plain values,
    /// dates as `NSDate`, and `nil` inside a collection as the string `$null`. Apple's
    /// `NSKeyedUnarchiver.decodeDecodable(_:forKey:)` reads it, and
    /// ``KeyedUnarchiver/decodeDecodable(_:forKey:)`` reads what Apple writes. Class
    /// instances are flattened like values (no identity); use ``KeyedArchiveEncoder`` to
    /// keep it.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key in the current object (or in `$top`).
    /// - Throws: `EncodingError.invalidValue` whose `underlyingError` is a
    ///   ``KeyedArchiveError`` located at the key path: `limitExceeded` for nesting deeper
    ///   than 512 (a cycle of class instances), `invalidValue` when the top-level value
    ///   encodes nothing or the archiver is already finished, or whatever the value's
    ///   `encode(to:)` throws.
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String) throws {
        let location = ArchiveKeyPath.render(path + [.key(key)])
        guard !isFinished else {
            let message = "encodeEncodable was called after finishEncoding()"
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: message,
                    underlyingError: KeyedArchiveError(.invalidValue, message, at: .keyPath(location))))
        }
        let writer = CodableArchiveWriter(archiver: self, layout: .propertyList, pathPrefix: location)
        let uid = try writer.encodeRoot(value)
        append(archiveEscapedKey(key), .reference(uid))
    }
}
