#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A property-list value: what a binary, XML or OpenStep property list holds.
///
/// Build one with literals and read it with the typed accessors:
///
/// ```swift
/// let creature: PropertyList = [
///     "Title": "Potato Bug",
///     "Rating": 3.5,
///     "Tags": ["small", "harmless"],
/// ]
/// creature["Title"]?.stringValue   // "Potato Bug"
/// creature["Tags"]?[1]?.stringValue // "harmless"
/// let bytes = try creature.data(format: .binary)
/// ```
///
/// Equality compares values exactly: integers by value (``PropertyListInteger`` is
/// exact across the whole 128-bit range), reals by value with every NaN equal to every
/// other NaN, and dictionaries without regard to key order.
public enum PropertyList: Sendable {
    /// A string.
    case string(String)
    /// An exact integer.
    case integer(PropertyListInteger)
    /// A floating-point number.
    case real(Double)
    /// A Boolean.
    case bool(Bool)
    /// A point in time.
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// An ordered list of values.
    case array([PropertyList])
    /// String keys mapped to values.
    case dictionary(PropertyListDictionary)
    /// A keyed-archive object reference (a `CF$UID`), an index into `$objects`.
    case uid(UInt64)
}

// MARK: - Building

extension PropertyList: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Creates a string value from a literal.
    ///
    /// - Parameter value: The string.
    public init(stringLiteral value: String) { self = .string(value) }

    /// Creates an integer value from a literal.
    ///
    /// - Parameter value: The integer.
    public init(integerLiteral value: Int64) { self = .integer(PropertyListInteger(value)) }

    /// Creates a real value from a literal.
    ///
    /// - Parameter value: The number.
    public init(floatLiteral value: Double) { self = .real(value) }

    /// Creates a Boolean value from a literal.
    ///
    /// - Parameter value: The Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Creates an array value from a literal.
    ///
    /// - Parameter elements: The elements.
    public init(arrayLiteral elements: PropertyList...) { self = .array(elements) }

    /// Creates a dictionary value from a literal.
    ///
    /// - Parameter elements: The entries, in order.
    public init(dictionaryLiteral elements: (String, PropertyList)...) {
        self = .dictionary(PropertyListDictionary(elements))
    }

    /// Creates an integer value.
    ///
    /// - Parameter value: Any integer from `Int64.min` to `UInt64.max`.
    /// - Returns: The value, or `nil` if `value` is outside that range.
    public static func integer<T: BinaryInteger>(exactly value: T) -> PropertyList? {
        PropertyListInteger(exactly: value).map(PropertyList.integer)
    }

    /// Creates an integer value.
    ///
    /// - Parameter value: The integer.
    public init(_ value: Int) { self = .integer(PropertyListInteger(value)) }
}

// MARK: - Inspecting

extension PropertyList {
    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is an integer.
    public var integerValue: PropertyListInteger? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The integer as an `Int`, if this is an integer that fits.
    public var intValue: Int? { integerValue?.intValue }

    /// The number as a `Double`, if this is a real, or an integer that converts exactly.
    public var doubleValue: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value):
            if let signed = value.int64Value { return Double(exactly: signed) }
            if let unsigned = value.uint64Value { return Double(exactly: unsigned) }
            return nil
        default: return nil
        }
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The date, if this is a date.
    public var dateValue: Date? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The bytes, if this is data.
    public var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [PropertyList]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries, if this is a dictionary.
    public var dictionaryValue: PropertyListDictionary? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The object index, if this is a UID.
    public var uidValue: UInt64? {
        if case .uid(let value) = self { return value }
        return nil
    }

    /// The value for `key`, if this is a dictionary that has it.
    public subscript(key: String) -> PropertyList? {
        dictionaryValue?[key]
    }

    /// The element at `index`, if this is an array and `index` is within it.
    public subscript(index: Int) -> PropertyList? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The name of this value's type as property lists spell it: `string`, `integer`,
    /// `real`, `bool`, `date`, `data`, `array`, `dict` or `uid`.
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dict"
        case .uid: return "uid"
        }
    }
}

// MARK: - Equality

