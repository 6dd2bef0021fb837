#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keyed archive as a graph of generic objects, for inspecting archives whose classes
/// have no Swift type: forensics, debugging, tools.
///
/// ```swift
/// let graph = try KeyedUnarchiver.objectGraph(from: data)
/// if case .reference(let uid)? = graph.root, let object = graph.object(at: uid) {
///     print(object.className)                 // "NSKeyedArchiverTestClass"
///     for field in object.fields { print(field.key, field.value) }
/// }
/// print(graph)                                // one line per object, cycles and sharing marked
/// ```
///
/// ``nodes`` is `$objects` indexed by UID: objects refer to each other with
/// ``Value/reference(_:)``, so an object referenced from several places appears
/// once and a cycle is a reference back to an earlier node, never infinite nesting.
/// Every reference in the graph is checked to be in range, every object to have a valid
/// class description.
///
/// The untyped decoding methods also return an ``ArchivedObjectGraph`` for objects of
/// unknown classes when ``KeyedUnarchivingOptions/decodesUnknownClassesGenerically`` is
/// set; its ``root`` is then a reference to that object.
public struct ArchivedObjectGraph: Hashable, Sendable, CustomStringConvertible {
    /// The archive's `$objects`, indexed by UID; node 0 is ``Node/null``.
    public let nodes: [Node]

    /// The archive's `$top` entries (keys unescaped), such as `root`.
    public let topLevel: [Field]

    /// The value this graph is about: `$top["root"]` for a whole archive (`nil` if the
    /// archive has no `root`), or a reference to the object that was decoded generically.
    public let root: Value?

    /// How many times each node is referenced (by `$top` and by objects' fields).
    let referenceCounts: [Int]

    /// Whether each node lies on a reference cycle.
    let cyclic: [Bool]

    /// Whether each node is rendered once and referred to afterwards (see ``isRenderedOnce(_:)``).
    let renderedOnce: [Bool]

    /// What was wrong with the archive, each with its key path (such as
    /// `$objects[12].items[3]`), when it was read with
    /// ``KeyedUnarchivingOptions/recoversFromDamage``; empty otherwise (a damaged archive
    /// then fails to read).
    public let problems: [KeyedArchiveError]

    package init(
        nodes: [Node], topLevel: [Field], root: Value?, referenceCounts: [Int],
        cyclic: [Bool], problems: [KeyedArchiveError] = []
    ) {
        self.problems = problems
        self.nodes = nodes
        self.topLevel = topLevel
        self.root = root
        self.referenceCounts = referenceCounts
        self.cyclic = cyclic
        self.renderedOnce = nodes.indices.map { uid in
            Self.isRenderedOnce(
                nodes[uid], referenceCount: referenceCounts.indices.contains(uid) ? referenceCounts[uid] : 0)
        }
    }

    private init(_ graph: ArchivedObjectGraph, root: Value?) {
        nodes = graph.nodes
        topLevel = graph.topLevel
        self.root = root
        referenceCounts = graph.referenceCounts
        cyclic = graph.cyclic
        renderedOnce = graph.renderedOnce
        problems = graph.problems
    }

    /// The same graph about another value.
    package func rooted(at value: Value?) -> ArchivedObjectGraph {
        ArchivedObjectGraph(self, root: value)
    }

    /// The longest string or data, in bytes, that renderings repeat at every reference.
    public static let longestRepeatedValue = 64

    /// Whether renderings of the graph (``outline()``, `keyed-archive decode --json`) show
    /// node `uid` in full once, tagged with its index, and refer to it afterwards.
    ///
    /// Objects, class descriptions, and plain arrays and dictionaries are shown once, so
    /// that what is printed grows with the archive, not with the number of references to
    /// its parts; so are strings and data longer than ``longestRepeatedValue`` bytes that
    /// are referenced more than once. Numbers and short strings are shown wherever they
    /// are referenced.
    ///
    /// - Parameter uid: An index into `$objects`.
    /// - Returns: `true` if the node is shown once.
    /// - Complexity: O(1); worked out when the graph is built.
    public func isRenderedOnce(_ uid: Int) -> Bool {
        renderedOnce.indices.contains(uid) && renderedOnce[uid]
    }

