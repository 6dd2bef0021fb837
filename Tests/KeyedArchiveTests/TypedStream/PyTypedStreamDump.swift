import Foundation
import KeyedArchive

/// Renders a ``TypedStreamGraph`` the way `pytypedstream decode` prints a stream, for the
/// classes in the fixtures, so that our reading can be compared line by line with the
/// reference dumps (`*.decoded.txt`): classes, versions, group encodings and every value.
struct PyTypedStreamDump {
    let graph: TypedStreamGraph

    func render() -> String {
        var lines: [String] = []
        for group in graph.contents { lines += renderGroup(group) }
        return lines.joined(separator: "\n")
    }

    private func renderGroup(_ group: TypedStreamGraph.Group) -> [String] {
        let encodings = Self.split(group.encoding)
        if group.values.count == 1, let value = group.values.first {
            return prefixed("type \(Self.bytesRepr(Array(group.encoding.utf8))): ", renderValue(value))
        }
        var lines = ["group:"]
        for (encoding, value) in zip(encodings, group.values) {
            lines += prefixed("type \(Self.bytesRepr(Array(encoding.utf8))): ", renderValue(value)).map {
                "\t" + $0
            }
        }
        return lines
    }

    private func prefixed(_ prefix: String, _ lines: [String]) -> [String] {
        guard let first = lines.first else { return [prefix] }
        return [prefix + first] + lines.dropFirst()
    }

    private func renderValue(_ value: TypedStreamGraph.Value) -> [String] {
        switch value {
        case .null: return ["None"]
        case .integer(let number): return [String(number)]
        case .unsignedInteger(let number): return [String(number)]
        case .bool(let flag): return [flag ? "True" : "False"]
        case .float(let number): return [Self.floatRepr(Double(number))]
        case .double(let number): return [Self.floatRepr(number)]
        case .object(let index): return renderObject(index)
        default: return ["\(value)"]
        }
    }

    private func header(_ object: TypedStreamGraph.Object) -> String {
        graph.classChain(of: object).enumerated().map { index, found in
            (index == 0 ? "object of class " : "extends ") + "\(found.name) v\(found.version)"
        }.joined(separator: ", ")
    }

    private func withBody(_ head: String, _ body: [String]) -> [String] {
        body.isEmpty ? [head] : [head + ":"] + body.map { "\t" + $0 }
    }

    private func renderObject(_ index: Int) -> [String] {
        guard let object = graph.object(at: index) else { return ["<bad reference #\(index)>"] }
        let name = object.className
        let values = object.values
        switch name {
        case "NSString", "NSMutableString":
            guard case .bytes(let bytes)? = values.first else { break }
            return ["\(name)(\(Self.stringRepr(String(decoding: bytes, as: UTF8.self))))"]
        case "NSNumber", "NSValue":
            guard values.count == 2, case .cString(let type) = values[0] else { break }
            return prefixed("\(name), type \(Self.bytesRepr(Array(type))): ", renderValue(values[1]))
        case "NSData", "NSMutableData":
            guard values.count == 2, case .byteArray(let bytes) = values[1] else { break }
            return ["\(name)(\(Self.bytesRepr(Array(bytes))))"]
        case "NSDate":
            guard let seconds = values.first?.doubleValue else { break }
            return ["<NSDate: \(Self.dateText(seconds))>"]
        case "NSURL":
            return [urlRepr(object)]
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
            let members = values.dropFirst()
            let count = members.count
            let summary = count == 0 ? "empty" : count == 1 ? "1 element" : "\(count) elements"
            return withBody("\(name), \(summary)", members.flatMap(renderValue))
        case "NSDictionary", "NSMutableDictionary":
            let members = Array(values.dropFirst())
            let count = members.count / 2
            let summary = count == 0 ? "empty" : count == 1 ? "1 entry" : "\(count) entries"
            var body: [String] = []
            for entry in 0..<count {
                let key = renderValue(members[2 * entry]).joined(separator: "\n")
                body += prefixed("\(key): ", renderValue(members[2 * entry + 1]))
            }
            return withBody("\(name), \(summary)", body)
        default:
            break
        }
        var body = ["super object: <NSObject>"]
        for group in object.groups { body += renderGroup(group) }
        return withBody(header(object), body)
    }

    private func urlRepr(_ object: TypedStreamGraph.Object) -> String {
        let values = object.values
        func text(_ value: TypedStreamGraph.Value) -> String {
            guard case .object(let index) = value, let string = graph.object(at: index),
                case .bytes(let bytes)? = string.values.first
            else { return "?" }
            return Self.stringRepr(String(decoding: bytes, as: UTF8.self))
        }
        if values.count == 3, case .object(let base) = values[1], let baseObject = graph.object(at: base) {
            return "NSURL(relative_to=\(urlRepr(baseObject)), value=\(text(values[2])))"
        }
        return "NSURL(\(text(values.last ?? .null)))"
    }

    // MARK: - Python's repr

    static func split(_ encoding: String) -> [String] {
        var result: [String] = []
        var current = ""
        var depth = 0
        for character in encoding {
            current.append(character)
            if "([{".contains(character) { depth += 1 } else if ")]}".contains(character) { depth -= 1 }
            if depth == 0 {
                result.append(current)
                current = ""
            }
        }
        return result
    }

    static func floatRepr(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return "\(value)"
    }

    static func bytesRepr(_ bytes: [UInt8]) -> String {
        let quote: Character =
            bytes.contains(UInt8(ascii: "'")) && !bytes.contains(UInt8(ascii: "\"")) ? "\"" : "'"
        var text = "b\(quote)"
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): text += "\\\\"
            case UInt8(ascii: "\t"): text += "\\t"
            case UInt8(ascii: "\n"): text += "\\n"
            case UInt8(ascii: "\r"): text += "\\r"
            case 0x20..<0x7f:
                if Character(UnicodeScalar(byte)) == quote { text += "\\" }
                text.append(Character(UnicodeScalar(byte)))
            default: text += String(format: "\\x%02x", byte)
            }
        }
        return text + String(quote)
    }

    static func stringRepr(_ string: String) -> String {
        let quote: Character = string.contains("'") && !string.contains("\"") ? "\"" : "'"
        var text = String(quote)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\\": text += "\\\\"
            case "\t": text += "\\t"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            default:
                if Character(scalar) == quote {
                    text += "\\" + String(scalar)
                } else if isPrintable(scalar) {
                    text.unicodeScalars.append(scalar)
                } else if scalar.value <= 0xff {
                    text += String(format: "\\x%02x", scalar.value)
                } else if scalar.value <= 0xffff {
                    text += String(format: "\\u%04x", scalar.value)
                } else {
                    text += String(format: "\\U%08x", scalar.value)
                }
            }
        }
        return text + String(quote)
    }

    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == " " { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return false
        default:
            return true
        }
    }

    static func dateText(_ seconds: Double) -> String {
        let micro = (seconds * 1_000_000).rounded(.toNearestOrEven)
        let whole = (micro / 1_000_000).rounded(.down)
        let fraction = Int(micro - whole * 1_000_000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSinceReferenceDate: whole))
        var text = String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
            parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        if fraction != 0 { text += String(format: ".%06d", fraction) }
        return text + "+00:00"
    }
}
