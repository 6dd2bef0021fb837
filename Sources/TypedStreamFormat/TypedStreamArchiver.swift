#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes typedstreams as Apple's `NSArchiver` does, for Foundation's standard classes:
/// the counterpart of ``TypedStreamUnarchiver``.
///
/// ```swift
/// let data = try TypedStreamArchiver.archivedData(withRootObject: ["a", Int64(1), "b"])
/// let back = try TypedStreamUnarchiver.unarchivedObject(from: data) as? [Any]
/// print(back?.count ?? 0)   // 3
///
/// // A stream read generically is written back byte for byte.
/// let graph = try TypedStreamUnarchiver.objectGraph(from: data)
/// print(try TypedStreamArchiver.archivedData(of: graph) == data)   // true
/// ```
///
/// | Swift value | written as |
/// |---|---|
/// | `String` | `NSString` (version 1) |
/// | `Int8`, `Int16`, `Int32`, `Int64`/`Int`, their unsigned forms, `Float`, `Double` | `NSNumber` of C type `c`, `s`, `i`, `q`, `C`, `S`, `I`, `Q`, `f`, `d` |
/// | `Bool` | `NSNumber` of C type `c` (as `numberWithBool:` writes it) |
/// | `Data`, `Date`, `URL` | `NSData`, `NSDate`, `NSURL` |
/// | `[Any]`, `Set<AnyHashable>`, `[String: Any]`, `[AnyHashable: Any]` | `NSArray`, `NSSet`, `NSDictionary` |
/// | ``ArchivedNull`` | `NSNull` |
/// | ``ArchivedAttributedString`` | `NSAttributedString` or `NSMutableAttributedString` |
/// | ``ArchivedPoint``, ``ArchivedSize``, ``ArchivedRect``, ``ArchivedRange``, ``ArchivedEdgeInsets`` | `NSValue` of `{CGPoint=dd}`, `{CGSize=dd}`, `{CGRect={CGPoint=dd}{CGSize=dd}}`, `{_NSRange=QQ}`, `{NSEdgeInsets=dddd}` |
/// | ``ArchivedColor`` (RGB, white, CMYK, catalogue) | `NSColor` (version 0) |
/// | ``ArchivedFont`` | `NSFont` (version 30) |
/// | ``ArchivedParagraphStyle`` | `NSParagraphStyle` or `NSMutableParagraphStyle`, in the layout of its ``ArchivedParagraphStyle/typedStreamForm`` (version 3 with 64-bit integers when it has none) |
/// | ``TypedStreamGraph`` rooted at an object | that object, as it was read |
///
/// Numbers are written in the fewest bytes (one byte for -110…127, then 2, 4 or 8), and a
/// `float` or `double` that holds an integer is written as that integer, as `NSArchiver`
/// does; strings, classes and C strings are written once and referred to afterwards.
public final class TypedStreamArchiver {
    private var writer: TypedStreamWriter

    /// Creates an archiver writing a stream header.
    ///
    /// - Parameters:
    ///   - byteOrder: The byte order of numbers (`streamtyped` little-endian, Apple's
    ///     default, or `typedstream` big-endian).
    ///   - systemVersion: The system version in the header (1000, Mac OS X and later).
    public init(byteOrder: TypedStreamGraph.ByteOrder = .littleEndian, systemVersion: Int = 1000) {
        writer = TypedStreamWriter(littleEndian: byteOrder == .littleEndian)
        writer.writeHeader(streamerVersion: 4, systemVersion: Int64(systemVersion))
    }

    /// The stream written so far.
    public var encodedData: Data { Data(writer.bytes) }

    /// Writes one object (a group `@`); `nil` writes a nil object.
    ///
    /// - Parameter value: A value of the table in the type's overview.
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` for a value of another type.
    public func encodeObject(_ value: Any?) throws {
        writer.writeSharedString(Array("@".utf8))
        try writer.writeObject(value)
    }

    /// Writes several objects as one group (`@@…`), as `encodeValuesOfObjCTypes:` with one
    /// `@` per object does.
    ///
    /// - Parameter values: Values of the table in the type's overview, or `nil`.
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` for a value of another type.
    public func encodeObjects(_ values: [Any?]) throws {
        try encodeGroup(String(repeating: "@", count: values.count), objects: values, values: [])
    }

