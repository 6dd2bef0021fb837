import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// `-convert json` and `-convert xml1` of an XML property list, and `-convert binary1` of a
/// binary one, build no tree: these check that they write the tree's bytes, refuse at least
/// what the tree's way refuses, and that the tool's results (output, messages, status) are
/// the tree's, falling back to it where the stream gives up.
@Suite struct StreamedXMLInputTests {
    // MARK: - The two ways

    static func streamedJSON(
        _ xml: Data, prettyPrinted: Bool = false, limit: Int? = nil,
        readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws -> Data {
        var text = Data()
        try PropertyListStreamedConversion.json(
            fromXML: xml, readingOptions: readingOptions,
            options: StreamedBinaryAndJSONTests.options(xml, prettyPrinted: prettyPrinted, limit: limit)
        ) { text.append(contentsOf: $0) }
        return text
    }

    static func treeJSON(
        _ xml: Data, prettyPrinted: Bool = false, limit: Int? = nil,
        readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws -> Data {
        var text = Data()
        try PropertyList(from: xml, options: readingOptions).writeJSON(
            options: StreamedBinaryAndJSONTests.options(xml, prettyPrinted: prettyPrinted, limit: limit)
        ) { text.append(contentsOf: $0) }
        return text
    }

    static func streamedXML(
        _ xml: Data, limit: Int? = nil,
        readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws -> Data {
        var text = Data()
        try PropertyListStreamedConversion.xml(
            fromXML: xml, readingOptions: readingOptions,
            maximumOutputBytes: limit ?? Tool.outputLimit(forInputLength: xml.count)
        ) { text.append(contentsOf: $0) }
        return text
    }

    static func treeXML(
        _ xml: Data, limit: Int? = nil,
        readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws -> Data {
        try PropertyList(from: xml, options: readingOptions).data(
            format: .xml,
            options: PropertyListWritingOptions(
                maximumOutputBytes: limit ?? Tool.outputLimit(forInputLength: xml.count)))
    }

    static func copiedBinary(
        _ binary: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws -> Data {
        try PropertyListStreamedConversion.binary(fromBinary: binary, readingOptions: readingOptions)
    }

    static func treeBinary(
        _ binary: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws -> Data {
        try PropertyList(from: binary, options: readingOptions).data(format: .binary)
    }

    /// Every conversion of `xml` the stream makes, against the tree's; and the tool's.
    static func expectTreesResults(xml: Data, _ label: String, throughTool: Bool = true) {
        for pretty in [false, true] {
            let tree = try? treeJSON(xml, prettyPrinted: pretty)
            if let streamed = try? streamedJSON(xml, prettyPrinted: pretty) {
                #expect(
                    streamed == tree, "\(label): streamed JSON differs from the tree's (pretty: \(pretty))")
            }
            if throughTool {
                StreamedBinaryAndJSONTests.expectTreesJSON(xml, prettyPrinted: pretty, label)
            }
        }
        if let streamed = try? streamedXML(xml) {
            #expect(streamed == (try? treeXML(xml)), "\(label): streamed XML differs from the tree's")
        }
        if throughTool { StreamedConversionTests.expectTreesResult(xml, label) }
    }

    // MARK: - Fixtures

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func everyXMLFixtureStreamsTheTreesJSONAndXML() throws {
        let fixtures = StreamedBinaryAndJSONTests.xmlFixtures
        #expect(fixtures.count > 150, "fixtures found: \(fixtures.count)")
        var streamed = (json: 0, xml: 0)
        for (name, data) in fixtures {
            guard (try? PropertyList(from: data)) != nil else {
                #expect(throws: (any Error).self, "\(name)") { try Self.streamedJSON(data) }
                #expect(throws: (any Error).self, "\(name)") { try Self.streamedXML(data) }
                continue
            }
            for pretty in [false, true] {
                if let text = try? Self.streamedJSON(data, prettyPrinted: pretty) {
                    #expect(
                        text == (try? Self.treeJSON(data, prettyPrinted: pretty)),
                        "\(name): streamed JSON differs from the tree's (pretty: \(pretty))")
                    streamed.json += 1
                }
            }
            if let text = try? Self.streamedXML(data) {
                #expect(text == (try? Self.treeXML(data)), "\(name): streamed XML differs from the tree's")
                streamed.xml += 1
            }
            StreamedBinaryAndJSONTests.expectTreesJSON(data, prettyPrinted: name.count % 2 == 0, name)
            StreamedConversionTests.expectTreesResult(data, name)
        }
        #expect(streamed.json > 300 && streamed.xml > 150, "fixtures streamed: \(streamed)")
    }

    /// The text `-p` prints of `xml` from the walk over its compact form.
    static func walkedText(
        _ xml: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions()
    )
        throws -> String
    {
        var text = ""
        var formatter = PropertyListPrinter.Formatter(limit: .max, output: { text += $0 })
        try PropertyListStreamedConversion.walk(xml: xml, readingOptions: readingOptions) {
            try formatter.consume($0)
        }
        try formatter.finish()
        return text
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func everyXMLFixturePrintsTheTreesText() throws {
        var walked = 0
        for (name, data) in StreamedBinaryAndJSONTests.xmlFixtures {
            guard let value = try? PropertyList(from: data) else {
                #expect(throws: (any Error).self, "\(name)") { try Self.walkedText(data) }
                StreamedPrintTests.expectTreesResult(data, name)
                continue
            }
            if let text = try? Self.walkedText(data) {
                #expect(text == PropertyListPrinter.render(value), "\(name)")
                walked += 1
            }
            StreamedPrintTests.expectTreesResult(data, name)
        }
        #expect(walked > 150, "fixtures walked: \(walked)")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func everyBinaryFixtureCopiesToTheTreesBinary() throws {
        var copied = 0
        for (name, data) in StreamedConversionTests.binaryFixtures {
            guard let tree = try? Self.treeBinary(data) else {
                #expect(throws: (any Error).self, "\(name)") { try Self.copiedBinary(data) }
                StreamedBinaryAndJSONTests.expectTreesBinary(data, name)
                continue
            }
            if let copy = try? Self.copiedBinary(data) {
                #expect(copy == tree, "\(name): copied binary differs from the tree's")
                copied += 1
            }
            StreamedBinaryAndJSONTests.expectTreesBinary(data, name)
        }
        #expect(copied > 150, "fixtures copied: \(copied)")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func malformedFixturesAnswerAsTheTreesWay() throws {
        var counts = (xml: 0, binary: 0)
        for entry in Fixtures.malformed {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: entry.path)) else { continue }
            if data.starts(with: Data("bplist00".utf8)) {
                counts.binary += 1
                let tree = try? Self.treeBinary(data)
                if let copy = try? Self.copiedBinary(data) {
                    #expect(copy == tree, "\(entry.file): copied, so the tree reads it, to the same bytes")
                }
                StreamedBinaryAndJSONTests.expectTreesBinary(data, entry.file)
            } else if PropertyListFormat.detect(data) == .xml {
                counts.xml += 1
                Self.expectTreesResults(xml: data, entry.file)
            }
        }
        #expect(counts.binary > 10 && counts.xml > 5, "malformed fixtures: \(counts)")
    }

    // MARK: - Generated values

    /// Whether `value`, written as XML (keys sorted), has a dictionary whose first key is
    /// `CF$UID`, which the JSON stream leaves to the tree (it may be a UID).
    static func hasDictionaryStartingWithUIDKey(_ value: PropertyList) -> Bool {
        switch value {
        case .array(let elements): return elements.contains(where: hasDictionaryStartingWithUIDKey)
        case .dictionary(let dictionary):
            let first = dictionary.keys.min { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return first == "CF$UID" || dictionary.values.contains(where: hasDictionaryStartingWithUIDKey)
        default: return false
        }
    }

    /// The readers' nesting limit and value budget fall where the tree's readers' fall.
    @Test func readingLimitsFallWhereTheReadersFall() throws {
        var outcomes: [String: Set<Bool>] = [:]
        for seed in UInt64(1)...12 {
            let value = GeneratedPropertyLists.value(seed: seed * 7)
            let xml = try value.data(format: .xml)
            let binary = try value.data(format: .binary)
            var options: [PropertyListReadingOptions] = (0...8).map {
                PropertyListReadingOptions(maximumDepth: $0)
            }
            options.append(PropertyListReadingOptions(maximumDepth: .max, baseValueAllowance: .max))
            options += (0...80).map {
                PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: $0 * 3)
            }
            for option in options {
                let label =
                    "seed \(seed), depth \(option.maximumDepth), allowance \(option.baseValueAllowance)"
                let json = try? Self.treeJSON(xml, readingOptions: option)
                do {
                    let streamedJSON = try Self.streamedJSON(xml, readingOptions: option)
                    #expect(json == streamedJSON, "\(label): JSON")
                } catch {
                    #expect(
                        json == nil || Self.hasDictionaryStartingWithUIDKey(value), "\(label): JSON: \(error)"
                    )
                }
                outcomes["json", default: []].insert(json != nil)
                let text = try? Self.treeXML(xml, readingOptions: option)
                #expect(text == (try? Self.streamedXML(xml, readingOptions: option)), "\(label): XML")
                outcomes["xml", default: []].insert(text != nil)
                let printed = (try? PropertyList(from: xml, options: option)).map {
                    PropertyListPrinter.render($0)
                }
                #expect(printed == (try? Self.walkedText(xml, readingOptions: option)), "\(label): -p")
                let binaryOfXML = try? PropertyList(from: xml, options: option).data(format: .binary)
                #expect(
                    binaryOfXML
                        == (try? PropertyListStreamedConversion.binary(fromXML: xml, readingOptions: option)),
                    "\(label): binary of XML")
                let tree = try? Self.treeBinary(binary, readingOptions: option)
                #expect(tree == (try? Self.copiedBinary(binary, readingOptions: option)), "\(label): binary")
                outcomes["binary", default: []].insert(tree != nil)
            }
        }
        #expect(outcomes.values.allSatisfy { $0 == [true, false] }, "\(outcomes)")
    }

    /// A binary property list whose objects are shared: the copy counts every value and
    /// key each time it is reached, as the reader does.
    @Test func sharedObjectsCountAsTheReaderCounts() throws {
        let reference = { (index: Int) -> [UInt8] in BPlist.reference(index) }
        // 0: [1, 1, 2], 1: {a: 3, b: 3}, 2: "s", 3: [2, 2]
        let data = BPlist.data(
            [
                [0xA3] + reference(1) + reference(1) + reference(2),
                [0xD2] + reference(4) + reference(5) + reference(3) + reference(3),
                [0x51, UInt8(ascii: "s")], [0xA2] + reference(2) + reference(2),
                [0x51, UInt8(ascii: "a")], [0x51, UInt8(ascii: "b")],
            ], refSize: 2, offsetSize: 2)
        var outcomes: Set<Bool> = []
        for allowance in 0...40 {
            let options = PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: allowance)
            let tree = try? Self.treeBinary(data, readingOptions: options)
            #expect(tree == (try? Self.copiedBinary(data, readingOptions: options)), "allowance \(allowance)")
            outcomes.insert(tree != nil)
        }
        #expect(outcomes == [true, false], "the allowances cross the file's count of values")
    }

