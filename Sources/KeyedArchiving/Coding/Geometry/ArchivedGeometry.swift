#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `NS.special` kinds of Apple's `NSValue` that the geometry types read and write.
enum ArchivedValueKind: Int {
    case point = 1
    case size = 2
    case rect = 3
    case range = 4
    case edgeInsets = 12
}

extension KeyedUnarchiver {
    /// Checks that the current `NSValue` object has `NS.special` == `kind`.
    func requireValueKind(_ kind: ArchivedValueKind, name: String) throws {
        let special = try decodeInteger(forKey: "NS.special")
        guard special == kind.rawValue else {
            throw KeyedArchiveError(
                .typeMismatch,
                "expected an NSValue holding \(name) (NS.special \(kind.rawValue)), found NS.special \(special)"
            )
        }
    }

    /// Reads `NS.pointval`-style text such as `{{400, 300}, {200, 300}}` as its numbers.
    func decodeGeometryText(forKey key: String, count: Int) throws -> [Double] {
        guard let text = try decodeObject(of: String.self, forKey: key) else {
            throw KeyedArchiveError(.invalidArchive, "the NSValue has no \(key)")
        }
        guard let numbers = GeometryText.parse(text, count: count) else {
            throw KeyedArchiveError(
                .invalidArchive,
                "\(key) \(DisplayText.quoted(text, maximumScalars: 80)) is not \(count) numbers in braces")
        }
        return numbers
    }
}

/// The text form of points, sizes and rects in `NSValue` archives (`NSStringFromRect`).
package enum GeometryText {
    /// Formats like Apple (`400`, `0.5`), not like swift-corelibs-foundation (`400.0`); both parse.
    package static func format(_ value: Double) -> String {
        if value == value.rounded(), value.magnitude < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func pair(_ first: Double, _ second: Double) -> String {
        "{\(format(first)), \(format(second))}"
    }

    /// The numbers of `{a, b}` or `{{a, b}, {c, d}}`, ignoring braces and spaces.
    static func parse(_ text: String, count: Int) -> [Double]? {
        guard text.utf8.count <= 256 else { return nil }
        let pieces = text.split(whereSeparator: { $0 == "," })
        guard pieces.count == count else { return nil }
        var numbers: [Double] = []
        for piece in pieces {
            let trimmed = piece.filter { $0 != "{" && $0 != "}" && $0 != " " }
            guard let number = Double(trimmed) else { return nil }
            numbers.append(number)
        }
        return numbers
    }
}

/// A point archived as Apple's `NSValue` (`NS.special` 1, `NS.pointval` = `"{x, y}"`),
/// as `NSValue(point:)` writes it.
///
/// ```swift
/// let data = try KeyedArchiver.archivedData(withRootObject: ArchivedPoint(x: 1, y: 2.5),
///                                           requiringSecureCoding: true)
/// let point = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPoint.self, from: data)
/// ```
public struct ArchivedPoint: SecureKeyedCoding, Hashable, Sendable, Codable {
    /// The horizontal coordinate.
    public var x: Double
    /// The vertical coordinate.
    public var y: Double

    /// Creates a point.
    ///
    /// - Parameters:
    ///   - x: The horizontal coordinate.
    ///   - y: The vertical coordinate.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// `NSValue`.
    public static var archivedClassName: String { "NSValue" }

    /// Writes `NS.special` 1 and `NS.pointval`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(ArchivedValueKind.point.rawValue, forKey: "NS.special")
        coder.encode(GeometryText.pair(x, y), forKey: "NS.pointval")
    }

    /// Reads an `NSValue` holding a point.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for an `NSValue` of another
    ///   kind, `invalidArchive` when `NS.pointval` is missing or malformed.
    public init(coder: KeyedUnarchiver) throws {
        try coder.requireValueKind(.point, name: "a point")
        let numbers = try coder.decodeGeometryText(forKey: "NS.pointval", count: 2)
        self.init(x: numbers[0], y: numbers[1])
    }
}

/// A size archived as Apple's `NSValue` (`NS.special` 2, `NS.sizeval` = `"{width, height}"`).
public struct ArchivedSize: SecureKeyedCoding, Hashable, Sendable, Codable {
    /// The width.
    public var width: Double
    /// The height.
    public var height: Double

