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
///
/// As in ``CodableArchiveWriter``, coding paths are links built into the decoder nodes and
/// turned into `[CodingKey]` only for errors; the common primitives are found by comparing
/// metatypes; what a class UID means (dictionary, array, date, …) is worked out once.
final class CodableArchiveReader {
    /// `$objects`, read in place: objects are read straight from its bytes (see
    /// CodableArchiveReader+Binary.swift).
    let source: BinaryArchiveSource
    let layout: CodableArchiveLayout
    let userInfo: [CodingUserInfoKey: Any]
    let maximumDepth: Int
    let pathPrefix: String

    // Touched for every value read; the reader is used by one thread at a time and no
    // access to these spans a call that could reach them again, so the dynamic
    // exclusivity checks would only cost time.
    /// The scanner over the binary archive while ``decodeRoot(_:from:)`` runs.
    @exclusivity(unchecked) var scanner: BinaryPropertyListScanner?
    /// The key layouts of the objects read in place, direct-mapped (see `shape(of:_:)`).
    @exclusivity(unchecked) var shapes: [BinaryObjectShape?] = []
    /// The resolved `NS.keys` of the last dictionary read in place (by array object).
    @exclusivity(unchecked) var lastBinaryKeyReferences: [Int] = []
    @exclusivity(unchecked) var lastBinaryKeys: [String] = []

    @exclusivity(unchecked) private var instances: [Int: AnyObject] = [:]
    /// Bit `uid` is set while `$objects[uid]` is being decoded (sized on first use).
    @exclusivity(unchecked) private var inProgress: IndexBits
    @exclusivity(unchecked) private var activeUIDs: [Int] = []
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var budget: Int

    /// What an archived class means to the bridge, from the class catalogue.
    enum ClassKind {
        case dictionary
        case collection
        case date
        case mutableString
        case mutableData
        case null
        case other

        init(_ foundationClass: CataloguedClass?) {
            guard let foundationClass else {
                self = .other
                return
            }
            switch foundationClass.kind {
            case .dictionary: self = .dictionary
            case .array, .orderedSet, .set, .countedSet: self = .collection
            case .date: self = .date
            case .string: self = foundationClass.isMutable ? .mutableString : .other
            case .data: self = foundationClass.isMutable ? .mutableData : .other
            case .null: self = .null
            default: self = .other
            }
        }
    }
    @exclusivity(unchecked) private var classKinds: [Int: ClassKind] = [:]
    @exclusivity(unchecked) private var lastClassUID = -1
    @exclusivity(unchecked) private var lastClassKind = ClassKind.other

    /// Per-type facts (primitive, class), worked out once.
    @exclusivity(unchecked) private var typeFacts: [ObjectIdentifier: (isPrimitive: Bool, isClass: Bool)] =
        [:]
    @exclusivity(unchecked) private var lastType: ObjectIdentifier?
    @exclusivity(unchecked) private var lastTypeFacts = (isPrimitive: false, isClass: false)

    init(
        source: BinaryArchiveSource, layout: CodableArchiveLayout, pathPrefix: String,
        userInfo: [CodingUserInfoKey: Any] = [:], maximumDepth: Int = 512
    ) {
        self.source = source
        self.layout = layout
        self.pathPrefix = pathPrefix
        self.userInfo = userInfo
        self.maximumDepth = maximumDepth
        self.inProgress = IndexBits(bound: source.objectCount)
        let (product, overflow) = source.objectCount.multipliedReportingOverflow(by: 64)
        self.budget = overflow ? Int.max : max(product, 1 << 16)
    }

    // MARK: Values

    /// Decodes a top-level value: the entry point of every decode.
    func decodeRoot<T: Decodable>(_ type: T.Type, from value: PropertyList) throws -> T {
        guard scanner == nil else {
            return try decodeValue(T.self, from: value, parent: nil, key: nil)
        }
        return try source.withInput {
            try source.withScanner { scanner in
                self.scanner = scanner
                defer { self.scanner = nil }
                return try decodeValue(T.self, from: value, parent: nil, key: nil)
            }
        }
    }

