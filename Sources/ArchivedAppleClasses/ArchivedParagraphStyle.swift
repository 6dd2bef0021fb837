#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A paragraph style as AppKit's and UIKit's `NSParagraphStyle` (or
/// `NSMutableParagraphStyle`) archives it: alignment, spacing, line heights, indents, tab
/// stops and writing direction.
///
/// ```swift
/// var style = ArchivedParagraphStyle()
/// style.alignment = 2
/// style.lineSpacing = 4
/// let data = try KeyedArchiver.archivedData(withRootObject: style, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedParagraphStyle.self, from: data)
/// print(copy?.lineSpacing ?? 0)   // 4.0
/// ```
///
/// Every stored field is kept in ``fields`` (under Apple's keys, such as `NSAlignment` or
/// `NSTabStops`), including the ones this type has no property for and keys present with
/// nil, and is written back as read; the properties read and write those fields. A
/// property is `nil` when its field is not stored, which means Apple's default.
public struct ArchivedParagraphStyle: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// Whether the style is archived as `NSMutableParagraphStyle`.
    public var isMutable: Bool
    /// Every field of the archived object, by key.
    public var fields: [String: ArchivedAttributeValue]
    /// The typedstream layout the style was read in, which the typedstream module (above
    /// this one) shows as `typedStreamForm`; `nil` for a style from a keyed archive or
    /// made in code.
    package var typedStreamLayout: OpaqueValue? = nil

    /// Creates a style with no fields stored (every property at Apple's default).
    ///
    /// - Parameter isMutable: Whether to archive it as `NSMutableParagraphStyle`.
    public init(isMutable: Bool = false) {
        self.isMutable = isMutable
        self.fields = [:]
    }

    /// `NSParagraphStyle`; a mutable style is written as `NSMutableParagraphStyle`.
    public static var archivedClassName: String { CataloguedClass.paragraphStyle.name }

    /// `NSTextAlignment` as stored (`NSAlignment`). AppKit's numbering: 0 left, 1 right,
    /// 2 centre, 3 justified, 4 natural.
    public var alignment: Int? {
        get { fields["NSAlignment"]?.intValue }
        set { fields["NSAlignment"] = newValue.map(ArchivedAttributeValue.integer) }
    }

    /// `NSLineBreakMode` as stored (`NSLineBreakMode`): 0 word wrapping, 1 character
    /// wrapping, 2 clipping, 3–5 truncating head, tail, middle.
    public var lineBreakMode: Int? {
        get { fields["NSLineBreakMode"]?.intValue }
        set { fields["NSLineBreakMode"] = newValue.map(ArchivedAttributeValue.integer) }
    }

    /// The base writing direction (`NSWritingDirection`): -1 natural, 0 left to right,
    /// 1 right to left.
    public var baseWritingDirection: Int? {
        get { fields["NSWritingDirection"]?.intValue }
        set { fields["NSWritingDirection"] = newValue.map(ArchivedAttributeValue.integer) }
    }

    /// Extra space between lines (`NSLineSpacing`).
    public var lineSpacing: Double? {
        get { real("NSLineSpacing") }
        set { setReal("NSLineSpacing", newValue) }
    }

    /// Space after the paragraph (`NSParagraphSpacing`).
    public var paragraphSpacing: Double? {
        get { real("NSParagraphSpacing") }
        set { setReal("NSParagraphSpacing", newValue) }
    }

    /// Space before the paragraph (`NSParagraphSpacingBefore`).
    public var paragraphSpacingBefore: Double? {
        get { real("NSParagraphSpacingBefore") }
        set { setReal("NSParagraphSpacingBefore", newValue) }
    }

    /// The indent of lines other than the first (`NSHeadIndent`).
    public var headIndent: Double? {
        get { real("NSHeadIndent") }
        set { setReal("NSHeadIndent", newValue) }
    }

    /// The trailing indent (`NSTailIndent`).
    public var tailIndent: Double? {
        get { real("NSTailIndent") }
        set { setReal("NSTailIndent", newValue) }
    }

    /// The indent of the first line (`NSFirstLineHeadIndent`).
    public var firstLineHeadIndent: Double? {
        get { real("NSFirstLineHeadIndent") }
        set { setReal("NSFirstLineHeadIndent", newValue) }
    }

    /// The minimum line height (`NSMinLineHeight`).
    public var minimumLineHeight: Double? {
        get { real("NSMinLineHeight") }
        set { setReal("NSMinLineHeight", newValue) }
    }

    /// The maximum line height (`NSMaxLineHeight`); 0 means none.
    public var maximumLineHeight: Double? {
        get { real("NSMaxLineHeight") }
        set { setReal("NSMaxLineHeight", newValue) }
    }

    /// The line height multiple (`NSLineHeightMultiple`).
    public var lineHeightMultiple: Double? {
        get { real("NSLineHeightMultiple") }
        set { setReal("NSLineHeightMultiple", newValue) }
    }

    /// The interval of default tab stops (`NSDefaultTabInterval`).
    public var defaultTabInterval: Double? {
        get { real("NSDefaultTabInterval") }
        set { setReal("NSDefaultTabInterval", newValue) }
    }

    /// The tab stops (`NSTabStops`, an array of `NSTextTab`), or `nil` when none are stored
    /// (Apple's default: 12 left tab stops 28 points apart). Setting it stores each tab stop
    /// as an `NSTextTab` with `NSLocation` and, when not 0, `NSAlignment`.
    public var tabStops: [ArchivedTextTab]? {
        get {
            guard case .array(let values)? = fields["NSTabStops"] else { return nil }
            return values.compactMap(ArchivedTextTab.init)
        }
        set { fields["NSTabStops"] = newValue.map { .array($0.map(\.attributeValue)) } }
    }

    private func real(_ key: String) -> Double? {
        fields[key]?.doubleValue
    }

    private mutating func setReal(_ key: String, _ value: Double?) {
        fields[key] = value.map(ArchivedAttributeValue.real)
    }

    /// `NSParagraphStyle { NSAlignment = 4; NSLineBreakMode = 2 }`, fields in key order.
    public var description: String {
        let name =
            isMutable ? CataloguedClass.mutableParagraphStyle.name : CataloguedClass.paragraphStyle.name
        let body = fields.keys.sorted().compactMap { key in fields[key].map { "\(key) = \($0)" } }
        return body.isEmpty ? name : "\(name) { \(body.joined(separator: "; ")) }"
    }

    /// Writes every field.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encodeOtherFields(fields)
    }

    /// Reads an `NSParagraphStyle` or `NSMutableParagraphStyle`, keeping every field.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` when a field cannot be read.
    public init(coder: KeyedUnarchiver) throws {
        isMutable = coder.currentClassName == CataloguedClass.mutableParagraphStyle.name
        fields = try coder.otherFields(excluding: [])
    }
}

