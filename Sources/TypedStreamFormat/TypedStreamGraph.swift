#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A typedstream (what `NSArchiver` and NeXTSTEP's `NXTypedStream` write) as a graph of
/// generic values, for inspecting streams whose classes have no Swift type: forensics,
/// debugging, tools.
///
/// ```swift
/// let graph = try TypedStreamUnarchiver.objectGraph(from: data)
/// if case .object(let index)? = graph.root, let object = graph.object(at: index) {
///     print(graph.classChain(of: object).map(\.name))   // ["NSMutableAttributedString", …]
///     for group in object.groups { print(group.encoding, group.values) }
/// }
/// ```
///
/// ``nodes`` is the stream's shared object table, indexed by reference number: objects,
/// classes and C strings in the order the stream introduces them. Values refer to
/// objects and classes by index (``Value/object(_:)``, ``Value/class(_:)``), so an object
/// referenced from several places appears once and a cycle is a reference back to an
/// earlier node.
public struct TypedStreamGraph: Hashable, Sendable, CustomStringConvertible {
    /// The byte order the stream's multi-byte numbers are written in.
    public enum ByteOrder: String, Hashable, Sendable {
        /// Signature `streamtyped` (Intel and Apple silicon Macs, iOS).
        case littleEndian
        /// Signature `typedstream` (NeXT hardware other than Intel, PowerPC Macs).
        case bigEndian
    }

    /// The byte order of the stream.
    public let byteOrder: ByteOrder
    /// The streamer version in the header: 4 for every stream Apple writes, 3 for old
    /// NeXTSTEP streams.
    public let streamerVersion: Int
    /// The system version in the header: 1000 for Mac OS X and later, 82–930 for NeXTSTEP.
    public let systemVersion: Int
    /// The shared object table: objects, classes and C strings by reference number.
    public let nodes: [Node]
    /// The top-level groups of typed values, in stream order; usually one holding the root
    /// object.
    public let contents: [Group]
    /// Bytes after the last top-level group that do not form another group; kept rather
    /// than rejected (some writers append data after the root).
    public let trailingData: Data
    /// The value this graph is about: the first top-level value, or the object that was
    /// decoded generically.
    public let root: Value?

    /// Creates a graph, such as one built by hand for ``TypedStreamArchiver/archivedData(of:)``
    /// to write: objects, classes and C strings refer to one another by their index in
    /// `nodes` (the archiver numbers them again in the order it writes them).
    ///
    /// - Parameters:
    ///   - byteOrder: The byte order to write numbers in.
    ///   - streamerVersion: The streamer version (4).
    ///   - systemVersion: The system version (1000 for Mac OS X and later).
    ///   - nodes: The objects, classes and C strings.
    ///   - contents: The top-level groups.
    ///   - trailingData: Bytes after the last group.
    ///   - root: The value the graph is about; default the first top-level value.
    public init(
        byteOrder: ByteOrder = .littleEndian, streamerVersion: Int = 4, systemVersion: Int = 1000,
        nodes: [Node],
        contents: [Group], trailingData: Data = Data(), root: Value?? = nil
    ) {
        self.init(
            byteOrder: byteOrder, streamerVersion: streamerVersion, systemVersion: systemVersion,
            nodes: nodes,
            contents: contents, trailingData: trailingData,
            storedRoot: root ?? contents.first?.values.first)
    }

    init(
        byteOrder: ByteOrder, streamerVersion: Int, systemVersion: Int, nodes: [Node], contents: [Group],
        trailingData: Data, storedRoot root: Value?
    ) {
        self.byteOrder = byteOrder
        self.streamerVersion = streamerVersion
        self.systemVersion = systemVersion
        self.nodes = nodes
        self.contents = contents
        self.trailingData = trailingData
        self.root = root
    }

    /// The same graph about another value.
    func rooted(at value: Value?) -> TypedStreamGraph {
        TypedStreamGraph(
            byteOrder: byteOrder, streamerVersion: streamerVersion, systemVersion: systemVersion,
            nodes: nodes,
            contents: contents, trailingData: trailingData, storedRoot: value)
    }

    /// The node with reference number `index`, or `nil` if out of range.
    ///
    /// - Parameter index: A reference number.
    public subscript(index: Int) -> Node? {
        nodes.indices.contains(index) ? nodes[index] : nil
    }

    /// The object with reference number `index`, or `nil` if that node is not an object.
    ///
    /// - Parameter index: A reference number.
    /// - Returns: The object.
    public func object(at index: Int) -> Object? {
        guard case .object(let object)? = self[index] else { return nil }
        return object
    }

    /// The class with reference number `index`, or `nil` if that node is not a class.
    ///
    /// - Parameter index: A reference number.
    /// - Returns: The class.
    public func `class`(at index: Int) -> Class? {
        guard case .class(let found)? = self[index] else { return nil }
        return found
    }

