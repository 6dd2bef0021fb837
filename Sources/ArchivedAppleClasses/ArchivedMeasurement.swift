#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A measurement as Foundation's `NSMeasurement` archives it: a value (`NS.value`) and a
/// unit (`NS.unit`). `Measurement` and `Unit` are not part of FoundationEssentials, so
/// this value holds them itself.
///
/// ```swift
/// let miles = ArchivedMeasurement(value: 45, unit: ArchivedUnit(className: "NSUnitLength", symbol: "mi",
///                                                                coefficient: 1609.34))
/// print(miles)   // 45 mi
/// ```
public struct ArchivedMeasurement: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// The value.
    public var value: Double
    /// The unit.
    public var unit: ArchivedUnit

    /// Creates a measurement.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - unit: The unit.
    public init(value: Double, unit: ArchivedUnit) {
        self.value = value
        self.unit = unit
    }

    /// `NSMeasurement`.
    public static var archivedClassName: String { CataloguedClass.measurement.name }

    /// `45 mi`.
    public var description: String { "\(GeometryText.format(value)) \(unit.symbol)" }

    /// Writes `NS.value` and `NS.unit`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(value, forKey: "NS.value")
        coder.encode(unit, forKey: "NS.unit")
    }

    /// Reads an `NSMeasurement`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the unit is missing.
    public init(coder: KeyedUnarchiver) throws {
        value = try coder.decodeDouble(forKey: "NS.value")
        guard let unit = try coder.decodeObject(of: ArchivedUnit.self, forKey: "NS.unit") else {
            throw coder.missingField("NS.unit", of: "NSMeasurement")
        }
        self.unit = unit
    }
}

extension ArchivedMeasurement: ArchiveStandardType {
    package static var acceptedClassNames: [String] { [CataloguedClass.measurement.name] }
}

/// A unit as Foundation's `NSUnit` subclasses archive it: the class (`NSUnitLength`, …),
/// the symbol, and for dimensions the linear converter to the base unit.
public struct ArchivedUnit: SecureKeyedCoding, Hashable, Sendable {
    /// The class, such as `NSUnitLength`; `NSUnit` for a plain unit.
    public var className: String
    /// The symbol (`NS.symbol`), such as `mi`.
    public var symbol: String
    /// The factor to the base unit (`NSUnitConverterLinear`'s `NS.coefficient`), for a dimension.
    public var coefficient: Double?
    /// The offset to the base unit (`NS.constant`), for a dimension.
    public var constant: Double?
    /// Apple's identifier of a predefined unit (`NS.specifier`), if stored.
    public var specifier: Int?

    /// Creates a unit.
    ///
    /// - Parameters:
    ///   - className: `NSUnit`, or a dimension class such as `NSUnitLength`.
    ///   - symbol: The symbol.
    ///   - coefficient: For a dimension, the factor to its base unit.
    ///   - constant: For a dimension, the offset to its base unit; default 0.
    ///   - specifier: Apple's identifier of a predefined unit, if any.
    public init(
        className: String, symbol: String, coefficient: Double? = nil, constant: Double? = nil,
        specifier: Int? = nil
    ) {
        self.className = className
        self.symbol = symbol
        self.coefficient = coefficient
        self.constant = constant ?? (coefficient == nil ? nil : 0)
        self.specifier = specifier
    }

    /// `NSUnit`; a dimension is written under its ``className``.
    public static var archivedClassName: String { CataloguedClass.unit.name }

