import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON form of `decode --json`: the object graph as nested JSON objects.
///
/// ```json
/// {"root": {"$class": "NSArray", "$uid": 1, "NS.objects": ["a", {"$ref": 1}]}}
/// ```
///
/// - An object, the first time it is reached, is `{"$class": name, "$uid": n, field: value, …}`;
///   later references to it (sharing) and references back to an enclosing object (cycles)
///   are `{"$ref": n}`.
/// - Numbers and short strings and data stored as plain values appear inline wherever
///   referenced; plain arrays and dictionaries, and long strings and data referenced more
///   than once, are `{"$uid": n, "$value": …}` the first time and `{"$ref": n}` after
///   (`ArchivedObjectGraph.isRenderedOnce(_:)`), so the output grows with the archive.
/// - A field key that starts with `$` gets one more `$` (as in the archive), so that it
///   cannot be mistaken for `$class`, `$uid` or `$ref`.
/// - Data, dates and non-finite reals are one-key objects, as in `-convert json`:
///   `{"data": "<base64>"}`, `{"date": "2024-05-01T09:30:00Z"}`, `{"real": "nan"}`.
/// - The top-level object holds `root` and the archive's other `$top` keys.
/// - With `summarizing` (not `--raw`), a dictionary object (`NS.keys`/`NS.objects`) whose
///   keys are all distinct strings is `{"$class": name, "$uid": n, key: value, …}`, its
///   entries in the archive's order (keys escaped as fields are).
enum ArchiveGraphJSON {
    /// The deepest nesting of JSON containers written; deeper graphs fail with a message.
    static let maximumDepth = 512

    /// Renders `graph`, indented by two spaces, with a final newline.
    ///
    /// With `rootLabel` (`decode --path`), the top-level object holds only the graph's root,
    /// under that label.
    ///
    /// With `expansion` (`decode --expand`), a data value holding an archive is written as
    /// `{"$expanded": "keyed archive", "$value": …}` in its place. The graph's
    /// ``ArchivedObjectGraph/problems`` (`decode --recover`) are listed under `$problems`.
    ///
    /// With `summarizing`, an object of a class the catalogue knows is
    /// `{"$class": name, "$uid": n, "$summary": text, part: value, …}` (its
    /// `ArchivedObjectGraph.Summary`) instead of its fields.
    ///
    /// With `compact` (`decode --jsonl`), the same JSON on one line, without the final
    /// newline: the indented text without its newlines and the indentation after each
    /// (JSON strings hold no raw newline, so every newline is layout).
    ///
    /// - Throws: ``KeyedArchiveError`` with code `limitExceeded` when objects are nested
    ///   more than ``maximumDepth`` deep; ``PropertyListPrinter/OutputLimitExceeded`` as
    ///   soon as the text passes `limit` bytes (expanded archives included).
    static func render(
        _ graph: ArchivedObjectGraph, rootLabel: String? = nil, expansion: Expansion? = nil,
        summarizing: Bool = false, compact: Bool = false, limit: Int = .max
    ) throws -> String {
        var text = try text(
            graph, rootLabel: rootLabel, expansion: expansion, summarizing: summarizing, compact: compact,
            depth: 0, limit: limit)
        if !compact { text += "\n" }
        return text
    }

    /// What `--expand` needs while rendering: whether to recover, how deep it is, and the
    /// budget shared by the whole file (which also keeps what was read and rendered).
    struct Expansion {
        var recovering: Bool
        var level: Int
        let budget: NestedArchive.Budget
        /// Whether nested archives show known classes summarized (not `--raw`).
        var summarizing = true
    }

