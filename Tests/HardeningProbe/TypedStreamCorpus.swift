import Foundation
import KeyedArchive
import TestSupport

// The typedstream part of the hostile corpus (hardening III): inputs that trapped or cost
// O(K·(K+N)) in the class chains, run through every entry point that walks a stream's
// objects and classes.

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

let typedStreamCorpusCases: [String: (input: @Sendable () -> Data, run: @Sendable (Data) throws -> Int)] = [
    "typedstream-extreme-reference": (
        { Data(TypedStreamBytes.header + [0x87, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]) },
        typedStreamEveryEntryPoint
    ),
    // The shape before chains were bounded: 6,000 classes in one chain (now refused).
    "typedstream-long-chain": ({ Data(TypedStreamBytes.chain(length: 6_000)) }, typedStreamEveryEntryPoint),
    "typedstream-many-classes": (
        { TypedStreamBytes.manyClasses(objects: 9_000) }, typedStreamEveryEntryPoint
    ),
    "typedstream-c-string-references": (
        { TypedStreamBytes.sharedStringReferences(type: "*", count: 30_000) }, typedStreamEveryEntryPoint
    ),
    "typedstream-atom-references": (
        { TypedStreamBytes.sharedStringReferences(type: "%", count: 30_000) }, typedStreamEveryEntryPoint
    ),
    "imessage-unknown-classes": (
        { (try? TypedStreamBytes.bodyWithUnknownClasses(count: 2_000)) ?? Data() },
        { data in
            let body = try IMessageBody(attributedBody: data)
            return body.runs.first?.attributes.count ?? 0
        }
    ),
]
