#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The engine behind `decodeDecodable(_:forKey:)`, ``KeyedArchiveDecoder`` and
/// ``ArchivedCodable``: runs `init(from:)` over objects read from an archive.
///
/// Bounded whatever the input: nesting is limited, the number of containers decoded is
/// limited relative to the size of `$objects` (so shared sub-trees cannot make decoding
/// exponential), and an object that refers back to itself while it is decoded fails with
/// `unresolvableCycle`.
final class CodableArchiveReader {
    let source: any ArchiveObjectSource
    let layout: CodableArchiveLayout
    let userInfo: [CodingUserInfoKey: Any]
    let maximumDepth: Int
    let pathPrefix: String

    private var instances: [Int: AnyObject] = [:]
    private var inProgress: Set<Int> = []
    private var activeUIDs: [Int] = []
    private var classNames: [Int: String] = [:]
    private var depth = 0
    private var budget: Int

    init(
        source: any ArchiveObjectSource, layout: CodableArchiveLayout, pathPrefix: String,
        userInfo: [CodingUserInfoKey: Any] = [:], maximumDepth: Int = 512
    ) {
        self.source = source
        self.layout = layout
        self.pathPrefix = pathPrefix
        self.userInfo = userInfo
        self.maximumDepth = maximumDepth
        let (product, overflow) = source.objectCount.multipliedReportingOverflow(by: 64)
        self.budget = overflow ? Int.max : max(product, 1 << 16)
    }

    // MARK: Values

    func decodeValue<T: Decodable>(_ type: T.Type, from value: PropertyList, codingPath: [any CodingKey])
        throws
        -> T
    {
        if let primitive = T.self as? any CodableArchiveDecodablePrimitive.Type,
            let typed = try primitive.decodeArchived(reader: self, value, codingPath: codingPath) as? T
        {
            return typed
        }
        var uid: Int?
        if case .uid(let raw) = value {
            guard let index = Int(exactly: raw), index < source.objectCount else {
                throw corrupt(codingPath, .invalidArchive, "object reference \(raw) is out of range")
            }
            uid = index
            if index == 0 {
                throw DecodingError.valueNotFound(
                    T.self,
                    context(codingPath, .typeMismatch, "expected \(T.self), found nil"))
            }
            if let instance = instances[index] {
                guard let typed = instance as? T else {
                    throw DecodingError.typeMismatch(
                        T.self,
                        context(
                            codingPath, .typeMismatch,
                            "expected \(T.self), found an instance of \(Swift.type(of: instance)) (object #\(index))"
                        ))
                }
                return typed
            }
            if inProgress.contains(index), activeUIDs.last != index {
                throw corrupt(
                    codingPath, .unresolvableCycle,
                    "object #\(index) refers back to itself while it is being decoded; a Decodable value "
                        + "cannot be shared before its init(from:) returns")
            }
        }
        guard depth < maximumDepth else {
            throw corrupt(codingPath, .limitExceeded, "nesting is deeper than the limit of \(maximumDepth)")
        }
        guard budget > 0 else {
            throw corrupt(
                codingPath, .limitExceeded,
                "decoding reached more values than the archive's size justifies (shared sub-trees)")
        }
        budget -= 1
        depth += 1
        // A wrapper that forwards its single value (Optional, property wrappers) decodes the
        // same object again, directly inside itself: that is not a cycle.
        let isForwarded = uid != nil && activeUIDs.last == uid
        if let uid, !isForwarded {
            inProgress.insert(uid)
            activeUIDs.append(uid)
        }
        defer {
            depth -= 1
            if let uid, !isForwarded {
                inProgress.remove(uid)
                activeUIDs.removeLast()
            }
        }
        let decoded = try T(from: CodableDecodingNode(reader: self, value: value, codingPath: codingPath))
        if let uid, layout == .objects, T.self is AnyObject.Type {
            instances[uid] = decoded as AnyObject
        }
        return decoded
    }

