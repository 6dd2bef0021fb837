import Foundation

/// One benchmark's outcome, as printed and as written by `--json`.
struct BenchmarkResult: Codable {
    var identifier: String
    var workload: String
    var operation: String
    var format: String
    /// Speed-up aimed for: baseline time / our time.
    var target: Double?
    var oursMedianSeconds: Double?
    var oursMinimumSeconds: Double?
    var baselineMedianSeconds: Double?
    var baselineMinimumSeconds: Double?
    var runs: Int?
    /// baseline median / our median ("× faster").
    var speedup: Double?
    var metTarget: Bool?
    /// For parses, the input size; for writes, what each side produced.
    var inputBytes: Int?
    var oursOutputBytes: Int?
    var baselineOutputBytes: Int?
    /// Peak RSS growth during one run, in bytes (see `PeakMemory`).
    var oursPeakMemory: Int?
    var baselinePeakMemory: Int?
    /// A verification failure or an error, if any.
    var problem: String?

    init(identifier: String, benchmark: Benchmark) {
        self.identifier = identifier
        workload = benchmark.workload
        operation = benchmark.operation
        format = benchmark.format
        target = benchmark.target
    }

    mutating func record(_ timing: TimingResult) {
        oursMedianSeconds = timing.ours.median
        oursMinimumSeconds = timing.ours.minimum
        baselineMedianSeconds = timing.baseline.median
        baselineMinimumSeconds = timing.baseline.minimum
        runs = timing.ours.seconds.count
        if operation == "write" {
            oursOutputBytes = timing.oursBytes
            baselineOutputBytes = timing.baselineBytes
        }
        if let ours = oursMedianSeconds, let baseline = baselineMedianSeconds, ours > 0 {
            speedup = baseline / ours
            if let target, let speedup { metTarget = speedup >= target }
        }
    }
}

/// The human-readable table.
struct ReportTable {
    private var rows: [[String]] = []
    private var notes: [String] = []
    private let header = [
        "workload", "op", "format", "ours", "Foundation", "speed-up", "target", "", "size ours / Foundation",
        "peak mem ours / Foundation",
    ]

    mutating func add(_ result: BenchmarkResult) {
        let size: String
        if let input = result.inputBytes {
            size = "in \(bytes(input))"
        } else if let ours = result.oursOutputBytes, let baseline = result.baselineOutputBytes {
            size = "\(bytes(ours)) / \(bytes(baseline))"
        } else {
            size = "-"
        }
        let memory =
            result.oursPeakMemory == nil && result.baselinePeakMemory == nil
            ? "-"
            : "\(result.oursPeakMemory.map(bytes) ?? "?") / \(result.baselinePeakMemory.map(bytes) ?? "?")"
        let status: String
        switch result.metTarget {
        case true?: status = "met"
        case false?: status = "MISSED"
        case nil: status = result.problem == nil ? "" : "ERROR"
        }
        rows.append([
            result.workload, result.operation, result.format, result.oursMedianSeconds.map(duration) ?? "-",
            result.baselineMedianSeconds.map(duration) ?? "-",
            result.speedup.map { String(format: "%.1f×", $0) } ?? "-",
            result.target.map { String(format: "≥%g×", $0) } ?? "", status, size, memory,
        ])
        if let problem = result.problem { notes.append("\(result.identifier): \(problem)") }
    }

    func print() {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for (index, row) in all.enumerated() {
            let cells = row.enumerated().map { column, cell in
                // Numbers right-aligned, words left-aligned.
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return (3...6).contains(column) ? padding + cell : cell + padding
            }
            Swift.print(cells.joined(separator: "  "))
            if index == 0 {
                Swift.print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
            }
        }
        if !notes.isEmpty {
            Swift.print("")
            for note in notes { Swift.print("! \(note)") }
        }
    }

    private func duration(_ seconds: Double) -> String {
        if seconds >= 1 { return String(format: "%.2f s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.1f µs", seconds * 1e6)
    }
}

func bytes(_ count: Int) -> String {
    let value = Double(count)
    if value >= 1_048_576 { return String(format: "%.1f MB", value / 1_048_576) }
    if value >= 1024 { return String(format: "%.1f KB", value / 1024) }
    return "\(count) B"
}

private struct JSONReport: Codable {
    var size: String
    var date: String
    var processors: Int
    var timing: String
    var memory: String
    var results: [BenchmarkResult]
}

func writeJSON(_ results: [BenchmarkResult], size: BenchmarkSize, plan: TimingPlan, to path: String) throws {
    let report = JSONReport(
        size: size.rawValue,
        date: ISO8601DateFormatter().string(from: Date()),
        processors: ProcessInfo.processInfo.activeProcessorCount,
        timing: "ContinuousClock; one warm-up run per side, then the sides alternate until each has run "
            + "\(plan.minimumRuns)+ times and \(plan.budget) has passed (at most \(plan.maximumRuns) runs); "
            + "median and minimum reported; speedup = baseline median / ours median",
        memory: "peak RSS growth (VmHWM after − VmRSS before) during one run, in a child process per side, "
            + "after a warm-up run, malloc_trim(0) and a reset of VmHWM via /proc/self/clear_refs",
        results: results)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(report).write(to: URL(fileURLWithPath: path))
}
