#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes a `Decodable` value graph from a keyed archive written by
/// ``KeyedArchiveEncoder``, giving back one shared instance for every class instance the
/// archive stores once.
///
/// ```swift
/// let machine = try KeyedArchiveDecoder().decode(Machine.self, from: data)
/// ```
///
/// Decoding is driven by the types you ask for, so no class is constructed that your
/// types do not name; archived class names are not checked. Each object is decoded
/// once per class type (`init(from:)` runs once, later references get the cached
/// instance); value types are decoded at each reference. Whatever the input, decoding
/// ends: nesting is limited, the work is bounded by the archive's size, and an object
/// that refers back to itself while it is decoded fails with `unresolvableCycle`.
///
/// A binary archive is read in place and lazily: only the values your types ask for are
/// read, so damage in a value nothing asks for goes unnoticed, while the decode that
/// reads it fails with its coding path. An XML archive is checked whole and rewritten as a
/// binary property list in one pass first, then read the same way.
public struct KeyedArchiveDecoder {
    /// Values handed to every `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Limits for reading the archive (nesting depth, object count).
    public var options = KeyedUnarchivingOptions()

    /// Creates a decoder with the default options.
    public init() {}

    /// Decodes the root of a keyed archive as a `T`.
    ///
    /// - Parameters:
    ///   - type: The type of the root.
    ///   - data: A keyed archive in binary or XML property-list form.
    /// - Returns: The value.
    /// - Throws: `DecodingError` whose `underlyingError` is a ``KeyedArchiveError`` located
    ///   at the key path (`root.cores[2].id`): `corruptData` or `invalidArchive` for bytes
    ///   that are not a keyed archive, `typeMismatch`, `unresolvableCycle`,
    ///   `limitExceeded`; or whatever an `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(T.self, with: opened { try KeyedUnarchiver(forReadingFrom: data, options: options) })
    }

    /// Decodes the root of a keyed archive already read as a property-list value, through
    /// the tree rather than in place: for the fuzzer's check that both readings agree.
    @_spi(Fuzzing)
    public func decode<T: Decodable>(_ type: T.Type, fromPropertyList propertyList: PropertyList) throws -> T
    {
        try decode(T.self, with: opened { try KeyedUnarchiver(propertyList: propertyList, options: options) })
    }

    /// The unarchiver `open` makes, its failure to open reported as `dataCorrupted`.
    private func opened(_ open: () throws -> KeyedUnarchiver) throws -> KeyedUnarchiver {
        do {
            return try open()
        } catch let failure as KeyedArchiveError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: failure.description, underlyingError: failure))
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, with unarchiver: KeyedUnarchiver) throws -> T {
        let root = KeyedArchiver.rootObjectKey
        guard let value = unarchiver.source.top[root] else {
            let failure = KeyedArchiveError(.invalidArchive, "$top has no \"root\" key", at: .keyPath("$top"))
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: failure.description, underlyingError: failure))
        }
        let reader = CodableArchiveReader(
            source: unarchiver.source, layout: .objects, pathPrefix: root, userInfo: userInfo,
            maximumDepth: options.maximumDepth)
        return try reader.decodeRoot(T.self, from: value)
    }
}
