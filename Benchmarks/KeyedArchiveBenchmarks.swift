import Foundation
import KeyedArchive

/// Keyed archiving, ours (`KeyedArchiver` / `KeyedUnarchiver`) against Foundation's
/// `NSKeyedArchiver` / `NSKeyedUnarchiver`, on an array of small model objects (a
/// string, a float, a date and an array of two strings each), in binary and XML.
///
/// - `write`: archive the objects. Output sizes are printed for both sides.
/// - `read`: unarchive them. Both sides read the same bytes, ours (whose class name is
///   Foundation's `benchmarks.FoundationBenchCreature`, the module's name first, so no
///   mapping is needed).
/// - `decode-one`: open the archive and decode the one object under the top-level key
///   `selected`, against (as the baseline column) our full decode of every object. A
///   binary archive is read lazily, so this touches a handful of objects.
/// - `read-idiomatic`: unarchive an archive that *Foundation* wrote (as files from Apple
///   devices are) the way the README teaches: `unarchivedObject(ofClass: [T].self, from:)`
///   at the top level and `decodeObject(of: [String].self, forKey:)` inside each object.
enum KeyedArchiveBenchmarks: BenchmarkGroup {
    static let name = "keyed-archive"

    static func benchmarks(size: BenchmarkSize) -> [Benchmark] {
        let count = size == .full ? 10_000 : 200
        let workload = "\(count)-objects"
        let creatures = Lazy { BenchCreatureSet.make(count: count) }
        var benchmarks: [Benchmark] = []
        for format in [PropertyListFormat.binary, .xml] {
            let formatName = format == .binary ? "binary" : "xml"
            let foundationFormat: PropertyListSerialization.PropertyListFormat =
                format == .binary ? .binary : .xml
            let archive = Lazy { try BenchCreatureSet.archive(try creatures.get(), format: format) }
            benchmarks.append(
                Benchmark(
                    workload: workload, operation: "write", format: formatName, target: 100,
                    prepare: {
                        let set = try creatures.get()
                        return PreparedBenchmark(
                            ours: { try BenchCreatureSet.archive(set, format: format).count },
                            baseline: {
                                let archiver = NSKeyedArchiver(requiringSecureCoding: true)
                                archiver.outputFormat = foundationFormat
                                archiver.encode(set.foundation, forKey: NSKeyedArchiveRootObjectKey)
                                archiver.encode(set.foundation[set.selected], forKey: "selected")
                                archiver.finishEncoding()
                                return archiver.encodedData.count
                            },
                            verify: {
                                guard let data = try? BenchCreatureSet.archive(set, format: format),
                                    let decoded = try? BenchCreatureSet.decodeAll(data)
                                else { return "ours fails to archive or unarchive" }
                                return decoded == set.ours ? nil : "ours round-trips to different objects"
                            })
                    }))
            benchmarks.append(
                Benchmark(
                    workload: workload, operation: "read", format: formatName, target: 30,
                    prepare: {
                        let bytes = try archive.get()
                        let set = try creatures.get()
                        return PreparedBenchmark(
                            ours: {
                                blackHole(try BenchCreatureSet.decodeAll(bytes).count)
                                return bytes.count
                            },
                            baseline: {
                                let decoded = try NSKeyedUnarchiver.unarchivedObject(
                                    ofClasses: [NSArray.self, FoundationBenchCreature.self], from: bytes)
                                blackHole((decoded as? NSArray)?.count ?? 0)
                                return bytes.count
                            },
                            inputBytes: bytes.count,
                            verify: {
                                guard let decoded = try? BenchCreatureSet.decodeAll(bytes) else {
                                    return "ours fails to unarchive"
                                }
                                guard decoded == set.ours else { return "ours unarchives different objects" }
                                let foundation =
                                    (try? NSKeyedUnarchiver.unarchivedObject(
                                        ofClasses: [NSArray.self, FoundationBenchCreature.self], from: bytes))
                                    as? [FoundationBenchCreature]
                                return foundation?.count == set.ours.count
                                    ? nil : "Foundation cannot read our archive"
                            })
                    }))
            benchmarks.append(
                Benchmark(
                    workload: workload + " (baseline: our full read)", operation: "decode-one",
                    format: formatName,
                    // The ratio grows with the archive: the target is for the full 10,000 objects.
                    target: format == .binary && size == .full ? 100 : nil,
                    prepare: {
                        let bytes = try archive.get()
                        let set = try creatures.get()
                        return PreparedBenchmark(
                            ours: {
                                let unarchiver = try KeyedUnarchiver(forReadingFrom: bytes)
                                let one = try unarchiver.decodeObject(
                                    of: BenchCreature.self, forKey: "selected")
                                blackHole(Int(one?.weight.bitPattern ?? 0))
                                return bytes.count
                            },
                            baseline: {
                                blackHole(try BenchCreatureSet.decodeAll(bytes).count)
                                return bytes.count
                            },
                            inputBytes: bytes.count,
                            verify: {
                                let one = try? KeyedUnarchiver(forReadingFrom: bytes).decodeObject(
                                    of: BenchCreature.self, forKey: "selected")
                                return one == set.ours[set.selected] ? nil : "ours decodes the wrong object"
                            })
                    }))
            benchmarks.append(
                Benchmark(
                    workload: workload + " written by Foundation", operation: "read-idiomatic",
                    format: formatName, target: 30,
                    prepare: {
                        let set = try creatures.get()
                        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
                        archiver.outputFormat = foundationFormat
                        archiver.encode(set.foundation, forKey: NSKeyedArchiveRootObjectKey)
                        archiver.finishEncoding()
                        let bytes = archiver.encodedData
                        return PreparedBenchmark(
                            ours: {
                                let decoded = try KeyedUnarchiver.unarchivedObject(
                                    ofClass: [IdiomaticBenchCreature].self, from: bytes)
                                blackHole(decoded?.count ?? 0)
                                return bytes.count
                            },
                            baseline: {
                                let decoded = try NSKeyedUnarchiver.unarchivedObject(
                                    ofClasses: [NSArray.self, FoundationBenchCreature.self], from: bytes)
                                blackHole((decoded as? NSArray)?.count ?? 0)
                                return bytes.count
                            },
                            inputBytes: bytes.count,
                            verify: {
                                guard
                                    let decoded = try? KeyedUnarchiver.unarchivedObject(
                                        ofClass: [IdiomaticBenchCreature].self, from: bytes)
                                else { return "ours fails to unarchive Foundation's archive" }
                                return decoded.map(\.plain) == set.ours
                                    ? nil : "ours unarchives different objects from Foundation's archive"
                            })
                    }))
        }
        return benchmarks
    }
}

