#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedUnarchiver {
    /// Reads a whole keyed archive as a generic object graph, whatever its classes,
    /// without constructing any Swift type: for inspecting archives from unknown sources.
    ///
    /// ```swift
    /// let graph = try KeyedUnarchiver.objectGraph(from: data)
    /// print(graph)
    /// ```
    ///
    /// - Parameters:
    ///   - data: A keyed archive in binary or XML property-list form.
    ///   - options: Limits for reading; the defaults are safe for untrusted input.
    /// - Returns: The graph; its ``ArchivedObjectGraph/root`` is `$top["root"]`.
    /// - Throws: ``KeyedArchiveError``: the errors of ``init(forReadingFrom:options:)``,
    ///   or `invalidArchive` (located at `$objects[n]`) for an object without a valid
    ///   class description or a reference out of range.
    /// - Complexity: O(*n*) in the size of the archive.
    public static func objectGraph(
        from data: Data, options: KeyedUnarchivingOptions = KeyedUnarchivingOptions()
    ) throws -> ArchivedObjectGraph {
        try KeyedUnarchiver(forReadingFrom: data, options: options).objectGraph()
    }

    /// Reads a keyed archive that is already a property-list value as a generic object graph.
    ///
    /// - Parameters:
    ///   - propertyList: The archive's root dictionary.
    ///   - options: Limits for reading.
    /// - Returns: The graph.
    /// - Throws: ``KeyedArchiveError`` as ``objectGraph(from:options:)-(Data,_)``.
    public static func objectGraph(
        from propertyList: PropertyList, options: KeyedUnarchivingOptions = KeyedUnarchivingOptions()
    ) throws -> ArchivedObjectGraph {
        try KeyedUnarchiver(propertyList: propertyList, options: options).objectGraph()
    }

    /// The whole archive this unarchiver reads, as a generic object graph.
    ///
    /// - Returns: The graph; its ``ArchivedObjectGraph/root`` is `$top["root"]`.
    /// - Throws: ``KeyedArchiveError`` as ``objectGraph(from:options:)-(Data,_)``.
    public func objectGraph() throws -> ArchivedObjectGraph {
        if let genericGraph { return genericGraph.rooted(at: genericGraph.topLevelValue(forKey: "root")) }
        // Called on its own, building the graph is an operation with its own budget;
        // from inside a decode, it shares that decode's.
        if depth == 0 { source.beginOperation() }
        var builder = ArchiveGraphBuilder(source: source, recovering: currentOptions.recoversFromDamage)
        let graph = try builder.build()
        genericGraph = graph
        return graph
    }

    /// The object at `uid` as a generic graph rooted at it.
    package func genericObject(at uid: Int) throws -> ArchivedObjectGraph {
        do {
            return try objectGraph().rooted(at: .reference(uid))
        } catch let error as KeyedArchiveError {
            throw located(error)
        }
    }
}

