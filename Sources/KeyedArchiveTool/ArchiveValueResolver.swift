import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value of a keyed archive's object graph as a plain property list, for
/// `-extract KEYPATH FORMAT --resolve`:
///
/// - an object archived as `NS.keys`/`NS.objects` is a dictionary, one with `NS.objects`
///   only an array, one with `NS.string` a string, `NS.time` a date, `NS.data` (or
///   `NS.bytes`) data;
/// - any other object is a dictionary of its fields with its class name under `$class`;
/// - a `nil` reference is the string `$null`; a reference back to an object that encloses
///   it (a cycle) is left as that object's UID, so that the result is finite;
/// - a shared object is written out at every reference, within a budget of values
///   (``Failure`` past it) so that a small archive cannot expand without bound. It is
///   resolved once and its result shared (the budget still counts it at every reference),
///   unless resolving it met a cycle, whose cut depends on where the object is reached.
struct ArchiveValueResolver {
    /// The deepest nesting of objects written out, as for `decode --json`.
    static let maximumDepth = 512

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    let graph: ArchivedObjectGraph
    /// How many more values may be produced.
    var budget: Int
    private var enclosing: Set<Int> = []
    /// Nodes resolved without meeting a cycle, with the values they count for and the
    /// levels of nesting below them: the same wherever they are referenced.
    private var resolved: [Int: (value: PropertyList, size: Int, height: Int)] = [:]
    /// How many references back to an enclosing object have been cut so far.
    private var cuts = 0
    /// The deepest level reached since the outermost node being resolved started.
    private var deepest = 0

    init(graph: ArchivedObjectGraph, budget: Int) {
        self.graph = graph
        self.budget = budget
    }

    mutating func propertyList(for value: ArchivedObjectGraph.Value, depth: Int = 0) throws(Failure)
        -> PropertyList
    {
        budget -= 1
        guard budget >= 0 else { throw Self.budgetExceeded }
        try checkDepth(depth)
        deepest = max(deepest, depth)
        switch value {
        case .null: return .string("$null")
        case .string(let text): return .string(text)
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .bool(let flag): return .bool(flag)
        case .date(let date): return .date(date)
        case .data(let data): return .data(data)
        case .array(let elements):
            var result: [PropertyList] = []
            result.reserveCapacity(elements.count)
            for element in elements { result.append(try propertyList(for: element, depth: depth + 1)) }
            return .array(result)
        case .dictionary(let fields):
            var result = PropertyListDictionary(minimumCapacity: fields.count)
            for field in fields { result[field.key] = try propertyList(for: field.value, depth: depth + 1) }
            return .dictionary(result)
        case .reference(let uid):
            if let known = resolved[uid] {
                // Counted again in full, and checked for depth where it lands.
                try checkDepth(depth + known.height)
                deepest = max(deepest, depth + known.height)
                budget -= min(known.size - 1, budget + 1)
                guard budget >= 0 else { throw Self.budgetExceeded }
                return known.value
            }
            let (budgetBefore, cutsBefore, deepestBefore) = (budget, cuts, deepest)
            deepest = depth
            defer { deepest = max(deepest, deepestBefore) }
            let value: PropertyList
            switch graph[uid] {
            case .value(let plain)?: value = try propertyList(for: plain, depth: depth + 1)
            case .object(let object)?:
                if enclosing.contains(uid) {
                    cuts += 1
                    guard let number = UInt64(exactly: uid) else {
                        throw Failure(message: "object reference \(uid) is not a UID")
                    }
                    return .uid(number)
                }
                enclosing.insert(uid)
                defer { enclosing.remove(uid) }
                value = try propertyList(for: object, depth: depth + 1)
            case .classDescription(let description)?:
                return .dictionary(["$classname": .string(description.className)])
            case .null?, nil:
                return .string("$null")
            }
            if cuts == cutsBefore {
                // This reference's own value (charged above) included.
                resolved[uid] = (value, budgetBefore - budget + 1, deepest - depth)
            }
            return value
        }
    }

    private static let budgetExceeded = Failure(
        message: "the resolved value is larger than the output allows (shared objects repeated)")

    private func checkDepth(_ depth: Int) throws(Failure) {
        guard depth < Self.maximumDepth else {
            throw Failure(message: "objects are nested more than \(Self.maximumDepth) deep")
        }
    }

    private mutating func propertyList(for object: ArchivedObjectGraph.Object, depth: Int) throws(Failure)
        -> PropertyList
    {
        if case .array(let keys)? = object["NS.keys"], case .array(let objects)? = object["NS.objects"],
            keys.count == objects.count
        {
            var result = PropertyListDictionary(minimumCapacity: keys.count)
            for (key, element) in zip(keys, objects) {
                let keyValue = try propertyList(for: key, depth: depth + 1)
                let text: String
                switch keyValue {
                case .string(let string): text = string
                case .integer(let integer): text = integer.description
                default: text = "\(keyValue)"
                }
                result[text] = try propertyList(for: element, depth: depth + 1)
            }
            return .dictionary(result)
        }
        if object["NS.keys"] == nil, case .array(let elements)? = object["NS.objects"] {
            return try propertyList(for: .array(elements), depth: depth)
        }
        if object.fields.count == 1, let only = object.fields.first {
            let resolved = try propertyList(for: only.value, depth: depth + 1)
            switch (only.key, resolved) {
            case ("NS.string", .string), ("NS.data", .data), ("NS.bytes", .data): return resolved
            case ("NS.time", .real(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
            default: break
            }
        }
        var result = PropertyListDictionary(minimumCapacity: object.fields.count + 1)
        result["$class"] = .string(object.className)
        for field in object.fields {
            result[field.key == "$class" ? "$$class" : field.key] = try propertyList(
                for: field.value, depth: depth + 1)
        }
        return .dictionary(result)
    }
}
