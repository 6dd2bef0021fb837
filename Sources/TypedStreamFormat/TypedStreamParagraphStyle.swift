#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedParagraphStyle {
    /// For a style read from a typedstream (what `NSArchiver` wrote), its class versions
    /// and groups as read, so that ``TypedStreamArchiver`` writes the ``fields`` back in
    /// the same layout (the same C types, and any groups after the known ones); `nil` for
    /// a style from a keyed archive or made in code. Not part of keyed archives.
    public var typedStreamForm: TypedStreamForm? {
        get { typedStreamLayout?.value as? TypedStreamForm }
        set { typedStreamLayout = newValue.map(OpaqueValue.init) }
    }

    /// How a paragraph style was laid out in the typedstream it was read from: the class
    /// versions and the object's groups, as read (see ``ArchivedParagraphStyle/typedStreamForm``).
    ///
    /// ``TypedStreamArchiver`` takes from it the C type of each group (`i` or `q` for the
    /// alignment, `f` or `d` for the indents, …), the tab-stop types, and the groups that
    /// follow the known ones, and writes the style's current ``ArchivedParagraphStyle/fields``
    /// in that layout.
    public struct TypedStreamForm: Hashable, Sendable {
        /// The version of `NSParagraphStyle` in the stream: 2 and later store the writing
        /// direction, 3 and later the tab-stop types as `NSInteger`.
        public var version: Int
        /// The version of `NSMutableParagraphStyle` in the stream, for a mutable style.
        public var mutableVersion: Int
        /// The object's groups as read, in order.
        public var groups: [TypedStreamGraph.Group]

        /// Creates a form.
        ///
        /// - Parameters:
        ///   - version: The version of `NSParagraphStyle`.
        ///   - mutableVersion: The version of `NSMutableParagraphStyle`.
        ///   - groups: The object's groups, in the layout of ``TypedStreamArchiver``'s table.
        public init(version: Int, mutableVersion: Int = 0, groups: [TypedStreamGraph.Group]) {
            self.version = version
            self.mutableVersion = mutableVersion
            self.groups = groups
        }
    }
}

/// `NSParagraphStyle` in a typedstream, in the layout GNUstep's AppKit
/// (`NSParagraphStyle.m`) reads and writes with a coder that is not keyed, one group per
/// value:
///
/// | groups | values |
/// |---|---|
/// | an integer, an integer | alignment, line-break mode |
/// | 7 × `f` | first-line head indent, head indent, line spacing, maximum and minimum line height, paragraph spacing, tail indent |
/// | an integer *n* | the number of tab stops |
/// | `[nf]`, `[nT]` (when *n* > 0) | the tab stops' locations, then their types (`NSTextTabType`: 0 left, 1 right, 2 centre, 3 decimal; `T` `i` before version 3, `NSInteger` from 3) |
/// | an integer (version 2 and later) | the base writing direction |
///
/// The integers may be of any integer C type (`i`, `q`, `I`, `Q`, … as the writer's
/// `NSInteger` and `NSUInteger` were), the reals `f` or `d`. Versions 0 to 3 are read
/// (their alignments number right 1 and centre 2, as ``ArchivedParagraphStyle/alignment``
/// does; GNUstep's version 4 swaps them, and is not read); a style of another version,
/// another class chain or other groups is not (it decodes as its generic graph). Groups
/// after the known ones are kept when they hold no object.
enum TypedStreamParagraphStyle {
    /// The versions of `NSParagraphStyle` whose layout is documented.
    static let versions = 0...3

    /// The keys of the seven reals, in stream order.
    static let realKeys = [
        "NSFirstLineHeadIndent", "NSHeadIndent", "NSLineSpacing", "NSMaxLineHeight", "NSMinLineHeight",
        "NSParagraphSpacing", "NSTailIndent",
    ]

    /// The defaults written for fields a style does not store (Apple's defaults): natural
    /// alignment, word wrapping, natural writing direction, 12 left tab stops 28 points apart.
    static let defaultAlignment = 4
    static let defaultWritingDirection = -1
    static let defaultTabStops = (1...12).map { ArchivedTextTab(location: Double($0) * 28) }

    /// The C types of one style's groups, and its tab-stop types as stored.
    struct Layout: Equatable {
        var alignmentEncoding = "q"
        var lineBreakEncoding = "q"
        var realEncodings = [String](repeating: "f", count: 7)
        var countEncoding = "Q"
        var locationElement: Character = "f"
        var typeElement: Character = "q"
        var directionEncoding: String? = "q"
        var tabLocations: [Double] = []
        var tabTypes: [Int64] = []
        var extras: [TypedStreamGraph.Group] = []
    }

