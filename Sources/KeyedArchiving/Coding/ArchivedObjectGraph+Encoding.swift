#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type whose archived class (and `$classes` chain) depends on the instance: a mutable
/// or immutable variant chosen by a property, or an object of a generic graph.
///
/// The archiver asks for it only for types that adopt it, after the per-type cache of
/// class descriptions has missed, so other types pay nothing.
package protocol ArchiveDynamicClass {
    /// `$classes` for this instance: the class name first, then its superclasses.
    var archivedClassChain: [String] { get }
}

/// The objects of one graph being written into an archive: one wrapper per node, so that
/// a node referenced twice is stored once and a cycle refers back to its start.
final class GraphEncodingSession {
    let graph: ArchivedObjectGraph
    /// The most objects written, or `nil` for no limit.
    let maximumObjects: Int?
    private var wrappers: [Int: GraphObjectCoding] = [:]
    /// The plain entries (arrays, dictionaries, references stored as `$objects` entries of
    /// their own) being written, innermost last: such an entry that refers to itself,
    /// directly or through others, would otherwise be written without end.
    var plainEntriesInProgress: [Int] = []
    /// The `$objects` index each plain entry was written at, so that an entry referred to
    /// from several places is written once (entries sharing one another would otherwise be
    /// written exponentially many times).
    var plainEntriesWritten: [Int: Int] = [:]
    /// The deepest chain of plain entries referring to each other that is written.
    static let maximumPlainDepth = 256

    init(graph: ArchivedObjectGraph, maximumObjects: Int? = nil) {
        self.graph = graph
        self.maximumObjects = maximumObjects
    }

    /// Whether writing one more object would pass ``maximumObjects``.
    var isFull: Bool {
        maximumObjects.map { wrappers.count >= $0 } ?? false
    }

    func wrapper(for uid: Int, object: ArchivedObjectGraph.Object) -> GraphObjectCoding {
        if let known = wrappers[uid] { return known }
        let created = GraphObjectCoding(session: self, object: object)
        wrappers[uid] = created
        return created
    }
}

/// One object of a generic graph, written with its own class chain and fields.
final class GraphObjectCoding: SecureKeyedCoding, ArchiveDynamicClass {
    unowned let session: GraphEncodingSession
    let object: ArchivedObjectGraph.Object

    init(session: GraphEncodingSession, object: ArchivedObjectGraph.Object) {
        self.session = session
        self.object = object
    }

    var archivedClassChain: [String] {
        object.classChain.isEmpty ? [object.className, "NSObject"] : object.classChain
    }

    func encode(with coder: KeyedArchiver) {
        for field in object.fields {
            guard coder.canEncode() else { return }
            let value = coder.graphValueObject(field.value, session: session)
            coder.appendField(coder.table.keyObject(graphEscapedKey(field.key)), value)
        }
    }

    init(coder: KeyedUnarchiver) throws {
        throw KeyedArchiveError(.invalidArchive, "graph objects are read with KeyedUnarchiver.objectGraph")
    }
}

/// The key written for a graph field: unkeyed values (`$0`, `$1`, …) as they are, other
/// keys that begin with `$` escaped, as the archiver escapes them.
package func graphEscapedKey(_ key: String) -> String {
    let utf8 = key.utf8
    if utf8.count > 1, utf8.first == UInt8(ascii: "$"),
        utf8.dropFirst().allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    {
        return key
    }
    return archiveEscapedKey(key)
}

extension KeyedArchiver {
    /// Stores node `uid` of `graph` (and what it refers to) and returns its index here.
    ///
    /// With `maximumObjects`, writing more objects than that records a `limitExceeded` error.
    package func graphReference(
        _ graph: ArchivedObjectGraph, uid: Int, at component: ArchiveKeyPathComponent,
        maximumObjects: Int? = nil
    ) -> Int {
        graphNodeReference(
            uid, session: GraphEncodingSession(graph: graph, maximumObjects: maximumObjects), at: component)
    }

