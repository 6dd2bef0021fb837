import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `plutil` key path: keys separated by `.`, where `\.` is a dot inside a key and `\\` a
/// backslash; a component that is a decimal number addresses an element when applied to
/// an array (and, as the last component of `-insert`, the place to insert at).
///
/// `CFBundleDocumentTypes.0.CFBundleTypeName`, `com\.apple\.sec.enabled`.
struct PropertyListKeyPath: Equatable, CustomStringConvertible {
    /// The components, unescaped.
    let components: [String]
    /// The key path as given on the command line, for messages.
    let text: String

    var description: String { text }

    /// Splits `text` at its unescaped dots. An empty text is one empty key (as `plutil`,
    /// which finds no value there).
    init(_ text: String) {
        self.text = text
        var components: [String] = []
        var current = ""
        var escaping = false
        for character in text {
            if escaping {
                // `\.` and `\\` stand for the character; any other escape is kept as written.
                if character != "." && character != "\\" { current.append("\\") }
                current.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaping { current.append("\\") }
        components.append(current)
        self.components = components
    }

    /// A key path of the given components (an empty one names the value itself).
    init(components: [String]) {
        self.components = components
        self.text = components.joined(separator: ".")
    }

    /// The component as an array index: decimal digits only, no sign, within `Int`.
    static func index(_ component: String) -> Int? {
        guard isDecimal(component) else { return nil }
        // `nil` past `Int.max` (`99999999999999999999`): no array is that long.
        return Int(component)
    }

    /// Whether the component is spelled as an index (decimal digits only), whatever its size.
    static func isDecimal(_ component: String) -> Bool {
        !component.isEmpty && component.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
    }

    /// The index `component` names in an array of `count` elements for an edit; `end` is
    /// the largest index accepted (the count, where an edit may add at the end).
    ///
    /// - Throws: ``Failure`` saying what is wrong: not an index (a key, a sign, `-1`), or an
    ///   index beyond `end` (however many digits it has).
    func index(_ component: String, upTo end: Int, failing message: String) throws(Failure) -> Int {
        guard Self.isDecimal(component) else {
            throw Failure(
                "Unable to index into array with key path \(text): '\(component)' is not an index "
                    + "(a decimal number from 0)")
        }
        guard let index = Int(component), index <= end else {
            throw Failure(message)
        }
        return index
    }

    /// What an edit failed on, in words that follow `FILE: `.
    struct Failure: Error, Equatable {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The value at this key path in `root`, or `nil` when a component names nothing.
    func value(in root: PropertyList) -> PropertyList? {
        var current = root
        for component in components {
            guard let next = Self.child(of: current, component) else { return nil }
            current = next
        }
        return current
    }

    static func child(of value: PropertyList, _ component: String) -> PropertyList? {
        switch value {
        case .dictionary(let dictionary): return dictionary[component]
        case .array(let elements):
            guard let index = index(component), elements.indices.contains(index) else { return nil }
            return elements[index]
        default: return nil
        }
    }

    /// Whether the key path reaches a `data` value before its last component: an archive
    /// or property list stored in data, which the edit descends into.
    func crossesData(in root: PropertyList) -> Bool {
        var current = root
        for component in components {
            if case .data = current { return true }
            guard let next = Self.child(of: current, component) else { return false }
            current = next
        }
        return false
    }

    /// The edits of `-insert`, `-replace` and `-remove`.
    enum Edit {
        /// Adds a value where there is none; an array index may be one past the end.
        case insert(PropertyList)
        /// Adds `-append`'s value at the end of the array this key path names.
        case append(PropertyList)
        /// Sets the value, whether or not there was one.
        case replace(PropertyList)
        /// Removes the value, which must exist.
        case remove

        /// The same edit as the library spells it.
        var libraryEdit: PropertyListEdit {
            switch self {
            case .insert(let value): return .insert(value)
            case .append(let value): return .append(value)
            case .replace(let value): return .replace(value)
            case .remove: return .remove
            }
        }
    }

    /// Applies `edit` to `root`.
    ///
    /// The path is walked one container at a time; the values it passes through are
    /// rebuilt on the way back, so the work is proportional to the path's length and the
    /// sizes of the containers on it.
    ///
    /// - Throws: ``Failure`` saying which component failed.
    func apply(_ edit: Edit, to root: inout PropertyList) throws(Failure) {
        if case .append(let value) = edit {
            try modify(&root, at: components[...]) { (target: inout PropertyList) throws(Failure) in
                guard case .array(var elements) = target else {
                    throw Failure("Value at key path \(text) is not an array; -append needs one")
                }
                elements.append(value)
                target = .array(elements)
            }
            return
        }
        guard let last = components.last else { return }
        try modify(&root, at: components.dropLast()) { (parent: inout PropertyList) throws(Failure) in
            switch parent {
            case .dictionary(var dictionary):
                let existing = dictionary[last]
                switch edit {
                case .insert(let value):
                    if existing != nil { throw Failure("Value already exists at key path \(text)") }
                    dictionary[last] = value
                case .replace(let value):
                    dictionary[last] = value
                case .remove:
                    if existing == nil { throw Failure("No value to remove at key path \(text)") }
                    dictionary.removeValue(forKey: last)
                case .append:
                    return
                }
                parent = .dictionary(dictionary)
            case .array(var elements):
                // The component is text from the command line: its digits may exceed any
                // integer, and are compared with the count only once they are one.
                let outOfBounds =
                    "Index \(last) out of bounds in array of \(elements.count) at key path \(text)"
                switch edit {
                case .insert(let value):
                    let index = try index(last, upTo: elements.count, failing: outOfBounds)
                    elements.insert(value, at: index)
                case .replace(let value):
                    let index = try index(last, upTo: elements.count, failing: outOfBounds)
                    if index == elements.count { elements.append(value) } else { elements[index] = value }
                case .remove:
                    let index = try index(
                        last, upTo: elements.count - 1, failing: "No value to remove at key path \(text)")
                    elements.remove(at: index)
                case .append:
                    return
                }
                parent = .array(elements)
            default:
                throw Failure("Key path not found \(text)")
            }
        }
    }

    /// Calls `body` on the value at `path` below `value`, in place.
    private func modify(
        _ value: inout PropertyList, at path: ArraySlice<String>,
        _ body: (inout PropertyList) throws(Failure) -> Void
    ) throws(Failure) {
        // Iterative descent: collect the containers, edit the innermost, rebuild outwards.
        var chain: [PropertyList] = [value]
        for component in path {
            guard let last = chain.last, let next = Self.child(of: last, component) else {
                throw Failure("Key path not found \(text)")
            }
            chain.append(next)
        }
        guard var target = chain.popLast() else { return }
        try body(&target)
        var child = target
        for component in path.reversed() {
            guard var parent = chain.popLast() else { break }
            switch parent {
            case .dictionary(var dictionary):
                dictionary[component] = child
                parent = .dictionary(dictionary)
            case .array(var elements):
                if let index = Self.index(component), elements.indices.contains(index) {
                    elements[index] = child
                }
                parent = .array(elements)
            default:
                break
            }
            child = parent
        }
        value = child
    }
}
