#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the Codable bridge lays a value out in `$objects`.
enum CodableArchiveLayout {
    /// Apple's `encodeEncodable(_:forKey:)`: the value flattened as `PropertyListEncoder`
    /// flattens it, stored as `NSMutableDictionary`, `NSMutableArray`, strings, numbers,
    /// data and `NSDate` objects; `nil` is the string `$null`.
    case propertyList
    /// ``KeyedArchiveEncoder``: every keyed value is an object of its type's class name
    /// whose fields are its keys (numbers inline, everything else by reference); class
    /// instances keep their identity; dictionaries are `NSDictionary`, unkeyed containers
    /// `NSArray`; `nil` is UID 0 under a key and `NSNull` in an array.
    case objects
}

/// One encoded value: a reference into `$objects` or an inline scalar.
enum CodableSlot {
    case reference(Int)
    case integer(PropertyListInteger)
    case real(UInt64)
    case bool(Bool)
    case null
}

/// A value stored in a container, resolved when the value that owns the container finishes.
enum CodableEntry {
    case slot(CodableSlot)
    case keyed(CodableKeyedStorage)
    case unkeyed(CodableUnkeyedStorage)
    case encoder(CodableEncodingNode)
}

final class CodableKeyedStorage {
    var keys: [String] = []
    var entries: [CodableEntry] = []

    func append(_ key: String, _ entry: CodableEntry) {
        keys.append(key)
        entries.append(entry)
    }
}

final class CodableUnkeyedStorage {
    var entries: [CodableEntry] = []
}

/// Marks `Dictionary`, whose keyed containers are archived as `NSDictionary`.
protocol CodableArchiveDictionary {}
extension Dictionary: CodableArchiveDictionary {}

/// Values the bridge stores directly instead of calling their `encode(to:)`.
protocol CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot
}

extension String: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        .reference(writer.archiver.table.uniqueIndex(of: .string(self)))
    }
}
extension Bool: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot { .bool(self) }
}
extension Double: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot { .real(bitPattern) }
}
extension Float: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot { .real(Double(self).bitPattern) }
}
extension Data: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        .reference(writer.archiver.table.uniqueIndex(of: .data(self)))
    }
}
extension Date: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        writer.date(self)
    }
}
extension Int: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot { .integer(PropertyListInteger(self)) }
}
extension Int8: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        .integer(PropertyListInteger(Int64(self)))
    }
}
extension Int16: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        .integer(PropertyListInteger(Int64(self)))
    }
}
extension Int32: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        .integer(PropertyListInteger(Int64(self)))
    }
}
extension Int64: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot { .integer(PropertyListInteger(self)) }
}
extension UInt: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot { .integer(PropertyListInteger(self)) }
}
extension UInt8: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        .integer(PropertyListInteger(UInt64(self)))
    }
}
extension UInt16: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        .integer(PropertyListInteger(UInt64(self)))
    }
}
extension UInt32: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot {
        .integer(PropertyListInteger(UInt64(self)))
    }
}
extension UInt64: CodableArchivePrimitive {
    func archiveSlot(_ writer: CodableArchiveWriter) -> CodableSlot { .integer(PropertyListInteger(self)) }
}

/// The engine behind `encodeEncodable(_:forKey:)`, ``KeyedArchiveEncoder`` and
/// ``ArchivedCodable``: runs `encode(to:)` and writes the result into an archiver's
/// object table.
final class CodableArchiveWriter {
    let archiver: KeyedArchiver
    let layout: CodableArchiveLayout
    let naming: (Any.Type) -> String
    let userInfo: [CodingUserInfoKey: Any]
    let maximumDepth: Int
    /// The path of `$top` keys (or archive key path) in front of every coding path.
    let pathPrefix: String

    private var classUIDs: [ObjectIdentifier: Int] = [:]
    private var namedClassUIDs: [String: Int] = [:]
    private var identities: [ObjectIdentifier: Int] = [:]
    private var inProgress: Set<ObjectIdentifier> = []
    private var retained: [AnyObject] = []
    private var nullUID: Int?
    private var depth = 0