/// Builds an ``ArchivedObjectGraph`` from every entry of `$objects`, iteratively.
package struct ArchiveGraphBuilder {
    let source: BinaryArchiveSource
    private var classes: [Int: ClassDescription] = [:]
    /// Whether problems are recorded and worked around instead of thrown
    /// (``KeyedUnarchivingOptions/recoversFromDamage``).
    let recovering: Bool
    /// The problems worked around, at most ``maximumProblems`` of them.
    private var problems: [KeyedArchiveError] = []
    private var unrecordedProblems = 0
    static let maximumProblems = 10_000
    /// The conversions of the plain arrays and dictionaries of the entry being converted,
    /// by their storage: a subtree the reader shares (a binary object referenced from
    /// several places) is converted once and shared in the graph too, and a problem inside
    /// it (when recovering) is listed once, at its first place. Emptied after each entry,
    /// whose value keeps those storages alive meanwhile.
    private var convertedContainers: [StorageIdentity: ArchivedObjectGraph.Value] = [:]
    /// The values converted for the entry so far. Containers are looked up in and added to
    /// ``convertedContainers`` only past ``sharingThreshold`` of them: an entry that small
    /// costs little however it is shared, and the usual entries (an object's fields, a list
    /// of references) then pay no hashing (1.6% of building a 3,400-object graph).
    private var convertedInEntry = 0
    static let sharingThreshold = 4096

    init(source: BinaryArchiveSource, recovering: Bool = false) {
        self.source = source
        self.recovering = recovering
        if recovering { problems = source.headerNotes }
    }

    /// Records `error` when recovering, or throws it.
    private mutating func recover(_ error: KeyedArchiveError) throws {
        guard recovering else { throw error }
        if problems.count < Self.maximumProblems {
            problems.append(error)
        } else {
            unrecordedProblems += 1
        }
    }

    mutating func build() throws -> ArchivedObjectGraph {
        let count = source.objectCount
        var nodes: [ArchivedObjectGraph.Node] = [.null]
        nodes.reserveCapacity(count)
        for uid in 1..<max(1, count) {
            convertedInEntry = 0
            nodes.append(try node(at: uid))
            if !convertedContainers.isEmpty { convertedContainers.removeAll(keepingCapacity: true) }
        }
        var topLevel: [ArchivedObjectGraph.Field] = []
        convertedInEntry = 0
        for (key, value) in source.top {
            topLevel.append(
                ArchivedObjectGraph.Field(
                    key: archiveUnescapedKey(key), value: try convert(value, at: "$top.\(key)")))
        }
        convertedContainers = [:]
        var counts = [Int](repeating: 0, count: nodes.count)
        var references: [Int] = []
        for field in topLevel { field.value.collectReferences(into: &references) }
        for node in nodes { node.collectReferences(into: &references) }
        for uid in references where counts.indices.contains(uid) { counts[uid] += 1 }
        let root = topLevel.first { $0.key == KeyedArchiver.rootObjectKey }?.value
        if unrecordedProblems > 0 {
            problems.append(
                KeyedArchiveError(.invalidArchive, "\(unrecordedProblems) more problems not listed"))
        }
        return ArchivedObjectGraph(
            nodes: nodes, topLevel: topLevel, root: root, referenceCounts: counts,
            cyclic: Self.cyclicNodes(nodes), problems: problems)
    }

    /// The class name of an object whose `$class` cannot be read, when recovering.
    static let unknownClassName = "(unknown class)"
    /// The class name of an `$objects` entry that cannot be read, when recovering.
    static let unreadableClassName = "(unreadable)"

    private mutating func node(at uid: Int) throws -> ArchivedObjectGraph.Node {
        let location = "$objects[\(uid)]"
        let entry: PropertyList
        do {
            entry = try source.object(at: uid)
        } catch var error as KeyedArchiveError {
            guard recovering else { throw error }
            if error.location == nil { error.location = .keyPath(location) }
            try recover(error)
            return .object(
                ArchivedObjectGraph.Object(
                    className: Self.unreadableClassName, classChain: [],
                    fields: [ArchivedObjectGraph.Field(key: "error", value: .string(error.description))]))
        }
        guard case .dictionary(let fields) = entry else {
            return .value(try convert(entry, at: location))
        }
        guard let classReference = fields["$class"] else {
            if fields["$classname"] != nil {
                do {
                    return .classDescription(try classDescription(at: uid, location: location).archivedClass)
                } catch let error as KeyedArchiveError where recovering {
                    try recover(error)
                    return .value(try convert(entry, at: location))
                }
            }
            try recover(
                KeyedArchiveError(
                    .invalidArchive, "a dictionary without $class or $classname", at: .keyPath(location)))
            return .value(try convert(entry, at: location))
        }
        var className = Self.unknownClassName
        var classChain: [String] = []
        var classHints: [String] = []
        if case .uid(let rawClass) = classReference, let classUID = Int(exactly: rawClass),
            classUID > 0, classUID < source.objectCount
        {
            do {
                let description = try classDescription(at: classUID, location: "\(location).$class")
                (className, classChain, classHints) = (description.name, description.chain, description.hints)
            } catch let error as KeyedArchiveError where recovering {
                try recover(error)
            }
        } else {
            try recover(
                KeyedArchiveError(
                    .invalidArchive,
                    "$class is \(classReference.archivedKindName), not a reference to a class description",
                    at: .keyPath("\(location).$class")))
        }
        var objectFields: [ArchivedObjectGraph.Field] = []
        objectFields.reserveCapacity(fields.count - 1)
        for (key, value) in fields where key != "$class" {
            let unescaped = archiveUnescapedKey(key)
            objectFields.append(
                ArchivedObjectGraph.Field(
                    key: unescaped, value: try convert(value, at: "\(location).\(unescaped)")))
        }
        return .object(
            ArchivedObjectGraph.Object(
                className: className, classChain: classChain, classHints: classHints, fields: objectFields))
    }

    private mutating func classDescription(at uid: Int, location: String) throws -> ClassDescription {
        if let known = classes[uid] { return known }
        do {
            let description = try ClassDescription(parsing: source.object(at: uid), uid: uid)
            classes[uid] = description
            return description
        } catch var error as KeyedArchiveError {
            if error.location == nil { error.location = .keyPath(location) }
            throw error
        }
    }

    /// Converts a property-list value of `$objects` to an `ArchivedObjectGraph.Value`, checking
    /// references. Depth is bounded by the property-list reader's nesting limit.
    private mutating func convert(_ value: PropertyList, at location: String) throws
        -> ArchivedObjectGraph.Value
    {
        var path: [String] = []
        return try convert(value, at: location, path: &path)
    }

    /// `value` as an archived value; `path` holds the components below `location`, which
    /// are rendered only for an error (rendering one per element cost more than converting).
    private mutating func convert(_ value: PropertyList, at location: String, path: inout [String]) throws
        -> ArchivedObjectGraph.Value
    {
        convertedInEntry += 1
        switch value {
        case .uid(let raw):
            guard let uid = Int(exactly: raw), uid < source.objectCount else {
                try recover(
                    KeyedArchiveError(
                        .invalidArchive,
                        "object reference \(raw) is out of range (\(source.objectCount) objects)",
                        at: .keyPath(location + path.joined())))
                // Kept as a reference to a missing object, which renderings show as such.
                return .reference(Int(clamping: raw))
            }
            return uid == 0 ? .null : .reference(uid)
        case .string(let text): return .string(text)
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .bool(let flag): return .bool(flag)
        case .date(let date): return .date(date)
        case .data(let data): return .data(data)
        case .array, .dictionary:
            // Plain values nest as deep as the reader allowed: stop while stack is left.
            if path.count >= StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
                throw KeyedArchiveError(
                    .limitExceeded, StackHeadroom.message(depth: path.count),
                    at: .keyPath(location + path.joined()))
            }
            // A container met before in this entry (the same storage: the reader shares a
            // binary object referenced several times) is converted once; a 218-byte archive
            // whose entry holds a 2^19-leaf bomb built a million values (250 MB) without this.
            guard convertedInEntry > Self.sharingThreshold else {
                return try convertContainer(value, at: location, path: &path)
            }
            let identity = StorageIdentity(value)
            if let identity, let converted = convertedContainers[identity] { return converted }
            let converted = try convertContainer(value, at: location, path: &path)
            if let identity { convertedContainers[identity] = converted }
            return converted
        }
    }

    /// A plain array or dictionary as an archived value (its elements converted).
    private mutating func convertContainer(
        _ value: PropertyList, at location: String, path: inout [String]
    ) throws -> ArchivedObjectGraph.Value {
        if case .array(let elements) = value {
            var converted: [ArchivedObjectGraph.Value] = []
            converted.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                path.append("[\(index)]")
                defer { path.removeLast() }
                converted.append(try convert(element, at: location, path: &path))
            }
            return .array(converted)
        }
        guard case .dictionary(let dictionary) = value else { return .null }
        var fields: [ArchivedObjectGraph.Field] = []
        fields.reserveCapacity(dictionary.count)
        for (key, element) in dictionary {
            path.append(".\(key)")
            defer { path.removeLast() }
            fields.append(
                ArchivedObjectGraph.Field(
                    key: key, value: try convert(element, at: location, path: &path)))
        }
        return .dictionary(fields)
    }

    /// Marks the nodes that lie on a reference cycle: members of a strongly connected
    /// component with more than one node, or nodes that refer to themselves (Tarjan's
    /// algorithm, iteratively).
    package static func cyclicNodes(_ nodes: [ArchivedObjectGraph.Node]) -> [Bool] {
        let count = nodes.count
        let edges: [[Int]] = nodes.map { node in node.references.filter { $0 > 0 && $0 < count } }
        var order = [Int](repeating: -1, count: count)
        var lowLink = [Int](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var cyclic = [Bool](repeating: false, count: count)
        var stack: [Int] = []
        var counter = 0
        for start in 0..<count where order[start] == -1 {
            var work: [(node: Int, edge: Int)] = [(start, 0)]
            order[start] = counter
            lowLink[start] = counter
            counter += 1
            stack.append(start)
            onStack[start] = true
            while let (node, edge) = work.last {
                if edge < edges[node].count {
                    work[work.count - 1].edge = edge + 1
                    let next = edges[node][edge]
                    if order[next] == -1 {
                        order[next] = counter
                        lowLink[next] = counter
                        counter += 1
                        stack.append(next)
                        onStack[next] = true
                        work.append((next, 0))
                    } else if onStack[next] {
                        lowLink[node] = min(lowLink[node], order[next])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last?.node { lowLink[parent] = min(lowLink[parent], lowLink[node]) }
                guard lowLink[node] == order[node] else { continue }
                var component: [Int] = []
                while let member = stack.popLast() {
                    onStack[member] = false
                    component.append(member)
                    if member == node { break }
                }
                if component.count > 1 {
                    for member in component { cyclic[member] = true }
                } else if edges[node].contains(node) {
                    cyclic[node] = true
                }
            }
        }
        return cyclic
    }
}
