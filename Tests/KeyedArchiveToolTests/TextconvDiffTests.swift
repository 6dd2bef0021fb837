import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// `textconv` and `diff` (issue 30): stable text for line diffs, semantic differences.
@Suite struct TextconvDiffTests {
    /// A keyed archive of an `NSArray` of `Item`s (name, legs, a `Tag` every item shares),
    /// laid out as `NSKeyedArchiver` lays it out: strings de-duplicated, objects numbered in
    /// the order they are reached, so that inserting an item renumbers everything after it.
    static func itemsArchive(_ items: [(name: String, legs: Int)]) throws -> Data {
        var objects: [PropertyList] = ["$null"]
        func add(_ value: PropertyList) -> PropertyList {
            objects.append(value)
            return .uid(UInt64(objects.count - 1))
        }
        let root = add("placeholder")
        let arrayClass = add(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        let itemClass = add(["$classname": "Item", "$classes": ["Item", "NSObject"]])
        let tagClass = add(["$classname": "Tag", "$classes": ["Tag", "NSObject"]])
        let tag = add(["$class": tagClass, "label": add("harmless")])
        var strings: [String: PropertyList] = [:]
        var references: [PropertyList] = []
        for item in items {
            let name = strings[item.name] ?? add(.string(item.name))
            strings[item.name] = name
            references.append(
                add([
                    "$class": itemClass, "name": name, "legs": .integer(PropertyListInteger(item.legs)),
                    "tag": tag,
                ]))
        }
        objects[1] = ["$class": arrayClass, "NS.objects": .array(references)]
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": root],
            "$objects": .array(objects),
        ]
        return try archive.data(format: .binary)
    }

    static let thousand = (0..<1000).map { (name: "item \($0)", legs: $0 % 7) }

    /// The thousand items with item 10's legs changed and one item inserted at 500.
    static var thousandChanged: [(name: String, legs: Int)] {
        var items = thousand
        items[10].legs = 99
        items.insert((name: "newcomer", legs: 3), at: 500)
        return items
    }

    /// Lines `git diff` marks `+` or `-` (its `+++`/`---` headers not counted).
    static func changedLines(_ diff: String) -> [String] {
        diff.split(separator: "\n").map(String.init).filter {
            ($0.hasPrefix("+") && !$0.hasPrefix("+++")) || ($0.hasPrefix("-") && !$0.hasPrefix("---"))
        }
    }

