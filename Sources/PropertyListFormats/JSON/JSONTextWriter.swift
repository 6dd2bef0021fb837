import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The engine behind ``JSONPropertyListWriter``: walks a ``PropertyList`` with an explicit
/// stack and writes its JSON text.
struct JSONTextWriter {
    private(set) var output: [UInt8] = []
    private let prettyPrinted: Bool
    private let sortsKeys: Bool
    private let maximumOutputBytes: Int
    /// Where the text goes as it is made, or nil to keep all of it in ``output``.
    private let destination: ((UnsafeRawBufferPointer) throws -> Void)?
    /// The bytes already handed to ``destination``.
    private var drainedCount = 0
    /// The open containers of ``consume(_:)`` and the text readers' events: whether each is
    /// an array, what of it is written, and how many children it has had.
    private var eventFrames: [(isArray: Bool, state: EventFrameState, next: Int)] = []

    /// What is written of an open container of the events.
    private enum EventFrameState {
        /// Known to be empty: written whole (`[]`, `{}`) when it opened.
        case writtenEmpty
        /// Its opening bracket is written.
        case open
        /// Of unknown size and nothing written yet: its bracket comes with its first child,
        /// or `[]` when it closes without one.
        case pending
    }

    /// The size at which the text made so far is handed to the destination.
    static let chunkSize = 1 << 18

    /// The deepest indentation written; deeper lines keep it.
    static let maximumIndent = 32

    /// - Parameter destination: Receives the text in pieces of about ``chunkSize`` bytes
    ///   as it is made (the last piece is left in ``output``); nil keeps it all in
    ///   ``output``.
    init(
        prettyPrinted: Bool, sortsKeys: Bool, maximumOutputBytes: Int = .max,
        destination: ((UnsafeRawBufferPointer) throws -> Void)? = nil
    ) {
        self.prettyPrinted = prettyPrinted
        self.sortsKeys = sortsKeys
        self.maximumOutputBytes = maximumOutputBytes
        self.destination = destination
        output.reserveCapacity(1024)
    }

    /// An array or dictionary being written: its children and the index of the next one.
    private struct Frame {
        let isArray: Bool
        let values: [PropertyList]
        let keys: [String]
        /// The order in which to visit dictionary entries, when keys are sorted.
        let order: [Int]?
        var next = 0

        var count: Int { values.count }
    }

