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