    /// The plain value a reference points to (or an inline value), `NSDate` as a date.
    func scalar(_ value: PropertyList, codingPath: [any CodingKey], expected: Any.Type) throws -> PropertyList
    {
        guard case .uid(let raw) = value else { return value }
        guard let index = Int(exactly: raw), index < source.objectCount else {
            throw corrupt(codingPath, .invalidArchive, "object reference \(raw) is out of range")
        }
        if index == 0 {
            throw DecodingError.valueNotFound(
                expected, context(codingPath, .typeMismatch, "expected \(expected), found nil"))
        }
        let entry = try object(at: index, codingPath: codingPath)
        guard case .dictionary(let fields) = entry else { return entry }
        let name = try className(of: fields, codingPath: codingPath)
        if name == "NSDate", let time = fields["NS.time"] {
            return .date(Date(timeIntervalSinceReferenceDate: try seconds(time, codingPath)))
        }
        if name == "NSMutableString", let text = fields["NS.string"] { return text }
        if name == "NSMutableData", let bytes = fields["NS.data"] { return bytes }
        throw DecodingError.typeMismatch(
            expected, context(codingPath, .typeMismatch, "expected \(expected), found \(name)"))
    }

    private func seconds(_ value: PropertyList, _ codingPath: [any CodingKey]) throws -> Double {
        do {
            return try ArchiveScalar.double(value)
        } catch let error as KeyedArchiveError {
            throw corrupt(codingPath, error.code, "NS.time: \(error.message)")
        }
    }

    func isNil(_ value: PropertyList, codingPath: [any CodingKey]) throws -> Bool {
        guard case .uid(let raw) = value else { return false }
        guard raw != 0 else { return true }
        guard let index = Int(exactly: raw), index < source.objectCount else {
            throw corrupt(codingPath, .invalidArchive, "object reference \(raw) is out of range")
        }
        let entry = try object(at: index, codingPath: codingPath)
        switch entry {
        case .string(let text): return layout == .propertyList && text == "$null"
        case .dictionary(let fields): return try className(of: fields, codingPath: codingPath) == "NSNull"
        default: return false
        }
    }

    // MARK: Containers

    enum KeyedSource {
        /// An object's own fields (objects layout, or ``ArchivedCodable``).
        case fields(PropertyListDictionary)
        /// An `NSDictionary`'s entries.
        case entries([String: PropertyList], order: [String])
    }

    func keyedSource(_ value: PropertyList, codingPath: [any CodingKey]) throws -> KeyedSource {
        if case .dictionary(let fields) = value { return .fields(fields) }
        let fields = try objectFields(value, codingPath: codingPath, expected: "a keyed container")
        let name = try className(of: fields, codingPath: codingPath)
        switch name {
        case "NSDictionary", "NSMutableDictionary":
            let keys = try references(fields["NS.keys"], name: "NS.keys", codingPath: codingPath)
            let values = try references(fields["NS.objects"], name: "NS.objects", codingPath: codingPath)
            guard keys.count == values.count else {
                throw corrupt(
                    codingPath, .invalidArchive,
                    "NS.keys has \(keys.count) entries but NS.objects has \(values.count)")
            }
            var entries: [String: PropertyList] = [:]
            entries.reserveCapacity(keys.count)
            var order: [String] = []
            order.reserveCapacity(keys.count)
            for (key, element) in zip(keys, values) {
                guard case .string(let text) = try scalar(key, codingPath: codingPath, expected: String.self)
                else {
                    throw DecodingError.typeMismatch(
                        String.self, context(codingPath, .typeMismatch, "a dictionary key is not a string"))
                }
                if entries.updateValue(element, forKey: text) == nil { order.append(text) }
            }
            return .entries(entries, order: order)
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            throw DecodingError.typeMismatch(
                [String: Any].self,
                context(codingPath, .typeMismatch, "expected a keyed container, found \(name)"))
        default:
            guard layout == .objects else {
                throw DecodingError.typeMismatch(
                    [String: Any].self,
                    context(codingPath, .typeMismatch, "expected NSDictionary, found \(name)"))
            }
            return .fields(fields)
        }
    }

    func unkeyedElements(_ value: PropertyList, codingPath: [any CodingKey]) throws -> [PropertyList] {
        if case .dictionary(let fields) = value {
            return try references(fields["NS.objects"], name: "NS.objects", codingPath: codingPath)
        }
        let fields = try objectFields(value, codingPath: codingPath, expected: "an unkeyed container")
        let name = try className(of: fields, codingPath: codingPath)
        switch name {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            return try references(fields["NS.objects"], name: "NS.objects", codingPath: codingPath)
        default:
            throw DecodingError.typeMismatch(
                [Any].self, context(codingPath, .typeMismatch, "expected NSArray, found \(name)"))
        }
    }

