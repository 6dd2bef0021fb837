#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Archives any `Codable` value, such as a struct you do not own, as an object of a
/// keyed archive whose fields are the value's coding keys.
///
/// ```swift
/// struct Location: Codable, Equatable { var latitude: Double; var longitude: Double }
///
/// KeyedArchiver.setClassName("Location", for: ArchivedCodable<Location>.self)
/// KeyedUnarchiver.setClass(ArchivedCodable<Location>.self, forClassName: "Location")
/// let wrapped = ArchivedCodable(Location(latitude: 48.1, longitude: 11.6))
/// let data = try KeyedArchiver.archivedData(withRootObject: wrapped, requiringSecureCoding: true)
/// let location = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedCodable<Location>.self, from: data)?.value
/// ```
///
/// The object is `{ $class: name, latitude: 48.1, longitude: 11.6 }`: numbers inline,
/// strings and nested values by reference, with the layout of ``KeyedArchiveEncoder``.
/// A value that encodes an unkeyed container stores it under `NS.objects`, a single
/// value under `NS.value`. The class name defaults to the wrapped type's
/// `Module.TypeName`; choose another with ``KeyedArchiver/setClassName(_:for:)-swift.type.method``
/// and ``KeyedUnarchiver/setClass(_:forClassName:)-swift.type.method`` (or their
/// per-archiver forms) on `ArchivedCodable<Value>`.
///
/// Class instances inside the value keep their identity within the value, not across
/// separate wrappers.
public struct ArchivedCodable<Value: Codable>: SecureKeyedCoding {
    /// The wrapped value.
    public var value: Value

    /// Wraps a value.
    ///
    /// - Parameter value: The value to archive.
    public init(_ value: Value) {
        self.value = value
    }

    /// The wrapped type's `Module.TypeName`.
    public static var archivedClassName: String { String(reflecting: Value.self) }

    /// Writes the value's coding keys as this object's fields.
    ///
    /// A failure of the value's `encode(to:)` is recorded with
    /// ``KeyedArchiver/failWithError(_:)``.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeCodableFields(of: value)
    }

    /// Reads the value from this object's fields.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` (the `underlyingError` of the `DecodingError` that
    ///   the value's `init(from:)` threw), or the value's own error.
    public init(coder: KeyedUnarchiver) throws {
        value = try coder.decodeCodableFields(Value.self)
    }
}

extension ArchivedCodable: Equatable where Value: Equatable {}
extension ArchivedCodable: Hashable where Value: Hashable {}
extension ArchivedCodable: Sendable where Value: Sendable {}

extension KeyedArchiver {
    /// Appends the Codable fields of `value` to the object being encoded.
    func encodeCodableFields<T: Encodable>(of value: T) {
        guard canEncode() else { return }
        let writer = CodableArchiveWriter(
            archiver: self, layout: .objects, pathPrefix: ArchiveKeyPath.render(path))
        do {
            for field in try writer.encodeFields(of: value) { append(field.key, field.value) }
        } catch let failure as EncodingError {
            if let underlying = failure.archiveError {
                failWithError(underlying)
            } else {
                record(.invalidValue, "\(failure)")
            }
        } catch {
            record(.invalidValue, "\(T.self).encode(to:) failed: \(error)")
        }
    }
}

extension KeyedUnarchiver {
    /// Decodes a `T` from the fields of the object being decoded.
    func decodeCodableFields<T: Decodable>(_ type: T.Type) throws -> T {
        let reader = CodableArchiveReader(
            source: source, layout: .objects, pathPrefix: ArchiveKeyPath.render(path),
            maximumDepth: max(0, options.maximumDepth - path.count))
        do {
            let fields = try currentDictionary()
            return try reader.decodeRoot(T.self, from: .dictionary(fields))
        } catch let failure as DecodingError {
            if let underlying = failure.archiveError { throw underlying }
            throw failure
        }
    }
}