extension ArchivedParagraphStyle: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .paragraphStyle) }
    package var archivedClassChain: [String] {
        isMutable ? CataloguedClass.mutableParagraphStyle.chain : CataloguedClass.paragraphStyle.chain
    }
}

/// A tab stop of a paragraph style (`NSTextTab`): its location and alignment.
public struct ArchivedTextTab: Hashable, Sendable {
    /// The location in points (`NSLocation`).
    public var location: Double
    /// `NSTextAlignment` as stored (`NSAlignment`), 0 when not stored.
    public var alignment: Int

    /// Creates a tab stop.
    ///
    /// - Parameters:
    ///   - location: The location in points.
    ///   - alignment: The alignment.
    public init(location: Double, alignment: Int = 0) {
        self.location = location
        self.alignment = alignment
    }

    /// The tab stop as an `NSTextTab` object kept as a graph, as the keyed reader keeps it:
    /// `NSLocation` and, when not 0, `NSAlignment`.
    package var attributeValue: ArchivedAttributeValue {
        var fields = [ArchivedObjectGraph.Field(key: "NSLocation", value: .real(location))]
        if alignment != 0 {
            fields.append(.init(key: "NSAlignment", value: .integer(PropertyListInteger(Int64(alignment)))))
        }
        let tab = ArchivedObjectGraph.Object(
            className: CataloguedClass.textTab.name, classChain: CataloguedClass.textTab.chain,
            fields: fields)
        return .object(
            ArchivedObjectGraph(
                nodes: [.null, .object(tab)], topLevel: [], root: .reference(1), referenceCounts: [0, 1],
                cyclic: [false, false]))
    }

    /// The tab stop an `NSTextTab` object kept as a graph describes, if it is one.
    init?(_ value: ArchivedAttributeValue) {
        guard case .object(let graph) = value, case .reference(let uid)? = graph.root,
            let object = graph.object(at: uid), object.className == CataloguedClass.textTab.name
        else { return nil }
        func number(_ value: ArchivedObjectGraph.Value?) -> Double? {
            switch value {
            case .real(let real)?: return real
            case .integer(let integer)?: return integer.intValue.map(Double.init)
            default: return nil
            }
        }
        location = number(object["NSLocation"]) ?? 0
        alignment = number(object["NSAlignment"]).flatMap { Int(exactly: $0) } ?? 0
    }
}
