#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedObjectGraph {
    /// The graph as indented text for people: objects nested under the fields that refer
    /// to them, with class names, and each shared object shown once in full.
    ///
    /// ```swift
    /// let graph = try KeyedUnarchiver.objectGraph(from: data)
    /// print(graph.outline())
    /// ```
    ///
    /// ```text
    /// root: NSArray #1
    ///   NS.objects: [
    ///     [0]: Creature #2 (shared ×2)
    ///       name: "Potato Bug"
    ///       legs: 14
    ///       seen: 2024-05-01T09:30:00Z
    ///       thumbnail: <8 bytes: 89 50 4e 47 0d 0a 1a 0a>
    ///     [1]: → #2 Creature (shared, see above)
    ///   ]
    /// ```
    ///
    /// A dictionary object (`NS.keys` and `NS.objects`) whose keys are plain values lists
    /// its entries as `"key": value`. Each object line is `key: ClassName #uid`, marked `(shared ×n)` when several
    /// references point at it and `(cycle)` when it can reach itself. Its fields follow,
    /// indented by two spaces. A later reference to an object already shown is
    /// `→ #uid ClassName (shared, see above)`, and a reference back to an object that
    /// encloses it is `→ #uid ClassName (cycle, see above)`. A date object (only
    /// `NS.time`) is shown on one line: `NSDate #5 2024-05-01T09:30:00Z`. Numbers, short strings
    /// and data stored as plain values are shown inline wherever they are referenced;
    /// plain arrays and dictionaries, and long strings and data referenced several times,
    /// are shown once, as `key: #uid …`, and then `→ #uid (array) (shared, see above)`
    /// (see ``isRenderedOnce(_:)``). Strings are
    /// quoted with `"` and `\` escaped and control characters written `\n`, `\t` or
    /// `\u{1b}`; data shows its length and at most its first 16 bytes; dates are UTC.
    /// Keys are unescaped (`$$x` in the archive is `$x` here). Indentation stops growing
    /// at 32 levels; deeper lines start with `⋯` and their level (`⋯40 name: …`).
    ///
    /// The root comes first, then the archive's other `$top` entries (when the graph is
    /// rooted at `$top["root"]`).
    ///
    /// - Returns: The text, one line per field, each line ending with a newline.
    /// - Complexity: O(*n*) in the size of the graph; the walk is iterative, so any
    ///   nesting depth is fine.
    public func outline() -> String {
        outline(summarizingKnownClasses: false)
    }

    /// The graph as indented text, like ``outline()``, with the objects of classes the
    /// catalogue knows shown as people think of them (see ``summary(ofObjectAt:)``)
    /// instead of field by field when `summarizingKnownClasses` is `true`:
    ///
    /// ```text
    /// root: NSAttributedString #1 "Hello, world"
    ///   0..<5 "Hello" NSFont = Helvetica-Bold 12 pt
    ///   5..<12 ", world" NSColor = calibratedRGB 1 0 0 1 #FF0000FF
    /// ```
    ///
    /// - Parameter summarizingKnownClasses: Whether to summarize known classes.
    /// - Returns: The text, one line per field.
    public func outline(summarizingKnownClasses: Bool) -> String {
        outline(summarizingKnownClasses: summarizingKnownClasses, linePrefix: "", maximumBytes: .max) ?? ""
    }

    /// The outline of ``outline(summarizingKnownClasses:)`` with every line after
    /// `linePrefix`, or `nil` as soon as the text passes `maximumBytes` bytes: plain
    /// values that share storage (a binary object referenced many times inside one
    /// `$objects` entry) can describe far more text than the graph holds.
    package func outline(summarizingKnownClasses: Bool, linePrefix: String, maximumBytes: Int) -> String? {
        var renderer = ArchivedGraphOutliner(graph: self)
        renderer.summarizesKnownClasses = summarizingKnownClasses
        renderer.linePrefix = linePrefix
        renderer.maximumBytes = maximumBytes
        if let root { renderer.render(label: "root", value: root) }
        if root == nil || root == topLevelValue(forKey: KeyedArchiver.rootObjectKey) {
            for field in topLevel where field.key != KeyedArchiver.rootObjectKey {
                renderer.render(label: field.key, value: field.value)
            }
        }
        return renderer.isOverLimit ? nil : renderer.finishedText()
    }

}

/// Renders an ``ArchivedObjectGraph`` as indented text with an explicit work stack.
struct ArchivedGraphOutliner {
    private enum Work {
        case value(label: String, value: ArchivedObjectGraph.Value, indent: Int)
        case line(String, indent: Int)
        case close(uid: Int)
    }

    let graph: ArchivedObjectGraph
    /// Whether objects of classes the catalogue knows are shown by their summaries.
    var summarizesKnownClasses = false
    /// Written before every line (the indentation of a nested archive's outline).
    var linePrefix = ""
    /// The longest text made; rendering stops once it is passed.
    var maximumBytes = Int.max
    /// Whether the text passed ``maximumBytes`` (it is then incomplete).
    private(set) var isOverLimit = false
    /// The text made so far, but for ``pending``.
    private var text = ""
    /// The latest lines, as bytes: appending to an array costs a fraction of appending to a
    /// string, a few times per line (callgrind); moved into ``text`` in pieces.
    private var pending: [UInt8] = []
    private var shown: [Bool]
    private var open: [Bool]