    /// Writes one group mixing objects and other values: each `@` of `types` takes the next
    /// of `objects`, every other type the next of `values`.
    func encodeGroup(_ types: String, objects: [Any?], values: [TypedStreamGraph.Value]) throws {
        try writer.writeMixedGroup(encoding: types, objects: objects, values: values)
    }

    /// Writes one group of values of the type encoding `types`, such as `"iI"`.
    ///
    /// - Parameters:
    ///   - types: The type-encoding string.
    ///   - values: One value per type, as ``TypedStreamGraph/Value``s (objects and classes
    ///     cannot be written this way: use ``encodeObject(_:)``).
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` when the values do not fit
    ///   the types.
    public func encodeValues(ofObjCTypes types: String, _ values: [TypedStreamGraph.Value]) throws {
        try writer.writeGroup(encoding: types, values: values, graph: nil)
    }

    /// A stream holding `object` as its root.
    ///
    /// - Parameters:
    ///   - object: A value of the table in the type's overview.
    ///   - byteOrder: The byte order of numbers.
    /// - Returns: The stream.
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` for a value that cannot be written.
    public static func archivedData(
        withRootObject object: Any?, byteOrder: TypedStreamGraph.ByteOrder = .littleEndian
    ) throws -> Data {
        let archiver = TypedStreamArchiver(byteOrder: byteOrder)
        try archiver.encodeObject(object)
        return archiver.encodedData
    }

