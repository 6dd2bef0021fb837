import Foundation
import KeyedArchive
import Testing

/// Streams of the kinds besides iMessage bodies, with hundreds or thousands of objects,
/// shared references, class versions and nested structures: colour lists (`.clr`) and
/// nibs (`objects.nib`) as `NSArchiver` lays them out (layouts as pytypedstream reads
/// them), written with our archiver, read back, and read by pytypedstream when installed.
@Suite("Typedstream documents: colour lists and nibs")
struct TypedStreamDocumentTests {
    // MARK: - Colour lists

    /// 600 colours of every kind, catalogue colours sharing their fallbacks.
    static let colorList: TypedStreamColorList = {
        var entries: [TypedStreamColorList.Entry] = []
        let black = ArchivedColor(white: 0, alpha: 1)
        for index in 0..<600 {
            let fraction = Double(index % 256) / 255
            let color: ArchivedColor
            switch index % 6 {
            case 0: color = ArchivedColor(red: fraction, green: 1 - fraction, blue: 0.5, alpha: 1)
            case 1: color = ArchivedColor(red: fraction, green: 0.25, blue: 1, space: .deviceRGB)
            case 2: color = ArchivedColor(white: fraction, alpha: 0.5)
            case 3: color = ArchivedColor(white: fraction, alpha: 1, space: .deviceWhite)
            case 4: color = ArchivedColor(cyan: fraction, magenta: 0, yellow: 1, black: 0.125, alpha: 1)
            default: color = ArchivedColor(catalogName: "System", colorName: "color\(index)", fallback: black)
            }
            entries.append(.init(key: "Colour \(index) é", color: color))
        }
        return TypedStreamColorList(entries: entries)
    }()

    @Test("a colour list of 600 colours is written in the .clr layout and read back")
    func colorListRoundTrip() throws {
        let data = try Self.colorList.typedStreamData()
        // The layout of a .clr file: "i" 1, "@i" nil and the count, then "@@" per colour.
        let prefix: [UInt8] =
            [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03, 0x84, 0x01, 0x69, 0x01]
        #expect(Array(data.prefix(prefix.count)) == prefix)
        #expect(Array(data.dropFirst(prefix.count).prefix(7)) == [0x84, 0x02, 0x40, 0x69, 0x85, 0x81, 0x58])
        let back = try TypedStreamColorList(typedStream: data)
        #expect(back.version == 1)
        #expect(back.name == nil)
        #expect(back.entries.count == 600)
        for (read, written) in zip(back.entries, Self.colorList.entries) {
            #expect(read.key == written.key)
            #expect(read.color?.space == written.color?.space)
            #expect(read.color?.components == written.color?.components.map { Double(Float($0)) })
            #expect(read.color?.colorName == written.color?.colorName)
        }
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        #expect(graph.contents.count == 602)
        // Swift values have no identity: each catalogue colour writes its own fallback.
        let colorObjects = graph.nodes.filter {
            if case .object(let object) = $0 { object.className == "NSColor" } else { false }
        }
        #expect(colorObjects.count == 700)
        #expect(try TypedStreamArchiver.archivedData(of: graph) == data)
    }

    @Test("a stream that is not a colour list is refused, not misread")
    func notAColorList() throws {
        let data = try TypedStreamArchiver.archivedData(withRootObject: ["a"])
        #expect(throws: KeyedArchiveError.self) { try TypedStreamColorList(typedStream: data) }
    }

    @Test(
        "pytypedstream reads the colour list we write",
        .enabled(if: PyTypedStream.isAvailable, "\(PyTypedStream.skipNote)"))
    func colorListPeer() throws {
        let data = try Self.colorList.typedStreamData()
        let result = try PyTypedStream.evaluate(
            [data],
            "[len(groups), groups[0].value, groups[1].values[1], groups[2].values[0].kind.value, "
                + "groups[2].values[1].value, groups[7].values[0].value.name, "
                + "sum(1 for g in groups[2:] if g.values[0].kind.value == 6)]")
        #expect(result == [#"[602, 1, 600, 1, "Colour 0 \u00e9", "color5", 100]"#])
    }