/// The same objects on both sides, generated deterministically.
struct BenchCreatureSet {
    var ours: [BenchCreature]
    var foundation: [FoundationBenchCreature]
    /// The index of the object stored again under the top-level key `selected`.
    var selected: Int

    static func make(count: Int) -> BenchCreatureSet {
        var state: UInt64 = 7
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let words = ["small", "grey", "harmless", "nocturnal", "shiny", "fast", "loud", "rare"]
        var ours: [BenchCreature] = []
        ours.reserveCapacity(count)
        for index in 0..<count {
            let creature = BenchCreature(
                name: "Creature #\(index) \(next() % 100_000)",
                weight: Float(next() % 100_000) / 64,
                seen: Date(timeIntervalSinceReferenceDate: Double(next() % 700_000_000) + 0.5),
                tags: [words[Int(next() % 8)], words[Int(next() % 8)]])
            ours.append(creature)
        }
        let foundation = ours.map {
            FoundationBenchCreature(name: $0.name, weight: $0.weight, seen: $0.seen, tags: $0.tags)
        }
        return BenchCreatureSet(ours: ours, foundation: foundation, selected: count / 2)
    }

    static func archive(_ set: BenchCreatureSet, format: PropertyListFormat) throws -> Data {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(set.ours, forKey: KeyedArchiver.rootObjectKey)
        archiver.encode(set.ours[set.selected], forKey: "selected")
        return try archiver.finishedData()
    }