    /// A class and its superclasses, nearest first, each with its version.
    ///
    /// - Parameter classIndex: The reference number of a class.
    /// - Returns: The chain; empty if `classIndex` is not a class.
    /// - Complexity: O(length of the chain). A stream's chains are at most 64 classes long
    ///   (the reader refuses longer ones); in a graph built by hand, a chain that loops is
    ///   cut where it repeats and a longer one after 64 classes.
    public func classChain(ofClassAt classIndex: Int) -> [Class] {
        Array(Ancestors(graph: self, start: classIndex))
    }

    /// Whether the class at `classIndex` is `name` or has it among its superclasses,
    /// without building the chain.
    ///
    /// - Complexity: O(length of the chain), at most 64 steps.
    func classChain(ofClassAt classIndex: Int, contains name: String) -> Bool {
        Ancestors(graph: self, start: classIndex).contains { $0.name == name }
    }

    /// A class and its superclasses, nearest first, walked without building an array: the
    /// one walk behind ``classChain(ofClassAt:)`` and the membership test. It stops at a
    /// root class, a node that is not a class, or after as many steps as there are nodes
    /// or ``TypedStreamReader/maximumClassChainLength``, whichever is fewer (which cuts a
    /// loop in a graph built by hand).
    private struct Ancestors: Sequence, IteratorProtocol {
        let graph: TypedStreamGraph
        var upcoming: Int?
        var remaining: Int

        init(graph: TypedStreamGraph, start: Int) {
            self.graph = graph
            upcoming = start
            remaining = Swift.min(graph.nodes.count, TypedStreamReader.maximumClassChainLength)
        }

        mutating func next() -> Class? {
            guard remaining > 0, let index = upcoming, let found = graph.class(at: index) else { return nil }
            remaining -= 1
            upcoming = found.superclassIndex
            return found
        }
    }

    /// Every class's chain of names, nearest first, indexed by reference number (`nil`
    /// for nodes that are not classes): each chain is built once and shared by the objects
    /// of that class, so that work over all objects stays linear in the graph.
    ///
    /// - Complexity: O(classes × chain length), with chains at most 64 long.
    func classChainNames() -> [[String]?] {
        var table = [[String]?](repeating: nil, count: nodes.count)
        let bound = min(nodes.count, TypedStreamReader.maximumClassChainLength)
        var path: [Int] = []
        for start in nodes.indices where table[start] == nil && self.class(at: start) != nil {
            // Walk up to a class whose chain is known, the root, a repeat or the bound.
            path.removeAll(keepingCapacity: true)
            var tail: [String] = []
            var next: Int? = start
            while let index = next, let found = self.class(at: index) {
                if let known = table[index] {
                    tail = known
                    break
                }
                if path.count >= bound || path.contains(index) { break }
                path.append(index)
                next = found.superclassIndex
            }
            for index in path.reversed() {
                guard let found = self.class(at: index) else { continue }
                var chain = [found.name]
                chain.reserveCapacity(min(tail.count + 1, bound))
                chain += tail.prefix(bound - 1)
                table[index] = chain
                tail = chain
            }
        }
        return table
    }

    /// An object's class and superclasses, nearest first, each with its version.
    ///
    /// - Parameter object: An object of this graph.
    /// - Returns: The chain.
    public func classChain(of object: Object) -> [Class] {
        classChain(ofClassAt: object.classIndex)
    }

