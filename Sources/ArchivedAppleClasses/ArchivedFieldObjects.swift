#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The typed values that keep every field they read (formatters, date and name
// components, text-checking results, URL requests) store objects of classes the
// catalogue leaves generic as graphs, and read typed values out of them on demand.

extension ArchivedAttributeValue {
    /// The most objects a field's graph may hold to be read as a typed value: 256.
    static let largestDecodedField = 256

    /// The object this value holds decoded as a `T` (securely, from an archive of its own
    /// graph), or `nil` when it is no object or does not decode as one.
    func decodedObject<T: KeyedCoding>(as type: T.Type) -> T? {
        guard case .object(let graph) = self, case .reference(let uid)? = graph.root else { return nil }
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        let reference = archiver.graphReference(
            graph, uid: uid, at: .key(KeyedArchiver.rootObjectKey), maximumObjects: Self.largestDecodedField)
        archiver.append(
            key: KeyedArchiver.rootObjectKey, value: archiver.table.builder.addUID(UInt64(reference)))
        guard let data = try? archiver.finishedData() else { return nil }
        return try? KeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data)
    }

    /// `value` archived, as the graph rooted at it; `nil` when it cannot be archived.
    static func archivedObject(_ value: some KeyedCoding) -> ArchivedAttributeValue? {
        guard let data = try? KeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true),
            let graph = try? KeyedUnarchiver.objectGraph(from: data)
        else { return nil }
        return .object(graph)
    }

    /// The integer of a number field, with Apple's "undefined" (`Int.max`) as `nil`.
    var definedInteger: Int? {
        guard let value = intValue, value != Int.max else { return nil }
        return value
    }

    /// `NSRange` values of an array field (`NSValue` objects), in order; `nil` when the
    /// value is no array of ranges.
    var rangeValues: [Range<Int>]? {
        if case .object = self {
            guard let archived = decodedObject(as: [ArchivedRange].self) else { return nil }
            let ranges = archived.compactMap { Range($0) }
            return ranges.count == archived.count ? ranges : nil
        }
        guard case .array(let elements) = self else { return nil }
        var ranges: [Range<Int>] = []
        for element in elements {
            guard let archived = element.decodedObject(as: ArchivedRange.self), let range = Range(archived)
            else { return nil }
            ranges.append(range)
        }
        return ranges
    }
}

extension [String: ArchivedAttributeValue] {
    /// The fields as `key = value` lines in key order, for descriptions.
    var describedLines: [String] {
        keys.sorted().compactMap { key in self[key].map { "\(key) = \($0)" } }
    }
}

extension ArchivedAttributeValue {
    /// Field `key` of the object this value holds, with a reference to a plain value
    /// (a string, a number) resolved; `nil` when it is no object or has no such field.
    func objectField(_ key: String) -> ArchivedObjectGraph.Value? {
        guard case .object(let graph) = self, case .reference(let uid)? = graph.root,
            let object = graph.object(at: uid), let value = object[key]
        else { return nil }
        if case .reference(let node) = value, case .value(let plain)? = graph[node] { return plain }
        return value
    }

    /// The string field `key` of the object this value holds.
    func objectString(_ key: String) -> String? {
        if case .string(let text)? = objectField(key) { return text }
        return nil
    }

    /// The integer field `key` of the object this value holds.
    func objectInteger(_ key: String) -> Int? {
        if case .integer(let number)? = objectField(key) { return number.intValue }
        return nil
    }
}

extension KeyedUnarchiver {
    /// Every field of the current object as attribute values (keys unescaped), for the
    /// types that keep all they read: as ``otherFields(excluding:)``, except that an array
    /// object (`NSArray`, `NSMutableArray`) is kept as its graph, so that it is written back
    /// as the same object of the same class rather than as an inline array.
    func keptFields() throws -> [String: ArchivedAttributeValue] {
        var result: [String: ArchivedAttributeValue] = [:]
        for (key, value) in try currentDictionary() where key != "$class" {
            let unescaped = archiveUnescapedKey(key)
            enterPath(.key(unescaped))
            defer { leavePath() }
            if case .uid = value, case let uid = try referenceIndex(value), uid != 0,
                case .object(let objectFields) = try entry(at: uid),
                CataloguedClass(name: try classDescription(of: objectFields, uid: uid).name)?.kind == .array
            {
                result[unescaped] = .object(try genericObject(at: uid))
            } else {
                result[unescaped] = try attributeValue(value)
            }
        }
        return result
    }
}
