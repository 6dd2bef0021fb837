#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads typedstreams — what `NSArchiver` (and NeXTSTEP's `NXTypedStream`) writes — into
/// the same Swift values as ``KeyedUnarchiver`` gives for keyed archives: the
/// counterpart of `NSUnarchiver`, without the Objective-C runtime.
///
/// ```swift
/// // Any stream, untyped: Foundation classes become Swift values, other classes
/// // TypedStreamGraph values that can be inspected.
/// let value = try TypedStreamUnarchiver.unarchivedObject(from: data)
///
/// // Step by step, as NSUnarchiver reads:
/// let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
/// let root = try unarchiver.decodeObject()
/// _ = (value, root)
/// ```
///
/// The whole stream is read when the unarchiver is created, with the limits of
/// ``TypedStreamUnarchivingOptions`` (depth, object count, values per input byte, and
/// the allowed classes, checked when each object's class is read, before anything of
/// the object is read or built). Any input gives a value or a ``KeyedArchiveError``
/// with the byte offset of the problem.
///
/// | archived class | decodes as |
/// |---|---|
/// | `NSString`, `NSMutableString` | `String` |
/// | `NSNumber` | the Swift type of its C type: `c` `Int8`, `C` `UInt8`, `s` `Int16`, `S` `UInt16`, `i` and `l` `Int32`, `I` and `L` `UInt32`, `q` `Int64`, `Q` `UInt64`, `f` `Float`, `d` `Double`, `B` `Bool` |
/// | `NSData`, `NSMutableData` | `Data` |
/// | `NSDate` | `Date` |
/// | `NSURL` | `URL` |
/// | `NSArray`, `NSMutableArray` | `[Any]` |
/// | `NSSet`, `NSMutableSet` | `Set<AnyHashable>` |
/// | `NSDictionary`, `NSMutableDictionary` | `[String: Any]`, or `[AnyHashable: Any]` for other keys |
/// | `NSNull` | ``ArchivedNull`` |
/// | `NSValue` of a point, size, rect, range or edge insets | ``ArchivedPoint``, ``ArchivedSize``, ``ArchivedRect``, ``ArchivedRange``, ``ArchivedEdgeInsets`` |
/// | `NSAttributedString`, `NSMutableAttributedString` | ``ArchivedAttributedString`` (attributes typed as ``ArchivedAttributeValue``) |
/// | `NSColor` (RGB, white, CMYK and named colours) | ``ArchivedColor`` |
/// | `NSFont` | ``ArchivedFont`` (its flag bytes in ``ArchivedFont/typedStreamFlags``) |
/// | `NSParagraphStyle`, `NSMutableParagraphStyle` (versions 0–3 of GNUstep's layout) | ``ArchivedParagraphStyle`` (its layout in ``ArchivedParagraphStyle/typedStreamForm``) |
/// | a class mapped with ``setClass(_:forClassName:)`` or named by a ``TypedStreamDecodable`` type asked for | that type |
/// | any other class | ``TypedStreamGraph`` rooted at the object |
///
/// Typed decoding (``decodeObject(of:)``) converts numbers between Swift's numeric types
/// when the value fits, so `decodeObject(of: Int.self)` reads any integer `NSNumber`.
public final class TypedStreamUnarchiver {
    /// The whole stream as a generic graph.
    public let objectGraph: TypedStreamGraph

    /// The limits and choices the stream was read with.
    public let options: TypedStreamUnarchivingOptions

    /// The system version in the stream's header (1000 for Mac OS X and later).
    public var systemVersion: Int { objectGraph.systemVersion }

    /// Where reading is: the groups of the object being decoded (or the top level) and
    /// the next one to read.
    struct Frame {
        let groups: [TypedStreamGraph.Group]
        var next: Int
        let objectIndex: Int?
    }

    var frames: [Frame]
    /// Each node's decoded value, once decoded (by node index).
    var decoded: [Any?]
    /// Whether each node is being decoded.
    var inProgress: [Bool]
    /// Each class node's standard class: `nil` not yet worked out, `.some(nil)` none.
    var standardClasses: [CataloguedClass??]
    var classMap: [String: any TypedStreamDecodable.Type] = [:]
    private var classVersions: [String: Int]?
    var bridged: ArchivedObjectGraph?

