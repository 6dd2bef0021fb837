import Foundation
import KeyedArchive

/// Our side of the peers benchmark (`Benchmarks/peers/run.sh`): `benchmarks --peers DIR
/// ROUNDS` reads the inputs that `make_inputs.py` wrote into `DIR` and prints one line
/// `operation<TAB>keyed-archive<TAB>seconds` per timed round, as the C, Rust and Python
/// harnesses do. Round 0 is a warm-up; the operations alternate within each round. With
/// `OPERATION`, only that one runs (for profiling, e.g. under callgrind).
enum PeersHarness {
    /// Holds a tree so that releasing it happens exactly where the harness says.
    private final class Holder {
        var value: PropertyList?
        init(_ value: PropertyList?) { self.value = value }
    }

    static func run(directory: String, rounds: Int, only: String? = nil) throws {
        func read(_ name: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
        let small = try (0..<1000).map { try read(String(format: "small/%04d.bplist", $0)) }
        let openStep = try (0..<1000).map { try read(String(format: "openstep/%04d.plist", $0)) }
        let generic = try read("generic.bplist")
        let genericXML = try read("generic.xml")
        let archive = try read("archive.bplist")
        let clock = ContinuousClock()
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
        func report(_ operation: String, _ round: Int, _ duration: Duration) {
            guard round > 0 else { return }
            print("\(operation)\tkeyed-archive\t\(String(format: "%.9f", seconds(duration)))")
        }
        func wants(_ operation: String) -> Bool { only.map { $0 == operation } ?? true }
        for round in 0...rounds {
            var start = clock.now
            var trees: [PropertyList] = []
            trees.reserveCapacity(small.count)
            if wants("parse-binary-small") || wants("write-xml-small") {
                for data in small { trees.append(try PropertyList(from: data)) }
                report("parse-binary-small", round, clock.now - start)
            }
            if wants("write-xml-small") {
                start = clock.now
                var total = 0
                for tree in trees { total += try tree.data(format: .xml).count }
                report("write-xml-small", round, clock.now - start)
                blackHole(total)
            }
            trees = []

            if wants("parse-openstep-small") {
                start = clock.now
                for data in openStep { trees.append(try PropertyList(from: data)) }
                report("parse-openstep-small", round, clock.now - start)
                trees = []
            }

            let holder = Holder(nil)
            if wants("release-generic") {
                holder.value = try PropertyList(from: generic)
                start = clock.now
                holder.value = nil
                report("release-generic", round, clock.now - start)
            }

            if wants("parse-binary-generic") || wants("write-binary-generic") {
                start = clock.now
                holder.value = try PropertyList(from: generic)
                report("parse-binary-generic", round, clock.now - start)
            }
            if wants("write-binary-generic") {
                start = clock.now
                blackHole(try holder.value?.data(format: .binary).count ?? 0)
                report("write-binary-generic", round, clock.now - start)
            }
            holder.value = nil

            if wants("parse-xml-generic") {
                start = clock.now
                holder.value = try PropertyList(from: genericXML)
                report("parse-xml-generic", round, clock.now - start)
                holder.value = nil
            }

            if wants("write-xml-archive") {
                let tree = try PropertyList(from: archive)
                start = clock.now
                blackHole(try tree.data(format: .xml).count)
                report("write-xml-archive", round, clock.now - start)
            }
        }
    }
}
