import Foundation
import KeyedArchive

/// The idiomatic ways to unarchive many objects, each against (as the baseline column)
/// `decodeArrayOfObjects(ofClass:forKey:)` of the same objects in an array: the ratio is
/// that path's time ÷ the idiomatic path's, and the target (≥ 0.91×) is "within 10%".
///
/// - `unarchivedObject(ofClass:)`: `[T]` at the top level, the one-call way.
/// - `unarchivedObject(ofClasses:)`: the root decoded untyped against the allowed class,
///   then cast to `[T]` as a caller does.
/// - `[String: T]`: a dictionary of the objects, by name, with `unarchivedObject(ofClass:)`.
/// - `Set<T>`: a set of `Hashable` structs holding the same fields.
/// - `optional`: every field read as an optional (`decodeObject(of:forKey:)` returns `T?`;
///   the collection too), nothing defaulted.
/// - `[[T]]`: the objects in arrays of 100, in an array.
enum IdiomaticBenchmarks: BenchmarkGroup {
    static let name = "idiomatic"

    static func benchmarks(size: BenchmarkSize) -> [Benchmark] {
        let count = size == .full ? 10_000 : 200
        let workload = "\(count)-objects (baseline: decodeArrayOfObjects)"
        let creatures = Lazy { BenchCreatureSet.make(count: count).ours }
        let arrayArchive = Lazy {
            try KeyedArchiver.archivedData(withRootObject: try creatures.get(), requiringSecureCoding: true)
        }
        let target = 0.91

        func row<Root: KeyedCoding>(
            _ operation: String, root: @escaping ([BenchCreature]) -> Root,
            decode: @escaping (Data) throws -> [BenchCreature]?,
            baseline: @escaping (Data) throws -> Int = { try BenchCreatureSet.decodeAll($0).count }
        ) -> Benchmark {
            Benchmark(
                workload: workload, operation: operation, format: "binary", target: target,
                prepare: {
                    let set = try creatures.get()
                    let bytes = try KeyedArchiver.archivedData(
                        withRootObject: root(set), requiringSecureCoding: true)
                    let array = try arrayArchive.get()
                    return PreparedBenchmark(
                        ours: {
                            blackHole(try decode(bytes)?.count ?? 0)
                            return bytes.count
                        },
                        baseline: {
                            blackHole(try baseline(array))
                            return array.count
                        },
                        inputBytes: bytes.count,
                        verify: {
                            guard let decoded = try? decode(bytes) else { return "ours fails to unarchive" }
                            return decoded.sorted(by: { $0.name < $1.name })
                                == set.sorted(by: { $0.name < $1.name })
                                ? nil : "ours unarchives different objects"
                        })
                })
        }

        return [
            row("unarchivedObject(ofClass:)", root: { $0 }) { data in
                try KeyedUnarchiver.unarchivedObject(ofClass: [BenchCreature].self, from: data)
            },
            row("unarchivedObject(ofClasses:)", root: { $0 }) { data in
                try KeyedUnarchiver.unarchivedObject(ofClasses: [BenchCreature.self], from: data)
                    as? [BenchCreature]
            },
            row("[String: T]", root: { Dictionary(uniqueKeysWithValues: $0.map { ($0.name, $0) }) }) { data in
                try KeyedUnarchiver.unarchivedObject(ofClass: [String: BenchCreature].self, from: data).map {
                    Array($0.values)
                }
            },
            row(
                "Set<T>", root: { Set($0.map(HashableBenchCreature.init)) },
                decode: { data in
                    try KeyedUnarchiver.unarchivedObject(
                        ofClass: Set<HashableBenchCreature>.self, from: data)?
                        .map(\.plain)
                },
                baseline: { data in
                    try KeyedUnarchiver(forReadingFrom: data).decodeArrayOfObjects(
                        ofClass: HashableBenchCreature.self, forKey: KeyedArchiver.rootObjectKey)?.count ?? 0
                }),
            row("optional", root: { $0 }) { data in
                try KeyedUnarchiver(forReadingFrom: data).decodeObject(
                    of: [OptionalBenchCreature].self, forKey: KeyedArchiver.rootObjectKey)?.map(\.plain)
            },
            row(
                "[[T]]",
                root: { set in
                    stride(from: 0, to: set.count, by: 100).map { Array(set[$0..<min($0 + 100, set.count)]) }
                }
            ) { data in
                try KeyedUnarchiver.unarchivedObject(ofClass: [[BenchCreature]].self, from: data)?.flatMap {
                    $0
                }
            },
        ]
    }
}

/// ``BenchCreature``'s fields in a `Hashable` struct, archived under the same class name.
struct HashableBenchCreature: SecureKeyedCoding, Hashable {
    static var archivedClassName: String { "Benchmarks.FoundationBenchCreature" }
    var name: String
    var weight: Float
    var seen: Date
    var tags: [String]

    init(_ creature: BenchCreature) {
        name = creature.name
        weight = creature.weight
        seen = creature.seen
        tags = creature.tags
    }

    var plain: BenchCreature { BenchCreature(name: name, weight: weight, seen: seen, tags: tags) }

    func encode(with coder: KeyedArchiver) {
        plain.encode(with: coder)
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
        weight = try coder.decodeFloat(forKey: "weight")
        seen =
            try coder.decodeObject(of: Date.self, forKey: "seen") ?? Date(timeIntervalSinceReferenceDate: 0)
        tags = try coder.decodeObject(of: [String].self, forKey: "tags") ?? []
    }
}

/// The same object with every field optional, as read.
final class OptionalBenchCreature: SecureKeyedCoding {
    static var archivedClassName: String { "Benchmarks.FoundationBenchCreature" }
    let name: String?
    let weight: Float
    let seen: Date?
    let tags: [String]?

    var plain: BenchCreature {
        BenchCreature(
            name: name ?? "", weight: weight, seen: seen ?? Date(timeIntervalSinceReferenceDate: 0),
            tags: tags ?? [])
    }

    func encode(with coder: KeyedArchiver) {
        plain.encode(with: coder)
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeObject(of: String.self, forKey: "name")
        weight = try coder.decodeFloat(forKey: "weight")
        seen = try coder.decodeObject(of: Date.self, forKey: "seen")
        tags = try coder.decodeObject(of: [String].self, forKey: "tags")
    }
}
