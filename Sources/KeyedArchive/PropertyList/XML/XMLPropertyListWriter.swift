#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes XML property lists in Apple's layout.
///
/// The output matches what CoreFoundation writes, byte for byte, for the same value (CPython's
/// `plistlib` reproduces the same bytes for `cpython_TESTDATA_xml.plist`): the XML declaration
/// and `DOCTYPE` lines, `<plist version="1.0">`, one tab per nesting level, `<array/>` and
/// `<dict/>` for empty collections, `<true/>` and `<false/>`, `&`, `<` and `>` escaped, dates
/// as `YYYY-MM-DDTHH:MM:SSZ` without fractions, and base64 in `<data>` wrapped so that a line
/// with its indentation (a tab counting eight columns, at most eight tabs) stays within 76
/// columns. A UID is written as `<dict><key>CF$UID</key><integer>N</integer></dict>`.
///
/// Choices where Apple's output is unusable or ambiguous:
/// - Reals are written in the shortest form that reads back exactly, without a trailing `.0`
///   (as swift-foundation writes them); NaN and infinities as `nan`, `inf` and `-inf`.
/// - Characters that XML 1.0 cannot carry literally (the C0 controls other than tab and line
///   feed) and carriage return (which XML parsers turn into a line feed) are written as
///   decimal character references such as `&#1;` and `&#13;`. Apple writes them raw, which
///   makes the document unreadable by XML parsers; the references are read back exactly by
///   CoreFoundation, swift-foundation and this package. Strict XML 1.0 parsers still refuse
///   the references to control characters; no XML 1.0 encoding of them exists.
/// - A date that is not finite, or too far from 2001 to print, throws `invalidValue` with the
///   key path of the value.
///
/// The tree is walked with an explicit stack, so any nesting depth can be written.
enum XMLPropertyListWriter {
    static func write(_ value: PropertyList, options: PropertyListWritingOptions) throws -> Data {
        var emitter = XMLPropertyListEmitter(sortsKeys: options.sortsKeys)
        try emitter.emitDocument(value)
        return Data(emitter.output)
    }
}

struct XMLPropertyListEmitter {
    /// An open `<array>` or `<dict>` and the next child to write.
    private struct Frame {
        let isDictionary: Bool
        let keys: [String]
        let values: [PropertyList]
        /// For dictionaries written sorted, the order of the entries; otherwise empty.
        let order: [Int]
        var next = 0
    }

    let sortsKeys: Bool
    var output: [UInt8] = []
    private var frames: [Frame] = []

    init(sortsKeys: Bool) {
        self.sortsKeys = sortsKeys
        output.reserveCapacity(4096)
    }

    mutating func emitDocument(_ root: PropertyList) throws {
        append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        append("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" ")
        append("\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
        append("<plist version=\"1.0\">\n")
        try emit(root)
        // Frames are read in place (not copied) so that walking them costs no reference
        // counting beyond the value being written.
        while let last = frames.indices.last {
            let position = frames[last].next
            guard position < frames[last].values.count else {
                let isDictionary = frames[last].isDictionary
                frames.removeLast()
                indent(last)
                append(isDictionary ? "</dict>\n" : "</array>\n")
                continue
            }
            frames[last].next = position + 1
            let entry = frames[last].order.isEmpty ? position : frames[last].order[position]
            if frames[last].isDictionary {
                indent(last + 1)
                append("<key>")
                appendEscaped(frames[last].keys[entry])
                append("</key>\n")
            }
            try emit(frames[last].values[entry])
        }
        append("</plist>\n")
    }

    /// Writes a scalar completely, or the opening line of a collection and pushes its frame.
    private mutating func emit(_ value: PropertyList) throws {
        let depth = frames.count
        indent(depth)
        switch value {
        case .string(let string):
            append("<string>")
            appendEscaped(string)
            append("</string>\n")
        case .integer(let number):
            append("<integer>")
            appendInteger(number)
            append("</integer>\n")
        case .real(let number):
            append("<real>")
            appendReal(number)
            append("</real>\n")
        case .bool(let flag):
            append(flag ? "<true/>\n" : "<false/>\n")
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            guard seconds.isFinite, abs(seconds) < ISO8601Date.formattableRange else {
                throw KeyedArchiveError(
                    .invalidValue, "the date \(seconds) seconds from 2001 cannot be written in XML",
                    at: .keyPath(keyPath()))
            }
            append("<date>")
            appendString(ISO8601Date.format(seconds))
            append("</date>\n")
        case .data(let data):
            append("<data>\n")
            let lineIndentation = min(depth, 8)
            data.withUnsafeBytes { bytes in
                PropertyListBase64.appendLines(
                    of: bytes, charactersPerLine: 76 - 8 * lineIndentation, indentation: lineIndentation,
                    to: &output)
            }
            indent(depth)
            append("</data>\n")
        case .array(let elements):
            if elements.isEmpty {
                append("<array/>\n")
            } else {
                append("<array>\n")
                frames.append(Frame(isDictionary: false, keys: [], values: elements, order: []))
            }
        case .dictionary(let dictionary):
            if dictionary.isEmpty {
                append("<dict/>\n")
            } else {
                append("<dict>\n")
                let keys = dictionary.keys
                frames.append(
                    Frame(
                        isDictionary: true, keys: keys, values: dictionary.values,
                        order: sortsKeys ? Self.sortedOrder(keys) : []))
            }
        case .uid(let number):
            append("<dict>\n")
            indent(depth + 1)
            append("<key>CF$UID</key>\n")
            indent(depth + 1)
            append("<integer>")
            appendDecimal(number)
            append("</integer>\n")
            indent(depth)
            append("</dict>\n")
        }
    }

    /// The positions of `keys` in Unicode scalar order (UTF-8 byte order is the same), or
    /// an empty array when they are in order already.
    private static func sortedOrder(_ keys: [String]) -> [Int] {
        var inOrder = true
        for position in keys.indices.dropFirst() where !precedes(keys[position - 1], keys[position]) {
            inOrder = false
            break
        }
        if inOrder { return [] }
        return keys.indices.sorted { precedes(keys[$0], keys[$1]) }
    }

    /// Compares UTF-8 bytes, which orders strings by Unicode scalar values.
    private static func precedes(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in
                let common = min(leftBytes.count, rightBytes.count)
                for index in 0..<common where leftBytes[index] != rightBytes[index] {
                    return leftBytes[index] < rightBytes[index]
                }
                return leftBytes.count < rightBytes.count
            }
        }
    }