    // MARK: - Shapes of XML

    /// Layouts the quick reading leaves to the general one, UIDs written otherwise than as
    /// writers write them, keys given twice (the stream gives up, the tree's way answers),
    /// containers written open and closed with nothing inside.
    @Test func xmlShapes() throws {
        func plist(_ body: String) -> Data {
            Data(
                ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n" + body
                    + "\n</plist>\n").utf8)
        }
        let manyKeys = (0..<40).map {
            "<key>key number \($0) of a long dictionary</key><integer>\($0)</integer>"
        }
        let shapes: [(String, Data, streams: Bool)] = [
            (
                "open empty containers", plist("<array><array></array><dict></dict><dict> </dict></array>"),
                true
            ),
            ("comment between values", plist("<array><!-- c --><string>a</string><true/></array>"), true),
            ("attribute", plist("<dict><key a=\"b\">k</key><string>v</string></dict>"), true),
            (
                "entities and CDATA", plist("<array><string>&lt;&#x1F954;<![CDATA[<x>]]></string></array>"),
                true
            ),
            (
                "UID with a comment", plist("<dict><!-- c --><key>CF$UID</key><integer>3</integer></dict>"),
                false
            ),
            (
                "UID given twice",
                plist(
                    "<dict><key>CF$UID</key><integer>1</integer><key>CF$UID</key><integer>2</integer></dict>"),
                false
            ),
            (
                "CF$UID and more",
                plist("<dict><key>CF$UID</key><integer>1</integer><key>b</key><true/></dict>"), false
            ),
            (
                "CF$UID not first",
                plist("<dict><key>b</key><true/><key>CF$UID</key><integer>1</integer></dict>"), true
            ),
            ("CF$UID not an integer", plist("<dict><key>CF$UID</key><string>1</string></dict>"), false),
            (
                "key given twice",
                plist("<dict><key>a</key><true/><key>b</key><true/><key>a</key><false/></dict>"), false
            ),
            ("long keys", plist("<dict>" + manyKeys.joined() + "</dict>"), true),
            (
                "long key given twice in a large dictionary",
                plist("<dict>" + manyKeys.joined() + manyKeys[3] + "</dict>"), false
            ),
            (
                "short key given twice in a large dictionary",
                plist(
                    "<dict>" + (0..<30).map { "<key>k\($0)</key><true/>" }.joined()
                        + "<key>k29</key><false/></dict>"), false
            ),
            (
                "nested dictionaries reuse keys",
                plist(
                    "<dict><key>a</key><dict><key>a</key><dict><key>a</key><true/></dict></dict><key>b</key><dict><key>a</key><false/></dict></dict>"
                ), true
            ),
            ("bare value", Data("<string>bare</string>".utf8), true),
            (
                "non-ASCII keys", plist("<dict><key>caf\u{E9}</key><true/><key>cafe</key><false/></dict>"),
                true
            ),
            (
                "canonically equivalent keys",
                plist("<dict><key>\u{E9}</key><true/><key>f</key><true/><key>e\u{301}</key><false/></dict>"),
                false
            ),
            (
                "Kelvin sign and K", plist("<dict><key>K</key><true/><key>\u{212A}</key><false/></dict>"),
                false
            ),
            ("trailing content", plist("<true/>") + Data("garbage".utf8), true),
        ]
        for (label, xml, streams) in shapes {
            Self.expectTreesResults(xml: xml, label)
            StreamedBinaryAndJSONTests.expectTreesBinary(xml, label)
            StreamedPrintTests.expectTreesResult(xml, label)
            let streamed = try? Self.streamedJSON(xml)
            #expect((streamed != nil) == streams, "\(label): streams \(streamed != nil)")
            if streams { #expect(streamed == (try Self.treeJSON(xml)), "\(label)") }
        }
        // UTF-16 text is read as the tree reads it.
        let utf16 =
            Data([0xFF, 0xFE])
            + "<plist><dict><key>caf\u{E9}</key><string>\u{1F954}</string></dict></plist>".data(
                using: .utf16LittleEndian)!
        Self.expectTreesResults(xml: utf16, "UTF-16")
        #expect(try Self.streamedJSON(utf16) == Data(#"{"café":"🥔"}"#.utf8))
    }

