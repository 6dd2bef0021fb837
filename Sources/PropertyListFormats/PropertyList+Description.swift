import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PropertyList: CustomStringConvertible, CustomDebugStringConvertible {
    /// A compact one-line rendering: strings quoted, data as `<0a0b>`, dates in
    /// ISO 8601, UIDs as `UID(3)`, arrays in `[ ]` and dictionaries in `{ }`.
    ///
    /// For example `{"Title": "Potato Bug", "Rating": 3.5, "Image": <89504e47>}`.
    /// Data longer than 32 bytes is shortened with its length given.
    public var description: String {
        let style = NestedDescription(entrySeparator: ", ", keyText: { DisplayText.quoted($0) + ": " })
        return style.render(self) { value -> NestedDescription.Node<PropertyList> in
            switch value {
            case .array(let elements): return .array(elements)
            case .dictionary(let dictionary): return .dictionary(Array(dictionary))
            default: return .scalar
            }
        } appendScalar: { scalar, text in
            scalar.appendScalarDescription(to: &text)
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    private func appendScalarDescription(to text: inout String) {
        switch self {
        case .string(let value):
            DisplayText.appendQuoted(value, to: &text)
        case .integer(let value):
            text += value.description
        case .real(let value):
            text += RealText.string(value)
        case .bool(let value):
            text += value ? "true" : "false"
        case .date(let value):
            text += ISO8601Date.format(value.timeIntervalSinceReferenceDate)
        case .data(let value):
            text += "<"
            for byte in value.prefix(32) { text += hexByte(byte) }
            if value.count > 32 { text += "… \(value.count) bytes" }
            text += ">"
        case .uid(let value):
            text += "UID(\(value))"
        case .array, .dictionary:
            break
        }
    }
}

package func hexByte(_ byte: UInt8) -> String {
    let digits: [Character] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f",
    ]
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
