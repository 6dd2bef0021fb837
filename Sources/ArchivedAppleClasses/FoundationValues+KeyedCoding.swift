#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `Decimal` archives as Foundation's `NSDecimalNumber`: `NS.exponent`, `NS.length`,
/// `NS.negative`, `NS.compact` and the 128-bit mantissa as 16 bytes (`NS.mantissa`, byte
/// order `NS.mantissa.bo`, 1 for little-endian). A length of 0 with the sign set is NaN.
extension Decimal: SecureKeyedCoding {
    /// `NSDecimalNumber`.
    public static var archivedClassName: String { CataloguedClass.decimalNumber.name }

    /// `NSNumber`, `NSValue`: the chain Apple writes.
    public static var archivedSuperclassNames: [String]? {
        Array(CataloguedClass.decimalNumber.chain.dropFirst().dropLast())
    }

    /// Writes the decimal's parts in Apple's layout.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        var words = [UInt16](repeating: 0, count: 8)
        var exponent = 0
        var negative = false
        if isNaN {
            negative = true
        } else if self != 0 {
            // Public API only: the significand's digits into a 128-bit mantissa.
            exponent = self.exponent
            negative = sign == .minus
            words = DecimalMantissa.words(digits: "\(significand)") ?? words
        }
        let length = (words.lastIndex { $0 != 0 } ?? -1) + 1
        coder.encode(Int32(truncatingIfNeeded: exponent), forKey: "NS.exponent")
        coder.encode(Int32(length), forKey: "NS.length")
        coder.encode(negative, forKey: "NS.negative")
        coder.encode(length > 0 && !DecimalMantissa.isMultipleOfTen(words), forKey: "NS.compact")
        coder.encode(Int32(1), forKey: "NS.mantissa.bo")
        coder.encodeBytes(words.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, forKey: "NS.mantissa")
    }

    /// Reads an `NSDecimalNumber`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the length is above 8,
    ///   the mantissa is not 16 bytes or the exponent is outside -128...127.
    public init(coder: KeyedUnarchiver) throws {
        let exponent = try coder.decodeInt32(forKey: "NS.exponent")
        let length = try coder.decodeInt32(forKey: "NS.length")
        let negative = try coder.decodeBool(forKey: "NS.negative")
        let order =
            coder.containsValue(forKey: "NS.mantissa.bo")
            ? try coder.decodeInt32(forKey: "NS.mantissa.bo") : 1
        let bytes = try coder.decodeBytes(forKey: "NS.mantissa") ?? Data(count: 16)
        guard (0...8).contains(length), bytes.count == 16, exponent >= -128, exponent <= 127 else {
            throw coder.failure(
                .invalidArchive,
                "NSDecimalNumber has length \(length), exponent \(exponent), \(bytes.count) mantissa bytes")
        }
        let raw = Array(bytes)
        var words = [UInt16](repeating: 0, count: 8)
        for index in 0..<Int(length) {
            let (first, second) = (UInt16(raw[2 * index]), UInt16(raw[2 * index + 1]))
            words[index] = order == 2 ? (first << 8 | second) : (second << 8 | first)
        }
        if length == 0 {
            self = negative ? .nan : 0
            return
        }
        guard let significand = Decimal(string: DecimalMantissa.digits(words)) else {
            throw coder.failure(.invalidArchive, "NSDecimalNumber mantissa is not a number")
        }
        self.init(sign: negative ? .minus : .plus, exponent: Int(exponent), significand: significand)
    }
}

/// A decimal's 128-bit mantissa as eight 16-bit words, least significant first.
enum DecimalMantissa {
    /// The words of a string of decimal digits, or `nil` when it does not fit 128 bits.
    static func words(digits: String) -> [UInt16]? {
        var words = [UInt32](repeating: 0, count: 8)
        for character in digits.utf8 {
            guard character >= UInt8(ascii: "0"), character <= UInt8(ascii: "9") else { return nil }
            var carry = UInt32(character - UInt8(ascii: "0"))
            for index in 0..<8 {
                let value = words[index] * 10 + carry
                words[index] = value & 0xFFFF
                carry = value >> 16
            }
            guard carry == 0 else { return nil }
        }
        return words.map { UInt16($0) }
    }

    /// The decimal digits of `words`.
    static func digits(_ words: [UInt16]) -> String {
        var remaining = words.map(UInt32.init)
        var digits: [UInt8] = []
        while remaining.contains(where: { $0 != 0 }) {
            var remainder: UInt32 = 0
            for index in stride(from: remaining.count - 1, through: 0, by: -1) {
                let value = remainder << 16 | remaining[index]
                remaining[index] = value / 10
                remainder = value % 10
            }
            digits.append(UInt8(ascii: "0") + UInt8(remainder))
        }
        return digits.isEmpty ? "0" : String(decoding: digits.reversed(), as: UTF8.self)
    }

    static func isMultipleOfTen(_ words: [UInt16]) -> Bool {
        var remainder: UInt32 = 0
        for word in words.reversed() { remainder = (remainder << 16 | UInt32(word)) % 10 }
        return remainder == 0
    }
}

extension Decimal: ArchiveStandardType {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .decimalNumber) }
}

/// `Locale` archives as Foundation's `NSLocale`: its identifier under `NS.identifier`.
extension Locale: SecureKeyedCoding {
    /// `NSLocale`.
    public static var archivedClassName: String { CataloguedClass.locale.name }

    /// Writes `NS.identifier`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(identifier, forKey: "NS.identifier")
    }

    /// Reads an `NSLocale`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.identifier` is missing.
    public init(coder: KeyedUnarchiver) throws {
        guard let identifier = try coder.decodeObject(of: String.self, forKey: "NS.identifier") else {
            throw coder.missingField("NS.identifier", of: "NSLocale")
        }
        self.init(identifier: identifier)
    }
}

extension Locale: ArchiveStandardType {
    package static var acceptedClassNames: [String] { [CataloguedClass.locale.name] }
}

/// `TimeZone` archives as Foundation's `NSTimeZone`: its identifier under `NS.name`.
///
/// Apple also stores the zone's rules (`NS.data`, TZif data) for named zones; readers use
/// the name when they know it, so `NS.data` is written as nil, as Apple writes it for
/// zones such as `GMT+0100`, and on reading the name decides.
extension TimeZone: SecureKeyedCoding {
    /// `NSTimeZone`.
    public static var archivedClassName: String { CataloguedClass.timeZone.name }

    /// Writes `NS.name`, and `NS.data` as nil.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(identifier, forKey: "NS.name")
        coder.encode(nil, forKey: "NS.data")
    }

    /// Reads an `NSTimeZone`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `NS.name` is missing
    ///   or names no time zone this platform knows.
    public init(coder: KeyedUnarchiver) throws {
        guard let name = try coder.decodeObject(of: String.self, forKey: "NS.name") else {
            throw coder.missingField("NS.name", of: "NSTimeZone")
        }
        guard let zone = TimeZone(identifier: name) ?? TimeZone(abbreviation: name) else {
            throw coder.failure(
                .invalidArchive, "NSTimeZone \(DisplayText.quoted(name)) is not a known time zone")
        }
        self = zone
    }
}

extension TimeZone: ArchiveStandardType {
    package static var acceptedClassNames: [String] { [CataloguedClass.timeZone.name] }
}
