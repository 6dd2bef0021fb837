#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Conversion between the two archive formats: a typedstream (`NSArchiver`) to the
/// equivalent keyed archive (`NSKeyedArchiver`), and back.
///
/// Each object is converted to what Apple's own archiver writes for its class, never to
/// generic fields: an `NSString` becomes a string in `$objects` (an `NSMutableString` an
/// object with `NS.string`), collections `NS.objects` (and `NS.keys`), an `NSColor`
/// `NSColorSpace` with `NSRGB`, `NSWhite` or `NSCYMK`, an `NSFont` `NSName`, `NSSize` and
/// `NSfFlags`, an attributed string `NSString`, `NSAttributes` and `NSAttributeInfo`, an
/// `NSValue` `NS.special` with its `NS.rectval`, `NS.rangeval.location`, …
///
/// ```swift
/// let legacy = try Data(contentsOf: URL(fileURLWithPath: "colour.typedstream"))
/// let keyed = try TypedStreamConversion.keyedArchiveData(fromTypedStream: legacy)
/// let back = try TypedStreamConversion.typedStreamData(fromKeyedArchive: keyed)
/// _ = back
/// ```
///
/// | typedstream class | keyed archive |
/// |---|---|
/// | `NSString`, `NSNumber`, `NSData`, `NSDate` | a plain string, number, data; `NSDate` with `NS.time` |
/// | `NSMutableString`, `NSMutableData` | `NS.string`, `NS.data` |
/// | `NSURL` | `NS.base`, `NS.relative` |
/// | `NSArray`, `NSSet`, `NSDictionary` and their mutable variants | `NS.objects` (`NS.keys`), the class kept |
/// | `NSNull` | `NSNull` |
/// | `NSValue` of a point, size, rectangle, range or edge insets | `NS.special` and the value (`NS.pointval`, …) |
/// | `NSAttributedString`, `NSMutableAttributedString` | `NSString`, `NSAttributes` (the attribute dictionaries) and `NSAttributeInfo` (the runs), the form Foundation on every platform reads |
/// | `NSColor` (RGB, white, CMYK, named) | ``ArchivedColor``'s keyed form |
/// | `NSFont` | `NSName`, `NSSize`, `NSfFlags` 16 (what AppKit writes for a font without a role; the typedstream's flag bytes have no keyed counterpart) |
/// | `NSParagraphStyle` | ``ArchivedParagraphStyle``'s fields as AppKit writes them: `NSAlignment`, `NSTabStops` (nil for the default stops), and the others where they are not the default |
///
/// An object shared in the stream is one object of the keyed archive. Any other class (an
/// application's own, a colour or paragraph style of a layout that is not read) has no
/// keyed form: the conversion fails with `classNotFound`, naming the class, the object's
/// number in the stream and where it is (`root[0][3]`). So does a stream whose top level
/// holds more than the one root object a keyed archive has.
///
/// The reverse, ``typedStreamData(fromKeyedArchive:options:)``, writes what
/// ``TypedStreamArchiver`` writes: the same classes, without the mutable variants (an
/// `NSMutableArray` becomes an `NSArray`, as `NSArchiver` writes what `classForArchiver`
/// says), and fails, naming the class and the key path, on any other.
public enum TypedStreamConversion {
    /// The typedstream `data` as the equivalent keyed archive, in Apple's keyed layout of
    /// each class (see the type's overview).
    ///
    /// - Parameters:
    ///   - data: A typedstream (`streamtyped` or `typedstream` header).
    ///   - format: The property-list format of the archive; binary by default, as
    ///     `NSKeyedArchiver` writes.
    ///   - options: Limits for reading the stream.
    /// - Returns: The keyed archive.
    /// - Throws: ``KeyedArchiveError``: what reading the stream throws, or `classNotFound`
    ///   (naming the class and where) for an object with no keyed form, `invalidArchive` for
    ///   a stream whose top level is not one object.
    public static func keyedArchiveData(
        fromTypedStream data: Data, format: PropertyListFormat = .binary,
        options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    ) throws -> Data {
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data, options: options)
        let converter = TypedStreamToKeyedConverter(unarchiver: unarchiver)
        let root = try converter.root()
        let archiver = KeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = format
        archiver.encode(root, forKey: KeyedArchiver.rootObjectKey)
        archiver.finishEncoding()
        return try archiver.finishedData()
    }

    /// The keyed archive `data` as a typedstream, as ``TypedStreamArchiver`` writes its
    /// classes (see the type's overview).
    ///
    /// - Parameters:
    ///   - data: A keyed archive (binary or XML property list).
    ///   - options: Limits for reading the archive.
    /// - Returns: The typedstream.
    /// - Throws: ``KeyedArchiveError``: what reading the archive throws, `classNotFound`
    ///   (naming the class and the key path) for an object the typedstream archiver does not
    ///   write, `unresolvableCycle` for a collection that contains itself.
    public static func typedStreamData(
        fromKeyedArchive data: Data, options: KeyedUnarchivingOptions = KeyedUnarchivingOptions()
    ) throws -> Data {
        let root = try KeyedToTypedStreamConverter.rootValue(fromKeyedArchive: data, options: options)
        return try TypedStreamArchiver.archivedData(withRootObject: root)
    }
}

