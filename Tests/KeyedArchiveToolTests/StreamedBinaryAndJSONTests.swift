import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// `-convert binary1` of an XML property list and `-convert json` of a binary one build no
/// tree: these check that they write the tree's bytes, refuse at least what the tree's way
/// refuses, and that the tool's results (output, messages, status) are the tree's.
@Suite struct StreamedBinaryAndJSONTests {
    // MARK: - The two ways

    /// What `-convert binary1` wrote before it streamed: the value read, written as binary.
    static func treeBinary(_ xml: Data) throws -> Data {
        try PropertyList(from: xml).data(format: .binary)
    }

    static func streamedBinary(_ xml: Data) throws -> Data {
        try PropertyListStreamedConversion.binary(fromXML: xml)
    }

    /// What `-convert json` wrote before it streamed, with the tool's output bound.
    static func treeJSON(_ binary: Data, prettyPrinted: Bool = false, limit: Int? = nil) throws -> Data {
        var text = Data()
        try PropertyList(from: binary).writeJSON(
            options: options(binary, prettyPrinted: prettyPrinted, limit: limit)
        ) { text.append(contentsOf: $0) }
        return text
    }

    static func streamedJSON(_ binary: Data, prettyPrinted: Bool = false, limit: Int? = nil) throws -> Data {
        var text = Data()
        try PropertyListStreamedConversion.json(
            fromBinary: binary, options: options(binary, prettyPrinted: prettyPrinted, limit: limit)
        ) { text.append(contentsOf: $0) }
        return text
    }

    static func options(_ binary: Data, prettyPrinted: Bool, limit: Int?) -> PropertyListJSONOptions {
        PropertyListJSONOptions(
            prettyPrinted: prettyPrinted, sortsKeys: false,
            maximumOutputBytes: limit ?? Tool.outputLimit(forInputLength: binary.count))
    }

    /// Every fixture as XML (XML ones as they are, the others as the tree writes them).
    static let xmlFixtures = Fixtures.propertyLists(as: .xml, label: "XML") {
        PropertyListFormat.detect($0) == .xml
    }

    // MARK: - The tree's result, through the tool

