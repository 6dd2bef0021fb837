#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A text-checking result as Foundation's `NSTextCheckingResult` archives it; Apple
/// archives the regular-expression results (`NSSimpleRegularExpressionCheckingResult`,
/// `NSExtendedRegularExpressionCheckingResult`, `NSComplexRegularExpressionCheckingResult`)
/// with the match's range (`NSRangeLocation`, `NSRangeLength`), the expression
/// (`NSRegularExpression`: `NSPattern`, `NSOptions`) and the ranges of the match and its
/// capture groups (`NSRangeArray`, `NSValue` ranges).
///
/// ```swift
/// let data = try KeyedArchiver.archivedData(
///     withRootObject: ArchivedTextCheckingResult(range: 0..<3, pattern: "a(b)c", ranges: [0..<3, 1..<2]),
///     requiringSecureCoding: true)
/// let match = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedTextCheckingResult.self, from: data)
/// print(match?.description ?? "")   // /a(b)c/ 0..<3 [0..<3, 1..<2]
/// ```
///
/// Every field is kept in ``fields`` and written back as read, under the class read.
public struct ArchivedTextCheckingResult: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// The archived class (`NSSimpleRegularExpressionCheckingResult`, …).
    public var className: String
    /// Every field of the archived object by key.
    public var fields: [String: ArchivedAttributeValue]

    /// Creates a result from its archived fields.
    ///
    /// - Parameters:
    ///   - fields: The fields, under Apple's keys.
    ///   - className: The archived class; by default Apple's class for a match with
    ///     capture groups.
    public init(
        fields: [String: ArchivedAttributeValue],
        className: String = "NSComplexRegularExpressionCheckingResult"
    ) {
        self.fields = fields
        self.className = className
    }

    /// Creates a regular-expression match as Apple archives it: a simple result for one
    /// range, an extended one (`NSExtendedRegularExpressionCheckingResult`) for more.
    ///
    /// - Parameters:
    ///   - range: The match's range, in UTF-16 code units.
    ///   - pattern: The expression's pattern.
    ///   - options: `NSRegularExpression.Options` raw value.
    ///   - ranges: The ranges of the match and its capture groups.
    public init(range: Range<Int>, pattern: String, options: Int = 0, ranges: [Range<Int>]) {
        var expression: [String: ArchivedAttributeValue] = [
            "NSPattern": .string(pattern), "NSOptions": .integer(options),
        ]
        expression.reserveCapacity(2)
        self.init(
            fields: [
                "NSRangeLocation": .integer(range.lowerBound), "NSRangeLength": .integer(range.count),
                "NSRegularExpression": ArchivedRegularExpressionFields(fields: expression).archived ?? .null,
                "NSRangeArray": ArchivedRangeArray(ranges: ranges).archived ?? .null,
            ],
            className: ranges.count > 1
                ? CataloguedClass.extendedRegularExpressionCheckingResult.name
                : CataloguedClass.simpleRegularExpressionCheckingResult.name)
    }

    /// `NSTextCheckingResult`; a result is written under the class it was read or made as.
    public static var archivedClassName: String { CataloguedClass.textCheckingResult.name }

    /// The match's range (`NSRangeLocation`, `NSRangeLength`).
    public var range: Range<Int>? {
        guard let location = fields["NSRangeLocation"]?.intValue,
            let length = fields["NSRangeLength"]?.intValue,
            location >= 0, length >= 0, length <= Int.max - location
        else { return nil }
        return location..<(location + length)
    }

    /// The regular expression's pattern (`NSPattern`).
    public var pattern: String? { fields["NSRegularExpression"]?.objectString("NSPattern") }

    /// The regular expression's options (`NSOptions`, `NSRegularExpression.Options` raw value).
    public var options: Int? { fields["NSRegularExpression"]?.objectInteger("NSOptions") }

    /// The ranges of the match and its capture groups (`NSRangeArray`).
    public var ranges: [Range<Int>] { fields["NSRangeArray"]?.rangeValues ?? [] }

    /// `/pattern/ 0..<3 [0..<3, 1..<2]`.
    public var description: String {
        var parts: [String] = []
        if let pattern { parts.append("/\(pattern)/") }
        if let range { parts.append("\(range.lowerBound)..<\(range.upperBound)") }
        let ranges = ranges
        if !ranges.isEmpty {
            parts.append(
                "[" + ranges.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ") + "]")
        }
        return parts.isEmpty ? className : parts.joined(separator: " ")
    }

    /// Writes every field.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeOtherFields(fields)
    }

    /// Reads an `NSTextCheckingResult` of any subclass, keeping every field.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when a field cannot be read.
    public init(coder: KeyedUnarchiver) throws {
        className = coder.currentClassName
        fields = try coder.keptFields()
    }
}

extension ArchivedTextCheckingResult: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .textCheckingResult) }
    package var archivedClassChain: [String] {
        CataloguedClass(appleClassNamed: className)?.chain
            ?? [className, CataloguedClass.textCheckingResult.name, ClassCatalogue.rootClassName]
    }
}

/// An `NSRegularExpression` written from its fields (for new text-checking results).
struct ArchivedRegularExpressionFields: SecureKeyedCoding {
    let fields: [String: ArchivedAttributeValue]
    static var archivedClassName: String { CataloguedClass.regularExpression.name }

    init(fields: [String: ArchivedAttributeValue]) {
        self.fields = fields
    }

    func encode(with coder: KeyedArchiver) {
        coder.encodeOtherFields(fields)
    }

    init(coder: KeyedUnarchiver) throws {
        fields = try coder.otherFields(excluding: [])
    }

    var archived: ArchivedAttributeValue? { .archivedObject(self) }
}

/// The `NSArray` of `NSValue` ranges of a new text-checking result.
struct ArchivedRangeArray {
    let ranges: [Range<Int>]

    var archived: ArchivedAttributeValue? { .archivedObject(ranges.map(ArchivedRange.init)) }
}