    /// Writes `NS.symbol`, and for a dimension `NS.converter` and `NS.specifier`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(symbol, forKey: "NS.symbol")
        if let coefficient {
            coder.encode(
                ArchivedUnitConverter(coefficient: coefficient, constant: constant ?? 0),
                forKey: "NS.converter")
        }
        if let specifier { coder.encode(specifier, forKey: "NS.specifier") }
    }

    /// Reads an `NSUnit` or one of its subclasses.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the symbol is missing.
    public init(coder: KeyedUnarchiver) throws {
        className = coder.currentClassName
        guard let symbol = try coder.decodeObject(of: String.self, forKey: "NS.symbol") else {
            throw coder.missingField("NS.symbol", of: "NSUnit")
        }
        self.symbol = symbol
        let converter = try coder.decodeObject(of: ArchivedUnitConverter.self, forKey: "NS.converter")
        coefficient = converter?.coefficient
        constant = converter?.constant
        specifier =
            coder.containsValue(forKey: "NS.specifier")
            ? try coder.decodeInteger(forKey: "NS.specifier") : nil
    }
}

extension ArchivedUnit: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] {
        // NSUnit, NSDimension, then Foundation's dimensions.
        ClassCatalogue.names(ofKinds: .unit)
    }

    package var archivedClassChain: [String] {
        if className.isEmpty { return CataloguedClass.unit.chain }
        if let known = CataloguedClass(name: className), known.kind == .unit { return known.chain }
        return [className] + CataloguedClass.dimension.chain
    }
}

/// `NSUnitConverterLinear`: `NS.coefficient` and `NS.constant`.
struct ArchivedUnitConverter: ArchiveStandardType, ArchiveDynamicClass {
    var coefficient: Double
    var constant: Double

    static var archivedClassName: String { CataloguedClass.unitConverterLinear.name }
    static var acceptedClassNames: [String] { [CataloguedClass.unitConverterLinear.name] }
    var archivedClassChain: [String] { CataloguedClass.unitConverterLinear.chain }

    init(coefficient: Double, constant: Double) {
        self.coefficient = coefficient
        self.constant = constant
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(coefficient, forKey: "NS.coefficient")
        coder.encode(constant, forKey: "NS.constant")
    }

    init(coder: KeyedUnarchiver) throws {
        coefficient = try coder.decodeDouble(forKey: "NS.coefficient")
        constant = try coder.decodeDouble(forKey: "NS.constant")
    }
}

/// An error as Foundation's `NSError` archives it: `NSDomain`, `NSCode` and the
/// `NSUserInfo` dictionary, its values typed as attribute values are.
///
/// ```swift
/// let error = ArchivedError(domain: "NSCocoaErrorDomain", code: 4,
///                           userInfo: ["NSFilePath": .string("/tmp/x")])
/// ```
public struct ArchivedError: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// The domain.
    public var domain: String
    /// The code.
    public var code: Int
    /// The user info, by key.
    public var userInfo: [String: ArchivedAttributeValue]

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - domain: The domain.
    ///   - code: The code.
    ///   - userInfo: The user info.
    public init(domain: String, code: Int, userInfo: [String: ArchivedAttributeValue] = [:]) {
        self.domain = domain
        self.code = code
        self.userInfo = userInfo
    }

    /// `NSError`.
    public static var archivedClassName: String { CataloguedClass.error.name }

    /// `NSCocoaErrorDomain 4`.
    public var description: String { "\(domain) \(code)" }

    /// Writes `NSCode`, `NSDomain` and `NSUserInfo`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(code, forKey: "NSCode")
        coder.encode(domain, forKey: "NSDomain")
        coder.encode(ArchivedAttributeDictionary(attributes: userInfo, keyOrder: []), forKey: "NSUserInfo")
    }

    /// Reads an `NSError`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the domain is missing.
    public init(coder: KeyedUnarchiver) throws {
        code = try coder.decodeInteger(forKey: "NSCode")
        guard let domain = try coder.decodeObject(of: String.self, forKey: "NSDomain") else {
            throw coder.missingField("NSDomain", of: "NSError")
        }
        self.domain = domain
        userInfo =
            try coder.decodeObject(of: ArchivedAttributeDictionary.self, forKey: "NSUserInfo")?.attributes
            ?? [:]
    }
}

extension ArchivedError: ArchiveStandardType {
    package static var acceptedClassNames: [String] { [CataloguedClass.error.name] }
}
