import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// Hardening III: small files that describe far more than they hold (shared objects,
/// archives stored many times) are expanded and printed in bounded time and memory, and
/// `decode --expand` reads the plain property lists archives hide in (Terminal profiles,
/// web archives). The time and memory of the full-size inputs are checked in a child
/// process by the hostile corpus (`HostileCorpusTests`, `tool-…` cases).
@Suite("Bombs: expansion, object graphs and printers")
struct BombTests {
    // MARK: - Inputs

    /// A keyed archive of one `NSColor`, as Terminal stores a profile's colours.
    static func colorArchive(red: Double) -> Data {
        ArchiveSamples.binary([
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null",
                ["$class": .uid(2), "NSColorSpace": 1, "NSRGB": .data(Data("\(red) 0.5 0.25\0".utf8))],
                ["$classname": "NSColor", "$classes": ["NSColor", "NSObject"]],
            ],
        ])
    }

    /// A keyed archive of a response's MIME type and status, as a web archive stores
    /// `WebResourceResponse`.
    static let responseArchive = ArchiveSamples.binary([
        "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["WebResourceResponse": .uid(1)],
        "$objects": [
            "$null", ["$class": .uid(3), "MIMEType": .uid(2), "statusCode": 200], "text/html",
            [
                "$classname": "NSHTTPURLResponse",
                "$classes": ["NSHTTPURLResponse", "NSURLResponse", "NSObject"],
            ],
        ],
    ])

    /// A Terminal profile: a plain dictionary whose colours are keyed archives in data.
    static func terminalProfile(background: Data, selection: Data) -> PropertyList {
        [
            "name": "Novel", "type": "Window Settings", "ProfileCurrentVersion": 2.07,
            "BackgroundColor": .data(background), "SelectionColor": .data(selection),
        ]
    }

    /// A web archive: the page, and a subresource whose response is a keyed archive.
    static func webArchive(response: Data) -> PropertyList {
        [
            "WebMainResource": [
                "WebResourceData": .data(Data("<html></html>".utf8)), "WebResourceMIMEType": "text/html",
                "WebResourceURL": "https://example.com/",
            ],
            "WebSubresources": [
                ["WebResourceURL": "https://example.com/a.css", "WebResourceResponse": .data(response)]
            ],
        ]
    }

    /// A binary property list that is a `levels`-deep bomb: 95 bytes for 14 levels.
    static func smallBomb(levels: Int) -> Data {
        BPlist.data(BPlist.bombObjects(levels: levels), minimumOffsetSize: 2)
    }

    // MARK: - decode --expand of plain property lists

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func decodeExpandReadsATerminalProfile(format: PropertyListFormat) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let background = Self.colorArchive(red: 0.1)
        let profile = Self.terminalProfile(background: background, selection: Self.colorArchive(red: 0.9))
        let path = try directory.write(try profile.data(format: format), to: "Novel.terminal")
        // Without --expand it is no archive, as before.
        let plain = ToolRun(["decode", path])
        #expect(plain.status == 1)
        #expect(plain.error.contains("the archive has no $archiver"), "\(plain.error)")

        let text = ToolRun(["decode", "--expand", path])
        #expect(text.status == 0, "\(text.error)")
        #expect(text.outputText.hasPrefix("{\n"), "the property list as -p prints it: \(text.outputText)")
        #expect(text.outputText.contains("  \"name\" => \"Novel\"\n"))
        #expect(
            text.outputText.contains(
                "\nBackgroundColor ⇒ keyed archive (\(background.count) bytes):\n  root: NSColor #1"))
        #expect(text.outputText.contains("\nSelectionColor ⇒ keyed archive ("))

        let json = ToolRun(["decode", "--expand", "--json", path])
        #expect(json.status == 0, "\(json.error)")
        let value = try JSONValueReader.read(json.outputText)
        #expect(value["name"] == "Novel")
        #expect(value["BackgroundColor"]?["$expanded"] == "keyed archive")
        #expect(value["BackgroundColor"]?["$value"]?["root"]?["$class"] == "NSColor")
        // The same expansion as `decode --jsonl --expand` gives.
        let line = try JSONValueReader.read(ToolRun(["decode", "--jsonl", "--expand", path]).outputText)
        #expect(line["result"] == value)
    }

    @Test func decodeExpandReadsAWebArchive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            ArchiveSamples.binary(Self.webArchive(response: Self.responseArchive)), to: "page.webarchive")
        let text = ToolRun(["decode", "--expand", path])
        #expect(text.status == 0, "\(text.error)")
        #expect(
            text.outputText.contains(
                "\nWebSubresources.0.WebResourceResponse ⇒ keyed archive (\(Self.responseArchive.count) bytes):\n"
                    + "  WebResourceResponse: NSHTTPURLResponse #1"),
            "\(text.outputText)")
        let raw = ToolRun(["decode", "--expand", "--raw", path])
        #expect(raw.outputText.contains("\n    MIMEType: \"text/html\"\n"), "\(raw.outputText)")
        // --path selects inside the property list; key paths start there.
        let part = ToolRun(["decode", "--expand", "--path", "WebSubresources.0", path])
        #expect(part.status == 0, "\(part.error)")
        #expect(part.outputText.contains("\nWebSubresources.0.WebResourceResponse ⇒ keyed archive ("))
        #expect(!part.outputText.contains("WebMainResource"))
        let missing = ToolRun(["decode", "--expand", "--path", "WebSubresources.7", path])
        #expect(missing.status == 1)
        #expect(missing.error.hasSuffix("no value at key path WebSubresources.7 of the property list\n"))
        let json = try JSONValueReader.read(ToolRun(["decode", "--expand", "--json", path]).outputText)
        let response = json["WebSubresources"]?[0]?["WebResourceResponse"]
        #expect(response?["$expanded"] == "keyed archive")
        #expect(response?["$value"]?["WebResourceResponse"]?["MIMEType"] == "text/html")
    }

    /// The archives cut out of a real Terminal preferences file and real web archives,
    /// put back into a profile and a web archive.
    @Test func decodeExpandReadsTheWildArchivesInPlace() throws {
        let folder = Fixtures.root.appendingPathComponent("apple-keyed-archives")
        let names = [
            "wild_Python_DigitalDe_com.apple.Terminal.plist.embedded_Window_Settings__Clear_Dark__BackgroundColor.bplist",
            "wild_Python_DigitalDe_com.apple.Terminal.plist.embedded_Window_Settings__Novel__SelectionColor.bplist",
            "wild_webarchive_fixtures_crouton.webarchive.embedded_WebSubresources__0__WebResourceResponse.bplist",
        ]
        let archives = names.compactMap { try? Data(contentsOf: folder.appendingPathComponent($0)) }
        guard archives.count == names.count else {
            withKnownIssue("the wild Terminal and web archive fixtures are absent: skipped") {
                throw CancellationError()
            }
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let profile = try directory.write(
            ArchiveSamples.binary(Self.terminalProfile(background: archives[0], selection: archives[1])),
            to: "Clear Dark.terminal")
        let page = try directory.write(
            try Self.webArchive(response: archives[2]).data(format: .xml), to: "crouton.webarchive")
        let colors = ToolRun(["decode", "--expand", profile])
        #expect(colors.status == 0, "\(names[0]): \(colors.error)")
        #expect(
            colors.outputText.contains(
                "\nBackgroundColor ⇒ keyed archive (\(archives[0].count) bytes):\n  root: NSColor #1"),
            "\(names[0]): \(colors.outputText)")
        #expect(colors.outputText.contains("\nSelectionColor ⇒ keyed archive ("), "\(names[1])")
        let web = ToolRun(["decode", "--expand", page])
        #expect(web.status == 0, "\(names[2]): \(web.error)")
        #expect(
            web.outputText.contains(
                "\nWebSubresources.0.WebResourceResponse ⇒ keyed archive (\(archives[2].count) bytes):\n"),
            "\(names[2]): \(web.outputText)")
        #expect(web.outputText.contains("NSHTTPURLResponse"), "\(names[2])")
        let json = try JSONValueReader.read(ToolRun(["decode", "--expand", "--json", page]).outputText)
        #expect(
            json["WebSubresources"]?[0]?["WebResourceResponse"]?["$expanded"] == "keyed archive",
            "\(names[2])")
    }

    // MARK: - Expansion shares and charges

    @Test func identicalDataIsReadAndExpandedOnce() throws {
        let archive = Self.colorArchive(red: 0.3)
        let value = PropertyList.array(Array(repeating: .data(archive), count: 50))
        let budget = NestedArchive.Budget(forInputLength: 10_000)
        let bytesBefore = budget.remainingBytes
        var expander = NestedArchive.PlainExpander(recovering: false, budget: budget)
        guard case .array(let elements) = try expander.expanded(value, level: 0) else {
            Issue.record("not an array")
            return
        }
        #expect(elements.count == 50)
        #expect(budget.remainingBytes == bytesBefore - archive.count, "read once")
        // Every copy is the same expansion, sharing its storage.
        #expect(Set(elements.compactMap { StorageIdentity($0) }).count == 1)
        #expect(elements.allSatisfy { $0 == elements[0] })
        #expect(elements[0]["$value"]?["root"]?["$class"] == "NSColor")
    }

    @Test func containersWithoutArchivesAreNotCopied() throws {
        let value: PropertyList = ["list": [1, 2, 3], "nested": ["deep": ["text"]]]
        var expander = NestedArchive.PlainExpander(
            recovering: false, budget: NestedArchive.Budget(forInputLength: 1000))
        let expanded = try expander.expanded(value, level: 0)
        #expect(expanded == value)
        #expect(StorageIdentity(expanded) == StorageIdentity(value))
    }

    /// A plain property list referring 2,000 times to one data value holding a 2^13-leaf
    /// bomb: every copy counts against the values allowed, so the expansion is refused
    /// (it was built 2,000 times: 2.6–3.8 GB); a few copies are expanded.
    @Test func expansionChargesEveryValueItCopies() throws {
        let bomb = BombTests.smallBomb(levels: 14)
        let many = PropertyList.dictionary(["items": .array(Array(repeating: .data(bomb), count: 2000))])
        var expander = NestedArchive.PlainExpander(
            recovering: false, budget: NestedArchive.Budget(forInputLength: 62_000))
        let error = #expect(throws: ArchiveValueResolver.Failure.self) {
            _ = try expander.expanded(many, level: 0)
        }
        #expect(error?.message.hasPrefix("items.") == true, "\(String(describing: error))")
        #expect(error?.message.contains("the expanded value is larger than the output allows") == true)
        let few = PropertyList.array(Array(repeating: .data(bomb), count: 3))
        var small = NestedArchive.PlainExpander(
            recovering: false, budget: NestedArchive.Budget(forInputLength: 1000))
        guard case .array(let copies) = try small.expanded(few, level: 0) else {
            Issue.record("not an array")
            return
        }
        #expect(copies.count == 3 && copies[0]["$expanded"] == "property list")
        #expect(copies[0]["$value"] == (try PropertyList(from: bomb)))
    }

    @Test func jsonlExpandOfABombIsRefusedAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bomb = BombTests.smallBomb(levels: 14)
        let path = try directory.write(
            ArchiveSamples.binary([
                "pad": .string(String(repeating: "a", count: 58_000)),
                "items": .array(Array(repeating: .data(bomb), count: 2000)),
            ]), to: "bomb.plist")
        let clock = ContinuousClock()
        let start = clock.now
        let run = ToolRun(["decode", "--jsonl", "--expand", path])
        #expect(clock.now - start < .seconds(10))
        #expect(run.status == 1)
        let line = try JSONValueReader.read(run.outputText)
        #expect(
            line["error"]?.stringValue?.contains("the expanded value is larger than the output allows")
                == true)
        let text = ToolRun(["decode", "--expand", path])
        #expect(text.status == 1)
        #expect(text.error.contains("the output would be larger than 67108864 bytes"), "\(text.error)")
    }

    /// An archive whose objects each refer twice to the next resolves to the same value
    /// whether shared objects are resolved once or at every reference; one whose last
    /// object refers back to the first still has that cycle cut.
    @Test(arguments: [false, true])
    func resolvingSharesObjectsButNotCycles(cyclic: Bool) throws {
        let levels = 12
        var objects: [PropertyList] = ["$null"]
        for level in 0..<levels {
            let next = PropertyList.uid(UInt64(level + 2))
            let last: PropertyList = cyclic ? .uid(1) : 7
            objects.append(
                [
                    "$class": .uid(UInt64(levels + 1)),
                    "NS.objects": level == levels - 1 ? [last] : [next, next],
                ])
        }
        objects.append(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        let graph = try KeyedUnarchiver.objectGraph(
            from: PropertyList.dictionary([
                "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
                "$objects": .array(objects),
            ]))
        var resolver = ArchiveValueResolver(graph: graph, budget: 1 << 20)
        let value = try resolver.propertyList(for: .reference(1))
        var expected: PropertyList = [cyclic ? .uid(1) : 7]
        for _ in 0..<(levels - 1) { expected = [expected, expected] }
        #expect(value == expected)
        if !cyclic, case .array(let halves) = value {
            #expect(StorageIdentity(halves[0]) == StorageIdentity(halves[1]), "resolved once")
        }
        // The budget still counts every copy: 2^12 - 1 references and as many arrays.
        var tight = ArchiveValueResolver(graph: graph, budget: 8000)
        #expect(throws: ArchiveValueResolver.Failure.self) { try tight.propertyList(for: .reference(1)) }
    }

    // MARK: - Printers

    /// Values of every kind, nested past the indentation limit, in every layout: the
    /// bound is never above what is printed, and close to it.
    @Test(arguments: [PrintedSize.Layout.plutil, .literal(.swift), .literal(.objc)])
    func printedSizeIsALowerBound(layout: PrintedSize.Layout) throws {
        var deep: PropertyList = ["leaf": "x", "n": 12345]
        for level in 0..<40 { deep = level % 2 == 0 ? [deep, true] : ["k\(level)": deep] }
        var values: [PropertyList] = [
            "plain", "", "tab\tand\u{1b}escape", 0, -17, 3.25, .real(.nan), true, false, [], [:], [[]],
            ["": [:]],
            ["k": ["nested": [1, 2, 3]]], deep, try PropertyList(from: BombTests.smallBomb(levels: 10)),
        ]
        if case .literal(.objc) = layout {
        } else {
            values += [
                .date(Date(timeIntervalSinceReferenceDate: 0)), .data(Data()), .data(Data([1, 2, 3])),
                .data(Data(count: 100)), .uid(42),
                ["when": .date(Date(timeIntervalSinceReferenceDate: 1e20))],
            ]
        }
        for value in values {
            let size = try Self.printedSize(value, layout: layout)
            #expect(!PrintedSize.exceeds(size, value, layout: layout), "\(value): \(size) bytes")
        }
        // Nearly exact for the bombs' shape.
        let bomb = try PropertyList(from: BPlist.nestedBomb(depth: 40, levels: 10))
        let size = try Self.printedSize(bomb, layout: layout)
        #expect(PrintedSize.exceeds(size * 9 / 10, bomb, layout: layout), "\(size) bytes")
    }

    static func printedSize(_ value: PropertyList, layout: PrintedSize.Layout) throws -> Int {
        switch layout {
        case .plutil:
            return PropertyListPrinter.render(value).utf8.count
        case .literal(let language):
            // With the comment and declaration, which the bound leaves out.
            return try LiteralSourceWriter.render(value, language: language, fileName: "v", limit: .max).count
        }
    }

    @Test func everyPrinterRefusesANestedBombAtOnce() throws {
        // 490 nested arrays around a 2^19-leaf bomb: 2.6 KB, 80 MB as -p text.
        let data = BPlist.nestedBomb(depth: 490, levels: 20)
        let value = try PropertyList(from: data)
        let limit = Tool.outputLimit(forInputLength: data.count)
        var written = 0
        #expect(throws: PropertyListPrinter.OutputLimitExceeded.self) {
            try PropertyListPrinter.render(value, limit: limit) { written += $0.utf8.count }
        }
        #expect(written == 0, "refused before printing")
        for language in [LiteralSourceWriter.Language.swift, .objc] {
            #expect(throws: LiteralSourceWriter.Failure.self) {
                _ = try LiteralSourceWriter.render(value, language: language, fileName: "b", limit: limit)
            }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: "bomb.plist")
        for command in [
            ["-p"], ["-convert", "swift", "-o", "-"], ["-convert", "objc", "-o", "-"],
            ["decode", "--expand"],
        ] {
            let run = ToolRun(command + [path])
            #expect(run.status == 1, "\(command)")
            #expect(run.output.isEmpty, "\(command)")
            #expect(
                run.error.contains("the output would be larger than 67108864 bytes"),
                "\(command): \(run.error)")
        }
    }

    /// A binary file whose objects are reached again and again is printed from the tree
    /// (measured first): the same text as the stream gives for files without sharing.
    @Test func printingABinaryBombUnderTheLimitGivesTheTreesText() throws {
        let data = BPlist.nestedBomb(depth: 40, levels: 12)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(data, to: "small-bomb.plist")
        let run = ToolRun(["-p", path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputText == PropertyListPrinter.render(try PropertyList(from: data)))
    }

    // MARK: - Object graphs

    /// One `$objects` entry holding a 2^19-leaf bomb (about 250 bytes): its graph, outline
    /// and JSON are made from a shared subtree, not a million copies (254–264 MB before).
    @Test func aPlainBombInOneEntryIsSharedInTheGraph() throws {
        let data = BPlist.plainBombEntryArchive(levels: 20)
        #expect(data.count < 300)
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        // The reader builds an object referenced again twice at most (the second time to
        // keep it), so the second half's two quarters are one value.
        guard case .value(.array(let top))? = graph[1], case .array(let right) = top[1],
            case .array(let first) = right[0], case .array(let second) = right[1]
        else {
            Issue.record("unexpected graph")
            return
        }
        #expect(StorageIdentity(array: first) == StorageIdentity(array: second), "the two quarters are one")
        // Output bounded by the limit: the outline stops once past it.
        #expect(graph.outline(summarizingKnownClasses: false, linePrefix: "", maximumBytes: 1 << 20) == nil)
        // The graph of the value (rewritten as binary by the unarchiver, sharing kept), and
        // the graph of the same archive without any sharing (as XML), are the same graph.
        let small = BPlist.plainBombEntryArchive(levels: 12)
        let shared = try KeyedUnarchiver.objectGraph(from: small)
        let fromValue = try KeyedUnarchiver.objectGraph(from: try PropertyList(from: small))
        let unshared = try KeyedUnarchiver.objectGraph(from: try PropertyList(from: small).data(format: .xml))
        #expect(fromValue == shared)
        #expect(unshared == shared)
        #expect(unshared.outline() == shared.outline())
    }
}
