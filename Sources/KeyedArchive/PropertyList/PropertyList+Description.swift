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
        // An explicit work stack, not recursion: any nesting depth renders on any thread.
        enum Work {
            case value(PropertyList)
            case text(String)
        }
        var text = ""
        var work: [Work] = [.value(self)]
        while let item = work.popLast() {
            switch item {
            case .text(let literal):
                text += literal
            case .value(.array(let elements)):
                text += "["
                work.append(.text("]"))
                for (index, element) in elements.enumerated().reversed() {
                    work.append(.value(element))
                    if index > 0 { work.append(.text(", ")) }
                }
            case .value(.dictionary(let dictionary)):
                text += "{"
                work.append(.text("}"))
                for (index, (key, value)) in Array(dictionary).enumerated().reversed() {
                    work.append(.value(value))
                    work.append(.text(DisplayText.quoted(key) + ": "))
                    if index > 0 { work.append(.text(", ")) }
                }
            case .value(let scalar):
                scalar.appendScalarDescription(to: &text)
            }
        }
        return text
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

func hexByte(_ byte: UInt8) -> String {
    let digits: [Character] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f",
    ]
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