    // MARK: - Nibs

    /// A nib-like graph (`objects.nib` of a pre-2007 nib): `NSIBObjectData` (version 224)
    /// holding a window template whose content view holds `containers` views of `controls`
    /// controls each; every control has an `NSTextFieldCell` with a title, one of a few
    /// shared fonts and shared colours, and an outlet connection; object ids, names and
    /// parents as Interface Builder writes them.
    static func nib(containers: Int, controls: Int) -> TypedStreamGraph {
        var builder = GraphBuilder()
        let object = builder.chain([("NSObject", 0)])
        let responder = builder.chain([("NSResponder", 0)], superclass: object)
        let view = builder.chain([("NSView", 41)], superclass: responder)
        let control = builder.chain([("NSControl", 41)], superclass: view)
        let cell = builder.chain(
            [("NSTextFieldCell", 62), ("NSActionCell", 17), ("NSCell", 65)], superclass: object)
        let string = builder.chain([("NSString", 1)], superclass: object)
        let array = builder.chain([("NSArray", 0)], superclass: object)
        let mutableArray = builder.chain([("NSMutableArray", 0)], superclass: array)
        let set = builder.chain([("NSSet", 0)], superclass: object)
        let color = builder.chain([("NSColor", 0)], superclass: object)
        let font = builder.chain([("NSFont", 30)], superclass: object)
        let custom = builder.chain([("NSCustomObject", 41)], superclass: object)
        let template = builder.chain([("NSWindowTemplate", 14)], superclass: object)
        let outlet = builder.chain(
            [("NSNibOutletConnector", 207), ("NSNibConnector", 17)], superclass: object)
        let objectData = builder.chain([("NSIBObjectData", 224)], superclass: object)

        func text(_ value: String) -> TypedStreamGraph.Value {
            builder.object(string, [.init(encoding: "+", values: [.bytes(Data(value.utf8))])])
        }
        func list(_ elements: [TypedStreamGraph.Value], mutable: Bool = false) -> TypedStreamGraph.Value {
            builder.object(
                mutable ? mutableArray : array,
                [.init(encoding: "i", values: [.integer(Int64(elements.count))])]
                    + elements.map { .init(encoding: "@", values: [$0]) })
        }
        let plist: (String) -> Data = { name in
            var bytes: [UInt8] = [6, 0, 0, 0]
            let utf16: [UInt8] = [0xFF, 0xFE] + name.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            bytes += [UInt8(utf16.count), 0, 0, 0] + utf16
            bytes += [UInt8](repeating: 0, count: (4 - utf16.count % 4) % 4)
            return Data(bytes)
        }
        let fonts = ["LucidaGrande", "LucidaGrande-Bold", "Helvetica"].map { name in
            let bytes = plist(name)
            return builder.object(
                font,
                [
                    .init(encoding: "i", values: [.integer(Int64(bytes.count))]),
                    .init(encoding: "[\(bytes.count)c]", values: [.byteArray(bytes)]),
                    .init(encoding: "f", values: [.float(13)]),
                ] + [0, 1, 0, 0].map { .init(encoding: "c", values: [.integer($0)]) })
        }
        let white = builder.object(
            color,
            [
                .init(encoding: "c", values: [.integer(3)]),
                .init(encoding: "ff", values: [.float(1), .float(1)]),
            ])
        let textColor = builder.object(
            color,
            [
                .init(encoding: "c", values: [.integer(6)]),
                .init(encoding: "@@@", values: [text("System"), text("controlTextColor"), white]),
            ])
        let background = builder.object(
            color,
            [
                .init(encoding: "c", values: [.integer(6)]),
                .init(encoding: "@@@", values: [text("System"), text("textBackgroundColor"), white]),
            ])
        let owner = builder.object(custom, [.init(encoding: "@@", values: [text("MyController"), .null])])

        func rect(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> [TypedStreamGraph.Value] {
            [.float(Float(x)), .float(Float(y)), .float(Float(width)), .float(Float(height))]
        }
        /// An NSView's groups after NSResponder's: flags, subviews and frames, superview, nils.
        func viewGroups(
            nextResponder: TypedStreamGraph.Value, subviews: TypedStreamGraph.Value,
            frame: [TypedStreamGraph.Value],
            superview: TypedStreamGraph.Value
        ) -> [TypedStreamGraph.Group] {
            [
                .init(encoding: "@", values: [nextResponder]),
                .init(encoding: "i", values: [.integer(0x100)]),
                .init(
                    encoding: "@@@@ffffffff",
                    values: [subviews, .null, .null, .null] + frame + [.float(0), .float(0)] + frame.suffix(2)
                ),
                .init(encoding: "@", values: [superview]),
                .init(encoding: "@", values: [.null]),
                .init(encoding: "@", values: [.null]),
                .init(encoding: "@", values: [.null]),
            ]
        }

        var parents: [(TypedStreamGraph.Value, TypedStreamGraph.Value)] = []
        var names: [(TypedStreamGraph.Value, TypedStreamGraph.Value)] = []
        var connections: [TypedStreamGraph.Value] = []
        var allObjects: [TypedStreamGraph.Value] = [owner]

        let contentView = builder.reserve()
        var containerValues: [TypedStreamGraph.Value] = []
        for containerIndex in 0..<containers {
            let container = builder.reserve()
            var controlValues: [TypedStreamGraph.Value] = []
            for controlIndex in 0..<controls {
                let controlObject = builder.reserve()
                let cellObject = builder.object(
                    cell,
                    [
                        .init(encoding: "ii", values: [.integer(0x0400_0000), .integer(0x1000)]),
                        .init(
                            encoding: "@@@@",
                            values: [
                                text("Label \(containerIndex).\(controlIndex)"),
                                fonts[controlIndex % fonts.count], .null,
                                .null,
                            ]),
                        .init(encoding: "i:", values: [.integer(Int64(controlIndex)), .null]),
                        .init(encoding: "@", values: [.null]),
                        .init(encoding: "@", values: [controlObject]),
                        .init(
                            encoding: "c@@",
                            values: [.integer(Int64(controlIndex & 1)), background, textColor]),
                    ])
                builder.fill(
                    controlObject, class: control,
                    viewGroups(
                        nextResponder: container, subviews: .null,
                        frame: rect(20, 30 * controlIndex, 200, 22), superview: container)
                        + [
                            .init(
                                encoding: "icc@", values: [.integer(0), .integer(1), .integer(0), cellObject])
                        ])
                controlValues.append(controlObject)
                parents.append((controlObject, container))
                allObjects.append(controlObject)
                connections.append(
                    builder.object(
                        outlet,
                        [
                            .init(
                                encoding: "@@@",
                                values: [
                                    owner, controlObject, text("field\(containerIndex)_\(controlIndex)"),
                                ])
                        ]))
            }
            builder.fill(
                container, class: view,
                viewGroups(
                    nextResponder: contentView, subviews: list(controlValues, mutable: true),
                    frame: rect(0, 40 * containerIndex, 480, 36), superview: contentView))
            containerValues.append(container)
            parents.append((container, contentView))
            names.append((container, text("Box \(containerIndex)")))
            allObjects.append(container)
        }
        builder.fill(
            contentView, class: view,
            viewGroups(
                nextResponder: .null, subviews: list(containerValues, mutable: true),
                frame: rect(0, 0, 480, 640),
                superview: .null))
        let window = builder.object(
            template,
            [
                .init(encoding: "iiffff", values: [.integer(15), .integer(2)] + rect(100, 100, 480, 640)),
                .init(encoding: "@@@", values: [text("Window"), text("NSWindow"), contentView]),
                .init(
                    encoding: "{_NSSize=ff}",
                    values: [.structure(name: "_NSSize", fields: [.float(200), .float(100)])]),
            ])
        parents.insert((window, owner), at: 0)
        parents.insert((contentView, window), at: 1)
        names.insert((owner, text("File's Owner")), at: 0)
        allObjects += [window, contentView]

        var groups: [TypedStreamGraph.Group] = [.init(encoding: "@", values: [owner])]
        groups.append(.init(encoding: "i", values: [.integer(Int64(parents.count))]))
        groups += parents.map { .init(encoding: "@@", values: [$0.0, $0.1]) }
        groups.append(.init(encoding: "i", values: [.integer(Int64(names.count))]))
        groups += names.map { .init(encoding: "@@", values: [$0.0, $0.1]) }
        let emptySet = builder.object(set, [.init(encoding: "I", values: [.unsignedInteger(0)])])
        groups.append(.init(encoding: "@", values: [emptySet]))
        groups.append(.init(encoding: "@", values: [list(connections)]))
        groups.append(.init(encoding: "@", values: [.null]))
        let identified = allObjects + connections
        groups.append(.init(encoding: "i", values: [.integer(Int64(identified.count))]))
        groups += identified.enumerated().map {
            .init(encoding: "@i", values: [$1, .integer(Int64($0 + 1))])
        }
        groups.append(.init(encoding: "i", values: [.integer(Int64(identified.count + 1))]))
        groups.append(.init(encoding: "i", values: [.integer(0)]))
        groups.append(.init(encoding: "@", values: [text("IBCocoaFramework")]))
        let root = builder.object(objectData, groups)
        return builder.graph(root: root)
    }

    @Test(
        "a nib of 30 × 30 controls (about 4,000 objects) is written, read back and decoded at default options"
    )
    func nibRoundTrip() throws {
        let data = try TypedStreamArchiver.archivedData(of: Self.nib(containers: 30, controls: 30))
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        let objects = graph.nodes.filter { if case .object = $0 { true } else { false } }.count
        #expect(objects > 4_000, "\(objects) objects")
        // Written again from what was read: the same bytes.
        #expect(try TypedStreamArchiver.archivedData(of: graph) == data)
        // Classes with their versions and superclass chains.
        guard case .object(let rootIndex)? = graph.root, let root = graph.object(at: rootIndex) else {
            Issue.record("no root object")
            return
        }
        #expect(graph.classChain(of: root).map(\.name) == ["NSIBObjectData", "NSObject"])
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
        #expect(unarchiver.version(forClassName: "NSIBObjectData") == 224)
        #expect(unarchiver.version(forClassName: "NSCell") == 65)
        // The unknown root decodes as a graph; its typed members decode as Swift values.
        let value = try unarchiver.decodeObject()
        #expect(value is TypedStreamGraph)
        let cells = graph.nodes.compactMap { node -> TypedStreamGraph.Object? in
            if case .object(let object) = node, object.className == "NSTextFieldCell" { return object }
            return nil
        }
        #expect(cells.count == 900)
        // Parts of the generic graph decode as Swift values.
        let first = try #require(cells.first)
        #expect(try unarchiver.value(of: first.groups[1].values[0]) as? String == "Label 0.0")
        #expect(
            try unarchiver.value(of: first.groups[1].values[1], as: ArchivedFont.self)?.name == "LucidaGrande"
        )
        let textColor = try unarchiver.value(of: first.groups[5].values[2], as: ArchivedColor.self)
        #expect(textColor?.colorName == "controlTextColor")
        #expect(textColor?.fallback?.components == [1, 1])
        // Three fonts shared by 900 cells.
        #expect(
            graph.nodes.filter {
                if case .object(let object) = $0 { object.className == "NSFont" } else { false }
            }.count == 3)
    }

    @Test(
        "pytypedstream reads the nib we write, with its classes and layouts",
        .enabled(if: PyTypedStream.isAvailable, "\(PyTypedStream.skipNote)"))
    func nibPeer() throws {
        let data = try TypedStreamArchiver.archivedData(of: Self.nib(containers: 10, controls: 20))
        let result = try PyTypedStream.evaluate(
            [data],
            "[type(root).__name__, len(root.object_ids), root.target_framework, len(root.connections), "
                + "root.connections[0].label, type(root.connections[0].destination).__name__, "
                + "root.connections[0].destination.cell.font.name, root.connections[5].destination.cell.title_or_image.value, "
                + "str(root.connections[0].destination.cell.text_color), root.connections[0].destination.frame.size.width]"
        )
        #expect(
            result == [
                #"["NSIBObjectData", 413, "IBCocoaFramework", 200, "field0_0", "NSControl", "LucidaGrande", "Label 0.5", "<NSColor NAMED: group 'System', name 'controlTextColor', color <NSColor CALIBRATED_WA: 1.0, 1.0>>", 200.0]"#
            ], "\(result)")
    }

    @Test("TypedStreamNib lists a nib's objects with ids, names, parents, and its connections")
    func nibTable() throws {
        let data = try TypedStreamArchiver.archivedData(of: Self.nib(containers: 10, controls: 20))
        let nib = try TypedStreamNib(typedStream: data)
        #expect(nib.objects.count == 413)
        #expect(nib.connections.count == 200)
        #expect(nib.targetFramework == "IBCocoaFramework")
        #expect(nib.nextObjectID == 414)
        let owner = try #require(nib.objects.first)
        #expect(owner.className == "NSCustomObject")
        #expect(owner.name == "File's Owner")
        #expect(owner.customClassName == "MyController")
        #expect(owner.id == 1)
        #expect(nib.root == owner.index)
        let connection = try #require(nib.connections.first)
        #expect(connection.className == "NSNibOutletConnector")
        #expect(connection.label == "field0_0")
        #expect(connection.source == owner.index)
        let control = try #require(nib.objects.first { $0.index == connection.destination })
        #expect(control.className == "NSControl")
        let box = try #require(nib.objects.first { $0.index == control.parent })
        #expect(box.className == "NSView")
        #expect(box.name == "Box 0")
        // Parts decode as Swift values through an unarchiver of the same stream.
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
        #expect(try unarchiver.value(of: .object(box.index)) is TypedStreamGraph)
        // Another stream is not a nib.
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamNib(typedStream: try TypedStreamArchiver.archivedData(withRootObject: ["a"]))
        }
    }

    // MARK: - Application documents

    /// A drawing program's document: a dictionary holding 400 graphics of two classes
    /// (class versions, a shared superclass), each with a rectangle structure, a group of
    /// an integer, a char, a shared C string, an atom and a selector, a shared colour, an
    /// array of point structures and a class; a selection of shared references; a date,
    /// a number and data.
    static func drawing(count: Int = 400) -> TypedStreamGraph {
        var builder = GraphBuilder()
        let object = builder.chain([("NSObject", 0)])
        let string = builder.chain([("NSString", 1)], superclass: object)
        let dictionary = builder.chain([("NSMutableDictionary", 0), ("NSDictionary", 0)], superclass: object)
        let array = builder.chain([("NSMutableArray", 0), ("NSArray", 0)], superclass: object)
        let color = builder.chain([("NSColor", 0)], superclass: object)
        let number = builder.chain([("NSNumber", 0), ("NSValue", 0)], superclass: object)
        let date = builder.chain([("NSDate", 0)], superclass: object)
        let data = builder.chain([("NSData", 0)], superclass: object)
        let graphic = builder.chain([("Graphic", 7)], superclass: object)
        let shape = builder.chain([("GraphicShape", 3)], superclass: graphic)
        let text = builder.chain([("GraphicText", 2)], superclass: graphic)

        func nsString(_ value: String) -> TypedStreamGraph.Value {
            builder.object(string, [.init(encoding: "+", values: [.bytes(Data(value.utf8))])])
        }
        func point(_ x: Int, _ y: Int) -> TypedStreamGraph.Value {
            .structure(name: "_NSPoint", fields: [.float(Float(x)), .float(Float(y))])
        }
        let colors = (0..<5).map { index in
            builder.object(
                color,
                [
                    .init(encoding: "c", values: [.integer(1)]),
                    .init(
                        encoding: "ffff",
                        values: [.float(Float(index) / 4), .float(0.5), .float(1), .float(1)]),
                ])
        }
        let labels = ["circle", "square", "line"]
        var graphics: [TypedStreamGraph.Value] = []
        for index in 0..<count {
            let isText = index % 4 == 3
            var groups: [TypedStreamGraph.Group] = [
                .init(
                    encoding: "{_NSRect={_NSPoint=ff}{_NSSize=ff}}",
                    values: [
                        .structure(
                            name: "_NSRect",
                            fields: [
                                point(index, index * 2),
                                .structure(name: "_NSSize", fields: [.float(10.5), .float(Float(index))]),
                            ])
                    ]),
                .init(
                    encoding: "ic*%:",
                    values: [
                        .integer(Int64(index)), .integer(Int64(index & 1)),
                        .cString(Data(labels[index % 3].utf8)), .atom(Data("layer\(index % 2)".utf8)),
                        .selector(Data("draw:".utf8)),
                    ]),
                .init(encoding: "@", values: [colors[index % colors.count]]),
                .init(
                    encoding: "[3{_NSPoint=ff}]",
                    values: [.array([point(0, 0), point(index, 1), point(2, index)])]),
                .init(encoding: "#", values: [.class(isText ? text : shape)]),
            ]
            if isText {
                groups.append(.init(encoding: "@@", values: [nsString("Text \(index)"), .null]))
            } else {
                groups.append(
                    .init(encoding: "[4i]", values: [.array((0..<4).map { .integer(Int64(index * $0)) })]))
                groups.append(.init(encoding: "d", values: [.double(Double(index) / 3)]))
            }
            graphics.append(builder.object(isText ? text : shape, groups))
        }
        func list(_ elements: [TypedStreamGraph.Value]) -> TypedStreamGraph.Value {
            builder.object(
                array,
                [.init(encoding: "i", values: [.integer(Int64(elements.count))])]
                    + elements.map { .init(encoding: "@", values: [$0]) })
        }
        let entries: [(String, TypedStreamGraph.Value)] = [
            ("graphics", list(graphics)),
            ("selection", list(stride(from: 0, to: graphics.count, by: 8).map { graphics[$0] })),
            ("created", builder.object(date, [.init(encoding: "d", values: [.double(700_000_000.5)])])),
            (
                "version",
                builder.object(
                    number,
                    [
                        .init(encoding: "*", values: [.cString(Data("i".utf8))]),
                        .init(encoding: "i", values: [.integer(7)]),
                    ])
            ),
            (
                "thumbnail",
                builder.object(
                    data,
                    [
                        .init(encoding: "i", values: [.integer(300)]),
                        .init(
                            encoding: "[300c]", values: [.byteArray(Data((0..<300).map { UInt8($0 & 0xFF) }))]
                        ),
                    ])
            ),
        ]
        var groups: [TypedStreamGraph.Group] = [
            .init(encoding: "i", values: [.integer(Int64(entries.count))])
        ]
        for (key, value) in entries {
            groups.append(.init(encoding: "@", values: [nsString(key)]))
            groups.append(.init(encoding: "@", values: [value]))
        }
        let root = builder.object(dictionary, groups)
        return builder.graph(root: root)
    }

    @Test("a drawing document of 400 graphics with structures, C strings, atoms, selectors and classes")
    func drawingRoundTrip() throws {
        let data = try TypedStreamArchiver.archivedData(of: Self.drawing())
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        #expect(try TypedStreamArchiver.archivedData(of: graph) == data)
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
        #expect(unarchiver.version(forClassName: "GraphicShape") == 3)
        #expect(unarchiver.version(forClassName: "Graphic") == 7)
        let root = try #require(try unarchiver.decodeObject() as? [String: Any])
        #expect(root["version"] as? Int32 == 7)
        #expect((root["thumbnail"] as? Data)?.count == 300)
        #expect(root["created"] as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000.5))
        let graphics = try #require(root["graphics"] as? [Any])
        #expect(graphics.count == 400)
        let selection = try #require(root["selection"] as? [Any])
        #expect(selection.count == 50)
        // Shared references: the selection holds the same objects as the graphics.
        let first = try #require(graphics.first as? TypedStreamGraph)
        let selected = try #require(selection.first as? TypedStreamGraph)
        #expect(first.root == selected.root)
        guard case .object(let index)? = first.root, let object = first.object(at: index) else {
            Issue.record("no graphic")
            return
        }
        #expect(first.classChain(of: object).map(\.name) == ["GraphicShape", "Graphic", "NSObject"])
        #expect(
            object.groups.map(\.encoding).prefix(4) == [
                "{_NSRect={_NSPoint=ff}{_NSSize=ff}}", "ic*%:", "@", "[3{_NSPoint=ff}]",
            ])
        #expect(object.groups[1].values[2] == .cString(Data("circle".utf8)))
        #expect(object.groups[1].values[3] == .atom(Data("layer0".utf8)))
        #expect(
            try unarchiver.value(of: object.groups[2].values[0], as: ArchivedColor.self)?.space
                == .calibratedRGB)
        // C strings are written once: three labels (and the number's type) in the table.
        let cStrings = graph.nodes.filter { if case .cString = $0 { true } else { false } }.count
        #expect(cStrings == 4)
    }

    @Test(
        "pytypedstream reads the drawing document we write",
        .enabled(if: PyTypedStream.isAvailable, "\(PyTypedStream.skipNote)"))
    func drawingPeer() throws {
        let data = try TypedStreamArchiver.archivedData(of: Self.drawing())
        let result = try PyTypedStream.evaluate(
            [data],
            "[sorted(k.value for k in root.contents), "
                + "[len(v.elements) for k, v in root.contents.items() if k.value in ('graphics', 'selection')], "
                + "(lambda g: [g.clazz.name.decode(), g.clazz.version, g.clazz.superclass.name.decode(), g.clazz.superclass.version, "
                + "[[e.decode() for e in c.encodings] for c in g.contents][:2], g.contents[1].values[0], g.contents[1].values[2].decode(), "
                + "g.contents[2].value.kind.value, len(g.contents[3].value.elements), g.contents[6].value])"
                + "([v for k, v in root.contents.items() if k.value == 'graphics'][0].elements[5])]")
        #expect(
            result == [
                #"[["created", "graphics", "selection", "thumbnail", "version"], [400, 50], ["GraphicShape", 3, "Graphic", 7, [["{_NSRect={_NSPoint=ff}{_NSSize=ff}}"], ["i", "c", "*", "%", ":"]], 5, "line", 1, 3, 1.6666666666666667]]"#
            ], "\(result)")
    }

    // MARK: - Limits sized for real documents

    /// A chain of `length` objects, each holding the next (as key-view loops and responder
    /// chains nest in nibs: every object is written where it is first referred to).
    static func chain(length: Int) -> TypedStreamGraph {
        var builder = GraphBuilder()
        let object = builder.chain([("NSObject", 0)])
        let link = builder.chain([("NSKeyViewLink", 3)], superclass: object)
        let first = builder.reserve()
        var current = first
        for index in 1..<length {
            let next = builder.reserve()
            builder.fill(
                current, class: link, [.init(encoding: "@i", values: [next, .integer(Int64(index))])])
            current = next
        }
        builder.fill(current, class: link, [.init(encoding: "@i", values: [.null, .integer(Int64(length))])])
        return builder.graph(root: first)
    }

    /// The bytes of ``chain(length:)`` as the archiver writes them, made without recursion.
    static func chainStream(length: Int) -> Data {
        var bytes: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03, 0x84, 0x01, 0x40]
        // Shared strings: #0 "@", #1 "NSKeyViewLink", #2 "NSObject", #3 "@i".
        // Objects: #0 the first link, #1 its class, #2 NSObject, then one link each.
        bytes +=
            [0x84, 0x84, 0x84, 13] + Array("NSKeyViewLink".utf8) + [3, 0x84, 0x84, 8] + Array("NSObject".utf8)
        bytes += [0, 0x85, 0x84, 2, 0x40, 0x69]
        for _ in 1..<length { bytes += [0x84, 0x93, 0x95] }
        bytes += [0x85]
        var suffix: [UInt8] = []
        for index in stride(from: length, through: 1, by: -1) {
            if index <= 127 {
                suffix.append(UInt8(index))
            } else if index <= Int(Int16.max) {
                suffix += [0x81, UInt8(index & 0xFF), UInt8(index >> 8)]
            } else {
                suffix += [0x82] + (0..<4).map { UInt8(truncatingIfNeeded: index >> (8 * $0)) }
            }
            suffix.append(0x86)
        }
        return Data(bytes + suffix)
    }

    @Test("objects nested 400 deep read at default options; deeper with a raised limit")
    func deepNesting() throws {
        let data = Self.chainStream(length: 2_000)
        // Writing and reading past the default depth want a thread with a larger stack, as
        // the error advises (frames are several times larger under AddressSanitizer).
        let written = try Self.onLargeStack {
            try TypedStreamArchiver.archivedData(of: Self.chain(length: 1_000))
        }
        #expect(written == Self.chainStream(length: 1_000))
        // The default depth limit (512, as the keyed reader's) refuses it, with an error.
        #expect(throws: KeyedArchiveError.self) { try TypedStreamUnarchiver.objectGraph(from: data) }
        var options = TypedStreamUnarchivingOptions()
        options.maximumDepth = 1_000
        let deep = Self.chainStream(length: 900)
        let raised = options
        let graph = try Self.onLargeStack {
            try TypedStreamUnarchiver.objectGraph(from: deep, options: raised)
        }
        #expect(graph.nodes.count == 902)
        #expect(try Self.onLargeStack { try TypedStreamArchiver.archivedData(of: graph) } == deep)
        // Nesting of 400, more than nibs reach, reads at default options.
        #expect(try TypedStreamUnarchiver.objectGraph(from: Self.chainStream(length: 400)).nodes.count == 402)
        // A tighter limit still applies when asked for.
        options.maximumDepth = 100
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamUnarchiver.objectGraph(from: deep, options: options)
        }
    }
}

