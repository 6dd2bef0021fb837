import Foundation
import KeyedArchive
import TestSupport
import Testing

/// `TypedStreamConversion`: typedstreams (`NSArchiver`) as keyed archives in Apple's own
/// layouts, read back by Foundation's `NSKeyedUnarchiver` and by ours with the values the
/// typedstream holds, and keyed archives back as typedstreams.
@Suite("Typedstream ↔ keyed archive conversion")
struct TypedStreamConversionTests {
    static let fixturesAvailable = !TypedStreamFixtureTests.names.isEmpty

    /// The fixtures that have no keyed form, and why (a fixed list: a new refusal fails).
    static let expectedRefusals: [String: String] = [
        "crabstep_ExtraData": "a string of 157 bytes runs past the end",
        "crabstep_HugeWithRefs": "class ROI < NSObject has no keyed form",
    ]

    // MARK: - Canonical values

    /// A value as text that two readers agree on when they read the same thing: numbers as
    /// `Double`s (each reader picks its own integer type), collections in a sorted order, AppKit
    /// values by what they mean (a font's name and size, a style's fields with defaults filled).
    static func canonical(
        _ value: Any?, textOnly: Bool = false, graph: (ArchivedObjectGraph) throws -> Any? = { _ in nil }
    ) throws -> String {
        func recurse(_ member: Any?) throws -> String {
            try canonical(member, textOnly: textOnly, graph: graph)
        }
        switch value {
        case nil: return "nil"
        case let text as String: return "s" + text.debugDescription
        case let flag as Bool: return "n\(flag ? 1.0 : 0.0)"
        case let number as Float: return "n\(Double(number))"
        case let number as Double: return "n\(number)"
        case let number as any BinaryInteger: return "n\(Double(number))"
        case let bytes as Data: return "d" + bytes.base64EncodedString()
        case let date as Date: return "t\(date.timeIntervalSinceReferenceDate)"
        case let url as URL: return "u" + url.absoluteString
        case is ArchivedNull: return "null"
        case let array as [Any]: return "[" + (try array.map(recurse)).joined(separator: ", ") + "]"
        case let set as Set<AnyHashable>:
            return "set{" + (try set.map { try recurse($0.base) }).sorted().joined(separator: ", ") + "}"
        case let dictionary as [String: Any]:
            return "{"
                + (try dictionary.map { "\($0.key.debugDescription)=\(try recurse($0.value))" }).sorted()
                .joined(separator: ", ") + "}"
        case let dictionary as [AnyHashable: Any]:
            return "{"
                + (try dictionary.map { "\(try recurse($0.key.base))=\(try recurse($0.value))" }).sorted()
                .joined(separator: ", ") + "}"
        case let string as ArchivedAttributedString:
            if textOnly { return "A" + string.string.debugDescription }
            let runs = try string.runs.map { run in
                "\(run.range): "
                    + (try run.attributes.map { "\($0.key)=\(try attribute($0.value, graph: graph))" })
                    .sorted()
                    .joined(separator: "; ")
            }
            return "A" + string.string.debugDescription + "(" + runs.joined(separator: " | ") + ")"
        case let font as ArchivedFont: return "font(\(font.name) \(font.size))"
        case let color as ArchivedColor:
            let parts = color.components.map { ($0 * 1e6).rounded() / 1e6 }
            return "color(\(color.space.map { String($0.code) } ?? "-") \(parts) \(color.catalogName ?? "") "
                + "\(color.colorName ?? "") \(try color.fallback.map(recurse) ?? ""))"
        case let style as ArchivedParagraphStyle:
            let reals = [
                style.firstLineHeadIndent, style.headIndent, style.tailIndent, style.lineSpacing,
                style.paragraphSpacing, style.minimumLineHeight, style.maximumLineHeight,
            ].map { $0 ?? 0 }
            let tabs = (style.tabStops ?? (1...12).map { ArchivedTextTab(location: Double($0) * 28) })
                .map { "\($0.location)/\($0.alignment)" }
            return
                "style(\(style.alignment ?? 4) \(style.lineBreakMode ?? 0) \(style.baseWritingDirection ?? -1) "
                + "\(reals) \(tabs))"
        case let point as ArchivedPoint: return "point(\(point.x) \(point.y))"
        case let size as ArchivedSize: return "size(\(size.width) \(size.height))"
        case let rect as ArchivedRect:
            return "rect(\(rect.origin.x) \(rect.origin.y) \(rect.size.width) \(rect.size.height))"
        case let range as ArchivedRange: return "range(\(range.location) \(range.length))"
        case let insets as ArchivedEdgeInsets:
            return "insets(\(insets.top) \(insets.left) \(insets.bottom) \(insets.right))"
        case let other?:
            return "unexpected \(type(of: other)): \(other)"
        }
    }

