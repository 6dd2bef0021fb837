import CPythonShim
import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Python values of what ``TypedStreamUnarchiver/unarchivedObject(from:options:)`` gives
/// (its table: `String`, numbers, `Data`, `Date`, `URL`, arrays, sets, dictionaries,
/// attributed strings, colours, fonts, …); a class it does not know is a `dict` with its
/// class name under `$class` and its values under `values`.
struct TypedStreamConverter {
    func convert(_ value: Any?, depth: Int) throws -> PyRef {
        guard depth < maximumPythonDepth else {
            throw KeyedArchiveError(
                .limitExceeded, "values nested more than \(maximumPythonDepth) levels deep")
        }
        func checked(_ object: PyRef?) throws(PythonErrorSet) -> PyRef {
            guard let object else { throw PythonErrorSet() }
            return object
        }
        guard let value else { return ka_none() }
        switch value {
        case let text as String: return try checked(makeString(text))
        case let flag as Bool: return try checked(PyBool_FromLong(flag ? 1 : 0))
        case let number as Int8: return try checked(PyLong_FromLongLong(Int64(number)))
        case let number as UInt8: return try checked(PyLong_FromLongLong(Int64(number)))
        case let number as Int16: return try checked(PyLong_FromLongLong(Int64(number)))
        case let number as UInt16: return try checked(PyLong_FromLongLong(Int64(number)))
        case let number as Int32: return try checked(PyLong_FromLongLong(Int64(number)))
        case let number as UInt32: return try checked(PyLong_FromLongLong(Int64(number)))
        case let number as Int64: return try checked(PyLong_FromLongLong(number))
        case let number as UInt64: return try checked(PyLong_FromUnsignedLongLong(number))
        case let number as Int: return try checked(PyLong_FromLongLong(Int64(number)))
        case let number as Float: return try checked(PyFloat_FromDouble(Double(number)))
        case let number as Double: return try checked(PyFloat_FromDouble(number))
        case let bytes as Data: return try checked(makeBytes(bytes))
        case let date as Date: return try checked(makeDate(date))
        case let url as URL: return try checked(makeString(url.absoluteString))
        case is ArchivedNull: return ka_none()
        case let text as ArchivedAttributedString: return try attributedText(IMessageBody(text))
        case let color as ArchivedColor:
            var parts: PropertyListDictionary = ["text": .string(color.description)]
            if let space = color.space { parts["space"] = .string(space.description) }
            parts["components"] = .array(color.components.map(PropertyList.real))
            if let hex = color.hexString { parts["hex"] = .string(hex) }
            return try checked(makeObject(.dictionary(parts)))
        case let font as ArchivedFont:
            return try checked(makeObject(["name": .string(font.name), "size": .real(font.size)]))
        case let elements as [Any]:
            let list = try checked(PyList_New(elements.count))
            for (index, element) in elements.enumerated() {
                do { PyList_SetItem(list, index, try convert(element, depth: depth + 1)) } catch {
                    ka_decref(list)
                    throw error
                }
            }
            return list
        case let members as Set<AnyHashable>:
            return try convert(Array(members.map(\.base)), depth: depth)
        case let entries as [String: Any]:
            return try dictionary(
                entries.sorted { $0.key < $1.key }.map { ($0.key as Any, $0.value) }, depth: depth)
        case let entries as [AnyHashable: Any]:
            return try dictionary(entries.map { ($0.key.base, $0.value) }, depth: depth)
        case let graph as TypedStreamGraph:
            guard case .object(let index)? = graph.root, let object = graph.object(at: index) else {
                return try checked(makeString(graph.description))
            }
            let values = object.values.map { Self.plain($0, graph: graph) }
            return try dictionary(
                [("$class", object.className), ("values", values)], depth: depth)
        default:
            return try checked(makeString(String(describing: value)))
        }
    }

    /// A value of an object the unarchiver does not know, without following references.
    private static func plain(_ value: TypedStreamGraph.Value, graph: TypedStreamGraph) -> Any? {
        switch value {
        case .integer(let number): return number
        case .unsignedInteger(let number): return number
        case .bool(let flag): return flag
        case .float(let number): return number
        case .double(let number): return number
        case .cString(let bytes), .atom(let bytes), .selector(let bytes):
            return String(decoding: bytes, as: UTF8.self)
        case .bytes(let bytes), .byteArray(let bytes): return bytes
        case .object(let index): return graph.object(at: index).map { "<\($0.className) #\(index)>" }
        case .class(let index): return graph.class(at: index)?.name
        case .null: return nil
        case .array(let values): return values.map { plain($0, graph: graph) }
        case .structure(_, let fields): return fields.map { plain($0, graph: graph) }
        }
    }

