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

/// Marks `Dictionary`, whose keyed containers are archived as `NSDictionary`.
protocol CodableArchiveDictionary {}
extension Dictionary: CodableArchiveDictionary {}

/// The engine behind `encodeEncodable(_:forKey:)`, ``KeyedArchiveEncoder`` and
/// ``ArchivedCodable``: runs `encode(to:)` and writes the result into an archiver's
/// object table.
///
/// The hot path avoids what dominates a naive Codable encoder: coding paths are links to
/// the parent, turned into `[CodingKey]` only for errors and `codingPath`; the common
/// primitives are found by comparing metatypes, other per-type decisions (primitive,
/// class, dictionary, class name) are cached per type; containers append straight into
/// the node that owns them. Every use of the archiver's object table is in the
/// "Object table" section.
final class CodableArchiveWriter {
    let archiver: KeyedArchiver
    let layout: CodableArchiveLayout
    let naming: (Any.Type) -> String
    let userInfo: [CodingUserInfoKey: Any]
    let maximumDepth: Int
    /// The path of `$top` keys (or archive key path) in front of every coding path.
    let pathPrefix: String

    // The state below is touched for every value; a writer is used by one thread and no
    // access to it spans a call that could reach it again, so the dynamic exclusivity
    // checks would only cost time.
    @exclusivity(unchecked) private var namedClassUIDs: [String: Int] = [:]
    @exclusivity(unchecked) private var identities: [ObjectIdentifier: Int] = [:]
    @exclusivity(unchecked) private var inProgress: Set<ObjectIdentifier> = []
    @exclusivity(unchecked) private var retained: [AnyObject] = []
    @exclusivity(unchecked) private var nullUID: Int?
    @exclusivity(unchecked) private var dateClassUID: Int?
    @exclusivity(unchecked) private var boolUIDs: (false: Int?, true: Int?) = (nil, nil)
    /// The keys (and their `$objects` indices) of the last dictionary stored: the keyed
    /// containers of one type repeat them.
    @exclusivity(unchecked) private var lastDictionaryKeys: [String] = []
    @exclusivity(unchecked) private var lastDictionaryKeyUIDs: [Int] = []
    /// The `NS.keys` array object of ``lastDictionaryKeyUIDs``, once stored.
    @exclusivity(unchecked) private var lastDictionaryKeyArray: Int?
    /// The key objects `NS.keys` and `NS.objects`, the dictionary class, and buffers for
    /// the value objects and the values' `$objects` indices.
    @exclusivity(unchecked) private var dictionaryKeyObjects: [Int] = []
    @exclusivity(unchecked) private var dictionaryClassUID: Int?
    @exclusivity(unchecked) private var dictionaryValueObjects: [Int] = []
    @exclusivity(unchecked) private var dictionaryValueUIDs: [Int] = []
    /// The keys (and their key objects) of the last object stored from a keyed
    /// container: the values of one type repeat them.
    @exclusivity(unchecked) private var lastFieldKeys: [String] = []
    @exclusivity(unchecked) private var lastFieldKeyObjects: [Int] = []
    /// Reused buffer for an object's value objects.
    @exclusivity(unchecked) private var fieldValueObjects: [Int] = []
    /// The key object `NS.time` (one element) and a buffer for a date's value object.
    @exclusivity(unchecked) private var dateKeyObjects: [Int] = []
    @exclusivity(unchecked) private var dateValueObjects: [Int] = [0]
    @exclusivity(unchecked) private var depth = 0
    /// The entry count of the last keyed container, to reserve for the next.
    @exclusivity(unchecked) private(set) var keyedCapacity = 0

