#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One difference between two property lists or archived object graphs: a value added,
/// removed or changed at a key path.
///
/// Key paths go through archive references the way people think of the objects
/// (`root.items.3.title`: an `NSArray`'s elements by index, an `NSDictionary`'s entries by
/// key, an object's fields by name), never through `$objects` indices, so that inserting
/// one object into an archive does not make every later object differ.
///
/// ```swift
/// let old: PropertyList = ["Title": "Potato Bug", "Legs": 14]
/// let new: PropertyList = ["Title": "Pill Bug", "Legs": 14, "Harmless": true]
/// for difference in new.differences(from: old).differences {
///     print(difference)  // + Harmless: true, then ~ Title: "Potato Bug" → "Pill Bug"
/// }
/// ```
public struct ArchiveDifference: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the value at the key path.
    public enum Kind: String, Hashable, Sendable {
        /// The value is only in the newer input.
        case added
        /// The value is only in the older input.
        case removed
        /// The value is in both, with different contents (or a different class).
        case changed
    }

    /// Added, removed or changed.
    public let kind: Kind
    /// The keys from the root to the value: dictionary keys, field names, array indices in
    /// decimal (the newer input's index, or the older one's for a removed element). An
    /// object's class is compared at the component `$class`.
    public let keyPath: [String]
    /// The older value, summarised on one line (`"Moth"`, `14`, `Item {3 fields}`,
    /// `<271 bytes sha256:…>`); `nil` when added.
    public let oldValue: String?
    /// The newer value, summarised as ``oldValue``; `nil` when removed.
    public let newValue: String?

    /// Creates a difference.
    ///
    /// - Parameters:
    ///   - kind: Added, removed or changed.
    ///   - keyPath: The keys from the root.
    ///   - oldValue: The older value's summary, `nil` when added.
    ///   - newValue: The newer value's summary, `nil` when removed.
    public init(kind: Kind, keyPath: [String], oldValue: String?, newValue: String?) {
        self.kind = kind
        self.keyPath = keyPath
        self.oldValue = oldValue
        self.newValue = newValue
    }

    /// The key path as the tool spells it: components joined with `.`, a `.` or `\` inside
    /// a component written `\.` or `\\` (`-extract` and `decode --path` take it back); the
    /// root itself is the empty string.
    public var keyPathText: String {
        keyPath.map { component in
            var text = ""
            for character in component {
                if character == "." || character == "\\" { text.append("\\") }
                text.append(character)
            }
            return text
        }.joined(separator: ".")
    }

    /// One line: `+ KEYPATH: NEW`, `- KEYPATH: OLD` or `~ KEYPATH: OLD → NEW` (the root is
    /// shown as `(root)`).
    public var description: String {
        let path = keyPath.isEmpty ? "(root)" : keyPathText
        switch kind {
        case .added: return "+ \(path): \(newValue ?? "")"
        case .removed: return "- \(path): \(oldValue ?? "")"
        case .changed: return "~ \(path): \(oldValue ?? "") → \(newValue ?? "")"
        }
    }
}

/// The differences between two property lists or archived object graphs, from
/// ``PropertyList/differences(from:options:)`` or
/// ``ArchivedObjectGraph/differences(from:options:)``.
public struct ArchiveComparison: Hashable, Sendable {
    /// The differences, in the order of the key paths walked: keys sorted, array elements
    /// in order.
    public let differences: [ArchiveDifference]
    /// Whether the comparison stopped at ``ArchiveComparisonOptions/maximumValues`` (or at
    /// ``ArchiveComparisonOptions/maximumDepth``) before it had compared everything: the
    /// differences found so far are listed, and there may be more.
    public let isIncomplete: Bool

    /// Whether the two inputs are equal: no difference found, and the comparison finished.
    public var isEqual: Bool { differences.isEmpty && !isIncomplete }
}

