import Foundation
import KeyedArchive

/// Writes a value, reads it back, and checks that nothing changed.
public enum RoundTrip {
    /// Writes `value` in `format` and reads it back; aborts if reading fails or the value
    /// differs. A value the format cannot hold (`invalidValue`) is skipped.
    ///
    /// - Parameters:
    ///   - value: A value that was read from some input.
    ///   - format: `.binary` or `.xml`.
    public static func check(_ value: PropertyList, through format: PropertyListFormat) {
        let written: Data
        do {
            written = try value.data(format: format)
        } catch let error as KeyedArchiveError where error.code == .invalidValue {
            return
        } catch {
            FuzzInput.fail("writing \(format) failed: \(error)")
        }
        let back: PropertyList
        do {
            back = try PropertyList(from: written, format: format)
        } catch {
            FuzzInput.fail("reading back \(format) failed: \(error)\nvalue: \(value)")
        }
        let expected = format == .xml ? xmlView(of: value) : value
        if let difference = firstDifference(expected, back, format == .xml ? 1 : 0, "root") {
            FuzzInput.fail("\(format) round trip changed the value at \(difference)\nvalue: \(value)")
        }
    }

    /// What XML reads back: a dictionary whose only entry is `CF$UID` with an integer in
    /// range is XML's spelling of a UID.
    static func xmlView(of value: PropertyList) -> PropertyList {
        switch value {
        case .array(let elements): return .array(elements.map(xmlView))
        case .dictionary(let dictionary):
            if dictionary.count == 1, case .integer(let number)? = dictionary["CF$UID"],
                number.high == 0
            {
                return .uid(number.low)
            }
            var converted = PropertyListDictionary(minimumCapacity: dictionary.count)
            for (key, element) in zip(dictionary.keys, dictionary.values) {
                converted[key] = xmlView(of: element)
            }
            return .dictionary(converted)
        default: return value
        }
    }

    /// The path of the first difference, or `nil`; dates may lose their fraction
    /// of a second when `dateTolerance` is positive, reals compare by value (NaN equals NaN).
    static func firstDifference(
        _ a: PropertyList, _ b: PropertyList, _ dateTolerance: Double, _ path: String
    ) -> String? {
        switch (a, b) {
        case (.date(let x), .date(let y)):
            let s = x.timeIntervalSinceReferenceDate
            let t = y.timeIntervalSinceReferenceDate
            // XML drops the fraction of a second (rounding down or toward zero).
            let dropped = dateTolerance > 0 && (t == s.rounded(.down) || t == s.rounded(.towardZero))
            return s == t || dropped ? nil : "\(path): date \(s) became \(t)"
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return "\(path): \(x.count) elements became \(y.count)" }
            for index in x.indices {
                if let d = firstDifference(x[index], y[index], dateTolerance, "\(path)[\(index)]") {
                    return d
                }
            }
            return nil
        case (.dictionary(let x), .dictionary(let y)):
            guard x.count == y.count else { return "\(path): \(x.count) entries became \(y.count)" }
            for (key, element) in zip(x.keys, x.values) {
                guard let other = y[key] else { return "\(path): key \(key.debugDescription) lost" }
                if let d = firstDifference(element, other, dateTolerance, "\(path).\(key.debugDescription)") {
                    return d
                }
            }
            return nil
        case (.string(let x), .string(let y)):
            return x.unicodeScalars.elementsEqual(y.unicodeScalars)
                ? nil : "\(path): \(x.debugDescription) became \(y.debugDescription)"
        default:
            return a == b ? nil : "\(path): \(a) became \(b)"
        }
    }
}