    /// What the writer needs to know about a type, worked out once.
    struct TypeInfo {
        var isPrimitive: Bool
        var isClass: Bool
        /// The class of a keyed value of this type (objects layout, named types only).
        var classUID: Int?
    }
    @exclusivity(unchecked) private var typeInfos: [ObjectIdentifier: TypeInfo] = [:]
    @exclusivity(unchecked) private var lastType: ObjectIdentifier?
    @exclusivity(unchecked) private var lastTypeInfo = TypeInfo(
        isPrimitive: false, isClass: false, classUID: nil)

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
        let slot = try encodeValue(value, parent: nil, key: nil, isRoot: true)
        return uid(of: slot)
    }

    /// Encodes `value` as the fields of the object the archiver is encoding (for
    /// ``ArchivedCodable``): keyed values give their keys, unkeyed ones `NS.objects`, single
    /// values `NS.value`.
    func encodeFields<T: Encodable>(of value: T) throws -> [ArchiveField] {
        let node = CodableEncodingNode(writer: self, parentPath: nil, key: nil)
        try value.encode(to: node)
        try resolveDeferred(node)
        switch node.kind {
        case .empty:
            return []
        case .single:
            guard let slot = node.slots.first else { return [] }
            return [ArchiveField(key: "NS.value", value: fieldValue(slot))]
        case .keyed:
            return objectFields(node)
        case .unkeyed:
            return [ArchiveField(key: "NS.objects", value: .references(node.slots.map { uid(of: $0) }))]
        }
    }

    // MARK: Values

    func encodeValue<T: Encodable>(
        _ value: T, parent: CodablePath?, key: (any CodingKey)?, isRoot: Bool = false
    ) throws -> CodableSlot {
        // The common primitives by metatype comparison: no conformance lookup.
        // T is the type compared with: `as?` would cost a dynamic cast per value.
        if T.self == Date.self { return date(unsafeBitCast(value, to: Date.self)) }
        if T.self == String.self { return string(unsafeBitCast(value, to: String.self)) }
        let info = typeInfo(T.self)
        if info.isPrimitive, let primitive = value as? any ArchivePrimitive {
            if let record = primitive.archivePlainRecord { return slot(record) }
            if let value = primitive as? Date { return date(value) }
        }
        if info.isClass {
            let instance = value as AnyObject
            let identifier = ObjectIdentifier(instance)
            if let uid = identities[identifier] { return .reference(uid) }
            guard !inProgress.contains(identifier) else {
                throw EncodingError.invalidValue(
                    value,
                    context(
                        parent, key, .unresolvableCycle,
                        "an instance of \(T.self) refers back to itself while it is being encoded; "
                            + "Codable cannot rebuild a cycle, so KeyedArchiveEncoder refuses it"))
            }
            inProgress.insert(identifier)
            defer { inProgress.remove(identifier) }
            let slot = try encodeComposite(value, info, parent: parent, key: key, isRoot: isRoot)
            let uid = self.uid(of: slot)
            identities[identifier] = uid
            retained.append(instance)
            return .reference(uid)
        }
        return try encodeComposite(value, info, parent: parent, key: key, isRoot: isRoot)
    }

    private func encodeComposite<T: Encodable>(
        _ value: T, _ info: TypeInfo, parent: CodablePath?, key: (any CodingKey)?, isRoot: Bool
    ) throws -> CodableSlot {
        guard depth < maximumDepth else {
            throw EncodingError.invalidValue(
                value,
                context(parent, key, .limitExceeded, "nesting is deeper than the limit of \(maximumDepth)"))
        }
        if depth >= StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
            throw EncodingError.invalidValue(
                value, context(parent, key, .limitExceeded, StackHeadroom.message(depth: depth)))
        }
        depth += 1
        defer { depth -= 1 }
        let node = CodableEncodingNode(writer: self, parentPath: parent, key: key)
        node.classUID = info.classUID
        try value.encode(to: node)
        if isRoot, case .empty = node.kind {
            throw EncodingError.invalidValue(
                value, context(parent, key, .invalidValue, "top-level \(T.self) did not encode any values"))
        }
        return try finish(node)
    }

    /// The cached facts about `type`.
    private func typeInfo<T>(_ type: T.Type) -> TypeInfo {
        let identifier = ObjectIdentifier(type)
        if identifier == lastType { return lastTypeInfo }
        let info: TypeInfo
        if let known = typeInfos[identifier] {
            info = known
        } else {
            let isPrimitive = type is any ArchivePrimitive.Type
            let isClass = layout == .objects && type is AnyObject.Type
            var classUID: Int?
            if !isPrimitive, layout == .objects, !(type is any CodableArchiveDictionary.Type) {
                classUID = self.classUID(named: naming(type))
            }
            info = TypeInfo(isPrimitive: isPrimitive, isClass: isClass, classUID: classUID)
            typeInfos[identifier] = info
        }
        lastType = identifier
        lastTypeInfo = info
        return info
    }

    /// Turns a finished node into a slot, storing its record.
    func finish(_ node: CodableEncodingNode) throws -> CodableSlot {
        try resolveDeferred(node)
        switch node.kind {
        case .empty:
            if layout == .objects, let classUID = node.classUID {
                return .reference(storeObject(classUID: classUID, fields: []))
            }
            return .reference(storeDictionary(node))
        case .single:
            return node.slots.first ?? .null
        case .keyed:
            keyedCapacity = node.fields.count
            if layout == .objects, let classUID = node.classUID {
                return .reference(storeFields(of: node, classUID: classUID))
            }
            return .reference(storeDictionary(node))
        case .unkeyed:
            return .reference(storeArray(node))
        }
    }

    /// Stores the nested containers and super-encoders of `node` in their positions.
    private func resolveDeferred(_ node: CodableEncodingNode) throws {
        guard !node.deferred.isEmpty else { return }
        let deferred = node.deferred
        node.deferred = []
        for (position, child) in deferred {
            let slot = try finish(child)
            switch node.kind {
            case .keyed where node.fields.indices.contains(position): node.fields[position].slot = slot
            case .unkeyed where node.slots.indices.contains(position): node.slots[position] = slot
            default: break
            }
        }
    }

    private func objectFields(_ node: CodableEncodingNode) -> [ArchiveField] {
        var fields: [ArchiveField] = []
        fields.reserveCapacity(node.fields.count)
        for field in node.fields {
            fields.append(ArchiveField(key: archiveEscapedKey(field.key), value: fieldValue(field.slot)))
        }
        return fields
    }

    /// A slot as an object field: numbers inline, everything else by reference.
    func fieldValue(_ slot: CodableSlot) -> ArchiveFieldValue { Self.fieldValue(slot) }

    static func fieldValue(_ slot: CodableSlot) -> ArchiveFieldValue {
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
        case .integer(let value): return unique(.integer(value))
        case .real(let bits): return unique(.real(bits))
        case .bool(let flag):
            if let known = flag ? boolUIDs.true : boolUIDs.false { return known }
            let uid = unique(.bool(flag))
            if flag { boolUIDs.true = uid } else { boolUIDs.false = uid }
            return uid
        case .null: return null()
        }
    }

    func string(_ text: String) -> CodableSlot {
        .reference(archiver.table.uniqueString(text))
    }

    /// The slot of a primitive's plain record: numbers and Booleans inline, strings and
    /// data stored once each.
    func slot(_ record: ArchivedObjectRecord) -> CodableSlot {
        switch record {
        case .integer(let value): return .integer(value)
        case .real(let bits): return .real(bits)
        // The Codable layout keeps every real in 8 bytes, as before.
        case .float(let bits): return .real(Double(Float(bitPattern: bits)).bitPattern)
        case .bool(let flag): return .bool(flag)
        case .string(let text): return string(text)
        case .data(let bytes): return data(bytes)
        case .null: return .null
        case .object, .classDescription: return .reference(unique(record))
        }
    }

    func data(_ bytes: Data) -> CodableSlot {
        .reference(unique(.data(bytes)))
    }

    func date(_ date: Date) -> CodableSlot {
        let classUID: Int
        if let known = dateClassUID {
            classUID = known
        } else {
            classUID = self.classUID(named: CataloguedClass.date.name)
            dateClassUID = classUID
        }
        // Not de-duplicated: hashing an object record costs more than storing it. Stored
        // like `storeObject` would (entry, key, value, `$class`), without building fields.
        return .reference(
            Self.storeDate(
                date, in: &archiver.table, classUID: classUID, keys: &dateKeyObjects,
                values: &dateValueObjects))
    }

    private static func storeDate(
        _ date: Date, in table: inout ArchiveObjectTable, classUID: Int, keys: inout [Int],
        values: inout [Int]
    ) -> Int {
        let uid = table.reserve()
        if keys.isEmpty { keys = [table.keyObject("NS.time")] }
        values[0] = table.builder.addReal(date.timeIntervalSinceReferenceDate)
        _ = table.setObject(uid, classUID: classUID, keys: keys, values: values, shareable: false)
        return uid
    }

    /// `nil` in a collection: the string `$null` (as `PropertyListEncoder`) or an `NSNull` object.
    private func null() -> Int {
        if let nullUID { return nullUID }
        let uid: Int
        switch layout {
        case .propertyList: uid = unique(.string("$null"))
        case .objects: uid = unique(.object(classUID: classUID(named: CataloguedClass.null.name), fields: []))
        }
        nullUID = uid
        return uid
    }

    // MARK: Collections

    private func storeDictionary(_ node: CodableEncodingNode) -> Int {
        if !Self.fields(node.fields, haveKeys: lastDictionaryKeys) {
            lastDictionaryKeys = node.fields.map(\.key)
            lastDictionaryKeyUIDs = lastDictionaryKeys.map { unique(.string($0)) }
            lastDictionaryKeyArray = nil
        }
        // The values go into a reused buffer, taken out while it is in use.
        var valueUIDs: [Int] = []
        swap(&valueUIDs, &dictionaryValueUIDs)
        defer { dictionaryValueUIDs = valueUIDs }
        valueUIDs.removeAll(keepingCapacity: true)
        for field in node.fields { valueUIDs.append(uid(of: field.slot)) }
        let classUID: Int
        if let known = dictionaryClassUID {
            classUID = known
        } else {
            classUID = self.classUID(
                named: (layout == .propertyList ? CataloguedClass.mutableDictionary : .dictionary).name)
            dictionaryClassUID = classUID
        }
        guard let keyArray = lastDictionaryKeyArray else {
            let uid = storeObject(
                classUID: classUID,
                fields: [
                    ArchiveField(key: "NS.keys", value: .references(lastDictionaryKeyUIDs)),
                    ArchiveField(key: "NS.objects", value: .references(valueUIDs)),
                ])
            // Both exist now (equal arrays and strings are stored once): later dictionaries
            // with these keys refer to them without building them again.
            lastDictionaryKeyArray = archiver.table.referenceArray(lastDictionaryKeyUIDs)
            if dictionaryKeyObjects.isEmpty {
                dictionaryKeyObjects = [
                    archiver.table.keyObject("NS.keys"), archiver.table.keyObject("NS.objects"),
                ]
            }
            return uid
        }
        return Self.storeDictionary(
            in: &archiver.table, classUID: classUID, keyObjects: dictionaryKeyObjects, keyArray: keyArray,
            valueUIDs: valueUIDs, values: &dictionaryValueObjects)
    }

    /// Stores an `NSDictionary` whose `NS.keys` array exists: the same builder objects, in
    /// the same order, as `storeObject(classUID:fields:)`.
    private static func storeDictionary(
        in table: inout ArchiveObjectTable, classUID: Int, keyObjects: [Int], keyArray: Int, valueUIDs: [Int],
        values: inout [Int]
    ) -> Int {
        let uid = table.reserve()
        values.removeAll(keepingCapacity: true)
        values.append(keyArray)
        values.append(table.referenceArray(valueUIDs))
        _ = table.setObject(
            uid, classUID: classUID, keys: keyObjects, values: values, shareable: false)
        return uid
    }

    private func storeArray(_ node: CodableEncodingNode) -> Int {
        var uids: [Int] = []
        uids.reserveCapacity(node.slots.count)
        for slot in node.slots { uids.append(uid(of: slot)) }
        let className = (layout == .propertyList ? CataloguedClass.mutableArray : .array).name
        return storeObject(
            classUID: classUID(named: className),
            fields: [ArchiveField(key: "NS.objects", value: .references(uids))])
    }

    // MARK: Object table

    /// Stores a keyed container's entries as the fields of an object of class `classUID`.
    ///
    /// The same builder objects, in the same order, as `storeObject(classUID:fields:)`:
    /// when the keys are those of the last object, their key objects exist already, so
    /// only the values are added.
    private func storeFields(of node: CodableEncodingNode, classUID: Int) -> Int {
        guard Self.fields(node.fields, haveKeys: lastFieldKeys) else {
            let uid = storeObject(classUID: classUID, fields: objectFields(node))
            lastFieldKeys = node.fields.map(\.key)
            lastFieldKeyObjects = lastFieldKeys.map { archiver.table.keyObject(archiveEscapedKey($0)) }
            return uid
        }
        fieldValueObjects.removeAll(keepingCapacity: true)
        return Self.storeObject(
            in: &archiver.table, classUID: classUID, keys: lastFieldKeyObjects, values: &fieldValueObjects,
            fields: node.fields)
    }

    /// Whether the fields' keys are `keys`, in order: a node with the last node's keys
    /// reuses that node's key objects.
    private static func fields(_ fields: [CodableEncodingNode.Field], haveKeys keys: [String]) -> Bool {
        guard fields.count == keys.count else { return false }
        for index in 0..<keys.count where fields[index].key != keys[index] { return false }
        return true
    }

    /// Reserves an entry and stores the fields in it, in one access to the table.
    private static func storeObject(
        in table: inout ArchiveObjectTable, classUID: Int, keys: [Int], values: inout [Int],
        fields: [CodableEncodingNode.Field]
    ) -> Int {
        let uid = table.reserve()
        for field in fields { values.append(table.valueObject(fieldValue(field.slot))) }
        _ = table.setObject(uid, classUID: classUID, keys: keys, values: values, shareable: false)
        return uid
    }

    /// The index of a plain value, stored once.
    private func unique(_ record: ArchivedObjectRecord) -> Int {
        archiver.table.uniqueIndex(of: record)
    }

    /// Appends an object record and returns its index.
    private func storeObject(classUID: Int, fields: [ArchiveField]) -> Int {
        let uid = archiver.table.reserve()
        archiver.table.fill(uid, classUID: classUID, fields: fields)
        return uid
    }

    func classUID(named name: String) -> Int {
        if let uid = namedClassUIDs[name] { return uid }
        let chain = ClassCatalogue.chain(forName: name)
        let uid = archiver.table.classIndex(name: name, classes: chain)
        namedClassUIDs[name] = uid
        return uid
    }

    // MARK: Errors

    func context(
        _ path: CodablePath?, _ key: (any CodingKey)?, _ code: KeyedArchiveError.Code, _ message: String
    ) -> EncodingError.Context {
        let codingPath = CodablePath.keys(path, appending: key)
        let location = CodableKeyPath.render(codingPath, prefix: pathPrefix)
        return EncodingError.Context(
            codingPath: codingPath, debugDescription: "\(location): \(message)",
            underlyingError: KeyedArchiveError(code, message, at: .keyPath(location)))
    }
}

