import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `decode --expand`: what a data value holds, when it is itself an archive — a keyed
/// archive or a property list (binary or XML) stored inside `NS.data` or a plain `data`
/// value, as iOS apps and system daemons often nest them.
///
/// Expansion is bounded: at most ``maximumLevels`` archives deep, at most the outer
/// file's length per level of data read in all, and at most one value per 16 bytes of the
/// output allowed (``Budget``); each archive is read with the same limits as the outer
/// file, identical data is read and rendered once, and renderings stop at the output limit.
enum NestedArchive {
    /// How many archives deep expansion goes (an archive inside an archive inside …).
    static let maximumLevels = 4

    /// What a data value was recognised as.
    enum Content {
        /// A keyed archive, read as an object graph.
        case keyedArchive(ArchivedObjectGraph)
        /// A property list that is not a keyed archive.
        case propertyList(PropertyList)
        /// A typedstream (`NSArchiver`), as the object graph the typedstream reader gives.
        case typedstream(ArchivedObjectGraph)

        var kindName: String {
            switch self {
            case .keyedArchive: return "keyed archive"
            case .propertyList: return "property list"
            case .typedstream: return "typedstream"
            }
        }
    }

    /// What expanding may still spend for one input file, shared by every expansion of it
    /// (every level, every data value, every rendering).
    final class Budget {
        /// The bytes of data still allowed to be read as archives: the file's length once
        /// per level (each level's data lies inside the level above). Identical data is
        /// read once and charged once.
        var remainingBytes: Int
        /// The values expansions may still produce, counted wherever they appear (a value
        /// shared by several places, or a nested archive stored several times, at each
        /// place): one per 16 bytes of the output the file is allowed (a value is at least
        /// that long in any format), as `-extract --resolve` counts.
        var remainingValues: Int
        /// What each distinct data value that looked like an archive was read as (`nil`:
        /// it did not read): an archive stored 2,000 times is read once.
        fileprivate var recognized: [Data: Content?] = [:]
        /// Texts already rendered for expanded data, by what they depend on.
        var renderings: [RenderingKey: String] = [:]

        init(forInputLength length: Int) {
            let (total, overflow) = length.multipliedReportingOverflow(by: NestedArchive.maximumLevels)
            remainingBytes = overflow ? .max : total
            remainingValues = max(1, Tool.outputLimit(forInputLength: length) / 16)
        }
    }

    /// What a rendering of expanded data depends on: the bytes, how deep in the nesting
    /// of archives it is, how deep in the text (indentation), and which rendering.
    struct RenderingKey: Hashable {
        let data: Data
        let level: Int
        let depth: Int
        let json: Bool
    }

    /// What `data` holds, or `nil` when it is not a recognised archive (or the budget is
    /// spent, or it does not read). Identical bytes are read once.
    static func recognize(_ data: Data, recovering: Bool, budget: Budget) -> Content? {
        let isTypedStream = TypedStreamUnarchiver.isTypedStream(data)
        let isBinary = !isTypedStream && data.starts(with: binaryMagic)
        let isXML =
            !isTypedStream && !isBinary && PropertyListFormat.detect(data.prefix(64)) == .xml
            && looksLikeXMLPlist(data)
        guard isTypedStream || isBinary || isXML else { return nil }
        if let known = budget.recognized[data] { return known }
        guard data.count <= budget.remainingBytes else { return nil }
        budget.remainingBytes -= data.count
        let content = isTypedStream ? typedstream(data) : propertyList(data, recovering: recovering)
        budget.recognized[data] = content
        return content
    }

    private static let binaryMagic = Data("bplist00".utf8)

    /// A binary or XML property list: a keyed archive when it reads as one.
    private static func propertyList(_ data: Data, recovering: Bool) -> Content? {
        guard let value = try? PropertyList(from: data) else { return nil }
        if case .dictionary(let dictionary) = value, dictionary["$objects"] != nil {
            var options = KeyedUnarchivingOptions()
            options.recoversFromDamage = recovering
            if let graph = try? KeyedUnarchiver.objectGraph(from: value, options: options) {
                return .keyedArchive(graph)
            }
        }
        return .propertyList(value)
    }

    /// `NSArchiver`'s older format (`\u{4}\u{b}streamtyped`), decoded by the typedstream
    /// reader into the same kind of object graph as a keyed archive; `nil` when it does not
    /// read.
    static func typedstream(_ data: Data) -> Content? {
        guard let graph = try? TypedStreamUnarchiver.objectGraph(from: data) else { return nil }
        return .typedstream(graph.archivedObjectGraph())
    }

    private static func looksLikeXMLPlist(_ data: Data) -> Bool {
        let head = String(decoding: data.prefix(512), as: UTF8.self)
        return head.contains("<plist") || head.contains("<!DOCTYPE plist")
    }