    /// `{"$expanded": kind, "$value": …}` for `data` when it holds an archive or a property
    /// list (as a data value of a graph is written with `expansion`), indented for `depth`
    /// unless `compact`; nil for other data. For data outside a graph: the attribute values
    /// of an iMessage body.
    ///
    /// - Throws: As ``render(_:rootLabel:expansion:summarizing:compact:limit:)``.
    static func expanded(
        _ data: Data, expansion: Expansion, summarizing: Bool, compact: Bool, depth: Int, limit: Int
    ) throws -> String? {
        guard expansion.level < NestedArchive.maximumLevels,
            NestedArchive.recognize(data, recovering: expansion.recovering, budget: expansion.budget) != nil
        else { return nil }
        let empty = ArchivedObjectGraph(
            nodes: [.null], topLevel: [], root: nil, referenceCounts: [0], cyclic: [false])
        var writer = Writer(graph: empty)
        writer.expansion = expansion
        writer.summarizes = summarizing
        writer.compact = compact
        writer.limit = limit
        try writer.write(.data(data), depth: depth)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func text(
        _ graph: ArchivedObjectGraph, rootLabel: String?, expansion: Expansion?, summarizing: Bool,
        compact: Bool, depth: Int, limit: Int
    ) throws -> String {
        var writer = Writer(graph: graph)
        writer.expansion = expansion
        writer.summarizes = summarizing
        writer.compact = compact
        writer.limit = limit
        var members = graph.topLevel.map { (escaped($0.key), Member.value($0.value)) }
        if let rootLabel, let root = graph.root { members = [(escaped(rootLabel), .value(root))] }
        if !graph.problems.isEmpty {
            members.append(("$problems", .value(.array(graph.problems.map { .string($0.description) }))))
        }
        try writer.writeObject(members, depth: depth)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func escaped(_ key: String) -> String {
        key.hasPrefix("$") ? "$" + key : key
    }

    private enum Member {
        case value(ArchivedObjectGraph.Value)
        case literal(String)
        /// A string, written quoted.
        case quoted(String)
    }

    private struct Writer {
        let graph: ArchivedObjectGraph
        var summarizes = false
        /// Whether the JSON goes on one line (no newlines, no indentation).
        var compact = false
        /// The longest text allowed.
        var limit = Int.max
        var shown: [Bool]
        /// The UTF-8 text written so far (bytes, not a `String`: appending small pieces to a
        /// byte array costs a fraction of appending them to a string).
        var bytes: [UInt8] = []
        var expansion: Expansion?

        init(graph: ArchivedObjectGraph) {
            self.graph = graph
            shown = [Bool](repeating: false, count: graph.nodes.count)
            bytes.reserveCapacity(256)
        }

        /// Appends literal text.
        private mutating func emit(_ literal: StaticString) {
            bytes.append(
                contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }

        /// Appends text.
        private mutating func emit(_ text: String) {
            var text = text
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }

        /// Appends `text` as a JSON string, as ``Tool/jsonString(_:)`` writes it.
        private mutating func emitQuoted(_ text: String) {
            var text = text
            let plain = text.withUTF8 { utf8 in
                guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
                bytes.append(0x22)
                bytes.append(contentsOf: utf8)
                bytes.append(0x22)
                return true
            }
            if !plain { emit(Tool.jsonString(text)) }
        }

        /// Appends a member's key, `escaped(key)` quoted, after a comma unless it is the
        /// object's first member, on a new line for `depth` (as ``writeObject(_:depth:)``
        /// writes each member's key), and the `: ` before its value.
        private mutating func emitMemberKey(_ key: String, index: Int, depth: Int) {
            if index > 0 { emit(",") }
            newline(depth)
            var key = key
            let plain = key.withUTF8 { utf8 in
                guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
                bytes.append(0x22)
                // A key that starts with `$` gets one more (``escaped(_:)``).
                if utf8.first == 0x24 { bytes.append(0x24) }
                bytes.append(contentsOf: utf8)
                bytes.append(0x22)
                return true
            }
            if !plain { emit(Tool.jsonString(escaped(key))) }
            emit(": ")
        }

        /// Appends a member's key given as literal text (quoted, escaped and followed by
        /// `: ` as ``emitMemberKey(_:index:depth:)`` writes it).
        private mutating func emitMemberKey(literal: StaticString, index: Int, depth: Int) {
            if index > 0 { emit(",") }
            newline(depth)
            emit(literal)
        }

        /// Appends a scalar as ``scalar(_:)`` writes it.
        private mutating func emitScalar(_ value: ArchivedObjectGraph.Value) throws {
            switch value {
            case .string(let string): emitQuoted(string)
            case .integer(let integer): emit(integer.description)
            case .bool(let flag): flag ? emit("true") : emit("false")
            case .real(let real) where real.isFinite:
                // As the JSON writer spells a finite real, without its setup.
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RealText.maximumLength) { buffer in
                    guard let start = buffer.baseAddress else { return }
                    let length = RealText.write(real, keepsPointZero: true, to: start)
                    bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: length))
                }
            default: emit(try Self.scalar(value))
            }
        }

        /// Appends a decimal integer.
        private mutating func emit(_ number: Int) {
            emit(String(number))
        }

        mutating func write(_ value: ArchivedObjectGraph.Value, depth: Int) throws {
            // Plain values that share storage can describe far more text than the graph holds.
            guard bytes.count <= limit else {
                throw PropertyListPrinter.OutputLimitExceeded(limit: limit)
            }
            switch value {
            case .null:
                emit("null")
            case .array(let elements):
                try checkDepth(depth)
                guard !elements.isEmpty else {
                    emit("[]")
                    return
                }
                emit("[")
                for (index, element) in elements.enumerated() {
                    if index > 0 { emit(",") }
                    newline(depth + 1)
                    try write(element, depth: depth + 1)
                }
                newline(depth)
                emit("]")
            case .dictionary(let fields):
                // As ``writeObject(_:depth:)`` writes the fields, without a list of them.
                try checkDepth(depth)
                guard !fields.isEmpty else {
                    emit("{}")
                    return
                }
                emit("{")
                for (index, field) in fields.enumerated() {
                    emitMemberKey(field.key, index: index, depth: depth + 1)
                    try write(field.value, depth: depth + 1)
                }
                newline(depth)
                emit("}")
            case .reference(let uid):
                try writeReference(uid, depth: depth)
            case .data(let data):
                if let expansion, expansion.level < NestedArchive.maximumLevels,
                    let content = NestedArchive.recognize(
                        data, recovering: expansion.recovering, budget: expansion.budget)
                {
                    try writeExpanded(content, of: data, depth: depth, expansion: expansion)
                } else {
                    try emitScalar(value)
                }
            default:
                try emitScalar(value)
            }
        }

        /// A nested archive in place of the data that holds it.
        private mutating func writeExpanded(
            _ content: NestedArchive.Content, of data: Data, depth: Int, expansion: Expansion
        )
            throws
        {
            try checkDepth(depth + 1)
            let kind = try Self.scalar(.string(content.kindName))
            emit("{")
            newline(depth + 1)
            emit("\"$expanded\": ")
            emit(kind)
            emit(",")
            newline(depth + 1)
            emit("\"$value\": ")
            // Identical data (one archive stored in many places) is rendered once.
            let key = NestedArchive.RenderingKey(
                data: data, level: expansion.level, depth: compact ? -1 : depth, json: true)
            if let known = expansion.budget.renderings[key] {
                emit(known)
            } else {
                let rendered: String
                switch content {
                case .keyedArchive(let nested), .typedstream(let nested):
                    var deeper = expansion
                    deeper.level += 1
                    rendered = try ArchiveGraphJSON.text(
                        nested, rootLabel: nil, expansion: deeper, summarizing: summarizes, compact: compact,
                        depth: depth + 1, limit: limit - bytes.count)
                case .propertyList(let value):
                    let remaining = max(0, limit - bytes.count)
                    do {
                        rendered = String(
                            decoding: try value.jsonData(
                                options: PropertyListJSONOptions(
                                    prettyPrinted: false, maximumOutputBytes: remaining)),
                            as: UTF8.self)
                    } catch let error as KeyedArchiveError where error.code == .limitExceeded {
                        throw PropertyListPrinter.OutputLimitExceeded(limit: limit)
                    }
                }
                expansion.budget.renderings[key] = rendered
                emit(rendered)
            }
            newline(depth)
            emit("}")
        }

        mutating func writeObject(_ members: [(String, Member)], depth: Int) throws {
            try checkDepth(depth)
            guard !members.isEmpty else {
                emit("{}")
                return
            }
            emit("{")
            for (index, (key, member)) in members.enumerated() {
                if index > 0 { emit(",") }
                newline(depth + 1)
                emitQuoted(key)
                emit(": ")
                switch member {
                case .value(let value): try write(value, depth: depth + 1)
                case .literal(let literal): emit(literal)
                case .quoted(let text): emitQuoted(text)
                }
            }
            newline(depth)
            emit("}")
        }

        private mutating func writeReference(_ uid: Int, depth: Int) throws {
            guard let node = graph[uid] else {
                emit("{\"$ref\": ")
                emit(uid)
                emit("}")
                return
            }
            switch node {
            case .null:
                emit("null")
            case .value(let plain):
                guard graph.isRenderedOnce(uid) else {
                    try write(plain, depth: depth)
                    return
                }
                if shown[uid] {
                    emit("{\"$ref\": ")
                    emit(uid)
                    emit("}")
                    return
                }
                shown[uid] = true
                try writeObject([("$uid", .literal(String(uid))), ("$value", .value(plain))], depth: depth)
            case .classDescription(let description):
                try writeObject(
                    [
                        ("$classDescription", .quoted(description.className)),
                        ("$uid", .literal(String(uid))),
                    ],
                    depth: depth)
            case .object(let object):
                if shown[uid] {
                    emit("{\"$ref\": ")
                    emit(uid)
                    emit("}")
                    return
                }
                shown[uid] = true
                try writeObject(object, uid: uid, depth: depth)
            }
        }

        /// An object the first time it is reached: its members written one by one, as
        /// ``writeObject(_:depth:)`` writes a list of them (no list is built).
        private mutating func writeObject(_ object: ArchivedObjectGraph.Object, uid: Int, depth: Int) throws {
            try checkDepth(depth)
            emit("{")
            emitMemberKey(literal: "\"$class\": ", index: 0, depth: depth + 1)
            emitQuoted(object.className)
            emitMemberKey(literal: "\"$uid\": ", index: 1, depth: depth + 1)
            emit(uid)
            var index = 2
            defer {
                newline(depth)
                emit("}")
            }
            // An NSDate as its summary gives it, without decoding it through an archive
            // of its own (a sweep meets one in most archives).
            if summarizes, object.className == "NSDate", object.fields.count == 1,
                case .real(let seconds)? = object["NS.time"], seconds.isFinite
            {
                let date = try Self.scalar(.string(ISO8601Date.format(seconds)))
                emitMemberKey(literal: "\"$summary\": ", index: 2, depth: depth + 1)
                emit(date)
                emitMemberKey(literal: "\"date\": ", index: 3, depth: depth + 1)
                emit(date)
                emitMemberKey(literal: "\"seconds\": ", index: 4, depth: depth + 1)
                try write(.real(seconds), depth: depth + 1)
                return
            }
            if summarizes, let summary = graph.summary(ofObjectAt: uid) {
                emitMemberKey(literal: "\"$summary\": ", index: 2, depth: depth + 1)
                emitQuoted(summary.text)
                if let parts = summary.value.dictionaryValue {
                    for (key, value) in parts {
                        emitMemberKey(key, index: index, depth: depth + 1)
                        try write(Self.value(value), depth: depth + 1)
                        index += 1
                    }
                }
                return
            }
            // A dictionary whose keys are all strings: its entries as the object's members.
            if summarizes, let entries = stringKeyedEntries(object) {
                for (key, value) in entries {
                    emitMemberKey(key, index: index, depth: depth + 1)
                    try write(value, depth: depth + 1)
                    index += 1
                }
                return
            }
            for field in object.fields {
                emitMemberKey(field.key, index: index, depth: depth + 1)
                try write(field.value, depth: depth + 1)
                index += 1
            }
        }

        /// The entries of a dictionary object (only `NS.keys` and `NS.objects`, of equal
        /// length) whose keys are all distinct strings — plain strings, or `NSString`
        /// objects holding only `NS.string` — in the archive's order; `nil` for any other
        /// object, which keeps its fields.
        private func stringKeyedEntries(_ object: ArchivedObjectGraph.Object) -> [(
            String, ArchivedObjectGraph.Value
        )]? {
            guard object.fields.count == 2, case .array(let keys)? = object["NS.keys"],
                case .array(let values)? = object["NS.objects"], keys.count == values.count
            else { return nil }
            var entries: [(String, ArchivedObjectGraph.Value)] = []
            entries.reserveCapacity(keys.count)
            // A few keys are compared with those before them (no set to hash into); more
            // go through a set. Either way by `==`.
            if keys.count <= 16 {
                for (key, value) in zip(keys, values) {
                    guard let text = stringKey(key) else { return nil }
                    for earlier in entries where earlier.0 == text { return nil }
                    entries.append((text, value))
                }
                return entries
            }
            var seen = Set<String>(minimumCapacity: keys.count)
            for (key, value) in zip(keys, values) {
                guard let text = stringKey(key), seen.insert(text).inserted else { return nil }
                entries.append((text, value))
            }
            return entries
        }

        /// A dictionary key as a string, when it is one.
        private func stringKey(_ key: ArchivedObjectGraph.Value) -> String? {
            switch key {
            case .string(let text): return text
            case .reference(let uid):
                switch graph[uid] {
                case .value(.string(let text))?: return text
                case .object(let object)?:
                    guard object.fields.count == 1, case .string(let text)? = object["NS.string"] else {
                        return nil
                    }
                    return text
                default: return nil
                }
            default: return nil
            }
        }

        private func checkDepth(_ depth: Int) throws {
            guard depth < ArchiveGraphJSON.maximumDepth else {
                throw KeyedArchiveError(
                    .limitExceeded,
                    "objects are nested more than \(ArchiveGraphJSON.maximumDepth) deep for JSON; "
                        + "decode without --json shows them")
            }
        }

        /// A new line indented for `depth`; nothing when compact.
        private mutating func newline(_ depth: Int) {
            guard !compact else { return }
            bytes.append(0x0A)
            // Copied from a buffer of spaces (contiguous: one copy per line, in debug builds
            // too, where appending a `repeatElement` goes element by element).
            var remaining = 2 * depth
            while remaining > 0 {
                let count = min(remaining, Self.spaces.count)
                bytes.append(contentsOf: Self.spaces[0..<count])
                remaining -= count
            }
        }

        private static let spaces = [UInt8](repeating: 0x20, count: 128)

        /// A summary's property list as a graph value (it holds no references).
        static func value(_ plist: PropertyList) -> ArchivedObjectGraph.Value {
            switch plist {
            case .string(let string): return .string(string)
            case .integer(let integer): return .integer(integer)
            case .real(let real): return .real(real)
            case .bool(let flag): return .bool(flag)
            case .date(let date): return .date(date)
            case .data(let data): return .data(data)
            case .uid(let uid): return .reference(Int(truncatingIfNeeded: uid))
            case .array(let elements): return .array(elements.map(value))
            case .dictionary(let entries):
                return .dictionary(
                    entries.map { ArchivedObjectGraph.Field(key: $0.key, value: value($0.value)) })
            }
        }

        /// A scalar as the library's JSON rendering writes it (`{"data": …}` for data, …).
        static func scalar(_ value: ArchivedObjectGraph.Value) throws -> String {
            let plist: PropertyList
            switch value {
            case .string(let string): return Tool.jsonString(string)
            // Integers and Booleans as the JSON writer spells them, without its setup.
            case .integer(let integer): return integer.description
            case .real(let real): plist = .real(real)
            case .bool(let flag): return flag ? "true" : "false"
            case .date(let date): plist = .date(date)
            case .data(let data): plist = .data(data)
            case .null, .reference, .array, .dictionary: return "null"
            }
            return String(decoding: try plist.jsonData(), as: UTF8.self)
        }
    }
}
