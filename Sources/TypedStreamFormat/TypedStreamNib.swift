#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The object table of a pre-2007 nib (`objects.nib`, a typedstream rooted at
/// `NSIBObjectData`): every object with its id, class, name and parent, and the
/// connections, as Interface Builder wrote them.
///
/// ```swift
/// let data = try Data(contentsOf: URL(fileURLWithPath: "MainMenu.nib/objects.nib"))
/// let nib = try TypedStreamNib(typedStream: data)
/// for object in nib.objects {
///     print(object.id, object.className, object.name ?? "", object.parent ?? -1)
/// }
/// for connection in nib.connections {
///     print(connection.className, connection.label ?? "", connection.source ?? -1, "→", connection.destination ?? -1)
/// }
/// ```
///
/// Objects are the stream's objects (``TypedStreamGraph`` node indices in ``graph``); decode
/// one with ``TypedStreamUnarchiver/value(of:)``, or walk its groups. The layout is
/// `NSIBObjectData` version 224 as pytypedstream reads it (see Typedstream.md).
public struct TypedStreamNib: Sendable {
    /// An object of the nib.
    public struct Object: Hashable, Sendable {
        /// The object's index in ``TypedStreamNib/graph`` (an object node).
        public var index: Int
        /// The id Interface Builder gave it.
        public var id: Int
        /// The object's class name.
        public var className: String
        /// Its name in Interface Builder (`File's Owner`, …), if it has one.
        public var name: String?
        /// Its parent's index in ``TypedStreamNib/graph``, if it has one.
        public var parent: Int?
        /// For an `NSCustomObject` or a swapped class, the class it stands for.
        public var customClassName: String?
    }

    /// A connection (`NSNibOutletConnector`, `NSNibControlConnector`, …).
    public struct Connection: Hashable, Sendable {
        /// The connector's index in ``TypedStreamNib/graph``.
        public var index: Int
        /// The connector's class name.
        public var className: String
        /// The source object's index in ``TypedStreamNib/graph``.
        public var source: Int?
        /// The destination object's index in ``TypedStreamNib/graph``.
        public var destination: Int?
        /// The outlet's or action's name.
        public var label: String?
    }

    /// The whole stream.
    public let graph: TypedStreamGraph
    /// The root object's index in ``graph`` (usually the File's Owner).
    public let root: Int?
    /// The objects with ids, in the order the nib lists them.
    public let objects: [Object]
    /// The connections.
    public let connections: [Connection]
    /// The next id Interface Builder would give.
    public let nextObjectID: Int
    /// The framework the nib targets, such as `IBCocoaFramework`.
    public let targetFramework: String?

    /// Reads a nib's `objects.nib`.
    ///
    /// - Parameters:
    ///   - data: The typedstream.
    ///   - options: Limits and choices.
    /// - Throws: ``KeyedArchiveError``: what reading the stream throws, or `typeMismatch` /
    ///   `invalidArchive` when its root is not an `NSIBObjectData` of the layout described.
    public init(
        typedStream data: Data, options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    )
        throws
    {
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data, options: options)
        let graph = unarchiver.objectGraph
        self.graph = graph
        guard case .object(let rootIndex)? = graph.root, let objectData = graph.object(at: rootIndex),
            graph.classChain(of: objectData).contains(where: { $0.name == "NSIBObjectData" })
        else {
            throw KeyedArchiveError(.typeMismatch, "the stream's root is not an NSIBObjectData")
        }
        var reader = GroupReader(groups: objectData.groups)
        func invalid(_ message: String) -> KeyedArchiveError {
            KeyedArchiveError(
                .invalidArchive, "NSIBObjectData: \(message)", at: .keyPath("group \(reader.next)"))
        }
        func text(_ value: TypedStreamGraph.Value) -> String? {
            (try? unarchiver.value(of: value, as: String.self)) ?? nil
        }
        func index(_ value: TypedStreamGraph.Value) -> Int? {
            if case .object(let index) = value { return index }
            return nil
        }
        guard let rootValue = reader.values("@")?.first else { throw invalid("no root object") }
        root = index(rootValue)
        var parents: [Int: Int] = [:]
        guard let parentCount = reader.count() else { throw invalid("no parent count") }
        for _ in 0..<parentCount {
            guard let pair = reader.values("@@") else { throw invalid("a parent entry is not two objects") }
            if let child = index(pair[0]), let parent = index(pair[1]) { parents[child] = parent }
        }
        var names: [Int: String] = [:]
        guard let nameCount = reader.count() else { throw invalid("no name count") }
        for _ in 0..<nameCount {
            guard let pair = reader.values("@@") else { throw invalid("a name entry is not two objects") }
            if let object = index(pair[0]), let name = text(pair[1]) { names[object] = name }
        }
        guard reader.values("@") != nil, let connectionsValue = reader.values("@")?.first,
            reader.values("@") != nil
        else { throw invalid("no set, connections and object after the names") }
        var ids: [(Int, Int)] = []
        guard let idCount = reader.count() else { throw invalid("no id count") }
        for _ in 0..<idCount {
            guard let pair = reader.values("@i"), let object = index(pair[0]), let id = pair[1].integerValue,
                let number = Int(exactly: id)
            else { throw invalid("an id entry is not an object and an integer") }
            ids.append((object, number))
        }
        nextObjectID = reader.integer() ?? 0
        var swapped: [Int: String] = [:]
        if let swapCount = reader.count() {
            for _ in 0..<swapCount {
                guard let pair = reader.values("@@") else { break }
                if let object = index(pair[0]), let name = text(pair[1]) { swapped[object] = name }
            }
        }
        targetFramework = reader.values("@").flatMap { $0.first.flatMap(text) }

        objects = ids.map { object, id in
            let node = graph.object(at: object)
            var custom = swapped[object]
            if custom == nil, let node, node.className == "NSCustomObject",
                let first = node.groups.first?.values.first
            {
                custom = text(first)
            }
            return Object(
                index: object, id: id, className: node?.className ?? "?", name: names[object],
                parent: parents[object],
                customClassName: custom)
        }
        var connections: [Connection] = []
        if let connectionsIndex = index(connectionsValue), let array = graph.object(at: connectionsIndex) {
            for value in array.values.dropFirst() {
                guard let connector = index(value), let node = graph.object(at: connector) else { continue }
                let values = node.values
                connections.append(
                    Connection(
                        index: connector, className: node.className, source: values.first.flatMap(index),
                        destination: values.count > 1 ? index(values[1]) : nil,
                        label: values.count > 2 ? text(values[2]) : nil))
            }
        }
        self.connections = connections
    }

    /// Reads an object's groups in order, by their type encodings.
    private struct GroupReader {
        let groups: [TypedStreamGraph.Group]
        var next = 0

        mutating func values(_ encoding: String) -> [TypedStreamGraph.Value]? {
            guard next < groups.count, groups[next].encoding == encoding,
                groups[next].values.count == encoding.utf8.count
            else { return nil }
            next += 1
            return groups[next - 1].values
        }

        /// An `i` integer.
        mutating func integer() -> Int? {
            values("i")?.first?.integerValue.flatMap { Int(exactly: $0) }
        }

        /// An `i` count, bounded by the groups left (each entry is a group).
        mutating func count() -> Int? {
            guard let value = integer(), value >= 0, value <= groups.count - next else { return nil }
            return value
        }
    }
}