    /// The data values reachable from `graph`'s root (or its top level), each with the key
    /// path that leads to it; every object is visited once.
    static func dataValues(in graph: ArchivedObjectGraph, rootLabel: String?) -> [(path: String, data: Data)]
    {
        var found: [(path: String, data: Data)] = []
        var visited = Set<Int>()
        var work: [(path: String, value: ArchivedObjectGraph.Value)] = []
        if let rootLabel, let root = graph.root {
            work.append((rootLabel, root))
        } else {
            for field in graph.topLevel.reversed() { work.append((field.key, field.value)) }
        }
        while let (path, value) = work.popLast() {
            switch value {
            case .data(let data):
                found.append((path, data))
            case .array(let elements):
                for (index, element) in elements.enumerated().reversed() {
                    work.append(("\(path).\(index)", element))
                }
            case .dictionary(let fields):
                for field in fields.reversed() { work.append(("\(path).\(field.key)", field.value)) }
            case .reference(let uid):
                guard visited.insert(uid).inserted else { continue }
                switch graph[uid] {
                case .value(let plain)?: work.append((path, plain))
                case .object(let object)?:
                    let isArray = object["NS.keys"] == nil
                    for field in object.fields.reversed() {
                        // An array's elements are addressed as `path.3`, as `--path` does.
                        let fieldPath =
                            isArray && field.key == "NS.objects"
                            ? path : "\(path).\(field.key.replacing(".", with: "\\."))"
                        work.append((fieldPath, field.value))
                    }
                default: break
                }
            default:
                break
            }
        }
        return found
    }

    /// The data values of a plain property list, each with the key path that leads to it
    /// (`WebSubresources.0.WebResourceResponse`, dots in keys written `\.`); a container
    /// shared by several places (a binary object referenced more than once) is visited
    /// once, at its first place. Paths start with `rootLabel` when given (`--path`).
    static func dataValues(in value: PropertyList, rootLabel: String?) -> [(path: String, data: Data)] {
        var found: [(path: String, data: Data)] = []
        var visited = Set<StorageIdentity>()
        var work: [(path: String, value: PropertyList)] = [(rootLabel ?? "", value)]
        func joined(_ path: String, _ component: String) -> String {
            path.isEmpty ? component : "\(path).\(component)"
        }
        while let (path, value) = work.popLast() {
            switch value {
            case .data(let data):
                found.append((path, data))
            case .array(let elements):
                guard let identity = StorageIdentity(value), visited.insert(identity).inserted else {
                    continue
                }
                for (index, element) in elements.enumerated().reversed() {
                    work.append((joined(path, "\(index)"), element))
                }
            case .dictionary(let dictionary):
                guard let identity = StorageIdentity(value), visited.insert(identity).inserted else {
                    continue
                }
                for (key, element) in dictionary.sortedByKey.reversed() {
                    work.append(
                        (joined(path, key.replacing("\\", with: "\\\\").replacing(".", with: "\\.")), element)
                    )
                }
            default:
                break
            }
        }
        return found
    }

    /// `--expand` for a property list that is not a keyed archive (`decode --jsonl`,
    /// `decode --json`): each data value holding an archive becomes
    /// `{"$expanded": kind, "$value": …}`, a nested keyed archive's value resolved to a
    /// plain property list (``ArchiveValueResolver``).
    ///
    /// Every value of the result is charged to the budget's values, counted wherever it
    /// appears, so whoever writes the result does bounded work. Identical data is expanded
    /// once and its expansion shared, and so is a container that holds expanded data and
    /// appears in several places (the same storage: the reader shares an object referenced
    /// more than once); containers that hold none are returned as they are, not copied.
    struct PlainExpander {
        let recovering: Bool
        let budget: Budget
        /// Expanded data, by its bytes and level.
        private var expandedData: [DataKey: Expansion] = [:]
        /// Containers that hold expanded data, by their storage and level. The expansion
        /// keeps its source alive (`Expansion.source`), so no other container can take
        /// its address meanwhile.
        private var expandedContainers: [ContainerKey: Expansion] = [:]
        /// Where the walk is, for messages.
        private var path: [PathComponent] = []

        /// The deepest nesting walked, nested archives included (each may be as deep as the
        /// reader allows).
        static let maximumDepth = 512

        init(recovering: Bool, budget: Budget) {
            self.recovering = recovering
            self.budget = budget
        }

        private struct DataKey: Hashable {
            let data: Data
            let level: Int
        }

        private struct ContainerKey: Hashable {
            let storage: StorageIdentity
            let level: Int
        }

        private enum PathComponent {
            case key(String)
            case index(Int)
        }

        /// A value expanded: the result, how many values it counts for (each appearance of
        /// a shared part counted), how many levels of nesting it walked below itself, and
        /// whether it differs from its source.
        private struct Expansion {
            var value: PropertyList
            var size: Int
            var height: Int
            var changed: Bool
            var source: PropertyList? = nil
        }

        /// `value` with every archive-holding data value expanded, at nesting `level` of
        /// archives.
        ///
        /// - Throws: ``ArchiveValueResolver/Failure`` when the values are nested more than
        ///   ``maximumDepth`` deep or the result would count for more values than the
        ///   budget allows.
        mutating func expanded(_ value: PropertyList, level: Int) throws -> PropertyList {
            try expand(value, level: level, depth: 0).value
        }