    private func objectFields(_ value: PropertyList, codingPath: [any CodingKey], expected: String) throws
        -> PropertyListDictionary
    {
        guard case .uid(let raw) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                context(codingPath, .typeMismatch, "expected \(expected), found \(value.archivedKindName)"))
        }
        guard let index = Int(exactly: raw), index < source.objectCount else {
            throw corrupt(codingPath, .invalidArchive, "object reference \(raw) is out of range")
        }
        guard index != 0 else {
            throw DecodingError.valueNotFound(
                [String: Any].self, context(codingPath, .typeMismatch, "expected \(expected), found nil"))
        }
        let entry = try object(at: index, codingPath: codingPath)
        guard case .dictionary(let fields) = entry else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                context(codingPath, .typeMismatch, "expected \(expected), found \(entry.archivedKindName)"))
        }
        return fields
    }

    private func references(_ value: PropertyList?, name: String, codingPath: [any CodingKey]) throws
        -> [PropertyList]
    {
        guard let value else { return [] }
        guard case .array(let elements) = value else {
            throw corrupt(codingPath, .invalidArchive, "\(name) is \(value.archivedKindName), not an array")
        }
        return elements
    }

    func object(at index: Int, codingPath: [any CodingKey]) throws -> PropertyList {
        do {
            return try source.object(at: index)
        } catch let error as KeyedArchiveError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath, debugDescription: error.description, underlyingError: error))
        }
    }

    func className(of fields: PropertyListDictionary, codingPath: [any CodingKey]) throws -> String {
        guard case .uid(let raw)? = fields["$class"], let index = Int(exactly: raw), index > 0,
            index < source.objectCount
        else {
            throw corrupt(codingPath, .invalidArchive, "an object without a valid $class reference")
        }
        if let name = classNames[index] { return name }
        do {
            let name = try ClassDescription(parsing: source.object(at: index), uid: index).name
            classNames[index] = name
            return name
        } catch let error as KeyedArchiveError {
            throw corrupt(codingPath, error.code, error.message)
        }
    }

    // MARK: Errors

    func context(_ codingPath: [any CodingKey], _ code: KeyedArchiveError.Code, _ message: String)
        -> DecodingError.Context
    {
        let location = CodableKeyPath.render(codingPath, prefix: pathPrefix)
        return DecodingError.Context(
            codingPath: codingPath, debugDescription: "\(location): \(message)",
            underlyingError: KeyedArchiveError(code, message, at: .keyPath(location)))
    }

    func corrupt(_ codingPath: [any CodingKey], _ code: KeyedArchiveError.Code, _ message: String)
        -> DecodingError
    {
        DecodingError.dataCorrupted(context(codingPath, code, message))
    }
}

/// Values the bridge reads directly from a plain value instead of calling `init(from:)`.
protocol CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws
}

extension CodableArchiveDecodablePrimitive {
    static func decodeArchived(
        reader: CodableArchiveReader, _ value: PropertyList, codingPath: [any CodingKey]
    ) throws -> Self {
        try reader.primitive(Self.self, value, codingPath: codingPath)
    }
}

extension String: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws {
        guard case .string(let text) = value else {
            throw StandardTypeError.mismatch(expected: "a string", found: value)
        }
        self = text
    }
}
extension Bool: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.bool(value) }
}
extension Double: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.double(value) }
}
extension Float: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.float(value) }
}
extension Data: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws {
        guard case .data(let bytes) = value else {
            throw StandardTypeError.mismatch(expected: "data", found: value)
        }
        self = bytes
    }
}
extension Date: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws {
        switch value {
        case .date(let date): self = date
        case .real(let seconds): self = Date(timeIntervalSinceReferenceDate: seconds)
        default: throw StandardTypeError.mismatch(expected: "a date", found: value)
        }
    }
}
extension Int: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: Int.self) }
}
extension Int8: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: Int8.self) }
}
extension Int16: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: Int16.self) }
}
extension Int32: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: Int32.self) }
}
extension Int64: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: Int64.self) }
}
extension UInt: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: UInt.self) }
}
extension UInt8: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: UInt8.self) }
}
extension UInt16: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: UInt16.self) }
}
extension UInt32: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: UInt32.self) }
}
extension UInt64: CodableArchiveDecodablePrimitive {
    init(archiveValue value: PropertyList) throws { self = try ArchiveScalar.integer(value, as: UInt64.self) }
}