    func decodeValue<T: Decodable>(
        _ type: T.Type, from value: PropertyList, parent: CodablePath?, key: (any CodingKey)?
    ) throws -> T {
        // The common primitives by metatype comparison: no conformance lookup.
        if T.self == Date.self {
            return try exactly(primitive(Date.self, value, parent: parent, key: key), parent, key)
        }
        if T.self == String.self {
            return try exactly(primitive(String.self, value, parent: parent, key: key), parent, key)
        }
        if T.self == Int.self {
            return try exactly(primitive(Int.self, value, parent: parent, key: key), parent, key)
        }
        if T.self == Double.self {
            return try exactly(primitive(Double.self, value, parent: parent, key: key), parent, key)
        }
        let facts = typeFacts(T.self)
        if facts.isPrimitive, let primitive = T.self as? any ArchivePrimitive.Type {
            return try exactly(
                primitive.decodeArchived(reader: self, value, parent: parent, key: key), parent, key)
        }
        var uid: Int?
        if case .uid(let raw) = value {
            guard let index = Int(exactly: raw), index < source.objectCount else {
                throw corrupt(parent, key, .invalidArchive, "object reference \(raw) is out of range")
            }
            uid = index
            if index == 0 {
                throw DecodingError.valueNotFound(
                    T.self, context(parent, key, .typeMismatch, "expected \(T.self), found nil"))
            }
            if !instances.isEmpty, let instance = instances[index] {
                guard let typed = instance as? T else {
                    throw DecodingError.typeMismatch(
                        T.self,
                        context(
                            parent, key, .typeMismatch,
                            "expected \(T.self), found an instance of \(Swift.type(of: instance)) (object #\(index))"
                        ))
                }
                return typed
            }
            if isInProgress(index), activeUIDs.last != index {
                throw corrupt(
                    parent, key, .unresolvableCycle,
                    "object #\(index) refers back to itself while it is being decoded; a Decodable value "
                        + "cannot be shared before its init(from:) returns")
            }
        }
        guard depth < maximumDepth else {
            throw corrupt(parent, key, .limitExceeded, "nesting is deeper than the limit of \(maximumDepth)")
        }
        if depth >= StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
            throw corrupt(parent, key, .limitExceeded, StackHeadroom.message(depth: depth))
        }
        guard budget > 0 else {
            throw corrupt(
                parent, key, .limitExceeded,
                "decoding reached more values than the archive's size justifies (shared sub-trees)")
        }
        budget -= 1
        depth += 1
        // A wrapper that forwards its single value (Optional, property wrappers) decodes the
        // same object again, directly inside itself: that is not a cycle.
        let isForwarded = uid != nil && activeUIDs.last == uid
        if let uid, !isForwarded {
            setInProgress(uid, true)
            activeUIDs.append(uid)
        }
        defer {
            depth -= 1
            if let uid, !isForwarded {
                setInProgress(uid, false)
                activeUIDs.removeLast()
            }
        }
        let decoded = try T(from: CodableDecodingNode(reader: self, value: value, parent: parent, key: key))
        if let uid, facts.isClass {
            instances[uid] = decoded as AnyObject
        }
        return decoded
    }

    @inline(__always)
    private func isInProgress(_ uid: Int) -> Bool {
        inProgress.contains(uid)
    }

    /// Marks `uid` (an index below the object count) as being decoded, or not.
    @inline(__always)
    private func setInProgress(_ uid: Int, _ flag: Bool) {
        if flag { inProgress.insert(uid) } else { inProgress.remove(uid) }
    }

    /// `value` as `T`, which it is whenever this is called.
    @inline(__always)
    private func exactly<T, U>(_ value: U, _ parent: CodablePath?, _ key: (any CodingKey)?) throws -> T {
        guard let typed = value as? T else {
            throw DecodingError.typeMismatch(
                T.self, context(parent, key, .typeMismatch, "expected \(T.self), found \(U.self)"))
        }
        return typed
    }

    private func typeFacts<T>(_ type: T.Type) -> (isPrimitive: Bool, isClass: Bool) {
        let identifier = ObjectIdentifier(type)
        if identifier == lastType { return lastTypeFacts }
        let facts: (isPrimitive: Bool, isClass: Bool)
        if let known = typeFacts[identifier] {
            facts = known
        } else {
            facts = (
                type is any ArchivePrimitive.Type,
                layout == .objects && type is AnyObject.Type
            )
            typeFacts[identifier] = facts
        }
        lastType = identifier
        lastTypeFacts = facts
        return facts
    }

    /// The plain value a reference points to (or an inline value), `NSDate` as a date.
    func scalar(_ value: PropertyList, parent: CodablePath?, key: (any CodingKey)?, expected: Any.Type) throws
        -> PropertyList
    {
        guard case .uid(let raw) = value else { return value }
        guard let index = Int(exactly: raw), index < source.objectCount else {
            throw corrupt(parent, key, .invalidArchive, "object reference \(raw) is out of range")
        }
        if index == 0 {
            throw DecodingError.valueNotFound(
                expected, context(parent, key, .typeMismatch, "expected \(expected), found nil"))
        }
        if scanner != nil, let found = try binaryScalar(index, parent: parent, key: key) { return found }
        let entry = try object(at: index, parent: parent, key: key)
        guard case .dictionary(let fields) = entry else { return entry }
        switch try classKind(of: fields, parent: parent, key: key) {
        case .date:
            if let time = fields["NS.time"] {
                return .date(Date(timeIntervalSinceReferenceDate: try seconds(time, parent, key)))
            }
        case .mutableString:
            if let text = fields["NS.string"] { return text }
        case .mutableData:
            if let bytes = fields["NS.data"] { return bytes }
        default:
            break
        }
        let name = try className(of: fields, parent: parent, key: key)
        throw DecodingError.typeMismatch(
            expected, context(parent, key, .typeMismatch, "expected \(expected), found \(name)"))
    }

    func seconds(_ value: PropertyList, _ parent: CodablePath?, _ key: (any CodingKey)?) throws
        -> Double
    {
        do {
            return try ArchiveScalar.double(value)
        } catch let error as KeyedArchiveError {
            throw corrupt(parent, key, error.code, "NS.time: \(error.message)")
        }
    }

    func isNil(_ value: PropertyList, parent: CodablePath?, key: (any CodingKey)?) throws -> Bool {
        guard case .uid(let raw) = value else { return false }
        guard raw != 0 else { return true }
        guard let index = Int(exactly: raw), index < source.objectCount else {
            throw corrupt(parent, key, .invalidArchive, "object reference \(raw) is out of range")
        }
        if scanner != nil, let found = try binaryIsNil(index, parent: parent, key: key) { return found }
        let entry = try object(at: index, parent: parent, key: key)
        switch entry {
        case .string(let text): return layout == .propertyList && text == "$null"
        case .dictionary(let fields): return try classKind(of: fields, parent: parent, key: key) == .null
        default: return false
        }
    }

    // MARK: Containers

    /// The entries of a keyed container: an object's own fields (objects layout, or
    /// ``ArchivedCodable``), whose keys are escaped and include `$class`, or an
    /// `NSDictionary`'s entries (a repeated key keeps its first position and last value).
    ///
    /// Lookups try the entry after the last one found first: `init(from:)` usually asks
    /// for the keys in the order `encode(to:)` wrote them, so most lookups cost one string
    /// comparison instead of a search.
    final class KeyedSource {
        /// The keys, each once, as archived (escaped for object fields).
        let keys: [String]
        /// The values, in the order of ``keys``, unless they are read in place.
        let values: [PropertyList]
        /// For a container read in place from a binary archive: the dictionary or array
        /// whose references `binaryBase...` are the values, in the order of ``keys``.
        let binaryValues: BinaryPropertyListObject?
        let binaryBase: Int
        let isObjectFields: Bool
        @exclusivity(unchecked) private var cursor = 0
        /// Key → position, built on the first miss of a large container.
        @exclusivity(unchecked) private var positions: [String: Int]?

        init(keys: [String], values: [PropertyList], isObjectFields: Bool) {
            self.keys = keys
            self.values = values
            self.binaryValues = nil
            self.binaryBase = 0
            self.isObjectFields = isObjectFields
        }

        init(keys: [String], binaryValues: BinaryPropertyListObject, base: Int, isObjectFields: Bool) {
            self.keys = keys
            self.values = []
            self.binaryValues = binaryValues
            self.binaryBase = base
            self.isObjectFields = isObjectFields
        }

        convenience init(fields: PropertyListDictionary) {
            self.init(keys: fields.keys, values: fields.values, isObjectFields: true)
        }

        /// The position of the value under `name` (unescaped), or `nil` when absent.
        func position(forKey name: String) -> Int? {
            let key = isObjectFields ? archiveEscapedKey(name) : name
            if cursor < keys.count, keys[cursor] == key {
                let position = cursor
                cursor += 1
                return position
            }
            let found: Int?
            if keys.count <= 16 {
                found = keys.firstIndex(of: key)
            } else {
                // Large containers are searched by hash: no quadratic lookups.
                if positions == nil {
                    var made: [String: Int] = [:]
                    made.reserveCapacity(keys.count)
                    for (position, key) in keys.enumerated() where made[key] == nil { made[key] = position }
                    positions = made
                }
                found = positions?[key]
            }
            guard let position = found else { return nil }
            cursor = position + 1
            return position
        }
    }

    /// The elements of an unkeyed container: a list, or an array of a binary archive read
    /// in place.
    struct ElementSource {
        let values: [PropertyList]
        let binaryArray: BinaryPropertyListObject?

        init(_ values: [PropertyList]) {
            self.values = values
            self.binaryArray = nil
        }

        init(binaryArray: BinaryPropertyListObject) {
            self.values = []
            self.binaryArray = binaryArray
        }

        var count: Int { binaryArray?.count ?? values.count }
    }

    /// The value at `position` of a keyed container.
    @inline(__always)
    func value(of source: KeyedSource, at position: Int, parent: CodablePath?, key: (any CodingKey)?) throws
        -> PropertyList
    {
        guard let container = source.binaryValues else { return source.values[position] }
        return try binaryValue(container, at: source.binaryBase + position, parent: parent, key: key)
    }

    /// Element `index` (below `elements.count`) of an unkeyed container.
    @inline(__always)
    func element(_ index: Int, of elements: ElementSource, parent: CodablePath?, key: (any CodingKey)?) throws
        -> PropertyList
    {
        guard let array = elements.binaryArray else { return elements.values[index] }
        return try binaryValue(array, at: index, parent: parent, key: key)
    }

    /// The `NS.keys` of the last dictionary read, its keys (each once) and, when a key
    /// repeats, the position of each key's value: dictionaries of one type share them.
    @exclusivity(unchecked) private var lastKeyReferences: [PropertyList] = []
    @exclusivity(unchecked) private var lastKeys: [String] = []
    @exclusivity(unchecked) private var lastValuePositions: [Int]?

    func keyedSource(_ value: PropertyList, parent: CodablePath?, key: (any CodingKey)?) throws -> KeyedSource
    {
        if case .dictionary(let fields) = value { return KeyedSource(fields: fields) }
        if scanner != nil, case .uid(let raw) = value, raw != 0, let index = Int(exactly: raw),
            index < source.objectCount,
            let found = try binaryKeyedSource(index, parent: parent, key: key)
        {
            return found
        }
        let fields = try objectFields(value, parent: parent, key: key, expected: "a keyed container")
        switch try classKind(of: fields, parent: parent, key: key) {
        case .dictionary:
            let keys = try references(fields["NS.keys"], name: "NS.keys", parent: parent, key: key)
            let values = try references(fields["NS.objects"], name: "NS.objects", parent: parent, key: key)
            guard keys.count == values.count else {
                throw corrupt(
                    parent, key, .invalidArchive,
                    "NS.keys has \(keys.count) entries but NS.objects has \(values.count)")
            }
            if keys != lastKeyReferences {
                try readDictionaryKeys(keys, parent: parent, key: key)
            }
            guard let positions = lastValuePositions else {
                return KeyedSource(keys: lastKeys, values: values, isObjectFields: false)
            }
            return KeyedSource(keys: lastKeys, values: positions.map { values[$0] }, isObjectFields: false)
        case .collection:
            let name = try className(of: fields, parent: parent, key: key)
            throw DecodingError.typeMismatch(
                [String: Any].self,
                context(parent, key, .typeMismatch, "expected a keyed container, found \(name)"))
        default:
            guard layout == .objects else {
                let name = try className(of: fields, parent: parent, key: key)
                throw DecodingError.typeMismatch(
                    [String: Any].self,
                    context(parent, key, .typeMismatch, "expected NSDictionary, found \(name)"))
            }
            return KeyedSource(fields: fields)
        }
    }

    /// Resolves an `NSDictionary`'s keys into `lastKeys`: a repeated key keeps its first
    /// position and its last value.
    private func readDictionaryKeys(_ references: [PropertyList], parent: CodablePath?, key: (any CodingKey)?)
        throws
    {
        var keys: [String] = []
        keys.reserveCapacity(references.count)
        var positions: [Int] = []
        positions.reserveCapacity(references.count)
        var seen: [String: Int] = [:]
        var repeats = false
        for (offset, reference) in references.enumerated() {
            guard let text = try dictionaryKeyText(reference, parent: parent, key: key) else {
                throw DecodingError.typeMismatch(
                    String.self,
                    context(parent, key, .typeMismatch, "a dictionary key is neither a string nor an integer")
                )
            }
            if let first = seen[text] {
                positions[first] = offset
                repeats = true
            } else {
                seen[text] = keys.count
                keys.append(text)
                positions.append(offset)
            }
        }
        lastKeyReferences = references
        lastKeys = keys
        lastValuePositions = repeats ? positions : nil
    }

    func unkeyedElements(_ value: PropertyList, parent: CodablePath?, key: (any CodingKey)?) throws
        -> ElementSource
    {
        if case .dictionary(let fields) = value {
            return ElementSource(
                try references(fields["NS.objects"], name: "NS.objects", parent: parent, key: key))
        }
        if scanner != nil, case .uid(let raw) = value, raw != 0, let index = Int(exactly: raw),
            index < source.objectCount,
            let found = try binaryElements(index, parent: parent, key: key)
        {
            return found
        }
        let fields = try objectFields(value, parent: parent, key: key, expected: "an unkeyed container")
        switch try classKind(of: fields, parent: parent, key: key) {
        case .collection:
            do {
                return ElementSource(try ArchiveCollectionLayout.elementReferences(in: fields))
            } catch {
                throw corrupt(parent, key, .invalidArchive, error.message)
            }
        case .dictionary:
            // Swift's Dictionary reads keys that are neither strings nor integers from an
            // unkeyed container of alternating keys and values: an NSDictionary keyed by
            // such objects (arrays, say) reads that way.
            let keys = try references(fields["NS.keys"], name: "NS.keys", parent: parent, key: key)
            let values = try references(fields["NS.objects"], name: "NS.objects", parent: parent, key: key)
            if keys.count == values.count,
                try keys.contains(where: { try dictionaryKeyText($0, parent: parent, key: key) == nil })
            {
                var alternating: [PropertyList] = []
                alternating.reserveCapacity(keys.count * 2)
                for (entryKey, entryValue) in zip(keys, values) {
                    alternating.append(entryKey)
                    alternating.append(entryValue)
                }
                return ElementSource(alternating)
            }
        default:
            break
        }
        let name = try className(of: fields, parent: parent, key: key)
        throw DecodingError.typeMismatch(
            [Any].self, context(parent, key, .typeMismatch, "expected NSArray, found \(name)"))
    }

    /// The text of a dictionary key that a keyed container can hold: a string, or an
    /// integer as its decimal text (how Swift's `Dictionary` spells `Int` keys); `nil`
    /// for any other key.
    func dictionaryKeyText(_ reference: PropertyList, parent: CodablePath?, key: (any CodingKey)?) throws
        -> String?
    {
        if case .uid(let raw) = reference, raw == 0 { return nil }
        let resolved: PropertyList
        do {
            resolved = try scalar(reference, parent: parent, key: key, expected: String.self)
        } catch DecodingError.typeMismatch {
            return nil
        }
        switch resolved {
        case .string(let text): return text
        case .integer(let number): return number.description
        default: return nil
        }
    }

    private func objectFields(
        _ value: PropertyList, parent: CodablePath?, key: (any CodingKey)?, expected: String
    ) throws -> PropertyListDictionary {
        guard case .uid(let raw) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                context(parent, key, .typeMismatch, "expected \(expected), found \(value.archivedKindName)"))
        }
        guard let index = Int(exactly: raw), index < source.objectCount else {
            throw corrupt(parent, key, .invalidArchive, "object reference \(raw) is out of range")
        }
        guard index != 0 else {
            throw DecodingError.valueNotFound(
                [String: Any].self, context(parent, key, .typeMismatch, "expected \(expected), found nil"))
        }
        let entry = try object(at: index, parent: parent, key: key)
        guard case .dictionary(let fields) = entry else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                context(parent, key, .typeMismatch, "expected \(expected), found \(entry.archivedKindName)"))
        }
        return fields
    }

    private func references(
        _ value: PropertyList?, name: String, parent: CodablePath?, key: (any CodingKey)?
    ) throws -> [PropertyList] {
        guard let value else { return [] }
        guard case .array(let elements) = value else {
            throw corrupt(parent, key, .invalidArchive, "\(name) is \(value.archivedKindName), not an array")
        }
        return elements
    }

    func object(at index: Int, parent: CodablePath?, key: (any CodingKey)?) throws -> PropertyList {
        do {
            return try source.object(at: index)
        } catch let error as KeyedArchiveError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: CodablePath.keys(parent, appending: key), debugDescription: error.description,
                    underlyingError: error))
        }
    }

    /// The `$class` UID of an object's fields.
    private func classUID(of fields: PropertyListDictionary, parent: CodablePath?, key: (any CodingKey)?)
        throws
        -> Int
    {
        guard case .uid(let raw)? = fields["$class"], let index = Int(exactly: raw), index > 0,
            index < source.objectCount
        else {
            throw corrupt(parent, key, .invalidArchive, "an object without a valid $class reference")
        }
        return index
    }

    /// What the object's class means to the bridge, worked out once per class UID.
    func classKind(of fields: PropertyListDictionary, parent: CodablePath?, key: (any CodingKey)?) throws
        -> ClassKind
    {
        try classKind(uid: classUID(of: fields, parent: parent, key: key), parent: parent, key: key)
    }

    /// What the class `$objects[index]` means to the bridge, worked out once per class UID.
    func classKind(uid index: Int, parent: CodablePath?, key: (any CodingKey)?) throws -> ClassKind {
        if index == lastClassUID { return lastClassKind }
        let kind: ClassKind
        if let known = classKinds[index] {
            kind = known
        } else {
            kind = ClassKind(CataloguedClass(name: try className(at: index, parent: parent, key: key)))
            classKinds[index] = kind
        }
        lastClassUID = index
        lastClassKind = kind
        return kind
    }

    func className(of fields: PropertyListDictionary, parent: CodablePath?, key: (any CodingKey)?) throws
        -> String
    {
        try className(at: classUID(of: fields, parent: parent, key: key), parent: parent, key: key)
    }

    private func className(at index: Int, parent: CodablePath?, key: (any CodingKey)?) throws -> String {
        do {
            return DisplayText.quotedIfNeeded(
                try ClassDescription(parsing: source.object(at: index), uid: index).name)
        } catch let error as KeyedArchiveError {
            throw corrupt(parent, key, error.code, error.message)
        }
    }

    // MARK: Errors

    func context(
        _ parent: CodablePath?, _ key: (any CodingKey)?, _ code: KeyedArchiveError.Code, _ message: String
    ) -> DecodingError.Context {
        let codingPath = CodablePath.keys(parent, appending: key)
        let location = CodableKeyPath.render(codingPath, prefix: pathPrefix)
        return DecodingError.Context(
            codingPath: codingPath, debugDescription: "\(location): \(message)",
            underlyingError: KeyedArchiveError(code, message, at: .keyPath(location)))
    }

    func corrupt(
        _ parent: CodablePath?, _ key: (any CodingKey)?, _ code: KeyedArchiveError.Code, _ message: String
    ) -> DecodingError {
        DecodingError.dataCorrupted(context(parent, key, code, message))
    }
}