    mutating func write(_ root: PropertyList) throws {
        var stack: [Frame] = []
        var pending: PropertyList? = root
        while true {
            if let value = pending {
                pending = nil
                switch value {
                case .array(let elements):
                    try checkDepth(stack)
                    if elements.isEmpty {
                        append("[]")
                    } else {
                        output.append(UInt8(ascii: "["))
                        stack.append(Frame(isArray: true, values: elements, keys: [], order: nil))
                    }
                case .dictionary(let dictionary):
                    try checkDepth(stack)
                    if dictionary.isEmpty {
                        append("{}")
                    } else {
                        output.append(UInt8(ascii: "{"))
                        let keys = dictionary.keys
                        let order =
                            sortsKeys
                            ? keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
                            : nil
                        stack.append(
                            Frame(isArray: false, values: dictionary.values, keys: keys, order: order))
                    }
                default:
                    writeScalar(value)
                }
            }
            guard let top = stack.indices.last else { return }
            try drainAndCheckLength()
            let next = stack[top].next
            if next < stack[top].count {
                if next > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth: stack.count)
                let index = stack[top].order?[next] ?? next
                if !stack[top].isArray {
                    writeString(stack[top].keys[index])
                    append(prettyPrinted ? ": " : ":")
                }
                pending = stack[top].values[index]
                stack[top].next = next + 1
            } else {
                newline(depth: stack.count - 1)
                output.append(stack[top].isArray ? UInt8(ascii: "]") : UInt8(ascii: "}"))
                stack.removeLast()
            }
        }
    }

    /// Writes the next event of a walk over a binary property list in file order: the same
    /// text ``write(_:)`` writes for the value reading the file gives, checked against the
    /// limits where `write` checks them (or sooner), so that whatever `write` refuses is
    /// refused.
    ///
    /// Keys are written in the order the events give them; ``sortsKeys`` is not applied.
    mutating func consume(_ event: BinaryPropertyListWalk.Event) throws {
        switch event {
        case .key(let key):
            separate(beforeKey: true)
            writeString(key)
            append(prettyPrinted ? ": " : ":")
            return
        case .arrayStart(let count), .dictionaryStart(let count):
            let isArray: Bool
            if case .arrayStart = event { isArray = true } else { isArray = false }
            separate(beforeKey: false)
            try checkEventDepth()
            if count == 0 {
                append(isArray ? "[]" : "{}")
            } else {
                output.append(isArray ? UInt8(ascii: "[") : UInt8(ascii: "{"))
            }
            eventFrames.append((isArray, count == 0 ? .writtenEmpty : .open, 0))
            if count == 0 { return }
        case .scalar(let value):
            separate(beforeKey: false)
            writeScalar(value)
        case .end:
            closeEventFrame()
        }
        guard !eventFrames.isEmpty else { return }
        try drainAndCheckLength()
    }

    // MARK: - Events of a text reader

    // A reader of text learns a container's size only when it closes: these write the
    // same text as ``consume(_:)`` for the same value, with the same checks.

    /// Throws where one more container would nest past the writer's depth limit (the
    /// event stack holds the open containers that are not empty).
    private func checkEventDepth() throws {
        guard eventFrames.count < JSONPropertyListWriter.maximumDepth else {
            throw KeyedArchiveError(
                .limitExceeded,
                "arrays and dictionaries are nested more than \(JSONPropertyListWriter.maximumDepth) deep")
        }
    }

    /// An array (or dictionary) of a size not yet known opens.
    mutating func openContainer(isArray: Bool) throws {
        separate(beforeKey: false)
        try checkEventDepth()
        eventFrames.append((isArray, .pending, 0))
        try drainAndCheckLength()
    }

    /// An empty array (or dictionary): `consume(.arrayStart(count: 0))`, then `.end`.
    mutating func writeEmptyContainer(isArray: Bool) throws {
        separate(beforeKey: false)
        try checkEventDepth()
        append(isArray ? "[]" : "{}")
        guard !eventFrames.isEmpty else { return }
        try drainAndCheckLength()
    }

    /// The key of the next dictionary entry, from its UTF-8 bytes.
    mutating func writeKey(utf8 key: UnsafeBufferPointer<UInt8>) {
        separate(beforeKey: true)
        writeQuoted(key)
        append(prettyPrinted ? ": " : ":")
    }

    /// A string value, from its UTF-8 bytes.
    mutating func writeStringValue(utf8 string: UnsafeBufferPointer<UInt8>) throws {
        separate(beforeKey: false)
        writeQuoted(string)
        guard !eventFrames.isEmpty else { return }
        try drainAndCheckLength()
    }

    /// A value other than a string or a container.
    mutating func writeScalarValue(_ value: PropertyList) throws {
        separate(beforeKey: false)
        writeScalar(value)
        guard !eventFrames.isEmpty else { return }
        try drainAndCheckLength()
    }

    /// The innermost open container closes.
    mutating func closeContainer() throws {
        closeEventFrame()
        guard !eventFrames.isEmpty else { return }
        try drainAndCheckLength()
    }

    /// Forgets all the text when none was handed to the destination yet, so that the
    /// events can start over.
    ///
    /// - Returns: Whether it did (`false`: part of the text is handed over).
    mutating func restart() -> Bool {
        guard drainedCount == 0 else { return false }
        output.removeAll(keepingCapacity: true)
        eventFrames.removeAll(keepingCapacity: true)
        return true
    }

    private mutating func closeEventFrame() {
        guard let frame = eventFrames.popLast() else { return }
        switch frame.state {
        case .writtenEmpty:
            break
        case .open:
            newline(depth: eventFrames.count)
            output.append(frame.isArray ? UInt8(ascii: "]") : UInt8(ascii: "}"))
        case .pending:
            append(frame.isArray ? "[]" : "{}")
        }
    }

    /// Hands a full chunk of output to the destination (when there is one) and refuses
    /// output longer than ``maximumOutputBytes``, counting what was handed over.
    @inline(__always)
    private mutating func drainAndCheckLength() throws {
        if output.count >= Self.chunkSize, let destination {
            drainedCount += output.count
            try output.withUnsafeBytes(destination)
            output.removeAll(keepingCapacity: true)
        }
        guard drainedCount + output.count <= maximumOutputBytes else {
            throw KeyedArchiveError(
                .limitExceeded, "the JSON would be longer than \(maximumOutputBytes) bytes")
        }
    }

    /// Before an array's element or a dictionary's key: the comma after the one before and
    /// the new line (nothing before a dictionary's value, which follows its key).
    private mutating func separate(beforeKey: Bool) {
        guard let top = eventFrames.indices.last, eventFrames[top].isArray != beforeKey else { return }
        if eventFrames[top].next > 0 {
            output.append(UInt8(ascii: ","))
        } else if eventFrames[top].state == .pending {
            output.append(eventFrames[top].isArray ? UInt8(ascii: "[") : UInt8(ascii: "{"))
            eventFrames[top].state = .open
        }
        eventFrames[top].next += 1
        newline(depth: eventFrames.count)
    }

    private func checkDepth(_ stack: [Frame]) throws {
        guard stack.count >= JSONPropertyListWriter.maximumDepth else { return }
        // Name the place by the path that leads to it, each step shortened.
        var path = "root"
        for frame in stack {
            let index = frame.next - 1
            if frame.isArray {
                path += "[\(index)]"
            } else {
                let keyIndex = frame.order?[index] ?? index
                let key = frame.keys.indices.contains(keyIndex) ? frame.keys[keyIndex] : ""
                path +=
                    "."
                    + DisplayText.quotedIfNeeded(
                        key.unicodeScalars.count > 16 ? String(key.prefix(16)) + "…" : key)
            }
        }
        throw KeyedArchiveError(
            .limitExceeded,
            "arrays and dictionaries are nested more than \(JSONPropertyListWriter.maximumDepth) deep",
            at: .keyPath(path))
    }

    private mutating func newline(depth: Int) {
        guard prettyPrinted else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * min(depth, Self.maximumIndent)))
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { output.append(contentsOf: $0) }
    }

    /// Writes `{"name": ` (or `{"name":`) of a one-key object standing for a type JSON lacks.
    private mutating func openWrapper(_ name: StaticString) {
        append("{\"")
        append(name)
        append(prettyPrinted ? "\": " : "\":")
    }

    private mutating func writeScalar(_ value: PropertyList) {
        switch value {
        case .string(let string):
            writeString(string)
        case .integer(let integer):
            if let small = integer.int64Value {
                output.append(contentsOf: String(small).utf8)
            } else {
                output.append(contentsOf: integer.description.utf8)
            }
        case .real(let real):
            guard real.isFinite else {
                openWrapper("real")
                output.append(UInt8(ascii: "\""))
                appendReal(real)
                append("\"}")
                return
            }
            appendReal(real)
        case .bool(let bool):
            append(bool ? "true" : "false")
        case .date(let date):
            openWrapper("date")
            writeString(Self.dateText(date.timeIntervalSinceReferenceDate))
            output.append(UInt8(ascii: "}"))
        case .data(let data):
            openWrapper("data")
            output.append(UInt8(ascii: "\""))
            appendBase64(data)
            append("\"}")
        case .uid(let uid):
            openWrapper("CF$UID")
            output.append(contentsOf: String(uid).utf8)
            output.append(UInt8(ascii: "}"))
        case .array, .dictionary:
            break  // handled by `write`
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with up to six fraction digits when the date has them.
    static func dateText(_ seconds: Double) -> String {
        guard seconds.isFinite else { return ISO8601Date.format(seconds) }
        var whole = seconds.rounded(.down)
        var micro = ((seconds - whole) * 1_000_000).rounded(.toNearestOrEven)
        if micro >= 1_000_000 {
            whole += 1
            micro = 0
        }
        let text = ISO8601Date.format(whole)
        guard micro > 0, text.hasSuffix("Z") else { return text }
        var digits = String(Int(micro))
        digits = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return String(text.dropLast()) + "." + digits + "Z"
    }

    private mutating func writeString(_ string: String) {
        writeQuoted(string.utf8)
    }

    @inline(__always)
    private mutating func writeQuoted<UTF8Bytes: Collection<UInt8>>(_ utf8: UTF8Bytes) {
        output.append(UInt8(ascii: "\""))
        if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            output.append(contentsOf: utf8)
        } else {
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                case 0..<0x20:
                    append("\\u00")
                    output.append(Self.hexDigits[Int(byte >> 4)])
                    output.append(Self.hexDigits[Int(byte & 0x0F)])
                default:
                    output.append(byte)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `real` as ``RealText`` spells it: always with a `.` or an exponent when
    /// finite (`1.0`, `1e+100`), so that a reader sees a floating-point number.
    private mutating func appendReal(_ real: Double) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RealText.maximumLength) { buffer in
            guard let start = buffer.baseAddress else { return }
            let length = RealText.write(real, keepsPointZero: true, to: start)
            output.append(contentsOf: UnsafeBufferPointer(start: start, count: length))
        }
    }

    private mutating func appendBase64(_ data: Data) {
        data.withUnsafeBytes { PropertyListBase64.append($0, to: &output) }
    }
}