    /// Where the value being written sits: `root`, then `.key` or `[index]` per level.
    private func keyPath() -> String {
        var path = "root"
        for frame in frames {
            let position = max(frame.next - 1, 0)
            let entry = frame.order.isEmpty ? position : frame.order[position]
            path += frame.isDictionary ? ".\(frame.keys[entry])" : "[\(entry)]"
        }
        return path
    }

    // MARK: - Bytes

    @inline(__always)
    private mutating func append(_ literal: StaticString) {
        output.append(
            contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { output.append(contentsOf: $0) }
    }

    @inline(__always)
    private mutating func indent(_ depth: Int) {
        for _ in 0..<depth { output.append(0x09) }
    }

    /// Bytes below 64 that must not be written literally: C0 controls except tab and line
    /// feed, and `&`, `<`, `>`.
    private static let escapedBytes: UInt64 = {
        var mask: UInt64 = 0
        for byte in 0..<32 where byte != 0x09 && byte != 0x0A { mask |= 1 << UInt64(byte) }
        for byte in [0x26, 0x3C, 0x3E] { mask |= 1 << UInt64(byte) }
        return mask
    }()

    private mutating func appendEscaped(_ string: String) {
        var string = string
        let mask = Self.escapedBytes
        string.withUTF8 { bytes in
            var runStart = 0
            for position in 0..<bytes.count {
                let byte = bytes[position]
                guard byte < 64, mask >> UInt64(byte) & 1 != 0 else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                switch byte {
                case UInt8(ascii: "&"): append("&amp;")
                case UInt8(ascii: "<"): append("&lt;")
                case UInt8(ascii: ">"): append("&gt;")
                default:
                    append("&#")
                    appendDecimal(UInt64(byte))
                    output.append(UInt8(ascii: ";"))
                }
                runStart = position + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
    }

    private mutating func appendDecimal(_ value: UInt64) {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let end = output.count + digits
        output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var remaining = value
        var position = end - 1
        output.withUnsafeMutableBufferPointer { buffer in
            for _ in 0..<digits {
                buffer[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
                position -= 1
            }
        }
    }

    private mutating func appendInteger(_ number: PropertyListInteger) {
        if let signed = number.int64Value {
            if signed < 0 { output.append(UInt8(ascii: "-")) }
            appendDecimal(signed.magnitude)
        } else if let unsigned = number.uint64Value {
            appendDecimal(unsigned)
        } else {
            appendString(number.description)
        }
    }

    private mutating func appendReal(_ number: Double) {
        if number.isNaN {
            append("nan")
        } else if number.isInfinite {
            append(number < 0 ? "-inf" : "inf")
        } else if number == number.rounded(.towardZero), abs(number) < 1e15 {
            // Integral: the digits Double.description would print, without its ".0".
            if number.sign == .minus { output.append(UInt8(ascii: "-")) }
            appendDecimal(UInt64(abs(number)))
        } else {
            var text = number.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            appendString(text)
        }
    }
}
