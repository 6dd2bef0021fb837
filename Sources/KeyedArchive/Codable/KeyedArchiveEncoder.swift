#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes any `Encodable` value graph as a keyed archive in which class instances keep
/// their identity: an instance referenced from several places is stored once, and
/// ``KeyedArchiveDecoder`` gives back one shared instance.
///
/// ```swift
/// final class Core: Codable { var id = 0 }
/// struct Machine: Codable { var cores: [Core]; var boot: Core }
///
/// let core = Core()
/// let data = try KeyedArchiveEncoder().encode(Machine(cores: [core], boot: core))
/// let machine = try KeyedArchiveDecoder().decode(Machine.self, from: data)
/// // machine.boot === machine.cores[0]
/// ```
///
/// ## Layout
///
/// The archive is an ordinary `NSKeyedArchiver` archive whose root is `$top["root"]`:
/// - a value that uses a keyed container is an object whose `$classname` is its type's
///   name (``classNameForType``, `Module.TypeName` by default) and whose fields are its
///   keys: numbers and Booleans inline, strings, data and nested values by reference, nil
///   as UID 0;
/// - dictionaries and nested keyed containers are `NSDictionary` objects, unkeyed
///   containers (arrays, sets) `NSArray` objects, `nil` in them an `NSNull` object;
/// - strings, numbers and data are plain values, dates `NSDate` objects.
///
/// Apple's `NSKeyedUnarchiver` can read the archive (an `NSCoding` class registered
/// under the archived name reads its fields with the usual `decode…(forKey:)` calls).
///
/// A class instance that refers back to itself while it is encoded (a cycle) is refused:
/// Codable cannot rebuild it.
public struct KeyedArchiveEncoder {
    /// The property-list format of the archive: `.binary` (the default) or `.xml`.
    public var outputFormat: PropertyListFormat = .binary

    /// Names each type in the archive; `nil` means `Module.TypeName`
    /// (`String(reflecting:)`).
    ///
    /// ```swift
    /// var encoder = KeyedArchiveEncoder()
    /// encoder.classNameForType = { type in type == Core.self ? "Core" : nil }
    /// ```
    public var classNameForType: (@Sendable (Any.Type) -> String?)?

    /// Values handed to every `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// The maximum nesting of values; deeper graphs fail with `limitExceeded`. Default 512.
    public var maximumDepth: Int = 512

    /// Creates an encoder with the default options.
    public init() {}

    /// Encodes `value` as a keyed archive.
    ///
    /// - Parameter value: The root of the graph.
    /// - Returns: The archive, in ``outputFormat``.
    /// - Throws: `EncodingError.invalidValue` whose `underlyingError` is a
    ///   ``KeyedArchiveError`` located at the key path: `unresolvableCycle` for a class
    ///   instance that contains itself, `limitExceeded` for nesting beyond
    ///   ``maximumDepth``, `invalidValue` when the root encodes nothing, or
    ///   `unsupportedFormat` for `.openStep`; or whatever an `encode(to:)` throws.
    /// - Complexity: O(*n*) in the number of values.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let archiver = KeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = outputFormat
        let provider = classNameForType
        let writer = CodableArchiveWriter(
            archiver: archiver, layout: .objects, pathPrefix: KeyedArchiver.rootObjectKey,
            userInfo: userInfo, maximumDepth: maximumDepth,
            naming: { type in provider?(type) ?? String(reflecting: type) })
        let uid = try writer.encodeRoot(value)
        archiver.append(KeyedArchiver.rootObjectKey, .reference(uid))
        do {
            return try archiver.finishedData()
        } catch let failure as KeyedArchiveError {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: failure.description, underlyingError: failure))
        }
    }
}

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
/// reads it fails with its coding path. An XML archive is parsed whole first.
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
        let unarchiver: KeyedUnarchiver
        do {
            unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
        } catch let failure as KeyedArchiveError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: failure.description, underlyingError: failure))
        }
        return try decode(T.self, with: unarchiver)
    }

    /// Decodes the root of a keyed archive already read as a property-list value, through
    /// the tree rather than in place: for the fuzzer's check that both readings agree.
    @_spi(Fuzzing)
    public func decode<T: Decodable>(_ type: T.Type, fromPropertyList propertyList: PropertyList) throws -> T
    {
        let unarchiver: KeyedUnarchiver
        do {
            unarchiver = try KeyedUnarchiver(propertyList: propertyList, options: options)
        } catch let failure as KeyedArchiveError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: failure.description, underlyingError: failure))
        }
        return try decode(T.self, with: unarchiver)
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