    init(
        archiver: KeyedArchiver, layout: CodableArchiveLayout, pathPrefix: String,
        userInfo: [CodingUserInfoKey: Any] = [:], maximumDepth: Int = 512,
        naming: @escaping (Any.Type) -> String = { String(reflecting: $0) }
    ) {
        self.archiver = archiver
        self.layout = layout
        self.pathPrefix = pathPrefix
        self.userInfo = userInfo
        self.maximumDepth = maximumDepth
        self.naming = naming
    }

    // MARK: Entry points

    /// Encodes a top-level value and returns its `$objects` index.
    func encodeRoot<T: Encodable>(_ value: T) throws -> Int {
        let slot = try encodeValue(value, codingPath: [], isRoot: true)
        return uid(of: slot)
    }

    /// Encodes `value` as the fields of the object the archiver is encoding (for
    /// ``ArchivedCodable``): keyed values give their keys, unkeyed ones `NS.objects`, single
    /// values `NS.value`.
    func encodeFields<T: Encodable>(of value: T) throws -> [ArchiveField] {
        let node = CodableEncodingNode(writer: self, codingPath: [])
        try value.encode(to: node)
        switch node.storage {
        case .empty:
            return []
        case .single(let entry):
            return [ArchiveField(key: "NS.value", value: fieldValue(try resolve(entry, codingPath: [])))]
        case .keyed(let storage):
            return try objectFields(storage, codingPath: [])
        case .unkeyed(let storage):
            let uids = try storage.entries.map { uid(of: try resolve($0, codingPath: [])) }
            return [ArchiveField(key: "NS.objects", value: .references(uids))]
        }
    }

    // MARK: Values

    func encodeValue<T: Encodable>(_ value: T, codingPath: [any CodingKey], isRoot: Bool = false) throws
        -> CodableSlot
    {
        if let primitive = value as? any CodableArchivePrimitive { return primitive.archiveSlot(self) }
        if layout == .objects, T.self is AnyObject.Type {
            let instance = value as AnyObject
            let identifier = ObjectIdentifier(instance)
            if let uid = identities[identifier] { return .reference(uid) }
            guard !inProgress.contains(identifier) else {
                throw EncodingError.invalidValue(
                    value,
                    context(
                        codingPath, .unresolvableCycle,
                        "an instance of \(T.self) refers back to itself while it is being encoded; "
                            + "Codable cannot rebuild a cycle, so KeyedArchiveEncoder refuses it"))
            }
            inProgress.insert(identifier)
            defer { inProgress.remove(identifier) }
            let slot = try encodeComposite(value, codingPath: codingPath, isRoot: isRoot)
            let uid = self.uid(of: slot)
            identities[identifier] = uid
            retained.append(instance)
            return .reference(uid)
        }
        return try encodeComposite(value, codingPath: codingPath, isRoot: isRoot)
    }

    private func encodeComposite<T: Encodable>(_ value: T, codingPath: [any CodingKey], isRoot: Bool) throws
        -> CodableSlot
    {
        guard depth < maximumDepth else {
            throw EncodingError.invalidValue(
                value,
                context(codingPath, .limitExceeded, "nesting is deeper than the limit of \(maximumDepth)"))
        }
        depth += 1
        defer { depth -= 1 }
        let node = CodableEncodingNode(writer: self, codingPath: codingPath)
        if layout == .objects, !(T.self is any CodableArchiveDictionary.Type) {
            node.typeName = typeName(T.self)
        }
        try value.encode(to: node)
        if isRoot, case .empty = node.storage {
            throw EncodingError.invalidValue(
                value, context(codingPath, .invalidValue, "top-level \(T.self) did not encode any values"))
        }
        return try finish(node)
    }

    /// The name written for `type`, remembered per type.
    private var typeNames: [ObjectIdentifier: String] = [:]
    private func typeName(_ type: Any.Type) -> String {
        let identifier = ObjectIdentifier(type)
        if let name = typeNames[identifier] { return name }
        let name = naming(type)
        typeNames[identifier] = name
        return name
    }

