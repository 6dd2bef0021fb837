import Foundation
import KeyedArchive
import Testing

/// `NSParagraphStyle` in typedstreams (GNUstep's layout for coders that are not keyed):
/// read into ``ArchivedParagraphStyle`` as keyed archives give it, and written back.
@Suite("Typedstream paragraph styles")
struct TypedStreamParagraphStyleTests {
    /// A version-2 `NSParagraphStyle` built byte by byte, with 32-bit integers (`i`, `I`)
    /// as a 32-bit writer types them, two tab stops and one group after the known ones.
    static let handBuilt: [UInt8] =
        [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]
        + [0x84, 0x01, 0x40]  // group "@" (shared string 0)
        + [0x84]  // a new object
        + [0x84, 0x84, 0x10] + Array("NSParagraphStyle".utf8) + [0x02]  // class, version 2 (string 1)
        + [0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85]  // superclass (string 2), end of chain
        + [0x84, 0x01, 0x69, 0x02]  // "i" (string 3): alignment 2
        + [0x95, 0x00]  // "i": line-break mode 0
        + [0x84, 0x01, 0x66, 0x0A]  // "f" (string 4): first-line head indent 10 (written as an integer)
        + [0x96, 0x83, 0x00, 0x00, 0xB0, 0x40]  // "f": head indent 5.5
        + [0x96, 0x02]  // line spacing 2
        + [0x96, 0x00]  // maximum line height 0
        + [0x96, 0x00]  // minimum line height 0
        + [0x96, 0x06]  // paragraph spacing 6
        + [0x96, 0xF4]  // tail indent -12
        + [0x84, 0x01, 0x49, 0x02]  // "I" (string 5): 2 tab stops
        + [0x84, 0x04] + Array("[2f]".utf8) + [0x1C, 0x83, 0x00, 0x00, 0x62, 0x42]  // locations 28, 56.5
        + [0x84, 0x04] + Array("[2i]".utf8) + [0x00, 0x02]  // types: left, centre
        + [0x95, 0x01]  // "i": writing direction 1 (right to left)
        + [0x84, 0x01, 0x63, 0x07]  // "c": a group after the known ones
        + [0x86]  // end of the object

