import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// Edits through archives (issue 30): `-insert`/`-replace`/`-remove` with graph key paths
/// (`--resolve`), copy-on-write of shared objects (`--shared` to edit them in place), and
/// key paths that descend into archives stored in data values; `diff` inside them.
@Suite struct ArchiveEditTests {
    static let folder = "apple-keyed-archives"
    static let favorites = "wild_Python_DigitalDe_com.apple.LSSharedFileList.FavoriteItems.sfl4"
    static let nib = "wild_Flycut_English.lproj_MainMenu.nib_keyedobjects.nib"
    static let selectionColor =
        "wild_Python_DigitalDe_com.apple.Terminal.plist.embedded_Window_Settings__Novel__SelectionColor.bplist"

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Fixtures.root.appendingPathComponent(folder).appendingPathComponent(name))
    }

    static func objects(_ data: Data) throws -> [PropertyList] {
        guard case .dictionary(let archive) = try PropertyList(from: data),
            case .array(let objects)? = archive["$objects"]
        else { throw KeyedArchiveError(.invalidArchive, "no $objects") }
        return objects
    }

    /// The indices of `before`'s objects that differ in `after`.
    static func changedIndices(_ before: [PropertyList], _ after: [PropertyList]) -> [Int] {
        before.indices.filter { $0 >= after.count || before[$0] != after[$0] }
    }

    /// Foundation's reading of a keyed archive of Foundation classes.
    static func foundationRoot(_ data: Data) throws -> NSDictionary? {
        try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [
                NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSData.self, NSDate.self,
            ], from: data) as? NSDictionary
    }

    static func foundationItems(_ data: Data) throws -> [NSDictionary] {
        let root = try #require(try foundationRoot(data))
        return try #require(root["items"] as? [NSDictionary])
    }

    /// Edits a copy of `data` named `name` with `arguments` (the file appended).
    static func edited(_ data: Data, _ arguments: [String], name: String = "file") throws -> (ToolRun, Data) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: name)
        let run = ToolRun(arguments + [path])
        return (run, try directory.read(name))
    }

    // MARK: - The .sfl4 file: six items sharing values and a dictionary

    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
    func sharedValueOfOneItemIsCopiedNotRenamedInAll() throws {
        let original = try Self.fixture(Self.favorites)
        let (run, edited) = try Self.edited(
            original, ["-replace", "root.items.2.visibility", "-integer", "1", "--resolve"])
        #expect(run.status == 0, "\(Self.favorites): \(run.error)")
        // The file keeps its format (XML), every untouched object its index and value.
        #expect(edited.starts(with: Data("<?xml".utf8)), "\(Self.favorites)")
        let before = try Self.objects(original)
        let after = try Self.objects(edited)
        #expect(Self.changedIndices(before, after) == [18], "\(Self.favorites)")
        #expect(after.count == before.count + 1 && after.last == .integer(1))
        // The number 0 the items share (object 10) keeps its value for the others.
        #expect(after[10] == .integer(0))
        let items = try Self.foundationItems(edited)
        #expect(items.count == 9)
        #expect((items[2]["visibility"] as? NSNumber)?.intValue == 1)
        for index in [0, 1, 3, 4, 5, 6, 7, 8] {
            #expect((items[index]["visibility"] as? NSNumber)?.intValue == 0, "item \(index)")
        }
        // Our reader agrees.
        let graph = try KeyedUnarchiver.objectGraph(from: edited)
        #expect(graph.value(atKeyPath: ["root", "items", "2", "visibility"]) == .integer(1))
        #expect(graph.value(atKeyPath: ["root", "items", "3", "visibility"]) == .integer(0))

        // The old trap, for contrast: the raw `$objects` path renames the value everywhere.
        let (rawRun, rawEdited) = try Self.edited(original, ["-replace", "$objects.10", "-integer", "1"])
        #expect(rawRun.status == 0, "\(rawRun.error)")
        #expect(
            try Self.foundationItems(rawEdited).allSatisfy { ($0["visibility"] as? NSNumber)?.intValue == 1 })
    }

    static let hasPython = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

    /// What Python's `plistlib` prints for `script` run on the file at `path` (`sys.argv[1]`).
    static func plistlib(_ script: String, _ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import plistlib, sys\n" + script, path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Python's `plistlib`, a reader of its own, sees the structure the edit meant: item 2's
    /// `visibility` reference repointed at a new object, the shared `0` left alone.
    @Test(
        .enabled(
            if: Fixtures.isAvailable && hasPython, Comment(rawValue: Fixtures.skipNote + " (or no python3)")))
    func plistlibReadsTheEditedFile() throws {
        let original = try Self.fixture(Self.favorites)
        let (run, edited) = try Self.edited(
            original, ["-replace", "root.items.2.visibility", "-integer", "1", "--resolve"])
        #expect(run.status == 0, "\(run.error)")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(edited, to: "edited.sfl4")
        let script = """
            p = plistlib.load(open(sys.argv[1], 'rb'), fmt=plistlib.FMT_XML)
            o = p['$objects']
            uid = lambda u: u['CF$UID'] if isinstance(u, dict) else u.data
            item = o[uid(o[uid(o[uid(p['$top']['root'])]['NS.objects'][0])]['NS.objects'][2])]
            print(len(o), uid(item['NS.objects'][0]), o[uid(item['NS.objects'][0])], o[10])
            """
        #expect(try Self.plistlib(script, path) == "47 46 1 0")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
    func sharedDictionaryIsCopiedOnWriteUnlessShared() throws {
        let original = try Self.fixture(Self.favorites)
        let before = try Self.objects(original)
        // Items 0…4 share one empty CustomItemProperties dictionary (object 11).
        let arguments = ["-insert", "root.items.2.CustomItemProperties.Note", "-string", "moth", "--resolve"]
        let (run, copied) = try Self.edited(original, arguments)
        #expect(run.status == 0, "\(run.error)")
        let after = try Self.objects(copied)
        #expect(Self.changedIndices(before, after) == [18], "only item 2's reference is repointed")
        #expect(after[11] == before[11])
        var items = try Self.foundationItems(copied)
        #expect((items[2]["CustomItemProperties"] as? NSDictionary)?["Note"] as? String == "moth")
        for index in [0, 1, 3, 4] {
            #expect((items[index]["CustomItemProperties"] as? NSDictionary)?.count == 0, "item \(index)")
        }

        let (sharedRun, shared) = try Self.edited(original, arguments + ["--shared"])
        #expect(sharedRun.status == 0, "\(sharedRun.error)")
        let sharedAfter = try Self.objects(shared)
        #expect(Self.changedIndices(before, sharedAfter) == [11], "the shared dictionary itself")
        #expect(sharedAfter.count == before.count + 2, "the key and the value strings")
        items = try Self.foundationItems(shared)
        for index in [0, 1, 2, 3, 4] {
            #expect((items[index]["CustomItemProperties"] as? NSDictionary)?["Note"] as? String == "moth")
        }
    }

    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
    func arrayAndDictionaryEditsKeepKeysAndObjectsConsistent() throws {
        let original = try Self.fixture(Self.favorites)
        let before = try Self.foundationItems(original)
        var data = original
        for arguments in [
            ["-remove", "root.items.3", "--resolve"],
            ["-remove", "root.items.0.uuid", "--resolve"],
            ["-insert", "root.items.0", "-date", "2020-01-01T00:00:00Z", "--resolve"],
            ["-insert", "root.properties.Label", "-string", "Bugs", "--resolve"],
            ["-insert", "root.items", "-bool", "YES", "-append", "--resolve"],
            ["-replace", "root.items.1.Bookmark", "-data", "AQID", "--resolve"],
        ] {
            let (run, edited) = try Self.edited(data, arguments)
            #expect(run.status == 0, "\(arguments): \(run.error)")
            data = edited
        }
        let root = try #require(try Self.foundationRoot(data))
        let items = try #require(root["items"] as? [Any])
        #expect(items.count == 10)
        #expect(items[0] as? Date == Date(timeIntervalSinceReferenceDate: 599_529_600))
        #expect((items[9] as? NSNumber)?.boolValue == true)
        let first = try #require(items[1] as? NSDictionary)
        #expect(first.count == 3 && first["uuid"] == nil)
        #expect(first["Bookmark"] as? Data == Data([1, 2, 3]))
        #expect((items[3] as? NSDictionary)?["uuid"] as? String == before[2]["uuid"] as? String)
        #expect((items[4] as? NSDictionary)?["uuid"] as? String == before[4]["uuid"] as? String)
        #expect((root["properties"] as? NSDictionary)?["Label"] as? String == "Bugs")
        // The date is an NSDate object with NS.time, its class description added once.
        guard case .dictionary(let archive) = try PropertyList(from: data),
            case .array(let objects)? = archive["$objects"]
        else { throw KeyedArchiveError(.invalidArchive, "no $objects") }
        let dates = objects.filter {
            if case .dictionary(let fields) = $0, fields["NS.time"] == .real(599_529_600) { return true }
            return false
        }
        #expect(dates.count == 1)
    }

    // MARK: - A nib: a menu item's title, the title string shared with its menu

    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
    func nibMenuItemTitle() throws {
        let original = try Self.fixture(Self.nib)
        let before = try Self.objects(original)
        // Object 153 (the Edit menu item) and 156 (its menu) share the title string 154.
        let path = #"IB\.objectdata.NSObjectsValues.4.NSTitle"#
        let (run, edited) = try Self.edited(
            original, ["-replace", path, "-string", "Bearbeiten", "--resolve", "--shared"])
        #expect(run.status == 0, "\(Self.nib): \(run.error)")
        #expect(edited.starts(with: Data("bplist00".utf8)))
        let after = try Self.objects(edited)
        #expect(Self.changedIndices(before, after) == [153], "\(Self.nib)")
        #expect(after.count == before.count + 1 && after.last == "Bearbeiten")
        #expect(after[154] == "Edit")
        let graph = try KeyedUnarchiver.objectGraph(from: edited)
        #expect(
            graph.value(atKeyPath: ["IB.objectdata", "NSObjectsValues", "4", "NSTitle"])
                == .string("Bearbeiten"))
        #expect(
            graph.value(atKeyPath: ["IB.objectdata", "NSObjectsValues", "5", "NSTitle"]) == .string("Edit"))

        // Without --shared the menu item, referenced from several places, is copied for
        // this path only: the object table's entry points at the copy, the menu at the old.
        let (copyRun, copied) = try Self.edited(
            original, ["-replace", path, "-string", "Bearbeiten", "--resolve"])
        #expect(copyRun.status == 0, "\(copyRun.error)")
        let copiedObjects = try Self.objects(copied)
        #expect(copiedObjects[153] == before[153])
        #expect(copiedObjects.count == before.count + 2)
        let copiedGraph = try KeyedUnarchiver.objectGraph(from: copied)
        #expect(
            copiedGraph.value(atKeyPath: ["IB.objectdata", "NSObjectsValues", "4", "NSTitle"])
                == .string("Bearbeiten")
        )
        #expect(
            copiedGraph.value(atKeyPath: ["IB.objectdata", "NSObjectsValues", "4"])
                == .reference(before.count))
    }

    // MARK: - A Terminal profile: archives inside data values

    /// A Terminal profile as `Terminal.app` exports it (XML): its font an `NSFont` archive in
    /// data, its selection colour the real profile's `NSColor` archive.
    static func terminalProfile() throws -> Data {
        let font: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["NSName": .uid(2), "NSSize": 11.0, "NSfFlags": 16, "$class": .uid(3)],
                "SFMono-Regular",
                ["$classname": "NSFont", "$classes": ["NSFont", "NSObject"]],
            ],
        ]
        let profile: PropertyList = [
            "name": "Novel", "type": "Window Settings", "ProfileCurrentVersion": 2.07,
            "Font": .data(try font.data(format: .binary)),
            "SelectionColor": .data(try fixture(selectionColor)),
        ]
        return try profile.data(format: .xml)
    }

    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
    func terminalFontSizeInsideNSFontInsideData() throws {
        let original = try Self.terminalProfile()
        let (run, edited) = try Self.edited(
            original, ["-replace", "Font.root.NSSize", "-float", "14"], name: "Novel.terminal")
        #expect(run.status == 0, "\(run.error)")
        #expect(edited.starts(with: Data("<?xml".utf8)), "the profile stays XML")
        guard case .dictionary(let before) = try PropertyList(from: original),
            case .dictionary(let after) = try PropertyList(from: edited),
            case .data(let fontData)? = after["Font"], case .data(let oldFontData)? = before["Font"]
        else { throw KeyedArchiveError(.invalidArchive, "no Font data") }
        #expect(fontData.starts(with: Data("bplist00".utf8)), "the font archive stays binary")
        #expect(Self.changedIndices(try Self.objects(oldFontData), try Self.objects(fontData)) == [1])
        for key in ["name", "type", "ProfileCurrentVersion", "SelectionColor"] {
            #expect(after[key] == before[key], "\(key)")
        }
        let font = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedFont.self, from: fontData))
        #expect(font.name == "SFMono-Regular" && font.size == 14)

        // The colour: its NSRGB components, through the real archive.
        let rgb = Data("0.5 0.25 0.125 1\0".utf8).base64EncodedString()
        let (colorRun, recolored) = try Self.edited(
            edited, ["-replace", "SelectionColor.root.NSRGB", "-data", rgb], name: "Novel.terminal")
        #expect(colorRun.status == 0, "\(colorRun.error)")
        guard case .dictionary(let final) = try PropertyList(from: recolored),
            case .data(let colorData)? = final["SelectionColor"]
        else { throw KeyedArchiveError(.invalidArchive, "no SelectionColor data") }
        let color = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedColor.self, from: colorData))
        #expect(color.components == [0.5, 0.25, 0.125, 1])

        // diff descends into both archives and reports by path through them.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let diff = ToolRun([
            "diff", try directory.write(original, to: "a.terminal"),
            try directory.write(recolored, to: "b.terminal"),
        ])
        #expect(diff.status == 1, "\(diff.error)")
        #expect(diff.outputLines.count == 2, "\(diff.outputText)")
        #expect(diff.outputLines.first == "~ Font.root.NSSize: 11.0 → 14.0", "\(diff.outputText)")
        #expect(diff.outputLines.last?.hasPrefix("~ SelectionColor.root.NSRGB: <44 bytes") == true)
    }

    // MARK: - Synthetic archives

    /// `root`: an NSDictionary {"list": NSMutableArray ["Moth"], "blob": NSData holding an
    /// XML property list, "count": 3}, the string "Moth" shared by the list and "name".
    static func syntheticArchive() throws -> Data {
        let inner: PropertyList = ["Legs": 14, "Kind": "isopod"]
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null",
                [
                    "NS.keys": [.uid(2), .uid(3), .uid(4), .uid(5)],
                    "NS.objects": [.uid(6), .uid(8), .uid(10), .uid(7)], "$class": .uid(11),
                ],
                "list", "blob", "count", "name",
                ["NS.objects": [.uid(7)], "$class": .uid(12)],
                "Moth",
                ["NS.data": .data(try inner.data(format: .xml)), "$class": .uid(9)],
                ["$classname": "NSMutableData", "$classes": ["NSMutableData", "NSData", "NSObject"]],
                3,
                ["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]],
                ["$classname": "NSMutableArray", "$classes": ["NSMutableArray", "NSArray", "NSObject"]],
            ],
        ]
        return try archive.data(format: .binary)
    }

    @Test func syntheticEditsReadBackByFoundation() throws {
        var data = try Self.syntheticArchive()
        let before = try Self.objects(data)
        for arguments in [
            ["-replace", "root.list.0", "-string", "Pill Bug", "--resolve"],
            ["-replace", "root.blob.Legs", "-integer", "7", "--resolve"],
            ["-insert", "root.tags", "-json", #"["a", {"b": [1.5, true]}]"#, "--resolve"],
            ["-replace", "root.list", "-json", #"["x", "y"]"#, "--resolve"],
        ] {
            let (run, edited) = try Self.edited(data, arguments)
            #expect(run.status == 0, "\(arguments): \(run.error)")
            data = edited
        }
        let after = try Self.objects(data)
        #expect(after[7] == "Moth", "the shared string is not renamed")
        #expect(after[12] == before[12], "class descriptions keep their places")
        let root = try #require(try Self.foundationRoot(data))
        #expect(root["name"] as? String == "Moth")
        #expect(root["list"] as? [String] == ["x", "y"])
        #expect(root["count"] as? Int == 3)
        let tags = try #require(root["tags"] as? [Any])
        #expect(tags.first as? String == "a")
        #expect(((tags.last as? NSDictionary)?["b"] as? [Any])?.count == 2)
        // The list stays an NSMutableArray; the blob, re-encoded, stays XML.
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        guard case .reference(let list)? = graph.value(atKeyPath: ["root", "list"]) else {
            Issue.record("no list")
            return
        }
        #expect(graph.object(at: list)?.className == "NSMutableArray")
        let blob = try #require(root["blob"] as? Data)
        #expect(blob.starts(with: Data("<?xml".utf8)))
        #expect(try PropertyList(from: blob) == ["Legs": 7, "Kind": "isopod"])
    }

    @Test(arguments: [
        (
            ["-replace", "root.nothing.here", "-string", "x", "--resolve"],
            "root.nothing.here: no value at that key path"
        ),
        (
            ["-insert", "root.name", "-string", "x", "--resolve"],
            "root.name: a value already exists at that key path"
        ),
        (["-remove", "root.list.5", "--resolve"], "root.list.5: no value to remove at that key path"),
        (
            ["-insert", "root.list.9", "-string", "x", "--resolve"],
            "root.list.9: index 9 out of bounds in an array of 1"
        ),
        (
            ["-replace", "root.name.more", "-string", "x", "--resolve"],
            "root.name.more: no value at that key path"
        ),
        (
            ["-replace", "root.list.0.x", "-string", "x", "--resolve"],
            "root.list.0.x: no value at that key path"
        ),
    ])
    func failuresSayWhereAndWriteNothing(_ arguments: [String], _ message: String) throws {
        let original = try Self.syntheticArchive()
        let (run, after) = try Self.edited(original, arguments)
        #expect(run.status == 1)
        #expect(run.error.contains(message), "\(run.error)")
        #expect(after == original)
    }

    @Test func descendingIntoDataThatHoldsNoPropertyList() throws {
        let profile: PropertyList = ["Picture": .data(Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]))]
        let original = try profile.data(format: .binary)
        let (run, after) = try Self.edited(original, ["-replace", "Picture.width", "-integer", "3"])
        #expect(run.status == 1)
        #expect(
            run.error.contains("Picture.width: the data value there holds no binary or XML property list"))
        #expect(after == original)
    }

    /// A value nested deeper than the readers read, put inside data, is refused: the outer
    /// file's own depth check cannot see inside the data.
    @Test func tooDeepInsideDataIsRefused() throws {
        let inner: PropertyList = ["a": 1]
        let outer: PropertyList = ["Blob": .data(try inner.data(format: .binary))]
        let original = try outer.data(format: .binary)
        let deep = String(repeating: "[", count: 400) + String(repeating: "]", count: 400)
        let (first, once) = try Self.edited(original, ["-replace", "Blob.a", "-json", deep])
        #expect(first.status == 0, "\(first.error)")
        // 400 levels more, 200 levels down: 600 in all.
        let path = "Blob.a" + String(repeating: ".0", count: 200)
        let (second, twice) = try Self.edited(once, ["-replace", path, "-json", deep])
        #expect(second.status == 1)
        #expect(second.error.contains(": the edited data value would not read again"), "\(second.error)")
        #expect(twice == once)
    }

    @Test func sharedNeedsAnEdit() {
        let run = ToolRun(["-extract", "root", "xml1", "--shared", "file"])
        #expect(run.status == 64)
        #expect(run.error.contains("--shared is only valid with -insert, -replace and -remove"))
    }

    // MARK: - The library

    @Test func libraryEditorAndNestedDifferences() throws {
        let archive = try PropertyList(from: try Self.syntheticArchive())
        var editor = try KeyedArchiveEditor(archive: archive)
        try editor.apply(.replace("Pill Bug"), atKeyPath: ["root", "name"])
        try editor.apply(.remove, atKeyPath: ["root", "blob", "Kind"])
        let old = try KeyedUnarchiver.objectGraph(from: archive)
        let new = try KeyedUnarchiver.objectGraph(from: editor.archive)
        let differences = new.differences(from: old).differences.map(\.description)
        #expect(
            differences == [#"- root.blob.Kind: "isopod""#, #"~ root.name: "Moth" → "Pill Bug""#],
            "\(differences)")
        // Descending stops where the options say.
        let flat = new.differences(
            from: old, options: ArchiveComparisonOptions(maximumNestedArchiveLevels: 0))
        #expect(flat.differences.map(\.keyPath) == [["root", "blob"], ["root", "name"]])
        #expect(throws: KeyedArchiveError.self) {
            try KeyedArchiveEditor(archive: ["not": "an archive"])
        }
        // A failed edit leaves the archive as it was.
        let before = editor.archive
        #expect(throws: KeyedArchiveError.self) {
            try editor.apply(.replace(.uid(3)), atKeyPath: ["root", "list", "0"])
        }
        #expect(editor.archive == before)
    }
}