// MARK: - Typedstream to keyed archive

/// Converts the objects of a typedstream, each once, into values the keyed archiver writes
/// in Apple's layouts.
final class TypedStreamToKeyedConverter {
    let unarchiver: TypedStreamUnarchiver
    var graph: TypedStreamGraph { unarchiver.objectGraph }
    /// Each object converted, by node index: a shared object is converted once, and a
    /// collection (a class instance) is archived once however often it is referred to.
    private var converted: [Int: any KeyedCoding] = [:]
    /// Objects being converted that are not collections (a cycle through them is an error).
    private var inProgress: Set<Int> = []
    private var depth = 0

    init(unarchiver: TypedStreamUnarchiver) {
        self.unarchiver = unarchiver
    }

    /// The stream's one root object.
    func root() throws -> (any KeyedCoding)? {
        let contents = graph.contents
        let count = contents.reduce(0) { $0 + $1.values.count }
        guard count == 1, let only = contents.first?.values.first else {
            throw KeyedArchiveError(
                .invalidArchive,
                "the typedstream holds \(count) top-level values (\(contents.map(\.encoding).joined(separator: " "))); "
                    + "a keyed archive holds one root object",
                at: .keyPath("root"))
        }
        return try value(only, path: "root")
    }

    /// A value of the stream: `nil` for nil, an object converted; anything else has no keyed form.
    func value(_ value: TypedStreamGraph.Value, path: String) throws -> (any KeyedCoding)? {
        switch value {
        case .null: return nil
        case .object(let index): return try object(index, path: path)
        default:
            throw KeyedArchiveError(
                .classNotFound, "a value \(value) outside any object has no keyed form", at: .keyPath(path))
        }
    }

    private func refusal(_ message: String, _ index: Int, _ path: String) -> KeyedArchiveError {
        let className = graph.object(at: index)?.className ?? "?"
        return KeyedArchiveError(
            .classNotFound, "object #\(index) (\(className)): \(message)", at: .keyPath(path))
    }

