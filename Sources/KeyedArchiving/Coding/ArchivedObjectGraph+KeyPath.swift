#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedObjectGraph {
    /// The value a key path leads to, following references the way a reader thinks of the
    /// archive's objects rather than the way they are stored.
    ///
    /// ```swift
    /// let graph = try KeyedUnarchiver.objectGraph(from: data)
    /// let title = graph.value(atKeyPath: ["root", "items", "3", "title"])
    /// ```
    ///
    /// The first component names a `$top` entry (usually `root`). Each later component is
    /// applied to the value reached so far, references (`CF$UID`) being followed first:
    /// - an object: its field of that name; otherwise, for a dictionary archived as
    ///   `NS.keys`/`NS.objects`, the value whose key is that string (a plain string or an
    ///   `NSString` object); otherwise, for a decimal component and an array archived as
    ///   `NS.objects`, that element;
    /// - a plain dictionary: its entry; a plain array: the element at that index.
    ///
    /// - Parameter components: The key path, one key or index per element.
    /// - Returns: The value reached — a ``Value/reference(_:)`` for an object, the value
    ///   itself for a plain value such as a string — or `nil` when a component names
    ///   nothing, or the path is empty.
    /// - Complexity: O(*k* × *f*) for *k* components and the largest object *f* passed through.
    public func value(atKeyPath components: [String]) -> Value? {
        guard let first = components.first, var current = topLevelValue(forKey: first) else { return nil }
        for component in components.dropFirst() {
            guard let next = child(of: current, named: component) else { return nil }
            current = next
        }
        // A reference to a plain value (a string the archiver de-duplicated) is that value.
        if case .reference = current, case let (plain, nil) = dereferenced(current), plain != .null {
            return plain
        }
        return current
    }

    /// The same graph, about `value`: its ``root`` is `value`, so that ``outline()`` shows
    /// that value (labelled `root`) and what it refers to.
    ///
    /// - Parameter value: A value of this graph, such as one from ``value(atKeyPath:)``.
    /// - Returns: The graph rooted at `value`.
    public func subgraph(at value: Value) -> ArchivedObjectGraph {
        rooted(at: value)
    }

    /// `value` with references followed to plain values or objects (a `nil` reference and a
    /// reference out of range give ``Value/null``).
    private func dereferenced(_ value: Value) -> (value: Value, object: Object?) {
        guard case .reference(let uid) = value else { return (value, nil) }
        switch self[uid] {
        case .value(let plain)?: return (plain, nil)
        case .object(let object)?: return (value, object)
        default: return (.null, nil)
        }
    }

    private func child(of value: Value, named component: String) -> Value? {
        let (resolved, object) = dereferenced(value)
        if let object {
            if let field = object[component] { return field }
            if case .array(let keys)? = object["NS.keys"].map({ dereferenced($0).value }),
                case .array(let objects)? = object["NS.objects"].map({ dereferenced($0).value }),
                keys.count == objects.count
            {
                for (index, key) in keys.enumerated() where stringValue(of: key) == component {
                    return objects[index]
                }
                return nil
            }
            if let index = Self.index(component),
                case .array(let objects)? = object["NS.objects"].map({ dereferenced($0).value }),
                objects.indices.contains(index)
            {
                return objects[index]
            }
            return nil
        }
        switch resolved {
        case .dictionary(let fields):
            return fields.first { $0.key == component }?.value
        case .array(let elements):
            guard let index = Self.index(component), elements.indices.contains(index) else { return nil }
            return elements[index]
        default:
            return nil
        }
    }

    /// A key as text: a plain string, or an `NSString`-like object's `NS.string`.
    private func stringValue(of key: Value) -> String? {
        let (resolved, object) = dereferenced(key)
        if case .string(let text) = resolved { return text }
        if case .string(let text)? = object?["NS.string"] { return text }
        return nil
    }

    private static func index(_ component: String) -> Int? {
        guard !component.isEmpty, component.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(component)
    }
}
