import Foundation
import KeyedArchive

// The typedstream part of the hostile corpus (hardening III): inputs that trapped or cost
// O(K·(K+N)) in the class chains, run through every entry point that walks a stream's
// objects and classes.

/// `streamtyped`, streamer version 4, system version 1000.
let typedStreamHeader: [UInt8] = [0x04, 0x0b] + Array("streamtyped".utf8) + [0x81, 0xe8, 0x03]

/// A root object whose class chain is `length` new classes `C0 < C1 < …`, then nil; the
/// object is left open (no end byte) when `open`.
func typedStreamChain(length: Int, open: Bool = false) -> [UInt8] {
    var bytes = typedStreamHeader + [0x84, 0x01, UInt8(ascii: "@"), 0x84]
    for index in 0..<length {
        let name = Array("C\(index)".utf8)
        bytes += [0x84, 0x84, UInt8(name.count)] + name + [0x00]
    }
    return bytes + (open ? [0x85] : [0x85, 0x86])
}

/// A chain of 63 classes, then `objects` objects each of a new class whose superclass is
/// the deepest class: every object's chain is 64 classes long.
func typedStreamManyClasses(objects: Int) -> Data {
    var bytes = typedStreamChain(length: 63)
    for index in 0..<objects {
        bytes += [0x92, 0x84, 0x84]
        // Shared strings: 0 "@", 1 … 63 the chain's names, 64 "N".
        bytes += index == 0 ? [0x84, 0x01, UInt8(ascii: "N")] : [UInt8(bitPattern: Int8(64 - 110))]
        bytes += [0x00, 0x93, 0x86]
    }
    return Data(bytes)
}

/// An iMessage body "ab" with one run whose attribute dictionary holds `count` entries,
/// each value an object of its own class below a 62-class chain that the catalogue does
/// not know, so that the one-pass reader hands the body to the general reader.
func typedStreamBodyWithUnknownClasses(count: Int) -> Data {
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
    let deepest = nodes.count
    for level in 1...62 {
        nodes.append(
            .class(
                Graph.Class(name: "U\(level)", version: 0, superclassIndex: level == 62 ? 2 : nodes.count + 1)
            ))
    }
    var entries = [Graph.Group(encoding: "i", values: [.integer(Int64(count))])]
    for index in 0..<count {
        let key = nodes.count
        nodes.append(
            .object(
                Graph.Object(
                    classIndex: 4, className: "NSString",
                    groups: [Graph.Group(encoding: "+", values: [.bytes(Data("k\(index)".utf8))])])))
        nodes.append(.class(Graph.Class(name: "V\(index)", version: 0, superclassIndex: deepest)))
        nodes.append(.object(Graph.Object(classIndex: nodes.count - 1, className: "V\(index)", groups: [])))
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
    let graph = TypedStreamGraph(nodes: nodes, contents: [Graph.Group(encoding: "@", values: [.object(0)])])
    return (try? TypedStreamArchiver.archivedData(of: graph)) ?? Data()
}

/// Every entry point that walks a stream's objects and classes; the bytes it wrote.
@Sendable func typedStreamEveryEntryPoint(_ data: Data) throws -> Int {
    var written = 0
    if let graph = try? TypedStreamUnarchiver.objectGraph(from: data) {
        written += graph.description.utf8.count
        written += try TypedStreamArchiver.archivedData(of: graph).count
        let keyed = graph.archivedObjectGraph()
        written += keyed.outline().utf8.count
    }
    _ = try? TypedStreamUnarchiver.unarchivedObject(from: data)
    _ = try? IMessageBody(attributedBody: data)
    return written
}

/// One top-level group of type `[N<type>]`: the first element a new 30,000-byte string
/// (a C string for `*`, a shared string for `%` and `:`), the others references to it.
func typedStreamSharedStringBomb(type: Character, count: Int) -> Data {
    let encoding = Array("[\(count)\(type)]".utf8)
    var bytes = typedStreamHeader + [0x84, UInt8(encoding.count)] + encoding
    let text = [UInt8](repeating: UInt8(ascii: "x"), count: 30_000)
    // A new string of 30,000 bytes (length as a 2-byte integer); a C string is a new
    // object around a new shared string.
    bytes += (type == "*" ? [0x84] : []) + [0x84, 0x81, 0x30, 0x75] + text
    // C string #0 is reference 0x92 among objects; the shared string is string #1.
    let reference: UInt8 = type == "*" ? 0x92 : 0x93
    bytes += [UInt8](repeating: reference, count: count - 1)
    return Data(bytes)
}

let typedStreamCorpusCases: [String: (input: @Sendable () -> Data, run: @Sendable (Data) throws -> Int)] = [
    "typedstream-extreme-reference": (
        { Data(typedStreamHeader + [0x87, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]) },
        typedStreamEveryEntryPoint
    ),
    // The shape before chains were bounded: 6,000 classes in one chain (now refused).
    "typedstream-long-chain": ({ Data(typedStreamChain(length: 6_000)) }, typedStreamEveryEntryPoint),
    "typedstream-many-classes": ({ typedStreamManyClasses(objects: 9_000) }, typedStreamEveryEntryPoint),
    "typedstream-c-string-references": (
        { typedStreamSharedStringBomb(type: "*", count: 30_000) }, typedStreamEveryEntryPoint
    ),
    "typedstream-atom-references": (
        { typedStreamSharedStringBomb(type: "%", count: 30_000) }, typedStreamEveryEntryPoint
    ),
    "imessage-unknown-classes": (
        { typedStreamBodyWithUnknownClasses(count: 2_000) },
        { data in
            let body = try IMessageBody(attributedBody: data)
            return body.runs.first?.attributes.count ?? 0
        }
    ),
]
