#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An affine transform as Foundation's `NSAffineTransform` archives it: the matrix
/// `[m11 m12 0; m21 m22 0; tX tY 1]` as big-endian 32-bit floats under `NSTransformStruct`.
///
/// ```swift
/// let scale = ArchivedAffineTransform(m11: 2, m12: 0, m21: 0, m22: 3, tX: 0, tY: 0)
/// let data = try KeyedArchiver.archivedData(withRootObject: scale, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAffineTransform.self, from: data)
/// print(copy?.description ?? "")   // [2 0 0 3 0 0]
/// ```
///
/// Apple writes the shortest of four forms, by what the matrix holds: 24 bytes (all six
/// values) when it rotates or shears; 16 bytes (`m11`, `m22`, `tX`, `tY`) when it scales
/// and translates; 9 bytes, a tag 2 then `m11` and `m22`, when it only scales; 9 bytes, a
/// tag 1 then `tX` and `tY`, when it only translates; nothing for the identity. All four
/// are read and written; values are rounded to `Float` as Apple stores them.
/// swift-corelibs-foundation writes the six values as reals in an old-style array under
/// `$0` instead, and reads only that form; its form is read too.
public struct ArchivedAffineTransform: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// The matrix entries, as in `NSAffineTransformStruct`.
    public var m11: Double
    /// The matrix entries, as in `NSAffineTransformStruct`.
    public var m12: Double
    /// The matrix entries, as in `NSAffineTransformStruct`.
    public var m21: Double
    /// The matrix entries, as in `NSAffineTransformStruct`.
    public var m22: Double
    /// The translation along x.
    public var tX: Double
    /// The translation along y.
    public var tY: Double

    /// The identity transform.
    public static let identity = ArchivedAffineTransform(m11: 1, m12: 0, m21: 0, m22: 1, tX: 0, tY: 0)

    /// Creates a transform from its matrix.
    ///
    /// - Parameters:
    ///   - m11: Row 1, column 1.
    ///   - m12: Row 1, column 2.
    ///   - m21: Row 2, column 1.
    ///   - m22: Row 2, column 2.
    ///   - tX: The translation along x.
    ///   - tY: The translation along y.
    public init(m11: Double, m12: Double, m21: Double, m22: Double, tX: Double, tY: Double) {
        (self.m11, self.m12, self.m21, self.m22, self.tX, self.tY) = (m11, m12, m21, m22, tX, tY)
    }

    /// `NSAffineTransform`.
    public static var archivedClassName: String { CataloguedClass.affineTransform.name }

    /// `[m11 m12 m21 m22 tX tY]`.
    public var description: String {
        "[" + [m11, m12, m21, m22, tX, tY].map(GeometryText.format).joined(separator: " ") + "]"
    }

    /// The bytes Apple writes under `NSTransformStruct`, or `nil` for the identity.
    var transformStruct: [UInt8]? {
        func floats(_ values: [Double]) -> [UInt8] {
            values.flatMap { value -> [UInt8] in
                let bits = Float(value).bitPattern
                return [
                    UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF),
                ]
            }
        }
        let translates = tX != 0 || tY != 0
        if m12 != 0 || m21 != 0 { return floats([m11, m12, m21, m22, tX, tY]) }
        if m11 != 1 || m22 != 1 {
            return translates ? floats([m11, m22, tX, tY]) : [2] + floats([m11, m22])
        }
        return translates ? [1] + floats([tX, tY]) : nil
    }

    /// Writes `NSTransformStruct` in the shortest form, nothing for the identity.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        if let bytes = transformStruct { coder.encodeBytes(bytes, forKey: "NSTransformStruct") }
    }

    /// Reads an `NSAffineTransform`; without `NSTransformStruct` it is the identity.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NSTransformStruct`
    ///   is not one of the four forms.
    public init(coder: KeyedUnarchiver) throws {
        self = .identity
        guard let data = try coder.decodeBytes(forKey: "NSTransformStruct"), !data.isEmpty else {
            // swift-corelibs-foundation's form: six reals in an old-style array under `$0`.
            // `$0` is an unkeyed value's key, stored as is (not escaped).
            if let raw = try coder.fieldValue(forKey: "$0") {
                let array = try coder.attributeValue(raw)
                let values = (0..<6).map { index -> Double? in
                    switch array.objectField("$\(index)") {
                    case .real(let value)?: return value
                    case .integer(let value)?: return value.intValue.map(Double.init)
                    default: return nil
                    }
                }
                let known = values.compactMap { $0 }
                guard known.count == 6 else {
                    throw coder.failure(.invalidArchive, "NSAffineTransform $0 does not hold six numbers")
                }
                (m11, m12, m21, m22, tX, tY) = (known[0], known[1], known[2], known[3], known[4], known[5])
            }
            return
        }
        let bytes = Array(data)
        func float(at offset: Int) -> Double {
            let bits =
                UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
            return Double(Float(bitPattern: bits))
        }
        switch (bytes.count, bytes[0]) {
        case (24, _):
            (m11, m12, m21, m22, tX, tY) = (
                float(at: 0), float(at: 4), float(at: 8), float(at: 12), float(at: 16), float(at: 20)
            )
        case (16, _): (m11, m22, tX, tY) = (float(at: 0), float(at: 4), float(at: 8), float(at: 12))
        case (9, 2): (m11, m22) = (float(at: 1), float(at: 5))
        case (9, 1): (tX, tY) = (float(at: 1), float(at: 5))
        default:
            throw coder.failure(
                .invalidArchive,
                "NSTransformStruct holds \(bytes.count) bytes (tag \(bytes[0])), not one of Apple's four forms"
            )
        }
    }
}

extension ArchivedAffineTransform: ArchiveStandardType {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .affineTransform) }
}