    func finish(_ node: CodableEncodingNode) throws -> CodableSlot {
        switch node.storage {
        case .empty:
            return .reference(
                try store(CodableKeyedStorage(), name: node.typeName, codingPath: node.codingPath))
        case .single(let entry):
            return try resolve(entry, codingPath: node.codingPath)
        case .keyed(let storage):
            return .reference(try store(storage, name: node.typeName, codingPath: node.codingPath))
        case .unkeyed(let storage):
            return .reference(try store(storage, codingPath: node.codingPath))
        }
    }

    func resolve(_ entry: CodableEntry, codingPath: [any CodingKey]) throws -> CodableSlot {
        switch entry {
        case .slot(let slot): return slot
        case .keyed(let storage): return .reference(try store(storage, name: nil, codingPath: codingPath))
        case .unkeyed(let storage): return .reference(try store(storage, codingPath: codingPath))
        case .encoder(let node): return try finish(node)
        }
    }

    // MARK: Records

    private func store(_ storage: CodableKeyedStorage, name: String?, codingPath: [any CodingKey]) throws
        -> Int
    {
        if layout == .objects, let name {
            let fields = try objectFields(storage, codingPath: codingPath)
            let uid = archiver.table.reserve()
            archiver.table.fill(uid, classUID: classUID(named: name), fields: fields)
            return uid
        }
        var keyUIDs: [Int] = []
        var valueUIDs: [Int] = []
        keyUIDs.reserveCapacity(storage.keys.count)
        valueUIDs.reserveCapacity(storage.keys.count)
        for (key, entry) in zip(storage.keys, storage.entries) {
            keyUIDs.append(archiver.table.uniqueIndex(of: .string(key)))
            valueUIDs.append(uid(of: try resolve(entry, codingPath: codingPath)))
        }
        let uid = archiver.table.reserve()
        let className = layout == .propertyList ? "NSMutableDictionary" : "NSDictionary"
        archiver.table.fill(
            uid, classUID: classUID(named: className),
            fields: [
                ArchiveField(key: "NS.keys", value: .references(keyUIDs)),
                ArchiveField(key: "NS.objects", value: .references(valueUIDs)),
            ])
        return uid
    }

    private func store(_ storage: CodableUnkeyedStorage, codingPath: [any CodingKey]) throws -> Int {
        var uids: [Int] = []
        uids.reserveCapacity(storage.entries.count)
        for entry in storage.entries {
            uids.append(uid(of: try resolve(entry, codingPath: codingPath)))
        }
        let uid = archiver.table.reserve()
        let className = layout == .propertyList ? "NSMutableArray" : "NSArray"
        archiver.table.fill(
            uid, classUID: classUID(named: className),
            fields: [ArchiveField(key: "NS.objects", value: .references(uids))])
        return uid
    }

    private func objectFields(_ storage: CodableKeyedStorage, codingPath: [any CodingKey]) throws
        -> [ArchiveField]
    {
        var fields: [ArchiveField] = []
        fields.reserveCapacity(storage.keys.count)
        for (key, entry) in zip(storage.keys, storage.entries) {
            fields.append(
                ArchiveField(
                    key: archiveEscapedKey(key), value: fieldValue(try resolve(entry, codingPath: codingPath))
                ))
        }
        return fields
    }

    /// A slot as an object field: numbers inline, everything else by reference.
    func fieldValue(_ slot: CodableSlot) -> ArchiveFieldValue {
        switch slot {
        case .reference(let uid): return .reference(uid)
        case .integer(let value): return .integer(value)
        case .real(let bits): return .real(bits)
        case .bool(let flag): return .bool(flag)
        case .null: return .reference(0)
        }
    }

    /// A slot as an entry of `$objects` (for collections and `$top`).
    func uid(of slot: CodableSlot) -> Int {
        switch slot {
        case .reference(let uid): return uid
        case .integer(let value): return archiver.table.uniqueIndex(of: .integer(value))
        case .real(let bits): return archiver.table.uniqueIndex(of: .real(bits))
        case .bool(let flag): return archiver.table.uniqueIndex(of: .bool(flag))
        case .null: return null()
        }
    }

