#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value found in one of Apple's objects that KeyedArchive reads as a typed value: an
/// attribute of an ``ArchivedAttributedString``, or a field of an ``ArchivedFont``,
/// ``ArchivedColor`` or ``ArchivedParagraphStyle`` that has no property of its own.
///
/// Strings, numbers, data, dates, URLs, fonts, colours and paragraph styles are typed;
/// any other object is kept as the ``ArchivedObjectGraph`` rooted at it (read without
/// running any type's `init(coder:)`, so keeping it is safe with secure coding on), and
/// is written back as it was.
///
/// Only the cases with large payloads are stored indirectly (in a box of their own);
/// strings, numbers, data, dates, URLs and arrays are stored inline, so that reading
/// one allocates nothing for the value itself.
public enum ArchivedAttributeValue: Hashable, Sendable, CustomStringConvertible {
    /// An explicit nil (a key that is present and refers to `$null`).
    case null
    /// A string (`NSString`, `NSMutableString`).
    case string(String)
    /// An integer (`NSNumber`).
    case integer(Int)
    /// A real number (`NSNumber`).
    case real(Double)
    /// A Boolean (`NSNumber`).
    case bool(Bool)
    /// Bytes (`NSData`, `NSMutableData`).
    case data(Data)
    /// A date (`NSDate`).
    case date(Date)
    /// A URL (`NSURL`), such as the value of a link attribute.
    case url(URL)
    /// A font (`NSFont`, `UIFont`).
    indirect case font(ArchivedFont)
    /// A colour (`NSColor`, `UIColor`).
    indirect case color(ArchivedColor)
    /// A paragraph style (`NSParagraphStyle`, `NSMutableParagraphStyle`).
    indirect case paragraphStyle(ArchivedParagraphStyle)
    /// An array (`NSArray`, `NSMutableArray`) of values.
    case array([ArchivedAttributeValue])
    /// Any other object, as the graph of its archive rooted at it.
    indirect case object(ArchivedObjectGraph)

    /// A short rendering: quoted strings, numbers, `Helvetica 12 pt`, `sRGB 1 0 0 1`, …
    public var description: String {
        switch self {
        case .null: return "nil"
        case .string(let text): return DisplayText.quoted(text)
        case .integer(let value): return String(value)
        case .real(let value): return RealText.string(value)
        case .bool(let value): return value ? "true" : "false"
        case .data(let bytes): return "<\(bytes.count) bytes>"
        case .date(let date): return ISO8601Date.format(date.timeIntervalSinceReferenceDate)
        case .url(let url): return DisplayText.quoted(url.absoluteString)
        case .font(let font): return font.description
        case .color(let color): return color.description
        case .paragraphStyle(let style): return style.description
        case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let graph):
            if case .reference(let uid)? = graph.root, let object = graph.object(at: uid) {
                return "<\(object.className)>"
            }
            return "<object>"
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number as a `Double`, if this is an integer, a real or a Boolean.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        case .bool(let value): return value ? 1 : 0
        default: return nil
        }
    }

    /// The number as an `Int`, if this is an integer, a Boolean or a whole real.
    public var intValue: Int? {
        switch self {
        case .integer(let value): return value
        case .bool(let value): return value ? 1 : 0
        case .real(let value): return Int(exactly: value)
        default: return nil
        }
    }
}

// MARK: - Reading

extension KeyedUnarchiver {
    /// Every field of the current object whose key is not in `known`, as attribute values
    /// (keys unescaped), for the types that keep what they do not model.
    func otherFields(excluding known: Set<String>) throws -> [String: ArchivedAttributeValue] {
        var result: [String: ArchivedAttributeValue] = [:]
        for (key, value) in try currentDictionary() where key != "$class" {
            let unescaped = archiveUnescapedKey(key)
            guard !known.contains(unescaped) else { continue }
            enterPath(.key(unescaped))
            defer { leavePath() }
            result[unescaped] = try attributeValue(value)
        }
        return result
    }

    /// The field `key` of the current object as an attribute value, or `nil` when missing.
    func decodeAttributeValue(forKey key: String) throws -> ArchivedAttributeValue? {
        try perform(.key(key)) {
            guard let value = try fieldValue(forKey: archiveEscapedKey(key)) else { return nil }
            return try attributeValue(value)
        }
    }

    /// A field value (inline or a reference) as an attribute value.
    func attributeValue(_ value: PropertyList) throws -> ArchivedAttributeValue {
        switch value {
        case .uid: return try attributeValue(referencedBy: referenceIndex(value))
        case .string(let text): return .string(text)
        case .integer(let integer):
            guard let small = integer.intValue else {
                throw failure(.valueOutOfRange, "integer \(integer) does not fit in Int")
            }
            return .integer(small)
        case .real(let number): return .real(number)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes): return .data(bytes)
        case .date(let date): return .date(date)
        case .array(let elements):
            var values: [ArchivedAttributeValue] = []
            values.reserveCapacity(elements.count)
            for (position, element) in elements.enumerated() {
                enterPath(.index(position))
                defer { leavePath() }
                guard case .uid = element else {
                    throw failure(
                        .typeMismatch, "expected an object reference, found \(element.archivedKindName)")
                }
                values.append(try attributeValue(element))
            }
            return .array(values)
        case .dictionary:
            throw failure(.typeMismatch, "expected an object, found \(value.archivedKindName)")
        }
    }

    /// `$objects[uid]` as an attribute value: typed when the catalogue knows its class,
    /// else kept as the graph rooted at it.
    func attributeValue(referencedBy uid: Int) throws -> ArchivedAttributeValue {
        guard uid != 0 else { return .null }
        let fields: ArchiveFields
        switch try entry(at: uid) {
        case .plain(let value): return try attributeValue(value)
        case .object(let objectFields): fields = objectFields
        }
        if let known = try cataloguedClass(of: fields, uid: uid) {
            switch known.kind {
            case .font: return .font(try decodeEntry(uid, as: ArchivedFont.self))
            case .color: return .color(try decodeEntry(uid, as: ArchivedColor.self))
            case .paragraphStyle:
                return .paragraphStyle(try decodeEntry(uid, as: ArchivedParagraphStyle.self))
            case .string: return .string(try decodeEntry(uid, as: String.self))
            case .data: return .data(try decodeEntry(uid, as: Data.self))
            case .date: return .date(try decodeEntry(uid, as: Date.self))
            case .url: return .url(try decodeEntry(uid, as: URL.self))
            case .array: return .array(try decodeEntry(uid, as: ArchivedAttributeArray.self).values)
            default: break
            }
        }
        return .object(try genericObject(at: uid))
    }
}