extension CodableArchiveReader {
    /// Reads a primitive, turning a conversion failure into a `DecodingError`.
    func primitive<T: CodableArchiveDecodablePrimitive>(
        _ type: T.Type, _ value: PropertyList, codingPath: [any CodingKey]
    ) throws -> T {
        let plain = try scalar(value, codingPath: codingPath, expected: T.self)
        do {
            return try T(archiveValue: plain)
        } catch let error as KeyedArchiveError {
            let location = CodableKeyPath.render(codingPath, prefix: pathPrefix)
            var located = error
            located.location = .keyPath(location)
            let context = DecodingError.Context(
                codingPath: codingPath, debugDescription: "\(location): \(error.message)",
                underlyingError: located)
            if error.code == .valueOutOfRange { throw DecodingError.dataCorrupted(context) }
            throw DecodingError.typeMismatch(T.self, context)
        }
    }
}

// MARK: - Decoder

struct CodableDecodingNode: Decoder {
    let reader: CodableArchiveReader
    let value: PropertyList
    let codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] { reader.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(
            CodableKeyedDecodingContainer<Key>(
                reader: reader, source: try reader.keyedSource(value, codingPath: codingPath),
                codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        CodableUnkeyedDecodingContainer(
            reader: reader, elements: try reader.unkeyedElements(value, codingPath: codingPath),
            codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if case .dictionary(let fields) = value, let single = fields["NS.value"] {
            return CodableSingleValueDecodingContainer(reader: reader, value: single, codingPath: codingPath)
        }
        return CodableSingleValueDecodingContainer(reader: reader, value: value, codingPath: codingPath)
    }
}

struct CodableKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: CodableArchiveReader
    let source: CodableArchiveReader.KeyedSource
    let codingPath: [any CodingKey]

    var allKeys: [Key] {
        switch source {
        case .fields(let fields):
            return fields.keys.compactMap { key in
                key == "$class" ? nil : Key(stringValue: archiveUnescapedKey(key))
            }
        case .entries(_, let order):
            return order.compactMap { Key(stringValue: $0) }
        }
    }

    func lookup(_ key: Key) -> PropertyList? {
        switch source {
        case .fields(let fields): return fields[archiveEscapedKey(key.stringValue)]
        case .entries(let entries, _): return entries[key.stringValue]
        }
    }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    private func required(_ key: Key) throws -> PropertyList {
        guard let value = lookup(key) else {
            throw DecodingError.keyNotFound(
                key,
                reader.context(codingPath + [key], .invalidArchive, "no value for key \"\(key.stringValue)\"")
            )
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = lookup(key) else { return true }
        return try reader.isNil(value, codingPath: codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try reader.primitive(Bool.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try reader.primitive(String.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try reader.primitive(Double.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try reader.primitive(Float.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try reader.primitive(Int.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try reader.primitive(Int8.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try reader.primitive(Int16.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try reader.primitive(Int32.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try reader.primitive(Int64.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try reader.primitive(UInt.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try reader.primitive(UInt8.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try reader.primitive(UInt16.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try reader.primitive(UInt32.self, required(key), codingPath: codingPath + [key])
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try reader.primitive(UInt64.self, required(key), codingPath: codingPath + [key])
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try reader.decodeValue(T.self, from: required(key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let path = codingPath + [key]
        return KeyedDecodingContainer(
            CodableKeyedDecodingContainer<NestedKey>(
                reader: reader, source: try reader.keyedSource(required(key), codingPath: path),
                codingPath: path))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let path = codingPath + [key]
        return CodableUnkeyedDecodingContainer(
            reader: reader, elements: try reader.unkeyedElements(required(key), codingPath: path),
            codingPath: path)
    }

    func superDecoder() throws -> any Decoder {
        let key = CodableArchiveKey.superKey
        let value = lookup(key.stringValue) ?? .uid(0)
        return CodableDecodingNode(reader: reader, value: value, codingPath: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        CodableDecodingNode(reader: reader, value: lookup(key) ?? .uid(0), codingPath: codingPath + [key])
    }

    private func lookup(_ name: String) -> PropertyList? {
        switch source {
        case .fields(let fields): return fields[archiveEscapedKey(name)]
        case .entries(let entries, _): return entries[name]
        }
    }
}

struct CodableUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let reader: CodableArchiveReader
    let elements: [PropertyList]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(reader: CodableArchiveReader, elements: [PropertyList], codingPath: [any CodingKey]) {
        self.reader = reader
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [CodableArchiveKey(intValue: currentIndex)] }

    private mutating func next(_ type: Any.Type) throws -> PropertyList {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(
                type, reader.context(currentPath, .invalidArchive, "unkeyed container is at its end"))
        }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    private mutating func primitive<T: CodableArchiveDecodablePrimitive>(_ type: T.Type) throws -> T {
        let path = currentPath
        return try reader.primitive(T.self, next(T.self), codingPath: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(
                Any?.self, reader.context(currentPath, .invalidArchive, "unkeyed container is at its end"))
        }
        if try reader.isNil(elements[currentIndex], codingPath: currentPath) {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try primitive(Bool.self) }
    mutating func decode(_ type: String.Type) throws -> String { try primitive(String.self) }
    mutating func decode(_ type: Double.Type) throws -> Double { try primitive(Double.self) }
    mutating func decode(_ type: Float.Type) throws -> Float { try primitive(Float.self) }
    mutating func decode(_ type: Int.Type) throws -> Int { try primitive(Int.self) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try primitive(Int8.self) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try primitive(Int16.self) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try primitive(Int32.self) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try primitive(Int64.self) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try primitive(UInt.self) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(UInt8.self) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(UInt16.self) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(UInt32.self) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(UInt64.self) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = currentPath
        return try reader.decodeValue(T.self, from: next(T.self), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let path = currentPath
        let value = try next([String: Any].self)
        return KeyedDecodingContainer(
            CodableKeyedDecodingContainer<NestedKey>(
                reader: reader, source: try reader.keyedSource(value, codingPath: path), codingPath: path))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = currentPath
        let value = try next([Any].self)
        return CodableUnkeyedDecodingContainer(
            reader: reader, elements: try reader.unkeyedElements(value, codingPath: path), codingPath: path)
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = currentPath
        return CodableDecodingNode(reader: reader, value: try next(Any.self), codingPath: path)
    }
}

struct CodableSingleValueDecodingContainer: SingleValueDecodingContainer {
    let reader: CodableArchiveReader
    let value: PropertyList
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { (try? reader.isNil(value, codingPath: codingPath)) ?? false }

    func decode(_ type: Bool.Type) throws -> Bool {
        try reader.primitive(Bool.self, value, codingPath: codingPath)
    }
    func decode(_ type: String.Type) throws -> String {
        try reader.primitive(String.self, value, codingPath: codingPath)
    }
    func decode(_ type: Double.Type) throws -> Double {
        try reader.primitive(Double.self, value, codingPath: codingPath)
    }
    func decode(_ type: Float.Type) throws -> Float {
        try reader.primitive(Float.self, value, codingPath: codingPath)
    }
    func decode(_ type: Int.Type) throws -> Int {
        try reader.primitive(Int.self, value, codingPath: codingPath)
    }
    func decode(_ type: Int8.Type) throws -> Int8 {
        try reader.primitive(Int8.self, value, codingPath: codingPath)
    }
    func decode(_ type: Int16.Type) throws -> Int16 {
        try reader.primitive(Int16.self, value, codingPath: codingPath)
    }
    func decode(_ type: Int32.Type) throws -> Int32 {
        try reader.primitive(Int32.self, value, codingPath: codingPath)
    }
    func decode(_ type: Int64.Type) throws -> Int64 {
        try reader.primitive(Int64.self, value, codingPath: codingPath)
    }
    func decode(_ type: UInt.Type) throws -> UInt {
        try reader.primitive(UInt.self, value, codingPath: codingPath)
    }
    func decode(_ type: UInt8.Type) throws -> UInt8 {
        try reader.primitive(UInt8.self, value, codingPath: codingPath)
    }
    func decode(_ type: UInt16.Type) throws -> UInt16 {
        try reader.primitive(UInt16.self, value, codingPath: codingPath)
    }
    func decode(_ type: UInt32.Type) throws -> UInt32 {
        try reader.primitive(UInt32.self, value, codingPath: codingPath)
    }
    func decode(_ type: UInt64.Type) throws -> UInt64 {
        try reader.primitive(UInt64.self, value, codingPath: codingPath)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try reader.decodeValue(T.self, from: value, codingPath: codingPath)
    }
}