    static func decodeAll(_ data: Data) throws -> [BenchCreature] {
        try KeyedUnarchiver(forReadingFrom: data).decodeArrayOfObjects(
            ofClass: BenchCreature.self, forKey: KeyedArchiver.rootObjectKey) ?? []
    }
}

/// Our small model object.
final class BenchCreature: SecureKeyedCoding, Equatable {
    static var archivedClassName: String { "benchmarks.FoundationBenchCreature" }
    let name: String
    let weight: Float
    let seen: Date
    let tags: [String]

    init(name: String, weight: Float, seen: Date, tags: [String]) {
        self.name = name
        self.weight = weight
        self.seen = seen
        self.tags = tags
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(weight, forKey: "weight")
        coder.encode(seen, forKey: "seen")
        coder.encode(tags, forKey: "tags")
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
        weight = try coder.decodeFloat(forKey: "weight")
        seen =
            try coder.decodeObject(of: Date.self, forKey: "seen") ?? Date(timeIntervalSinceReferenceDate: 0)
        tags = try coder.decodeArrayOfObjects(ofClass: String.self, forKey: "tags") ?? []
    }

    /// The fields read the README's way (`decodeObject(of: [String].self, forKey:)` for the
    /// tags), for the types that decode the same object idiomatically.
    @inline(__always)
    static func readIdiomatically(_ coder: KeyedUnarchiver) throws -> BenchCreature {
        BenchCreature(
            name: try coder.decodeObject(of: String.self, forKey: "name") ?? "",
            weight: try coder.decodeFloat(forKey: "weight"),
            seen: try coder.decodeObject(of: Date.self, forKey: "seen")
                ?? Date(timeIntervalSinceReferenceDate: 0),
            tags: try coder.decodeObject(of: [String].self, forKey: "tags") ?? [])
    }

    static func == (lhs: BenchCreature, rhs: BenchCreature) -> Bool {
        lhs.name == rhs.name && lhs.weight == rhs.weight && lhs.seen == rhs.seen && lhs.tags == rhs.tags
    }
}

/// The same object decoded the README's way (`decodeObject(of: [String].self, forKey:)`).
final class IdiomaticBenchCreature: SecureKeyedCoding {
    static var archivedClassName: String { "benchmarks.FoundationBenchCreature" }
    let name: String
    let weight: Float
    let seen: Date
    let tags: [String]

    var plain: BenchCreature { BenchCreature(name: name, weight: weight, seen: seen, tags: tags) }

    /// Written as ``BenchCreature`` writes it; only the reading differs.
    func encode(with coder: KeyedArchiver) {
        plain.encode(with: coder)
    }

    init(coder: KeyedUnarchiver) throws {
        let read = try BenchCreature.readIdiomatically(coder)
        name = read.name
        weight = read.weight
        seen = read.seen
        tags = read.tags
    }
}

/// Foundation's side of the same object (top-level, as Foundation on Linux requires).
final class FoundationBenchCreature: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    let weight: Float
    let seen: Date
    let tags: [String]

    init(name: String, weight: Float, seen: Date, tags: [String]) {
        self.name = name
        self.weight = weight
        self.seen = seen
        self.tags = tags
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(weight, forKey: "weight")
        coder.encode(seen, forKey: "seen")
        coder.encode(tags, forKey: "tags")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") as String?,
            let seen = coder.decodeObject(of: NSDate.self, forKey: "seen") as Date?,
            let tags = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "tags") as? [String]
        else { return nil }
        self.name = name
        weight = coder.decodeFloat(forKey: "weight")
        self.seen = seen
        self.tags = tags
    }
}