    /// Creates a size.
    ///
    /// - Parameters:
    ///   - width: The width.
    ///   - height: The height.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// `NSValue`.
    public static var archivedClassName: String { "NSValue" }

    /// Writes `NS.special` 2 and `NS.sizeval`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(ArchivedValueKind.size.rawValue, forKey: "NS.special")
        coder.encode(GeometryText.pair(width, height), forKey: "NS.sizeval")
    }

    /// Reads an `NSValue` holding a size.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for an `NSValue` of another
    ///   kind, `invalidArchive` when `NS.sizeval` is missing or malformed.
    public init(coder: KeyedUnarchiver) throws {
        try coder.requireValueKind(.size, name: "a size")
        let numbers = try coder.decodeGeometryText(forKey: "NS.sizeval", count: 2)
        self.init(width: numbers[0], height: numbers[1])
    }
}

/// A rectangle archived as Apple's `NSValue` (`NS.special` 3, `NS.rectval` =
/// `"{{x, y}, {width, height}}"`).
///
/// ```swift
/// let rect = ArchivedRect(x: 400, y: 300, width: 200, height: 300)
/// let data = try KeyedArchiver.archivedData(withRootObject: rect, requiringSecureCoding: true)
/// ```
public struct ArchivedRect: SecureKeyedCoding, Hashable, Sendable, Codable {
    /// The origin.
    public var origin: ArchivedPoint
    /// The size.
    public var size: ArchivedSize

    /// Creates a rectangle from its origin and size.
    ///
    /// - Parameters:
    ///   - origin: The origin.
    ///   - size: The size.
    public init(origin: ArchivedPoint, size: ArchivedSize) {
        self.origin = origin
        self.size = size
    }

    /// Creates a rectangle from its coordinates.
    ///
    /// - Parameters:
    ///   - x: The origin's horizontal coordinate.
    ///   - y: The origin's vertical coordinate.
    ///   - width: The width.
    ///   - height: The height.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: ArchivedPoint(x: x, y: y), size: ArchivedSize(width: width, height: height))
    }

    /// `NSValue`.
    public static var archivedClassName: String { "NSValue" }

    /// Writes `NS.special` 3 and `NS.rectval`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(ArchivedValueKind.rect.rawValue, forKey: "NS.special")
        let text = "{\(GeometryText.pair(origin.x, origin.y)), \(GeometryText.pair(size.width, size.height))}"
        coder.encode(text, forKey: "NS.rectval")
    }

    /// Reads an `NSValue` holding a rectangle.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for an `NSValue` of another
    ///   kind, `invalidArchive` when `NS.rectval` is missing or malformed.
    public init(coder: KeyedUnarchiver) throws {
        try coder.requireValueKind(.rect, name: "a rect")
        let numbers = try coder.decodeGeometryText(forKey: "NS.rectval", count: 4)
        self.init(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}

/// A range archived as Apple's `NSValue` (`NS.special` 4, `NS.rangeval.location` and
/// `NS.rangeval.length` as `NSNumber` objects), as `NSValue(range:)` writes it.
///
/// ```swift
/// let range = ArchivedRange(5..<12)
/// let data = try KeyedArchiver.archivedData(withRootObject: range, requiringSecureCoding: true)
/// let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedRange.self, from: data)?.range
/// ```
public struct ArchivedRange: SecureKeyedCoding, Hashable, Sendable, Codable {
    /// The start.
    public var location: Int
    /// The number of elements.
    public var length: Int

    /// Creates a range from its location and length.
    ///
    /// - Parameters:
    ///   - location: The start.
    ///   - length: The number of elements.
    public init(location: Int, length: Int) {
        self.location = location
        self.length = length
    }

    /// Creates an archived range from a Swift range.
    ///
    /// - Parameter range: The range.
    public init(_ range: Range<Int>) {
        self.init(location: range.lowerBound, length: range.count)
    }

    /// The range as a Swift `Range`, or `nil` when `length` is negative or the end
    /// overflows `Int`.
    public var range: Range<Int>? {
        let (end, overflow) = location.addingReportingOverflow(length)
        guard length >= 0, !overflow else { return nil }
        return location..<end
    }

    /// `NSValue`.
    public static var archivedClassName: String { "NSValue" }

    /// Writes `NS.special` 4, `NS.rangeval.location` and `NS.rangeval.length`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(ArchivedValueKind.range.rawValue, forKey: "NS.special")
        coder.encode(location as (any KeyedCoding)?, forKey: "NS.rangeval.location")
        coder.encode(length as (any KeyedCoding)?, forKey: "NS.rangeval.length")
    }

    /// Reads an `NSValue` holding a range.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for an `NSValue` of another
    ///   kind or a location or length that is not an integer, `valueOutOfRange` for one
    ///   beyond `Int`.
    public init(coder: KeyedUnarchiver) throws {
        try coder.requireValueKind(.range, name: "a range")
        let location = try coder.decodeObject(of: Int.self, forKey: "NS.rangeval.location") ?? 0
        let length = try coder.decodeObject(of: Int.self, forKey: "NS.rangeval.length") ?? 0
        self.init(location: location, length: length)
    }
}

