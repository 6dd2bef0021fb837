import Foundation
import KeyedArchive

/// Converts between our `PropertyList` and the `Any` graphs of Foundation's
/// `PropertyListSerialization`, carefully, because `Any` hides the distinctions the
/// comparison depends on.
///
/// What Foundation on Linux hands back (checked on this toolchain, swift-corelibs-foundation):
/// - booleans arrive as Swift `Bool` (`type(of:) == Bool.self`), integers and reals as
///   `NSNumber`. The trap is that `someNSNumber as? Bool` succeeds for the integers 0 and
///   1 (and `as? Int` succeeds for the real 3.0), so we never classify by `as?` casts on
///   numbers: a `Bool` is recognised by its dynamic type, and an `NSNumber` by its
///   `objCType` (`d`/`f` real; `Q` unsigned 64-bit integer; `c` — CF's boolean, in case
///   one ever arrives boxed — bool; anything else a signed integer).
/// - a UID arrives as an instance of the internal class `_NSKeyedArchiverUID`, whose
///   stored `value: UInt32` we read through `Mirror` (there is no public accessor).
/// - dictionaries arrive as `[String: Any]` (key order is lost, which our equality ignores).
enum FoundationBridge {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Converts what `PropertyListSerialization.propertyList(from:…)` returned.
    static func propertyList(from object: Any, path: String = "root") throws -> PropertyList {
        if type(of: object) == Bool.self, let value = object as? Bool {
            return .bool(value)
        }
        if let value = object as? String { return .string(value) }
        if let value = object as? Data { return .data(value) }
        if let value = object as? Date { return .date(value) }
        if let value = object as? [String: Any] {
            var dictionary = PropertyListDictionary(minimumCapacity: value.count)
            for (key, element) in value {
                dictionary[key] = try propertyList(from: element, path: "\(path).\(key)")
            }
            return .dictionary(dictionary)
        }
        if let value = object as? [Any] {
            return .array(
                try value.enumerated().map {
                    try propertyList(from: $0.element, path: "\(path)[\($0.offset)]")
                })
        }
        if let number = object as? NSNumber {
            let type = String(cString: number.objCType)
            switch type {
            case "d", "f": return .real(number.doubleValue)
            case "c", "B": return .bool(number.boolValue)
            case "Q": return .integer(PropertyListInteger(number.uint64Value))
            default: return .integer(PropertyListInteger(number.int64Value))
            }
        }
        if String(describing: type(of: object)).contains("KeyedArchiverUID") {
            for child in Mirror(reflecting: object).children where child.label == "value" {
                if let value = child.value as? UInt32 { return .uid(UInt64(value)) }
                if let value = child.value as? UInt64 { return .uid(value) }
            }
        }
        throw Failure(
            description: "\(path): unexpected Foundation value of type \(type(of: object)): \(object)")
    }

    /// The Foundation object graph `PropertyListSerialization.data(fromPropertyList:…)`
    /// accepts for `value`: `Bool` for booleans (bridged to CF's boolean), `NSNumber` built
    /// from `Int64`/`UInt64`/`Double` for numbers, so that CF sees the exact type.
    static func foundationObject(from value: PropertyList) throws -> Any {
        switch value {
        case .string(let string): return string
        case .integer(let integer):
            if let signed = integer.int64Value { return NSNumber(value: signed) }
            if let unsigned = integer.uint64Value { return NSNumber(value: unsigned) }
            throw Failure(description: "integer \(integer) does not fit in 64 bits")
        case .real(let real): return NSNumber(value: real)
        case .bool(let bool): return bool
        case .date(let date): return date
        case .data(let data): return data
        case .array(let elements): return try elements.map(foundationObject(from:))
        case .dictionary(let dictionary):
            var result: [String: Any] = [:]
            for (key, element) in dictionary { result[key] = try foundationObject(from: element) }
            return result
        case .uid:
            throw Failure(description: "Foundation on Linux has no public way to create a UID")
        }
    }
}