    private func dictionary(_ entries: [(Any, Any?)], depth: Int) throws -> PyRef {
        guard let result = PyDict_New() else { throw PythonErrorSet() }
        do {
            for (key, value) in entries {
                let name = try convert(key, depth: depth + 1)
                defer { ka_decref(name) }
                let item = try convert(value, depth: depth + 1)
                defer { ka_decref(item) }
                if PyDict_SetItem(result, name, item) != 0 {
                    PyErr_Clear()
                    guard let text = PyObject_Repr(name) else { throw PythonErrorSet() }
                    defer { ka_decref(text) }
                    if PyDict_SetItem(result, text, item) != 0 { throw PythonErrorSet() }
                }
            }
        } catch {
            ka_decref(result)
            throw error
        }
        return result
    }

    /// `{"string": text, "runs": [{"range": (start, end), "text": …, "attributes": {…}}]}`,
    /// ranges in UTF-16 units as Apple counts them.
    func attributedText(_ body: IMessageBody) throws -> PyRef {
        var runs: [PropertyList] = []
        runs.reserveCapacity(body.runs.count)
        for run in body.runs {
            var attributes = PropertyListDictionary(minimumCapacity: run.attributes.count)
            for key in run.attributes.keys.sorted() {
                if let value = run.attributes[key] { attributes[key] = Self.propertyList(value, depth: 0) }
            }
            runs.append([
                "range": [
                    .integer(PropertyListInteger(run.range.lowerBound)),
                    .integer(PropertyListInteger(run.range.upperBound)),
                ],
                "text": .string(run.text), "attributes": .dictionary(attributes),
            ])
        }
        guard let made = makeObject(["string": .string(body.text), "runs": .array(runs)]) else {
            throw PythonErrorSet()
        }
        return made
    }

    /// An attribute value as the tool's JSON shows it (`Tool+AttributedBody.swift`): plain
    /// values as themselves, a URL as its absolute string, fonts, colours, paragraph styles
    /// and other objects as their one-line descriptions.
    static func propertyList(_ value: ArchivedAttributeValue, depth: Int) -> PropertyList {
        switch value {
        case .null: return .string("$null")
        case .string(let text): return .string(text)
        case .integer(let number): return .integer(PropertyListInteger(number))
        case .real(let number): return .real(number)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes): return .data(bytes)
        case .date(let date): return .date(date)
        case .url(let url): return .string(url.absoluteString)
        case .array(let values):
            guard depth < 64 else { return .string(value.description) }
            return .array(values.map { propertyList($0, depth: depth + 1) })
        case .font, .color, .paragraphStyle, .object: return .string(value.description)
        }
    }
}

/// `_typedstream_loads(data, objects)`: the stream's root, read without the GIL.
func typedStreamFunction(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 2, name: "_typedstream_loads")
        let data = try bytes(of: given[0])
        let root = try withoutGIL { () throws(KeyedArchiveError) -> SendableBox in
            do {
                return SendableBox(value: try TypedStreamUnarchiver.unarchivedObject(from: data))
            } catch let error as KeyedArchiveError {
                throw error
            } catch {
                throw KeyedArchiveError(.corruptData, "\(error)")
            }
        }
        return try TypedStreamConverter().convert(root.value, depth: 0)
    }
}

/// The untyped root, carried out of the closure that ran without the GIL.
struct SendableBox: @unchecked Sendable {
    var value: Any?
}

/// `_imessage_text(data)`: an iMessage `attributedBody` as `{"string", "runs"}`.
func iMessageTextFunction(_ module: PyRef?, _ args: UnsafePointer<PyRef?>?, _ count: Int) -> PyRef? {
    entry {
        let given = try arguments(args, count, expected: 1, name: "_imessage_text")
        let data = try bytes(of: given[0])
        let body = try withoutGIL { () throws(KeyedArchiveError) -> IMessageBody in
            do {
                return try IMessageBody(attributedBody: data)
            } catch let error as KeyedArchiveError {
                throw error
            } catch {
                throw KeyedArchiveError(.corruptData, "\(error)")
            }
        }
        return try TypedStreamConverter().attributedText(body)
    }
}