    static func attribute(_ value: ArchivedAttributeValue, graph: (ArchivedObjectGraph) throws -> Any?) throws
        -> String
    {
        switch value {
        case .null: return "nil"
        case .string(let text): return try canonical(text)
        case .integer(let number): return try canonical(number)
        case .real(let number): return try canonical(number)
        case .bool(let flag): return try canonical(flag)
        case .data(let bytes): return try canonical(bytes)
        case .date(let date): return try canonical(date)
        case .url(let url): return try canonical(url)
        case .font(let font): return try canonical(font)
        case .color(let color): return try canonical(color)
        case .paragraphStyle(let style): return try canonical(style)
        case .array(let values):
            return "[" + (try values.map { try attribute($0, graph: graph) }).joined(separator: ", ") + "]"
        case .object(let object): return try canonical(try graph(object), graph: graph)
        }
    }

    /// What Foundation's unarchiver returns, as ``canonical(_:textOnly:graph:)`` writes ours.
    static func foundationCanonical(_ value: Any?) throws -> String {
        switch value {
        case nil: return "nil"
        case let string as NSAttributedString: return "A" + string.string.debugDescription
        case let text as NSString: return "s" + text.description.debugDescription
        case let number as NSNumber: return "n\(number.doubleValue)"
        case let bytes as NSData: return "d" + Data(referencing: bytes).base64EncodedString()
        case let date as NSDate: return "t\(date.timeIntervalSinceReferenceDate)"
        case let url as NSURL: return "u" + (url.absoluteString ?? "")
        case is NSNull: return "null"
        case let array as NSArray:
            return "[" + (try array.map(foundationCanonical)).joined(separator: ", ") + "]"
        case let set as NSSet:
            return "set{" + (try set.map(foundationCanonical)).sorted().joined(separator: ", ") + "}"
        case let dictionary as NSDictionary:
            let entries = try dictionary.map { entry -> String in
                let key = (entry.key as? NSString).map { $0.description.debugDescription }
                return "\(try key ?? foundationCanonical(entry.key))=\(try foundationCanonical(entry.value))"
            }
            return "{" + entries.sorted().joined(separator: ", ") + "}"
        default: return try canonical(value, textOnly: true)
        }
    }

    /// A typedstream's root, canonical; `.object` attribute values resolved in the stream.
    static func typedStreamCanonical(_ data: Data, textOnly: Bool = false) throws -> String {
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
        let root = try unarchiver.decodeObject()
        return try canonical(root, textOnly: textOnly) { graph in
            guard case .reference(let uid)? = graph.root else { return nil }
            return try unarchiver.value(of: .object(uid - 1))
        }
    }

    static var keyedTypes: [any KeyedCoding.Type] {
        [ArchivedAttributedString.self, ArchivedColor.self, ArchivedFont.self, ArchivedParagraphStyle.self]
    }