    private func object(_ index: Int, path: String) throws -> any KeyedCoding {
        if let done = converted[index] { return done }
        guard let object = graph.object(at: index) else {
            throw KeyedArchiveError(
                .invalidArchive, "reference #\(index) is not an object", at: .keyPath(path))
        }
        guard !inProgress.contains(index) else {
            throw KeyedArchiveError(
                .unresolvableCycle, "object #\(index) (\(object.className)) contains itself",
                at: .keyPath(path))
        }
        guard depth < unarchiver.options.maximumDepth else {
            throw KeyedArchiveError(
                .limitExceeded,
                "objects are nested deeper than the limit of \(unarchiver.options.maximumDepth)",
                at: .keyPath(path))
        }
        if depth > StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
            throw KeyedArchiveError(.limitExceeded, StackHeadroom.message(depth: depth), at: .keyPath(path))
        }
        let chain = graph.classChain(ofClassAt: object.classIndex)
        guard
            let catalogued = chain.lazy.compactMap({
                CataloguedClass(name: $0.name).flatMap { $0.typedStreamVersion == nil ? nil : $0 }
            }).first
        else {
            let names = chain.map(\.name).joined(separator: " < ")
            throw refusal("class \(names) has no keyed form", index, path)
        }
        depth += 1
        defer { depth -= 1 }
        switch catalogued.kind {
        case .array, .set, .dictionary:
            let collection = KeyedConversionCollection(catalogued)
            converted[index] = collection
            try fill(collection, from: object, index: index, path: path)
            return collection
        default:
            inProgress.insert(index)
            defer { inProgress.remove(index) }
            let result = try leaf(catalogued, index: index, path: path)
            converted[index] = result
            return result
        }
    }

    /// The members of a collection: `NSArray` and `NSSet` a count and that many objects,
    /// `NSDictionary` a count and that many key–value pairs.
    private func fill(
        _ collection: KeyedConversionCollection, from object: TypedStreamGraph.Object, index: Int,
        path: String
    ) throws {
        let values = object.values
        let isDictionary = collection.kind == .dictionary
        guard let first = values.first, let count = first.integerValue,
            count >= 0, Int64(values.count - 1) == (isDictionary ? 2 * count : count)
        else {
            throw refusal("not a count and that many members", index, path)
        }
        let members = values.dropFirst()
        if isDictionary {
            var iterator = members.makeIterator()
            var position = 0
            while let key = iterator.next(), let member = iterator.next() {
                let keyPath = "\(path).key[\(position)]"
                guard let convertedKey = try value(key, path: keyPath) else {
                    throw KeyedArchiveError(.invalidArchive, "a dictionary key is nil", at: .keyPath(keyPath))
                }
                let label = (convertedKey as? String).map { DisplayText.quoted($0, maximumScalars: 40) }
                collection.keys.append(convertedKey)
                collection.objects.append(try value(member, path: "\(path)[\(label ?? String(position))]"))
                position += 1
            }
        } else {
            for (position, member) in members.enumerated() {
                collection.objects.append(try value(member, path: "\(path)[\(position)]"))
            }
        }
    }

    /// An object that holds no other objects of the stream (or only ones read with it:
    /// an attributed string's text and attributes, a named colour's fallback).
    private func leaf(_ catalogued: CataloguedClass, index: Int, path: String) throws -> any KeyedCoding {
        let decoded = try unarchiver.value(of: .object(index))
        switch (catalogued.kind, decoded) {
        case (.string, let text as String):
            return catalogued.isMutable ? ArchivedMutableString(string: text) : text
        case (.data, let bytes as Data):
            return catalogued.isMutable ? ArchivedMutableData(bytes: bytes) : bytes
        case (.date, let date as Date): return date
        case (.url, let url as URL): return url
        case (.null, let null as ArchivedNull): return null
        case (.number, _), (.value, _):
            if let number = decoded as? any KeyedCoding, !(decoded is TypedStreamGraph) { return number }
            let encoding = graph.object(at: index)?.groups.first?.values.first.map(\.description) ?? "?"
            throw refusal("an \(catalogued.name) of type \(encoding) has no keyed form", index, path)
        case (.attributedString, let string as ArchivedAttributedString):
            return try keyedAttributedString(string, path: path)
        case (.color, let color as ArchivedColor): return color
        case (.font, var font as ArchivedFont):
            if font.flags == nil { font.flags = Self.plainFontFlags }
            return font
        case (.paragraphStyle, let style as ArchivedParagraphStyle): return try Self.keyedStyle(style)
        default:
            throw refusal("an \(catalogued.name) of a layout that is not read has no keyed form", index, path)
        }
    }

    /// A paragraph style as AppKit archives one: `NSAlignment` always, `NSTabStops` nil
    /// for the default tab stops (12 left ones 28 points apart) or an `NSArray` of
    /// `NSTextTab`s, and the other fields only where they differ from their defaults (a
    /// typedstream stores every field).
    static func keyedStyle(_ style: ArchivedParagraphStyle) throws -> ArchivedParagraphStyle {
        var result = style
        result.typedStreamForm = nil
        for (key, value) in style.fields {
            switch (key, value) {
            case ("NSLineBreakMode", .integer(0)), ("NSWritingDirection", .integer(-1)):
                result.fields[key] = nil
            case (_, .real(0)) where TypedStreamParagraphStyle.realKeys.contains(key):
                result.fields[key] = nil
            default: break
            }
        }
        if result.tabStops == TypedStreamParagraphStyle.defaultTabStops {
            result.fields["NSTabStops"] = .null
        } else if case .array(let tabs)? = result.fields["NSTabStops"] {
            result.fields["NSTabStops"] = try .arrayObject(tabs)
        }
        return result
    }

    /// `NSfFlags` of a font without a role, as AppKit archives `[NSFont fontWithName:size:]`.
    static let plainFontFlags = 16

    /// An attributed string in Apple's run-length form (`NSAttributes` and `NSAttributeInfo`),
    /// which every reader reads (swift-corelibs-foundation's reads no other); attribute
    /// values without a typed form (a dictionary, a set) converted in their own keyed layout.
    private func keyedAttributedString(_ string: ArchivedAttributedString, path: String) throws
        -> ArchivedAttributedString
    {
        var result = string
        for (position, run) in string.runs.enumerated() {
            for (name, attribute) in run.attributes {
                let attributePath =
                    "\(path).runs[\(position)][\(DisplayText.quoted(name, maximumScalars: 40))]"
                result.runs[position].attributes[name] = try keyedAttribute(attribute, path: attributePath)
            }
        }
        return result
    }

    private func keyedAttribute(_ attribute: ArchivedAttributeValue, path: String) throws
        -> ArchivedAttributeValue
    {
        switch attribute {
        case .array(let values):
            return .array(try values.enumerated().map { try keyedAttribute($1, path: "\(path)[\($0)]") })
        case .object(let bridged):
            // The stream's bridge graph numbers node n of the stream n + 1.
            guard case .reference(let uid)? = bridged.root, uid >= 1 else {
                throw KeyedArchiveError(
                    .classNotFound,
                    "an attribute value \(bridged.root?.description ?? "nil") has no keyed form",
                    at: .keyPath(path))
            }
            guard let converted = try value(.object(uid - 1), path: path) else { return .null }
            // Written on its own, then read back as the keyed reader's graph, which the
            // attributed string writes field by field.
            let archiver = KeyedArchiver(requiringSecureCoding: false)
            archiver.encode(converted, forKey: KeyedArchiver.rootObjectKey)
            archiver.finishEncoding()
            return .object(try KeyedUnarchiver.objectGraph(from: try archiver.finishedData()))
        case .font(var font):
            if font.flags == nil { font.flags = Self.plainFontFlags }
            return .font(font)
        case .paragraphStyle(let style):
            return .paragraphStyle(try Self.keyedStyle(style))
        default:
            return attribute
        }
    }
}

