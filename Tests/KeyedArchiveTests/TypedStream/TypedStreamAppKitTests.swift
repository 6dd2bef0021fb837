import Foundation
import KeyedArchive
import Testing

/// AppKit's classes and `NSValue` geometry in typedstreams: read into the types keyed
/// archives give, and written as `NSArchiver` writes them.
@Suite("Typedstream AppKit classes and geometry")
struct TypedStreamAppKitTests {
    /// An `NSFont` (Menlo-Regular 11 pt) that macOS's `NSArchiver` wrote, as found in an
    /// application's preferences (a public project's test data).
    static let menloFont =
        Data(
            base64Encoded:
                "BAtzdHJlYW10eXBlZIHoA4QBQISEhAZOU0ZvbnQehIQITlNPYmplY3QAhYQBaSSEBVszNmNdBgAAABwAAAD//k0AZQBuAGwAbwAtAFIAZQBnAHUAbABhAHIAhAFmC4QBYwCYAZgAmACG"
        ) ?? Data()

    /// An `NSColor` (calibrated RGB) that macOS's `NSArchiver` wrote into a Terminal theme.
    static let terminalColor =
        Data(
            base64Encoded:
                "BAtzdHJlYW10eXBlZIHoA4QBQISEhAdOU0NvbG9yAISECE5TT2JqZWN0AIWEAWMBhARmZmZmg7JNIT2DkvUjPoO+F0s+AYY="
        ) ?? Data()