    /// A keyed archive's root read by our unarchiver, canonical.
    static func keyedCanonical(_ data: Data, textOnly: Bool = false) throws -> String {
        func read(_ data: Data) throws -> Any? {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            return try unarchiver.decodeObject(of: keyedTypes, forKey: KeyedArchiver.rootObjectKey)
        }
        return try canonical(try read(data), textOnly: textOnly) { graph in
            // The graph is the whole archive: rooted at the attribute value, not at `$top`'s root.
            guard case .reference(let uid)? = graph.root,
                case .dictionary(var archive) = graph.archivePropertyList()
            else { return nil }
            archive["$top"] = .dictionary(["root": .uid(UInt64(uid))])
            return try read(try PropertyList.dictionary(archive).data(format: .binary))
        }
    }

    /// Every object's keys that look like the generic bridge's unkeyed fields (`$0`, `$1`, …).
    static func unkeyedFields(_ data: Data) throws -> [String] {
        guard case .dictionary(let top) = try PropertyList(from: data),
            case .array(let objects)? = top["$objects"]
        else { return ["not a keyed archive"] }
        var found: [String] = []
        for case .dictionary(let object) in objects {
            for key in object.keys
            where key.count > 1 && key.hasPrefix("$") && key.dropFirst().allSatisfy(\.isNumber) {
                found.append(key)
            }
        }
        return found
    }

    // MARK: - Fixtures

    @Test(
        "every typedstream fixture converts, or is refused as expected, and reads back with its values",
        .enabled(if: fixturesAvailable))
    func everyFixture() throws {
        var refused: [String: String] = [:]
        var converted = 0
        for name in TypedStreamFixtureTests.names {
            let stream = try TypedStreamFixtureTests.data(name)
            let keyed: Data
            do {
                keyed = try TypedStreamConversion.keyedArchiveData(fromTypedStream: stream)
            } catch let error as KeyedArchiveError {
                refused[name] = error.description
                continue
            }
            converted += 1
            #expect(try Self.unkeyedFields(keyed).isEmpty, "\(name)")
            let expected = try Self.typedStreamCanonical(stream)
            #expect(!expected.contains("unexpected"), "\(name): \(expected)")
            #expect(try Self.keyedCanonical(keyed) == expected, "\(name)")
            // XML archives hold the same.
            let xml = try TypedStreamConversion.keyedArchiveData(fromTypedStream: stream, format: .xml)
            #expect(xml.starts(with: Array("<?xml".utf8)), "\(name)")
            #expect(try Self.keyedCanonical(xml) == expected, "\(name)")
            // And back: typedstream → keyed → typedstream gives the same values.
            let back = try TypedStreamConversion.typedStreamData(fromKeyedArchive: keyed)
            #expect(try Self.typedStreamCanonical(back) == expected, "\(name)")
        }
        #expect(converted == TypedStreamFixtureTests.names.count - Self.expectedRefusals.count)
        #expect(Set(refused.keys) == Set(Self.expectedRefusals.keys), "refused: \(refused)")
        for (name, reason) in Self.expectedRefusals {
            #expect(refused[name]?.contains(reason) == true, "\(name): \(refused[name] ?? "converted")")
        }
    }