    static func git(_ arguments: [String], in folder: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"] + arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static let hasGit = FileManager.default.isExecutableFile(atPath: "/usr/bin/git")

    @Test func textconvOfTheThousandItemsChangesFewLines() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let before = ToolRun([
            "textconv", try directory.write(try Self.itemsArchive(Self.thousand), to: "a.archive"),
        ])
        let after = ToolRun([
            "textconv", try directory.write(try Self.itemsArchive(Self.thousandChanged), to: "b.archive"),
        ])
        #expect(before.status == 0 && after.status == 0, "\(before.error) \(after.error)")
        #expect(
            before.outputText.hasPrefix("# keyed archive (binary)\nroot: NSArray\n  - Item\n"),
            "\(before.outputText.prefix(300))")
        // The shared tag is printed once, named from its content, then referred to.
        let tagLines = before.outputLines.filter { $0.contains("tag: ") }
        #expect(tagLines.count == 1000)
        #expect(tagLines[0].hasPrefix("    tag: Tag &Tag-"))
        #expect(Set(tagLines.dropFirst()).count == 1 && tagLines[1].contains("tag: *Tag-"))
        // Diffed as text: the changed field (2 lines) and the inserted item (4 lines).
        try directory.write(before.output, to: "a.txt")
        try directory.write(after.output, to: "b.txt")
        guard Self.hasGit else { return }
        let diff = try Self.git(["diff", "--no-index", "--", "a.txt", "b.txt"], in: directory.url)
        let changed = Self.changedLines(diff)
        #expect(changed.count <= 12, "\(changed)")
        #expect(changed.contains("-    legs: 3") && changed.contains("+    legs: 99"), "\(changed)")
        #expect(changed.contains("+    name: \"newcomer\""), "\(changed)")
    }

    /// The recipe of Documentation/CommandLineTool.md, with the built executable as the
    /// driver: `git diff` of the one-field change and the inserted object.
    @Test(.enabled(if: hasGit && EndToEndTests.executable != nil, EndToEndTests.skipNote))
    func gitDiffWithTheTextconvDriver() throws {
        let executable = try #require(EndToEndTests.executable)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try Self.git(["init", "-q"], in: directory.url)
        _ = try Self.git(["config", "diff.plist.textconv", "\(executable.path) textconv"], in: directory.url)
        try directory.write("*.archive diff=plist\n", to: ".gitattributes")
        try directory.write(try Self.itemsArchive(Self.thousand), to: "items.archive")
        _ = try Self.git(["add", "."], in: directory.url)
        _ = try Self.git(["commit", "-qm", "before"], in: directory.url)
        try directory.write(try Self.itemsArchive(Self.thousandChanged), to: "items.archive")
        let diff = try Self.git(["diff"], in: directory.url)
        let changed = Self.changedLines(diff)
        #expect(!changed.isEmpty && changed.count <= 12, "\(diff)")
        // Without the driver git sees only binary files.
        let plain = try Self.git(["diff", "--no-textconv"], in: directory.url)
        #expect(plain.contains("Binary files"))
    }

    @Test func textconvShowsCyclesSharingDataAndNestedArchives() throws {
        let nested = try Self.itemsArchive([(name: "inner", legs: 1)])
        let plist: PropertyList = [
            "Name": "Profile", "Blob": .data(Data(repeating: 7, count: 100)), "Archive": .data(nested),
            "Short": .data(Data([1, 2, 3])), "Empty": [:], "odd key: x": [],
        ]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = ToolRun(["textconv", try directory.write(try plist.data(format: .xml), to: "p.plist")])
        #expect(run.status == 0, "\(run.error)")
        let digest = SHA256.hexDigest(Data(repeating: 7, count: 100), characters: 16)
        #expect(
            run.outputText == """
                # property list (xml)
                Archive: <\(nested.count) bytes sha256:\(SHA256.hexDigest(nested, characters: 16))> ⇒ keyed archive
                  root: NSArray
                    - Item
                      legs: 1
                      name: "inner"
                      tag: Tag
                        label: "harmless"
                Blob: <100 bytes sha256:\(digest)>
                Empty: {}
                Name: "Profile"
                Short: <3 bytes 010203>
                "odd key: x": []

                """)
        // A cycle: an object whose field refers back to it.
        let cyclic: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(2), "me": .uid(1), "n": 1],
                ["$classname": "Loop", "$classes": ["Loop", "NSObject"]],
            ],
        ]
        let loop = ToolRun([
            "textconv", try directory.write(try cyclic.data(format: .binary), to: "c.archive"),
        ])
        #expect(loop.status == 0, "\(loop.error)")
        let lines = loop.outputLines
        #expect(lines.count == 4, "\(lines)")
        #expect(lines[1].hasPrefix("root: Loop &Loop-") && lines[2] == "  me: *\(lines[1].dropFirst(12))")
    }

    @Test func textconvOfATypedstreamAndSeveralFiles() throws {
        let typedstream = try TypedStreamArchiver.archivedData(withRootObject: "Potato Bug")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(typedstream, to: "t.typedstream")
        let run = ToolRun(["textconv", path, path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputLines.first == "==> \(path) <==")
        #expect(run.outputLines.contains("# typedstream"))
        #expect(run.outputText.contains("\"Potato Bug\""))
    }

    @Test func textconvOfABombIsBounded() throws {
        // Each array refers to the one before it twice: 2^40 paths through 40 objects.
        var objects: [PropertyList] = ["$null", ["$class": .uid(2), "NS.objects": []]]
        objects.append(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        for index in 3..<43 {
            objects.append([
                "$class": .uid(2),
                "NS.objects": [
                    .uid(UInt64(index == 3 ? 1 : index - 1)), .uid(UInt64(index == 3 ? 1 : index - 1)),
                ],
            ])
        }
        let bomb: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(42)],
            "$objects": .array(objects),
        ]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try bomb.data(format: .binary), to: "bomb.archive")
        let start = Date()
        let run = ToolRun(["textconv", path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputLines.count < 200)
        let diff = ToolRun(["diff", path, path])
        #expect(diff.status == 0, "\(diff.error)")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func diffOfTheThousandItemsByGraphPath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = try directory.write(try Self.itemsArchive(Self.thousand), to: "a.archive")
        let new = try directory.write(try Self.itemsArchive(Self.thousandChanged), to: "b.archive")
        let run = ToolRun(["diff", old, new])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.outputLines == ["~ root.10.legs: 3 → 99", "+ root.500: Item {3 fields}"])
        let same = ToolRun(["diff", old, old])
        #expect(same.status == 0 && same.output.isEmpty)
        let json = ToolRun(["diff", "--json", old, new])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: json.output) as? [String: Any])
        #expect(object["equal"] as? Bool == false)
        let differences = try #require(object["differences"] as? [[String: Any]])
        #expect(differences.count == 2)
        #expect(differences[0]["change"] as? String == "changed")
        #expect(differences[0]["path"] as? String == "root.10.legs")
        #expect(differences[0]["keyPath"] as? [String] == ["root", "10", "legs"])
        #expect(differences[0]["old"] as? String == "3" && differences[0]["new"] as? String == "99")
        #expect(differences[1]["change"] as? String == "added")
        #expect(json.outputText.hasSuffix("}\n"))
    }

    @Test func diffAcrossFormatsAndStatuses() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let value: PropertyList = ["Title": "Potato Bug", "Tags": ["small", "grey"], "Legs": 14]
        let xml = try directory.write(try value.data(format: .xml), to: "a.plist")
        let json = try directory.write(
            #"{"Title": "Pill Bug", "Tags": ["small", "brown", "grey"], "Legs": 14, "New": true}"#,
            to: "b.json")
        let binary = try directory.write(try value.data(format: .binary), to: "c.plist")
        #expect(ToolRun(["diff", xml, binary]).status == 0)
        let run = ToolRun(["diff", xml, json])
        #expect(run.status == 1)
        #expect(
            run.outputLines == [
                "# \(xml): property list (xml); \(json): property list (json)",
                "+ New: true", "+ Tags.1: \"brown\"", "~ Title: \"Potato Bug\" → \"Pill Bug\"",
            ])
        let missing = ToolRun(["diff", xml, directory.path("missing.plist")])
        #expect(missing.status == 2)
        #expect(missing.errorLines == ["\(directory.path("missing.plist")): No such file or directory"])
        let broken = try directory.write("<plist><integer>x</integer></plist>", to: "broken.plist")
        #expect(ToolRun(["diff", broken, xml]).status == 2)
        #expect(ToolRun(["diff", xml]).status == 64)
        #expect(ToolRun(["diff", xml, xml, xml]).status == 64)
        // A removed key, an element removed from the middle, a type change.
        let other = try directory.write(
            try (["Tags": ["grey"], "Legs": "14"] as PropertyList).data(format: .xml), to: "d.plist")
        #expect(
            ToolRun(["diff", xml, other]).outputLines == [
                "~ Legs: 14 → \"14\"", "- Tags.0: \"small\"", "- Title: \"Potato Bug\"",
            ])
    }

    @Test func libraryDifferencesOfGraphs() throws {
        let old = try KeyedUnarchiver.objectGraph(
            from: try Self.itemsArchive([(name: "a", legs: 1), (name: "b", legs: 2)]))
        let new = try KeyedUnarchiver.objectGraph(from: try Self.itemsArchive([(name: "b", legs: 2)]))
        let comparison = new.differences(from: old)
        #expect(!comparison.isEqual && !comparison.isIncomplete)
        #expect(
            comparison.differences == [
                ArchiveDifference(
                    kind: .removed, keyPath: ["root", "0"], oldValue: "Item {3 fields}", newValue: nil)
            ])
        #expect(old.differences(from: old).isEqual)
        // A budget too small to finish says so.
        let small = new.differences(from: old, options: ArchiveComparisonOptions(maximumValues: 3))
        #expect(small.isIncomplete && !small.isEqual)
        let keyed = ArchiveDifference(kind: .changed, keyPath: ["a.b", "c\\d"], oldValue: "1", newValue: "2")
        #expect(keyed.keyPathText == #"a\.b.c\\d"#)
        #expect(keyed.description == #"~ a\.b.c\\d: 1 → 2"#)
    }
}
