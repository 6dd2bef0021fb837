import CPythonShim
import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns a keyed archive's object graph (``ArchivedObjectGraph``, built without the GIL)
/// into Python values: Apple's collections, strings, numbers, dates and data as their natural
/// Python values, classes the catalogue knows (attributed strings, colours, fonts, index
/// sets, …) as their ``ArchivedObjectGraph/Summary`` parts, any other object as a `dict` of
/// its fields with its class name under `$class`. With `objects`, every archived object is an
/// `ArchivedObject` (a `dict` of its fields, with `class_name` and `uid`).
///
/// Each object is converted once and the same Python object is returned at every reference
/// (so sharing never multiplies work); a reference back to an object being converted is a
/// `Cycle(uid)` marker; nesting deeper than ``maximumPythonDepth`` fails.
struct ArchiveConverter {
    let graph: ArchivedObjectGraph
    let objects: Bool
    let helpers: PythonHelpers
    private var converted: [Int: PyRef] = [:]
    private var enclosing: Set<Int> = []

    init(graph: ArchivedObjectGraph, objects: Bool, helpers: PythonHelpers) {
        self.graph = graph
        self.objects = objects
        self.helpers = helpers
    }

    /// Releases the converted objects this converter holds.
    func release() {
        for object in converted.values { ka_decref(object) }
    }

    mutating func convert(_ value: ArchivedObjectGraph.Value, depth: Int) throws -> PyRef {
        guard depth < maximumPythonDepth else {
            throw KeyedArchiveError(
                .limitExceeded, "objects nested more than \(maximumPythonDepth) levels deep")
        }
        func checked(_ object: PyRef?) throws(PythonErrorSet) -> PyRef {
            guard let object else { throw PythonErrorSet() }
            return object
        }
        switch value {
        case .null: return ka_none()
        case .string(let text): return try checked(makeString(text))
        case .integer(let integer): return try checked(makeInteger(integer))
        case .real(let real): return try checked(PyFloat_FromDouble(real))
        case .bool(let flag): return try checked(PyBool_FromLong(flag ? 1 : 0))
        case .date(let date): return try checked(makeDate(date))
        case .data(let data): return try checked(makeBytes(data))
        case .array(let elements):
            let list = try checked(PyList_New(elements.count))
            for (index, element) in elements.enumerated() {
                do {
                    PyList_SetItem(list, index, try convert(element, depth: depth + 1))
                } catch {
                    ka_decref(list)
                    throw error
                }
            }
            return list
        case .dictionary(let fields):
            return try dictionary(fields.map { ($0.key, $0.value) }, depth: depth)
        case .reference(let uid):
            guard let node = graph[uid] else {
                throw KeyedArchiveError(.invalidArchive, "reference to missing object \(uid)")
            }
            switch node {
            case .null: return ka_none()
            // One level deeper: a plain entry that is itself a reference (`$objects[1]` =
            // `UID(1)`) would otherwise recurse without end (found by fuzz.py).
            case .value(let plain): return try convert(plain, depth: depth + 1)
            case .classDescription(let description): return try checked(makeString(description.className))
            case .object(let object): return try convertObject(object, uid: uid, depth: depth)
            }
        }
    }

    private mutating func dictionary(
        _ fields: [(String, ArchivedObjectGraph.Value)], depth: Int, className: String? = nil
    ) throws -> PyRef {
        guard let result = PyDict_New() else { throw PythonErrorSet() }
        do {
            if let className {
                try setItem(result, try ownedString(className), try ownedString("$class"))
            }
            for (key, value) in fields {
                let name = try ownedString(key)
                let item: PyRef
                do { item = try convert(value, depth: depth + 1) } catch {
                    ka_decref(name)
                    throw error
                }
                try setItem(result, item, name)
            }
        } catch {
            ka_decref(result)
            throw error
        }
        return result
    }

    private func ownedString(_ text: String) throws(PythonErrorSet) -> PyRef {
        guard let object = makeString(text) else { throw PythonErrorSet() }
        return object
    }

    /// `result[key] = item`, consuming both; an unhashable key becomes its `repr`.
    private func setItem(_ result: PyRef, _ item: PyRef, _ key: PyRef) throws(PythonErrorSet) {
        defer {
            ka_decref(key)
            ka_decref(item)
        }
        if PyDict_SetItem(result, key, item) == 0 { return }
        guard PyErr_ExceptionMatches(ka_exc_type_error()) != 0, let text = PyObject_Repr(key) else {
            throw PythonErrorSet()
        }
        PyErr_Clear()
        defer { ka_decref(text) }
        if PyDict_SetItem(result, text, item) != 0 { throw PythonErrorSet() }
    }