    /// A parsed style: its layout and its values as keyed fields.
    struct Parsed {
        var layout: Layout
        var fields: [String: ArchivedAttributeValue]
    }

    private static let integerLetters: Set<Character> = ["c", "C", "s", "S", "i", "I", "l", "L", "q", "Q"]

    /// `groups` read in the layout of the type's documentation, or `nil` when they are not.
    ///
    /// - Complexity: O(values): counts are checked against the arrays read, not trusted.
    static func parse(_ groups: [TypedStreamGraph.Group], version: Int) -> Parsed? {
        guard versions.contains(version) else { return nil }
        var layout = Layout()
        var fields: [String: ArchivedAttributeValue] = [:]
        var next = 0
        func integer() -> (encoding: String, value: Int)? {
            guard next < groups.count else { return nil }
            let group = groups[next]
            guard group.encoding.count == 1, let letter = group.encoding.first,
                integerLetters.contains(letter),
                group.values.count == 1, let raw = group.values[0].integerValue, let value = Int(exactly: raw)
            else { return nil }
            next += 1
            return (group.encoding, value)
        }
        guard let textAlignment = integer(), let lineBreak = integer() else { return nil }
        layout.alignmentEncoding = textAlignment.encoding
        layout.lineBreakEncoding = lineBreak.encoding
        fields["NSAlignment"] = .integer(textAlignment.value)
        fields["NSLineBreakMode"] = .integer(lineBreak.value)
        for (position, key) in realKeys.enumerated() {
            guard next < groups.count, groups[next].encoding == "f" || groups[next].encoding == "d",
                groups[next].values.count == 1, let real = groups[next].values[0].doubleValue
            else { return nil }
            layout.realEncodings[position] = groups[next].encoding
            fields[key] = .real(real)
            next += 1
        }
        guard let count = integer(), count.value >= 0 else { return nil }
        layout.countEncoding = count.encoding
        var tabs: [ArchivedAttributeValue] = []
        if count.value > 0 {
            guard next + 1 < groups.count,
                let locations = array(groups[next], count: count.value, elements: ["f", "d"]),
                let types = array(groups[next + 1], count: count.value, elements: integerLetters)
            else { return nil }
            layout.locationElement = locations.element
            layout.typeElement = types.element
            for (location, type) in zip(locations.values, types.values) {
                guard let place = location.doubleValue, let kind = type.integerValue else { return nil }
                layout.tabLocations.append(place)
                layout.tabTypes.append(kind)
                tabs.append(
                    ArchivedTextTab(location: place, alignment: alignment(ofTabType: kind)).attributeValue)
            }
            next += 2
        }
        fields["NSTabStops"] = .array(tabs)
        if version >= 2 {
            guard let direction = integer() else { return nil }
            layout.directionEncoding = direction.encoding
            fields["NSWritingDirection"] = .integer(direction.value)
        } else {
            layout.directionEncoding = nil
        }
        let extras = groups[next...]
        guard extras.allSatisfy({ $0.values.allSatisfy(isPlain) }) else { return nil }
        layout.extras = Array(extras)
        return Parsed(layout: layout, fields: fields)
    }

    /// The values of a group `[NT]` whose element letter is one of `elements`.
    private static func array(_ group: TypedStreamGraph.Group, count: Int, elements: Set<Character>)
        -> (element: Character, values: [TypedStreamGraph.Value])?
    {
        let prefix = "[\(count)"
        guard group.encoding.hasPrefix(prefix), group.encoding.hasSuffix("]"),
            group.encoding.count == prefix.count + 2,
            let element = group.encoding.dropFirst(prefix.count).first, elements.contains(element),
            group.values.count == 1, case .array(let values) = group.values[0], values.count == count
        else { return nil }
        return (element, values)
    }

    /// Whether a value holds no object, class or other reference into a stream.
    private static func isPlain(_ value: TypedStreamGraph.Value) -> Bool {
        switch value {
        case .object, .class: return false
        case .array(let values): return values.allSatisfy(isPlain)
        case .structure(_, let fields): return fields.allSatisfy(isPlain)
        default: return true
        }
    }

    /// A tab stop's text alignment for its `NSTextTabType` (a decimal tab aligns right).
    static func alignment(ofTabType type: Int64) -> Int {
        switch type {
        case 1, 3: return 1
        case 2: return 2
        default: return 0
        }
    }