    func graphNodeReference(_ uid: Int, session: GraphEncodingSession, at component: ArchiveKeyPathComponent)
        -> Int
    {
        switch session.graph[uid] {
        case nil, .null?, .classDescription?:
            return 0
        case .value(let value)?:
            switch value {
            case .string(let text): return table.uniqueString(text)
            case .integer(let integer): return table.uniqueIndex(of: .integer(integer))
            case .real(let number): return table.uniqueIndex(of: .real(number.bitPattern))
            case .bool(let flag): return table.uniqueIndex(of: .bool(flag))
            case .data(let bytes): return table.uniqueIndex(of: .data(bytes))
            default:
                if let written = session.plainEntriesWritten[uid] { return written }
                if session.plainEntriesInProgress.contains(uid) {
                    record(.invalidArchive, "$objects entry #\(uid) refers to itself through plain entries")
                    return 0
                }
                guard session.plainEntriesInProgress.count < GraphEncodingSession.maximumPlainDepth else {
                    record(
                        .limitExceeded,
                        "plain $objects entries refer to each other more than "
                            + "\(GraphEncodingSession.maximumPlainDepth) deep (at #\(uid))")
                    return 0
                }
                session.plainEntriesInProgress.append(uid)
                let entry = table.plainEntry(graphValueObject(value, session: session))
                session.plainEntriesInProgress.removeLast()
                session.plainEntriesWritten[uid] = entry
                return entry
            }
        case .object(let object)?:
            if session.isFull {
                record(.limitExceeded, "more than \(session.maximumObjects ?? 0) objects")
                return 0
            }
            return reference(for: session.wrapper(for: uid, object: object), at: component)
        }
    }

    /// The builder object of a graph field value; references are stored first.
    func graphValueObject(_ value: ArchivedObjectGraph.Value, session: GraphEncodingSession) -> Int {
        switch value {
        case .null: return table.builder.addUID(0)
        case .reference(let uid):
            return table.builder.addUID(
                UInt64(graphNodeReference(uid, session: session, at: .key("#\(uid)"))))
        case .string(let text): return table.builder.addString(text)
        case .integer(let integer): return table.builder.addInteger(integer)
        case .real(let number): return table.builder.addReal(number)
        case .bool(let flag): return table.builder.addBool(flag)
        case .data(let bytes): return table.builder.addData(bytes)
        case .date(let date):
            do {
                return try table.builder.addDate(date)
            } catch let error as KeyedArchiveError {
                failWithError(error)
                return table.builder.addUID(0)
            } catch {
                return table.builder.addUID(0)
            }
        case .array(let values):
            let elements = values.map { graphValueObject($0, session: session) }
            return table.builder.addArray(elements)
        case .dictionary(let fields):
            let keys = fields.map { table.builder.addString($0.key) }
            let values = fields.map { graphValueObject($0.value, session: session) }
            return (try? table.builder.addDictionary(keys: keys, values: values)) ?? table.builder.addUID(0)
        }
    }
}

// MARK: - The graph as an archive again

extension ArchivedObjectGraph {
    /// The keyed archive this graph describes, as a property list: `$objects` rebuilt node
    /// by node with the same indices, `$top` with the same keys, so that a graph read from
    /// an archive gives back a property list equal to that archive's.
    ///
    /// ```swift
    /// let graph = try KeyedUnarchiver.objectGraph(from: data)
    /// let edited = try graph.settingField("NSSize", to: .real(14), inObjectAt: 12)
    /// let patched = try edited.archivedData()   // only NSSize of object 12 differs
    /// ```
    ///
    /// Each object's `$class` refers to the class description node with its class name,
    /// chain and hints (one is appended when no node has them, for an object added or
    /// renamed by hand). Keys are escaped as the archiver escapes them (`$x` → `$$x`;
    /// unkeyed `$0`, `$1`, … are kept).
    ///
    /// - Returns: The archive's root dictionary.
    /// - Complexity: O(*n*) in the size of the graph.
    public func archivePropertyList() -> PropertyList {
        struct ClassKey: Hashable {
            let name: String
            let chain: [String]
            let hints: [String]
        }
        var classUIDs: [ClassKey: Int] = [:]
        for (uid, node) in nodes.enumerated() {
            if case .classDescription(let description) = node {
                let key = ClassKey(
                    name: description.className, chain: description.classChain, hints: description.classHints)
                if classUIDs[key] == nil { classUIDs[key] = uid }
            }
        }
        var objects: [PropertyList] = []
        objects.reserveCapacity(nodes.count)
        var appended: [PropertyList] = []
        for node in nodes {
            switch node {
            case .null:
                objects.append("$null")
            case .value(let value):
                objects.append(Self.propertyList(value))
            case .classDescription(let description):
                objects.append(Self.propertyList(description))
            case .object(let object):
                let key = ClassKey(name: object.className, chain: object.classChain, hints: object.classHints)
                let classUID: Int
                if let known = classUIDs[key] {
                    classUID = known
                } else {
                    classUID = nodes.count + appended.count
                    classUIDs[key] = classUID
                    appended.append(
                        Self.propertyList(
                            ClassDescription(
                                className: object.className, classChain: object.classChain,
                                classHints: object.classHints)))
                }
                var dictionary = PropertyListDictionary(minimumCapacity: object.fields.count + 1)
                for field in object.fields {
                    dictionary[graphEscapedKey(field.key)] = Self.propertyList(field.value)
                }
                dictionary["$class"] = .uid(UInt64(classUID))
                objects.append(.dictionary(dictionary))
            }
        }
        objects += appended
        var top = PropertyListDictionary(minimumCapacity: topLevel.count)
        for field in topLevel { top[graphEscapedKey(field.key)] = Self.propertyList(field.value) }
        return [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": .dictionary(top),
            "$objects": .array(objects),
        ]
    }