/// Limits of a comparison, so that two small hostile inputs (objects shared thousands of
/// times, cycles, deep nesting) cost bounded work.
public struct ArchiveComparisonOptions: Hashable, Sendable {
    /// The most values (and object fields) looked at, across both inputs; past it the
    /// comparison stops and is ``ArchiveComparison/isIncomplete``. A pair of shared objects
    /// is compared once, however many paths reach it; its differences are reported at the
    /// first path that reaches it.
    public var maximumValues: Int
    /// The deepest nesting followed.
    public var maximumDepth: Int
    /// The most characters of a string shown in a summary (the whole string is compared).
    public var maximumSummaryCharacters: Int
    /// How many archives deep the comparison descends into `data` values that hold a binary
    /// or XML property list or keyed archive on both sides (a Terminal profile's `Font`, a web
    /// archive's responses): their differences are reported by key path through the nested
    /// archive (`Font.root.NSSize`), its `$top` keys first. 0 compares such data as bytes.
    public var maximumNestedArchiveLevels: Int

    /// Creates options.
    ///
    /// - Parameters:
    ///   - maximumValues: The most values looked at (default 4,000,000).
    ///   - maximumDepth: The deepest nesting followed (default 512).
    ///   - maximumSummaryCharacters: The most characters of a string shown (default 200).
    ///   - maximumNestedArchiveLevels: How many archives deep inside data values the
    ///     comparison descends (default 4; 0 compares data as bytes).
    public init(
        maximumValues: Int = 4_000_000, maximumDepth: Int = 512, maximumSummaryCharacters: Int = 200,
        maximumNestedArchiveLevels: Int = 4
    ) {
        self.maximumValues = maximumValues
        self.maximumDepth = maximumDepth
        self.maximumSummaryCharacters = maximumSummaryCharacters
        self.maximumNestedArchiveLevels = maximumNestedArchiveLevels
    }
}

extension PropertyList {
    /// The differences from `older` to this property list, by key path.
    ///
    /// Dictionaries are compared key by key; arrays element by element after aligning them
    /// (an element inserted in the middle is one `added` difference, not a change of every
    /// later element); scalars by value and type (`1` and `1.0` differ). A property list
    /// that is a keyed archive is compared as it is stored; read both with
    /// ``KeyedUnarchiver/objectGraph(from:options:)-(Data,_)`` and compare the graphs to compare the
    /// objects.
    ///
    /// - Parameters:
    ///   - older: The value to compare with.
    ///   - options: Limits on the work.
    /// - Returns: The differences.
    public func differences(
        from older: PropertyList, options: ArchiveComparisonOptions = ArchiveComparisonOptions()
    ) -> ArchiveComparison {
        var differ = ArchiveDiffer(
            old: ResolvedArchiveView(graph: nil), new: ResolvedArchiveView(graph: nil), options: options)
        differ.compare(.init(older), .init(self), path: [], depth: 0)
        return differ.result
    }
}

extension ArchivedObjectGraph {
    /// The differences from `older` to this graph, by key paths through the objects.
    ///
    /// The `$top` entries (`root`, …) are compared by key, then what they refer to, through
    /// references: an `NSArray` (`NS.objects`) as an array, an `NSDictionary`
    /// (`NS.keys`/`NS.objects`) as a dictionary keyed by its keys' text, an `NSString`,
    /// `NSDate` or `NSData` as its value, any other object as its fields by name, with its
    /// class compared at `$class`. Arrays are aligned before their elements are compared.
    /// Objects that two graphs share are compared once per pair; a cycle stops where it
    /// meets a pair already being compared. `$objects` indices play no part.
    ///
    /// - Parameters:
    ///   - older: The graph to compare with.
    ///   - options: Limits on the work.
    /// - Returns: The differences.
    public func differences(
        from older: ArchivedObjectGraph, options: ArchiveComparisonOptions = ArchiveComparisonOptions()
    ) -> ArchiveComparison {
        var differ = ArchiveDiffer(
            old: ResolvedArchiveView(graph: older), new: ResolvedArchiveView(graph: self), options: options)
        differ.compare(.dictionary(older.topLevel), .dictionary(topLevel), path: [], depth: 0)
        return differ.result
    }
}