    /// The size of the pieces moved into ``text``.
    private static let pieceSize = 1 << 16

    /// The deepest indentation's spaces.
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 2 * maximumIndent)

    init(graph: ArchivedObjectGraph) {
        self.graph = graph
        shown = [Bool](repeating: false, count: graph.nodes.count)
        open = [Bool](repeating: false, count: graph.nodes.count)
        pending.reserveCapacity(Self.pieceSize + 1024)
    }

    /// The text made, complete once every value was rendered.
    mutating func finishedText() -> String {
        flush()
        return text
    }

    private mutating func flush() {
        guard !pending.isEmpty else { return }
        text += String(decoding: pending, as: UTF8.self)
        pending.removeAll(keepingCapacity: true)
    }

    mutating func render(label: String, value: ArchivedObjectGraph.Value) {
        var work: [Work] = [.value(label: label, value: value, indent: 0)]
        while !isOverLimit, let item = work.popLast() {
            switch item {
            case .line(let line, let indent):
                append(line, indent: indent)
            case .close(let uid):
                open[uid] = false
            case .value(let label, let value, let indent):
                expand(label: label, value: value, indent: indent, into: &work)
            }
        }
    }

    private mutating func expand(
        label: String, value: ArchivedObjectGraph.Value, indent: Int, into work: inout [Work]
    ) {
        switch value {
        case .reference(let uid):
            guard let node = graph[uid] else {
                append("\(label): → #\(uid) (missing)", indent: indent)
                return
            }
            guard graph.isRenderedOnce(uid) else {
                if case .value(let plain) = node {
                    expand(label: label, value: plain, indent: indent, into: &work)
                } else {
                    append("\(label): nil", indent: indent)
                }
                return
            }
            let name = Self.name(of: node)
            if open[uid] {
                append("\(label): → #\(uid) \(name) (cycle, see above)", indent: indent)
                return
            }
            if shown[uid] {
                append("\(label): → #\(uid) \(name) (shared, see above)", indent: indent)
                return
            }
            shown[uid] = true
            var marks = ""
            if graph.isShared(uid) { marks += " (shared ×\(graph.referenceCount(of: uid)))" }
            if graph.isOnCycle(uid) { marks += " (cycle)" }
            switch node {
            case .object(let object):
                if summarizesKnownClasses, let summary = graph.summary(ofObjectAt: uid) {
                    append("\(label): \(name) #\(uid)\(marks) \(summary.text)", indent: indent)
                    for detail in summary.details { append(detail, indent: indent + 1) }
                    return
                }
                if object.fields.count == 1, case .real(let seconds)? = object["NS.time"] {
                    // An NSDate: its time is the point, shown as a date.
                    let date = ISO8601Date.format(seconds)
                    append("\(label): \(name) #\(uid)\(marks) \(date)", indent: indent)
                    return
                }
                append("\(label): \(name) #\(uid)\(marks)", indent: indent)
                open[uid] = true
                work.append(.close(uid: uid))
                if let entries = dictionaryEntries(object) {
                    for (key, value) in entries.reversed() {
                        work.append(.value(label: key, value: value, indent: indent + 1))
                    }
                    return
                }
                for field in object.fields.reversed() {
                    work.append(.value(label: field.key, value: field.value, indent: indent + 1))
                }
            case .value(let plain):
                open[uid] = true
                work.append(.close(uid: uid))
                expand(label: "\(label): #\(uid)\(marks)", value: plain, indent: indent, into: &work)
            case .classDescription, .null:
                append("\(label): \(name) #\(uid)", indent: indent)
            }
        case .array(let elements):
            guard !elements.isEmpty else {
                append("\(label): []", indent: indent)
                return
            }
            append(label: label, "[", indent: indent)
            if elements.allSatisfy(Self.isInline) {
                // Numbers, strings, data: their lines at once, without a work item each.
                for (index, element) in elements.enumerated() where !isOverLimit {
                    startLine(indent: indent + 1)
                    pending.append(UInt8(ascii: "["))
                    appendDecimal(UInt64(index))
                    pending.append(contentsOf: "]: ".utf8)
                    appendScalar(element)
                    endLine()
                }
                append("]", indent: indent)
                return
            }
            work.append(.line("]", indent: indent))
            for (index, element) in elements.enumerated().reversed() {
                work.append(.value(label: "[\(index)]", value: element, indent: indent + 1))
            }
        case .dictionary(let fields):
            guard !fields.isEmpty else {
                append("\(label): {}", indent: indent)
                return
            }
            append(label: label, "{", indent: indent)
            work.append(.line("}", indent: indent))
            for field in fields.reversed() {
                work.append(.value(label: field.key, value: field.value, indent: indent + 1))
            }
        default:
            startLine(indent: indent)
            pending.append(contentsOf: label.utf8)
            pending.append(contentsOf: ": ".utf8)
            appendScalar(value)
            endLine()
        }
    }

    /// Whether `value` is shown on its line without looking anything up.
    private static func isInline(_ value: ArchivedObjectGraph.Value) -> Bool {
        switch value {
        case .reference, .array, .dictionary: return false
        default: return true
        }
    }

    /// ``scalarText(_:)`` of `value`, integers and Booleans written without a string.
    private mutating func appendScalar(_ value: ArchivedObjectGraph.Value) {
        switch value {
        case .integer(let integer):
            if let small = integer.int64Value {
                if small < 0 { pending.append(UInt8(ascii: "-")) }
                appendDecimal(small.magnitude)
            } else {
                pending.append(contentsOf: integer.description.utf8)
            }
        case .bool(let flag):
            pending.append(contentsOf: (flag ? "true" : "false").utf8)
        default:
            pending.append(contentsOf: Self.scalarText(value).utf8)
        }
    }

    private mutating func appendDecimal(_ value: UInt64) {
        guard value >= 10 else {
            pending.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        let start = pending.count
        var rest = value
        while rest > 0 {
            pending.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        pending[start...].reverse()
    }

    /// The entries of a dictionary object (`NS.keys` and `NS.objects` of equal length,
    /// every key a plain value), labelled by their keys; `nil` for other objects.
    private func dictionaryEntries(_ object: ArchivedObjectGraph.Object) -> [(
        String, ArchivedObjectGraph.Value
    )]? {
        guard object.fields.count == 2, case .array(let keys)? = object["NS.keys"],
            case .array(let values)? = object["NS.objects"], keys.count == values.count
        else { return nil }
        var entries: [(String, ArchivedObjectGraph.Value)] = []
        entries.reserveCapacity(keys.count)
        for (key, value) in zip(keys, values) {
            var plain = key
            if case .reference(let uid) = key, case .value(let stored)? = graph[uid] { plain = stored }
            switch plain {
            case .reference, .array, .dictionary: return nil
            default: entries.append((Self.scalarText(plain), value))
            }
        }
        return entries
    }

    /// The deepest indentation shown; deeper lines keep it and name their level instead,
    /// so that the text stays linear in the size of the graph.
    static let maximumIndent = 32

    private mutating func append(_ line: String, indent: Int) {
        startLine(indent: indent)
        pending.append(contentsOf: line.utf8)
        endLine()
    }

    /// The line `label: value`, without making it first.
    private mutating func append(label: String, _ value: String, indent: Int) {
        startLine(indent: indent)
        pending.append(contentsOf: label.utf8)
        pending.append(contentsOf: ": ".utf8)
        pending.append(contentsOf: value.utf8)
        endLine()
    }

    private mutating func startLine(indent: Int) {
        if !linePrefix.isEmpty { pending.append(contentsOf: linePrefix.utf8) }
        pending.append(contentsOf: Self.spaces[0..<2 * min(indent, Self.maximumIndent)])
        if indent > Self.maximumIndent {
            pending.append(contentsOf: "⋯".utf8)
            appendDecimal(UInt64(indent))
            pending.append(UInt8(ascii: " "))
        }
    }

    private mutating func endLine() {
        pending.append(UInt8(ascii: "\n"))
        if text.utf8.count + pending.count > maximumBytes { isOverLimit = true }
        if pending.count >= Self.pieceSize { flush() }
    }

    static func name(of node: ArchivedObjectGraph.Node) -> String {
        switch node {
        case .object(let object): return DisplayText.quotedIfNeeded(object.className)
        case .classDescription(let description):
            return "class \(DisplayText.quotedIfNeeded(description.className))"
        case .value(let value):
            if case .array = value { return "(array)" }
            if case .dictionary = value { return "(dictionary)" }
            return "(value)"
        case .null: return "$null"
        }
    }

    /// The one-line text of a value that holds no references.
    static func scalarText(_ value: ArchivedObjectGraph.Value) -> String {
        switch value {
        case .null: return "nil"
        case .reference(let uid): return "#\(uid)"
        case .string(let string): return DisplayText.quoted(string)
        case .integer(let integer): return integer.description
        case .real(let real): return RealText.string(real)
        case .bool(let flag): return flag ? "true" : "false"
        case .date(let date): return ISO8601Date.format(date.timeIntervalSinceReferenceDate)
        case .data(let data): return dataText(data)
        case .array, .dictionary: return value.description
        }
    }

    /// `<5 bytes: 01 02 03 04 05>`, with at most the first 16 bytes.
    static func dataText(_ data: Data) -> String {
        let unit = data.count == 1 ? "byte" : "bytes"
        guard !data.isEmpty else { return "<0 bytes>" }
        let shown = data.prefix(16).map(hexByte).joined(separator: " ")
        return "<\(data.count) \(unit): \(shown)\(data.count > 16 ? " …" : "")>"
    }
}
