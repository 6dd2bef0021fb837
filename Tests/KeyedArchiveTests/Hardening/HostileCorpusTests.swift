import Foundation
import Testing

/// The hostile corpus: for each defect class of "Hardening II" and "Hardening III" that
/// costs memory, time or output, an input built by a generator in `HardeningProbe`
/// (CorpusProbe.swift) and run in a child process (a library call, or a `keyed-archive`
/// command run in that process), which reports its own peak resident size and the time
/// taken. Each must stay under a fixed cap of memory, finish within two seconds, and write
/// at most 64 bytes per input byte (or 64 MB).
@Suite("Hardening: hostile corpus")
struct HostileCorpusTests {
    /// The peak memory allowed above the child's own start, in kilobytes: the value budget
    /// (about a million values) and a 64 MB output limit fit; the defects took 0.25 to 4.5 GB.
    static let peakCapKilobytes = 160 * 1024

    /// Written in pieces to a destination that keeps none: only a piece is held at a time.
    static let streamedPeakCapKilobytes = 24 * 1024

    /// The time allowed to a case built for release, in milliseconds. Hardening III's took
    /// 2.4 to 33 seconds (printing a bomb up to the 64 MB limit, expanding one 2,000 times).
    static let timeCapMilliseconds = 2_000

    /// How much slower a debug build (as `swift test` builds the probe) may be for the
    /// Hardening III cases: the ones refused at once still are, and the ones that write
    /// 64 MB of text take a few times longer unoptimized (3.2 s at most, measured). The
    /// library's JSON writer is 50 times slower unoptimized (the 2.6 KB nested bomb reaches
    /// its limit in 0.45 s, 19–26 s in a debug build), so the earlier cases have their time
    /// checked in optimized builds only.
    static let debugSlowdown = 8

    /// The output allowed, whatever the input (the tool's limit is 64 MB for these).
    static let outputCapBytes = 100 << 20

    static let cases = [
        "large-uid-to-binary", "large-uid-xml-archive", "nested-bomb-json", "nested-bomb-xml",
        "nested-bomb-json-streamed", "nested-bomb-xml-streamed",
        "plain-bombs-graph", "plain-bombs-untyped", "shared-plain-value-outline",
        "plain-bomb-entry-graph", "plain-bomb-entry-graph-from-value", "plain-bomb-entry-outline",
        "tool-decode-plain-bomb-entry", "tool-decode-json-plain-bomb-entry",
        "tool-decode-jsonl-plain-bomb-entry", "tool-print-plain-bomb-entry",
        "tool-expand-jsonl-shared-data", "tool-expand-text-shared-data", "tool-expand-json-shared-data",
        "tool-print-nested-bomb", "tool-swift-nested-bomb", "tool-objc-nested-bomb", "tool-xml-nested-bomb",
        "tool-json-nested-bomb", "tool-decode-expand-nested-bomb",
        // Hardening III: typedstreams (TypedStreamCorpus.swift).
        "typedstream-extreme-reference", "typedstream-long-chain", "typedstream-many-classes",
        "imessage-unknown-classes", "typedstream-c-string-references", "typedstream-atom-references",
    ]

    /// What each tool case must end with: its output in full (`value`), or a refusal whose
    /// message (the first line of standard error, or of standard output for `--jsonl`)
    /// holds this text, naming the output limit or the value budget.
    static let outcomes = [
        "tool-decode-plain-bomb-entry": "value",
        "tool-decode-json-plain-bomb-entry": "value",
        "tool-decode-jsonl-plain-bomb-entry": "value",
        "tool-print-plain-bomb-entry": "refused: FILE: the output would be larger than 67108864 bytes",
        "tool-expand-jsonl-shared-data": "the expanded value is larger than the output allows",
        "tool-expand-text-shared-data": "refused: FILE: the output would be larger than 67108864 bytes",
        "tool-expand-json-shared-data": "refused: FILE: items.",
        "tool-print-nested-bomb": "refused: FILE: the output would be larger than 67108864 bytes",
        "tool-swift-nested-bomb": "refused: FILE: the output would be larger than 67108864 bytes",
        "tool-objc-nested-bomb": "refused: FILE: the output would be larger than 67108864 bytes",
        "tool-xml-nested-bomb": "refused: FILE: cannot write as xml1: ",
        "tool-json-nested-bomb": "value",
        "tool-decode-expand-nested-bomb": "refused: FILE: the output would be larger than 67108864 bytes",
    ]

    /// One at a time, so that the times measured are each case's own.
    @Test(.enabled(if: Hardening.probe != nil, "HardeningProbe was not built"), .serialized, arguments: cases)
    func staysWithinItsBounds(_ name: String) throws {
        let (status, output) = try Hardening.runProbe(["corpus", name])
        #expect(status == 0, "\(output)")
        // NAME: input I bytes, output O bytes, peak P KB, time T ms, OUTCOME
        let numbers = output.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard output.hasPrefix("\(name): input "), numbers.count >= 4 else {
            Issue.record("unexpected report: \(output)")
            return
        }
        let (input, written, peak, milliseconds) = (numbers[0], numbers[1], numbers[2], numbers[3])
        #expect(written <= max(64 << 20, 64 * input), "\(output)")
        #expect(written <= Self.outputCapBytes, "\(output)")
        // AddressSanitizer keeps freed memory in quarantine and adds shadow memory.
        let baseCap = name.hasSuffix("-streamed") ? Self.streamedPeakCapKilobytes : Self.peakCapKilobytes
        // (Its quarantine keeps up to 256 MB of freed memory, whatever the case frees.)
        let sanitized = output.contains("AddressSanitizer")
        let cap = sanitized ? 4 * Self.peakCapKilobytes : baseCap
        #expect(peak <= cap, "\(output)")
        let debug = output.contains("(debug build)")
        if !debug || Self.outcomes[name] != nil || name.hasPrefix("plain-bomb-entry") {
            let timeCap = Self.timeCapMilliseconds * (debug ? Self.debugSlowdown : 1) * (sanitized ? 4 : 1)
            #expect(milliseconds <= timeCap, "\(output)")
        }
        #expect(!output.contains("UNEXPECTED"), "\(output)")
        if let outcome = Self.outcomes[name] {
            #expect(output.contains(outcome == "value" ? " ms, value" : outcome), "\(output)")
        }
    }
}