    @Test(
        "Foundation's NSKeyedUnarchiver reads the converted Foundation classes with the same values",
        .enabled(if: fixturesAvailable))
    func foundationReads() throws {
        var checked = 0
        for name in TypedStreamFixtureTests.names where Self.expectedRefusals[name] == nil {
            let stream = try TypedStreamFixtureTests.data(name)
            let keyed = try TypedStreamConversion.keyedArchiveData(fromTypedStream: stream)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: keyed)
            unarchiver.requiresSecureCoding = false
            let value = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
            #expect(value != nil, "\(name): \(String(describing: unarchiver.error))")
            #expect(
                try Self.foundationCanonical(value)
                    == (try Self.typedStreamCanonical(stream, textOnly: true)),
                "\(name)")
            checked += 1
        }
        #expect(checked == 68)
    }

    @Test(
        "the attribute runs of a converted iMessage body read in Foundation",
        .enabled(if: TypedStreamFixtureTests.names.contains("crabstep_Mention")))
    func foundationAttributes() throws {
        let keyed = try TypedStreamConversion.keyedArchiveData(
            fromTypedStream: try TypedStreamFixtureTests.data("crabstep_Mention"))
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: keyed)
        unarchiver.requiresSecureCoding = false
        let string = try #require(
            unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSAttributedString)
        #expect(string.string == "Test Dad ")
        let key = NSAttributedString.Key("__kIMMentionConfirmedMention")
        #expect(string.attribute(key, at: 6, effectiveRange: nil) as? String == "+15558675309")
        #expect(string.attribute(key, at: 1, effectiveRange: nil) == nil)
    }

    // MARK: - AppKit classes

    static var appKitValues: [Any] {
        var style = ArchivedParagraphStyle(isMutable: true)
        style.alignment = 2
        style.lineBreakMode = 4
        style.headIndent = 36
        style.tabStops = [ArchivedTextTab(location: 72, alignment: 2)]
        var plainStyle = ArchivedParagraphStyle()
        plainStyle.alignment = 4
        let font = ArchivedFont(name: "Helvetica-Bold", size: 13)
        let red = ArchivedColor(red: 1, green: 0.25, blue: 0, alpha: 1, space: .calibratedRGB)
        let gray = ArchivedColor(white: 0.5, alpha: 1, space: .deviceWhite)
        let named = ArchivedColor(
            catalogName: "System", colorName: "controlTextColor", fallback: ArchivedColor(white: 0, alpha: 1))
        let text = ArchivedAttributedString(
            "Hello, world",
            runs: [
                .init(range: 0..<5, attributes: ["NSFont": .font(font), "NSColor": .color(red)]),
                .init(range: 5..<12, attributes: ["NSParagraphStyle": .paragraphStyle(style)]),
            ])
        let single = ArchivedAttributedString("Plain", attributes: ["NSFont": .font(font)])
        return [
            red, gray, named, ArchivedColor(cyan: 0.1, magenta: 0.2, yellow: 0.3, black: 0.4), font, style,
            plainStyle, text, single, ArchivedPoint(x: 1, y: 2), ArchivedSize(width: 3, height: 4),
            ArchivedRect(x: 1, y: 2, width: 3, height: 4), ArchivedRange(location: 5, length: 6),
            [red, font, "x"] as [Any],
        ]
    }

    /// For each class, the key sets (with their value types) Apple wrote in the Mac archives of
    /// the fixtures: nibs, Xcode state, Terminal preferences (`wild_*`), and the archives
    /// macOS 10.14 wrote for swift-corelibs-foundation's tests (`corelibs_macOS-*`).
    static let appleLayouts: [String: Set<[String: String]>] = {
        var layouts: [String: Set<[String: String]>] = [:]
        let folder = Fixtures.root.appendingPathComponent("apple-keyed-archives")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names
        where (name.hasPrefix("wild_") || name.hasPrefix("corelibs_macOS")) && !name.hasSuffix(".json") {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)) else { continue }
            for (className, layout) in objectLayouts(data) { layouts[className, default: []].insert(layout) }
        }
        return layouts
    }()

    /// Each object of a keyed archive as its class name and its keys with their value types.
    static func objectLayouts(_ data: Data) -> [(String, [String: String])] {
        guard case .dictionary(let top)? = try? PropertyList(from: data),
            case .array(let objects)? = top["$objects"]
        else { return [] }
        var result: [(String, [String: String])] = []
        for case .dictionary(let object) in objects {
            guard case .uid(let classUID)? = object["$class"], objects.indices.contains(Int(classUID)),
                case .dictionary(let description) = objects[Int(classUID)],
                case .string(let className)? = description["$classname"]
            else { continue }
            var layout: [String: String] = [:]
            for (key, value) in object where key != "$class" {
                switch value {
                case .uid: layout[key] = "reference"
                case .integer: layout[key] = "integer"
                case .real: layout[key] = "real"
                case .bool: layout[key] = "bool"
                case .data: layout[key] = "data"
                case .string: layout[key] = "string"
                case .array: layout[key] = "array"
                default: layout[key] = "\(value)"
                }
            }
            result.append((className, layout))
        }
        return result
    }

    @Test(
        "AppKit classes convert to the keys and value types Apple writes, and read back typed",
        .enabled(if: fixturesAvailable))
    func appKitLayouts() throws {
        let apple = Self.appleLayouts
        for className in [
            "NSColor", "NSFont", "NSParagraphStyle", "NSMutableParagraphStyle", "NSAttributedString",
        ] {
            #expect(apple[className] != nil, "no \(className) in the wild fixtures")
        }
        var compared: Set<String> = []
        for value in Self.appKitValues {
            let stream = try TypedStreamArchiver.archivedData(withRootObject: value)
            let keyed = try TypedStreamConversion.keyedArchiveData(fromTypedStream: stream)
            #expect(try Self.unkeyedFields(keyed).isEmpty)
            let expected = try Self.typedStreamCanonical(stream)
            // Geometry is read typed (every NSValue has one class name).
            if let point = value as? ArchivedPoint {
                #expect(
                    try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPoint.self, from: keyed) == point)
            } else if let size = value as? ArchivedSize {
                #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedSize.self, from: keyed) == size)
            } else if let rect = value as? ArchivedRect {
                #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedRect.self, from: keyed) == rect)
            } else if let range = value as? ArchivedRange {
                #expect(
                    try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedRange.self, from: keyed) == range)
            } else {
                #expect(try Self.keyedCanonical(keyed) == expected)
            }
            // Each object has a layout Apple wrote for its class (CMYK colours, which none of
            // the Mac archives hold, have NSCMYK).
            for (className, layout) in Self.objectLayouts(keyed) {
                if className == "NSColor", layout["NSCMYK"] != nil {
                    #expect(layout == ["NSColorSpace": "integer", "NSCMYK": "data"])
                    continue
                }
                guard let known = apple[className] else { continue }
                if className.hasSuffix("ParagraphStyle") {
                    // Apple writes only the fields that differ from the defaults, and always these.
                    let union = Set(known.flatMap(\.keys))
                    #expect(layout["NSAlignment"] == "integer" && layout["NSTabStops"] == "reference")
                    for (key, type) in layout where union.contains(key) {
                        #expect(known.contains { $0[key] == type }, "\(className).\(key): \(type)")
                    }
                } else if className == "NSValue", !known.contains(layout) {
                    // Points and rectangles are not among the fixtures: their string field is
                    // stored as Apple stores NS.sizeval, an NSString object.
                    #expect(layout.count == 2 && layout["NS.special"] == "integer")
                    #expect(layout.allSatisfy { $0.key == "NS.special" || $0.value == "reference" })
                } else {
                    #expect(known.contains(layout), "\(className): \(layout) is not among Apple's \(known)")
                }
                compared.insert(className)
            }
            // And back.
            let back = try TypedStreamConversion.typedStreamData(fromKeyedArchive: keyed)
            #expect(try Self.typedStreamCanonical(back) == expected)
        }
        #expect(
            compared.isSuperset(of: [
                "NSColor", "NSFont", "NSMutableParagraphStyle", "NSAttributedString", "NSValue",
            ]))
    }

    // MARK: - Refusals and the reverse

    @Test("a class without a keyed form is refused, named with where it is")
    func refusal() throws {
        let graph = TypedStreamGraph(
            nodes: [
                .object(
                    .init(
                        classIndex: 1, className: "NSArray",
                        groups: [
                            .init(encoding: "i", values: [.integer(1)]),
                            .init(encoding: "@", values: [.object(3)]),
                        ])),
                .class(.init(name: "NSArray", version: 0, superclassIndex: 2)),
                .class(.init(name: "NSObject", version: 0, superclassIndex: nil)),
                .object(
                    .init(
                        classIndex: 4, className: "Marker",
                        groups: [.init(encoding: "i", values: [.integer(7)])])),
                .class(.init(name: "Marker", version: 2, superclassIndex: 2)),
            ],
            contents: [.init(encoding: "@", values: [.object(0)])])
        let stream = try TypedStreamArchiver.archivedData(of: graph)
        let error = try #require(throws: KeyedArchiveError.self) {
            try TypedStreamConversion.keyedArchiveData(fromTypedStream: stream)
        }
        #expect(error.code == .classNotFound)
        #expect(error.description.contains("Marker < NSObject has no keyed form"), "\(error)")
        #expect(error.location == .keyPath("root[0]"))

        // Two top-level values (a colour list's shape) are not one root.
        let archiver = TypedStreamArchiver()
        try archiver.encodeObject("a")
        try archiver.encodeObject("b")
        let twoRoots = try #require(throws: KeyedArchiveError.self) {
            try TypedStreamConversion.keyedArchiveData(fromTypedStream: archiver.encodedData)
        }
        #expect(twoRoots.description.contains("2 top-level values"))
    }

    @Test("keyed archives of other classes are refused by the reverse conversion, named")
    func reverseRefusal() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: [UUID()], requiringSecureCoding: true)
        let error = try #require(throws: KeyedArchiveError.self) {
            try TypedStreamConversion.typedStreamData(fromKeyedArchive: archive)
        }
        #expect(error.code == .classNotFound)
        #expect(error.description.contains("NSUUID"), "\(error)")
        #expect(error.location == .keyPath("root.NS.objects[0]"))
    }

    @Test("a collection shared in the stream is one object of the keyed archive")
    func sharing() throws {
        let inner = ["x", "y"]
        let graph = TypedStreamGraph(
            nodes: [
                .object(
                    .init(
                        classIndex: 1, className: "NSMutableArray",
                        groups: [
                            .init(encoding: "i", values: [.integer(2)]),
                            .init(encoding: "@", values: [.object(4)]),
                            .init(encoding: "@", values: [.object(4)]),
                        ])),
                .class(.init(name: "NSMutableArray", version: 0, superclassIndex: 2)),
                .class(.init(name: "NSArray", version: 0, superclassIndex: 3)),
                .class(.init(name: "NSObject", version: 0, superclassIndex: nil)),
                .object(
                    .init(
                        classIndex: 2, className: "NSArray",
                        groups: [
                            .init(encoding: "i", values: [.integer(0)])
                        ])),
            ],
            contents: [.init(encoding: "@", values: [.object(0)])])
        _ = inner
        let keyed = try TypedStreamConversion.keyedArchiveData(
            fromTypedStream: try TypedStreamArchiver.archivedData(of: graph))
        let layouts = Self.objectLayouts(keyed)
        #expect(layouts.map(\.0) == ["NSMutableArray", "NSArray"])
        guard case .dictionary(let top) = try PropertyList(from: keyed),
            case .array(let objects)? = top["$objects"],
            case .dictionary(let root) = objects[1], case .array(let members)? = root["NS.objects"]
        else {
            Issue.record("no root array")
            return
        }
        #expect(members.count == 2 && members[0] == members[1])
    }

    @Test("arrays nested past the depth limit are refused by the reverse conversion, not followed")
    func reverseDepth() throws {
        // $objects: $null, the class, then 2,000 NSArrays each holding the next.
        let count = 2_000
        var objects: [PropertyList] = [
            "$null", ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]],
        ]
        for index in 0..<count {
            let next: [PropertyList] = index + 1 < count ? [.uid(UInt64(index + 3))] : []
            objects.append(["$class": .uid(1), "NS.objects": .array(next)])
        }
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(2)],
            "$objects": .array(objects),
        ]
        let error = try #require(throws: KeyedArchiveError.self) {
            try TypedStreamConversion.typedStreamData(fromKeyedArchive: try archive.data(format: .binary))
        }
        #expect(error.code == .limitExceeded, "\(error)")
    }
}