    private mutating func convertObject(_ object: ArchivedObject, uid: Int, depth: Int) throws -> PyRef {
        if let known = converted[uid] {
            ka_incref(known)
            return known
        }
        if enclosing.contains(uid) {
            guard let marker = call(helpers.cycleMarker, [PyLong_FromLongLong(Int64(uid))]) else {
                throw PythonErrorSet()
            }
            return marker
        }
        enclosing.insert(uid)
        defer { enclosing.remove(uid) }
        let result: PyRef
        if objects {
            let fields = try dictionary(object.fields.map { ($0.key, $0.value) }, depth: depth)
            guard
                let made = call(
                    helpers.archivedObject,
                    [makeString(object.className), PyLong_FromLongLong(Int64(uid)), fields])
            else { throw PythonErrorSet() }
            result = made
        } else {
            result = try naturalValue(of: object, uid: uid, depth: depth)
        }
        ka_incref(result)
        converted[uid] = result
        return result
    }

    private static let known: Set<String> = [
        "NSArray", "NSSet", "NSOrderedSet", "NSDictionary", "NSString", "NSData", "NSDate", "NSNull", "NSURL",
        "NSUUID", "NSNumber",
    ]

    /// The class (or nearest superclass) the natural conversions know.
    private func foundationClass(of object: ArchivedObject) -> String? {
        let mutable = immutable(object.className)
        if Self.known.contains(mutable) { return mutable }
        if object.className == "NSCountedSet" { return "NSSet" }
        for name in object.classChain.prefix(16) {
            let base = immutable(name)
            if Self.known.contains(base) { return base }
        }
        return nil
    }

    private func immutable(_ name: String) -> String {
        name.hasPrefix("NSMutable") ? "NS" + name.dropFirst(9) : name
    }

    private mutating func naturalValue(of object: ArchivedObject, uid: Int, depth: Int) throws -> PyRef {
        switch foundationClass(of: object) {
        case "NSArray"?, "NSSet"?, "NSOrderedSet"?:
            if case .array(let elements)? = object["NS.objects"] {
                return try convert(.array(elements), depth: depth)
            }
            // Ordered sets as `NS.object.0`, `NS.object.1`, …; counted sets as `NS.object0`, ….
            let numbered = object.fields.compactMap { field -> (Int, ArchivedObjectGraph.Value)? in
                guard field.key.hasPrefix("NS.object") else { return nil }
                let digits = field.key.dropFirst(9).drop { $0 == "." }
                return Int(digits).map { ($0, field.value) }
            }
            if !numbered.isEmpty || object["NS.count"] != nil {
                return try convert(.array(numbered.sorted { $0.0 < $1.0 }.map(\.1)), depth: depth)
            }
        case "NSDictionary"?:
            if case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"] {
                guard keys.count == values.count else {
                    throw KeyedArchiveError(
                        .invalidArchive, "NS.keys has \(keys.count) entries, NS.objects \(values.count)",
                        at: .keyPath("$objects[\(uid)]"))
                }
                guard let result = PyDict_New() else { throw PythonErrorSet() }
                do {
                    for (key, value) in zip(keys, values) {
                        let name = try convert(key, depth: depth + 1)
                        let item: PyRef
                        do { item = try convert(value, depth: depth + 1) } catch {
                            ka_decref(name)
                            throw error
                        }
                        try setItem(result, item, name)
                    }
                } catch {
                    ka_decref(result)
                    throw error
                }
                return result
            }
        case "NSString"?:
            if let text = object["NS.string"] { return try convert(text, depth: depth) }
            if case .data(let bytes)? = object["NS.bytes"] {
                return try convert(.string(String(decoding: bytes, as: UTF8.self)), depth: depth)
            }
        case "NSData"?:
            if let bytes = object["NS.data"] ?? object["NS.bytes"] { return try convert(bytes, depth: depth) }
        case "NSDate"?:
            if let time = object["NS.time"], let seconds = doubleValue(time) {
                return try convert(.date(Date(timeIntervalSinceReferenceDate: seconds)), depth: depth)
            }
        case "NSNull"?:
            return ka_none()
        case "NSUUID"?:
            if case .data(let bytes)? = object["NS.uuidbytes"], bytes.count == 16 {
                guard let made = call(helpers.uuidFromBytes, [makeBytes(bytes)]) else {
                    throw PythonErrorSet()
                }
                return made
            }
        case "NSURL"?:
            if let text = urlString(object, depth: 0) { return try convert(.string(text), depth: depth) }
        default:
            break
        }
        if let summary = graph.summary(ofObjectAt: uid) {
            guard let made = makeObject(summary.value) else { throw PythonErrorSet() }
            if summary.value.dictionaryValue != nil, let name = makeString(object.className) {
                PyDict_SetItemString(made, "$class", name)
                ka_decref(name)
            }
            return made
        }
        return try dictionary(
            object.fields.map { ($0.key, $0.value) }, depth: depth, className: object.className)
    }

    private func doubleValue(_ value: ArchivedObjectGraph.Value) -> Double? {
        switch value {
        case .real(let real): return real
        case .integer(let integer): return integer.int64Value.map(Double.init)
        case .reference(let uid):
            if case .value(let plain)? = graph[uid] { return doubleValue(plain) }
            return nil
        default: return nil
        }
    }

    /// An `NSURL`'s absolute string: `NS.relative` resolved against `NS.base` (itself a URL).
    private func urlString(_ object: ArchivedObject, depth: Int) -> String? {
        guard depth < 16, let relative = stringValue(object["NS.relative"]) else { return nil }
        guard case .reference(let baseUID)? = object["NS.base"], let base = graph.object(at: baseUID),
            let baseText = urlString(base, depth: depth + 1)
        else { return relative }
        return URL(string: relative, relativeTo: URL(string: baseText))?.absoluteString ?? relative
    }

    private func stringValue(_ value: ArchivedObjectGraph.Value?) -> String? {
        switch value {
        case .string(let text)?: return text
        case .reference(let uid)?:
            switch graph[uid] {
            case .value(.string(let text))?: return text
            case .object(let object)?: return stringValue(object["NS.string"])
            default: return nil
            }
        default: return nil
        }
    }
}