    /// A graph read by ``TypedStreamUnarchiver/objectGraph(from:options:)`` written back:
    /// the same header, groups, objects, classes and references, then its trailing data.
    /// A stream Apple wrote comes back byte for byte.
    ///
    /// - Parameter graph: The graph.
    /// - Returns: The stream.
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` when a value does not fit
    ///   its group's encoding or refers outside the graph.
    public static func archivedData(of graph: TypedStreamGraph) throws -> Data {
        var writer = TypedStreamWriter(littleEndian: graph.byteOrder == .littleEndian)
        writer.writeHeader(
            streamerVersion: UInt8(clamping: graph.streamerVersion), systemVersion: Int64(graph.systemVersion)
        )
        for group in graph.contents {
            try writer.writeGroup(encoding: group.encoding, values: group.values, graph: graph)
        }
        writer.bytes += graph.trailingData
        return Data(writer.bytes)
    }
}

/// The byte-level writer behind ``TypedStreamArchiver``.
struct TypedStreamWriter {
    var bytes: [UInt8] = []
    let littleEndian: Bool
    private var sharedStrings: [[UInt8]: Int] = [:]
    private var sharedStringCount = 0
    private var objectCount = 0
    private var cStrings: [[UInt8]: Int] = [:]
    /// Shared strings and C strings longer than ``longText`` bytes, written from a graph's
    /// `Data` without copying it to an array or hashing all of it at every reference.
    private var longSharedStrings: [LongBytesKey: Int] = [:]
    private var longCStrings: [LongBytesKey: Int] = [:]
    private static let longText = 64
    private var classNumbers: [String: Int] = [:]
    /// Graph node index → object number, for rewriting a graph.
    private var graphNumbers: [Int: Int] = [:]
    private var depth = 0

    init(littleEndian: Bool) {
        self.littleEndian = littleEndian
        bytes.reserveCapacity(256)
    }

    mutating func writeHeader(streamerVersion: UInt8, systemVersion: Int64) {
        bytes.append(streamerVersion)
        bytes.append(11)
        bytes += Array((littleEndian ? "streamtyped" : "typedstream").utf8)
        writeInteger(systemVersion)
    }

    private mutating func writeRaw(_ value: UInt64, count: Int) {
        for index in 0..<count {
            let shift = littleEndian ? index * 8 : (count - 1 - index) * 8
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    mutating func writeInteger(_ value: Int64) {
        if value >= -110, value <= 127 {
            bytes.append(UInt8(bitPattern: Int8(value)))
        } else if let short = Int16(exactly: value) {
            bytes.append(0x81)
            writeRaw(UInt64(UInt16(bitPattern: short)), count: 2)
        } else if let word = Int32(exactly: value) {
            bytes.append(0x82)
            writeRaw(UInt64(UInt32(bitPattern: word)), count: 4)
        } else {
            bytes.append(0x87)
            writeRaw(UInt64(bitPattern: value), count: 8)
        }
    }

    mutating func writeUnsigned(_ value: UInt64) {
        if let signed = Int64(exactly: value), signed <= Int64(Int32.max) {
            writeInteger(signed)
        } else if value <= UInt64(UInt32.max) {
            bytes.append(0x82)
            writeRaw(value, count: 4)
        } else {
            bytes.append(0x87)
            writeRaw(value, count: 8)
        }
    }

    private mutating func writeReal(_ value: Double, isFloat: Bool) {
        if value == value.rounded(), !(value == 0 && value.sign == .minus),
            let integer = Int32(exactly: value)
        {
            writeInteger(Int64(integer))
            return
        }
        bytes.append(0x83)
        if isFloat {
            writeRaw(UInt64(Float(value).bitPattern), count: 4)
        } else {
            writeRaw(value.bitPattern, count: 8)
        }
    }

    private mutating func writeReference(_ number: Int) {
        writeInteger(Int64(number) - 110)
    }

    mutating func writeSharedString(_ text: [UInt8]) {
        if let index = sharedStrings[text] {
            writeReference(index)
            return
        }
        sharedStrings[text] = sharedStringCount
        sharedStringCount += 1
        bytes.append(0x84)
        writeUnsigned(UInt64(text.count))
        bytes += text
    }

    /// A shared string held as `Data` (an atom, a selector, a C string's text).
    mutating func writeSharedString(_ text: Data) {
        guard text.count > Self.longText else { return writeSharedString(Array(text)) }
        let key = LongBytesKey(text)
        if let index = longSharedStrings[key] {
            writeReference(index)
            return
        }
        longSharedStrings[key] = sharedStringCount
        sharedStringCount += 1
        bytes.append(0x84)
        writeUnsigned(UInt64(text.count))
        bytes += text
    }

    private mutating func writeCString(_ text: [UInt8]) {
        if let number = cStrings[text] {
            writeReference(number)
            return
        }
        bytes.append(0x84)
        writeSharedString(text)
        cStrings[text] = objectCount
        objectCount += 1
    }

    private mutating func writeCString(_ text: Data) {
        guard text.count > Self.longText else { return writeCString(Array(text)) }
        let key = LongBytesKey(text)
        if let number = longCStrings[key] {
            writeReference(number)
            return
        }
        bytes.append(0x84)
        writeSharedString(text)
        longCStrings[key] = objectCount
        objectCount += 1
    }

    /// A class chain of names and versions, nearest first, written until a class already
    /// written (then a reference to it) or the end (then nil).
    private mutating func writeClassChain(_ chain: [(name: String, version: Int)]) {
        for link in chain {
            if let number = classNumbers[link.name] {
                writeReference(number)
                return
            }
            bytes.append(0x84)
            writeSharedString(Array(link.name.utf8))
            writeInteger(Int64(link.version))
            classNumbers[link.name] = objectCount
            objectCount += 1
        }
        bytes.append(0x85)
    }

    /// A graph's class: a reference when written before, else its chain, built only then
    /// (each class is new once, so chains are built once per class, not once per object).
    private mutating func writeGraphClass(_ classIndex: Int, graph: TypedStreamGraph) {
        if let found = graph.class(at: classIndex), let number = classNumbers[found.name] {
            writeReference(number)
            return
        }
        writeClassChain(graph.classChain(ofClassAt: classIndex).map { ($0.name, $0.version) })
    }

    private func invalid(_ message: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, message)
    }

    // MARK: - Groups and values of a graph

    mutating func writeGroup(encoding: String, values: [TypedStreamGraph.Value], graph: TypedStreamGraph?)
        throws
    {
        let text = Array(encoding.utf8)
        let parsed = text.withUnsafeBufferPointer { TypedStreamType.parse($0) }
        guard case .success(let types) = parsed, types.count == values.count else {
            throw invalid("values \(values) do not fit the type encoding \"\(encoding)\"")
        }
        writeSharedString(text)
        for (type, value) in zip(types, values) { try writeValue(value, as: type, graph: graph) }
    }

    mutating func writeMixedGroup(encoding: String, objects: [Any?], values: [TypedStreamGraph.Value]) throws
    {
        let text = Array(encoding.utf8)
        let parsed = text.withUnsafeBufferPointer { TypedStreamType.parse($0) }
        guard case .success(let types) = parsed else {
            throw invalid("\"\(encoding)\" is not a type encoding")
        }
        let objectCount = types.filter { if case .object = $0 { return true } else { return false } }.count
        guard objectCount == objects.count, types.count - objectCount == values.count else {
            throw invalid("\(objects.count) objects and \(values.count) values do not fit \"\(encoding)\"")
        }
        writeSharedString(text)
        var nextObject = objects.makeIterator()
        var nextValue = values.makeIterator()
        for type in types {
            if case .object = type {
                try writeObject(nextObject.next() ?? nil)
            } else if let value = nextValue.next() {
                try writeValue(value, as: type, graph: nil)
            }
        }
    }

    private mutating func writeValue(
        _ value: TypedStreamGraph.Value, as type: TypedStreamType, graph: TypedStreamGraph?
    )
        throws
    {
        switch (type, value) {
        case (.signed, _) where value.integerValue != nil:
            writeInteger(value.integerValue ?? 0)
        case (.unsigned, .unsignedInteger(let number)): writeUnsigned(number)
        case (.unsigned, .integer(let number)) where number >= 0: writeUnsigned(UInt64(number))
        case (.signedCharacter, _) where value.integerValue.flatMap { Int8(exactly: $0) } != nil:
            bytes.append(UInt8(bitPattern: Int8(value.integerValue ?? 0)))
        case (.unsignedCharacter, _) where value.integerValue.flatMap { UInt8(exactly: $0) } != nil:
            bytes.append(UInt8(value.integerValue ?? 0))
        case (.bool, .bool(let flag)): bytes.append(flag ? 1 : 0)
        case (.float, _) where value.doubleValue != nil: writeReal(value.doubleValue ?? 0, isFloat: true)
        case (.double, _) where value.doubleValue != nil: writeReal(value.doubleValue ?? 0, isFloat: false)
        case (.cString, .cString(let text)): writeCString(text)
        case (.cString, .null), (.bytes, .null), (.atom, .null), (.selector, .null), (.class, .null),
            (.object, .null):
            bytes.append(0x85)
        case (.bytes, .bytes(let text)):
            writeUnsigned(UInt64(text.count))
            bytes += text
        case (.atom, .atom(let text)), (.selector, .selector(let text)): writeSharedString(text)
        case (.class, .class(let index)):
            guard let graph else { throw invalid("a class value needs the graph it belongs to") }
            writeGraphClass(index, graph: graph)
        case (.object, .object(let index)):
            guard let graph else { throw invalid("an object value needs the graph it belongs to") }
            try writeGraphObject(index, graph: graph)
        case (.ignored, _): break
        case (.byteArray(let count), .byteArray(let data)) where data.count == count: bytes += data
        case (.array(let count, let elementType), .array(let elements)) where elements.count == count:
            for element in elements { try writeValue(element, as: elementType, graph: graph) }
        case (.structure(_, let fields), .structure(_, let values)) where fields.count == values.count:
            for (field, member) in zip(fields, values) { try writeValue(member, as: field, graph: graph) }
        case (.pointer(let pointee), _): try writeValue(value, as: pointee, graph: graph)
        default:
            throw invalid("\(value) cannot be written as type \"\(type.encoding)\"")
        }
    }

    private mutating func enter() throws {
        guard depth < 10_000 else { throw invalid("objects are nested deeper than 10,000 levels") }
        if depth >= StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
            throw KeyedArchiveError(.limitExceeded, StackHeadroom.message(depth: depth))
        }
        depth += 1
    }

    private mutating func writeGraphObject(_ index: Int, graph: TypedStreamGraph) throws {
        if let number = graphNumbers[index] {
            writeReference(number)
            return
        }
        guard let object = graph.object(at: index) else {
            throw invalid("#\(index) is not an object of the graph")
        }
        try enter()
        defer { depth -= 1 }
        bytes.append(0x84)
        graphNumbers[index] = objectCount
        objectCount += 1
        writeGraphClass(object.classIndex, graph: graph)
        for group in object.groups {
            try writeGroup(encoding: group.encoding, values: group.values, graph: graph)
        }
        bytes.append(0x86)
    }

    // MARK: - Swift values

    /// A new object of a class of the catalogue, its class chain and versions from there.
    private mutating func writeNewObject(_ catalogued: CataloguedClass, _ body: (inout Self) throws -> Void)
        throws
    {
        try writeNewObject(catalogued.typedStreamChain, body)
    }

    /// A new object of the class chain `chain` (names and versions, up to `NSObject`).
    private mutating func writeNewObject(
        _ chain: [(name: String, version: Int)], _ body: (inout Self) throws -> Void
    )
        throws
    {
        try enter()
        defer { depth -= 1 }
        bytes.append(0x84)
        objectCount += 1
        writeClassChain(chain)
        try body(&self)
        bytes.append(0x86)
    }

    private mutating func writeNumber(_ type: String, _ write: (inout Self) -> Void) throws {
        try writeNewObject(.number) { writer in
            writer.writeSharedString(Array("*".utf8))
            writer.writeCString(Array(type.utf8))
            writer.writeSharedString(Array(type.utf8))
            write(&writer)
        }
    }

    private mutating func writeString(_ text: String, mutable: Bool = false) throws {
        try writeNewObject(mutable ? .mutableString : .string) { writer in
            writer.writeSharedString(Array("+".utf8))
            let utf8 = Array(text.utf8)
            writer.writeUnsigned(UInt64(utf8.count))
            writer.bytes += utf8
        }
    }

    private mutating func writeGroup(_ encoding: String, _ body: (inout Self) throws -> Void) rethrows {
        writeSharedString(Array(encoding.utf8))
        try body(&self)
    }

    mutating func writeObject(_ value: Any?) throws {
        guard let value else {
            bytes.append(0x85)
            return
        }
        switch value {
        case let text as String: try writeString(text)
        case let flag as Bool: try writeNumber("c") { $0.bytes.append(flag ? 1 : 0) }
        case let number as Int8: try writeNumber("c") { $0.bytes.append(UInt8(bitPattern: number)) }
        case let number as UInt8: try writeNumber("C") { $0.bytes.append(number) }
        case let number as Int16: try writeNumber("s") { $0.writeInteger(Int64(number)) }
        case let number as UInt16: try writeNumber("S") { $0.writeUnsigned(UInt64(number)) }
        case let number as Int32: try writeNumber("i") { $0.writeInteger(Int64(number)) }
        case let number as UInt32: try writeNumber("I") { $0.writeUnsigned(UInt64(number)) }
        case let number as Int64: try writeNumber("q") { $0.writeInteger(number) }
        case let number as Int: try writeNumber("q") { $0.writeInteger(Int64(number)) }
        case let number as UInt64: try writeNumber("Q") { $0.writeUnsigned(number) }
        case let number as UInt: try writeNumber("Q") { $0.writeUnsigned(UInt64(number)) }
        case let number as Float: try writeNumber("f") { $0.writeReal(Double(number), isFloat: true) }
        case let number as Double: try writeNumber("d") { $0.writeReal(number, isFloat: false) }
        case let data as Data:
            try writeNewObject(.data) { writer in
                writer.writeGroup("i") { $0.writeInteger(Int64(data.count)) }
                writer.writeGroup("[\(data.count)c]") { $0.bytes += data }
            }
        case let date as Date:
            try writeNewObject(.date) { writer in
                writer.writeGroup("d") { $0.writeReal(date.timeIntervalSinceReferenceDate, isFloat: false) }
            }
        case let url as URL:
            try writeNewObject(.url) { writer in
                writer.writeGroup("c") { $0.bytes.append(url.baseURL == nil ? 0 : 1) }
                if let base = url.baseURL { try writer.writeGroup("@") { try $0.writeObject(base) } }
                try writer.writeGroup("@") {
                    try $0.writeString(url.baseURL == nil ? url.absoluteString : url.relativeString)
                }
            }
        case is ArchivedNull:
            try writeNewObject(.null) { _ in }
        case let string as ArchivedAttributedString:
            try writeAttributedString(string)
        case let point as ArchivedPoint:
            try writeValueObject(
                "{CGPoint=dd}", .structure(name: "CGPoint", fields: [.double(point.x), .double(point.y)]))
        case let size as ArchivedSize:
            try writeValueObject(
                "{CGSize=dd}",
                .structure(name: "CGSize", fields: [.double(size.width), .double(size.height)]))
        case let rect as ArchivedRect:
            try writeValueObject(
                "{CGRect={CGPoint=dd}{CGSize=dd}}",
                .structure(
                    name: "CGRect",
                    fields: [
                        .structure(
                            name: "CGPoint", fields: [.double(rect.origin.x), .double(rect.origin.y)]),
                        .structure(
                            name: "CGSize", fields: [.double(rect.size.width), .double(rect.size.height)]),
                    ]))
        case let range as ArchivedRange:
            try writeValueObject(
                "{_NSRange=QQ}",
                .structure(
                    name: "_NSRange",
                    fields: [
                        .unsignedInteger(UInt64(clamping: range.location)),
                        .unsignedInteger(UInt64(clamping: range.length)),
                    ]))
        case let insets as ArchivedEdgeInsets:
            try writeValueObject(
                "{NSEdgeInsets=dddd}",
                .structure(
                    name: "NSEdgeInsets",
                    fields: [insets.top, insets.left, insets.bottom, insets.right].map(
                        TypedStreamGraph.Value.double)))
        case let color as ArchivedColor:
            try writeColor(color)
        case let font as ArchivedFont:
            try writeFont(font)
        case let style as ArchivedParagraphStyle:
            try writeParagraphStyle(style)
        case let array as [Any]:
            try writeNewObject(.array) { writer in
                writer.writeGroup("i") { $0.writeInteger(Int64(array.count)) }
                for element in array { try writer.writeGroup("@") { try $0.writeObject(element) } }
            }
        case let set as Set<AnyHashable>:
            try writeNewObject(.set) { writer in
                writer.writeGroup("I") { $0.writeUnsigned(UInt64(set.count)) }
                for element in set { try writer.writeGroup("@") { try $0.writeObject(element.base) } }
            }
        case let dictionary as [String: Any]:
            try writeDictionary(dictionary.sorted { $0.key < $1.key }.map { ($0.key as Any, $0.value) })
        case let dictionary as [AnyHashable: Any]:
            try writeDictionary(dictionary.map { ($0.key.base, $0.value) })
        default:
            throw invalid("a \(type(of: value)) cannot be written to a typedstream")
        }
    }

    /// An `NSValue` (version 0): its type encoding as a C string, then one value of that type.
    private mutating func writeValueObject(_ type: String, _ value: TypedStreamGraph.Value) throws {
        try writeNewObject(.value) { writer in
            writer.writeSharedString(Array("*".utf8))
            writer.writeCString(Array(type.utf8))
            try writer.writeGroup(encoding: type, values: [value], graph: nil)
        }
    }

    /// `NSColor` (version 0) as AppKit writes it: `c` the kind (1 calibrated RGB, 2 device
    /// RGB, 3 calibrated white, 4 device white, 5 device CMYK, 6 catalogue), then the
    /// components as one group of `f`s, or `@@@` (catalogue, name, fallback colour).
    private mutating func writeColor(_ color: ArchivedColor) throws {
        let kind: Int
        let types: String
        switch color.space {
        case .calibratedRGB?, .deviceRGB?:
            (kind, types) = (color.space == .calibratedRGB ? 1 : 2, "ffff")
        case .calibratedWhite?, .deviceWhite?:
            (kind, types) = (color.space == .calibratedWhite ? 3 : 4, "ff")
        case .deviceCMYK?: (kind, types) = (5, "fffff")
        case .catalog?: (kind, types) = (6, "@@@")
        default:
            throw invalid(
                "an NSColor of space \(color.space.map { "\($0)" } ?? "none") has no typedstream form")
        }
        var components = color.components
        // A colour read from a keyed archive may omit an opaque alpha.
        if components.count == types.count - 1 { components.append(1) }
        guard kind == 6 || components.count == types.count else {
            throw invalid(
                "an NSColor of space \(color.space.map { "\($0)" } ?? "none") needs \(types.count) components"
            )
        }
        try writeNewObject(.color) { writer in
            writer.writeGroup("c") { $0.bytes.append(UInt8(kind)) }
            if kind == 6 {
                try writer.writeGroup("@@@") { writer in
                    try writer.writeObject(color.catalogName)
                    try writer.writeObject(color.colorName)
                    try writer.writeObject(color.fallback)
                }
            } else {
                writer.writeGroup(types) { writer in
                    for component in components { writer.writeReal(component, isFloat: true) }
                }
            }
        }
    }

    /// `NSFont` (version 30) as AppKit writes it: the name as an old binary property list
    /// in a data object (`i` length, `[Nc]` bytes), the size (`f`), four flag bytes (`c`).
    private mutating func writeFont(_ font: ArchivedFont) throws {
        let plist = OldBinaryPropertyList.write(.string(font.name))
        let flags = font.typedStreamFlags ?? [0, 1, 0, 0]
        guard flags.count == 4 else {
            throw invalid("an NSFont has 4 typedstream flag bytes, not \(flags.count)")
        }
        try writeNewObject(.font) { writer in
            writer.writeGroup("i") { $0.writeInteger(Int64(plist.count)) }
            writer.writeGroup("[\(plist.count)c]") { $0.bytes += plist }
            writer.writeGroup("f") { $0.writeReal(font.size, isFloat: true) }
            for flag in flags { writer.writeGroup("c") { $0.bytes.append(UInt8(bitPattern: flag)) } }
        }
    }

    /// `NSParagraphStyle` in the layout of ``TypedStreamParagraphStyle``: the style's
    /// fields in the C types it was read with (or 64-bit integers and `float`s), and the
    /// groups that followed the known ones.
    private mutating func writeParagraphStyle(_ style: ArchivedParagraphStyle) throws {
        let (version, groups) = try TypedStreamParagraphStyle.groups(of: style)
        // The catalogue's chain, with the versions of the style's own layout.
        let mutableVersion = style.typedStreamForm?.mutableVersion ?? 0
        let chain = (style.isMutable ? CataloguedClass.mutableParagraphStyle : .paragraphStyle)
            .typedStreamChain.map {
                link -> (name: String, version: Int) in
                switch link.name {
                case CataloguedClass.paragraphStyle.name: return (link.name, version)
                case CataloguedClass.mutableParagraphStyle.name: return (link.name, mutableVersion)
                default: return link
                }
            }
        try writeNewObject(chain) { writer in
            for group in groups {
                try writer.writeGroup(encoding: group.encoding, values: group.values, graph: nil)
            }
        }
    }

    private mutating func writeDictionary(_ entries: [(Any, Any)]) throws {
        try writeNewObject(.dictionary) { writer in
            writer.writeGroup("i") { $0.writeInteger(Int64(entries.count)) }
            for (key, value) in entries {
                try writer.writeGroup("@") { try $0.writeObject(key) }
                try writer.writeGroup("@") { try $0.writeObject(value) }
            }
        }
    }

    private mutating func writeAttributedString(_ string: ArchivedAttributedString) throws {
        try writeNewObject(string.isMutable ? .mutableAttributedString : .attributedString) { writer in
            try writer.writeGroup("@") { try $0.writeString(string.string, mutable: string.isMutable) }
            var tables: [[String: ArchivedAttributeValue]] = []
            for run in string.runs {
                let known = tables.firstIndex(of: run.attributes)
                writer.writeGroup("iI") {
                    $0.writeInteger(Int64((known ?? tables.count) + 1))
                    $0.writeUnsigned(UInt64(run.range.count))
                }
                if known == nil {
                    tables.append(run.attributes)
                    let entries = try run.attributes.sorted { $0.key < $1.key }.map { key, value in
                        (key as Any, try Self.swiftValue(of: value))
                    }
                    try writer.writeGroup("@") { try $0.writeDictionary(entries) }
                }
            }
        }
    }

    /// An attribute value as the Swift value written for it.
    private static func swiftValue(of value: ArchivedAttributeValue) throws -> Any {
        switch value {
        case .null: return ArchivedNull()
        case .string(let text): return text
        case .integer(let number): return Int64(number)
        case .real(let number): return number
        case .bool(let flag): return flag
        case .data(let bytes): return bytes
        case .date(let date): return date
        case .url(let url): return url
        case .array(let values): return try values.map(swiftValue)
        case .font(let font): return font
        case .color(let color): return color
        case .paragraphStyle(let style): return style
        case .object(let graph):
            // An object of a keyed archive (a dictionary, a set): the classes this archiver
            // writes, as `TypedStreamConversion` converts them.
            do {
                return try KeyedToTypedStreamConverter.value(rootedAt: graph) ?? ArchivedNull()
            } catch let error as KeyedArchiveError where error.code == .classNotFound {
                throw KeyedArchiveError(
                    .invalidValue,
                    "attribute value \(value) has no typedstream form that this archiver writes (\(error.message))"
                )
            }
        }
    }
}
