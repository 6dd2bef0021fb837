// `swift run -c release benchmarks [--size small|full] [--filter SUBSTRING] [--json PATH]
//                                  [--no-memory] [--fail-on-missed]`
// `benchmarks --count-ours ID [N]` runs our side of one benchmark N times (default 3) inside
// `countedOursRuns`, for instruction counts of that side alone: see Performance.md, "Counting
// instructions".
// `benchmarks --write-imessage-bodies PATH` writes the typedstream benchmark's 10,000
// message bodies for `typedstream-vs-pytypedstream.py`.
//
// Runs every registered benchmark group (see `BenchmarkRegistry`), ours and Foundation's
// side by side in one process on the same inputs, and prints a table. Method: see
// `TimingPlan` (timing) and `PeakMemory` (memory) in Measurement.swift.

import Foundation

struct Options {
    var size = BenchmarkSize.full
    var filter: String?
    var jsonPath: String?
    var measuresMemory = true
    var failsOnMissedTarget = false
    // Internal: the memory-measuring child mode.
    var memoryChild: (identifier: String, side: String)?
}

func usage() -> Never {
    print(
        """
        usage: benchmarks [--size small|full] [--filter SUBSTRING] [--json PATH] [--no-memory] [--fail-on-missed]
          --size small|full   small: CI smoke test (seconds); full (default): the real measurement
          --filter SUBSTRING  run only benchmarks whose identifier (group/workload/operation/format) contains it
          --json PATH         also write the results as JSON
          --no-memory         skip the peak-memory measurement (child processes)
          --fail-on-missed    exit with status 1 if a speed-up target is missed
        """)
    exit(2)
}

func parseOptions(_ arguments: [String]) -> Options {
    var options = Options()
    var remaining = arguments[...]
    var side: String?
    var memoryIdentifier: String?
    while let argument = remaining.popFirst() {
        switch argument {
        case "--size":
            guard let value = remaining.popFirst(), let size = BenchmarkSize(rawValue: value) else { usage() }
            options.size = size
        case "--filter":
            guard let value = remaining.popFirst() else { usage() }
            options.filter = value
        case "--json":
            guard let value = remaining.popFirst() else { usage() }
            options.jsonPath = value
        case "--no-memory": options.measuresMemory = false
        case "--fail-on-missed": options.failsOnMissedTarget = true
        case "--write-imessage-bodies":
            guard let path = remaining.popFirst() else { usage() }
            do {
                try IMessageBodies.write(count: 10_000, to: path)
                exit(0)
            } catch {
                print("could not write \(path): \(error)")
                exit(1)
            }
        case "--measure-memory": memoryIdentifier = remaining.popFirst()
        case "--side": side = remaining.popFirst()
        default: usage()
        }
    }
    if let memoryIdentifier, let side { options.memoryChild = (memoryIdentifier, side) }
    return options
}

// The peers benchmark's harness mode (see Benchmarks/peers/run.sh).
if (4...5).contains(CommandLine.arguments.count), CommandLine.arguments[1] == "--peers",
    let rounds = Int(CommandLine.arguments[3])
{
    do {
        try PeersHarness.run(
            directory: CommandLine.arguments[2], rounds: rounds,
            only: CommandLine.arguments.dropFirst(4).first)
        exit(0)
    } catch {
        print("peers harness failed: \(error)")
        exit(1)
    }
}

/// Runs our side `count` times; callgrind counts only what runs inside this function
/// (`--toggle-collect='*countedOursRuns*'`), not the preparation of the input nor Foundation.
@inline(never)
func countedOursRuns(_ ours: () throws -> Int, count: Int) rethrows {
    for _ in 0..<count { blackHole(try ours()) }
}

// The benchmarks' identifiers, one per line (for Benchmarks/count-instructions.sh).
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--list-identifiers" {
    for entry in BenchmarkRegistry.all(size: .small) { print(entry.identifier) }
    exit(0)
}

// Instruction-count mode: our side of one benchmark, nothing else timed or printed.
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "--count-ours" {
    let identifier = CommandLine.arguments[2]
    let count = CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 3 : 3
    guard let entry = BenchmarkRegistry.all(size: .small).first(where: { $0.identifier == identifier }) else {
        print("no benchmark is named \(identifier)")
        exit(1)
    }
    do {
        let prepared = try entry.benchmark.prepare()
        try countedOursRuns(prepared.ours, count: count)
        exit(0)
    } catch {
        print("\(identifier) failed: \(error)")
        exit(1)
    }
}

// The options of a measurement run (read after the two modes above, which take arguments of
// their own).
let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let selected = BenchmarkRegistry.all(size: options.size).filter { entry in
    options.filter.map { entry.identifier.contains($0) } ?? true
}

// Child mode: measure one side's peak memory and print it.
if let child = options.memoryChild {
    guard let entry = selected.first(where: { $0.identifier == child.identifier }),
        let prepared = try? entry.benchmark.prepare(),
        let peak = try? PeakMemory.measure(child.side == "ours" ? prepared.ours : prepared.baseline)
    else { exit(1) }
    print(peak)
    exit(0)
}

if selected.isEmpty {
    print("no benchmark matches \(options.filter ?? "")")
    exit(1)
}

let plan = TimingPlan.forSize(options.size)
let measuresMemory = options.measuresMemory && PeakMemory.isSupported
print(
    "KeyedArchive benchmarks (\(options.size.rawValue)): ours vs Foundation PropertyListSerialization, "
        + "median of ≥\(plan.minimumRuns) alternating runs after a warm-up"
        + (measuresMemory ? "; peak memory measured in child processes" : ""))
print("")

var results: [BenchmarkResult] = []
var report = ReportTable()
for (identifier, benchmark) in selected {
    var result = BenchmarkResult(identifier: identifier, benchmark: benchmark)
    do {
        let prepared = try benchmark.prepare()
        result.problem = prepared.verify()
        result.inputBytes = prepared.inputBytes
        let timing = try time(prepared, plan: plan)
        result.record(timing)
        if measuresMemory {
            result.oursPeakMemory = PeakMemory.measureInChild(
                identifier: identifier, side: "ours", size: options.size)
            result.baselinePeakMemory = PeakMemory.measureInChild(
                identifier: identifier, side: "baseline", size: options.size)
        }
    } catch {
        result.problem = "failed: \(error)"
    }
    report.add(result)
    results.append(result)
}
report.print()

if let jsonPath = options.jsonPath {
    do {
        try writeJSON(results, size: options.size, plan: plan, to: jsonPath)
        print("\nresults written to \(jsonPath)")
    } catch {
        print("\ncould not write \(jsonPath): \(error)")
        exit(1)
    }
}

if options.failsOnMissedTarget && results.contains(where: { $0.metTarget == false || $0.problem != nil }) {
    exit(1)
}