    /// Reads `data` as a typedstream.
    ///
    /// - Parameters:
    ///   - data: A typedstream (`streamtyped` or `typedstream` header).
    ///   - options: Limits and choices.
    /// - Throws: ``KeyedArchiveError``: `corruptData` (with the byte offset) for malformed
    ///   bytes, `unsupportedFormat` for a header of another format, `limitExceeded`,
    ///   `classNotAllowed`.
    public init(
        forReadingFrom data: Data, options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    )
        throws
    {
        var reader = TypedStreamReader(data: data, options: options)
        objectGraph = try reader.readGraph()
        self.options = options
        frames = [Frame(groups: objectGraph.contents, next: 0, objectIndex: nil)]
        let count = objectGraph.nodes.count
        decoded = Array(repeating: nil, count: count)
        inProgress = Array(repeating: false, count: count)
        standardClasses = Array(repeating: nil, count: count)
    }

    /// Whether `data` starts with a typedstream header (`streamtyped` or `typedstream`).
    ///
    /// - Parameter data: Any bytes.
    /// - Returns: `true` for a typedstream.
    public static func isTypedStream(_ data: Data) -> Bool {
        TypedStreamReader.hasHeader(data)
    }

    /// The Foundation classes that decode as standard Swift values, for
    /// ``TypedStreamUnarchivingOptions/allowedClassNames``: strings, numbers, values, data,
    /// dates, URLs, arrays, sets, dictionaries and their mutable variants, `NSNull`,
    /// attributed strings, colours, fonts and paragraph styles.
    public static let standardClassNames: Set<String> = Set(ClassCatalogue.typedStreamClasses.map(\.name))

    // MARK: - Whole-stream conveniences

    /// The stream as a generic graph, without converting anything to Swift values.
    ///
    /// - Parameters:
    ///   - data: A typedstream.
    ///   - options: Limits and choices.
    /// - Returns: The graph.
    /// - Throws: ``KeyedArchiveError`` as ``init(forReadingFrom:options:)``.
    public static func objectGraph(
        from data: Data, options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    ) throws -> TypedStreamGraph {
        var reader = TypedStreamReader(data: data, options: options)
        return try reader.readGraph()
    }

    /// The stream's root object, untyped (see the table in the type's overview).
    ///
    /// - Parameters:
    ///   - data: A typedstream.
    ///   - options: Limits and choices.
    /// - Returns: The root value, or `nil` for a nil root.
    /// - Throws: ``KeyedArchiveError``.
    public static func unarchivedObject(
        from data: Data, options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    ) throws -> Any? {
        try TypedStreamUnarchiver(forReadingFrom: data, options: options).decodeObject()
    }

    /// The stream's root object as `T`.
    ///
    /// - Parameters:
    ///   - type: A ``TypedStreamDecodable`` type, or a standard one (`String`, `[Any]`, …).
    ///   - data: A typedstream.
    ///   - options: Limits and choices.
    /// - Returns: The root, or `nil` for a nil root.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` when the root is not a `T`.
    public static func unarchivedObject<T>(
        ofClass type: T.Type, from data: Data,
        options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    ) throws -> T? {
        try TypedStreamUnarchiver(forReadingFrom: data, options: options).decodeObject(of: type)
    }