/// `_unarchive(data, allowed, objects)`: reads the archive's graph without the GIL, checks
/// every class against `allowed` (a set of names, or `None`) before building anything, then
/// converts.
func unarchiveFunction(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 3, name: "_unarchive")
        guard let helpers else { throw PythonErrorSet() }
        // A binary archive of the usual classes is converted straight from its bytes, with
        // the GIL held; anything the fast reader declines takes the library's path below.
        if fastPathsEnabled, ka_is_none(given[1]) != 0, PyObject_IsTrue(given[2]) == 0 {
            let outcome = try withBuffer(of: given[0]) { fastUnarchive($0, helpers: helpers) }
            switch outcome {
            case .value(let value): return value
            case .pythonError: throw PythonErrorSet()
            case .declined: break
            }
        }
        let data = try bytes(of: given[0])
        var allowed: Set<String>?
        if ka_is_none(given[1]) == 0 {
            guard let iterator = PyObject_GetIter(given[1]) else { throw PythonErrorSet() }
            defer { ka_decref(iterator) }
            var names = Set<String>()
            while let item = PyIter_Next(iterator) {
                defer { ka_decref(item) }
                names.insert(try string(of: item))
            }
            if PyErr_Occurred() != nil { throw PythonErrorSet() }
            allowed = names
        }
        let objects = PyObject_IsTrue(given[2]) == 1
        let graph = try withoutGIL { () throws(KeyedArchiveError) -> ArchivedObjectGraph in
            let graph: ArchivedObjectGraph
            do {
                graph = try KeyedUnarchiver.objectGraph(from: data)
            } catch let error as KeyedArchiveError {
                throw error
            } catch {
                throw KeyedArchiveError(.invalidArchive, "\(error)")
            }
            if let allowed {
                for (uid, node) in graph.nodes.enumerated() {
                    guard case .object(let object) = node, !allowed.contains(object.className) else {
                        continue
                    }
                    throw KeyedArchiveError(
                        .classNotAllowed, "class \(object.className) is not in the allowed classes",
                        at: .keyPath("$objects[\(uid)]"))
                }
            }
            return graph
        }
        var converter = ArchiveConverter(graph: graph, objects: objects, helpers: helpers)
        defer { converter.release() }
        // An archive without `$top["root"]` (Interface Builder's `IB.objectdata`, Xcode's
        // `State`) is its `$top` entries, as nska_deserialize gives them.
        guard let root = graph.root else {
            return try converter.convert(.dictionary(graph.topLevel), depth: 0)
        }
        return try converter.convert(root, depth: 0)
    }
}
