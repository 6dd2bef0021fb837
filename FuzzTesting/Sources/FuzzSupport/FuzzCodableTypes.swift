import Foundation

/// A class decoded by `KeyedArchiveDecoder`: shared instances, a struct, collections of
/// both, optionals and numbers of several widths.
public final class FuzzNode: Codable {
    var name: String
    var weight: Double
    var small: Int16?
    var flags: [Bool]
    var children: [FuzzNode]
    var link: FuzzNode?
    var spot: FuzzSpot?
    var labels: [String: String]?
    var stamp: Date?
    var blob: Data?

    /// A canonical text of the graph reachable from `node`: fields in order, each shared
    /// instance named by the order it was first reached (so equal graphs give equal text
    /// and sharing differences show), NaN spelled the same whatever its payload, dictionaries
    /// by sorted key. Linear in the number of distinct instances.
    public static func fingerprint(_ node: FuzzNode) -> String {
        // Breadth first, numbering each instance when first reached.
        var numbers: [ObjectIdentifier: Int] = [ObjectIdentifier(node): 0]
        var queue = [node]
        var position = 0
        var text = ""
        while position < queue.count {
            let next = queue[position]
            text += "#\(position) \(next.name) \(number(next.weight)) \(String(describing: next.small))"
            text += " \(next.flags) \(String(describing: next.spot))"
            text += " \((next.labels ?? [:]).sorted { $0.key < $1.key })"
            text +=
                " \(next.stamp.map { number($0.timeIntervalSinceReferenceDate) } ?? "-") \(next.blob?.count ?? -1)"
            position += 1
            for child in next.children + (next.link.map { [$0] } ?? []) {
                let identifier = ObjectIdentifier(child)
                let known = numbers[identifier]
                if known == nil {
                    numbers[identifier] = queue.count
                    queue.append(child)
                }
                text += " ->\(known ?? queue.count - 1)"
            }
            text += "\n"
        }
        return text
    }

    static func number(_ value: Double) -> String { value.isNaN ? "nan" : "\(value)" }
}

/// A struct inside the class graph.
public struct FuzzSpot: Codable, CustomStringConvertible {
    var x: Int32
    var y: Float
    var tag: String?

    /// The fields, NaN spelled the same whatever its payload.
    public var description: String { "(\(x), \(y.isNaN ? "nan" : "\(y)"), \(tag ?? "-"))" }
}

/// A struct decoded by `decodeDecodable` in Foundation's layout (dictionaries of keys).
public struct FuzzRecord: Codable, CustomStringConvertible {
    enum Kind: String, Codable {
        case bug, moth, spider
    }

    var title: String
    var rating: Double?
    var count: UInt8
    var kind: Kind?
    var tags: [String]
    var scores: [String: Int]?
    var seen: [Date]?
    var nested: [FuzzSpot]?
    var matrix: [[Int64]]?

    /// The fields in order, NaN spelled the same whatever its payload, dictionaries by
    /// sorted key.
    public var description: String {
        let ratingText = rating.map { $0.isNaN ? "nan" : "\($0)" } ?? "-"
        let scoresText = (scores ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let seenText = (seen ?? []).map { FuzzNode.number($0.timeIntervalSinceReferenceDate) }
        return
            "\(title) \(ratingText) \(count) \(String(describing: kind)) \(tags) \(scoresText) \(seenText) "
            + "\(nested ?? []) \(matrix ?? [])"
    }
}
