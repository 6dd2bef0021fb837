#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds an ``ArchivedObjectGraph`` from every entry of `$objects`, iteratively.
///
/// Most entries are read in place, straight from the binary property list's bytes (see
/// ``inPlaceNode(at:scanner:)``): an object whose fields are scalars, references and lists of
/// them, a class description, a string or a number. Every other entry, and every entry with
/// something wrong in it, takes the general way: materialized as a ``PropertyList`` and
/// converted, which says what is wrong and where. Key paths for messages (such as
/// `$objects[12].items[3]`) are rendered only for an error.
package struct ArchiveGraphBuilder {
    let source: BinaryArchiveSource
    /// The class descriptions read, the first ``recentClassLimit`` in `recentClasses`
    /// (see ``rememberClass(_:)``), the others in `classes`.
    private var recentClasses: [ClassDescription] = []
    private var classes: [Int: ClassDescription] = [:]
    private static let recentClassLimit = 16
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
    /// The entries read in place so far, whose values were counted against the
    /// operation's budget (as the general way counts an entry once, when it first
    /// materializes it); empty until the first in-place read.
    private var countedInPlace: [Bool] = []
    /// Whether entries may be read in place: the in-place reading opens two levels of
    /// containers (an entry's dictionary and a list in it), which the depth limit must allow.
    private let readsInPlace: Bool

    init(source: BinaryArchiveSource, recovering: Bool = false) {
        self.source = source
        self.recovering = recovering
        self.readsInPlace = source.readingOptions.maximumDepth >= 2
        if recovering { problems = source.headerNotes }
    }

    /// Where a value being converted lies: rendered as a key path (`$objects[12].items`,
    /// `$top.root`) only for an error message, since rendering one per field cost more
    /// than converting it.
    private struct Location {
        /// The `$objects` index, or -1 for `$top`.
        let uid: Int
        /// The field key (unescaped) or `$top` key, if the value is below the entry.
        let key: String?

        var keyPath: String {
            guard uid >= 0 else { return "$top.\(key ?? "")" }
            guard let key else { return "$objects[\(uid)]" }
            return "$objects[\(uid)].\(key)"
        }

        /// The location of the field `key` of the same entry.
        func field(_ key: String) -> Location { Location(uid: uid, key: key) }
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
        // One scanner over the input for every entry, read in place or materialized.
        try source.withInput {
            try source.withScanner { scanner in try buildGraph(scanner: scanner) }
        }
    }

    private mutating func buildGraph(scanner: BinaryPropertyListScanner) throws -> ArchivedObjectGraph {
        let count = source.objectCount
        var nodes: [ArchivedObjectGraph.Node] = [.null]
        nodes.reserveCapacity(count)
        for uid in 1..<max(1, count) {
            if readsInPlace, let node = inPlaceNode(at: uid, scanner: scanner) {
                nodes.append(node)
                continue
            }
            convertedInEntry = 0
            nodes.append(try node(at: uid))
            if !convertedContainers.isEmpty { convertedContainers.removeAll(keepingCapacity: true) }
        }
        var topLevel: [ArchivedObjectGraph.Field] = []
        convertedInEntry = 0
        for (key, value) in source.top {
            topLevel.append(
                ArchivedObjectGraph.Field(
                    key: archiveUnescapedKey(key), value: try convert(value, at: Location(uid: -1, key: key)))
            )
        }
        convertedContainers = [:]
        // Reference counts, and whether any reference points back (to its own node or an
        // earlier one): without one, no node can lie on a cycle and the search is skipped.
        var counts = [Int](repeating: 0, count: nodes.count)
        for field in topLevel {
            field.value.forEachReference { uid in
                if uid >= 0 && uid < counts.count { counts[uid] += 1 }
            }
        }
        var pointsBack = false
        for uid in nodes.indices {
            nodes[uid].forEachReference { target in
                guard target >= 0 && target < counts.count else { return }
                counts[target] += 1
                if target > 0 && target <= uid { pointsBack = true }
            }
        }
        let root = topLevel.first { $0.key == KeyedArchiver.rootObjectKey }?.value
        if unrecordedProblems > 0 {
            problems.append(
                KeyedArchiveError(.invalidArchive, "\(unrecordedProblems) more problems not listed"))
        }
        return ArchivedObjectGraph(
            nodes: nodes, topLevel: topLevel, root: root, referenceCounts: counts,
            cyclic: pointsBack ? Self.cyclicNodes(nodes) : [Bool](repeating: false, count: nodes.count),
            problems: problems)
    }

    /// The class name of an object whose `$class` cannot be read, when recovering.
    static let unknownClassName = "(unknown class)"
    /// The class name of an `$objects` entry that cannot be read, when recovering.
    static let unreadableClassName = "(unreadable)"

    // MARK: Entries read in place

    /// Entry `uid` read straight from the bytes, when it is an object whose fields are
    /// scalars, references in range and arrays of those, with a class description read the
    /// same way; a class description; or a scalar. `nil` for anything else, and for
    /// anything wrong (a key that is not a string, a repeated key, a reference out of
    /// range, a budget that would run out), which ``node(at:)`` then reads the general way
    /// and reports: nothing is recorded or counted before the entry is known to be good.
    ///
    /// The values are counted against the operation's budget as materializing the entry
    /// would count them (one per value and per key, a list's elements each time the list
    /// is referenced).
    private mutating func inPlaceNode(at uid: Int, scanner: BinaryPropertyListScanner) -> ArchivedObjectGraph
        .Node?
    {
        guard let object = try? source.entryObject(uid, scanner: scanner) else { return nil }
        guard object.kind == .dictionary else {
            if object.kind.isContainer { return nil }
            guard let value = Self.inPlaceScalar(object, scanner: scanner, objectCount: source.objectCount),
                countValues(1, ofEntry: uid)
            else { return nil }
            return .value(value)
        }
        if let (fields, classUID, cost) = Self.inPlaceObjectFields(
            object, scanner: scanner, objectCount: source.objectCount)
        {
            guard let description = inPlaceClassDescription(at: classUID, scanner: scanner),
                countValues(cost, ofEntry: uid)
            else { return nil }
            return .object(
                ArchivedObjectGraph.Object(
                    className: description.name, classChain: description.chain, classHints: description.hints,
                    fields: fields))
        }
        // A class description: read before in place (for an object of its class: no
        // `$class` among its keys, then), or now.
        if uid < countedInPlace.count, countedInPlace[uid], let known = knownClass(uid) {
            return .classDescription(known.archivedClass)
        }
        guard let description = inPlaceClassDescription(at: uid, scanner: scanner, known: false) else {
            return nil
        }
        return .classDescription(description.archivedClass)
    }

    /// The class description at `uid`, known (unless `known` is false) or read in place;
    /// `nil` when it does not read so (the general way then reads the referring object, or
    /// the entry, and reports the problem).
    private mutating func inPlaceClassDescription(
        at uid: Int, scanner: BinaryPropertyListScanner, known: Bool = true
    ) -> ClassDescription? {
        if known, let description = knownClass(uid) { return description }
        guard uid > 0, let object = try? source.entryObject(uid, scanner: scanner),
            object.kind == .dictionary,
            let (description, cost) = Self.inPlaceClassDescription(object, uid: uid, scanner: scanner),
            countValues(cost, ofEntry: uid)
        else { return nil }
        if knownClass(uid) == nil { rememberClass(description) }
        return description
    }

    /// The class description read for `uid`, if any.
    @inline(__always)
    private func knownClass(_ uid: Int) -> ClassDescription? {
        for description in recentClasses where description.uid == uid { return description }
        return classes.isEmpty ? nil : classes[uid]
    }

    /// Keeps `description` for the objects of its class: the first few in a list searched
    /// in order (an archive usually has a handful of classes, and a list costs less than
    /// hashing), the others in ``classes``.
    private mutating func rememberClass(_ description: ClassDescription) {
        if recentClasses.count < Self.recentClassLimit {
            recentClasses.append(description)
        } else {
            classes[description.uid] = description
        }
    }

    /// Counts `cost` values of entry `uid` against the operation's budget, unless the entry
    /// was counted before; `false` (nothing counted) when the budget would run out.
    private mutating func countValues(_ cost: Int, ofEntry uid: Int) -> Bool {
        if countedInPlace.isEmpty { countedInPlace = [Bool](repeating: false, count: source.objectCount) }
        guard uid < countedInPlace.count else { return false }
        if countedInPlace[uid] { return true }
        guard source.spend(cost) else { return false }
        countedInPlace[uid] = true
        return true
    }

    /// The most fields an object read in place may have (the check for repeated keys
    /// compares each key with those before it).
    private static let inPlaceFieldLimit = 64

    /// The fields of the object entry `object`, in their order, keys unescaped and
    /// `$class` left out; the index of its class description; and the values materializing
    /// the entry would count. `nil` unless `$class` is a reference to a later or earlier
    /// entry (not `$null`), every key is a string, the keys are distinct, and every value
    /// is a scalar, a reference in range, or an array (or set) of those.
    private static func inPlaceObjectFields(
        _ object: BinaryPropertyListObject, scanner: BinaryPropertyListScanner, objectCount: Int
    ) -> (fields: [ArchivedObjectGraph.Field], classUID: Int, cost: Int)? {
        let count = object.count
        guard count > 0, count <= inPlaceFieldLimit else { return nil }
        var fields: [ArchivedObjectGraph.Field] = []
        fields.reserveCapacity(count - 1)
        var classUID = 0
        // The dictionary, and a key and a value per entry.
        var cost = 1 + 2 * count
        let classKey: StaticString = "$class"
        let classKeyBytes = UnsafeBufferPointer(start: classKey.utf8Start, count: classKey.utf8CodeUnitCount)
        for position in 0..<count {
            guard let keyObject = try? scanner.object(scanner.reference(object, at: position)),
                let valueObject = try? scanner.object(scanner.reference(object, at: count + position))
            else { return nil }
            if scanner.asciiStringEquals(keyObject, classKeyBytes) {
                guard classUID == 0, valueObject.kind == .uid,
                    case .reference(let uid)? = inPlaceScalar(
                        valueObject, scanner: scanner, objectCount: objectCount)
                else { return nil }
                classUID = uid
                continue
            }
            guard keyObject.kind == .asciiString || keyObject.kind == .utf16String,
                var key = try? scanner.string(keyObject)
            else { return nil }
            // A UTF-16 `$class` is `$class` all the same: the general way decides.
            if keyObject.kind == .utf16String && key == "$class" { return nil }
            if isEscaped(key) { key = archiveUnescapedKey(key) }
            // Repeated keys (the last value wins, in the first key's place) take the general
            // way; so do `$$x` and `$x` together, which unescape alike.
            for earlier in fields where earlier.key == key { return nil }
            let value: ArchivedObjectGraph.Value
            if valueObject.kind.isContainer {
                guard let list = inPlaceList(valueObject, scanner: scanner, objectCount: objectCount) else {
                    return nil
                }
                cost += valueObject.count
                value = list
            } else {
                guard let scalar = inPlaceScalar(valueObject, scanner: scanner, objectCount: objectCount)
                else {
                    return nil
                }
                value = scalar
            }
            fields.append(ArchivedObjectGraph.Field(key: key, value: value))
        }
        guard classUID > 0 else { return nil }
        return (fields, classUID, cost)
    }

    /// Whether `key` starts with `$$` (an archived key that starts with `$`, escaped).
    @inline(__always)
    private static func isEscaped(_ key: String) -> Bool {
        var bytes = key.utf8.makeIterator()
        return bytes.next() == 0x24 && bytes.next() == 0x24
    }

    /// An array or set of scalars and references in range, as a graph value; `nil` for a
    /// dictionary, and for an array holding a container or anything that does not read.
    private static func inPlaceList(
        _ object: BinaryPropertyListObject, scanner: BinaryPropertyListScanner, objectCount: Int
    ) -> ArchivedObjectGraph.Value? {
        guard object.kind == .array || object.kind == .set else { return nil }
        var elements: [ArchivedObjectGraph.Value] = []
        elements.reserveCapacity(object.count)
        for element in 0..<object.count {
            guard let elementObject = try? scanner.object(scanner.reference(object, at: element)),
                !elementObject.kind.isContainer,
                let converted = inPlaceScalar(elementObject, scanner: scanner, objectCount: objectCount)
            else { return nil }
            elements.append(converted)
        }
        return .array(elements)
    }

    /// A scalar object as a graph value, as ``convert(_:at:path:)`` converts it; `nil` for
    /// a reference out of range or a scalar that does not read.
    private static func inPlaceScalar(
        _ object: BinaryPropertyListObject, scanner: BinaryPropertyListScanner, objectCount: Int
    ) -> ArchivedObjectGraph.Value? {
        guard let scalar = try? scanner.scalar(object) else { return nil }
        switch scalar {
        case .uid(let raw):
            guard let uid = Int(exactly: raw), uid < objectCount else { return nil }
            return uid == 0 ? .null : .reference(uid)
        case .string(let text): return .string(text)
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .bool(let flag): return .bool(flag)
        case .date(let date): return .date(date)
        case .data(let data): return .data(data)
        case .array, .dictionary: return nil
        }
    }

    /// The class description entry `object` (`$objects[uid]`) read in place, as
    /// ``ClassDescription/init(parsing:uid:)`` reads it, and the values materializing it
    /// would count; `nil` unless it holds `$classname` (a string) and perhaps `$classes`
    /// and `$classhints` (arrays of strings), and nothing else.
    private static func inPlaceClassDescription(
        _ object: BinaryPropertyListObject, uid: Int, scanner: BinaryPropertyListScanner
    ) -> (ClassDescription, cost: Int)? {
        let count = object.count
        guard count > 0, count <= 3 else { return nil }
        var name: String?
        var chain: [String]?
        var hints: [String]?
        var cost = 1 + 2 * count
        for position in 0..<count {
            guard let keyObject = try? scanner.object(scanner.reference(object, at: position)),
                keyObject.kind == .asciiString || keyObject.kind == .utf16String,
                let key = try? scanner.string(keyObject),
                let valueObject = try? scanner.object(scanner.reference(object, at: count + position))
            else { return nil }
            switch key {
            case "$classname":
                guard name == nil, valueObject.kind == .asciiString || valueObject.kind == .utf16String,
                    let text = try? scanner.string(valueObject)
                else { return nil }
                name = text
            case "$classes":
                guard chain == nil, let names = names(valueObject, scanner: scanner) else { return nil }
                cost += valueObject.count
                chain = names
            case "$classhints":
                guard hints == nil, let names = names(valueObject, scanner: scanner) else { return nil }
                cost += valueObject.count
                hints = names
            default:
                return nil
            }
        }
        guard let name else { return nil }
        return (ClassDescription(uid: uid, name: name, chain: chain ?? [name], hints: hints ?? []), cost)
    }

    /// The strings of an array or set of strings; `nil` for anything else.
    private static func names(_ object: BinaryPropertyListObject, scanner: BinaryPropertyListScanner)
        -> [String]?
    {
        guard object.kind == .array || object.kind == .set else { return nil }
        var names: [String] = []
        names.reserveCapacity(object.count)
        for element in 0..<object.count {
            guard let elementObject = try? scanner.object(scanner.reference(object, at: element)),
                elementObject.kind == .asciiString || elementObject.kind == .utf16String,
                let name = try? scanner.string(elementObject)
            else { return nil }
            names.append(name)
        }
        return names
    }

    // MARK: Entries read the general way

    private mutating func node(at uid: Int) throws -> ArchivedObjectGraph.Node {
        let location = Location(uid: uid, key: nil)
        let entry: PropertyList
        do {
            entry = try source.object(at: uid)
        } catch var error as KeyedArchiveError {
            guard recovering else { throw error }
            if error.location == nil { error.location = .keyPath(location.keyPath) }
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
                    .invalidArchive, "a dictionary without $class or $classname",
                    at: .keyPath(location.keyPath)))
            return .value(try convert(entry, at: location))
        }
        var className = Self.unknownClassName
        var classChain: [String] = []
        var classHints: [String] = []
        if case .uid(let rawClass) = classReference, let classUID = Int(exactly: rawClass),
            classUID > 0, classUID < source.objectCount
        {
            do {
                let description = try classDescription(at: classUID, location: location.field("$class"))
                (className, classChain, classHints) = (description.name, description.chain, description.hints)
            } catch let error as KeyedArchiveError where recovering {
                try recover(error)
            }
        } else {
            try recover(
                KeyedArchiveError(
                    .invalidArchive,
                    "$class is \(classReference.archivedKindName), not a reference to a class description",
                    at: .keyPath(location.field("$class").keyPath)))
        }
        var objectFields: [ArchivedObjectGraph.Field] = []
        objectFields.reserveCapacity(fields.count - 1)
        for (key, value) in fields where key != "$class" {
            let unescaped = archiveUnescapedKey(key)
            objectFields.append(
                ArchivedObjectGraph.Field(
                    key: unescaped, value: try convert(value, at: location.field(unescaped))))
        }
        return .object(
            ArchivedObjectGraph.Object(
                className: className, classChain: classChain, classHints: classHints, fields: objectFields))
    }

    private mutating func classDescription(at uid: Int, location: Location) throws -> ClassDescription {
        if let known = knownClass(uid) { return known }
        do {
            let description = try ClassDescription(parsing: source.object(at: uid), uid: uid)
            rememberClass(description)
            return description
        } catch var error as KeyedArchiveError {
            if error.location == nil { error.location = .keyPath(location.keyPath) }
            throw error
        }
    }

    /// Converts a property-list value of `$objects` to an `ArchivedObjectGraph.Value`, checking
    /// references. Depth is bounded by the property-list reader's nesting limit.
    private mutating func convert(_ value: PropertyList, at location: Location) throws
        -> ArchivedObjectGraph.Value
    {
        var path: [String] = []
        return try convert(value, at: location, path: &path)
    }

    /// `value` as an archived value; `path` holds the components below `location`, which
    /// are rendered only for an error (rendering one per element cost more than converting).
    private mutating func convert(_ value: PropertyList, at location: Location, path: inout [String]) throws
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
                        at: .keyPath(location.keyPath + path.joined())))
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
                    at: .keyPath(location.keyPath + path.joined()))
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
        _ value: PropertyList, at location: Location, path: inout [String]
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

    // MARK: Cycles

    /// Marks the nodes that lie on a reference cycle: members of a strongly connected
    /// component with more than one node, or nodes that refer to themselves (Tarjan's
    /// algorithm, iteratively).
    ///
    /// A graph whose references all point forward (to a later node, as an archiver that
    /// numbers objects as it first meets them writes a tree) has no cycle: that is checked
    /// first, without building the edge lists.
    package static func cyclicNodes(_ nodes: [ArchivedObjectGraph.Node]) -> [Bool] {
        let count = nodes.count
        var pointsBack = false
        for node in nodes.indices where !pointsBack {
            nodes[node].forEachReference { target in
                if target > 0 && target < count && target <= node { pointsBack = true }
            }
        }
        guard pointsBack else { return [Bool](repeating: false, count: count) }
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