/// An `NSArray` of attribute values, read element by element.
struct ArchivedAttributeArray: ArchiveStandardType {
    var values: [ArchivedAttributeValue]

    static var archivedClassName: String { CataloguedClass.array.name }
    static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .array) }

    init(values: [ArchivedAttributeValue]) {
        self.values = values
    }

    func encode(with coder: KeyedArchiver) {
        coder.encodeAttributeReferences(values, forKey: "NS.objects")
    }

    init(coder: KeyedUnarchiver) throws {
        var values: [ArchivedAttributeValue] = []
        for (position, uid) in try coder.elementIndices().enumerated() {
            coder.enterPath(.index(position))
            defer { coder.leavePath() }
            values.append(try coder.attributeValue(referencedBy: uid))
        }
        self.values = values
    }
}

// MARK: - Writing

extension KeyedArchiver {
    /// Writes `value` under `key`: numbers inline, as Apple's `encodeInteger`/`encodeDouble`
    /// store them, everything else as a reference.
    func encodeAttributeField(_ value: ArchivedAttributeValue, forKey key: String) {
        guard canEncode() else { return }
        let object: Int
        switch value {
        case .integer(let number): object = table.builder.addInteger(PropertyListInteger(Int64(number)))
        case .real(let number): object = table.builder.addReal(number)
        case .bool(let flag): object = table.builder.addBool(flag)
        case .array(let values):
            var uids: [Int] = []
            uids.reserveCapacity(values.count)
            for (position, element) in values.enumerated() {
                uids.append(attributeReference(element, at: .index(position)))
            }
            object = table.referenceArray(uids)
        default:
            object = table.builder.addUID(UInt64(attributeReference(value, at: .key(key))))
        }
        // Keys as read (unescaped): unkeyed `$0`, `$1`, … stay as they are.
        appendField(table.keyObject(graphEscapedKey(key)), object)
    }

    /// Writes `values` as an inline array of references (`NS.objects`).
    func encodeAttributeReferences(_ values: [ArchivedAttributeValue], forKey key: String) {
        guard canEncode() else { return }
        var uids: [Int] = []
        uids.reserveCapacity(values.count)
        for (position, value) in values.enumerated() {
            uids.append(attributeReference(value, at: .index(position)))
        }
        append(key: key, value: table.referenceArray(uids))
    }

    /// Stores `value` as an object (numbers and strings as plain values) and returns its index.
    func attributeReference(_ value: ArchivedAttributeValue, at component: ArchiveKeyPathComponent) -> Int {
        switch value {
        case .null: return 0
        case .string(let text): return reference(for: text, at: component)
        case .integer(let number): return reference(for: number, at: component)
        case .real(let number): return reference(for: number, at: component)
        case .bool(let flag): return reference(for: flag, at: component)
        case .data(let bytes): return reference(for: bytes, at: component)
        case .date(let date): return reference(for: date, at: component)
        case .url(let url): return reference(for: url, at: component)
        case .font(let font): return reference(for: font, at: component)
        case .color(let color): return reference(for: color, at: component)
        case .paragraphStyle(let style): return reference(for: style, at: component)
        case .array(let values): return reference(for: ArchivedAttributeArray(values: values), at: component)
        case .object(let graph):
            guard case .reference(let uid)? = graph.root else { return 0 }
            return graphReference(graph, uid: uid, at: component)
        }
    }

    /// Writes `fields` (in key order, for output that does not depend on hashing).
    func encodeOtherFields(_ fields: [String: ArchivedAttributeValue]) {
        for key in fields.keys.sorted() {
            if let value = fields[key] { encodeAttributeField(value, forKey: key) }
        }
    }
}

extension ArchivedAttributeValue {
    /// `values` as an `NSArray` object of its own, as Apple stores an array under a key
    /// (`NSTabStops`): ``array(_:)`` is written as an inline array of references, the form
    /// it was read in when an archive held one.
    ///
    /// - Parameter values: The elements.
    /// - Returns: The array as the generic graph of one `NSArray` object.
    /// - Throws: ``KeyedArchiveError`` when an element cannot be archived.
    package static func arrayObject(_ values: [ArchivedAttributeValue]) throws -> ArchivedAttributeValue {
        let archiver = KeyedArchiver(requiringSecureCoding: false)
        archiver.encode(ArchivedAttributeArray(values: values), forKey: KeyedArchiver.rootObjectKey)
        archiver.finishEncoding()
        return .object(try KeyedUnarchiver.objectGraph(from: try archiver.finishedData()))
    }
}
