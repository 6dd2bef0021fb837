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
///   Its baseline builds the same dictionary from the decoded array in the caller's
///   (specialized) code: a dictionary hashes and inserts every key, work an array does not
///   do, so the fastest way to the same result is the array plus that work.
/// - `Set<T>`: a set of `Hashable` structs holding the same fields; its baseline likewise
///   builds the set from the decoded array (`Set(array)`), hashing every element.
/// - `optional`: every field read as an optional (`decodeObject(of:forKey:)` returns `T?`;
///   the collection too), nothing defaulted.
/// - `[[T]]`: the objects in arrays of 100, in an array.
enum IdiomaticBenchmarks: BenchmarkGroup {
    static let name = "idiomatic"

    static func benchmarks(size: BenchmarkSize) -> [Benchmark] {
        let count = size == .full ? 10_000 : 200
        let workload = "\(count)-objects (baseline: decodeArrayOfObjects)"
        let builtWorkload = "\(count)-objects (baseline: decodeArrayOfObjects, then built)"
        let creatures = Lazy { BenchCreatureSet.make(count: count).ours }
        let arrayArchive = Lazy {
            try KeyedArchiver.archivedData(withRootObject: try creatures.get(), requiringSecureCoding: true)
        }
        let target = 0.91

        /// `decode` runs the idiomatic path and returns what a caller gets; `objects` turns
        /// that into the objects, for the check only (outside the timing).
        func row<Root: KeyedCoding, Result>(
            _ operation: String, root: @escaping ([BenchCreature]) -> Root,
            decode: @escaping (Data) throws -> Result?, objects: @escaping (Result) -> [BenchCreature],
            count: @escaping (Result) -> Int, workload: String = workload,
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
                            blackHole(try decode(bytes).map(count) ?? 0)
                            return bytes.count
                        },
                        baseline: {
                            blackHole(try baseline(array))
                            return array.count
                        },
                        inputBytes: bytes.count,
                        verify: {
                            guard let decoded = (try? decode(bytes))?.map(objects) else {
                                return "ours fails to unarchive"
                            }
                            let byName: (BenchCreature, BenchCreature) -> Bool = { $0.name < $1.name }
                            return decoded.sorted(by: byName) == set.sorted(by: byName)
                                ? nil : "ours unarchives different objects"
                        })
                })
        }

        return [
            row(
                "unarchivedObject(ofClass:)", root: { $0 },
                decode: { try KeyedUnarchiver.unarchivedObject(ofClass: [BenchCreature].self, from: $0) },
                objects: { $0 }, count: \.count),
            row(
                "unarchivedObject(ofClasses:)", root: { $0 },
                decode: {
                    try KeyedUnarchiver.unarchivedObject(ofClasses: [BenchCreature.self], from: $0)
                        as? [BenchCreature]
                }, objects: { $0 }, count: \.count),
            row(
                "[String: T]", root: { Dictionary(uniqueKeysWithValues: $0.map { ($0.name, $0) }) },
                decode: {
                    try KeyedUnarchiver.unarchivedObject(ofClass: [String: BenchCreature].self, from: $0)
                },
                objects: { Array($0.values) }, count: \.count, workload: builtWorkload,
                baseline: { data in
                    let array = try BenchCreatureSet.decodeAll(data)
                    var byName: [String: BenchCreature] = [:]
                    byName.reserveCapacity(array.count)
                    for creature in array { byName[creature.name] = creature }
                    return byName.count
                }),
            row(
                "Set<T>", root: { Set($0.map(HashableBenchCreature.init)) },
                decode: {
                    try KeyedUnarchiver.unarchivedObject(ofClass: Set<HashableBenchCreature>.self, from: $0)
                },
                objects: { $0.map(\.plain) }, count: \.count, workload: builtWorkload,
                baseline: { data in
                    let array =
                        try KeyedUnarchiver(forReadingFrom: data).decodeArrayOfObjects(
                            ofClass: HashableBenchCreature.self, forKey: KeyedArchiver.rootObjectKey) ?? []
                    return Set(array).count
                }),
            row(
                "optional", root: { $0 },
                decode: {
                    try KeyedUnarchiver(forReadingFrom: $0).decodeObject(
                        of: [OptionalBenchCreature].self, forKey: KeyedArchiver.rootObjectKey)
                }, objects: { $0.map(\.plain) }, count: \.count),
            row(
                "[[T]]",
                root: { set in
                    stride(from: 0, to: set.count, by: 100).map { Array(set[$0..<min($0 + 100, set.count)]) }
                },
                decode: { try KeyedUnarchiver.unarchivedObject(ofClass: [[BenchCreature]].self, from: $0) },
                objects: { $0.flatMap { $0 } }, count: \.count),
        ]
    }
}

/// ``BenchCreature``'s fields in a `Hashable` struct, archived under the same class name.
struct HashableBenchCreature: SecureKeyedCoding, Hashable {
    static var archivedClassName: String { "benchmarks.FoundationBenchCreature" }
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
        self.init(try BenchCreature.readIdiomatically(coder))
    }
}

/// The same object with every field optional, as read.
final class OptionalBenchCreature: SecureKeyedCoding {
    static var archivedClassName: String { "benchmarks.FoundationBenchCreature" }
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