/// A coding path as links to the parent, turned into `[CodingKey]` only when asked for:
/// building arrays of keys for every value is most of a naive encoder's work. The encoder
/// and decoder nodes are links themselves, so a value's path costs nothing until used.
class CodablePath {
    let parent: CodablePath?
    /// The key of this link, or `nil` for a value that has its parent's path (the root,
    /// values forwarded through a single-value container).
    let key: (any CodingKey)?

    init(parent: CodablePath?, key: (any CodingKey)?) {
        self.parent = parent
        self.key = key
    }

    /// The path from the root as keys, with `key` appended when given.
    static func keys(_ path: CodablePath?, appending key: (any CodingKey)? = nil) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var link = path
        while let current = link {
            if let key = current.key { keys.append(key) }
            link = current.parent
        }
        keys.reverse()
        if let key { keys.append(key) }
        return keys
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

/// A coding key for positions and synthesized names; an index's string is made only when
/// asked for.
enum CodableArchiveKey: CodingKey {
    case name(String)
    case index(Int)

    init(stringValue: String) { self = .name(stringValue) }
    init(intValue: Int) { self = .index(intValue) }

    var stringValue: String {
        switch self {
        case .name(let name): return name
        case .index(let index): return "Index \(index)"
        }
    }

    var intValue: Int? {
        if case .index(let index) = self { return index }
        return nil
    }

