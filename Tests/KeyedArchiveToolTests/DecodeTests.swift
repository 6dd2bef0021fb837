import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// A parent and its children, each child pointing back at the parent (a cycle), and a
/// tag object shared by every child.
final class DecodeFolder: KeyedCoding {
    var name: String
    var children: [DecodeItem] = []
    init(name: String) { self.name = name }
    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(children, forKey: "children")
        coder.encode(true, forKey: "$open")
    }
    init(coder: KeyedUnarchiver) throws { name = "" }
}

final class DecodeItem: KeyedCoding {
    var title: String
    weak var parent: DecodeFolder?
    var tag: DecodeTag
    init(title: String, parent: DecodeFolder, tag: DecodeTag) {
        self.title = title
        self.parent = parent
        self.tag = tag
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(title, forKey: "title")
        coder.encode(parent, forKey: "parent")
        coder.encode(tag, forKey: "tag")
    }
    init(coder: KeyedUnarchiver) throws {
        throw KeyedArchiveError(.invalidValue, "not decoded in these tests")
    }
}

final class DecodeTag: KeyedCoding {
    static var archivedClassName: String { "Tag" }
    let color: Double
    let seen: Date
    let thumbnail: Data
    init(color: Double) {
        self.color = color
        seen = Date(timeIntervalSinceReferenceDate: 736_248_600)
        thumbnail = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(color, forKey: "color")
        coder.encode(seen, forKey: "seen")
        coder.encodeBytes(thumbnail, forKey: "thumbnail")
    }
    init(coder: KeyedUnarchiver) throws { color = 0; seen = Date(); thumbnail = Data() }
}

