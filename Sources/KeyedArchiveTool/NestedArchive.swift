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
/// Expansion is bounded: at most ``maximumLevels`` archives deep, and at most the outer
/// file's length per level in all (``Budget``), each read with the same limits as
/// the outer file.
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

    /// The bytes still allowed for expansion in one file: the file's length once per
    /// level (each level's data lies inside the level above), so a small nested archive
    /// referenced many times is not expanded without bound.
    final class Budget {
        var remainingBytes: Int
        init(forInputLength length: Int) {
            let (total, overflow) = length.multipliedReportingOverflow(by: NestedArchive.maximumLevels)
            remainingBytes = overflow ? .max : total
        }
    }

    /// What `data` holds, or `nil` when it is not a recognised archive (or the budget is
    /// spent, or it does not read).
    static func recognize(_ data: Data, recovering: Bool, budget: Budget) -> Content? {
        if TypedStreamUnarchiver.isTypedStream(data) {
            guard data.count <= budget.remainingBytes else { return nil }
            budget.remainingBytes -= data.count
            return typedstream(data)
        }
        let isBinary = data.starts(with: Data("bplist00".utf8))
        let isXML = !isBinary && PropertyListFormat.detect(data.prefix(64)) == .xml && looksLikeXMLPlist(data)
        guard isBinary || isXML, data.count <= budget.remainingBytes else { return nil }
        budget.remainingBytes -= data.count
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

    /// `--expand` for a property list that is not a keyed archive (`decode --jsonl`): each
    /// data value holding an archive becomes `{"$expanded": kind, "$value": …}`, a nested
    /// keyed archive's value resolved to a plain property list (``ArchiveValueResolver``).
    struct PlainExpander {
        let recovering: Bool
        let budget: Budget
        /// The most values a nested keyed archive may resolve to, in all.
        var valueBudget: Int

        /// The deepest nesting walked, nested archives included (each may be as deep as the
        /// reader allows).
        static let maximumDepth = 512

        mutating func expanded(_ value: PropertyList, level: Int, depth: Int = 0) throws -> PropertyList {
            guard depth < Self.maximumDepth else {
                throw ArchiveValueResolver.Failure(
                    message: "values are nested more than \(Self.maximumDepth) deep, nested archives included"
                )
            }
            switch value {
            case .data(let data):
                guard level < NestedArchive.maximumLevels,
                    let content = NestedArchive.recognize(data, recovering: recovering, budget: budget)
                else { return value }
                var result: PropertyListDictionary = ["$expanded": .string(content.kindName)]
                switch content {
                case .keyedArchive(let graph), .typedstream(let graph):
                    var resolver = ArchiveValueResolver(graph: graph, budget: valueBudget)
                    var top = PropertyListDictionary()
                    for field in graph.topLevel {
                        top[field.key] = try resolver.propertyList(for: field.value)
                    }
                    valueBudget = resolver.budget
                    result["$value"] = try expanded(.dictionary(top), level: level + 1, depth: depth + 1)
                case .propertyList(let nested):
                    result["$value"] = try expanded(nested, level: level + 1, depth: depth + 1)
                }
                return .dictionary(result)
            case .array(let elements):
                var result: [PropertyList] = []
                result.reserveCapacity(elements.count)
                for element in elements {
                    result.append(try expanded(element, level: level, depth: depth + 1))
                }
                return .array(result)
            case .dictionary(let dictionary):
                var result = PropertyListDictionary(minimumCapacity: dictionary.count)
                for (key, element) in dictionary {
                    result[key] = try expanded(element, level: level, depth: depth + 1)
                }
                return .dictionary(result)
            default:
                return value
            }
        }
    }
}