    static let superKey = CodableArchiveKey.name("super")
}

// MARK: - Encoder

/// One value being encoded, and the storage of its containers.
final class CodableEncodingNode: CodablePath, Encoder {
    enum Kind {
        case empty
        case single
        case keyed
        case unkeyed
    }

    struct Field {
        var key: String
        var slot: CodableSlot
    }

    let writer: CodableArchiveWriter
    // Touched for every value encoded, by one thread, never across a call that could
    // reach them again: no dynamic exclusivity checks.
    @exclusivity(unchecked) var kind = Kind.empty
    /// The keyed container's entries, in order.
    @exclusivity(unchecked) var fields: [Field] = []
    /// The unkeyed container's elements, or the single value.
    @exclusivity(unchecked) var slots: [CodableSlot] = []
    /// Nested containers and super-encoders, stored when this value finishes.
    @exclusivity(unchecked) var deferred: [(position: Int, node: CodableEncodingNode)] = []
    /// The class of a keyed value of a named type (objects layout), or `nil` for a dictionary.
    @exclusivity(unchecked) var classUID: Int?

    var userInfo: [CodingUserInfoKey: Any] { writer.userInfo }

    init(writer: CodableArchiveWriter, parentPath: CodablePath?, key: (any CodingKey)?) {
        self.writer = writer
        super.init(parent: parentPath, key: key)
    }