    /// The `NSTextTabType` written for a tab stop of `alignment`.
    static func tabType(ofAlignment alignment: Int) -> Int64 {
        switch alignment {
        case 1: return 1
        case 2: return 2
        default: return 0
        }
    }

    /// The style an object of the graph describes, when its class chain and groups are of
    /// the documented layout.
    static func style(of object: TypedStreamGraph.Object, in graph: TypedStreamGraph)
        -> ArchivedParagraphStyle?
    {
        guard
            object.className == CataloguedClass.paragraphStyle.name
                || object.className == CataloguedClass.mutableParagraphStyle.name
        else {
            return nil
        }
        let chain = graph.classChain(of: object)
        let mutable: Bool
        switch chain.map(\.name) {
        case CataloguedClass.paragraphStyle.chain: mutable = false
        case CataloguedClass.mutableParagraphStyle.chain: mutable = true
        default: return nil
        }
        let version = chain[mutable ? 1 : 0].version
        guard let parsed = parse(object.groups, version: version) else { return nil }
        var style = ArchivedParagraphStyle(isMutable: mutable)
        style.fields = parsed.fields
        style.typedStreamForm = ArchivedParagraphStyle.TypedStreamForm(
            version: version, mutableVersion: mutable ? chain[0].version : 0, groups: object.groups)
        return style
    }

    /// The groups `style` is written as, in the layout of its ``ArchivedParagraphStyle/typedStreamForm``
    /// (or version 3 with 64-bit integers, as 64-bit macOS types them, for a style without one).
    static func groups(of style: ArchivedParagraphStyle) throws -> (
        version: Int, groups: [TypedStreamGraph.Group]
    ) {
        var layout = Layout()
        var version = CataloguedClass.paragraphStyle.typedStreamVersion ?? 3
        if let form = style.typedStreamForm {
            guard let parsed = parse(form.groups, version: form.version) else {
                throw KeyedArchiveError(
                    .invalidValue,
                    "the paragraph style's typedStreamForm (version \(form.version)) is not a layout this archiver writes"
                )
            }
            layout = parsed.layout
            version = form.version
        }
        func integer(_ encoding: String, _ value: Int) -> TypedStreamGraph.Group {
            let signed = encoding.first.map { $0.isLowercase } ?? true
            let number: TypedStreamGraph.Value =
                signed || value < 0 ? .integer(Int64(value)) : .unsignedInteger(UInt64(value))
            return .init(encoding: encoding, values: [number])
        }
        func real(_ encoding: String, _ value: Double) -> TypedStreamGraph.Value {
            encoding == "d" ? .double(value) : .float(Float(value))
        }
        let fields = style.fields
        var groups = [
            integer(layout.alignmentEncoding, fields["NSAlignment"]?.intValue ?? defaultAlignment),
            integer(layout.lineBreakEncoding, fields["NSLineBreakMode"]?.intValue ?? 0),
        ]
        for (position, key) in realKeys.enumerated() {
            let encoding = layout.realEncodings[position]
            groups.append(.init(encoding: encoding, values: [real(encoding, fields[key]?.doubleValue ?? 0)]))
        }
        let tabs = style.tabStops ?? defaultTabStops
        groups.append(integer(layout.countEncoding, tabs.count))
        if !tabs.isEmpty {
            var locations: [TypedStreamGraph.Value] = []
            var types: [TypedStreamGraph.Value] = []
            let element = String(layout.locationElement)
            let signedTypes = layout.typeElement.isLowercase
            for (position, tab) in tabs.enumerated() {
                locations.append(real(element, tab.location))
                // The type as read, unless the tab stop has changed since.
                var type = tabType(ofAlignment: tab.alignment)
                if position < layout.tabTypes.count, layout.tabLocations[position] == tab.location,
                    alignment(ofTabType: layout.tabTypes[position]) == tab.alignment
                {
                    type = layout.tabTypes[position]
                }
                types.append(signedTypes || type < 0 ? .integer(type) : .unsignedInteger(UInt64(type)))
            }
            groups.append(.init(encoding: "[\(tabs.count)\(element)]", values: [.array(locations)]))
            groups.append(.init(encoding: "[\(tabs.count)\(layout.typeElement)]", values: [.array(types)]))
        }
        if let encoding = layout.directionEncoding {
            groups.append(
                integer(encoding, fields["NSWritingDirection"]?.intValue ?? defaultWritingDirection))
        }
        return (version, groups + layout.extras)
    }
}
