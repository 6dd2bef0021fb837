// A client that uses only what KeyedArchive's README teaches: an archive of 10,000 small
// objects written by Foundation's NSKeyedArchiver (as files from Apple devices are) is
// unarchived with `KeyedUnarchiver.unarchivedObject(ofClass: [Creature].self, from:)`, each
// object reading its tags with `decodeObject(of: [String].self, forKey:)`, and with
// Foundation's NSKeyedUnarchiver. Both results must be equal; the ratio of the times is
// printed, with the target (≥ 30×).
//
// `swift run -c release idiomatic-client [COUNT] [ROUNDS]` from Benchmarks/ClientPackage.

import Foundation
import KeyedArchive

/// The model type, as the README writes one.
final class Creature: SecureKeyedCoding {
    static var archivedClassName: String { "IdiomaticClient.FoundationCreature" }
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
        tags = try coder.decodeObject(of: [String].self, forKey: "tags") ?? []
    }
}

/// Foundation's side of the same object.
final class FoundationCreature: NSObject, NSSecureCoding {
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

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.first ?? 10_000
let rounds = max(arguments.dropFirst().first ?? 7, 1)

// The objects, generated deterministically, and Foundation's archive of them.
func makeOriginals(count: Int) -> [FoundationCreature] {
    var state: UInt64 = 7
    func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
    let words = ["small", "grey", "harmless", "nocturnal", "shiny", "fast", "loud", "rare"]
    return (0..<count).map { index in
        FoundationCreature(
            name: "Creature #\(index) \(next() % 100_000)", weight: Float(next() % 100_000) / 64,
            seen: Date(timeIntervalSinceReferenceDate: Double(next() % 700_000_000) + 0.5),
            tags: [words[Int(next() % 8)], words[Int(next() % 8)]])
    }
}
let originals = makeOriginals(count: count)
// Foundation on Linux archives a Swift class under its module-qualified name.
NSKeyedArchiver.setClassName(Creature.archivedClassName, for: FoundationCreature.self)
NSKeyedUnarchiver.setClass(FoundationCreature.self, forClassName: Creature.archivedClassName)
let archive = try NSKeyedArchiver.archivedData(withRootObject: originals, requiringSecureCoding: true)

func ours() throws -> [Creature] {
    try KeyedUnarchiver.unarchivedObject(ofClass: [Creature].self, from: archive) ?? []
}

func foundation() throws -> [FoundationCreature] {
    try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, FoundationCreature.self], from: archive)
        as? [FoundationCreature] ?? []
}

// Both must read the same objects.
let ourObjects = try ours()
let theirObjects = try foundation()
let equal =
    ourObjects.count == count && theirObjects.count == count
    && zip(ourObjects, theirObjects).allSatisfy { mine, theirs in
        mine.name == theirs.name && mine.weight == theirs.weight && mine.seen == theirs.seen
            && mine.tags == theirs.tags
    }
guard equal else {
    print("FAILED: KeyedArchive and NSKeyedUnarchiver read different objects")
    exit(1)
}

// Alternating rounds after the warm-up above; the medians are compared.
let clock = ContinuousClock()
var ourTimes: [Duration] = []
var theirTimes: [Duration] = []
for round in 0..<rounds {
    for side in round.isMultiple(of: 2) ? [true, false] : [false, true] {
        let start = clock.now
        let decoded = side ? try ours().count : try foundation().count
        let elapsed = clock.now - start
        guard decoded == count else {
            print("FAILED: \(decoded) objects decoded of \(count)")
            exit(1)
        }
        if side { ourTimes.append(elapsed) } else { theirTimes.append(elapsed) }
    }
}
func median(_ times: [Duration]) -> Double {
    let sorted = times.sorted()
    let middle = sorted[sorted.count / 2]
    return Double(middle.components.seconds) + Double(middle.components.attoseconds) * 1e-18
}
let ourMedian = median(ourTimes)
let theirMedian = median(theirTimes)
let ratio = theirMedian / ourMedian
print(
    "unarchive \(count) objects written by NSKeyedArchiver (\(archive.count) bytes), median of \(rounds) rounds:"
)
print(String(format: "  KeyedArchive (README's API)  %8.2f ms", ourMedian * 1e3))
print(String(format: "  NSKeyedUnarchiver            %8.2f ms", theirMedian * 1e3))
print(String(format: "  ratio %.1f× (target ≥ 30×): ", ratio) + (ratio >= 30 ? "met" : "MISSED"))
exit(ratio >= 30 ? 0 : 1)
