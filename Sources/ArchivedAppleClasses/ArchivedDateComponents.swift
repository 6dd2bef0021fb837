#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Date components as Foundation's `NSDateComponents` archives them: each defined
/// component an integer (`NS.year`, `NS.month`, `NS.day`, …; `NS.nanosec` for
/// nanoseconds, `NS.yearForWOY` for the year of the week of the year), `NS.leapMonth`,
/// and the calendar (`NS.calendar`) and time zone (`NS.timezone`) when set.
///
/// ```swift
/// var components = ArchivedDateComponents()
/// components[.year] = 2024
/// components[.month] = 2
/// components[.day] = 29
/// let data = try KeyedArchiver.archivedData(withRootObject: components, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedDateComponents.self, from: data)
/// print(copy?.description ?? "")   // day 29, month 2, year 2024
/// ```
///
/// Apple leaves out undefined components; swift-corelibs-foundation writes them as
/// `Int.max` (`NSDateComponentUndefined`), which reads as undefined. Every field is kept in
/// ``fields`` and written back as read, so an archive's calendar object (a generic graph:
/// the catalogue has no `NSCalendar` type) survives a round trip.
public struct ArchivedDateComponents: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// A date component and the key Apple archives it under.
    public enum Component: String, CaseIterable, Sendable {
        /// `NS.era`.
        case era = "NS.era"
        /// `NS.year`.
        case year = "NS.year"
        /// `NS.quarter`.
        case quarter = "NS.quarter"
        /// `NS.month`.
        case month = "NS.month"
        /// `NS.day`.
        case day = "NS.day"
        /// `NS.hour`.
        case hour = "NS.hour"
        /// `NS.minute`.
        case minute = "NS.minute"
        /// `NS.second`.
        case second = "NS.second"
        /// `NS.nanosec`.
        case nanosecond = "NS.nanosec"
        /// `NS.weekday`.
        case weekday = "NS.weekday"
        /// `NS.weekdayOrdinal`.
        case weekdayOrdinal = "NS.weekdayOrdinal"
        /// `NS.weekOfMonth`.
        case weekOfMonth = "NS.weekOfMonth"
        /// `NS.weekOfYear`.
        case weekOfYear = "NS.weekOfYear"
        /// `NS.yearForWOY`.
        case yearForWeekOfYear = "NS.yearForWOY"
        /// `NS.dayOfYear`.
        case dayOfYear = "NS.dayOfYear"

        /// The component's name, as in Foundation's `DateComponents` (`year`, `weekOfYear`, …).
        public var name: String { String(describing: self) }
    }

    /// Every field of the archived object by key (numbers, the calendar and time-zone
    /// objects, and any field Apple adds).
    public var fields: [String: ArchivedAttributeValue]

    /// Creates date components with no component defined: `NS.leapMonth` 0, and
    /// `NS.calendar` and `NS.timezone` nil (Apple's reader takes nil for a missing object;
    /// swift-corelibs-foundation's fails without the keys).
    public init() {
        fields = ["NS.leapMonth": .integer(0), "NS.calendar": .null, "NS.timezone": .null]
    }

    /// Creates date components from their archived fields.
    ///
    /// - Parameter fields: The fields, under Apple's keys.
    public init(fields: [String: ArchivedAttributeValue]) {
        self.fields = fields
    }

    /// `NSDateComponents`.
    public static var archivedClassName: String { CataloguedClass.dateComponents.name }

    /// The value of `component`, or `nil` when undefined; setting `nil` removes it.
    public subscript(component: Component) -> Int? {
        get { fields[component.rawValue]?.definedInteger }
        set { fields[component.rawValue] = newValue.map(ArchivedAttributeValue.integer) }
    }

    /// Whether the month is a leap month (`NS.leapMonth`, or swift-corelibs-foundation's
    /// `NS.isLeapMonth`).
    public var isLeapMonth: Bool {
        get { (fields["NS.leapMonth"] ?? fields["NS.isLeapMonth"])?.intValue.map { $0 != 0 } ?? false }
        set { fields["NS.leapMonth"] = .integer(newValue ? 1 : 0) }
    }

    /// The time zone (`NS.timezone`), when set and known to this platform.
    public var timeZone: TimeZone? {
        get { fields["NS.timezone"]?.decodedObject(as: TimeZone.self) }
        set { fields["NS.timezone"] = newValue.flatMap(ArchivedAttributeValue.archivedObject) ?? .null }
    }

    /// The calendar's identifier (`NS.identifier` of the `NSCalendar` under `NS.calendar`),
    /// such as `gregorian`.
    public var calendarIdentifier: String? { fields["NS.calendar"]?.objectString("NS.identifier") }

    /// The defined components in order, `year 2024, month 2, …`.
    public var description: String {
        var parts = Component.allCases.compactMap { component in
            self[component].map { "\(component.name) \($0)" }
        }
        if isLeapMonth { parts.append("leap month") }
        if let zone = timeZone { parts.append("time zone \(zone.identifier)") }
        if let calendar = calendarIdentifier { parts.append("calendar \(calendar)") }
        return parts.isEmpty ? "no components" : parts.sorted().joined(separator: ", ")
    }

    /// Writes every field.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeOtherFields(fields)
    }

    /// Reads an `NSDateComponents`, keeping every field.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when a field cannot be read.
    public init(coder: KeyedUnarchiver) throws {
        fields = try coder.keptFields()
    }
}

extension ArchivedDateComponents: ArchiveStandardType {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .dateComponents) }
}

extension ArchivedDateComponents {
    /// The components as Foundation's `DateComponents` (with the time zone; the calendar
    /// is left unset, as its archived form holds more than its identifier).
    public var dateComponents: DateComponents {
        var result = DateComponents()
        result.era = self[.era]
        result.year = self[.year]
        result.quarter = self[.quarter]
        result.month = self[.month]
        result.day = self[.day]
        result.hour = self[.hour]
        result.minute = self[.minute]
        result.second = self[.second]
        result.nanosecond = self[.nanosecond]
        result.weekday = self[.weekday]
        result.weekdayOrdinal = self[.weekdayOrdinal]
        result.weekOfMonth = self[.weekOfMonth]
        result.weekOfYear = self[.weekOfYear]
        result.yearForWeekOfYear = self[.yearForWeekOfYear]
        result.dayOfYear = self[.dayOfYear]
        if isLeapMonth { result.isLeapMonth = true }
        result.timeZone = timeZone
        return result
    }

    /// Creates archived components from Foundation's `DateComponents` (its components,
    /// leap month and time zone; not its calendar).
    ///
    /// - Parameter components: The components.
    public init(_ components: DateComponents) {
        self.init()
        self[.era] = components.era
        self[.year] = components.year
        self[.quarter] = components.quarter
        self[.month] = components.month
        self[.day] = components.day
        self[.hour] = components.hour
        self[.minute] = components.minute
        self[.second] = components.second
        self[.nanosecond] = components.nanosecond
        self[.weekday] = components.weekday
        self[.weekdayOrdinal] = components.weekdayOrdinal
        self[.weekOfMonth] = components.weekOfMonth
        self[.weekOfYear] = components.weekOfYear
        self[.yearForWeekOfYear] = components.yearForWeekOfYear
        self[.dayOfYear] = components.dayOfYear
        isLeapMonth = components.isLeapMonth ?? false
        timeZone = components.timeZone
    }
}