/// Edge insets archived as Apple's `NSValue` (`NS.special` 12, `NS.edgeval.top`, `.left`,
/// `.bottom`, `.right` inline reals), as `NSValue(edgeInsets:)` writes them.
public struct ArchivedEdgeInsets: SecureKeyedCoding, Hashable, Sendable, Codable {
    /// The top inset.
    public var top: Double
    /// The left inset.
    public var left: Double
    /// The bottom inset.
    public var bottom: Double
    /// The right inset.
    public var right: Double

    /// Creates edge insets.
    ///
    /// - Parameters:
    ///   - top: The top inset.
    ///   - left: The left inset.
    ///   - bottom: The bottom inset.
    ///   - right: The right inset.
    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// `NSValue`.
    public static var archivedClassName: String { "NSValue" }

    /// Writes `NS.special` 12 and the four insets.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(ArchivedValueKind.edgeInsets.rawValue, forKey: "NS.special")
        coder.encode(top, forKey: "NS.edgeval.top")
        coder.encode(left, forKey: "NS.edgeval.left")
        coder.encode(bottom, forKey: "NS.edgeval.bottom")
        coder.encode(right, forKey: "NS.edgeval.right")
    }

    /// Reads an `NSValue` holding edge insets.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for an `NSValue` of another
    ///   kind or an inset that is not a number.
    public init(coder: KeyedUnarchiver) throws {
        try coder.requireValueKind(.edgeInsets, name: "edge insets")
        self.init(
            top: try coder.decodeDouble(forKey: "NS.edgeval.top"),
            left: try coder.decodeDouble(forKey: "NS.edgeval.left"),
            bottom: try coder.decodeDouble(forKey: "NS.edgeval.bottom"),
            right: try coder.decodeDouble(forKey: "NS.edgeval.right"))
    }
}

extension Range where Bound == Int {
    /// Creates a range from an archived `NSValue` range.
    ///
    /// - Parameter archived: The archived range.
    /// - Returns: `nil` when its length is negative or its end overflows `Int`.
    public init?(_ archived: ArchivedRange) {
        guard let range = archived.range else { return nil }
        self = range
    }
}

#if canImport(CoreGraphics)
import CoreGraphics

extension ArchivedPoint {
    /// Creates an archived point from a `CGPoint`.
    ///
    /// - Parameter point: The point.
    public init(_ point: CGPoint) { self.init(x: Double(point.x), y: Double(point.y)) }

    /// The point as a `CGPoint`.
    public var cgPoint: CGPoint { CGPoint(x: x, y: y) }
}

extension ArchivedSize {
    /// Creates an archived size from a `CGSize`.
    ///
    /// - Parameter size: The size.
    public init(_ size: CGSize) { self.init(width: Double(size.width), height: Double(size.height)) }

    /// The size as a `CGSize`.
    public var cgSize: CGSize { CGSize(width: width, height: height) }
}

extension ArchivedRect {
    /// Creates an archived rectangle from a `CGRect`.
    ///
    /// - Parameter rect: The rectangle.
    public init(_ rect: CGRect) {
        self.init(origin: ArchivedPoint(rect.origin), size: ArchivedSize(rect.size))
    }

    /// The rectangle as a `CGRect`.
    public var cgRect: CGRect { CGRect(origin: origin.cgPoint, size: size.cgSize) }
}
#endif