    /// Runs `-convert binary1` on `xml` and checks the result is the tree's: its bytes, or
    /// its failure message and status.
    static func expectTreesBinary(_ xml: Data, _ label: String) {
        let run = ToolRun(["-convert", "binary1", "-o", "-", "--", "-"], standardInput: xml)
        do {
            let tree = try treeBinary(xml)
            #expect(run.status == 0, "\(label): \(run.error)")
            #expect(run.output == tree, "\(label): the tool's binary differs from the tree's")
        } catch let error as KeyedArchiveError {
            #expect(run.status == 1, "\(label)")
            #expect(run.output.isEmpty, "\(label): nothing written when the conversion fails")
            let message = error.description
            #expect(
                run.errorLines == ["-: \(message)"]
                    || run.errorLines.first?.hasPrefix("-: \(message)") == true,
                "\(label): \(run.errorLines)")
        } catch {
            Issue.record("\(label): \(error)")
        }
    }

    /// Runs `-convert json` (`-r` when `prettyPrinted`) on `binary` and checks the result is
    /// the tree's: its text, or its failure message and status.
    static func expectTreesJSON(_ binary: Data, prettyPrinted: Bool = false, _ label: String) {
        let run = ToolRun(
            ["-convert", "json"] + (prettyPrinted ? ["-r"] : []) + ["-o", "-", "--", "-"],
            standardInput: binary)
        let message: String
        do {
            _ = try PropertyList(from: binary)
            do {
                let tree = try treeJSON(binary, prettyPrinted: prettyPrinted)
                #expect(run.status == 0, "\(label): \(run.error)")
                // JSON on standard output ends with a newline.
                #expect(run.output == tree + [0x0A], "\(label): the tool's JSON differs from the tree's")
                return
            } catch let error as KeyedArchiveError {
                message = "cannot write as json: \(error.description)"
            }
        } catch let error as KeyedArchiveError {
            message = error.description
        } catch {
            Issue.record("\(label): \(error)")
            return
        }
        #expect(run.status == 1, "\(label)")
        #expect(run.output.isEmpty, "\(label): nothing written when the conversion fails")
        #expect(run.errorLines == ["-: \(message)"], "\(label): \(run.errorLines)")
    }

    // MARK: - Fixtures

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func everyXMLFixtureStreamsTheTreesBinary() throws {
        #expect(Self.xmlFixtures.count > 150, "fixtures found: \(Self.xmlFixtures.count)")
        var compared = 0
        for (name, data) in Self.xmlFixtures {
            guard let tree = try? Self.treeBinary(data) else {
                #expect(throws: (any Error).self, "\(name): the tree refuses it, so must the stream") {
                    try Self.streamedBinary(data)
                }
                continue
            }
            if let streamed = try? Self.streamedBinary(data) {
                #expect(streamed == tree, "\(name): streamed binary differs from the tree's")
                compared += 1
            }
            Self.expectTreesBinary(data, name)
        }
        #expect(compared > 150, "fixtures streamed: \(compared)")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func everyBinaryFixtureStreamsTheTreesJSON() throws {
        var compared = 0
        for (name, data) in StreamedConversionTests.binaryFixtures {
            guard (try? PropertyList(from: data)) != nil else {
                #expect(throws: (any Error).self, "\(name)") { try Self.streamedJSON(data) }
                continue
            }
            for pretty in [false, true] {
                if let streamed = try? Self.streamedJSON(data, prettyPrinted: pretty) {
                    #expect(
                        streamed == (try? Self.treeJSON(data, prettyPrinted: pretty)),
                        "\(name): streamed JSON differs from the tree's (pretty: \(pretty))")
                    compared += 1
                }
                Self.expectTreesJSON(data, prettyPrinted: pretty, name)
            }
        }
        #expect(compared > 300, "fixtures streamed: \(compared)")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func toFileIsTheTreesBytes() throws {
        guard let (name, xml) = Self.xmlFixtures.max(by: { $0.data.count < $1.data.count }) else { return }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(xml, to: "in.plist")
        let binary = try Self.treeBinary(xml)
        let run = ToolRun(["-convert", "binary1", "-o", directory.path("out.plist"), input])
        #expect(run.status == 0 && run.error.isEmpty, "\(name): \(run.error)")
        #expect(try directory.read("out.plist") == binary, "\(name)")
        let json = ToolRun([
            "-convert", "json", "-o", directory.path("out.json"), directory.path("out.plist"),
        ])
        #expect(json.status == 0 && json.error.isEmpty, "\(name): \(json.error)")
        #expect(try directory.read("out.json") == Self.treeJSON(binary), "\(name)")
        // In place: the file itself becomes its binary form.
        let inPlace = ToolRun(["-convert", "binary1", input])
        #expect(inPlace.status == 0)
        #expect(try directory.read("in.plist") == binary)
        #expect(try directory.contents() == ["in.plist", "out.json", "out.plist"])
    }

    /// Scalars alone, empty containers, keys given in reverse order, and a file as Apple's
    /// XML writer lays it out with comments, entities and CDATA.
    @Test func edgeShapes() throws {
        let values: [PropertyList] = [
            "top", 42, 1.5, true, .data(Data()), .date(Date(timeIntervalSinceReferenceDate: 0.5)), .uid(3),
            [], [:], [[], [:], [[]]], ["z": 1, "a": 2, "m": [:], "\u{E9}": 3, "e\u{301}": 4],
        ]
        for value in values {
            let xml = try value.data(format: .xml)
            #expect(try Self.streamedBinary(xml) == Self.treeBinary(xml), "\(value)")
            let binary = try value.data(format: .binary)
            #expect(try Self.streamedJSON(binary) == Self.treeJSON(binary), "\(value)")
            #expect(
                try Self.streamedJSON(binary, prettyPrinted: true)
                    == Self.treeJSON(binary, prettyPrinted: true),
                "\(value)")
        }
        let written = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <!-- a comment -->
            <dict>
                <key>zeta</key><string>&lt;tag&gt; &#x1F954; &amp;</string>
                <key>alpha</key><array><integer>-0x10</integer><real>2.50</real><true/><date>2001-01-01T00:00:00Z</date></array>
                <key>cdata</key><string><![CDATA[<raw>]]></string>
                <key>uid</key><dict><key>CF$UID</key><integer>7</integer></dict>
                <key>data</key><data>
                    AAEC
                    AwQ=
                </data>
                <key>empty</key><dict/>
            </dict>
            </plist>
            """.utf8)
        #expect(try Self.streamedBinary(written) == Self.treeBinary(written))
        Self.expectTreesBinary(written, "Apple-style XML")
        // UTF-16 text is read as the tree reads it.
        let utf16 =
            Data([0xFF, 0xFE]) + String(decoding: written, as: UTF8.self).data(using: .utf16LittleEndian)!
        Self.expectTreesBinary(utf16, "UTF-16 XML")
    }

    // MARK: - Limits and hostile input

    /// Where the JSON writer's output bound falls, the stream falls too.
    @Test func jsonOutputBoundFallsWhereTheTreesFalls() throws {
        let value: PropertyList = [
            "items": .array(
                (0..<300).map { .string("item \($0) " + String(repeating: "x", count: $0 % 40)) }),
            "data": .data(Data((0..<3000).map { UInt8(truncatingIfNeeded: $0) })),
            "nested": ["a": [1, 2.5, true], "b": .uid(7), "c": [[], [:]]],
        ]
        let binary = try value.data(format: .binary)
        for pretty in [false, true] {
            let length = try Self.treeJSON(binary, prettyPrinted: pretty).count
            for limit in stride(from: 0, through: length + 64, by: 5) {
                let tree = try? Self.treeJSON(binary, prettyPrinted: pretty, limit: limit)
                let streamed = try? Self.streamedJSON(binary, prettyPrinted: pretty, limit: limit)
                #expect(
                    tree == streamed,
                    "limit \(limit): tree \(tree?.count ?? -1), stream \(streamed?.count ?? -1)")
            }
        }
    }

    @Test func jsonHostileShapes() throws {
        let reference = { (index: Int) -> [UInt8] in BPlist.reference(index) }
        let bplist = { (objects: [[UInt8]]) -> Data in BPlist.data(objects, refSize: 2, offsetSize: 2) }
        // A dictionary key that is a number, not a string: reading refuses it.
        let numberKey = bplist([[0xD1] + reference(1) + reference(2), [0x10, 1], [0x10, 2]])
        #expect(throws: KeyedArchiveError.self) { try Self.streamedJSON(numberKey) }
        Self.expectTreesJSON(numberKey, "number key")
        let dataKey = bplist([[0xD1] + reference(1) + reference(2), [0x41, 0xAA], [0x10, 2]])
        Self.expectTreesJSON(dataKey, "data key")
        let cycle = bplist([[0xA2] + reference(1) + reference(0), [0x10, 1]])
        #expect(throws: KeyedArchiveError.self) { try Self.streamedJSON(cycle) }
        Self.expectTreesJSON(cycle, "cycle")
        let bomb = bplist(
            (0..<40).map { $0 == 39 ? [0x10, 1] : [0xA2] + reference($0 + 1) + reference($0 + 1) })
        #expect(throws: KeyedArchiveError.self) { try Self.streamedJSON(bomb) }
        Self.expectTreesJSON(bomb, "bomb")
        let duplicate = bplist([
            [0xD2] + reference(1) + reference(1) + reference(2) + reference(3),
            [0x51, UInt8(ascii: "k")], [0x10, 1], [0x10, 2],
        ])
        #expect(throws: KeyedArchiveError.self) { try Self.streamedJSON(duplicate) }
        Self.expectTreesJSON(duplicate, "key given twice")
        // Keys in the file's order, as the tree keeps them (not sorted).
        let unsorted = bplist([
            [0xD2] + reference(1) + reference(2) + reference(3) + reference(3),
            [0x51, UInt8(ascii: "z")], [0x51, UInt8(ascii: "a")], [0x10, 1],
        ])
        #expect(try Self.streamedJSON(unsorted) == Data(#"{"z":1,"a":1}"#.utf8))
        Self.expectTreesJSON(unsorted, "unsorted keys")
    }

    @Test func xmlHostileShapes() throws {
        let shapes: [(String, String)] = [
            ("entity", #"<!DOCTYPE plist [<!ENTITY a "b">]><plist><string>&a;</string></plist>"#),
            ("unknown tag", "<plist><thing/></plist>"),
            ("key without value", "<plist><dict><key>a</key></dict></plist>"),
            (
                "key given twice",
                "<plist><dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict></plist>"
            ),
            ("big integer", "<plist><integer>99999999999999999999999</integer></plist>"),
            ("bad date", "<plist><date>yesterday</date></plist>"),
            ("bad base64", "<plist><data>!!!</data></plist>"),
            ("UID out of range", "<plist><dict><key>CF$UID</key><integer>-1</integer></dict></plist>"),
            ("unterminated", "<plist><array><string>a</string>"),
        ]
        for (label, text) in shapes {
            Self.expectTreesBinary(Data(text.utf8), label)
        }
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func malformedFixturesAnswerAsTheTreesWay() throws {
        var counts = (xml: 0, binary: 0)
        for entry in Fixtures.malformed {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: entry.path)) else { continue }
            if data.starts(with: Data("bplist00".utf8)) {
                counts.binary += 1
                Self.expectTreesJSON(data, entry.file)
            } else if PropertyListFormat.detect(data) == .xml {
                counts.xml += 1
                Self.expectTreesBinary(data, entry.file)
            }
        }
        #expect(counts.binary > 10 && counts.xml > 5, "malformed fixtures: \(counts)")
    }
}