    private static func isRenderedOnce(_ node: Node, referenceCount: Int) -> Bool {
        switch node {
        case .object, .classDescription: return true
        case .null: return false
        case .value(let value):
            switch value {
            case .array, .dictionary, .reference: return true
            case .string(let text): return referenceCount > 1 && text.utf8.count > longestRepeatedValue
            case .data(let bytes): return referenceCount > 1 && bytes.count > longestRepeatedValue
            default: return false
            }
        }
    }

    /// The node with index `uid`, or `nil` if out of range.
    ///
    /// - Parameter uid: An index into `$objects`.
    public subscript(uid: Int) -> Node? {
        nodes.indices.contains(uid) ? nodes[uid] : nil
    }

    /// The object with index `uid`, or `nil` if that node is not an object.
    ///
    /// - Parameter uid: An index into `$objects`.
    /// - Returns: The object.
    public func object(at uid: Int) -> Object? {
        guard case .object(let object)? = self[uid] else { return nil }
        return object
    }

    /// The `$top` value for `key`, if present.
    ///
    /// - Parameter key: A top-level key such as `root`.
    /// - Returns: The value.
    public func topLevelValue(forKey key: String) -> Value? {
        topLevel.first { $0.key == key }?.value
    }

    /// How many references point at node `uid`, from `$top` and from objects' fields.
    ///
    /// - Parameter uid: An index into `$objects`.
    /// - Returns: The count; 0 for unreferenced nodes and class descriptions.
    public func referenceCount(of uid: Int) -> Int {
        referenceCounts.indices.contains(uid) ? referenceCounts[uid] : 0
    }

    /// Whether node `uid` is referenced more than once (a shared object).
    ///
    /// - Parameter uid: An index into `$objects`.
    /// - Returns: `true` if shared.
    public func isShared(_ uid: Int) -> Bool {
        referenceCount(of: uid) > 1
    }

    /// Whether node `uid` lies on a reference cycle (including referring to itself).
    ///
    /// - Parameter uid: An index into `$objects`.
    /// - Returns: `true` if the node can reach itself.
    public func isOnCycle(_ uid: Int) -> Bool {
        cyclic.indices.contains(uid) && cyclic[uid]
    }

    /// One line per node reachable from ``root`` (or every node when there is no root),
    /// with class names, fields, and sharing and cycles marked.
    public var description: String {
        var lines: [String] = []
        if let root { lines.append("root = \(root)") }
        for field in topLevel where field.key != "root" {
            lines.append("$top.\(field.key) = \(field.value)")
        }
        for uid in describedNodes() {
            guard let node = self[uid] else { continue }
            var marks = ""
            if isShared(uid) { marks += " (shared ×\(referenceCount(of: uid)))" }
            if isOnCycle(uid) { marks += " (cycle)" }
            lines.append("#\(uid)\(marks) \(node)")
        }
        return lines.joined(separator: "\n")
    }

    /// Nodes reachable from the root (or from `$top`), in UID order; iterative.
    private func describedNodes() -> [Int] {
        var seen = [Bool](repeating: false, count: nodes.count)
        var stack: [Int] = []
        let starts = root.map { [$0] } ?? topLevel.map(\.value)
        for value in starts { value.collectReferences(into: &stack) }
        while let uid = stack.popLast() {
            guard nodes.indices.contains(uid), !seen[uid] else { continue }
            seen[uid] = true
            nodes[uid].collectReferences(into: &stack)
        }
        return seen.indices.filter { seen[$0] }
    }

    /// Whether two graphs have the same nodes, top level and root.
    ///
    /// - Parameters:
    ///   - lhs: A graph.
    ///   - rhs: Another graph.
    /// - Returns: `true` if equal.
    public static func == (lhs: ArchivedObjectGraph, rhs: ArchivedObjectGraph) -> Bool {
        lhs.root == rhs.root && lhs.nodes == rhs.nodes && lhs.topLevel == rhs.topLevel
    }

