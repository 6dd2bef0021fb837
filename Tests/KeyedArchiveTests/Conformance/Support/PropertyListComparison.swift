import Foundation
import KeyedArchive
import TestSupport

/// Strict comparison of property lists for conformance tests, reporting the first
/// difference with its path so that a failure says exactly what differs.
///
/// Stricter than `==`: reals and dates compare by bit pattern (so `-0.0` differs from
/// `0.0`; every NaN still equals every NaN) and strings compare by Unicode scalars (so a
/// reader or writer that normalises text is caught).
enum PropertyListComparison {
    /// The first difference between `expected` and `actual`, or `nil` when they match.
    ///
    /// - Parameters:
    ///   - dateTolerance: How far apart two dates may be, in seconds. Zero demands the
    ///     same bits; the fixture expectations come from Python, whose dates have
    ///     microsecond resolution, so fixture comparisons allow a microsecond.
    static func firstDifference(
        expected: PropertyList, actual: PropertyList, path: String = "root", dateTolerance: Double = 0
    ) -> String? {
        switch (expected, actual) {
        case (.string(let a), .string(let b)):
            return a.unicodeScalars.elementsEqual(b.unicodeScalars)
                ? nil : mismatch(path, expected, actual)
        case (.integer(let a), .integer(let b)):
            return a == b ? nil : mismatch(path, expected, actual)
        case (.real(let a), .real(let b)):
            return sameReal(a, b) ? nil : mismatch(path, expected, actual)
        case (.bool(let a), .bool(let b)):
            return a == b ? nil : mismatch(path, expected, actual)
        case (.date(let a), .date(let b)):
            let x = a.timeIntervalSinceReferenceDate
            let y = b.timeIntervalSinceReferenceDate
            if sameReal(x, y) || abs(x - y) <= dateTolerance { return nil }
            return "\(path): expected date \(exact(x)) s, got \(exact(y)) s"
        case (.data(let a), .data(let b)):
            if a == b { return nil }
            let index = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            return "\(path): data differs (\(a.count) vs \(b.count) bytes"
                + (index.map { ", first at byte \($0)" } ?? "") + ")"
        case (.uid(let a), .uid(let b)):
            return a == b ? nil : mismatch(path, expected, actual)
        case (.array(let a), .array(let b)):
            guard a.count == b.count else {
                return "\(path): expected \(a.count) elements, got \(b.count)"
            }
            for (index, (x, y)) in zip(a, b).enumerated() {
                if let difference = firstDifference(
                    expected: x, actual: y, path: "\(path)[\(index)]", dateTolerance: dateTolerance)
                {
                    return difference
                }
            }
            return nil
        case (.dictionary(let a), .dictionary(let b)):
            for (key, value) in a {
                guard let other = b[key] else { return "\(path): missing key \(quoted(key))" }
                if let difference = firstDifference(
                    expected: value, actual: other, path: "\(path).\(quoted(key))",
                    dateTolerance: dateTolerance)
                {
                    return difference
                }
            }
            if let extra = b.keys.first(where: { a[$0] == nil }) {
                return "\(path): unexpected key \(quoted(extra))"
            }
            return nil
        default:
            return mismatch(path, expected, actual)
        }
    }

    private static func sameReal(_ a: Double, _ b: Double) -> Bool {
        a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    }

    private static func exact(_ value: Double) -> String {
        value.isFinite ? "\(value) (bits 0x\(String(value.bitPattern, radix: 16)))" : "\(value)"
    }

    private static func mismatch(_ path: String, _ expected: PropertyList, _ actual: PropertyList) -> String {
        if case .real(let a) = expected, case .real(let b) = actual {
            return "\(path): expected real \(exact(a)), got \(exact(b))"
        }
        return "\(path): expected \(expected.typeName) \(abbreviated(expected)), got \(actual.typeName) "
            + abbreviated(actual)
    }

    /// A key as it appears in a path: bare when it is a plain word, else quoted with
    /// invisible scalars escaped so that failure messages stay on one line.
    private static func quoted(_ key: String) -> String {
        if !key.isEmpty,
            key.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0 == "_") })
        {
            return key
        }
        var text = "\""
        for scalar in key.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator:
                text += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    /// A description short enough for a failure message.
    static func abbreviated(_ value: PropertyList, limit: Int = 160) -> String {
        let text = value.description
        return text.count <= limit ? text : String(text.prefix(limit)) + "… (\(text.count) characters)"
    }
}

/// Transformations that express, on the expected side, what a format or a peer cannot
/// preserve, so that the comparison stays strict about everything else.
extension PropertyList {
    /// XML dates carry whole seconds: Apple's writer (and ours) drops the fraction,
    /// rounding towards negative infinity.
    var withDatesFlooredToSeconds: PropertyList {
        mapScalars { value in
            guard case .date(let date) = value else { return value }
            let seconds = date.timeIntervalSinceReferenceDate
            guard seconds.isFinite else { return value }
            return .date(Date(timeIntervalSinceReferenceDate: seconds.rounded(.down)))
        }
    }

    /// Foundation's XML writer on Linux writes `-0.0` as `0.0` (see FORMAT.md), and
    /// plistlib's binary writer stores `0.0` and `-0.0` as one object (its de-duplication
    /// table compares them equal), so either may come back as the other.
    var withNegativeZeroAsPositive: PropertyList {
        mapScalars { value in
            if case .real(let real) = value, real == 0 { return .real(0) }
            return value
        }
    }

    /// Whether any integer lies outside `Int64.min ... UInt64.max`.
    var containsIntegerWiderThan64Bits: Bool {
        switch self {
        case .integer(let value): return !value.fitsIn64Bits
        case .array(let elements): return elements.contains { $0.containsIntegerWiderThan64Bits }
        case .dictionary(let dictionary):
            return dictionary.values.contains { $0.containsIntegerWiderThan64Bits }
        default: return false
        }
    }

    /// plistlib's JSON (the expected.json convention) writes dates with a fraction as
    /// `2047-02-04T03:37:35.10146Z`; this turns such `{"date": …}` dictionaries into dates,
    /// to the microsecond.
    var withFractionalDatesResolved: PropertyList {
        switch self {
        case .dictionary(let dictionary):
            if dictionary.count == 1, case .string(let text)? = dictionary["date"],
                let seconds = ISO8601Text.secondsSince2001(text)
            {
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            }
            return .dictionary(
                PropertyListDictionary(dictionary.map { ($0.0, $0.1.withFractionalDatesResolved) }))
        case .array(let elements):
            return .array(elements.map(\.withFractionalDatesResolved))
        default:
            return self
        }
    }

    private func mapScalars(_ transform: (PropertyList) -> PropertyList) -> PropertyList {
        switch self {
        case .array(let elements):
            return .array(elements.map { $0.mapScalars(transform) })
        case .dictionary(let dictionary):
            return .dictionary(PropertyListDictionary(dictionary.map { ($0.0, $0.1.mapScalars(transform)) }))
        default:
            return transform(self)
        }
    }
}
