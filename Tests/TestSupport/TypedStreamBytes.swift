import Foundation
import KeyedArchive

/// Hand-made typedstreams (NSArchiver) of the shapes that once trapped or cost
/// O(K·(K+N)) in the class chains, shared by the tests and the hardening probe.
public enum TypedStreamBytes {
    /// `streamtyped`, streamer version 4, system version 1000.
    public static let header: [UInt8] = [0x04, 0x0b] + Array("streamtyped".utf8) + [0x81, 0xe8, 0x03]

    /// The bytes of reference number `index` (to any table): one byte up to index 237,
    /// then a 2-byte integer.
    public static func reference(_ index: Int) -> [UInt8] {
        let raw = index - 110
        if raw <= 127 { return [UInt8(bitPattern: Int8(raw))] }
        let value = UInt16(raw)
        return [0x81, UInt8(value & 0xff), UInt8(value >> 8)]
    }

    /// A root object whose class chain is `length` new classes `C0 < C1 < …`, then nil; the
    /// object is left open (no end byte) when `open`.
    public static func chain(length: Int, open: Bool = false) -> [UInt8] {
        var bytes = header + [0x84, 0x01, UInt8(ascii: "@"), 0x84]
        for index in 0..<length {
            let name = Array("C\(index)".utf8)
            bytes += [0x84, 0x84, UInt8(name.count)] + name + [0x00]
        }
        return bytes + (open ? [0x85] : [0x85, 0x86])
    }

    /// The shape that cost O(K·(K+N)): a chain of `depth` classes, then `objects` objects,
    /// each of a new class whose superclass is the deepest of the chain (so every object's
    /// chain is `depth + 1` classes long).
    public static func manyClasses(objects: Int, depth: Int = 63) -> Data {
        var bytes = chain(length: depth)
        // Shared strings: 0 "@", 1 … depth the chain's names, depth + 1 "N".
        for index in 0..<objects {
            bytes += [0x92, 0x84, 0x84]
            bytes += index == 0 ? [0x84, 0x01, UInt8(ascii: "N")] : reference(depth + 1)
            bytes += [0x00] + reference(1) + [0x86]
        }
        return Data(bytes)
    }

    /// One top-level group `[N<type>]`: a new `length`-byte string (a C string for `*`, a
    /// shared string for `%` and `:`), then `count - 1` references to it.
    public static func sharedStringReferences(type: Character, count: Int, length: Int = 30_000) -> Data {
        let encoding = Array("[\(count)\(type)]".utf8)
        var bytes = header + [0x84, UInt8(encoding.count)] + encoding
        // A new string (its length a 2-byte integer); a C string is a new object around a
        // new shared string.
        bytes += (type == "*" ? [0x84] : []) + [0x84, 0x81, UInt8(length & 0xff), UInt8(length >> 8)]
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: length)
        // C string #0 is reference 0x92 among objects; the shared string is string #1.
        bytes += [UInt8](repeating: type == "*" ? 0x92 : 0x93, count: count - 1)
        return Data(bytes)
    }

    /// An iMessage body "ab" with one run whose attribute dictionary holds `count` entries:
    /// a string key each and an object of a class the catalogue does not know, 63 classes
    /// deep, so that the one-pass reader hands the body to the general one.
    public static func bodyWithUnknownClasses(count: Int) throws -> Data {
        typealias Graph = TypedStreamGraph
        var nodes: [Graph.Node] = [
            .object(Graph.Object(classIndex: 1, className: "NSAttributedString", groups: [])),
            .class(Graph.Class(name: "NSAttributedString", version: 0, superclassIndex: 2)),
            .class(Graph.Class(name: "NSObject", version: 0, superclassIndex: nil)),
            .object(
                Graph.Object(
                    classIndex: 4, className: "NSString",
                    groups: [Graph.Group(encoding: "+", values: [.bytes(Data("ab".utf8))])])),
            .class(Graph.Class(name: "NSString", version: 1, superclassIndex: 2)),
            .object(Graph.Object(classIndex: 6, className: "NSDictionary", groups: [])),
            .class(Graph.Class(name: "NSDictionary", version: 0, superclassIndex: 2)),
        ]
        // Classes U1 < U2 < … < U62 < NSObject, then per value a class V<i> < U1.
        let deepest = nodes.count
        for level in 1...62 {
            nodes.append(
                .class(
                    Graph.Class(
                        name: "U\(level)", version: 0, superclassIndex: level == 62 ? 2 : nodes.count + 1)))
        }
        var entries: [Graph.Group] = [Graph.Group(encoding: "i", values: [.integer(Int64(count))])]
        for index in 0..<count {
            let key = nodes.count
            nodes.append(
                .object(
                    Graph.Object(
                        classIndex: 4, className: "NSString",
                        groups: [Graph.Group(encoding: "+", values: [.bytes(Data("k\(index)".utf8))])])))
            nodes.append(.class(Graph.Class(name: "V\(index)", version: 0, superclassIndex: deepest)))
            nodes.append(
                .object(Graph.Object(classIndex: nodes.count - 1, className: "V\(index)", groups: [])))
            entries.append(Graph.Group(encoding: "@", values: [.object(key)]))
            entries.append(Graph.Group(encoding: "@", values: [.object(nodes.count - 1)]))
        }
        nodes[5] = .object(Graph.Object(classIndex: 6, className: "NSDictionary", groups: entries))
        nodes[0] = .object(
            Graph.Object(
                classIndex: 1, className: "NSAttributedString",
                groups: [
                    Graph.Group(encoding: "@", values: [.object(3)]),
                    Graph.Group(encoding: "iI", values: [.integer(1), .unsignedInteger(2)]),
                    Graph.Group(encoding: "@", values: [.object(5)]),
                ]))
        let graph = TypedStreamGraph(
            nodes: nodes, contents: [Graph.Group(encoding: "@", values: [.object(0)])])
        return try TypedStreamArchiver.archivedData(of: graph)
    }
}