    /// Hashes the root and the size of the graph (cheap; equality compares the rest).
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(root)
        hasher.combine(nodes.count)
    }
}

extension ArchivedObjectGraph {
    /// One entry of an archive's `$objects`.
    public enum Node: Hashable, Sendable, CustomStringConvertible {
        /// `$objects[0]`, the `$null` marker that UID 0 refers to.
        case null
        /// A plain value stored without a class: a string, number or data (Apple's
        /// immutable `NSString`, `NSNumber`, `NSData`), or another property-list value.
        case value(Value)
        /// An object: a class and its fields.
        case object(Object)
        /// A class description that objects refer to with `$class`.
        case classDescription(ClassDescription)

        /// The indices of the nodes this node refers to, in field order.
        public var references: [Int] {
            var result: [Int] = []
            collectReferences(into: &result)
            return result
        }

        func collectReferences(into result: inout [Int]) {
            switch self {
            case .null, .classDescription: break
            case .value(let value): value.collectReferences(into: &result)
            case .object(let object):
                for field in object.fields { field.value.collectReferences(into: &result) }
            }
        }

        /// Calls `body` with each node index this node refers to, in field order.
        func forEachReference(_ body: (Int) -> Void) {
            switch self {
            case .null, .classDescription: break
            case .value(let value): value.forEachReference(body)
            case .object(let object):
                for field in object.fields { field.value.forEachReference(body) }
            }
        }

        /// A one-line rendering: `NSArray { NS.objects = [#2, #3] }`, `"text"`, …
        public var description: String {
            switch self {
            case .null: return "$null"
            case .value(let value): return value.description
            case .object(let object): return object.description
            case .classDescription(let description):
                return "class \(description.classChain.joined(separator: " < "))"
            }
        }
    }

    /// An archived object whose class has no Swift type: its class and its fields.
    public struct Object: Hashable, Sendable, CustomStringConvertible {
        /// The class name (`$classname`).
        public let className: String
        /// The class and its superclasses, nearest first (`$classes`).
        public let classChain: [String]
        /// Alternative class names the archiver suggested (`$classhints`), usually empty.
        public let classHints: [String]
        /// The fields in archive order, without `$class`, keys unescaped (`$$x` → `$x`;
        /// unkeyed values keep their keys `$0`, `$1`, …).
        public let fields: [Field]

        /// Creates an object.
        ///
        /// - Parameters:
        ///   - className: The class name.
        ///   - classChain: The class and its superclasses.
        ///   - classHints: Alternative class names.
        ///   - fields: The fields.
        public init(className: String, classChain: [String], classHints: [String] = [], fields: [Field]) {
            self.className = className
            self.classChain = classChain
            self.classHints = classHints
            self.fields = fields
        }

        /// The value of the field named `key`, if present.
        ///
        /// - Parameter key: A field name as the object's class encodes it.
        public subscript(key: String) -> Value? {
            fields.first { $0.key == key }?.value
        }

        /// `ClassName { key = value; … }`.
        public var description: String {
            let body = fields.map { "\($0.key) = \($0.value)" }.joined(separator: "; ")
            return body.isEmpty ? className : "\(className) { \(body) }"
        }
    }

    /// A class description: a class name and its superclasses, named as an object's are
    /// (``Object/className``, ``Object/classChain``, ``Object/classHints``).
    public struct ClassDescription: Hashable, Sendable {
        /// The class name (`$classname`).
        public let className: String
        /// The class and its superclasses, nearest first (`$classes`).
        public let classChain: [String]
        /// Alternative class names (`$classhints`).
        public let classHints: [String]

        /// Creates a class description.
        ///
        /// - Parameters:
        ///   - className: The class name.
        ///   - classChain: The class and its superclasses.
        ///   - classHints: Alternative class names.
        public init(className: String, classChain: [String], classHints: [String] = []) {
            self.className = className
            self.classChain = classChain
            self.classHints = classHints
        }

        /// Creates a class description (the earlier spelling).
        ///
        /// - Parameters:
        ///   - name: The class name.
        ///   - classes: The class and its superclasses.
        ///   - hints: Alternative class names.
        @available(*, deprecated, renamed: "init(className:classChain:classHints:)")
        public init(name: String, classes: [String], hints: [String] = []) {
            self.init(className: name, classChain: classes, classHints: hints)
        }

