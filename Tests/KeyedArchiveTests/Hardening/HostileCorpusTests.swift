import Foundation
import Testing

/// The hostile corpus: for each defect class of "Hardening II" that costs memory or
/// output, an input built by a generator in `HardeningProbe` (CorpusProbe.swift) and run
/// in a child process, which reports its own peak resident size. Each must stay under a
/// fixed cap of memory, and write at most 64 bytes per input byte (or 64 MB).
@Suite("Hardening: hostile corpus")
struct HostileCorpusTests {
    /// The peak memory allowed above the child's own start, in kilobytes: the value budget
    /// (about a million values) and a 64 MB output limit fit; the defects took 0.7 to 4.5 GB.
    static let peakCapKilobytes = 160 * 1024

    /// Written in pieces to a destination that keeps none: only a piece is held at a time.
    static let streamedPeakCapKilobytes = 24 * 1024

    static let cases = [
        "large-uid-to-binary", "large-uid-xml-archive", "nested-bomb-json", "nested-bomb-xml",
        "nested-bomb-json-streamed", "nested-bomb-xml-streamed",
        "plain-bombs-graph", "plain-bombs-untyped", "shared-plain-value-outline",
        // Hardening III: typedstreams (TypedStreamCorpus.swift).
        "typedstream-extreme-reference", "typedstream-long-chain", "typedstream-many-classes",
        "imessage-unknown-classes",
    ]

    @Test(.enabled(if: Hardening.probe != nil, "HardeningProbe was not built"), arguments: cases)
    func staysWithinItsBounds(_ name: String) throws {
        let (status, output) = try Hardening.runProbe(["corpus", name])
        #expect(status == 0, "\(output)")
        // NAME: input I bytes, output O bytes, peak P KB, OUTCOME
        let numbers = output.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard output.hasPrefix("\(name): input "), numbers.count >= 3 else {
            Issue.record("unexpected report: \(output)")
            return
        }
        let (input, written, peak) = (numbers[0], numbers[1], numbers[2])
        #expect(written <= max(64 << 20, 64 * input), "\(output)")
        // AddressSanitizer keeps freed memory in quarantine and adds shadow memory.
        let baseCap = name.hasSuffix("-streamed") ? Self.streamedPeakCapKilobytes : Self.peakCapKilobytes
        // (Its quarantine keeps up to 256 MB of freed memory, whatever the case frees.)
        let cap = output.contains("AddressSanitizer") ? 4 * Self.peakCapKilobytes : baseCap
        #expect(peak <= cap, "\(output)")
        #expect(!output.contains("UNEXPECTED"), "\(output)")
    }
}