extension ArchivedObjectGraph.Value {
    /// A property list as a graph value: a UID becomes a reference (which, outside a
    /// graph, is shown as `UID(n)`).
    package init(_ value: PropertyList) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let integer): self = .integer(integer)
        case .real(let real): self = .real(real)
        case .bool(let flag): self = .bool(flag)
        case .date(let date): self = .date(date)
        case .data(let data): self = .data(data)
        case .uid(let uid): self = .reference(Int(clamping: uid))
        case .array(let elements): self = .array(elements.map { .init($0) })
        case .dictionary(let dictionary):
            self = .dictionary(
                dictionary.map { ArchivedObjectGraph.Field(key: $0.key, value: .init($0.value)) })
        }
    }
}

/// An archived object graph (or a plain property list, without one) seen as people think of
/// its values: references followed, `NSArray`s as lists, `NSDictionary`s as keyed entries,
/// `NSString`, `NSDate` and `NSData` as their values. Shared by ``ArchiveDiffer`` and the
/// tool's `textconv`.
package struct ResolvedArchiveView {
    /// The graph references point into; `nil` for a plain property list, where a reference
    /// is a UID shown as `UID(n)`.
    package let graph: ArchivedObjectGraph?

    package init(graph: ArchivedObjectGraph?) {
        self.graph = graph
    }

    /// What a value is, one level deep.
    package enum Shape {
        /// A scalar, as its text (strings quoted and escaped).
        case leaf(String)
        /// Data (which may hold another archive).
        case data(Data)
        /// Entries by key, sorted; `className` for an object.
        case keyed(className: String?, entries: [ArchivedObjectGraph.Field])
        /// Elements in order; `className` for an `NSArray` or `NSSet`.
        case list(className: String?, elements: [ArchivedObjectGraph.Value])
    }

    /// The node a reference leads to when that node is an object, an array or a dictionary:
    /// what may be shared or lie on a cycle. O(1), so that a repeated reference is
    /// recognised before its shape is worked out.
    package func containerNode(_ value: ArchivedObjectGraph.Value) -> Int? {
        guard case .reference(let uid) = value, let node = graph?[uid] else { return nil }
        switch node {
        case .object: return uid
        case .value(.array), .value(.dictionary): return uid
        default: return nil
        }
    }

    /// How many references point at node `uid` (0 outside a graph).
    package func referenceCount(_ uid: Int) -> Int {
        graph?.referenceCount(of: uid) ?? 0
    }

    /// The shape of `value`, references followed once.
    package func shape(of value: ArchivedObjectGraph.Value) -> Shape {
        switch value {
        case .null: return .leaf("nil")
        case .string(let text): return .leaf(DisplayText.quoted(text))
        case .integer(let integer): return .leaf(integer.description)
        case .real(let real): return .leaf(Self.realText(real))
        case .bool(let flag): return .leaf(flag ? "true" : "false")
        case .date(let date): return .leaf(Self.dateText(date.timeIntervalSinceReferenceDate))
        case .data(let data): return .data(data)
        case .array(let elements): return .list(className: nil, elements: elements)
        case .dictionary(let fields): return .keyed(className: nil, entries: Self.sorted(fields))
        case .reference(let uid):
            guard let graph else { return .leaf("UID(\(uid))") }
            switch graph[uid] {
            case nil: return .leaf("→ #\(uid) (missing)")
            case .null?: return .leaf("nil")
            case .value(let plain)?: return shape(of: plain)
            case .classDescription(let description)?:
                return .leaf("class \(DisplayText.quotedIfNeeded(description.className))")
            case .object(let object)?: return shape(of: object)
            }
        }
    }

    private func shape(of object: ArchivedObjectGraph.Object) -> Shape {
        let className = object.className
        if case .array(let keys)? = object["NS.keys"], case .array(let objects)? = object["NS.objects"],
            keys.count == objects.count
        {
            let entries = zip(keys, objects).map { key, value in
                ArchivedObjectGraph.Field(key: keyText(key), value: value)
            }
            return .keyed(className: className, entries: Self.sorted(entries))
        }
        if object["NS.keys"] == nil, case .array(let elements)? = object["NS.objects"] {
            return .list(className: className, elements: elements)
        }
        if object.fields.count == 1, let only = object.fields.first {
            switch (only.key, plainValue(only.value)) {
            case ("NS.string", .string(let text)?): return .leaf(DisplayText.quoted(text))
            case ("NS.data", .data(let data)?), ("NS.bytes", .data(let data)?): return .data(data)
            case ("NS.time", .real(let seconds)?): return .leaf(Self.dateText(seconds))
            default: break
            }
        }
        return .keyed(className: className, entries: Self.sorted(object.fields))
    }

    /// A scalar `value`, or the plain value a reference leads to.
    private func plainValue(_ value: ArchivedObjectGraph.Value) -> ArchivedObjectGraph.Value? {
        guard case .reference(let uid) = value else { return value }
        guard case .value(let plain)? = graph?[uid] else { return nil }
        return plain
    }

    /// A dictionary key's text: a string, an `NSString`'s text, or the key shown as a value.
    private func keyText(_ key: ArchivedObjectGraph.Value) -> String {
        if case .string(let text)? = plainValue(key) { return text }
        if case .reference(let uid) = key, let object = graph?.object(at: uid),
            case .string(let text)? = object["NS.string"].flatMap(plainValue)
        {
            return text
        }
        switch shape(of: key) {
        case .leaf(let text): return text
        case .data(let data): return Self.dataText(data)
        case .keyed(let className, _), .list(let className, _): return className ?? "(container)"
        }
    }

    /// Fields sorted by key: by Unicode scalars, except that typedstream positions `$0`,
    /// `$1`, … `$10` keep their numeric order.
    package static func sorted(_ fields: [ArchivedObjectGraph.Field]) -> [ArchivedObjectGraph.Field] {
        fields.enumerated().sorted { left, right in
            if left.element.key == right.element.key { return left.offset < right.offset }
            return keyPrecedes(left.element.key, right.element.key)
        }.map(\.element)
    }

    package static func keyPrecedes(_ left: String, _ right: String) -> Bool {
        if let leftPosition = position(left), let rightPosition = position(right) {
            return leftPosition < rightPosition
        }
        return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars)
    }

    private static func position(_ key: String) -> Int? {
        guard key.hasPrefix("$"), key.utf8.count > 1, key.utf8.count < 10 else { return nil }
        return Int(key.dropFirst())
    }

    /// A real as its shortest exact text (`0.1`, `1.0`, `nan`).
    package static func realText(_ real: Double) -> String {
        real.isNaN ? "nan" : "\(real)"
    }

    /// A date in UTC, to the second, with the seconds since 2001 when it has a fraction.
    package static func dateText(_ seconds: Double) -> String {
        let text = ISO8601Date.format(seconds)
        return seconds.isFinite && seconds.rounded(.down) != seconds ? "\(text) (\(seconds) s)" : text
    }

    /// Data as its length and, up to 16 bytes, the bytes in hex; longer, the first 16 hex
    /// digits of its SHA-256 digest: `<4 bytes 01020304>`, `<271 bytes sha256:3a7bd3e2360a3d29>`.
    package static func dataText(_ data: Data) -> String {
        let count = data.count == 1 ? "1 byte" : "\(data.count) bytes"
        if data.count <= 16 {
            let hex = data.map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
            return data.isEmpty ? "<0 bytes>" : "<\(count) \(hex)>"
        }
        return "<\(count) sha256:\(SHA256.hexDigest(data, characters: 16))>"
    }

    /// A summary of `value` on one line: its text, or a container's class and size.
    package func summary(_ value: ArchivedObjectGraph.Value, maximumCharacters: Int) -> String {
        switch shape(of: value) {
        case .leaf(let text):
            guard text.count > maximumCharacters + 2 else { return text }
            return String(text.prefix(maximumCharacters)) + "…\""
        case .data(let data): return Self.dataText(data)
        case .keyed(let className, let entries):
            let count =
                entries.count == 1
                ? "1 \(className == nil ? "key" : "field")"
                : "\(entries.count) \(className == nil ? "keys" : "fields")"
            return (className.map { DisplayText.quotedIfNeeded($0) + " " } ?? "") + "{\(count)}"
        case .list(let className, let elements):
            let count = elements.count == 1 ? "1 element" : "\(elements.count) elements"
            return (className.map { DisplayText.quotedIfNeeded($0) + " " } ?? "") + "[\(count)]"
        }
    }

    /// A 64-bit FNV-1a hash of `value`'s class and scalar contents one level deep (each
    /// entry's key and, for a scalar, its text): stable from run to run, so that it can
    /// name an object (`textconv`) and align array elements (`diff`).
    package func fingerprint(_ value: ArchivedObjectGraph.Value) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ text: String) {
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
            hash ^= 0xff
            hash &*= 0x0000_0100_0000_01b3
        }
        func addScalar(_ value: ArchivedObjectGraph.Value) {
            if containerNode(value) != nil {
                add("→")
                return
            }
            switch shape(of: value) {
            case .leaf(let text): add(text)
            case .data(let data): add(Self.dataText(data))
            case .keyed(let className, let entries): add("\(className ?? "{}") \(entries.count)")
            case .list(let className, let elements): add("\(className ?? "[]") \(elements.count)")
            }
        }
        switch shape(of: value) {
        case .leaf(let text): add(text)
        case .data(let data): add(Self.dataText(data))
        case .keyed(let className, let entries):
            add(className ?? "{}")
            for entry in entries {
                add(entry.key)
                addScalar(entry.value)
            }
        case .list(let className, let elements):
            add(className ?? "[]")
            for element in elements { addScalar(element) }
        }
        return hash
    }
}