    /// `nil` in a collection: the string `$null` (as `PropertyListEncoder`) or an `NSNull` object.
    private func null() -> Int {
        if let nullUID { return nullUID }
        let uid: Int
        switch layout {
        case .propertyList:
            uid = archiver.table.uniqueIndex(of: .string("$null"))
        case .objects:
            uid = archiver.table.uniqueIndex(of: .object(classUID: classUID(named: "NSNull"), fields: []))
        }
        nullUID = uid
        return uid
    }

    func date(_ date: Date) -> CodableSlot {
        let uid = archiver.table.reserve()
        archiver.table.fill(
            uid, classUID: classUID(named: "NSDate"),
            fields: [
                ArchiveField(key: "NS.time", value: .real(date.timeIntervalSinceReferenceDate.bitPattern))
            ])
        return .reference(uid)
    }

    func classUID(named name: String) -> Int {
        if let uid = namedClassUIDs[name] { return uid }
        let chain: [String]
        switch name {
        case "NSMutableDictionary": chain = ["NSMutableDictionary", "NSDictionary", "NSObject"]
        case "NSMutableArray": chain = ["NSMutableArray", "NSArray", "NSObject"]
        default: chain = [name, "NSObject"]
        }
        let uid = archiver.table.classIndex(name: name, classes: chain)
        namedClassUIDs[name] = uid
        return uid
    }

    // MARK: Errors

    func context(_ codingPath: [any CodingKey], _ code: KeyedArchiveError.Code, _ message: String)
        -> EncodingError.Context
    {
        let location = CodableKeyPath.render(codingPath, prefix: pathPrefix)
        return EncodingError.Context(
            codingPath: codingPath, debugDescription: "\(location): \(message)",
            underlyingError: KeyedArchiveError(code, message, at: .keyPath(location)))
    }
}

/// Renders coding paths as archive key paths (`root.creatures[3].name`).
enum CodableKeyPath {
    static func render(_ codingPath: [any CodingKey], prefix: String) -> String {
        var text = prefix
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)"
            {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text.isEmpty ? "$top" : text
    }
}

/// A coding key for positions and synthesized names.
struct CodableArchiveKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    static let superKey = CodableArchiveKey(stringValue: "super")
}

// MARK: - Encoder

final class CodableEncodingNode: Encoder {
    enum Storage {
        case empty
        case single(CodableEntry)
        case keyed(CodableKeyedStorage)
        case unkeyed(CodableUnkeyedStorage)
    }

    let writer: CodableArchiveWriter
    let codingPath: [any CodingKey]
    var storage: Storage = .empty
    /// The class name of a keyed value of a named type (objects layout), or `nil` for a dictionary.
    var typeName: String?

    var userInfo: [CodingUserInfoKey: Any] { writer.userInfo }