    var codingPath: [any CodingKey] { CodablePath.keys(self) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if kind != .keyed {
            kind = .keyed
            slots = []
            deferred = []
            // Values of one type have the same keys: size the entries like the last ones.
            fields.reserveCapacity(writer.keyedCapacity)
        }
        return KeyedEncodingContainer(CodableKeyedEncodingContainer<Key>(node: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if kind != .unkeyed {
            kind = .unkeyed
            fields = []
            slots = []
            deferred = []
        }
        return CodableUnkeyedEncodingContainer(node: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CodableSingleValueEncodingContainer(node: self)
    }

    /// A nested container's node: stored as a dictionary or array in `position`.
    func nested(key: any CodingKey, kind: Kind) -> CodableEncodingNode {
        let child = CodableEncodingNode(writer: writer, parentPath: self, key: key)
        child.kind = kind
        return child
    }
}

struct CodableKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: CodableEncodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    private func put(_ slot: CodableSlot, _ key: Key) {
        node.fields.append(CodableEncodingNode.Field(key: key.stringValue, slot: slot))
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(node.writer.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(.real(value.bitPattern), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(.real(Double(value).bitPattern), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        put(.integer(PropertyListInteger(value)), key)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(.integer(value.archiveInteger), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(try node.writer.encodeValue(value, parent: node, key: key), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node.nested(key: key, kind: .keyed)
        node.deferred.append((node.fields.count, child))
        put(.null, key)
        return KeyedEncodingContainer(CodableKeyedEncodingContainer<NestedKey>(node: child))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.nested(key: key, kind: .unkeyed)
        node.deferred.append((node.fields.count, child))
        put(.null, key)
        return CodableUnkeyedEncodingContainer(node: child)
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(key: CodableArchiveKey.superKey, name: CodableArchiveKey.superKey.stringValue)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(key: key, name: key.stringValue)
    }

    private func superEncoder(key: any CodingKey, name: String) -> any Encoder {
        let child = node.nested(key: key, kind: .empty)
        node.deferred.append((node.fields.count, child))
        node.fields.append(CodableEncodingNode.Field(key: name, slot: .null))
        return child
    }
}

struct CodableUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let node: CodableEncodingNode

    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int { node.slots.count }

    private func put(_ slot: CodableSlot) {
        node.slots.append(slot)
    }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(node.writer.string(value)) }
    mutating func encode(_ value: Double) throws { put(.real(value.bitPattern)) }
    mutating func encode(_ value: Float) throws { put(.real(Double(value).bitPattern)) }
    mutating func encode(_ value: Int) throws { put(.integer(PropertyListInteger(value))) }
    mutating func encode(_ value: Int8) throws { put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: Int16) throws { put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: Int32) throws { put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: Int64) throws { put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt) throws { put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt8) throws { put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt16) throws { put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt32) throws { put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt64) throws { put(.integer(value.archiveInteger)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = CodableArchiveKey.index(node.slots.count)
        put(try node.writer.encodeValue(value, parent: node, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = node.nested(key: CodableArchiveKey.index(node.slots.count), kind: .keyed)
        node.deferred.append((node.slots.count, child))
        put(.null)
        return KeyedEncodingContainer(CodableKeyedEncodingContainer<NestedKey>(node: child))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = node.nested(key: CodableArchiveKey.index(node.slots.count), kind: .unkeyed)
        node.deferred.append((node.slots.count, child))
        put(.null)
        return CodableUnkeyedEncodingContainer(node: child)
    }

    mutating func superEncoder() -> any Encoder {
        let child = node.nested(key: CodableArchiveKey.index(node.slots.count), kind: .empty)
        node.deferred.append((node.slots.count, child))
        put(.null)
        return child
    }
}

struct CodableSingleValueEncodingContainer: SingleValueEncodingContainer {
    let node: CodableEncodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    private func put(_ slot: CodableSlot) throws {
        if case .empty = node.kind {
            node.kind = .single
            node.slots = [slot]
            return
        }
        throw EncodingError.invalidValue(
            slot,
            node.writer.context(
                node, nil, .invalidValue,
                "a single value container was asked for after a value was encoded"))
    }

    mutating func encodeNil() throws { try put(.null) }
    mutating func encode(_ value: Bool) throws { try put(.bool(value)) }
    mutating func encode(_ value: String) throws { try put(node.writer.string(value)) }
    mutating func encode(_ value: Double) throws { try put(.real(value.bitPattern)) }
    mutating func encode(_ value: Float) throws { try put(.real(Double(value).bitPattern)) }
    mutating func encode(_ value: Int) throws { try put(.integer(PropertyListInteger(value))) }
    mutating func encode(_ value: Int8) throws { try put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: Int16) throws { try put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: Int32) throws { try put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: Int64) throws { try put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt) throws { try put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt8) throws { try put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt16) throws { try put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt32) throws { try put(.integer(value.archiveInteger)) }
    mutating func encode(_ value: UInt64) throws { try put(.integer(value.archiveInteger)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        // A forwarded value has this node's path: no key of its own.
        try put(try node.writer.encodeValue(value, parent: node, key: nil))
    }
}