extension TypedStreamDocumentTests {
    /// Runs `body` on a thread with a 64 MB stack and returns its result.
    static func onLargeStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let box = LargeStackResult<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.result = Result { try body() }
            done.signal()
        }
        thread.stackSize = 64 << 20
        thread.start()
        done.wait()
        guard let result = box.result else {
            throw KeyedArchiveError(.invalidValue, "the thread returned nothing")
        }
        return try result.get()
    }
}

/// The result a large-stack thread hands back (written once before a semaphore is signalled).
private final class LargeStackResult<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

/// Builds a ``TypedStreamGraph`` by hand: classes, then objects that refer to one another.
struct GraphBuilder {
    var nodes: [TypedStreamGraph.Node] = []

    /// Adds a class chain (nearest first) under `superclass`; returns the nearest class.
    mutating func chain(_ classes: [(String, Int)], superclass: Int? = nil) -> Int {
        var parent = superclass
        for (name, version) in classes.reversed() {
            nodes.append(.class(.init(name: name, version: version, superclassIndex: parent)))
            parent = nodes.count - 1
        }
        return parent ?? 0
    }

    /// A placeholder for an object filled later (for objects that refer to each other).
    mutating func reserve() -> TypedStreamGraph.Value {
        nodes.append(.cString(Data()))
        return .object(nodes.count - 1)
    }

    mutating func fill(
        _ value: TypedStreamGraph.Value, class classIndex: Int, _ groups: [TypedStreamGraph.Group]
    ) {
        guard case .object(let index) = value, case .class(let found) = nodes[classIndex] else { return }
        nodes[index] = .object(.init(classIndex: classIndex, className: found.name, groups: groups))
    }

    mutating func object(_ classIndex: Int, _ groups: [TypedStreamGraph.Group]) -> TypedStreamGraph.Value {
        let value = reserve()
        fill(value, class: classIndex, groups)
        return value
    }

    func graph(root: TypedStreamGraph.Value) -> TypedStreamGraph {
        TypedStreamGraph(nodes: nodes, contents: [.init(encoding: "@", values: [root])])
    }
}