    /// When the quick reading gives up after part of the JSON was handed over, the stream
    /// gives up too and the tool goes the tree's way; before that, it starts over.
    @Test func generalReadingAfterTextWasHandedOver() throws {
        let items = String(repeating: "<string>an item of the list</string>", count: 20_000)
        let late = Data(("<plist><array>" + items + "<!-- late --><true/></array></plist>").utf8)
        let early = Data(("<plist><array><!-- early --><true/>" + items + "</array></plist>").utf8)
        #expect(throws: KeyedArchiveError.self) { try Self.streamedJSON(late) }
        #expect(try Self.streamedJSON(early) == Self.treeJSON(early))
        Self.expectTreesResults(xml: late, "late comment")
        Self.expectTreesResults(xml: early, "early comment")
    }

    /// Where the JSON and XML writers' output bounds fall, the streams fall too.
    @Test func outputBoundsFallWhereTheTreesFall() throws {
        let value: PropertyList = [
            "items": .array(
                (0..<200).map { .string("item \($0) " + String(repeating: "x", count: $0 % 40)) }),
            "data": .data(Data((0..<3000).map { UInt8(truncatingIfNeeded: $0) })),
            "nested": ["a": [1, 2.5, true], "b": .uid(7), "c": [[], [:]]],
        ]
        let xml = try value.data(format: .xml)
        for pretty in [false, true] {
            let length = try Self.treeJSON(xml, prettyPrinted: pretty).count
            for limit in stride(from: 0, through: length + 64, by: 7) {
                let tree = try? Self.treeJSON(xml, prettyPrinted: pretty, limit: limit)
                let streamed = try? Self.streamedJSON(xml, prettyPrinted: pretty, limit: limit)
                #expect(
                    tree == streamed,
                    "JSON limit \(limit): tree \(tree?.count ?? -1), stream \(streamed?.count ?? -1)")
            }
        }
        let length = try Self.treeXML(xml).count
        for limit in stride(from: 0, through: length + 64, by: 11) {
            let tree = try? Self.treeXML(xml, limit: limit)
            let streamed = try? Self.streamedXML(xml, limit: limit)
            #expect(
                tree == streamed,
                "XML limit \(limit): tree \(tree?.count ?? -1), stream \(streamed?.count ?? -1)")
        }
    }

    @Test func hostileShapes() throws {
        let shapes: [(String, String)] = [
            ("entity", #"<!DOCTYPE plist [<!ENTITY a "b">]><plist><string>&a;</string></plist>"#),
            ("unknown tag", "<plist><thing/></plist>"),
            ("key without value", "<plist><dict><key>a</key></dict></plist>"),
            ("big integer", "<plist><integer>99999999999999999999999</integer></plist>"),
            ("bad date", "<plist><date>yesterday</date></plist>"),
            ("bad base64", "<plist><data>!!!</data></plist>"),
            ("UID out of range", "<plist><dict><key>CF$UID</key><integer>-1</integer></dict></plist>"),
            ("unterminated", "<plist><array><string>a</string>"),
        ]
        for (label, text) in shapes {
            Self.expectTreesResults(xml: Data(text.utf8), label)
            StreamedPrintTests.expectTreesResult(Data(text.utf8), label)
        }
        var invalid = Data("<plist><array><string>a</string><string>".utf8)
        invalid += Data([0xC3, 0x28]) + Data("</string></array></plist>".utf8)
        #expect(throws: KeyedArchiveError.self) { try Self.streamedJSON(invalid) }
        Self.expectTreesResults(xml: invalid, "invalid UTF-8")

        let reference = { (index: Int) -> [UInt8] in BPlist.reference(index) }
        let bplist = { (objects: [[UInt8]]) -> Data in BPlist.data(objects, refSize: 2, offsetSize: 2) }
        let binaries: [(String, Data)] = [
            ("number key", bplist([[0xD1] + reference(1) + reference(2), [0x10, 1], [0x10, 2]])),
            ("cycle", bplist([[0xA2] + reference(1) + reference(0), [0x10, 1]])),
            (
                "bomb",
                bplist(
                    (0..<40).map { $0 == 39 ? [0x10, 1] : [0xA2] + reference($0 + 1) + reference($0 + 1) })
            ),
            (
                "key given twice",
                bplist([
                    [0xD2] + reference(1) + reference(1) + reference(2) + reference(3),
                    [0x51, UInt8(ascii: "k")], [0x10, 1], [0x10, 2],
                ])
            ),
            (
                // "é" (U+00E9), "f", "e" U+0301: sorted apart by their bytes, one key to reading.
                "canonically equivalent keys",
                bplist([
                    [0xD3] + reference(1) + reference(2) + reference(3) + reference(4) + reference(4)
                        + reference(4),
                    [0x61, 0x00, 0xE9], [0x51, UInt8(ascii: "f")], [0x62, 0x00, 0x65, 0x03, 0x01], [0x10, 1],
                ])
            ),
            (
                "Kelvin sign and K",
                bplist([
                    [0xD2] + reference(1) + reference(2) + reference(3) + reference(3),
                    [0x51, UInt8(ascii: "K")], [0x61, 0x21, 0x2A], [0x10, 1],
                ])
            ),
        ]
        for (label, binary) in binaries {
            #expect(throws: KeyedArchiveError.self, "\(label)") { try Self.copiedBinary(binary) }
            StreamedBinaryAndJSONTests.expectTreesBinary(binary, label)
        }
    }
}