    init(writer: CodableArchiveWriter, codingPath: [any CodingKey]) {
        self.writer = writer
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let keyed: CodableKeyedStorage
        if case .keyed(let existing) = storage {
            keyed = existing
        } else {
            keyed = CodableKeyedStorage()
            storage = .keyed(keyed)
        }
        return KeyedEncodingContainer(
            CodableKeyedEncodingContainer<Key>(writer: writer, storage: keyed, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let unkeyed: CodableUnkeyedStorage
        if case .unkeyed(let existing) = storage {
            unkeyed = existing
        } else {
            unkeyed = CodableUnkeyedStorage()
            storage = .unkeyed(unkeyed)
        }
        return CodableUnkeyedEncodingContainer(writer: writer, storage: unkeyed, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CodableSingleValueEncodingContainer(node: self)
    }
}

struct CodableKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: CodableArchiveWriter
    let storage: CodableKeyedStorage
    let codingPath: [any CodingKey]

    private func put(_ slot: CodableSlot, _ key: Key) {
        storage.append(key.stringValue, .slot(slot))
    }

    mutating func encodeNil(forKey key: Key) throws {
        put(.null, key)
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(.real(value.bitPattern), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(.real(Double(value).bitPattern), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        put(.integer(PropertyListInteger(value)), key)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(value.archiveSlot(writer), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(value.archiveSlot(writer), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(try writer.encodeValue(value, codingPath: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = CodableKeyedStorage()
        storage.append(key.stringValue, .keyed(nested))
        return KeyedEncodingContainer(
            CodableKeyedEncodingContainer<NestedKey>(
                writer: writer, storage: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = CodableUnkeyedStorage()
        storage.append(key.stringValue, .unkeyed(nested))
        return CodableUnkeyedEncodingContainer(
            writer: writer, storage: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(key: CodableArchiveKey.superKey, name: CodableArchiveKey.superKey.stringValue)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(key: key, name: key.stringValue)
    }

    private func superEncoder(key: any CodingKey, name: String) -> any Encoder {
        let node = CodableEncodingNode(writer: writer, codingPath: codingPath + [key])
        storage.append(name, .encoder(node))
        return node
    }
}

struct CodableUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let writer: CodableArchiveWriter
    let storage: CodableUnkeyedStorage
    let codingPath: [any CodingKey]

    var count: Int { storage.entries.count }

    private func put(_ slot: CodableSlot) {
        storage.entries.append(.slot(slot))
    }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: Double) throws { put(.real(value.bitPattern)) }
    mutating func encode(_ value: Float) throws { put(.real(Double(value).bitPattern)) }
    mutating func encode(_ value: Int) throws { put(.integer(PropertyListInteger(value))) }
    mutating func encode(_ value: Int8) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: Int16) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: Int32) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: Int64) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: UInt) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: UInt8) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: UInt16) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: UInt32) throws { put(value.archiveSlot(writer)) }
    mutating func encode(_ value: UInt64) throws { put(value.archiveSlot(writer)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = CodableArchiveKey(intValue: storage.entries.count)
        put(try writer.encodeValue(value, codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let key = CodableArchiveKey(intValue: storage.entries.count)
        let nested = CodableKeyedStorage()
        storage.entries.append(.keyed(nested))
        return KeyedEncodingContainer(
            CodableKeyedEncodingContainer<NestedKey>(
                writer: writer, storage: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = CodableArchiveKey(intValue: storage.entries.count)
        let nested = CodableUnkeyedStorage()
        storage.entries.append(.unkeyed(nested))
        return CodableUnkeyedEncodingContainer(
            writer: writer, storage: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = CodableArchiveKey(intValue: storage.entries.count)
        let node = CodableEncodingNode(writer: writer, codingPath: codingPath + [key])
        storage.entries.append(.encoder(node))
        return node
    }
}

struct CodableSingleValueEncodingContainer: SingleValueEncodingContainer {
    let node: CodableEncodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    private func put(_ slot: CodableSlot) throws {
        if case .empty = node.storage {
            node.storage = .single(.slot(slot))
            return
        }
        throw EncodingError.invalidValue(
            slot,
            node.writer.context(
                codingPath, .invalidValue, "a single value container was asked for after a value was encoded")
        )
    }

    mutating func encodeNil() throws { try put(.null) }
    mutating func encode(_ value: Bool) throws { try put(.bool(value)) }
    mutating func encode(_ value: String) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: Double) throws { try put(.real(value.bitPattern)) }
    mutating func encode(_ value: Float) throws { try put(.real(Double(value).bitPattern)) }
    mutating func encode(_ value: Int) throws { try put(.integer(PropertyListInteger(value))) }
    mutating func encode(_ value: Int8) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: Int16) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: Int32) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: Int64) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: UInt) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: UInt8) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: UInt16) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: UInt32) throws { try put(value.archiveSlot(node.writer)) }
    mutating func encode(_ value: UInt64) throws { try put(value.archiveSlot(node.writer)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try put(try node.writer.encodeValue(value, codingPath: codingPath))
    }
}