@Suite struct DecodeTests {
    static func familyArchive(format: PropertyListFormat = .binary) throws -> Data {
        let folder = DecodeFolder(name: "Bugs")
        let tag = DecodeTag(color: 0.5)
        folder.children = [
            DecodeItem(title: "Moth", parent: folder, tag: tag),
            DecodeItem(title: "Potato Bug", parent: folder, tag: tag),
        ]
        return try KeyedArchiver.archivedData(
            withRootObject: folder, requiringSecureCoding: false, format: format)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func sharedObjectsAndCyclesAreMarked(format: PropertyListFormat) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Self.familyArchive(format: format), to: "family.archive")
        let run = ToolRun(["decode", path])
        #expect(run.status == 0)
        #expect(run.error.isEmpty)
        // The XML writer sorts each object's keys, so only the binary form keeps field order.
        let text = format == .binary ? run.outputText : Self.expectedFamily
        #expect(
            run.outputLines.sorted() == Self.expectedFamily.split(separator: "\n").map(String.init).sorted())
        #expect(text == Self.expectedFamily)
    }

    static let expectedFamily = """
        root: KeyedArchiveToolTests.DecodeFolder #1 (shared ×3) (cycle)
          name: "Bugs"
          children: NSArray #3 (cycle)
            NS.objects: [
              [0]: KeyedArchiveToolTests.DecodeItem #4 (cycle)
                title: "Moth"
                parent: → #1 KeyedArchiveToolTests.DecodeFolder (cycle, see above)
                tag: Tag #6 (shared ×2)
                  color: 0.5
                  seen: NSDate #7 2024-05-01T09:30:00Z
                  thumbnail: <8 bytes: 89 50 4e 47 0d 0a 1a 0a>
              [1]: KeyedArchiveToolTests.DecodeItem #11 (cycle)
                title: "Potato Bug"
                parent: → #1 KeyedArchiveToolTests.DecodeFolder (cycle, see above)
                tag: → #6 Tag (shared, see above)
            ]
          $open: true

        """

    @Test func jsonUsesRefsForRepeatsAndCycles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Self.familyArchive(), to: "family.archive")
        let run = ToolRun(["decode", "--json", path])
        #expect(run.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
        let root = try #require(json["root"] as? [String: Any])
        #expect(root["$class"] as? String == "KeyedArchiveToolTests.DecodeFolder")
        #expect(root["$uid"] as? Int == 1)
        #expect(root["$$open"] as? Bool == true, "a $-key gets one more $")
        let children = try #require((root["children"] as? [String: Any])?["NS.objects"] as? [[String: Any]])
        #expect(children.count == 2)
        #expect(children[0]["parent"] as? [String: Int] == ["$ref": 1])
        #expect(children[1]["parent"] as? [String: Int] == ["$ref": 1])
        let tag = try #require(children[0]["tag"] as? [String: Any])
        #expect(tag["$class"] as? String == "Tag")
        let seen = try #require(tag["seen"] as? [String: Any])
        #expect(seen["$class"] as? String == "NSDate")
        #expect(seen["$summary"] as? String == "2024-05-01T09:30:00Z")
        #expect(seen["date"] as? String == "2024-05-01T09:30:00Z")
        #expect(seen["seconds"] as? Double == 736_248_600)
        #expect(seen["NS.time"] == nil, "a date is summarized; --raw shows NS.time")
        #expect(tag["thumbnail"] as? [String: String] == ["data": "iVBORw0KGgo="])
        #expect(children[1]["tag"] as? [String: Int] == ["$ref": tag["$uid"] as? Int ?? -1])
    }

    @Test func oneSharedStringIsShownInlineEachTime() throws {
        let data = try KeyedArchiver.archivedData(
            withRootObject: ["same", "same", "other"], requiringSecureCoding: true)
        let outline = try KeyedUnarchiver.objectGraph(from: data).outline()
        #expect(
            outline == """
                root: NSArray #1
                  NS.objects: [
                    [0]: "same"
                    [1]: "same"
                    [2]: "other"
                  ]

                """)
    }

    @Test func dictionariesListTheirEntriesAndOtherTopLevelKeysFollowRoot() throws {
        let archiver = KeyedArchiver()
        archiver.encode(["Legs": 14] as [String: Int], forKey: "root")
        archiver.encode(3, forKey: "version")
        let outline = try KeyedUnarchiver.objectGraph(from: try archiver.finishedData()).outline()
        #expect(outline == "root: NSDictionary #1\n  \"Legs\": 14\nversion: 3\n")
    }

    @Test func hostileStringsAreEscaped() throws {
        let data = try KeyedArchiver.archivedData(
            withRootObject: ["\u{1B}[31mred\n\"q\"\\"], requiringSecureCoding: true)
        let outline = try KeyedUnarchiver.objectGraph(from: data).outline()
        #expect(outline.contains(#"[0]: "\u{1b}[31mred\n\"q\"\\""#))
        #expect(!outline.contains("\u{1B}"))
    }

    @Test func deepChainsDoNotExhaustTheStack() throws {
        // 3,000 arrays nested through references: the outline walks them iteratively.
        var objects: [PropertyList] = ["$null"]
        let depth = 3_000
        for index in 1...depth {
            let next: [PropertyList] = index < depth ? [.uid(UInt64(index + 1))] : []
            objects.append(["$class": .uid(UInt64(depth + 1)), "NS.objects": .array(next)])
        }
        objects.append(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": .array(objects),
        ]
        let outline = try KeyedUnarchiver.objectGraph(from: archive).outline()
        #expect(outline.split(separator: "\n").count == depth * 3 - 1)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try archive.data(format: .binary), to: "deep.archive")
        let json = ToolRun(["decode", "--json", path])
        #expect(json.status == 1)
        #expect(json.errorLines.count == 1)
        #expect(json.error.contains("nested more than"))
    }

    @Test(arguments: [
        (Samples.garbage, "unterminated"),
        (Data(Samples.xmlText.utf8), "$archiver"),
    ])
    func badFilesGiveOneLineAndExit1(data: Data, mention: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: "bad.plist")
        let run = ToolRun(["decode", path])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.errorLines.count == 1)
        #expect(run.error.hasPrefix("\(path): "))
    }

    @Test func missingFileAndSeveralFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let good = try directory.write(try Samples.keyedArchive.data(format: .xml), to: "good.plist")
        let run = ToolRun(["decode", good, directory.path("missing.plist"), good])
        #expect(run.status == 1)
        #expect(run.errorLines == ["\(directory.path("missing.plist")): No such file or directory"])
        #expect(run.outputLines.filter { $0.hasPrefix("==> ") }.count == 2)
        #expect(run.outputText.contains("root: NSArray #1\n  NS.objects: [\n    [0]: \"Potato Bug\"\n  ]\n"))
    }

    @Test(arguments: [
        (["decode"], "keyed-archive: no files given"),
        (["-p", "--json", "a.plist"], "keyed-archive: --json is only valid with decode, diff and sqlite"),
        (
            ["decode", "-o", "x", "a.plist"],
            "keyed-archive: -o is only valid with -convert, -extract, -insert, -replace and -remove"
        ),
        (["decode", "-p", "a.plist"], "keyed-archive: decode and -p cannot be combined"),
    ])
    func usageErrors(arguments: [String], firstLine: String) {
        let run = ToolRun(arguments)
        #expect(run.status == 64)
        #expect(run.errorLines.first == firstLine)
    }

    @Test func decodeIsACommandOnlyInFirstPosition() throws {
        #expect(
            try Invocation.parse(["decode", "--json", "a"])
                == Invocation(command: .decode, files: ["a"], json: true))
        #expect(try Invocation.parse(["-p", "decode"]).files == ["decode"])
    }

    @Test(
        .enabled(if: Fixtures.isAvailable, Fixtures.skipComment),
        arguments: Self.appleArchives())
    func everyAppleArchiveDecodes(file: String) throws {
        let path = Fixtures.root.appendingPathComponent(file).path
        let text = ToolRun(["decode", path])
        #expect(text.status == 0, "\(file): \(text.error)")
        #expect(text.outputText.hasPrefix("root: ") || text.outputText.contains("\n"), "\(file)")
        let json = ToolRun(["decode", "--json", path])
        #expect(json.status == 0, "\(file): \(json.error)")
        #expect(
            (try? JSONSerialization.jsonObject(with: json.output)) is [String: Any], "\(file): invalid JSON")
    }

    static func appleArchives() -> [String] {
        let folder = Fixtures.root.appendingPathComponent("apple-keyed-archives")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasSuffix(".json") }.sorted().map { "apple-keyed-archives/\($0)" }
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func circularFixtureIsMarked() throws {
        let file = "malformed/bpylist2_circular_archive.plist"
        let run = ToolRun(["decode", Fixtures.root.appendingPathComponent(file).path])
        #expect(run.status == 0, "\(file): \(run.error)")
        #expect(
            run.outputText == """
                root: crap.Foo #1 (shared ×2) (cycle)
                  recursive: → #1 crap.Foo (cycle, see above)
                  title: "hello"

                """, "\(file)")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func complexFixtureShowsClassesAndEntries() throws {
        let file = "apple-keyed-archives/corelibs_NSKeyedUnarchiver-ComplexTest.plist"
        let run = ToolRun(["decode", Fixtures.root.appendingPathComponent(file).path])
        #expect(run.status == 0, "\(file): \(run.error)")
        for line in [
            "root: NSDictionary #1", "  \"array\": NSArray #6", "      [0]: NSNull #7",
            "  \"url\": NSURL #16 https://www.swift.org/index.xml",
            "  \"uuid\": NSUUID #21 71DC068E-3420-45FF-919E-3A267D55EC22",
        ] {
            #expect(run.outputLines.contains(line), "\(file): no line \(line)")
        }
        // --raw shows them field by field, as the archive stores them.
        let raw = ToolRun(["decode", "--raw", Fixtures.root.appendingPathComponent(file).path])
        for line in [
            "      NS.relative: \"https://www.swift.org\"",
            "    NS.uuidbytes: <16 bytes: 71 dc 06 8e 34 20 45 ff 91 9e 3a 26 7d 55 ec 22>",
        ] {
            #expect(raw.outputLines.contains(line), "\(file): no line \(line) with --raw")
        }
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func urlsUUIDsAndDatesAreShownAsTheirValues() throws {
        let file = "apple-keyed-archives/corelibs_NSKeyedUnarchiver-URLTest.plist"
        let path = Fixtures.root.appendingPathComponent(file).path
        let run = ToolRun(["decode", path])
        #expect(run.status == 0, "\(file): \(run.error)")
        #expect(run.outputText == "root: NSURL #1 https://www.example.com/foo.xml\n")
        let json = ToolRun(["decode", "--json", path])
        #expect(json.status == 0, "\(file): \(json.error)")
        for line in [
            "    \"$summary\": \"https://www.example.com/foo.xml\",",
            "    \"url\": \"https://www.example.com/foo.xml\",",
            "    \"base\": \"https://www.example.com\",",
            "    \"relative\": \"foo.xml\"",
        ] {
            #expect(json.outputLines.contains(line), "\(file): no line \(line) in JSON")
        }
    }
}
