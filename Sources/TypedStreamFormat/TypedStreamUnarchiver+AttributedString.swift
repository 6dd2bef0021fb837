#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TypedStreamUnarchiver {
    /// `NSAttributedString` / `NSMutableAttributedString` as `NSArchiver` writes them: the
    /// text (`@`, an `NSString`), then per run a group `iI` — the 1-based index of the run's
    /// attribute dictionary and the run's length in UTF-16 code units — followed by the
    /// dictionary (`@`) when the index is one past the dictionaries seen so far.
    func attributedString(mutable: Bool) throws -> ArchivedAttributedString {
        let textValue = try decodeValue(ofObjCType: "@")
        let text: String
        switch textValue {
        case .null: text = ""
        case .object(let index):
            if let fast = try plainString(at: index) {
                text = fast
            } else {
                guard let slow = try typedValue(textValue, as: String.self) else { text = ""; break }
                text = slow
            }
        default: throw failure(.typeMismatch, "the attributed string's text is \(textValue)")
        }
        let length = text.utf16.count
        var tables: [[String: ArchivedAttributeValue]] = []
        var runs: [ArchivedAttributedString.Run] = []
        var location = 0
        while !isAtEnd {
            let pair = try decodeValues(ofObjCTypes: "iI")
            guard pair.count == 2, let rawIndex = pair[0].integerValue, let rawLength = pair[1].integerValue,
                let runLength = Int(exactly: rawLength), runLength >= 0
            else {
                throw failure(.invalidArchive, "a run is not a dictionary index and a length")
            }
            if rawIndex == Int64(tables.count) + 1 {
                tables.append(try attributeDictionary())
            }
            guard rawIndex >= 1, rawIndex <= Int64(tables.count) else {
                throw failure(
                    .invalidArchive, "run attributes #\(rawIndex) do not exist (\(tables.count) so far)")
            }
            guard runLength <= length - location else {
                throw failure(
                    .invalidArchive,
                    "a run of \(runLength) at \(location) passes the end of the text (\(length))")
            }
            runs.append(
                ArchivedAttributedString.Run(
                    range: location..<location + runLength, attributes: tables[Int(rawIndex) - 1]))
            location += runLength
        }
        return ArchivedAttributedString(text, runs: runs, isMutable: mutable)
    }

    /// The next value, an `NSDictionary` of attribute names to values, typed.
    private func attributeDictionary() throws -> [String: ArchivedAttributeValue] {
        let value = try decodeValue(ofObjCType: "@")
        guard case .object(let index) = value, let dictionary = objectGraph.object(at: index) else {
            if case .null = value { return [:] }
            throw failure(.typeMismatch, "run attributes are \(value), not a dictionary")
        }
        guard
            objectGraph.classChain(ofClassAt: dictionary.classIndex, contains: "NSDictionary")
                || objectGraph.classChain(ofClassAt: dictionary.classIndex, contains: "NSMutableDictionary")
        else {
            throw failure(.typeMismatch, "run attributes are a \(dictionary.className), not a dictionary")
        }
        // Read here rather than as a Swift dictionary, to keep each value's object for the
        // ones without a Swift type.
        let values = dictionary.values
        guard values.count & 1 == 1, let count = values.first?.integerValue, count == Int64(values.count / 2)
        else {
            throw failure(.invalidArchive, "the run attributes are not a count and that many entries")
        }
        let members = values.dropFirst()
        var attributes: [String: ArchivedAttributeValue] = [:]
        attributes.reserveCapacity(members.count / 2)
        var iterator = members.makeIterator()
        while let key = iterator.next(), let value = iterator.next() {
            guard case .object(let keyIndex) = key,
                let name = try plainString(at: keyIndex) ?? (try objectValue(keyIndex) as? String)
            else {
                throw failure(.typeMismatch, "a run attribute name is not a string")
            }
            attributes[name] = try attributeValue(value)
        }
        return attributes
    }

    /// A stream value as an attribute value: typed where the keyed reader types it, the
    /// generic graph of the object otherwise.
    func attributeValue(_ value: TypedStreamGraph.Value) throws -> ArchivedAttributeValue {
        guard case .object(let index) = value else {
            if case .null = value { return .null }
            return .object(try keyedGraph(rootedAt: nil, value: value))
        }
        if let text = try plainString(at: index) { return .string(text) }
        if let number = plainNumber(at: index) { return number }
        if let typed = Self.attributeValue(of: try objectValue(index)) { return typed }
        return .object(try keyedGraph(rootedAt: index, value: value))
    }

    /// The text of object `index` if it is an `NSString` or `NSMutableString` of the usual
    /// layout (one group `+`), read without the general machinery; `nil` otherwise.
    func plainString(at index: Int) throws -> String? {
        if let cached = decoded[index] { return cached as? String }
        guard let object = objectGraph.object(at: index), object.groups.count == 1,
            object.className == "NSString" || object.className == "NSMutableString",
            object.groups[0].encoding == "+", case .bytes(let utf8)? = object.groups[0].values.first
        else { return nil }
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw failure(.corruptData, "the NSString #\(index) is not UTF-8")
        }
        decoded[index] = text
        return text
    }

    /// Object `index` as a number attribute if it is an `NSNumber` of the usual layout.
    private func plainNumber(at index: Int) -> ArchivedAttributeValue? {
        guard let object = objectGraph.object(at: index), object.className == "NSNumber",
            object.groups.count == 2,
            object.groups[0].encoding == "*", let value = object.groups[1].values.first,
            object.groups[1].values.count == 1
        else { return nil }
        switch value {
        case .integer(let number): return Int(exactly: number).map { .integer($0) }
        case .unsignedInteger(let number): return Int(exactly: number).map { .integer($0) }
        case .float(let number): return .real(Double(number))
        case .double(let number): return .real(number)
        case .bool(let flag): return .bool(flag)
        default: return nil
        }
    }

    /// A decoded Swift value as a typed attribute value, or `nil` if it has no typed form.
    static func attributeValue(of value: Any?) -> ArchivedAttributeValue? {
        switch value {
        case nil: return .null
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Float: return .real(Double(number))
        case let number as Double: return .real(number)
        case let number as any BinaryInteger: return Int(exactly: number).map { .integer($0) }
        case let bytes as Data: return .data(bytes)
        case let date as Date: return .date(date)
        case let url as URL: return .url(url)
        case let font as ArchivedFont: return .font(font)
        case let color as ArchivedColor: return .color(color)
        case let style as ArchivedParagraphStyle: return .paragraphStyle(style)
        case is ArchivedNull: return .null
        case let array as [Any]:
            var values: [ArchivedAttributeValue] = []
            for element in array {
                guard let typed = attributeValue(of: element) else { return nil }
                values.append(typed)
            }
            return .array(values)
        default: return nil
        }
    }

    /// The stream as an ``ArchivedObjectGraph`` (the keyed reader's generic form), rooted
    /// at object `index`: typedstream node *n* is node *n + 1*, an object's values are its
    /// fields `$0`, `$1`, … in order (the keyed format's unkeyed keys), a class is a class
    /// description.
    func keyedGraph(rootedAt index: Int?, value: TypedStreamGraph.Value) throws -> ArchivedObjectGraph {
        let base = try bridgedGraph()
        let root: ArchivedObjectGraph.Value =
            index.map { Self.keyedValue(.object($0)) } ?? Self.keyedValue(value)
        return base.rooted(at: root)
    }

    private func bridgedGraph() throws -> ArchivedObjectGraph {
        if let bridged { return bridged }
        let graph = objectGraph.archivedObjectGraph()
        bridged = graph
        return graph
    }

    static func keyedValue(_ value: TypedStreamGraph.Value) -> ArchivedObjectGraph.Value {
        TypedStreamGraph.keyedValue(value)
    }
}

