import Foundation
import KeyedArchive

/// The Codable paths: `KeyedArchiveEncoder`/`KeyedArchiveDecoder` and
/// `encodeEncodable`/`decodeDecodable` against Foundation's
/// `PropertyListEncoder`/`PropertyListDecoder` on the same values, binary.
enum CodableBenchmarks: BenchmarkGroup {
    static let name = "codable"

    /// One object of the 10,000-object workload (the fields of the keyed-archive workload).
    struct Creature: Codable, Equatable {
        var name: String
        var legs: Int
        var weight: Double
        var nocturnal: Bool
        var seen: Date
        var created: Date
        var parent: Int?
    }

    static func creatures(_ count: Int) -> [Creature] {
        var state: UInt64 = 1
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { index in
            Creature(
                name: "Creature #\(index)", legs: next(1000), weight: Double(next(1_000_000)) / 1000,
                nocturnal: next(2) == 0,
                seen: Date(timeIntervalSinceReferenceDate: Double(next(700_000_000))),
                created: Date(timeIntervalSinceReferenceDate: Double(next(700_000_000)) + 0.25),
                parent: index == 0 ? nil : next(index))
        }
    }

    static func benchmarks(size: BenchmarkSize) -> [Benchmark] {
        let count = size == .full ? 10_000 : 500
        let workload = "creatures-\(size == .full ? "10k" : "500")"
        let values = Lazy { creatures(count) }
        let foundationEncoder: () -> PropertyListEncoder = {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            return encoder
        }
        return [
            Benchmark(
                workload: workload, operation: "encode", format: "binary", target: 3,
                prepare: {
                    let value = try values.get()
                    let encoder = KeyedArchiveEncoder()
                    let baseline = foundationEncoder()
                    return PreparedBenchmark(
                        ours: { try encoder.encode(value).count },
                        baseline: { try baseline.encode(value).count },
                        verify: {
                            guard let data = try? encoder.encode(value),
                                let back = try? KeyedArchiveDecoder().decode([Creature].self, from: data)
                            else { return "ours fails to round-trip" }
                            return back == value ? nil : "ours round-trips a different value"
                        })
                }),
            Benchmark(
                workload: workload, operation: "decode", format: "binary", target: 3,
                prepare: {
                    let value = try values.get()
                    let ours = try KeyedArchiveEncoder().encode(value)
                    let theirs = try foundationEncoder().encode(value)
                    let decoder = KeyedArchiveDecoder()
                    let baseline = PropertyListDecoder()
                    return PreparedBenchmark(
                        ours: { try decoder.decode([Creature].self, from: ours).count },
                        baseline: { try baseline.decode([Creature].self, from: theirs).count },
                        inputBytes: ours.count,
                        verify: {
                            (try? decoder.decode([Creature].self, from: ours)) == value
                                ? nil : "ours decodes wrongly"
                        })
                }),
            Benchmark(
                workload: workload, operation: "encodeEncodable", format: "binary", target: 3,
                prepare: {
                    let value = try values.get()
                    let baseline = foundationEncoder()
                    return PreparedBenchmark(
                        ours: {
                            let archiver = KeyedArchiver(requiringSecureCoding: true)
                            try archiver.encodeEncodable(value, forKey: KeyedArchiver.rootObjectKey)
                            return try archiver.finishedData().count
                        },
                        baseline: { try baseline.encode(value).count })
                }),
            Benchmark(
                workload: workload, operation: "decodeDecodable", format: "binary", target: 3,
                prepare: {
                    let value = try values.get()
                    let archiver = KeyedArchiver(requiringSecureCoding: true)
                    try archiver.encodeEncodable(value, forKey: KeyedArchiver.rootObjectKey)
                    let ours = try archiver.finishedData()
                    let theirs = try foundationEncoder().encode(value)
                    let baseline = PropertyListDecoder()
                    let decode = {
                        try KeyedUnarchiver(forReadingFrom: ours).decodeDecodable(
                            [Creature].self, forKey: KeyedArchiver.rootObjectKey)
                    }
                    return PreparedBenchmark(
                        ours: { try decode()?.count ?? 0 },
                        baseline: { try baseline.decode([Creature].self, from: theirs).count },
                        inputBytes: ours.count,
                        verify: { (try? decode()) == value ? nil : "ours decodes wrongly" })
                }),
        ]
    }
}
