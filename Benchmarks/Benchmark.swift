import Foundation

/// How big the workloads are: `small` is a smoke test for CI (seconds), `full` the real
/// measurement.
enum BenchmarkSize: String, CaseIterable {
    case small
    case full
}

/// A family of benchmarks kept in its own file (`PropertyListBenchmarks.swift`, later the
/// keyed archiver's and the Codable bridge's). Register new groups in
/// `BenchmarkRegistry.groups`.
protocol BenchmarkGroup {
    /// A short name, the first component of every benchmark identifier.
    static var name: String { get }

    /// The group's benchmarks at `size`. Building this list must be cheap: workloads are
    /// generated lazily, by `Benchmark.prepare`, only for benchmarks that are run.
    static func benchmarks(size: BenchmarkSize) -> [Benchmark]
}

/// One comparison: the same operation on the same input, by us and by a baseline
/// (Foundation), timed in one process.
struct Benchmark {
    /// What the input is, e.g. `keyed-archive-10k`.
    var workload: String
    /// What is done to it: `parse` or `write`.
    var operation: String
    /// `binary` or `xml`.
    var format: String
    /// The speed-up over the baseline (baseline time / our time) we aim for, if any.
    var target: Double?
    /// Builds the input and returns the two sides to time. Called once per process.
    var prepare: () throws -> PreparedBenchmark

    /// `group/workload/operation/format`, what `--filter` matches.
    func identifier(group: String) -> String {
        "\(group)/\(workload)/\(operation)/\(format)"
    }
}

/// The two runnable sides of a benchmark, ready to time.
struct PreparedBenchmark {
    /// Each side returns the number of bytes it produced (for writes) or consumed (for
    /// parses); the value is also fed to `blackHole` to keep the work alive.
    var ours: () throws -> Int
    var baseline: () throws -> Int
    /// Bytes of input, for parses.
    var inputBytes: Int?
    /// Checks, outside the timing, that our side produces the right result; returns a
    /// description of the problem, or `nil`.
    var verify: () -> String? = { nil }
}

/// Keeps a value observable so that the optimiser cannot delete the work producing it.
nonisolated(unsafe) var blackHoleSink: Int = 0

@inline(never)
func blackHole(_ value: Int) {
    blackHoleSink &+= value
}

@inline(never)
func blackHole(_ value: AnyObject) {
    blackHoleSink &+= ObjectIdentifier(value).hashValue & 1
}

/// Every registered group. Add a group here when adding its file.
enum BenchmarkRegistry {
    static var groups: [any BenchmarkGroup.Type] {
        [
            PropertyListBenchmarks.self,
            KeyedArchiveBenchmarks.self,
            CodableBenchmarks.self,
            AppleClassBenchmarks.self,
            TypedStreamBenchmarks.self,
            IdiomaticBenchmarks.self,
        ]
    }

    static func all(size: BenchmarkSize) -> [(identifier: String, benchmark: Benchmark)] {
        groups.flatMap { group in
            group.benchmarks(size: size).map { (identifier: $0.identifier(group: group.name), benchmark: $0) }
        }
    }
}

/// A value computed on first use and then kept, so that the benchmarks of one workload
/// share its input within a process.
final class Lazy<Value> {
    private var value: Value?
    private let make: () throws -> Value

    init(_ make: @escaping () throws -> Value) { self.make = make }

    func get() throws -> Value {
        if let value { return value }
        let made = try make()
        value = made
        return made
    }
}