    /// The stream's root object, allowed only if its class and the class of every object
    /// in the stream is one of `classes` or a standard Foundation class
    /// (``standardClassNames``); checked while reading, before anything is built.
    ///
    /// - Parameters:
    ///   - classes: The types objects may be.
    ///   - data: A typedstream.
    ///   - options: Limits and choices; its ``TypedStreamUnarchivingOptions/allowedClassNames`` is replaced.
    /// - Returns: The root value.
    /// - Throws: ``KeyedArchiveError`` with code `classNotAllowed` for another class.
    public static func unarchivedObject(
        ofClasses classes: [any TypedStreamDecodable.Type], from data: Data,
        options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    ) throws -> Any? {
        var options = options
        options.allowedClassNames = standardClassNames.union(classes.map { $0.typedStreamClassName })
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data, options: options)
        for type in classes { unarchiver.setClass(type, forClassName: type.typedStreamClassName) }
        return try unarchiver.decodeObject()
    }

    // MARK: - Class mapping and versions

    /// Decodes objects of class `name` as `type` (or no longer, for `nil`).
    ///
    /// - Parameters:
    ///   - type: The type to decode as.
    ///   - name: An archived class name.
    public func setClass(_ type: (any TypedStreamDecodable.Type)?, forClassName name: String) {
        classMap[name] = type
    }

    /// The version the stream records for class `name`, or `nil` if no class of that name
    /// is in the stream (`-[NSCoder versionForClassName:]`).
    ///
    /// - Parameter name: A class name.
    /// - Returns: The version.
    /// - Complexity: O(number of classes) the first time, O(1) afterwards.
    public func version(forClassName name: String) -> Int? {
        if classVersions == nil {
            var versions: [String: Int] = [:]
            for node in objectGraph.nodes {
                if case .class(let found) = node, versions[found.name] == nil {
                    versions[found.name] = found.version
                }
            }
            classVersions = versions
        }
        return classVersions?[name]
    }

    /// The class chain of the object being decoded (nearest first, with versions), or
    /// empty at the top level.
    public var currentClassChain: [TypedStreamGraph.Class] {
        guard let index = frames.last?.objectIndex, let object = objectGraph.object(at: index) else {
            return []
        }
        return objectGraph.classChain(of: object)
    }

    // MARK: - Reading values in order

    /// Whether every group of the current object (or of the top level) has been read.
    public var isAtEnd: Bool {
        guard let frame = frames.last else { return true }
        return frame.next >= frame.groups.count
    }

    /// The type encoding of the next group, or `nil` at the end.
    public var nextEncoding: String? {
        guard let frame = frames.last, frame.next < frame.groups.count else { return nil }
        return frame.groups[frame.next].encoding
    }

    /// Reads the next group, whatever its types (`-decodeValuesOfObjCTypes:` without
    /// knowing the types).
    ///
    /// - Returns: The group.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` at the end of the object.
    public func decodeNextGroup() throws -> TypedStreamGraph.Group {
        guard var frame = frames.popLast() else {
            throw failure(.invalidArchive, "no object is being decoded")
        }
        defer { frames.append(frame) }
        guard frame.next < frame.groups.count else {
            throw failure(.invalidArchive, "no more values: all \(frame.groups.count) groups were read")
        }
        frame.next += 1
        return frame.groups[frame.next - 1]
    }

    /// Reads the next group, which must have been written with the type encoding `types`
    /// (`-decodeValuesOfObjCTypes:`), such as `"iI"`.
    ///
    /// - Parameter types: The type-encoding string.
    /// - Returns: One value per type.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for another encoding.
    public func decodeValues(ofObjCTypes types: String) throws -> [TypedStreamGraph.Value] {
        if let encoding = nextEncoding, encoding != types {
            throw failure(.typeMismatch, "expected values of type \"\(types)\", found \"\(encoding)\"")
        }
        return try decodeNextGroup().values
    }

    /// Reads the next group, which must hold one value of type `type`
    /// (`-decodeValueOfObjCType:at:`).
    ///
    /// - Parameter type: A type encoding, such as `"i"` or `"{_NSRange=QQ}"`.
    /// - Returns: The value.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` for another encoding.
    public func decodeValue(ofObjCType type: String) throws -> TypedStreamGraph.Value {
        let values = try decodeValues(ofObjCTypes: type)
        guard values.count == 1, let value = values.first else {
            throw failure(.typeMismatch, "expected one value of type \"\(type)\", found \(values.count)")
        }
        return value
    }

    /// Reads the next group as one integer of any integer C type that fits in `Int`.
    ///
    /// - Returns: The integer.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` or `valueOutOfRange`.
    public func decodeInteger() throws -> Int {
        try decodeInteger(as: Int.self)
    }

    /// Reads the next group as one integer that fits in `Int32`.
    ///
    /// - Returns: The integer.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` or `valueOutOfRange`.
    public func decodeInt32() throws -> Int32 {
        try decodeInteger(as: Int32.self)
    }

    /// Reads the next group as one integer that fits in `Int64`.
    ///
    /// - Returns: The integer.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` or `valueOutOfRange`.
    public func decodeInt64() throws -> Int64 {
        try decodeInteger(as: Int64.self)
    }

    /// Reads the next group as one `BOOL` (C type `c` or `B`, 0 or 1 — any non-zero `c`
    /// is true, as in Objective-C).
    ///
    /// - Returns: The Boolean.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch`.
    public func decodeBool() throws -> Bool {
        let value = try singleValue()
        switch value {
        case .bool(let flag): return flag
        case .integer(let number): return number != 0
        case .unsignedInteger(let number): return number != 0
        default: throw failure(.typeMismatch, "expected a BOOL, found \(value)")
        }
    }

    /// Reads the next group as one `double` (or any number, converted).
    ///
    /// - Returns: The number.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch`.
    public func decodeDouble() throws -> Double {
        let value = try singleValue()
        guard let number = value.doubleValue else {
            throw failure(.typeMismatch, "expected a number, found \(value)")
        }
        return number
    }

    /// Reads the next group as one `float` (or any number, converted).
    ///
    /// - Returns: The number.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch`.
    public func decodeFloat() throws -> Float {
        let value = try singleValue()
        if case .float(let number) = value { return number }
        guard let number = value.doubleValue else {
            throw failure(.typeMismatch, "expected a number, found \(value)")
        }
        return Float(number)
    }

    /// Reads a data object as `-decodeDataObject` does: a group `i` with the length, then a
    /// group `[Nc]` with the bytes.
    ///
    /// - Returns: The bytes.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` or `invalidArchive`.
    public func decodeDataObject() throws -> Data {
        let length = try decodeInteger()
        let value = try singleValue()
        guard case .byteArray(let bytes) = value, bytes.count == length else {
            throw failure(.invalidArchive, "expected \(length) bytes of data, found \(value)")
        }
        return bytes
    }

    /// Reads the next group as one object, untyped (see the table in the type's overview).
    ///
    /// - Returns: The value, or `nil` for a nil object.
    /// - Throws: ``KeyedArchiveError``: `typeMismatch` when the next group is not one
    ///   object, `classNotFound` for an unknown class when
    ///   ``TypedStreamUnarchivingOptions/decodesUnknownClassesGenerically`` is off,
    ///   `unresolvableCycle`, or what decoding the object throws.
    public func decodeObject() throws -> Any? {
        try untypedValue(try singleValue(encoding: "@"))
    }

    /// Reads the next group as one object of type `T`: a ``TypedStreamDecodable`` type,
    /// a standard value type (`String`, `Data`, `Date`, `URL`, numbers, `[Any]`, …), or a
    /// type registered with ``setClass(_:forClassName:)``.
    ///
    /// - Parameter type: The type expected.
    /// - Returns: The value, or `nil` for a nil object.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` when the object is of
    ///   another type, `valueOutOfRange` when a number does not fit.
    public func decodeObject<T>(of type: T.Type) throws -> T? {
        try typedValue(try singleValue(encoding: "@"), as: type)
    }

    // MARK: - Internals

    func failure(_ code: KeyedArchiveError.Code, _ message: String) -> KeyedArchiveError {
        var where_ = "root"
        if let index = frames.last?.objectIndex, let object = objectGraph.object(at: index) {
            where_ = "object #\(index) (\(object.className))"
            if let frame = frames.last { where_ += " value \(frame.next)" }
        } else if let frame = frames.last {
            where_ = "top-level value \(frame.next)"
        }
        return KeyedArchiveError(code, message, at: .keyPath(where_))
    }

    private func singleValue(encoding: String? = nil) throws -> TypedStreamGraph.Value {
        let group = try decodeNextGroup()
        guard group.values.count == 1, let value = group.values.first else {
            throw failure(.typeMismatch, "expected one value, found a group of type \"\(group.encoding)\"")
        }
        if let encoding, group.encoding != encoding {
            throw failure(
                .typeMismatch, "expected a value of type \"\(encoding)\", found \"\(group.encoding)\"")
        }
        return value
    }

    private func decodeInteger<I: FixedWidthInteger>(as type: I.Type) throws -> I {
        let value = try singleValue()
        let result: I?
        switch value {
        case .integer(let number): result = I(exactly: number)
        case .unsignedInteger(let number): result = I(exactly: number)
        case .bool(let flag): result = flag ? 1 : 0
        default: throw failure(.typeMismatch, "expected an integer, found \(value)")
        }
        guard let result else { throw failure(.valueOutOfRange, "\(value) does not fit in \(I.self)") }
        return result
    }
}
