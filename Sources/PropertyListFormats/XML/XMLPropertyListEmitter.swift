#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The engine behind ``XMLPropertyListWriter``: walks a ``PropertyList`` with an explicit
/// stack and writes it into an ``XMLOutputBuffer``.
struct XMLPropertyListEmitter: ~Copyable {
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
    /// See ``PropertyListWritingOptions/maximumOutputBytes``.
    let maximumOutputBytes: Int
    var output = XMLOutputBuffer(capacity: 4096)
    /// Where the text goes as it is made, or nil to keep all of it in ``output``.
    private let destination: ((UnsafeRawBufferPointer) throws -> Void)?
    /// The bytes already handed to ``destination``.
    private var drainedCount = 0
    private var frames: [Frame] = []

    /// The size at which the text made so far is handed to the destination.
    static let chunkSize = 1 << 18

    /// - Parameter destination: Receives the text in pieces of about ``chunkSize`` bytes
    ///   as it is made (the last piece is left in ``output``); nil keeps it all in
    ///   ``output``.
    init(
        sortsKeys: Bool, maximumOutputBytes: Int = .max,
        destination: ((UnsafeRawBufferPointer) throws -> Void)? = nil
    ) {
        self.sortsKeys = sortsKeys
        self.maximumOutputBytes = maximumOutputBytes
        self.destination = destination
    }

    mutating func emitDocument(_ root: PropertyList) throws {
        output.appendDocumentStart()
        try emit(root)
        // Frames are read in place (not copied) so that walking them costs no reference
        // counting beyond the value being written.
        while let last = frames.indices.last {
            let position = frames[last].next
            guard position < frames[last].values.count else {
                let isDictionary = frames[last].isDictionary
                frames.removeLast()
                output.indent(last)
                output.append(isDictionary ? "</dict>\n" : "</array>\n")
                continue
            }
            frames[last].next = position + 1
            let entry = frames[last].order.isEmpty ? position : frames[last].order[position]
            if frames[last].isDictionary {
                output.indent(last + 1)
                output.append("<key>")
                output.appendEscaped(frames[last].keys[entry])
                output.append("</key>\n")
            }
            try emit(frames[last].values[entry])
        }
        output.append("</plist>\n")
    }

    /// Writes a scalar completely, or the opening line of a collection and pushes its frame.
    private mutating func emit(_ value: PropertyList) throws {
        // Checked once a value: a value adds at most its own text and indentation beyond it.
        if output.count >= Self.chunkSize, let destination {
            drainedCount += output.count
            try output.drain(into: destination)
        }
        guard drainedCount + output.count <= maximumOutputBytes else {
            throw KeyedArchiveError(
                .limitExceeded, "the XML would be longer than \(maximumOutputBytes) bytes",
                at: .keyPath(keyPath()))
        }
        let depth = frames.count
        output.indent(depth)
        switch value {
        case .string(let string):
            output.append("<string>")
            output.appendEscaped(string)
            output.append("</string>\n")
        case .integer(let number):
            output.append("<integer>")
            output.appendInteger(number)
            output.append("</integer>\n")
        case .real(let number):
            output.append("<real>")
            output.appendReal(number)
            output.append("</real>\n")
        case .bool(let flag):
            output.append(flag ? "<true/>\n" : "<false/>\n")
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            guard seconds.isFinite, abs(seconds) < ISO8601Date.formattableRange else {
                throw KeyedArchiveError(
                    .invalidValue, "the date \(seconds) seconds from 2001 cannot be written in XML",
                    at: .keyPath(keyPath()))
            }
            output.append("<date>")
            output.appendString(ISO8601Date.format(seconds))
            output.append("</date>\n")
        case .data(let data):
            output.append("<data>\n")
            let lineIndentation = min(depth, 8)
            data.withUnsafeBytes { bytes in
                output.appendBase64Lines(
                    of: bytes, charactersPerLine: 76 - 8 * lineIndentation, indentation: lineIndentation)
            }
            output.indent(depth)
            output.append("</data>\n")
        case .array(let elements):
            if elements.isEmpty {
                output.append("<array/>\n")
            } else {
                output.append("<array>\n")
                frames.append(Frame(isDictionary: false, keys: [], values: elements, order: []))
            }
        case .dictionary(let dictionary):
            if dictionary.isEmpty {
                output.append("<dict/>\n")
            } else {
                output.append("<dict>\n")
                let keys = dictionary.keys
                frames.append(
                    Frame(
                        isDictionary: true, keys: keys, values: dictionary.values,
                        order: sortsKeys ? Self.sortedOrder(keys) : []))
            }
        case .uid(let number):
            output.append("<dict>\n")
            output.indent(depth + 1)
            output.append("<key>CF$UID</key>\n")
            output.indent(depth + 1)
            output.append("<integer>")
            output.appendDecimal(number)
            output.append("</integer>\n")
            output.indent(depth)
            output.append("</dict>\n")
        }
    }

    /// The positions of `keys` in Unicode scalar order (UTF-8 byte order is the same), or
    /// an empty array when they are in order already.
    private static func sortedOrder(_ keys: [String]) -> [Int] {
        KeyOrder.sortedPositions(keys)
    }

    /// Compares UTF-8 bytes, which orders strings by Unicode scalar values.
    static func precedes(_ left: String, _ right: String) -> Bool {
        KeyOrder.precedes(left, right)
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
}