        /// The class name (the earlier spelling of ``className``).
        @available(*, deprecated, renamed: "className")
        public var name: String { className }

        /// The class chain (the earlier spelling of ``classChain``).
        @available(*, deprecated, renamed: "classChain")
        public var classes: [String] { classChain }

        /// The class hints (the earlier spelling of ``classHints``).
        @available(*, deprecated, renamed: "classHints")
        public var hints: [String] { classHints }
    }

    /// A named value of an archived object (or of `$top`).
    public struct Field: Hashable, Sendable {
        /// The key.
        public let key: String
        /// The value.
        public let value: Value

        /// Creates a field.
        ///
        /// - Parameters:
        ///   - key: The key.
        ///   - value: The value.
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// A value inside an archived object: an inline scalar, a reference to another node, or
    /// an inline collection (such as the `NS.objects` list of references).
    public enum Value: Hashable, Sendable, CustomStringConvertible {
        /// A reference to nothing (UID 0).
        case null
        /// A reference to the node with this index in ``ArchivedObjectGraph/nodes``.
        case reference(Int)
        /// A string.
        case string(String)
        /// An integer.
        case integer(PropertyListInteger)
        /// A real number.
        case real(Double)
        /// A Boolean.
        case bool(Bool)
        /// A date.
        case date(Date)
        /// Bytes.
        case data(Data)
        /// An inline array.
        case array([Value])
        /// An inline dictionary without a class.
        case dictionary([Field])

        /// Whether two values are equal; NaN equals NaN so that a value equals itself.
        ///
        /// - Parameters:
        ///   - lhs: A value.
        ///   - rhs: Another value.
        /// - Returns: `true` if equal.
        public static func == (lhs: Value, rhs: Value) -> Bool {
            // Nested arrays and dictionaries with an explicit stack, not recursion.
            var pending = [(lhs, rhs)]
            while let (a, b) = pending.popLast() {
                switch (a, b) {
                case (.array(let x), .array(let y)):
                    guard x.count == y.count else { return false }
                    pending.append(contentsOf: zip(x, y))
                case (.dictionary(let x), .dictionary(let y)):
                    guard x.count == y.count else { return false }
                    for (first, second) in zip(x, y) {
                        guard first.key == second.key else { return false }
                        pending.append((first.value, second.value))
                    }
                default:
                    guard a.scalarEquals(b) else { return false }
                }
            }
            return true
        }

        /// Equality of two values that are not both arrays or both dictionaries.
        private func scalarEquals(_ other: Value) -> Bool {
            switch (self, other) {
            case (.null, .null): return true
            case (.reference(let a), .reference(let b)): return a == b
            case (.string(let a), .string(let b)): return a == b
            case (.integer(let a), .integer(let b)): return a == b
            case (.real(let a), .real(let b)): return a == b || (a.isNaN && b.isNaN)
            case (.bool(let a), .bool(let b)): return a == b
            case (.date(let a), .date(let b)): return PropertyList.date(a) == PropertyList.date(b)
            case (.data(let a), .data(let b)): return a == b
            default: return false
            }
        }

        /// Hashes the value consistently with `==`: an array or dictionary by its count and
        /// its first members shallowly, so that hashing takes constant stack however deep
        /// the value.
        ///
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .array(let values):
                hasher.combine(8)
                hasher.combine(values.count)
                for value in values.prefix(8) { value.hashShallowly(into: &hasher) }
            case .dictionary(let fields):
                hasher.combine(9)
                hasher.combine(fields.count)
                for field in fields.prefix(8) {
                    hasher.combine(field.key)
                    field.value.hashShallowly(into: &hasher)
                }
            default:
                hashShallowly(into: &hasher)
            }
        }