/// An `NSArray`, `NSSet` or `NSDictionary` (or mutable variant) of converted objects: a class,
/// so that a collection shared in the stream is one object of the archive, and one that
/// contains itself refers back to itself.
final class KeyedConversionCollection: SecureKeyedCoding, ArchiveDynamicClass {
    let kind: ClassCatalogue.Kind
    let archivedClassChain: [String]
    var keys: [any KeyedCoding] = []
    var objects: [(any KeyedCoding)?] = []

    init(_ catalogued: CataloguedClass) {
        kind = catalogued.kind
        archivedClassChain = catalogued.chain
    }

    static var archivedClassName: String { CataloguedClass.array.name }

    func encode(with coder: KeyedArchiver) {
        if kind == .dictionary {
            coder.encodeConvertedReferences(keys, forKey: "NS.keys")
        }
        coder.encodeConvertedReferences(objects, forKey: "NS.objects")
    }

    init(coder: KeyedUnarchiver) throws {
        throw KeyedArchiveError(.invalidArchive, "converted collections are written, not read")
    }
}

extension KeyedArchiver {
    /// Writes objects of any types as an inline array of references (nil as `$null`).
    fileprivate func encodeConvertedReferences(_ objects: [(any KeyedCoding)?], forKey key: String) {
        guard canEncode() else { return }
        var uids: [Int] = []
        uids.reserveCapacity(objects.count)
        for (position, object) in objects.enumerated() {
            uids.append(object.map { reference(for: $0, at: .index(position)) } ?? 0)
        }
        append(key: key, value: table.referenceArray(uids))
    }
}

// MARK: - Keyed archive to typedstream