extension TypedStreamGraph {
    /// The stream as the keyed reader's generic graph, to inspect and print both formats
    /// alike: node *n* here is node *n + 1* there (node 0 is `$null`), an object's values
    /// are its fields `$0`, `$1`, … in stream order (the keyed format's unkeyed keys), a
    /// class is a class description, a C string a string; ``root`` is `$top.root`, and the
    /// other top-level values follow it as `$1`, `$2`, … An `NSColor`, `NSFont` or
    /// paragraph style also has the fields a keyed archive gives the same value
    /// (`NSColorSpace` and `NSRGB`, `NSName` and `NSSize`, `NSAlignment`, …), so that it is
    /// summarized as in keyed archives. A C string, atom or selector longer than
    /// ``ArchivedObjectGraph/longestRepeatedValue`` bytes is a reference to one node of its
    /// text (the C string's node; for atoms and selectors, a node after the stream's), so
    /// that a long string referenced from many places is held and rendered once.
    ///
    /// - Returns: The graph.
    /// - Complexity: O(nodes + values).
    public func archivedObjectGraph() -> ArchivedObjectGraph {
        var nodes: [ArchivedObjectGraph.Node] = [.null]
        nodes.reserveCapacity(self.nodes.count + 1)
        // Built once per class and shared by its objects: a stream of K classes and N
        // objects costs O(K + N) chains, not O(K × (K + N)) names.
        let chains = classChainNames()
        var bridge = KeyedValueBridge(graph: self)
        for node in self.nodes {
            switch node {
            case .object(let object):
                let chain = chains.indices.contains(object.classIndex) ? chains[object.classIndex] ?? [] : []
                var fields: [ArchivedObjectGraph.Field] = []
                fields.reserveCapacity(object.groups.count)
                var position = 0
                for group in object.groups {
                    for value in group.values {
                        fields.append(
                            ArchivedObjectGraph.Field(key: "$\(position)", value: bridge.value(value)))
                        position += 1
                    }
                }
                switch object.className {
                case "NSColor", "NSFont", "NSParagraphStyle", "NSMutableParagraphStyle":
                    fields += keyedEquivalentFields(of: object)
                default: break
                }
                nodes.append(
                    .object(
                        ArchivedObjectGraph.Object(
                            className: object.className, classChain: chain, fields: fields)))
            case .class(let found):
                let chain = chains[nodes.count - 1] ?? [found.name]
                nodes.append(
                    .classDescription(
                        ArchivedObjectGraph.ClassDescription(className: found.name, classChain: chain)))
            case .cString(let bytes):
                nodes.append(.value(.string(String(decoding: bytes, as: UTF8.self))))
            }
        }
        let rootValue = root.map { bridge.value($0) }
        var topLevel = rootValue.map { [ArchivedObjectGraph.Field(key: "root", value: $0)] } ?? []
        // A stream of several top-level values (a colour list: "i", "@i", then "@@" per
        // colour) shows them all, in order, as `$1`, `$2`, …; a graph about one object
        // (an object decoded generically) shows that object alone.
        let values = contents.lazy.flatMap(\.values)
        if root != nil, root == values.first {
            for (position, value) in values.enumerated().dropFirst() {
                topLevel.append(ArchivedObjectGraph.Field(key: "$\(position)", value: bridge.value(value)))
            }
        }
        nodes += bridge.addedNodes
        var counts = [Int](repeating: 0, count: nodes.count)
        for reference in topLevel.flatMap({ ArchivedObjectGraph.Node.value($0.value).references })
            + nodes.flatMap(\.references)
        where counts.indices.contains(reference) {
            counts[reference] += 1
        }
        return ArchivedObjectGraph(
            nodes: nodes, topLevel: topLevel, root: rootValue, referenceCounts: counts,
            cyclic: ArchiveGraphBuilder.cyclicNodes(nodes))
    }