/// The walk behind ``PropertyList/differences(from:options:)`` and
/// ``ArchivedObjectGraph/differences(from:options:)``.
package struct ArchiveDiffer {
    let old: ResolvedArchiveView
    let new: ResolvedArchiveView
    let options: ArchiveComparisonOptions
    private var budget: Int
    private var differences: [ArchiveDifference] = []
    private var incomplete = false
    /// Pairs of shared nodes already compared (or being compared, on a cycle).
    private var comparedPairs: Set<Pair> = []
    /// How many archives deep inside data values this comparison is.
    private var nestingLevel = 0

    private struct Pair: Hashable {
        let old: Int
        let new: Int
    }

    package init(old: ResolvedArchiveView, new: ResolvedArchiveView, options: ArchiveComparisonOptions) {
        self.old = old
        self.new = new
        self.options = options
        self.budget = options.maximumValues
    }

    package var result: ArchiveComparison {
        ArchiveComparison(differences: differences, isIncomplete: incomplete)
    }

    private mutating func spend(_ values: Int) -> Bool {
        budget -= values
        if budget < 0 { incomplete = true }
        return budget >= 0
    }

    private func oldSummary(_ value: ArchivedObjectGraph.Value) -> String {
        old.summary(value, maximumCharacters: options.maximumSummaryCharacters)
    }

    private func newSummary(_ value: ArchivedObjectGraph.Value) -> String {
        new.summary(value, maximumCharacters: options.maximumSummaryCharacters)
    }

    package mutating func compare(
        _ older: ArchivedObjectGraph.Value, _ newer: ArchivedObjectGraph.Value, path: [String], depth: Int
    ) {
        guard !incomplete, spend(1) else { return }
        guard depth < options.maximumDepth else {
            incomplete = true
            return
        }
        if let oldNode = old.containerNode(older), let newNode = new.containerNode(newer) {
            guard comparedPairs.insert(Pair(old: oldNode, new: newNode)).inserted else { return }
        }
        let oldShape = old.shape(of: older)
        let newShape = new.shape(of: newer)
        switch (oldShape, newShape) {
        case (.leaf(let oldText), .leaf(let newText)):
            if oldText != newText { changed(path, older, newer) }
        case (.data(let oldData), .data(let newData)):
            guard spend(oldData.count / 4096) else { return }
            if oldData != newData && !compareNested(oldData, newData, path: path, depth: depth) {
                changed(path, older, newer)
            }
        case (.keyed(let oldClass, let oldEntries), .keyed(let newClass, let newEntries)):
            guard spend(oldEntries.count + newEntries.count) else { return }
            if oldClass != newClass {
                differences.append(
                    ArchiveDifference(
                        kind: .changed, keyPath: path + ["$class"], oldValue: oldClass ?? "(none)",
                        newValue: newClass ?? "(none)"))
            }
            compareEntries(oldEntries, newEntries, path: path, depth: depth)
        case (.list(let oldClass, let oldElements), .list(let newClass, let newElements)):
            guard spend(oldElements.count + newElements.count) else { return }
            if oldClass != newClass {
                differences.append(
                    ArchiveDifference(
                        kind: .changed, keyPath: path + ["$class"], oldValue: oldClass ?? "(none)",
                        newValue: newClass ?? "(none)"))
            }
            compareElements(oldElements, newElements, path: path, depth: depth)
        default:
            changed(path, older, newer)
        }
    }

    /// What a data value holds when it is a property list (a keyed archive read as its
    /// object graph), or `nil`.
    private static func nestedContent(_ data: Data) -> (
        view: ResolvedArchiveView, root: ArchivedObjectGraph.Value
    )? {
        let format = PropertyListFormat.detect(data.prefix(64))
        guard format == .binary || format == .xml, let value = try? PropertyList(from: data) else {
            return nil
        }
        if case .dictionary(let dictionary) = value, dictionary["$objects"] != nil, dictionary["$top"] != nil,
            let graph = try? KeyedUnarchiver.objectGraph(from: value)
        {
            return (ResolvedArchiveView(graph: graph), .dictionary(graph.topLevel))
        }
        return (ResolvedArchiveView(graph: nil), .init(value))
    }

    /// Compares two data values that both hold property lists (or keyed archives) by key
    /// path inside them, within what is left of the budget; `false` when they do not both
    /// hold one (or the levels are spent), so that the caller compares the bytes.
    private mutating func compareNested(_ oldData: Data, _ newData: Data, path: [String], depth: Int) -> Bool
    {
        guard nestingLevel < options.maximumNestedArchiveLevels,
            spend((oldData.count + newData.count) / 64),
            let oldContent = Self.nestedContent(oldData), let newContent = Self.nestedContent(newData),
            (oldContent.view.graph == nil) == (newContent.view.graph == nil)
        else { return false }
        var nested = ArchiveDiffer(old: oldContent.view, new: newContent.view, options: options)
        nested.budget = budget
        nested.nestingLevel = nestingLevel + 1
        nested.compare(oldContent.root, newContent.root, path: path, depth: depth + 1)
        differences.append(contentsOf: nested.differences)
        budget = nested.budget
        if nested.incomplete { incomplete = true }
        return true
    }

    private mutating func changed(
        _ path: [String], _ older: ArchivedObjectGraph.Value, _ newer: ArchivedObjectGraph.Value
    ) {
        differences.append(
            ArchiveDifference(
                kind: .changed, keyPath: path, oldValue: oldSummary(older), newValue: newSummary(newer)))
    }

    /// Both sorted by ``ResolvedArchiveView/keyPrecedes(_:_:)``: merged.
    private mutating func compareEntries(
        _ oldEntries: [ArchivedObjectGraph.Field], _ newEntries: [ArchivedObjectGraph.Field], path: [String],
        depth: Int
    ) {
        var oldIndex = 0
        var newIndex = 0
        while oldIndex < oldEntries.count || newIndex < newEntries.count {
            guard !incomplete else { return }
            let oldEntry = oldIndex < oldEntries.count ? oldEntries[oldIndex] : nil
            let newEntry = newIndex < newEntries.count ? newEntries[newIndex] : nil
            if let oldEntry, let newEntry, oldEntry.key == newEntry.key {
                compare(oldEntry.value, newEntry.value, path: path + [newEntry.key], depth: depth + 1)
                oldIndex += 1
                newIndex += 1
            } else if let oldEntry,
                newEntry.map({ ResolvedArchiveView.keyPrecedes(oldEntry.key, $0.key) }) ?? true
            {
                differences.append(
                    ArchiveDifference(
                        kind: .removed, keyPath: path + [oldEntry.key], oldValue: oldSummary(oldEntry.value),
                        newValue: nil))
                oldIndex += 1
            } else if let newEntry {
                differences.append(
                    ArchiveDifference(
                        kind: .added, keyPath: path + [newEntry.key], oldValue: nil,
                        newValue: newSummary(newEntry.value)))
                newIndex += 1
            }
        }
    }

    /// The most cells of the alignment table; past it, elements are paired by position.
    private static let largestAlignment = 1 << 22

    /// Aligns the arrays (common prefix and suffix, then a longest common subsequence of
    /// element fingerprints), then compares matched elements, pairs up the unmatched ones
    /// in each gap as changes, and reports the rest as added or removed.
    private mutating func compareElements(
        _ oldElements: [ArchivedObjectGraph.Value], _ newElements: [ArchivedObjectGraph.Value],
        path: [String],
        depth: Int
    ) {
        let oldPrints = oldElements.map { old.fingerprint($0) }
        let newPrints = newElements.map { new.fingerprint($0) }
        var pairs: [(Int?, Int?)] = []
        var start = 0
        while start < oldPrints.count, start < newPrints.count, oldPrints[start] == newPrints[start] {
            pairs.append((start, start))
            start += 1
        }
        var oldEnd = oldPrints.count
        var newEnd = newPrints.count
        var suffix: [(Int?, Int?)] = []
        while oldEnd > start, newEnd > start, oldPrints[oldEnd - 1] == newPrints[newEnd - 1] {
            oldEnd -= 1
            newEnd -= 1
            suffix.append((oldEnd, newEnd))
        }
        let rows = oldEnd - start
        let columns = newEnd - start
        let (cells, overflow) = (rows + 1).multipliedReportingOverflow(by: columns + 1)
        var matches: [(Int, Int)] = []
        if rows > 0, columns > 0, !overflow, cells <= Self.largestAlignment, spend(cells / 64) {
            // lengths[i][j]: the longest common subsequence of old[i...] and new[j...].
            var lengths = [Int32](repeating: 0, count: cells)
            let width = columns + 1
            for row in stride(from: rows - 1, through: 0, by: -1) {
                for column in stride(from: columns - 1, through: 0, by: -1) {
                    lengths[row * width + column] =
                        oldPrints[start + row] == newPrints[start + column]
                        ? lengths[(row + 1) * width + column + 1] + 1
                        : max(lengths[(row + 1) * width + column], lengths[row * width + column + 1])
                }
            }
            var row = 0
            var column = 0
            while row < rows, column < columns {
                if oldPrints[start + row] == newPrints[start + column] {
                    matches.append((start + row, start + column))
                    row += 1
                    column += 1
                } else if lengths[(row + 1) * width + column] >= lengths[row * width + column + 1] {
                    row += 1
                } else {
                    column += 1
                }
            }
        }
        // Gaps between matches: paired by position as changes, the rest added or removed.
        var oldNext = start
        var newNext = start
        for (oldMatch, newMatch) in matches + [(oldEnd, newEnd)] {
            while oldNext < oldMatch || newNext < newMatch {
                if oldNext < oldMatch && newNext < newMatch {
                    pairs.append((oldNext, newNext))
                    oldNext += 1
                    newNext += 1
                } else if oldNext < oldMatch {
                    pairs.append((oldNext, nil))
                    oldNext += 1
                } else {
                    pairs.append((nil, newNext))
                    newNext += 1
                }
            }
            if oldMatch < oldEnd {
                pairs.append((oldMatch, newMatch))
                oldNext = oldMatch + 1
                newNext = newMatch + 1
            }
        }
        pairs.append(contentsOf: suffix.reversed())
        for pair in pairs {
            guard !incomplete else { return }
            switch pair {
            case (let oldIndex?, let newIndex?):
                compare(
                    oldElements[oldIndex], newElements[newIndex], path: path + ["\(newIndex)"],
                    depth: depth + 1)
            case (let oldIndex?, nil):
                differences.append(
                    ArchiveDifference(
                        kind: .removed, keyPath: path + ["\(oldIndex)"],
                        oldValue: oldSummary(oldElements[oldIndex]),
                        newValue: nil))
            case (nil, let newIndex?):
                differences.append(
                    ArchiveDifference(
                        kind: .added, keyPath: path + ["\(newIndex)"], oldValue: nil,
                        newValue: newSummary(newElements[newIndex])))
            case (nil, nil):
                break
            }
        }
    }
}