extension ArchivePrimitive {
    static func decodeArchived(
        reader: CodableArchiveReader, _ value: PropertyList, parent: CodablePath?, key: (any CodingKey)?
    ) throws -> Self {
        try reader.primitive(Self.self, value, parent: parent, key: key)
    }
}

extension CodableArchiveReader {
    /// Reads a primitive, turning a conversion failure into a `DecodingError`.
    func primitive<T: ArchivePrimitive>(
        _ type: T.Type, _ value: PropertyList, parent: CodablePath?, key: (any CodingKey)?
    ) throws -> T {
        let plain = try scalar(value, parent: parent, key: key, expected: T.self)
        do {
            return try T(archiveValue: plain)
        } catch let error as KeyedArchiveError {
            let codingPath = CodablePath.keys(parent, appending: key)
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

/// One value being decoded; also the link of its coding path.
final class CodableDecodingNode: CodablePath, Decoder {
    let reader: CodableArchiveReader
    let value: PropertyList

    init(reader: CodableArchiveReader, value: PropertyList, parent: CodablePath?, key: (any CodingKey)?) {
        self.reader = reader
        self.value = value
        super.init(parent: parent, key: key)
    }

    var codingPath: [any CodingKey] { CodablePath.keys(self) }
    var userInfo: [CodingUserInfoKey: Any] { reader.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(
            CodableKeyedDecodingContainer<Key>(
                reader: reader, source: try reader.keyedSource(value, parent: parent, key: key), path: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        CodableUnkeyedDecodingContainer(
            reader: reader, elements: try reader.unkeyedElements(value, parent: parent, key: key), path: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if case .dictionary(let fields) = value, let single = fields["NS.value"] {
            return CodableSingleValueDecodingContainer(reader: reader, value: single, path: self)
        }
        return CodableSingleValueDecodingContainer(reader: reader, value: value, path: self)
    }
}

struct CodableKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: CodableArchiveReader
    let source: CodableArchiveReader.KeyedSource
    /// This container's path (the node's, or a link made for a nested container).
    let path: CodablePath

    var codingPath: [any CodingKey] { CodablePath.keys(path) }

    var allKeys: [Key] {
        if source.isObjectFields {
            return source.keys.compactMap { key in
                key == "$class" ? nil : Key(stringValue: archiveUnescapedKey(key))
            }
        }
        return source.keys.compactMap { Key(stringValue: $0) }
    }

    /// The value under `key`, or `nil` when absent.
    @inline(__always)
    func lookup(_ key: some CodingKey) throws -> PropertyList? {
        guard let position = source.position(forKey: key.stringValue) else { return nil }
        return try reader.value(of: source, at: position, parent: path, key: key)
    }

    func contains(_ key: Key) -> Bool { source.position(forKey: key.stringValue) != nil }

    private func required(_ key: Key) throws -> PropertyList {
        guard let position = source.position(forKey: key.stringValue) else { throw missing(key) }
        return try reader.value(of: source, at: position, parent: path, key: key)
    }

    private func missing(_ key: Key) -> DecodingError {
        DecodingError.keyNotFound(
            key,
            reader.context(
                path, key, .invalidArchive, "no value for key \(DisplayText.quoted(key.stringValue))"))
    }

    private func primitive<T: ArchivePrimitive>(_ type: T.Type, _ key: Key) throws -> T {
        guard let position = source.position(forKey: key.stringValue) else { throw missing(key) }
        if let quick = reader.quickPrimitive(T.self, in: source, at: position) { return quick }
        let value = try reader.value(of: source, at: position, parent: path, key: key)
        return try reader.primitive(T.self, value, parent: path, key: key)
    }

    /// `nil` for a missing key or a nil value, else the primitive.
    private func primitiveIfPresent<T: ArchivePrimitive>(_ type: T.Type, _ key: Key) throws
        -> T?
    {
        guard let position = source.position(forKey: key.stringValue) else { return nil }
        if let quick = reader.quickPrimitive(T.self, in: source, at: position, optional: true) {
            return quick
        }
        let value = try reader.value(of: source, at: position, parent: path, key: key)
        guard try !reader.isNil(value, parent: path, key: key) else { return nil }
        return try reader.primitive(T.self, value, parent: path, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = try lookup(key) else { return true }
        return try reader.isNil(value, parent: path, key: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        if let position = source.position(forKey: key.stringValue),
            let quick = reader.quickBool(in: source, at: position)
        {
            return quick
        }
        return try primitive(Bool.self, key)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        if let position = source.position(forKey: key.stringValue),
            let quick = reader.quickString(in: source, at: position)
        {
            return quick
        }
        return try primitive(String.self, key)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        if let position = source.position(forKey: key.stringValue),
            let quick = reader.quickDouble(in: source, at: position)
        {
            return quick
        }
        return try primitive(Double.self, key)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(Float.self, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        if let position = source.position(forKey: key.stringValue),
            let quick = reader.quickInt(in: source, at: position)
        {
            return quick
        }
        return try primitive(Int.self, key)
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(Int8.self, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(Int16.self, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(Int32.self, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(Int64.self, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(UInt.self, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(UInt8.self, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(UInt16.self, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(UInt32.self, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(UInt64.self, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let position = source.position(forKey: key.stringValue) else { return nil }
        if let quick = reader.quickBool(in: source, at: position, optional: true) { return quick }
        return try primitiveIfPresent(Bool.self, key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let position = source.position(forKey: key.stringValue) else { return nil }
        if let quick = reader.quickString(in: source, at: position, optional: true) { return quick }
        return try primitiveIfPresent(String.self, key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let position = source.position(forKey: key.stringValue) else { return nil }
        if let quick = reader.quickDouble(in: source, at: position, optional: true) { return quick }
        return try primitiveIfPresent(Double.self, key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let position = source.position(forKey: key.stringValue) else { return nil }
        if let quick = reader.quickInt(in: source, at: position, optional: true) { return quick }
        return try primitiveIfPresent(Int.self, key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try primitiveIfPresent(Int64.self, key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if T.self == Date.self, let position = source.position(forKey: key.stringValue),
            let date = reader.quickDate(in: source, at: position)
        {
            // T is Date: `as? T` would cost a dynamic cast and a run-time lookup of `T?`.
            return unsafeBitCast(date, to: T.self)
        }
        return try reader.decodeValue(T.self, from: required(key), parent: path, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let source = try reader.keyedSource(required(key), parent: path, key: key)
        return KeyedDecodingContainer(
            CodableKeyedDecodingContainer<NestedKey>(
                reader: reader, source: source, path: CodablePath(parent: path, key: key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let elements = try reader.unkeyedElements(required(key), parent: path, key: key)
        return CodableUnkeyedDecodingContainer(
            reader: reader, elements: elements, path: CodablePath(parent: path, key: key))
    }

    func superDecoder() throws -> any Decoder {
        let key = CodableArchiveKey.superKey
        return CodableDecodingNode(
            reader: reader, value: try lookup(key) ?? .uid(0), parent: path, key: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        CodableDecodingNode(reader: reader, value: try lookup(key) ?? .uid(0), parent: path, key: key)
    }
}

struct CodableUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let reader: CodableArchiveReader
    let elements: CodableArchiveReader.ElementSource
    let path: CodablePath
    var currentIndex = 0

    init(reader: CodableArchiveReader, elements: CodableArchiveReader.ElementSource, path: CodablePath) {
        self.reader = reader
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { CodablePath.keys(path) }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentKey: CodableArchiveKey { .index(currentIndex) }

    private mutating func next(_ type: Any.Type) throws -> PropertyList {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(
                type, reader.context(path, currentKey, .invalidArchive, "unkeyed container is at its end"))
        }
        let value = try reader.element(currentIndex, of: elements, parent: path, key: currentKey)
        currentIndex += 1
        return value
    }

    private mutating func primitive<T: ArchivePrimitive>(_ type: T.Type) throws -> T {
        if let quick = reader.quickPrimitive(T.self, in: elements, at: currentIndex) {
            currentIndex += 1
            return quick
        }
        let key = currentKey
        return try reader.primitive(T.self, next(T.self), parent: path, key: key)
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(
                Any?.self,
                reader.context(path, currentKey, .invalidArchive, "unkeyed container is at its end"))
        }
        let value = try reader.element(currentIndex, of: elements, parent: path, key: currentKey)
        if try reader.isNil(value, parent: path, key: currentKey) {
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
        let key = currentKey
        return try reader.decodeValue(T.self, from: next(T.self), parent: path, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let key = currentKey
        let value = try next([String: Any].self)
        return KeyedDecodingContainer(
            CodableKeyedDecodingContainer<NestedKey>(
                reader: reader, source: try reader.keyedSource(value, parent: path, key: key),
                path: CodablePath(parent: path, key: key)))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let key = currentKey
        let value = try next([Any].self)
        return CodableUnkeyedDecodingContainer(
            reader: reader, elements: try reader.unkeyedElements(value, parent: path, key: key),
            path: CodablePath(parent: path, key: key))
    }

    mutating func superDecoder() throws -> any Decoder {
        let key = currentKey
        return CodableDecodingNode(reader: reader, value: try next(Any.self), parent: path, key: key)
    }
}

struct CodableSingleValueDecodingContainer: SingleValueDecodingContainer {
    let reader: CodableArchiveReader
    let value: PropertyList
    let path: CodablePath

    var codingPath: [any CodingKey] { CodablePath.keys(path) }

    func decodeNil() -> Bool { (try? reader.isNil(value, parent: path, key: nil)) ?? false }

    private func primitive<T: ArchivePrimitive>(_ type: T.Type) throws -> T {
        try reader.primitive(T.self, value, parent: path, key: nil)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try primitive(Bool.self) }
    func decode(_ type: String.Type) throws -> String { try primitive(String.self) }
    func decode(_ type: Double.Type) throws -> Double { try primitive(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try primitive(Float.self) }
    func decode(_ type: Int.Type) throws -> Int { try primitive(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try primitive(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try primitive(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try primitive(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try primitive(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try primitive(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(UInt64.self) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // A forwarded value has this container's path: no key of its own.
        try reader.decodeValue(T.self, from: value, parent: path, key: nil)
    }
}