    /// Stream values as keyed values for ``archivedObjectGraph()``. A C string, atom or
    /// selector longer than ``ArchivedObjectGraph/longestRepeatedValue`` bytes becomes a
    /// reference to one node holding its text — the C string's own node, or a node added
    /// after the stream's — so that a long string referenced from thousands of places is
    /// one string in memory and, as in keyed archives, rendered once.
    struct KeyedValueBridge {
        /// Nodes for long atoms and selectors, which have no node in the stream.
        private(set) var addedNodes: [ArchivedObjectGraph.Node] = []
        private var interned: [LongBytesKey: Int] = [:]
        private let firstAddedNode: Int

        init(graph: TypedStreamGraph) {
            firstAddedNode = graph.nodes.count + 1
            for (index, node) in graph.nodes.enumerated() {
                guard case .cString(let bytes) = node, bytes.count > ArchivedObjectGraph.longestRepeatedValue
                else { continue }
                let key = LongBytesKey(bytes)
                if interned[key] == nil { interned[key] = index + 1 }
            }
        }

        mutating func value(_ value: TypedStreamGraph.Value) -> ArchivedObjectGraph.Value {
            switch value {
            case .cString(let bytes), .atom(let bytes), .selector(let bytes):
                guard bytes.count > ArchivedObjectGraph.longestRepeatedValue else {
                    return TypedStreamGraph.keyedValue(value)
                }
                let key = LongBytesKey(bytes)
                if let node = interned[key] { return .reference(node) }
                let node = firstAddedNode + addedNodes.count
                addedNodes.append(.value(.string(String(decoding: bytes, as: UTF8.self))))
                interned[key] = node
                return .reference(node)
            case .array(let values), .structure(_, fields: let values):
                var converted: [ArchivedObjectGraph.Value] = []
                converted.reserveCapacity(values.count)
                for element in values { converted.append(self.value(element)) }
                return .array(converted)
            default:
                return TypedStreamGraph.keyedValue(value)
            }
        }
    }

    static func keyedValue(_ value: TypedStreamGraph.Value) -> ArchivedObjectGraph.Value {
        switch value {
        case .integer(let number): return .integer(PropertyListInteger(number))
        case .unsignedInteger(let number): return .integer(PropertyListInteger(number))
        case .bool(let flag): return .bool(flag)
        case .float(let number): return .real(Double(number))
        case .double(let number): return .real(number)
        case .cString(let bytes), .bytes(let bytes), .atom(let bytes), .selector(let bytes):
            return .string(String(decoding: bytes, as: UTF8.self))
        case .object(let index), .class(let index):
            // Node n is n + 1 there; an index no graph can hold refers to nothing.
            return index < Int.max ? .reference(index + 1) : .null
        case .null: return .null
        case .byteArray(let bytes): return .data(bytes)
        case .array(let values): return .array(values.map(keyedValue))
        case .structure(_, let fields): return .array(fields.map(keyedValue))
        }
    }
}
