#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes a ``KeyedCoding`` value `Codable` by storing it as a binary keyed archive
/// (`Data`), so that NSCoding-style types can live inside `Codable` models.
///
/// ```swift
/// struct Document: Codable {
///     var title: String
///     @KeyedArchived var legacy: LegacyStyle
/// }
///
/// let json = try JSONEncoder().encode(document)   // legacy is a base64 string
/// let back = try JSONDecoder().decode(Document.self, from: json)
/// ```
///
/// The archive requires secure coding when `Value` adopts ``SecureKeyedCoding``; decoding
/// then allows exactly `Value` (and the standard types).
@propertyWrapper
public struct KeyedArchived<Value: KeyedCoding>: Codable {
    /// The wrapped value.
    public var wrappedValue: Value

    /// Wraps a value.
    ///
    /// - Parameter wrappedValue: The value.
    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    /// Encodes the value as a binary keyed archive in a single-value container.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: `EncodingError.invalidValue` whose `underlyingError` is the
    ///   ``KeyedArchiveError`` archiving failed with, or the encoder's error.
    public func encode(to encoder: any Encoder) throws {
        let data: Data
        do {
            data = try KeyedArchiver.archivedData(
                withRootObject: wrappedValue,
                requiringSecureCoding: KeyedArchiver.supportsSecureCoding(Value.self))
        } catch let failure as KeyedArchiveError {
            throw EncodingError.invalidValue(
                wrappedValue,
                EncodingError.Context(
                    codingPath: encoder.codingPath, debugDescription: failure.description,
                    underlyingError: failure))
        }
        var container = encoder.singleValueContainer()
        try container.encode(data)
    }

    /// Decodes the value from a keyed archive stored as `Data`.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` whose `underlyingError` is the
    ///   ``KeyedArchiveError`` unarchiving failed with, `DecodingError.valueNotFound` when
    ///   the archive's root is nil, or the decoder's error.
    public init(from decoder: any Decoder) throws {
        let data = try decoder.singleValueContainer().decode(Data.self)
        let decoded: Value?
        do {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = KeyedArchiver.supportsSecureCoding(Value.self)
            decoded = try unarchiver.decodeObject(of: Value.self, forKey: KeyedArchiver.rootObjectKey)
        } catch let failure as KeyedArchiveError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: failure.description,
                    underlyingError: failure))
        }
        guard let decoded else {
            throw DecodingError.valueNotFound(
                Value.self,
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "the archive's root is nil"))
        }
        wrappedValue = decoded
    }
}

extension KeyedArchived: Equatable where Value: Equatable {}
extension KeyedArchived: Hashable where Value: Hashable {}
extension KeyedArchived: Sendable where Value: Sendable {}