/// Converts the objects of a keyed archive into the Swift values ``TypedStreamArchiver``
/// writes: collections walked here, other objects decoded by their class's type.
struct KeyedToTypedStreamConverter {
    let graph: ArchivedObjectGraph
    let unarchiver: KeyedUnarchiver
    private var inProgress: Set<Int> = []
    /// How many objects deep the walk is, bounded by the unarchiver's `maximumDepth`.
    private var depth = 0

    init(graph: ArchivedObjectGraph, unarchiver: KeyedUnarchiver) {
        self.graph = graph
        self.unarchiver = unarchiver
    }

    /// The root of the keyed archive `data` as the values ``TypedStreamArchiver`` writes.
    static func rootValue(fromKeyedArchive data: Data, options: KeyedUnarchivingOptions) throws -> Any? {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
        unarchiver.requiresSecureCoding = false
        let graph = try unarchiver.objectGraph()
        var converter = KeyedToTypedStreamConverter(graph: graph, unarchiver: unarchiver)
        return try converter.value(graph.root ?? .null, path: "root")
    }

    /// The object a graph of the keyed reader is rooted at (an attribute value without a
    /// typed form), as the values ``TypedStreamArchiver`` writes.
    static func value(rootedAt graph: ArchivedObjectGraph) throws -> Any? {
        guard case .reference(let uid)? = graph.root,
            case .dictionary(var archive) = graph.archivePropertyList()
        else { return nil }
        // The graph holds the whole archive it was read from: its root is the object asked for.
        archive["$top"] = .dictionary(["root": .uid(UInt64(uid))])
        return try rootValue(
            fromKeyedArchive: try PropertyList.dictionary(archive).data(format: .binary),
            options: KeyedUnarchivingOptions())
    }