    /// One line per node, and the top-level values.
    public var description: String {
        var lines: [String] = []
        if let root { lines.append("root = \(root)") }
        // Each class's chain written once, shared by its objects.
        var chains: [Int: String] = [:]
        for (index, node) in nodes.enumerated() {
            switch node {
            case .object(let object):
                let chain: String
                if let known = chains[object.classIndex] {
                    chain = known
                } else {
                    chain = classChain(of: object).map { "\($0.name) v\($0.version)" }.joined(
                        separator: " < ")
                    chains[object.classIndex] = chain
                }
                let body = object.groups.map(\.description).joined(separator: "; ")
                lines.append("#\(index) \(chain)\(body.isEmpty ? "" : " { \(body) }")")
            case .class(let found):
                lines.append("#\(index) class \(found.name) v\(found.version)")
            case .cString(let bytes):
                lines.append("#\(index) C string \(Value.quoted(bytes))")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension TypedStreamGraph {
    /// One entry of the shared object table.
    public enum Node: Hashable, Sendable {
        /// An object: its class and the groups of values it wrote.
        case object(Object)
        /// A class: name, version and superclass.
        case `class`(Class)
        /// A C string (`char *`) shared by reference.
        case cString(Data)
    }

    /// A class as the stream describes it.
    public struct Class: Hashable, Sendable {
        /// The class name.
        public let name: String
        /// The class version the writer's `+version` returned.
        public let version: Int
        /// The reference number of the superclass, or `nil` for a root class.
        public let superclassIndex: Int?

        /// Creates a class.
        ///
        /// - Parameters:
        ///   - name: The class name.
        ///   - version: The class version.
        ///   - superclassIndex: The superclass's reference number.
        public init(name: String, version: Int, superclassIndex: Int?) {
            self.name = name
            self.version = version
            self.superclassIndex = superclassIndex
        }
    }

    /// An archived object: its class and, in order, the groups of values its
    /// `encodeWithCoder:` wrote (superclasses' first, as they encode first).
    public struct Object: Hashable, Sendable {
        /// The reference number of the object's class.
        public let classIndex: Int
        /// The class name.
        public let className: String
        /// The groups of typed values, in stream order.
        public let groups: [Group]

        /// Creates an object.
        ///
        /// - Parameters:
        ///   - classIndex: The reference number of the class.
        ///   - className: The class name.
        ///   - groups: The groups of values.
        public init(classIndex: Int, className: String, groups: [Group]) {
            self.classIndex = classIndex
            self.className = className
            self.groups = groups
        }

        /// Every value of every group, in order: the fields of the object, unnamed.
        public var values: [Value] { groups.flatMap(\.values) }
    }

    /// A group of values written with one type-encoding string (`encodeValuesOfObjCTypes:`),
    /// such as `iI` for two integers or `@` for one object.
    public struct Group: Hashable, Sendable, CustomStringConvertible {
        /// The type-encoding string, such as `@`, `iI` or `{_NSRange=QQ}`.
        public let encoding: String
        /// One value per type in ``encoding``.
        public let values: [Value]

        /// Creates a group.
        ///
        /// - Parameters:
        ///   - encoding: The type-encoding string.
        ///   - values: The values.
        public init(encoding: String, values: [Value]) {
            self.encoding = encoding
            self.values = values
        }

        /// `iI: 1, 5`.
        public var description: String {
            "\(encoding): " + values.map(\.description).joined(separator: ", ")
        }
    }

    /// A value of a C type, as the stream holds it.
    public enum Value: Hashable, Sendable, CustomStringConvertible {
        /// A signed integer (`c`, `s`, `i`, `l`, `q`).
        case integer(Int64)
        /// An unsigned integer (`C`, `S`, `I`, `L`, `Q`).
        case unsignedInteger(UInt64)
        /// A C99 `_Bool` (`B`).
        case bool(Bool)
        /// A `float` (`f`).
        case float(Float)
        /// A `double` (`d`).
        case double(Double)
        /// A C string (`*`), shared by reference in the stream.
        case cString(Data)
        /// An unshared byte string (`+`), as `NSString` writes its UTF-8 text.
        case bytes(Data)
        /// A NeXTSTEP atom (`%`), a uniqued C string.
        case atom(Data)
        /// A selector (`:`).
        case selector(Data)
        /// An object (`@`): the reference number of an ``Object`` node.
        case object(Int)
        /// A class (`#`): the reference number of a ``Class`` node.
        case `class`(Int)
        /// A nil object, class, C string, atom or selector.
        case null
        /// An array of `char` or `unsigned char` (`[Nc]`, `[NC]`): its bytes.
        case byteArray(Data)
        /// An array of any other element type (`[Ni]`, …).
        case array([Value])
        /// A structure (`{name=…}`): its name (`nil` when the encoding has none or `?`)
        /// and fields.
        case structure(name: String?, fields: [Value])

        /// The value as a signed integer, if it is an integer that fits.
        public var integerValue: Int64? {
            switch self {
            case .integer(let value): return value
            case .unsignedInteger(let value): return Int64(exactly: value)
            case .bool(let value): return value ? 1 : 0
            default: return nil
            }
        }

        /// The value as a `Double`, if it is a number.
        public var doubleValue: Double? {
            switch self {
            case .integer(let value): return Double(value)
            case .unsignedInteger(let value): return Double(value)
            case .float(let value): return Double(value)
            case .double(let value): return value
            case .bool(let value): return value ? 1 : 0
            default: return nil
            }
        }

        /// A compact rendering: `#3` for objects, `class #2`, quoted strings.
        public var description: String {
            switch self {
            case .integer(let value): return String(value)
            case .unsignedInteger(let value): return String(value)
            case .bool(let value): return value ? "true" : "false"
            case .float(let value): return RealText.string(Double(value))
            case .double(let value): return RealText.string(value)
            case .cString(let bytes), .bytes(let bytes): return Self.quoted(bytes)
            case .atom(let bytes): return "atom " + Self.quoted(bytes)
            case .selector(let bytes): return "@selector(\(Self.quoted(bytes)))"
            case .object(let index): return "#\(index)"
            case .class(let index): return "class #\(index)"
            case .null: return "nil"
            case .byteArray(let bytes): return "<\(bytes.count) bytes>"
            case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
            case .structure(let name, let fields):
                return "{" + (name.map { "\($0) = " } ?? "")
                    + fields.map(\.description).joined(separator: ", ") + "}"
            }
        }

        /// The longest text a value shows; the rest is counted. A long C string or atom
        /// referenced from thousands of places is shown in part at each.
        static let longestShownText = 256

        static func quoted(_ bytes: Data) -> String {
            let shown = DisplayText.quoted(String(decoding: bytes.prefix(longestShownText), as: UTF8.self))
            return bytes.count > longestShownText ? shown + "… (\(bytes.count) bytes)" : shown
        }
    }
}
