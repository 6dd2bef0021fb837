import Foundation
import KeyedArchive

/// Conversions between ``ArchivedAttributedString`` and Foundation's `NSAttributedString`,
/// in their own module because they need full Foundation (`KeyedArchive` itself imports
/// only FoundationEssentials where it exists, which has no `NSAttributedString`).
///
/// Attribute values Foundation has a class for become that class: strings, numbers, data,
/// dates, URLs (the `NSLink` attribute) and arrays of these. Values it cannot represent
/// here (fonts, colours and paragraph styles, which need AppKit or UIKit, and objects of
/// other classes) are stored as the ``ArchivedAttributeValue`` itself, under the same
/// attribute name, so converting back loses nothing.
extension ArchivedAttributedString {
    /// The string as Foundation's `NSAttributedString` (an `NSMutableAttributedString`
    /// when ``isMutable``).
    ///
    /// Runs whose range is outside the text are left out.
    public var nsAttributedString: NSAttributedString {
        let result = NSMutableAttributedString(string: string)
        let length = result.length
        for run in runs
        where !run.range.isEmpty && run.range.lowerBound >= 0 && run.range.upperBound <= length {
            var attributes: [NSAttributedString.Key: Any] = [:]
            for (name, value) in run.attributes {
                attributes[NSAttributedString.Key(name)] = Self.foundationValue(value)
            }
            result.setAttributes(
                attributes, range: NSRange(location: run.range.lowerBound, length: run.range.count))
        }
        return isMutable ? result : NSAttributedString(attributedString: result)
    }

    /// Creates an archived attributed string from Foundation's `NSAttributedString`: one
    /// run per range of equal attributes, values converted back (see ``nsAttributedString``).
    ///
    /// - Parameter attributedString: The string; an `NSMutableAttributedString` is archived
    ///   as mutable.
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` when an attribute holds a
    ///   value that cannot be archived (of a type neither Foundation's nor KeyedArchive's).
    public init(_ attributedString: NSAttributedString) throws {
        var runs: [Run] = []
        var problem: KeyedArchiveError?
        let whole = NSRange(location: 0, length: attributedString.length)
        attributedString.enumerateAttributes(in: whole, options: []) { attributes, range, stop in
            var converted: [String: ArchivedAttributeValue] = [:]
            for (key, value) in attributes {
                guard let archived = Self.archivedValue(value) else {
                    problem = KeyedArchiveError(
                        .invalidValue,
                        "attribute \(key.rawValue) holds a \(type(of: value)), which cannot be archived")
                    stop.pointee = true
                    return
                }
                converted[key.rawValue] = archived
            }
            let bounds = range.location..<(range.location + range.length)
            if let last = runs.last, last.attributes == converted, last.range.upperBound == bounds.lowerBound
            {
                runs[runs.count - 1].range = last.range.lowerBound..<bounds.upperBound
            } else {
                runs.append(Run(range: bounds, attributes: converted))
            }
        }
        if let problem { throw problem }
        if runs.count == 1, runs[0].attributes.isEmpty { runs = [] }
        self.init(
            attributedString.string, runs: runs, isMutable: attributedString is NSMutableAttributedString)
    }

    /// `value` as the Foundation value an `NSAttributedString` holds, or the value itself
    /// when Foundation has no class for it.
    static func foundationValue(_ value: ArchivedAttributeValue) -> Any {
        switch value {
        case .string(let text): return text
        case .integer(let number): return NSNumber(value: number)
        case .real(let number): return NSNumber(value: number)
        case .bool(let flag): return NSNumber(value: flag)
        case .data(let bytes): return bytes
        case .date(let date): return date
        case .url(let url): return url
        case .array(let values):
            // An array of values Foundation represents becomes an array; any other is kept.
            let converted = values.map(foundationValue)
            return converted.contains { $0 is ArchivedAttributeValue } ? value : converted
        case .null, .font, .color, .paragraphStyle, .object: return value
        }
    }

    /// A Foundation attribute value as an archived value, or `nil` for a type neither
    /// Foundation's property-list classes nor KeyedArchive's.
    static func archivedValue(_ value: Any) -> ArchivedAttributeValue? {
        switch value {
        case let archived as ArchivedAttributeValue: return archived
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let number as Int where type(of: value) == Int.self: return .integer(number)
        case let number as Double where type(of: value) == Double.self: return .real(number)
        case let text as String: return .string(text)
        case let url as URL: return .url(url)
        case let bytes as Data: return .data(bytes)
        case let date as Date: return .date(date)
        case let number as NSNumber: return archivedNumber(number)
        case let font as ArchivedFont: return .font(font)
        case let color as ArchivedColor: return .color(color)
        case let style as ArchivedParagraphStyle: return .paragraphStyle(style)
        case let values as [Any]:
            var converted: [ArchivedAttributeValue] = []
            for element in values {
                guard let archived = archivedValue(element) else { return nil }
                converted.append(archived)
            }
            return .array(converted)
        default: return nil
        }
    }

    /// An `NSNumber` as a Boolean, an integer or a real, by its stored type.
    static func archivedNumber(_ number: NSNumber) -> ArchivedAttributeValue {
        switch String(cString: number.objCType) {
        case "c", "B":
            if number.intValue == 0 || number.intValue == 1 { return .bool(number.boolValue) }
            return .integer(number.intValue)
        case "f", "d": return .real(number.doubleValue)
        default:
            if let exact = Int(exactly: number.int64Value) { return .integer(exact) }
            return .real(number.doubleValue)
        }
    }
}