    mutating func value(_ value: ArchivedObjectGraph.Value, path: String) throws -> Any? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        case .integer(let number):
            if let small = number.intValue { return small }
            if let large = number.uint64Value { return large }
            throw KeyedArchiveError(
                .valueOutOfRange, "integer \(number) does not fit in 64 bits", at: .keyPath(path))
        case .real(let number): return number
        case .bool(let flag): return flag
        case .data(let bytes): return bytes
        case .date(let date): return date
        case .array(let elements):
            var result: [Any] = []
            for (position, element) in elements.enumerated() {
                guard let converted = try self.value(element, path: "\(path)[\(position)]") else {
                    throw KeyedArchiveError(.invalidArchive, "an array element is nil", at: .keyPath(path))
                }
                result.append(converted)
            }
            return result
        case .dictionary:
            throw KeyedArchiveError(
                .classNotFound, "a dictionary without $class has no typedstream form", at: .keyPath(path))
        case .reference(let uid):
            return try reference(uid, path: path)
        }
    }

    private mutating func reference(_ uid: Int, path: String) throws -> Any? {
        switch graph[uid] {
        case .null?, nil: return nil
        case .value(let plain)?: return try value(plain, path: path)
        case .classDescription?:
            throw KeyedArchiveError(
                .invalidArchive, "$objects[\(uid)] is a class, not an object", at: .keyPath(path))
        case .object(let object)?:
            guard !inProgress.contains(uid) else {
                throw KeyedArchiveError(
                    .unresolvableCycle,
                    "$objects[\(uid)] (\(object.className)) contains itself; "
                        + "a typedstream is written from values", at: .keyPath(path))
            }
            let limit = unarchiver.options.maximumDepth
            guard depth < limit else {
                throw KeyedArchiveError(
                    .limitExceeded, "objects are nested deeper than the limit of \(limit)", at: .keyPath(path)
                )
            }
            if depth > StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
                throw KeyedArchiveError(
                    .limitExceeded, StackHeadroom.message(depth: depth), at: .keyPath(path))
            }
            inProgress.insert(uid)
            depth += 1
            defer {
                inProgress.remove(uid)
                depth -= 1
            }
            return try objectValue(object, uid: uid, path: path)
        }
    }

    private mutating func objectValue(_ object: ArchivedObjectGraph.Object, uid: Int, path: String) throws
        -> Any
    {
        let chain = object.classChain.isEmpty ? [object.className] : object.classChain
        guard let catalogued = chain.lazy.compactMap(CataloguedClass.init(name:)).first else {
            throw KeyedArchiveError(
                .classNotFound,
                "$objects[\(uid)] of class \(DisplayText.quoted(object.className)) has no typedstream form",
                at: .keyPath(path))
        }
        func members(_ key: String) throws -> [Any] {
            guard let field = object[key] else { return [] }
            guard case .array(let elements) = field else {
                throw KeyedArchiveError(
                    .invalidArchive, "\(key) of the \(object.className) is not an array", at: .keyPath(path))
            }
            var result: [Any] = []
            for (position, element) in elements.enumerated() {
                let memberPath = "\(path).\(key)[\(position)]"
                guard let converted = try value(element, path: memberPath) else {
                    throw KeyedArchiveError(.invalidArchive, "a member is nil", at: .keyPath(memberPath))
                }
                result.append(converted)
            }
            return result
        }
        do {
            switch catalogued.kind {
            case .array: return try members("NS.objects")
            case .set:
                var set = Set<AnyHashable>()
                for member in try members("NS.objects") {
                    guard let hashable = member as? AnyHashable else {
                        throw KeyedArchiveError(
                            .typeMismatch,
                            "a set member of type \(type(of: member)) cannot be a Swift set member",
                            at: .keyPath(path))
                    }
                    set.insert(hashable)
                }
                return set
            case .dictionary:
                let keys = try members("NS.keys")
                let values = try members("NS.objects")
                guard keys.count == values.count else {
                    throw KeyedArchiveError(
                        .invalidArchive, "\(keys.count) keys and \(values.count) values", at: .keyPath(path))
                }
                if let texts = keys as? [String] {
                    var result: [String: Any] = [:]
                    for (key, member) in zip(texts, values) { result[key] = member }
                    return result
                }
                var result: [AnyHashable: Any] = [:]
                for (key, member) in zip(keys, values) {
                    guard let hashable = key as? AnyHashable else {
                        throw KeyedArchiveError(
                            .typeMismatch, "a dictionary key of type \(type(of: key)) is not hashable",
                            at: .keyPath(path))
                    }
                    result[hashable] = member
                }
                return result
            case .string: return try unarchiver.decodeEntry(uid, as: String.self)
            case .data: return try unarchiver.decodeEntry(uid, as: Data.self)
            case .date: return try unarchiver.decodeEntry(uid, as: Date.self)
            case .url: return try unarchiver.decodeEntry(uid, as: URL.self)
            case .null: return ArchivedNull()
            case .value: return try geometry(object, uid: uid, path: path)
            case .attributedString: return try unarchiver.decodeEntry(uid, as: ArchivedAttributedString.self)
            case .color: return try unarchiver.decodeEntry(uid, as: ArchivedColor.self)
            case .font: return try unarchiver.decodeEntry(uid, as: ArchivedFont.self)
            case .paragraphStyle: return try unarchiver.decodeEntry(uid, as: ArchivedParagraphStyle.self)
            default:
                throw KeyedArchiveError(
                    .classNotFound,
                    "$objects[\(uid)] of class \(DisplayText.quoted(object.className)) has no typedstream form",
                    at: .keyPath(path))
            }
        } catch let error as KeyedArchiveError where error.location == nil {
            throw KeyedArchiveError(error.code, error.message, at: .keyPath(path))
        }
    }

    /// An `NSValue` by its `NS.special` kind: 1 point, 2 size, 3 rectangle, 4 range, 12 edge insets.
    private func geometry(_ object: ArchivedObjectGraph.Object, uid: Int, path: String) throws -> Any {
        guard case .integer(let special)? = object["NS.special"] else {
            throw KeyedArchiveError(
                .classNotFound, "an NSValue without NS.special has no typedstream form", at: .keyPath(path))
        }
        switch special.intValue {
        case 1: return try unarchiver.decodeEntry(uid, as: ArchivedPoint.self)
        case 2: return try unarchiver.decodeEntry(uid, as: ArchivedSize.self)
        case 3: return try unarchiver.decodeEntry(uid, as: ArchivedRect.self)
        case 4: return try unarchiver.decodeEntry(uid, as: ArchivedRange.self)
        case 12: return try unarchiver.decodeEntry(uid, as: ArchivedEdgeInsets.self)
        default:
            throw KeyedArchiveError(
                .classNotFound, "an NSValue of NS.special \(special) has no typedstream form",
                at: .keyPath(path))
        }
    }
}