        /// A scalar's full hash, or a collection's kind and count.
        private func hashShallowly(into hasher: inout Hasher) {
            switch self {
            case .null: hasher.combine(0)
            case .reference(let uid):
                hasher.combine(1)
                hasher.combine(uid)
            case .string(let value):
                hasher.combine(2)
                hasher.combine(value)
            case .integer(let value):
                hasher.combine(3)
                hasher.combine(value)
            case .real(let value):
                hasher.combine(4)
                hasher.combine(value.isNaN ? .nan : value)
            case .bool(let value):
                hasher.combine(5)
                hasher.combine(value)
            case .date(let value):
                hasher.combine(6)
                hasher.combine(PropertyList.date(value))
            case .data(let value):
                hasher.combine(7)
                hasher.combine(value)
            case .array(let values):
                hasher.combine(8)
                hasher.combine(values.count)
            case .dictionary(let fields):
                hasher.combine(9)
                hasher.combine(fields.count)
            }
        }

        /// The node index, if this is a reference.
        public var referenceValue: Int? {
            if case .reference(let uid) = self { return uid }
            return nil
        }

        /// Calls `body` with each node index this value refers to, in order.
        func forEachReference(_ body: (Int) -> Void) {
            switch self {
            case .reference(let uid): body(uid)
            case .array(let values): for value in values { value.forEachReference(body) }
            case .dictionary(let fields): for field in fields { field.value.forEachReference(body) }
            default: break
            }
        }

        func collectReferences(into result: inout [Int]) {
            switch self {
            case .reference(let uid): result.append(uid)
            case .array(let values): for value in values { value.collectReferences(into: &result) }
            case .dictionary(let fields): for field in fields { field.value.collectReferences(into: &result) }
            default: break
            }
        }

        /// A compact rendering: `#3` for references, quoted strings, `<4 bytes>` for data.
        ///
        /// Strings are escaped as in ``ArchivedObjectGraph/outline()``, and keys that are empty
        /// or hold spaces or control characters are quoted, so that text from a hostile file
        /// cannot drive a terminal.
        public var description: String {
            let style = NestedDescription(
                entrySeparator: "; ", keyText: { "\(DisplayText.quotedIfNeeded($0)) = " })
            return style.render(self) { value -> NestedDescription.Node<Value> in
                switch value {
                case .array(let values): return .array(values)
                case .dictionary(let fields):
                    return .dictionary(fields.map { (key: $0.key, value: $0.value) })
                default: return .scalar
                }
            } appendScalar: { scalar, text in
                text += scalar.scalarDescription
            }
        }

        private var scalarDescription: String {
            switch self {
            case .null: return "nil"
            case .reference(let uid): return "#\(uid)"
            case .string(let value): return DisplayText.quoted(value)
            case .integer(let value): return value.description
            case .real(let value): return RealText.string(value)
            case .bool(let value): return value ? "true" : "false"
            case .date(let value): return ISO8601Date.format(value.timeIntervalSinceReferenceDate)
            case .data(let value): return "<\(value.count) bytes>"
            case .array, .dictionary: return ""
            }
        }
    }
}

/// One entry of an archive's `$objects` (the earlier name of ``ArchivedObjectGraph/Node``).
@available(*, deprecated, renamed: "ArchivedObjectGraph.Node")
public typealias ArchivedNode = ArchivedObjectGraph.Node

/// An archived object without a Swift type (the earlier name of ``ArchivedObjectGraph/Object``).
@available(*, deprecated, renamed: "ArchivedObjectGraph.Object")
public typealias ArchivedObject = ArchivedObjectGraph.Object

/// A class description (the earlier name of ``ArchivedObjectGraph/ClassDescription``).
@available(*, deprecated, renamed: "ArchivedObjectGraph.ClassDescription")
public typealias ArchivedClass = ArchivedObjectGraph.ClassDescription

/// A named value of an object (the earlier name of ``ArchivedObjectGraph/Field``).
@available(*, deprecated, renamed: "ArchivedObjectGraph.Field")
public typealias ArchivedField = ArchivedObjectGraph.Field

/// A value inside an object (the earlier name of ``ArchivedObjectGraph/Value``).
@available(*, deprecated, renamed: "ArchivedObjectGraph.Value")
public typealias ArchivedValue = ArchivedObjectGraph.Value
