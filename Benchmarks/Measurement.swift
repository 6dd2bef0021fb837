import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Timing: after one warm-up run of each side, the two sides run alternately (so that
/// a noisy neighbour slows both alike) until each has run at least `minimumRuns` times and
/// either `budget` has passed or `maximumRuns` is reached. We report the median and the
/// minimum of the samples, measured with `ContinuousClock`.
struct TimingPlan {
    var minimumRuns: Int
    var maximumRuns: Int
    var budget: Duration

    static func forSize(_ size: BenchmarkSize) -> TimingPlan {
        switch size {
        case .small: return TimingPlan(minimumRuns: 3, maximumRuns: 20, budget: .milliseconds(150))
        case .full: return TimingPlan(minimumRuns: 7, maximumRuns: 60, budget: .seconds(3))
        }
    }
}

struct Samples {
    private(set) var seconds: [Double] = []

    mutating func append(_ duration: Duration) {
        let parts = duration.components
        seconds.append(Double(parts.seconds) + Double(parts.attoseconds) * 1e-18)
    }

    var median: Double {
        let sorted = seconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    var minimum: Double { seconds.min() ?? .nan }
}

struct TimingResult {
    var ours = Samples()
    var baseline = Samples()
    var oursBytes = 0
    var baselineBytes = 0
}

func time(_ prepared: PreparedBenchmark, plan: TimingPlan) throws -> TimingResult {
    let clock = ContinuousClock()
    var result = TimingResult()
    // Warm-up, which also records the sizes.
    result.oursBytes = try prepared.ours()
    result.baselineBytes = try prepared.baseline()
    let start = clock.now
    var runs = 0
    while runs < plan.minimumRuns || (clock.now - start < plan.budget && runs < plan.maximumRuns) {
        let oursFirst = runs.isMultiple(of: 2)
        for side in oursFirst ? [true, false] : [false, true] {
            let begin = clock.now
            let bytes = try side ? prepared.ours() : prepared.baseline()
            let elapsed = clock.now - begin
            blackHole(bytes)
            if side { result.ours.append(elapsed) } else { result.baseline.append(elapsed) }
        }
        runs += 1
    }
    return result
}

/// Peak memory: measured in a child process (this executable, re-run with
/// `--measure-memory`), one per benchmark side, so that neither side inherits the
/// other's heap. The child prepares the input, runs the side once to warm up, returns free
/// heap pages to the system (`malloc_trim(0)`), resets the kernel's peak-RSS mark (writing
/// `5` to `/proc/self/clear_refs`), notes the current RSS, runs the side once more, and
/// reports the peak RSS (`VmHWM`) minus that RSS: the most memory the operation needed
/// beyond its input, output included. Linux only; elsewhere it is reported as absent.
enum PeakMemory {
    static var isSupported: Bool {
        FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs")
    }

    /// In the child: measures one side and returns the peak growth in bytes.
    static func measure(_ run: () throws -> Int) throws -> Int? {
        blackHole(try run())
        trimHeap()
        guard resetPeak(), let before = statusField("VmRSS") else { return nil }
        blackHole(try run())
        guard let peak = statusField("VmHWM") else { return nil }
        return max(0, peak - before)
    }

    /// In the parent: runs the child for one side; `nil` if it failed.
    static func measureInChild(identifier: String, side: String, size: BenchmarkSize) -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["--measure-memory", identifier, "--side", side, "--size", size.rawValue]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (`<malloc.h>` is not in the Glibc
    /// module): returns the free pages of every arena to the system.
    private static func trimHeap() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        // RTLD_DEFAULT is the null handle on glibc.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    private static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    /// A `kB` field of `/proc/self/status`, in bytes.
    private static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(number).map { $0 * 1024 }
        }
        return nil
    }
}
