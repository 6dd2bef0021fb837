import Foundation
import KeyedArchive

/// Our side of the peers benchmark (`Benchmarks/peers/run.sh`): `benchmarks --peers DIR
/// ROUNDS` reads the inputs that `make_inputs.py` wrote for one shape and seed into `DIR`
/// and prints one line `operation<TAB>keyed-archive<TAB>seconds` per timed round, as the
/// C, Rust and Python harnesses do. Round 0 is a warm-up; the operations alternate within
/// each round. With `OPERATION`, only that one runs (for profiling, e.g. under callgrind).
///
/// The operations are `parse-binary`, `parse-xml`, `parse-openstep`, `write-binary`,
/// `write-xml` and `release`, each on `small` (1,000 small documents), `generic` (a 5 MB
/// document) and `archive` (a 10,000-object archive; no OpenStep form), named
/// `OPERATION-INPUT`. Writing uses the defaults (sorted keys); the trees written and
/// released are parsed from the binary form.
enum PeersHarness {
    /// Holds trees so that releasing them happens exactly where the harness says.
    private final class Holder {
        var trees: [PropertyList] = []
    }

    private struct Input {
        let name: String
        let binary: [Data]
        let xml: [Data]
        let openStep: [Data]
    }

    /// Parses every document into `holder`; out of line, so that callgrind can count it
    /// alone (`--toggle-collect='*parseAll*'`).
    @inline(never)
    private static func parseAll(_ documents: [Data], into holder: Holder) throws {
        for data in documents { holder.trees.append(try PropertyList(from: data)) }
    }

    /// Releases the trees `holder` holds; out of line, so that callgrind can count it alone
    /// (`--toggle-collect='*releaseAll*'`).
    @inline(never)
    private static func releaseAll(_ holder: Holder) {
        holder.trees = []
    }

    static func run(directory: String, rounds: Int, only: String? = nil) throws {
        let folder = URL(fileURLWithPath: directory)
        func read(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }
        func optional(_ name: String) -> Data? { try? read(name) }
        let smallNames = (0..<1000).map { String(format: "small/%04d", $0) }
        let smallOpenStep = smallNames.compactMap { optional($0 + ".plist") }
        let inputs = [
            Input(
                name: "small", binary: try smallNames.map { try read($0 + ".bplist") },
                xml: try smallNames.map { try read($0 + ".xml") },
                openStep: smallOpenStep.count == smallNames.count ? smallOpenStep : []),
            Input(
                name: "generic", binary: [try read("generic.bplist")], xml: [try read("generic.xml")],
                openStep: optional("generic.plist").map { [$0] } ?? []),
            Input(
                name: "archive", binary: [try read("archive.bplist")], xml: [try read("archive.xml")],
                openStep: []),
        ]
        let clock = ContinuousClock()
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
        func report(_ operation: String, _ round: Int, _ duration: Duration) {
            guard round > 0 else { return }
            print("\(operation)\tkeyed-archive\t\(String(format: "%.9f", seconds(duration)))")
        }
        func wants(_ operation: String) -> Bool { only.map { $0 == operation } ?? true }
        let holder = Holder()
        for round in 0...rounds {
            for input in inputs {
                func parse(_ operation: String, _ documents: [Data]) throws {
                    let name = "\(operation)-\(input.name)"
                    guard !documents.isEmpty, wants(name) else { return }
                    holder.trees.reserveCapacity(documents.count)
                    let start = clock.now
                    try parseAll(documents, into: holder)
                    report(name, round, clock.now - start)
                    holder.trees = []
                }
                try parse("parse-binary", input.binary)
                try parse("parse-xml", input.xml)
                try parse("parse-openstep", input.openStep)

                let writes = ["write-binary", "write-xml"].filter { wants("\($0)-\(input.name)") }
                let releases = wants("release-\(input.name)")
                guard !writes.isEmpty || releases else { continue }
                holder.trees = try input.binary.map { try PropertyList(from: $0) }
                for operation in writes {
                    let format: PropertyListFormat = operation == "write-binary" ? .binary : .xml
                    var total = 0
                    let start = clock.now
                    for tree in holder.trees { total += try tree.data(format: format).count }
                    report("\(operation)-\(input.name)", round, clock.now - start)
                    blackHole(total)
                }
                if releases {
                    let start = clock.now
                    releaseAll(holder)
                    report("release-\(input.name)", round, clock.now - start)
                }
                holder.trees = []
            }
        }
    }
}