    @Test("an NSFont written by macOS reads as ArchivedFont and is written back byte for byte")
    func appleFont() throws {
        let font = try #require(
            try TypedStreamUnarchiver.unarchivedObject(ofClass: ArchivedFont.self, from: Self.menloFont))
        #expect(font.name == "Menlo-Regular")
        #expect(font.size == 11)
        #expect(font.platform == .appKit)
        #expect(font.typedStreamFlags == [0, 1, 0, 0])
        #expect(try TypedStreamArchiver.archivedData(withRootObject: font) == Self.menloFont)
        // A font made in Swift writes the same bytes (flags default to those macOS writes).
        #expect(
            try TypedStreamArchiver.archivedData(
                withRootObject: ArchivedFont(name: "Menlo-Regular", size: 11)) == Self.menloFont)
    }

    @Test("an NSColor written by macOS reads as ArchivedColor and is written back byte for byte")
    func appleColor() throws {
        let color = try #require(
            try TypedStreamUnarchiver.unarchivedObject(ofClass: ArchivedColor.self, from: Self.terminalColor))
        #expect(color.space == .calibratedRGB)
        #expect(color.components.count == 4)
        #expect(color.components[3] == 1)
        #expect(abs(color.components[0] - 0.0394) < 0.001)
        #expect(try TypedStreamArchiver.archivedData(withRootObject: color) == Self.terminalColor)
    }

    /// Big-endian streams (`typedstream`) that PowerPC Macs wrote, found in public projects:
    /// colours of a web-page editor's document and a URL.
    static var powerPCStreams: [(base64: String, value: Any)] {
        [
            (
                "BAt0eXBlZHN0cmVhbYED6IQBQISEhAdOU0NvbG9yAISECE5TT2JqZWN0AIWEAWMBhARmZmZmAAEAAYY=",
                ArchivedColor(red: 0, green: 1, blue: 0, alpha: 1)
            ),
            (
                "BAt0eXBlZHN0cmVhbYED6IQBQISEhAdOU0NvbG9yAISECE5TT2JqZWN0AIWEAWMDhAJmZgEBhg==",
                ArchivedColor(white: 1, alpha: 1)
            ),
            (
                "BAt0eXBlZHN0cmVhbYED6IQBQISEhAdOU0NvbG9yAISECE5TT2JqZWN0AIWEAWMDhAJmZoM/KqqrAYY=",
                ArchivedColor(white: Double(Float(2) / 3), alpha: 1)
            ),
            (
                "BAt0eXBlZHN0cmVhbYED6IQBQISEhAVOU1VSTACEhAhOU09iamVjdACFhAFjAJKEhIQITlNTdHJpbmcBlIQBKx9odHRwOi8vd3d3Lm11bGxlLWt5YmVybmV0aWsuY29thoY=",
                URL(string: "http://www.mulle-kybernetik.com") as Any
            ),
        ]
    }

    @Test("big-endian streams PowerPC Macs wrote read as their values and are written back byte for byte")
    func powerPC() throws {
        for (base64, expected) in Self.powerPCStreams {
            let data = try #require(Data(base64Encoded: base64))
            let value = try TypedStreamUnarchiver.unarchivedObject(from: data)
            if let color = expected as? ArchivedColor {
                #expect(value as? ArchivedColor == color, "\(String(describing: value))")
            } else {
                #expect(value as? URL == expected as? URL)
            }
            let written = try TypedStreamArchiver.archivedData(withRootObject: value, byteOrder: .bigEndian)
            #expect(written == data, "\(Array(written)) vs \(Array(data))")
        }
    }

    static let colors: [ArchivedColor] = [
        ArchivedColor(red: 1, green: 0.5, blue: 0.25, alpha: 0.75),
        ArchivedColor(red: 0.2, green: 0.4, blue: 0.6, space: .deviceRGB),
        ArchivedColor(white: 0.5, alpha: 1),
        ArchivedColor(white: 0.25, alpha: 0.5, space: .deviceWhite),
        ArchivedColor(cyan: 0.1, magenta: 0.2, yellow: 0.3, black: 0.4, alpha: 1),
        ArchivedColor(
            catalogName: "System", colorName: "controlTextColor", fallback: ArchivedColor(white: 0, alpha: 1)),
    ]

    @Test("every NSColor kind, geometry and fonts read back as written, in both byte orders")
    func roundTrip() throws {
        let root: [Any] =
            Self.colors + [
                ArchivedPoint(x: 1.5, y: -2), ArchivedSize(width: 640, height: 480.5),
                ArchivedRect(x: 10, y: 20, width: 300.25, height: 200), ArchivedRange(location: 3, length: 7),
                ArchivedFont(name: "Helvetica-Bold", size: 12.5), ArchivedFont(name: "Ünïcode", size: 9),
                ArchivedEdgeInsets(top: 1, left: 2.5, bottom: 3, right: 4),
            ]
        for order in [TypedStreamGraph.ByteOrder.littleEndian, .bigEndian] {
            let data = try TypedStreamArchiver.archivedData(withRootObject: root, byteOrder: order)
            let back = try #require(try TypedStreamUnarchiver.unarchivedObject(from: data) as? [Any])
            #expect(back.count == root.count)
            for (index, color) in Self.colors.enumerated() {
                let read = try #require(back[index] as? ArchivedColor, "\(index): \(back[index])")
                #expect(read.space == color.space)
                #expect(read.catalogName == color.catalogName)
                #expect(read.colorName == color.colorName)
                #expect(read.fallback?.components == color.fallback?.components)
                // Components are floats in the stream.
                #expect(read.components == color.components.map { Double(Float($0)) })
            }
            let base = Self.colors.count
            #expect(back[base] as? ArchivedPoint == ArchivedPoint(x: 1.5, y: -2))
            #expect(back[base + 1] as? ArchivedSize == ArchivedSize(width: 640, height: 480.5))
            #expect(back[base + 2] as? ArchivedRect == ArchivedRect(x: 10, y: 20, width: 300.25, height: 200))
            #expect(back[base + 3] as? ArchivedRange == ArchivedRange(location: 3, length: 7))
            #expect((back[base + 4] as? ArchivedFont)?.name == "Helvetica-Bold")
            #expect((back[base + 4] as? ArchivedFont)?.size == 12.5)
            #expect((back[base + 5] as? ArchivedFont)?.name == "Ünïcode")
            #expect(
                back[base + 6] as? ArchivedEdgeInsets
                    == ArchivedEdgeInsets(top: 1, left: 2.5, bottom: 3, right: 4))
            // A graph read and written back is the same stream.
            #expect(
                try TypedStreamArchiver.archivedData(of: TypedStreamUnarchiver.objectGraph(from: data))
                    == data)
        }
    }

    @Test("fonts and colours as attribute values of an attributed string")
    func attributes() throws {
        let string = ArchivedAttributedString(
            "Bold red",
            runs: [
                .init(
                    range: 0..<4,
                    attributes: [
                        "NSFont": .font(ArchivedFont(name: "Helvetica-Bold", size: 12)),
                        "NSColor": .color(ArchivedColor(red: 1, green: 0, blue: 0)),
                    ]),
                .init(range: 4..<8, attributes: ["NSFont": .font(ArchivedFont(name: "Helvetica", size: 12))]),
            ])
        let data = try TypedStreamArchiver.archivedData(withRootObject: string)
        let back = try #require(
            try TypedStreamUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data))
        #expect(back.string == "Bold red")
        #expect(back.runs.count == 2)
        guard case .font(let font)? = back.runs.first?.attributes["NSFont"] else {
            Issue.record("no font: \(back.runs)")
            return
        }
        #expect(font.name == "Helvetica-Bold")
        guard case .color(let color)? = back.runs.first?.attributes["NSColor"] else {
            Issue.record("no colour: \(back.runs)")
            return
        }
        #expect(color.hexString == "#FF0000FF")
    }

    @Test("an NSFont or NSColor of another layout decodes as a generic graph, not an error")
    func otherLayouts() throws {
        for name in ["NSFont", "NSColor"] {
            let graph = TypedStreamGraph.single(
                className: name, version: 99,
                groups: [.init(encoding: "@", values: [.null]), .init(encoding: "i", values: [.integer(7)])])
            let data = try TypedStreamArchiver.archivedData(of: graph)
            let value = try TypedStreamUnarchiver.unarchivedObject(from: data)
            let generic = try #require(value as? TypedStreamGraph, "\(name): \(String(describing: value))")
            guard case .object(let index)? = generic.root else {
                Issue.record("\(name): no root object")
                continue
            }
            #expect(generic.object(at: index)?.className == name)
            #expect(generic.object(at: index)?.groups.count == 2)
        }
    }

    @Test("as a keyed graph (what the tool prints), colours and fonts are summarized as in keyed archives")
    func summaries() throws {
        let root: [Any] = [
            ArchivedColor(red: 1, green: 0, blue: 0), ArchivedFont(name: "Menlo-Regular", size: 11),
            ArchivedColor(
                catalogName: "System", colorName: "textColor", fallback: ArchivedColor(white: 0, alpha: 1)),
        ]
        let graph = try TypedStreamUnarchiver.objectGraph(
            from: try TypedStreamArchiver.archivedData(withRootObject: root)
        ).archivedObjectGraph()
        let texts = graph.nodes.indices.compactMap { graph.summary(ofObjectAt: $0)?.text }
        #expect(texts.contains("calibratedRGB 1 0 0 1 #FF0000FF"), "\(texts)")
        #expect(texts.contains("Menlo-Regular 11 pt"), "\(texts)")
        // A catalogue colour's names refer to NSString objects of the stream: no summary,
        // but its keyed fields name it.
        let catalogue = graph.nodes.indices.compactMap { graph.object(at: $0) }.first {
            $0.className == "NSColor" && $0["NSColorSpace"] == .integer(6)
        }
        #expect(catalogue?["NSColorName"] == .string("textColor"))
        #expect(catalogue?["NSCatalogName"] == .string("System"))
        // The stream's own values stay, in order.
        let colorNode = try #require(
            graph.nodes.firstIndex { node in
                if case .object(let object) = node { return object.className == "NSColor" }
                return false
            })
        #expect(graph.object(at: colorNode)?["$0"] == .integer(1))
    }

    @Test("a graph built by hand with fewer values than its encodings is shown, not trapped on")
    func handBuiltGraph() throws {
        for (className, groups) in [
            (
                "NSColor",
                [
                    TypedStreamGraph.Group(encoding: "c", values: [.integer(6)]),
                    .init(encoding: "@@@", values: [.null]),
                ]
            ),
            (
                "NSFont",
                [
                    .init(encoding: "i", values: []), .init(encoding: "[2c]", values: []),
                    .init(encoding: "f", values: []),
                ]
            ),
        ] {
            let graph = TypedStreamGraph.single(className: className, version: 0, groups: groups)
            let keyed = graph.archivedObjectGraph()
            #expect(keyed.object(at: 1)?.className == className)
            _ = keyed.nodes.indices.map { keyed.summary(ofObjectAt: $0) }
            // The archiver refuses what does not fit its encoding.
            #expect(throws: KeyedArchiveError.self) { try TypedStreamArchiver.archivedData(of: graph) }
        }
    }

    @Test("every top-level value of a stream of several is shown in the keyed graph")
    func topLevelValues() throws {
        let archiver = TypedStreamArchiver()
        try archiver.encodeValues(ofObjCTypes: "i", [.integer(1)])
        try archiver.encodeObjects([nil, "two"])
        let graph = try TypedStreamUnarchiver.objectGraph(from: archiver.encodedData).archivedObjectGraph()
        #expect(graph.topLevel.map(\.key) == ["root", "$1", "$2"])
        #expect(graph.topLevel.first?.value == .integer(1))
        #expect(graph.topLevel[1].value == .null)
    }

    @Test("colours of a space the typedstream NSColor cannot hold are refused with invalidValue")
    func unwritableColor() {
        var custom = ArchivedColor(red: 1, green: 1, blue: 1)
        custom.space = .custom
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamArchiver.archivedData(withRootObject: custom)
        }
    }

    @Test(
        "pytypedstream reads the colours, fonts and geometry we write",
        .enabled(if: PyTypedStream.isAvailable, "\(PyTypedStream.skipNote)"))
    func pytypedstreamReads() throws {
        var streams: [Data] = []
        for color in Self.colors {
            streams.append(try TypedStreamArchiver.archivedData(withRootObject: color))
        }
        let colors = try PyTypedStream.evaluate(streams, "[root.kind.value, str(root.value)]")
        #expect(colors[0] == #"[1, "1.0, 0.5, 0.25, 0.75"]"#)
        #expect(colors[1].hasPrefix("[2, \"0.2"))
        #expect(colors[2] == #"[3, "0.5, 1.0"]"#)
        #expect(colors[3] == #"[4, "0.25, 0.5"]"#)
        #expect(colors[4].hasPrefix("[5, \"0.1"))
        #expect(
            colors[5].hasPrefix(
                #"[6, "group 'System', name 'controlTextColor', color <NSColor CALIBRATED_WA: 0.0, 1.0>"#),
            "\(colors[5])")

        let fonts = try PyTypedStream.evaluate(
            [
                Self.menloFont,
                try TypedStreamArchiver.archivedData(
                    withRootObject: ArchivedFont(name: "Ünïcode Sans", size: 13.5)),
            ],
            "[root.name, root.size, list(root.flags_unknown)]")
        #expect(
            fonts == [
                #"["Menlo-Regular", 11.0, [0, 1, 0, 0]]"#, #"["\u00dcn\u00efcode Sans", 13.5, [0, 1, 0, 0]]"#,
            ])

        let geometry: [Any] = [
            ArchivedPoint(x: 1.5, y: -2), ArchivedSize(width: 640, height: 480.5),
            ArchivedRect(x: 10, y: 20, width: 300.25, height: 200), ArchivedRange(location: 3, length: 7),
        ]
        let values = try PyTypedStream.evaluate(
            try geometry.map { try TypedStreamArchiver.archivedData(withRootObject: $0) },
            "[root.type_encoding.decode(), repr(root.value)]")
        #expect(values[0] == #"["{CGPoint=dd}", "CGPoint(x=1.5, y=-2.0)"]"#, "\(values[0])")
        #expect(values[1] == #"["{CGSize=dd}", "CGSize(width=640.0, height=480.5)"]"#, "\(values[1])")
        #expect(
            values[2].hasPrefix(
                #"["{CGRect={CGPoint=dd}{CGSize=dd}}", "CGRect(origin=CGPoint(x=10.0, y=20.0)"#),
            "\(values[2])")
        #expect(
            values[3].contains("3") && values[3].contains("7") && values[3].hasPrefix(#"["{_NSRange=QQ}""#),
            "\(values[3])")
    }

    /// A stream of one data object (`-encodeDataObject:`) holding `bytes`.
    static func dataObjectStream(_ bytes: [UInt8]) throws -> Data {
        let archiver = TypedStreamArchiver()
        try archiver.encodeValues(ofObjCTypes: "i", [.integer(Int64(bytes.count))])
        try archiver.encodeValues(ofObjCTypes: "[\(bytes.count)c]", [.byteArray(Data(bytes))])
        return archiver.encodedData
    }

    static func propertyList(_ bytes: [UInt8]) throws -> Any? {
        try TypedStreamUnarchiver(forReadingFrom: try dataObjectStream(bytes)).decodePropertyList()
    }

    @Test("old NeXT binary property lists: strings, data, arrays, dictionaries, nil, both byte orders")
    func oldPropertyLists() throws {
        let dictionary: [UInt8] =
            [7, 0, 0, 0, 1, 0, 0, 0] + [6, 0, 0, 0, 4, 0, 0, 0, 0xFF, 0xFE, 0x61, 0] + [12, 0, 0, 0]
            + [6, 0, 0, 0, 4, 0, 0, 0, 0xFF, 0xFE, 0x62, 0]
        #expect((try Self.propertyList(dictionary) as? [String: Any])?["a"] as? String == "b")
        let array: [UInt8] =
            [2, 0, 0, 0, 2, 0, 0, 0, 12, 0, 0, 0, 4, 0, 0, 0] + [4, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3, 0] + [
                8, 0, 0, 0,
            ]
        let bigEndian: [UInt8] =
            [0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 12, 0, 0, 0, 4] + [0, 0, 0, 4, 0, 0, 0, 3, 1, 2, 3, 0] + [
                0, 0, 0, 8,
            ]
        for bytes in [array, bigEndian] {
            let elements = try #require(try Self.propertyList(bytes) as? [Any])
            #expect(elements.count == 2)
            #expect(elements.first as? Data == Data([1, 2, 3]))
        }
        #expect(try Self.propertyList([5, 0, 0, 0, 2, 0, 0, 0, 0x48, 0x69, 0, 0]) as? String == "Hi")
        // Big-endian UTF-16 by its byte-order mark.
        #expect(try Self.propertyList([6, 0, 0, 0, 4, 0, 0, 0, 0xFE, 0xFF, 0, 0x41]) as? String == "A")
    }

    @Test("hostile old binary property lists fail with errors")
    func hostilePropertyLists() throws {
        var deep: [UInt8] = []
        for _ in 0..<100 { deep += [2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0] }
        let cases: [[UInt8]] = [
            [2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F],  // a huge count
            [4, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF],  // data longer than the bytes
            [6, 0, 0, 0, 3, 0, 0, 0, 0xFF, 0xFE, 0x41, 0],  // odd UTF-16
            [9, 0, 0, 0],  // no such type
            [8, 0, 0, 0, 8, 0, 0, 0],  // bytes after the value
            [2, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 8, 0, 0, 0],  // a wrong element length
            [6, 0],
            deep,
        ]
        for bytes in cases {
            #expect(throws: KeyedArchiveError.self, "\(bytes.prefix(16))") { try Self.propertyList(bytes) }
        }
        // In an NSFont, a name that is not a property list leaves the font generic.
        let graph = TypedStreamGraph.single(
            className: "NSFont", version: 30,
            groups: [
                .init(encoding: "i", values: [.integer(4)]),
                .init(encoding: "[4c]", values: [.byteArray(Data([9, 0, 0, 0]))]),
                .init(encoding: "f", values: [.float(12)]),
            ])
        let value = try TypedStreamUnarchiver.unarchivedObject(
            from: try TypedStreamArchiver.archivedData(of: graph))
        #expect(value is TypedStreamGraph)
    }
}

extension TypedStreamGraph {
    /// A graph of one object of class `className` (a subclass of `NSObject`) holding `groups`.
    static func single(className: String, version: Int, groups: [Group]) -> TypedStreamGraph {
        TypedStreamGraph(
            nodes: [
                .object(Object(classIndex: 1, className: className, groups: groups)),
                .class(Class(name: className, version: version, superclassIndex: 2)),
                .class(Class(name: "NSObject", version: 0, superclassIndex: nil)),
            ],
            contents: [Group(encoding: "@", values: [.object(0)])])
    }
}