    /// The keyed archive this graph describes (see ``archivePropertyList()``).
    ///
    /// - Parameter format: `.binary` (the default) or `.xml`.
    /// - Returns: The archive's bytes.
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` for a date that cannot be
    ///   written, or `unsupportedFormat` for `.openStep`.
    public func archivedData(format: PropertyListFormat = .binary) throws -> Data {
        try archivePropertyList().data(format: format)
    }

    /// A copy of the graph with field `key` of object `uid` set to `value` (added at the
    /// end when the object has no such field); every other node stays as it is.
    ///
    /// - Parameters:
    ///   - key: The field's key, unescaped (as in ``Object/fields``).
    ///   - value: The new value; its references must name nodes of the graph.
    ///   - uid: The index of an object node.
    /// - Returns: The edited graph.
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` when node `uid` is not an
    ///   object or `value` refers to a node out of range.
    public func settingField(_ key: String, to value: Value, inObjectAt uid: Int) throws
        -> ArchivedObjectGraph
    {
        guard let object = object(at: uid) else {
            throw KeyedArchiveError(.invalidValue, "node #\(uid) is not an object")
        }
        var references: [Int] = []
        value.collectReferences(into: &references)
        if let bad = references.first(where: { !nodes.indices.contains($0) }) {
            throw KeyedArchiveError(.invalidValue, "reference #\(bad) is out of range (\(nodes.count) nodes)")
        }
        var fields = object.fields
        if let position = fields.firstIndex(where: { $0.key == key }) {
            fields[position] = Field(key: key, value: value)
        } else {
            fields.append(Field(key: key, value: value))
        }
        var edited = nodes
        edited[uid] = .object(
            Object(
                className: object.className, classChain: object.classChain, classHints: object.classHints,
                fields: fields))
        var counts = [Int](repeating: 0, count: edited.count)
        var all: [Int] = []
        for field in topLevel { field.value.collectReferences(into: &all) }
        for node in edited { node.collectReferences(into: &all) }
        for reference in all where counts.indices.contains(reference) { counts[reference] += 1 }
        return ArchivedObjectGraph(
            nodes: edited, topLevel: topLevel, root: root, referenceCounts: counts,
            cyclic: ArchiveGraphBuilder.cyclicNodes(edited))
    }

    static func propertyList(_ description: ClassDescription) -> PropertyList {
        var dictionary: PropertyListDictionary = [
            "$classname": .string(description.className),
            "$classes": .array(description.classChain.map(PropertyList.string)),
        ]
        if !description.classHints.isEmpty {
            dictionary["$classhints"] = .array(description.classHints.map(PropertyList.string))
        }
        return .dictionary(dictionary)
    }

    /// A value as a property list; nested arrays and dictionaries with an explicit stack.
    static func propertyList(_ value: Value) -> PropertyList {
        switch value {
        case .null: return .uid(0)
        case .reference(let uid): return .uid(UInt64(max(0, uid)))
        case .string(let text): return .string(text)
        case .integer(let integer): return .integer(integer)
        case .real(let number): return .real(number)
        case .bool(let flag): return .bool(flag)
        case .date(let date): return .date(date)
        case .data(let bytes): return .data(bytes)
        case .array(let values): return .array(values.map(propertyList))
        case .dictionary(let fields):
            var dictionary = PropertyListDictionary(minimumCapacity: fields.count)
            for field in fields { dictionary[field.key] = propertyList(field.value) }
            return .dictionary(dictionary)
        }
    }
}
