import Foundation
import KeyedArchive
import Testing

/// A class whose archived name each task changes for its own archives while others decode.
final class ConcurrentCreature: SecureKeyedCoding, Equatable {
    static var archivedClassName: String { "Concurrency.Creature" }
    let name: String
    let scores: [Int]
    let friend: ConcurrentCreature?

    init(name: String, scores: [Int], friend: ConcurrentCreature? = nil) {
        self.name = name
        self.scores = scores
        self.friend = friend
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(scores, forKey: "scores")
        coder.encode(friend, forKey: "friend")
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
        scores = try coder.decodeArrayOfObjects(ofClass: Int.self, forKey: "scores") ?? []
        friend = try coder.decodeObject(of: ConcurrentCreature.self, forKey: "friend")
    }

    static func == (lhs: ConcurrentCreature, rhs: ConcurrentCreature) -> Bool {
        lhs.name == rhs.name && lhs.scores == rhs.scores && lhs.friend == rhs.friend
    }
}

/// A type written under a process-wide name (`KeyedArchiver.setClassName`) and read back
/// through a process-wide mapping (`KeyedUnarchiver.setClass`), both set while other tasks
/// archive and unarchive.
struct ConcurrentRenamed: SecureKeyedCoding, Equatable {
    let value: Int
    init(value: Int) { self.value = value }
    func encode(with coder: KeyedArchiver) { coder.encode(value, forKey: "value") }
    init(coder: KeyedUnarchiver) throws { value = try coder.decodeInteger(forKey: "value") }
}

/// Archivers and unarchivers used from many tasks at once, while the process-wide class
/// tables are written and read. Run under ThreadSanitizer with
/// `swift test --sanitize=thread --filter Concurrency` (see Documentation/Security.md).
@Suite("Concurrency")
struct ConcurrencyTests {
    static let taskCount = 32
    static let iterations = 40

    @Test func manyTasksArchiveAndUnarchiveWhileClassTablesChange() async throws {
        // One archive shared by every task (Data is a value; readers share its storage).
        let shared = ConcurrentCreature(name: "shared", scores: [1, 2, 3])
        let sharedArchive = try KeyedArchiver.archivedData(
            withRootObject: ConcurrentCreature(name: "root", scores: Array(0..<50), friend: shared),
            requiringSecureCoding: true)
        KeyedArchiver.setClassName("Concurrency.Renamed", for: ConcurrentRenamed.self)
        KeyedUnarchiver.setClass(ConcurrentRenamed.self, forClassName: "Concurrency.Renamed")
        defer {
            KeyedArchiver.setClassName(nil, for: ConcurrentRenamed.self)
            KeyedUnarchiver.setClass(nil, forClassName: "Concurrency.Renamed")
        }

        let failures = await withTaskGroup(of: [String].self) { group in
            for task in 0..<Self.taskCount {
                group.addTask {
                    var failures: [String] = []
                    for round in 0..<Self.iterations {
                        do {
                            try Self.oneRound(task: task, round: round, sharedArchive: sharedArchive)
                        } catch {
                            failures.append("task \(task) round \(round): \(error)")
                        }
                    }
                    return failures
                }
            }
            var all: [String] = []
            for await failures in group { all += failures }
            return all
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    static func oneRound(task: Int, round: Int, sharedArchive: Data) throws {
        // Writers of the process-wide tables: names only this task uses, set and removed.
        let alias = "Concurrency.Alias\(task)"
        KeyedUnarchiver.setClass(ConcurrentRenamed.self, forClassName: alias)
        _ = KeyedArchiver.className(for: ConcurrentRenamed.self)

        // Decode the shared archive.
        let root = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ConcurrentCreature.self, from: sharedArchive))
        guard root.name == "root", root.scores == Array(0..<50), root.friend?.name == "shared" else {
            throw KeyedArchiveError(.invalidValue, "shared archive decoded wrongly")
        }

        // Archive something of our own, through the process-wide name, and read it back.
        let mine = ConcurrentCreature(
            name: "task \(task)", scores: [task, round],
            friend: ConcurrentCreature(name: "friend \(round)", scores: []))
        let format: PropertyListFormat = round % 2 == 0 ? .binary : .xml
        let data = try KeyedArchiver.archivedData(
            withRootObject: mine, requiringSecureCoding: true, format: format)
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: ConcurrentCreature.self, from: data)
        guard back == mine else { throw KeyedArchiveError(.invalidValue, "round trip changed \(mine.name)") }

        let renamed = try KeyedArchiver.archivedData(
            withRootObject: ConcurrentRenamed(value: task * 1000 + round), requiringSecureCoding: true)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: renamed)
        guard try unarchiver.archivedClassName(forKey: "root") == "Concurrency.Renamed",
            try unarchiver.decodeObject(of: ConcurrentRenamed.self, forKey: "root")?.value == task * 1000
                + round
        else { throw KeyedArchiveError(.invalidValue, "renamed type decoded wrongly") }

        // Read through our alias, then remove it.
        let aliased = KeyedArchiver(requiringSecureCoding: true)
        aliased.setClassName(alias, for: ConcurrentRenamed.self)
        aliased.encode(ConcurrentRenamed(value: round), forKey: "root")
        let viaAlias = try KeyedUnarchiver(forReadingFrom: aliased.finishedData())
        guard try viaAlias.decodeObject(of: ConcurrentRenamed.self, forKey: "root")?.value == round else {
            throw KeyedArchiveError(.invalidValue, "alias decoded wrongly")
        }
        KeyedUnarchiver.setClass(nil, forClassName: alias)

        // Property lists too.
        let plist: PropertyList = [
            "task": .integer(PropertyListInteger(Int64(task))), "round": .string("\(round)"),
        ]
        guard try PropertyList(from: plist.data(format: .binary)) == plist else {
            throw KeyedArchiveError(.invalidValue, "property list changed")
        }
    }
}