        private var location: String {
            guard !path.isEmpty else { return "the top level" }
            return path.map { component in
                switch component {
                case .key(let key): return key.replacing("\\", with: "\\\\").replacing(".", with: "\\.")
                case .index(let index): return "\(index)"
                }
            }.joined(separator: ".")
        }

        private func failure(_ message: String) -> ArchiveValueResolver.Failure {
            ArchiveValueResolver.Failure(message: "\(location): \(message)")
        }

        /// Charges `count` values, throwing once the budget is spent.
        private mutating func charge(_ count: Int) throws {
            budget.remainingValues -= min(count, budget.remainingValues + 1)
            guard budget.remainingValues >= 0 else {
                throw failure(
                    "the expanded value is larger than the output allows "
                        + "(nested archives or shared values repeated)")
            }
        }

        /// An expansion made before, reused at `depth`.
        private mutating func reuse(_ known: Expansion, depth: Int) throws -> Expansion {
            try checkDepth(depth + known.height)
            try charge(known.size)
            return known
        }

        private func checkDepth(_ depth: Int) throws {
            guard depth < Self.maximumDepth else {
                throw failure(
                    "values are nested more than \(Self.maximumDepth) deep, nested archives included")
            }
        }

        private mutating func expand(_ value: PropertyList, level: Int, depth: Int) throws -> Expansion {
            try checkDepth(depth)
            switch value {
            case .data(let data):
                guard level < NestedArchive.maximumLevels,
                    let content = NestedArchive.recognize(data, recovering: recovering, budget: budget)
                else {
                    try charge(1)
                    return Expansion(value: value, size: 1, height: 0, changed: false)
                }
                let key = DataKey(data: data, level: level)
                if let known = expandedData[key] { return try reuse(known, depth: depth) }
                let inner: Expansion
                switch content {
                case .keyedArchive(let graph), .typedstream(let graph):
                    // Resolved within what is left, then charged exactly as walked below.
                    var resolver = ArchiveValueResolver(graph: graph, budget: budget.remainingValues)
                    var top = PropertyListDictionary()
                    for field in graph.topLevel {
                        top[field.key] = try resolver.propertyList(for: field.value)
                    }
                    inner = try expand(.dictionary(top), level: level + 1, depth: depth + 1)
                case .propertyList(let nested):
                    inner = try expand(nested, level: level + 1, depth: depth + 1)
                }
                try charge(2)
                let expansion = Expansion(
                    value: .dictionary(["$expanded": .string(content.kindName), "$value": inner.value]),
                    size: inner.size + 2, height: inner.height + 1, changed: true)
                expandedData[key] = expansion
                return expansion
            case .array(let elements):
                let key = StorageIdentity(value).map { ContainerKey(storage: $0, level: level) }
                if let key, let known = expandedContainers[key] { return try reuse(known, depth: depth) }
                try charge(1)
                var expansion = Expansion(value: value, size: 1, height: 0, changed: false)
                // Built only once an element changes: a container without archives is kept.
                var result: [PropertyList]?
                for (index, element) in elements.enumerated() {
                    path.append(.index(index))
                    defer { path.removeLast() }
                    let child = try expand(element, level: level, depth: depth + 1)
                    expansion.size += child.size
                    expansion.height = max(expansion.height, child.height + 1)
                    if child.changed && result == nil {
                        result = Array(elements[..<index])
                        result?.reserveCapacity(elements.count)
                    }
                    result?.append(child.value)
                }
                if let result {
                    expansion.value = .array(result)
                    expansion.changed = true
                    expansion.source = value
                    if let key { expandedContainers[key] = expansion }
                }
                return expansion
            case .dictionary(let dictionary):
                let key = StorageIdentity(value).map { ContainerKey(storage: $0, level: level) }
                if let key, let known = expandedContainers[key] { return try reuse(known, depth: depth) }
                try charge(1)
                var expansion = Expansion(value: value, size: 1, height: 0, changed: false)
                var result: PropertyListDictionary?
                var index = 0
                for (entryKey, element) in dictionary {
                    path.append(.key(entryKey))
                    defer { path.removeLast() }
                    let child = try expand(element, level: level, depth: depth + 1)
                    expansion.size += child.size
                    expansion.height = max(expansion.height, child.height + 1)
                    if child.changed && result == nil {
                        var copy = PropertyListDictionary(minimumCapacity: dictionary.count)
                        for (earlierKey, earlier) in dictionary.prefix(index) { copy[earlierKey] = earlier }
                        result = copy
                    }
                    result?[entryKey] = child.value
                    index += 1
                }
                if let result {
                    expansion.value = .dictionary(result)
                    expansion.changed = true
                    expansion.source = value
                    if let key { expandedContainers[key] = expansion }
                }
                return expansion
            default:
                try charge(1)
                return Expansion(value: value, size: 1, height: 0, changed: false)
            }
        }
    }
}
