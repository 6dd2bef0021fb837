#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A formatter as Foundation archives it: `NSByteCountFormatter`,
/// `NSDateIntervalFormatter` or `NSISO8601DateFormatter`.
///
/// ```swift
/// let iso = ArchivedFormatter(
///     className: "NSISO8601DateFormatter",
///     fields: ["NS.formatOptions": .integer(1907)])
/// let data = try KeyedArchiver.archivedData(withRootObject: iso, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedFormatter.self, from: data)
/// print(copy?.formatOptions ?? 0)   // 1907
/// ```
///
/// Apple's keys: a byte-count formatter stores what differs from its defaults (`NSUnits`,
/// `NSKBSize` for the count style, `NSZeroPad`, `NSNoAdaptive`, `NSNoCount`, `NSNoUnit`,
/// `NSNoNonnumeric`, `NSFormattingContext`, …); a date-interval formatter `NS.dateStyle`,
/// `NS.timeStyle`, `NS.dateTemplate`, `NS.dateTemplateFromStyles`, `NS.useTemplate`,
/// `NS.modified`, `NS.locale`, `NS.calendar`, `NS.timeZone`; an ISO 8601 formatter
/// `NS.formatOptions` and `NS.timeZone`. Every field is kept in ``fields`` and written back
/// as read, under the class read; the properties read the ones whose meaning is known.
public struct ArchivedFormatter: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// The archived class (`NSByteCountFormatter`, `NSDateIntervalFormatter`,
    /// `NSISO8601DateFormatter`).
    public var className: String
    /// Every field of the archived object by key.
    public var fields: [String: ArchivedAttributeValue]

    /// Creates a formatter from its class and archived fields.
    ///
    /// - Parameters:
    ///   - className: `NSByteCountFormatter`, `NSDateIntervalFormatter` or
    ///     `NSISO8601DateFormatter`.
    ///   - fields: The fields, under Apple's keys.
    public init(className: String, fields: [String: ArchivedAttributeValue]) {
        self.className = className
        self.fields = fields
    }

    /// `NSFormatter`; a formatter is written under the class it was read or made as.
    public static var archivedClassName: String { CataloguedClass.formatter.name }

    /// The time zone (`NS.timeZone`) of a date-interval or ISO 8601 formatter.
    public var timeZone: TimeZone? { fields["NS.timeZone"]?.decodedObject(as: TimeZone.self) }

    /// The locale (`NS.locale`) of a date-interval formatter.
    public var locale: Locale? { fields["NS.locale"]?.decodedObject(as: Locale.self) }

    /// `NSISO8601DateFormatter`'s options (`NS.formatOptions`,
    /// `ISO8601DateFormatter.Options` raw value).
    public var formatOptions: Int? { fields["NS.formatOptions"]?.intValue }

    /// A date-interval formatter's date style (`NS.dateStyle`, `DateFormatter.Style` raw value).
    public var dateStyle: Int? { fields["NS.dateStyle"]?.intValue }

    /// A date-interval formatter's time style (`NS.timeStyle`).
    public var timeStyle: Int? { fields["NS.timeStyle"]?.intValue }

    /// A date-interval formatter's template (`NS.dateTemplate`), when it has one.
    public var dateTemplate: String? {
        guard let template = fields["NS.dateTemplate"]?.stringValue, !template.isEmpty else { return nil }
        return template
    }

    /// A byte-count formatter's allowed units (`NSUnits`, `ByteCountFormatter.Units` raw
    /// value; 0, all units, when not archived).
    public var allowedUnits: Int? {
        className == CataloguedClass.byteCountFormatter.name ? fields["NSUnits"]?.intValue ?? 0 : nil
    }

    /// A byte-count formatter's count style (`NSKBSize`, `ByteCountFormatter.CountStyle`
    /// raw value; 0, file, when not archived).
    public var countStyle: Int? {
        className == CataloguedClass.byteCountFormatter.name ? fields["NSKBSize"]?.intValue ?? 0 : nil
    }

    /// The class, then the known settings: `NSISO8601DateFormatter options 1907, time zone GMT`.
    public var description: String {
        let settings = settings
        return settings.isEmpty ? className : "\(className) \(settings)"
    }

    /// The known settings: `options 1907, time zone GMT` (empty when none is known).
    var settings: String {
        var parts: [String] = []
        if let formatOptions { parts.append("options \(formatOptions)") }
        if let dateStyle { parts.append("date style \(dateStyle)") }
        if let timeStyle { parts.append("time style \(timeStyle)") }
        if let dateTemplate { parts.append("template \(DisplayText.quoted(dateTemplate))") }
        if let allowedUnits { parts.append("units \(allowedUnits)") }
        if let countStyle { parts.append("count style \(countStyle)") }
        if let locale { parts.append("locale \(locale.identifier)") }
        if let timeZone { parts.append("time zone \(timeZone.identifier)") }
        return parts.joined(separator: ", ")
    }

    /// Writes every field.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeOtherFields(fields)
    }

    /// Reads a formatter, keeping every field.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when a field cannot be read.
    public init(coder: KeyedUnarchiver) throws {
        className = coder.currentClassName
        fields = try coder.keptFields()
    }
}

extension ArchivedFormatter: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .formatter) }
    package var archivedClassChain: [String] {
        CataloguedClass(appleClassNamed: className)?.chain
            ?? [className, CataloguedClass.formatter.name, ClassCatalogue.rootClassName]
    }
}