    @Test("a stream built byte by byte reads field by field and is written back byte for byte")
    func handBuiltStream() throws {
        let data = Data(Self.handBuilt)
        let style = try #require(
            try TypedStreamUnarchiver.unarchivedObject(ofClass: ArchivedParagraphStyle.self, from: data))
        #expect(style.isMutable == false)
        #expect(style.alignment == 2)
        #expect(style.lineBreakMode == 0)
        #expect(style.firstLineHeadIndent == 10)
        #expect(style.headIndent == 5.5)
        #expect(style.lineSpacing == 2)
        #expect(style.maximumLineHeight == 0)
        #expect(style.minimumLineHeight == 0)
        #expect(style.paragraphSpacing == 6)
        #expect(style.tailIndent == -12)
        #expect(style.baseWritingDirection == 1)
        #expect(
            style.tabStops == [ArchivedTextTab(location: 28), ArchivedTextTab(location: 56.5, alignment: 2)])
        // Fields the layout does not hold stay unset (Apple's defaults).
        #expect(style.paragraphSpacingBefore == nil)
        #expect(style.lineHeightMultiple == nil)
        let form = try #require(style.typedStreamForm)
        #expect(form.version == 2)
        #expect(form.groups.count == 14)
        #expect(form.groups.last == TypedStreamGraph.Group(encoding: "c", values: [.integer(7)]))
        #expect(try TypedStreamArchiver.archivedData(withRootObject: style) == data)

        // Changed fields are written in the stream's own types; the extra group stays.
        var changed = style
        changed.alignment = 1
        changed.headIndent = 0.25
        let rewritten = try TypedStreamArchiver.archivedData(withRootObject: changed)
        let graph = try TypedStreamUnarchiver.objectGraph(from: rewritten)
        let object = try #require(
            graph.nodes.compactMap { node -> TypedStreamGraph.Object? in
                if case .object(let object) = node { return object }
                return nil
            }.first)
        #expect(object.groups.map(\.encoding) == form.groups.map(\.encoding))
        #expect(object.groups[0].values == [.integer(1)])
        #expect(object.groups[3].values == [.float(0.25)])
        #expect(object.groups[11].values == [.array([.integer(0), .integer(2)])])
        #expect(object.groups[13].values == [.integer(7)])
    }

    /// Styles of every field kind, mutable and not.
    static var styles: [ArchivedParagraphStyle] {
        var plain = ArchivedParagraphStyle()
        plain.alignment = 2
        var full = ArchivedParagraphStyle(isMutable: true)
        full.alignment = 3
        full.lineBreakMode = 4
        full.baseWritingDirection = 1
        full.lineSpacing = 1.5
        full.paragraphSpacing = 12
        full.headIndent = 36
        full.tailIndent = -36
        full.firstLineHeadIndent = 18.25
        full.minimumLineHeight = 10
        full.maximumLineHeight = 40
        full.tabStops = [
            ArchivedTextTab(location: 72, alignment: 2), ArchivedTextTab(location: 144.5, alignment: 1),
        ]
        var tabs = ArchivedParagraphStyle()
        tabs.tabStops = []
        return [plain, full, tabs]
    }

    @Test("styles written by the archiver read back with the same fields, and write the same bytes again")
    func roundTrip() throws {
        for original in Self.styles {
            for order in [TypedStreamGraph.ByteOrder.littleEndian, .bigEndian] {
                let data = try TypedStreamArchiver.archivedData(withRootObject: original, byteOrder: order)
                let back = try #require(
                    try TypedStreamUnarchiver.unarchivedObject(
                        ofClass: ArchivedParagraphStyle.self, from: data))
                #expect(back.isMutable == original.isMutable)
                #expect(back.typedStreamForm?.version == 3)
                for (key, value) in original.fields {
                    #expect(back.fields[key] == value, "\(key): \(String(describing: back.fields[key]))")
                }
                // What the style did not store is written as Apple's default.
                if original.tabStops == nil {
                    #expect(back.tabStops?.count == 12)
                    #expect(back.tabStops?.last == ArchivedTextTab(location: 336))
                } else {
                    #expect(back.tabStops == original.tabStops)
                }
                if original.baseWritingDirection == nil { #expect(back.baseWritingDirection == -1) }
                if original.alignment == nil { #expect(back.alignment == 4) }
                #expect(try TypedStreamArchiver.archivedData(withRootObject: back, byteOrder: order) == data)
            }
        }
    }

    @Test("tab stops of each kind keep their types; a changed tab stop takes the type of its alignment")
    func tabStopTypes() throws {
        // Types 0 left, 1 right, 2 centre, 3 decimal (a decimal tab aligns right).
        let graph = Self.styleGraph(version: 3, tabs: [(10, 0), (20, 1), (30, 2), (40, 3)])
        let data = try TypedStreamArchiver.archivedData(of: graph)
        let style = try #require(
            try TypedStreamUnarchiver.unarchivedObject(ofClass: ArchivedParagraphStyle.self, from: data))
        #expect(style.tabStops?.map(\.alignment) == [0, 1, 2, 1])
        #expect(style.tabStops?.map(\.location) == [10, 20, 30, 40])
        #expect(try TypedStreamArchiver.archivedData(withRootObject: style) == data)
        // Tab stops set in Swift: those unchanged keep the types read.
        var moved = style
        moved.tabStops = [10.0, 20, 30, 45].enumerated().map { position, location in
            ArchivedTextTab(location: location, alignment: [0, 1, 2, 1][position])
        }
        let rewritten = try TypedStreamUnarchiver.objectGraph(
            from: try TypedStreamArchiver.archivedData(withRootObject: moved))
        let types = rewritten.nodes.compactMap { node -> TypedStreamGraph.Value? in
            guard case .object(let object) = node else { return nil }
            return object.groups.first { $0.encoding == "[4q]" }?.values.first
        }
        // The first three are as read; the moved decimal tab is now a right tab.
        #expect(types == [.array([.integer(0), .integer(1), .integer(2), .integer(1)])])
    }

    @Test("a paragraph style as an attribute of an attributed string, read and written")
    func attribute() throws {
        var style = ArchivedParagraphStyle(isMutable: true)
        style.alignment = 1
        style.headIndent = 20
        let string = ArchivedAttributedString(
            "Title\nBody",
            runs: [
                .init(range: 0..<6, attributes: ["NSParagraphStyle": .paragraphStyle(style)]),
                .init(
                    range: 6..<10,
                    attributes: [
                        "NSParagraphStyle": .paragraphStyle(ArchivedParagraphStyle()),
                        "NSFont": .font(ArchivedFont(name: "Helvetica", size: 12)),
                    ]),
            ])
        let data = try TypedStreamArchiver.archivedData(withRootObject: string)
        let back = try #require(
            try TypedStreamUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data))
        #expect(back.string == "Title\nBody")
        #expect(back.runs.map(\.range) == [0..<6, 6..<10])
        guard case .paragraphStyle(let first)? = back.runs.first?.attributes["NSParagraphStyle"],
            case .paragraphStyle(let second)? = back.runs.last?.attributes["NSParagraphStyle"]
        else {
            Issue.record("no paragraph styles: \(back.runs)")
            return
        }
        #expect(first.isMutable)
        #expect(first.alignment == 1)
        #expect(first.headIndent == 20)
        #expect(second.isMutable == false)
        #expect(second.alignment == 4)
        // Written again from what was read: the same bytes.
        #expect(try TypedStreamArchiver.archivedData(withRootObject: back) == data)
        // The iMessage view keeps it among the run's attributes.
        let body = try IMessageBody(attributedBody: data)
        #expect(body.runs.first?.attributes["NSParagraphStyle"] == .paragraphStyle(first))
    }

    @Test("a style read from a typedstream has the fields a keyed archive of it has")
    func keyedEquivalence() throws {
        let style = try #require(
            try TypedStreamUnarchiver.unarchivedObject(
                ofClass: ArchivedParagraphStyle.self, from: Data(Self.handBuilt)))
        let keyed = try KeyedArchiver.archivedData(withRootObject: style, requiringSecureCoding: true)
        let back = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedParagraphStyle.self, from: keyed))
        // The same fields (the tab stops, graphs of the archive each was read from, compared
        // as tab stops).
        #expect(
            back.fields.filter { $0.key != "NSTabStops" } == style.fields.filter { $0.key != "NSTabStops" })
        #expect(back.typedStreamForm == nil)
        #expect(back.tabStops == style.tabStops)
        // Written to a typedstream from the keyed copy: the same values, 64-bit types.
        let stream = try TypedStreamArchiver.archivedData(withRootObject: back)
        let again = try #require(
            try TypedStreamUnarchiver.unarchivedObject(ofClass: ArchivedParagraphStyle.self, from: stream))
        #expect(
            again.fields.filter { $0.key != "NSTabStops" } == style.fields.filter { $0.key != "NSTabStops" })
        #expect(again.tabStops == style.tabStops)
        #expect(again.typedStreamForm?.groups.first?.encoding == "q")
    }

    @Test("other versions, class chains and layouts decode as generic graphs, not errors")
    func otherLayouts() throws {
        var cases: [(String, TypedStreamGraph)] = [
            ("version 4", Self.styleGraph(version: 4, tabs: [])),
            ("version 99", Self.styleGraph(version: 99, tabs: [(1, 0)])),
        ]
        var short = Self.styleGraph(version: 3, tabs: [(1, 0)])
        short = Self.replacingGroups(of: short) { Array($0.dropLast(2)) }
        cases.append(("groups missing", short))
        cases.append(
            (
                "a real where an integer is",
                Self.replacingGroups(of: Self.styleGraph(version: 3, tabs: [])) {
                    [TypedStreamGraph.Group(encoding: "f", values: [.float(1)])] + $0.dropFirst()
                }
            ))
        cases.append(
            (
                "a count the arrays do not hold",
                Self.replacingGroups(of: Self.styleGraph(version: 3, tabs: [(1, 0), (2, 0)])) { groups in
                    var changed = groups
                    changed[9] = .init(encoding: "Q", values: [.unsignedInteger(1_000_000)])
                    return changed
                }
            ))
        cases.append(
            (
                "an object after the known groups",
                Self.replacingGroups(of: Self.styleGraph(version: 3, tabs: [])) {
                    $0 + [.init(encoding: "#", values: [.class(1)])]
                }
            ))
        for (label, graph) in cases {
            let data = try TypedStreamArchiver.archivedData(of: graph)
            let value = try TypedStreamUnarchiver.unarchivedObject(from: data)
            let generic = try #require(value as? TypedStreamGraph, "\(label): \(String(describing: value))")
            guard case .object(let index)? = generic.root else {
                Issue.record("\(label): no root object")
                continue
            }
            #expect(generic.object(at: index)?.className == "NSParagraphStyle", "\(label)")
        }
        // An NSTextTab on its own (GNUstep writes nothing for it) stays a graph.
        let tab = TypedStreamGraph.single(className: "NSTextTab", version: 0, groups: [])
        #expect(
            try TypedStreamUnarchiver.unarchivedObject(from: try TypedStreamArchiver.archivedData(of: tab))
                is TypedStreamGraph)
    }

    @Test("a typedStreamForm that is not of the layout is refused with invalidValue, not written")
    func unwritableForm() {
        var style = ArchivedParagraphStyle()
        style.typedStreamForm = .init(version: 2, groups: [.init(encoding: "@", values: [.null])])
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamArchiver.archivedData(withRootObject: style)
        }
        var negative = ArchivedParagraphStyle()
        negative.typedStreamForm = try? TypedStreamUnarchiver.unarchivedObject(
            ofClass: ArchivedParagraphStyle.self, from: Data(Self.handBuilt))?.typedStreamForm
        negative.tabStops = []
        negative.alignment = 1000  // fits the stream's "i"
        #expect(throws: Never.self) { try TypedStreamArchiver.archivedData(withRootObject: negative) }
        // An alignment of 1000 does not fit a "C", nor -1 an unsigned type.
        negative.typedStreamForm?.groups[0] = .init(encoding: "C", values: [.unsignedInteger(1)])
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamArchiver.archivedData(withRootObject: negative)
        }
        negative.alignment = 1
        negative.baseWritingDirection = -1
        negative.typedStreamForm?.groups[12] = .init(encoding: "Q", values: [.unsignedInteger(1)])
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamArchiver.archivedData(withRootObject: negative)
        }
    }

    @Test("as a keyed graph (what the tool prints), a style has its keyed fields and summary")
    func keyedGraph() throws {
        let graph = try TypedStreamUnarchiver.objectGraph(from: Data(Self.handBuilt)).archivedObjectGraph()
        let object = try #require(graph.nodes.indices.compactMap { graph.object(at: $0) }.first)
        #expect(object.className == "NSParagraphStyle")
        #expect(object["NSAlignment"] == .integer(2))
        #expect(object["NSHeadIndent"] == .real(5.5))
        #expect(object["NSWritingDirection"] == .integer(1))
        #expect(object["$0"] == .integer(2))
        let index = try #require(graph.nodes.indices.first { graph.object(at: $0) != nil })
        let summary = try #require(graph.summary(ofObjectAt: index))
        #expect(summary.text.hasPrefix("NSParagraphStyle { NSAlignment = 2; "), "\(summary.text)")
        #expect(!summary.text.contains("$"), "\(summary.text)")
    }

    @Test(
        "pytypedstream reads the paragraph styles we write with the same classes, versions and values",
        .enabled(if: PyTypedStream.isAvailable, "\(PyTypedStream.skipNote)"))
    func pytypedstreamReads() throws {
        var streams = [Data(Self.handBuilt)]
        for style in Self.styles {
            streams.append(try TypedStreamArchiver.archivedData(withRootObject: style))
        }
        // pytypedstream has no class for NSParagraphStyle: it reads it generically, the class
        // chain with versions and each group's encoding and values.
        let dumps = try PyTypedStream.evaluate(
            streams,
            "[[(c.name.decode(), c.version) for c in [root.clazz, root.clazz.superclass, "
                + "getattr(root.clazz.superclass, 'superclass', None)] if c is not None], "
                + "[[g.encoding.decode(), list(g.value.elements) if hasattr(g.value, 'elements') else g.value] "
                + "for g in root.contents]]")
        for (position, stream) in streams.enumerated() {
            let graph = try TypedStreamUnarchiver.objectGraph(from: stream)
            guard case .object(let index)? = graph.root, let object = graph.object(at: index) else {
                Issue.record("stream \(position): no root object")
                continue
            }
            let chain = graph.classChain(of: object).map { "[\"\($0.name)\", \($0.version)]" }
            let dump = dumps[position]
            #expect(dump.hasPrefix("[[" + chain.joined(separator: ", ") + "]"), "\(dump)")
            #expect(!dump.hasPrefix("error"), "\(dump)")
            // Each group's encoding and values, as we read them.
            let groups = object.groups.map { group -> String in
                let values = group.values.map(Self.pythonText).joined(separator: ", ")
                return "[\"\(group.encoding)\", \(values)]"
            }
            #expect(dump.hasSuffix(", [" + groups.joined(separator: ", ") + "]]"), "\(dump)")
        }
        // The values pytypedstream reads in the hand-built stream, in order.
        #expect(
            dumps[0].hasSuffix(
                #"[["i", 2], ["i", 0], ["f", 10.0], ["f", 5.5], ["f", 2.0], ["f", 0.0], ["f", 0.0], ["f", 6.0], "#
                    + #"["f", -12.0], ["I", 2], ["[2f]", [28.0, 56.5]], ["[2i]", [0, 2]], ["i", 1], ["c", 7]]]"#
            ),
            "\(dumps[0])")
    }

    // MARK: - Support

    /// A value as Python's `json.dumps` prints it.
    static func pythonText(_ value: TypedStreamGraph.Value) -> String {
        switch value {
        case .integer(let number): return String(number)
        case .unsignedInteger(let number): return String(number)
        case .float(let number): return "\(Double(number))"
        case .double(let number): return "\(number)"
        case .array(let values): return "[" + values.map(pythonText).joined(separator: ", ") + "]"
        default: return "\(value)"
        }
    }

    /// A graph of one `NSParagraphStyle` of `version`, with 64-bit integers and `tabs`
    /// (location, `NSTextTabType`).
    static func styleGraph(version: Int, tabs: [(Double, Int64)]) -> TypedStreamGraph {
        var groups: [TypedStreamGraph.Group] = [
            .init(encoding: "q", values: [.integer(4)]), .init(encoding: "q", values: [.integer(0)]),
        ]
        groups += (0..<7).map { _ in TypedStreamGraph.Group(encoding: "f", values: [.float(0)]) }
        groups.append(.init(encoding: "Q", values: [.unsignedInteger(UInt64(tabs.count))]))
        if !tabs.isEmpty {
            groups.append(
                .init(encoding: "[\(tabs.count)f]", values: [.array(tabs.map { .float(Float($0.0)) })]))
            groups.append(.init(encoding: "[\(tabs.count)q]", values: [.array(tabs.map { .integer($0.1) })]))
        }
        groups.append(.init(encoding: "q", values: [.integer(-1)]))
        return TypedStreamGraph.single(className: "NSParagraphStyle", version: version, groups: groups)
    }

    static func replacingGroups(
        of graph: TypedStreamGraph, _ change: ([TypedStreamGraph.Group]) -> [TypedStreamGraph.Group]
    ) -> TypedStreamGraph {
        var nodes = graph.nodes
        if case .object(let object) = nodes[0] {
            nodes[0] = .object(
                .init(
                    classIndex: object.classIndex, className: object.className, groups: change(object.groups))
            )
        }
        return TypedStreamGraph(nodes: nodes, contents: graph.contents)
    }
}
