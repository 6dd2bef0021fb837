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
protocol ArchiveDynamicClass {
    /// `$classes` for this instance: the class name first, then its superclasses.
    var archivedClassChain: [String] { get }
}

/// The objects of one graph being written into an archive: one wrapper per node, so that
/// a node referenced twice is stored once and a cycle refers back to its start.
final class GraphEncodingSession {
    let graph: ArchivedObjectGraph
    private var wrappers: [Int: GraphObjectCoding] = [:]

    init(graph: ArchivedObjectGraph) {
        self.graph = graph
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
func graphEscapedKey(_ key: String) -> String {
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
    func graphReference(_ graph: ArchivedObjectGraph, uid: Int, at component: ArchiveKeyPathComponent) -> Int
    {
        graphNodeReference(uid, session: GraphEncodingSession(graph: graph), at: component)
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
            default: return table.plainEntry(graphValueObject(value, session: session))
            }
        case .object(let object)?:
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