extension PropertyList: Hashable {
    /// Whether two values are equal; NaN equals NaN so that a value equals itself.
    ///
    /// Nested collections are compared with an explicit stack, not by recursion, so values
    /// of any depth compare without exhausting the stack; collections that share storage
    /// (as a binary property list's shared objects do) compare equal at once.
    ///
    /// - Parameters:
    ///   - lhs: A value.
    ///   - rhs: Another value.
    /// - Returns: `true` if the values are equal.
    public static func == (lhs: PropertyList, rhs: PropertyList) -> Bool {
        var pending: [(PropertyList, PropertyList)] = []
        guard shallowEqual(lhs, rhs, deferringTo: &pending) else { return false }
        while let (a, b) = pending.popLast() {
            guard shallowEqual(a, b, deferringTo: &pending) else { return false }
        }
        return true
    }

    /// Compares scalars, and the sizes and keys of collections, appending pairs of nested
    /// collections still to compare to `pending`.
    private static func shallowEqual(
        _ lhs: PropertyList, _ rhs: PropertyList, deferringTo pending: inout [(PropertyList, PropertyList)]
    ) -> Bool {
        switch (lhs, rhs) {
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            if a.withUnsafeBufferPointer({ $0.baseAddress }) == b.withUnsafeBufferPointer({ $0.baseAddress })
            {
                return true
            }
            for index in a.indices {
                guard deferOrCompare(a[index], b[index], &pending) else { return false }
            }
            return true
        case (.dictionary(let a), .dictionary(let b)):
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let other = b[key], deferOrCompare(value, other, &pending) else { return false }
            }
            return true
        default:
            return scalarEqual(lhs, rhs)
        }
    }

    @inline(__always)
    private static func deferOrCompare(
        _ lhs: PropertyList, _ rhs: PropertyList, _ pending: inout [(PropertyList, PropertyList)]
    ) -> Bool {
        switch (lhs, rhs) {
        case (.array, .array), (.dictionary, .dictionary):
            pending.append((lhs, rhs))
            return true
        default:
            return scalarEqual(lhs, rhs)
        }
    }

    /// Equality of two values that are not both arrays or both dictionaries.
    private static func scalarEqual(_ lhs: PropertyList, _ rhs: PropertyList) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.bool(let a), .bool(let b)): return a == b
        case (.date(let a), .date(let b)):
            let x = a.timeIntervalSinceReferenceDate
            let y = b.timeIntervalSinceReferenceDate
            return x == y || (x.isNaN && y.isNaN)
        case (.data(let a), .data(let b)): return a == b
        case (.uid(let a), .uid(let b)): return a == b
        default: return false
        }
    }

    /// Hashes the value consistently with `==`.
    ///
    /// A collection hashes its count and its first elements shallowly (a nested
    /// collection by its kind and count), so that hashing takes constant stack and time
    /// however deep the value; equal values still hash equally.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .array(let elements):
            hasher.combine(6)
            hasher.combine(elements.count)
            for element in elements.prefix(8) { element.hashShallowly(into: &hasher) }
        case .dictionary(let dictionary):
            // Entries without regard to order, each key with its value's kind and count.
            hasher.combine(7)
            hasher.combine(dictionary.count)
            var combined = 0
            for (key, value) in dictionary {
                var entryHasher = Hasher()
                entryHasher.combine(key)
                value.hashShallowly(into: &entryHasher)
                combined = combined &+ entryHasher.finalize()
            }
            hasher.combine(combined)
        default:
            hashShallowly(into: &hasher)
        }
    }

    /// A scalar's full hash, or a collection's kind and count.
    private func hashShallowly(into hasher: inout Hasher) {
        switch self {
        case .string(let value):
            hasher.combine(0)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2)
            hasher.combine(value.isNaN ? .nan : value)
        case .bool(let value):
            hasher.combine(3)
            hasher.combine(value)
        case .date(let value):
            let interval = value.timeIntervalSinceReferenceDate
            hasher.combine(4)
            hasher.combine(interval.isNaN ? .nan : interval)
        case .data(let value):
            hasher.combine(5)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(6)
            hasher.combine(value.count)
        case .dictionary(let value):
            hasher.combine(7)
            hasher.combine(value.count)
        case .uid(let value):
            hasher.combine(8)
            hasher.combine(value)
        }
    }
}
