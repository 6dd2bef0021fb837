#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads ``KeyedCoding`` values from a keyed archive (what Apple's `NSKeyedArchiver` and
/// ``KeyedArchiver`` write), safely: secure by default, strict about types, and bounded
/// in time and memory whatever the input.
///
/// ```swift
/// let creature = try KeyedUnarchiver.unarchivedObject(ofClass: Creature.self, from: data)
///
/// // Or, to read several top-level keys:
/// let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
/// let root = try unarchiver.decodeObject(of: Creature.self, forKey: KeyedArchiver.rootObjectKey)
/// let version = try unarchiver.decodeInteger(forKey: "version")
/// ```
///
/// ## Secure decoding
///
/// ``requiresSecureCoding`` is `true` by default. Each object's archived class name is
/// checked against the types the caller names (``decodeObject(of:forKey:)->T?``,
/// ``unarchivedObject(ofClasses:from:)``) plus the standard types (strings, numbers,
/// data, dates, URLs, UUIDs, arrays, dictionaries, sets, null) **before** anything is
/// constructed. A subclass of an allowed class is not allowed unless named too, a type
/// that does not adopt ``SecureKeyedCoding`` is refused, and the untyped
/// ``decodeObject(forKey:)`` is refused.
///
/// ## Class names
///
/// A type decodes from its ``KeyedCoding/archivedClassName``. To read archives written
/// under other names (a renamed or moved type, an Objective-C class), map them with
/// ``setClass(_:forClassName:)-swift.method`` on one unarchiver or
/// ``setClass(_:forClassName:)-swift.type.method`` for the whole process. An archive's
/// `$classhints` are tried after its class name; when secure coding is off, its
/// superclass names (`$classes`) are tried too.
///
/// ## Identity and cycles
///
/// An object the archive references several times decodes once: a class instance is
/// shared, a value is decoded once per requested type. A reference to an object whose
/// `init(coder:)` has not yet returned (a cycle) never hands out the half-built object:
/// it fails with `unresolvableCycle`, unless the reference is decoded with
/// ``decodeBackReference(of:forKey:then:)``, which delivers it once it is complete.
///
/// ## Errors
///
/// Every failure throws ``KeyedArchiveError`` whose location is the key path to the value
/// (`root.creatures[3].Title`). A failure inside a nested `init(coder:)` fails the whole
/// decode with the first error, even if that `init(coder:)` swallowed it. Missing keys
/// are not failures: they decode as `nil`, `0` or `false`, as with Foundation.
///
/// An unarchiver is not thread-safe; use one per thread.
public final class KeyedUnarchiver {
    /// Whether decoding checks classes against the allowed set and refuses types that do
    /// not support secure coding. Default `true`.
    public var requiresSecureCoding: Bool = true {
        didSet { forgetResolutions() }
    }

    /// The limits and choices in force; change them before decoding.
    public var options: KeyedUnarchivingOptions {
        get { currentOptions }
        set { currentOptions = newValue }
    }

    /// The first error of the most recent top-level decode, or `nil`.
    ///
    /// Errors are recorded even when an `init(coder:)` catches them (with `try?`, say),
    /// and the top-level decode then throws this error, as Foundation's unarchiver does
    /// with its `setErrorAndReturn` failure policy: a decode that failed once is not
    /// half-trusted. To read a value that may have one of two forms, ask what is stored
    /// first (``containsValue(forKey:)``, ``archivedClassName(forKey:)``) instead of
    /// trying one decode and catching its failure.
    public var error: KeyedArchiveError? { recordedError }

    // Read for every object decoded; public access goes through the properties above, so
    // that callers keep Swift's exclusivity checks while the engine skips them.
    @exclusivity(unchecked) var currentOptions: KeyedUnarchivingOptions
    @exclusivity(unchecked) var recordedError: KeyedArchiveError?

    /// `$objects`, read in place from a binary property list: every archive is read as
    /// one (XML is rewritten as binary when opened, OpenStep text and parsed values are
    /// serialized as binary), so that one set of paths reads fields without building
    /// property-list values.
    let source: BinaryArchiveSource

    // The state below is read and written for every object and key decoded. An
    // unarchiver is not thread-safe, and no access to these properties spans a call
    // that could reach them again (user code runs between accesses, never inside one),
    // so the dynamic exclusivity checks Swift adds to class properties would only cost
    // time: in the profile they were the largest single item.

    /// Objects being decoded, innermost last; element 0 is `$top`.
    @exclusivity(unchecked) package var containers: [DecodingContainer]
    @exclusivity(unchecked) package var path: [ArchiveKeyPathComponent] = []
    @exclusivity(unchecked) var depth = 0
    /// Whether each object's `init(coder:)` is running, a bit per object index (its class
    /// name is in `containers`). A bit set, not a dictionary: it is set, cleared and
    /// checked for every object decoded; and one bit per object keeps opening a large
    /// archive cheap.
    let inProgressFlags: ObjectIndexSet
    /// What each object decoded to the first time, by object index: its class instance
    /// (one per object), or the value decoded as one type.
    @exclusivity(unchecked) var decoded = IndexTable<DecodedObject>()
    /// Values decoded from an object as further types (a value decodes once per type
    /// asked), by object index and type; rare.
    @exclusivity(unchecked) var values: [DecodedValueKey: Any] = [:]
    /// Strings read from a binary archive more than once, by object index (see
    /// ``binaryString(_:)``).
    @exclusivity(unchecked) var strings = IndexTable<String>()
    /// The long strings read once so far (see ``binaryString(_:)``).
    let stringsReadOnce: ObjectIndexSet
    /// The key of the `[String: V]` entry whose value is decoding, a plain string, and its
    /// object index (-1: none), which ``binaryString(_:)`` returns for that index: a value
    /// that names itself by its key shares the key's string. The key is where the
    /// dictionary being built holds it (set and cleared by that decode, valid meanwhile),
    /// so that setting it for each entry retains and releases nothing.
    @exclusivity(unchecked) var entryKeyUID = -1
    @exclusivity(unchecked) var entryKey: UnsafePointer<String>?
    /// The objects decoded once so far as large values (not class instances), which are
    /// cached from their second decode on (see ``instantiate(_:uid:fields:classUID:)``). The same
    /// set as ``stringsReadOnce``: an entry is either a plain string or an object.
    let valuesReadOnce: ObjectIndexSet
    /// Small value types of upper modules cached from their second decode on, like URLs
    /// (see `UnsharedValueTypes`); registered with ``cacheFromSecondDecode(_:)``.
    @exclusivity(unchecked) var rarelySharedTypes: [ObjectIdentifier] = []

    /// Makes values of `type` cached from their second decode on, as URLs and data are:
    /// for small types of other modules that archives rarely share (an attributed
    /// string's attribute dictionaries), so that caching each costs no allocation.
    package func cacheFromSecondDecode<T>(_ type: T.Type) {
        let identifier = ObjectIdentifier(type)
        if !rarelySharedTypes.contains(identifier) { rarelySharedTypes.append(identifier) }
    }
    /// Values decoded by the untyped methods (`[Any]`, `[String: Any]`, …), by object index
    /// and the allowed types their elements were checked against (an index into
    /// ``untypedAllowedLists``): a collection decoded for some types is not handed to a
    /// call that allows others.
    @exclusivity(unchecked) var decodedUntyped: [UntypedValueKey: Any] = [:]
    /// The lists of allowed types the untyped methods have decoded collections for
    /// (`nil`: any mapped type), in the order first seen; as many as the calling code has.
    @exclusivity(unchecked) var untypedAllowedLists: [[ObjectIdentifier]?] = []
    /// The indices in `containers` of the standard collections the untyped methods are
    /// decoding, innermost last (see ``isUntypedCollectionCycle(_:)``).
    @exclusivity(unchecked) var untypedCollections: [Int] = []
    /// Which objects are standard collections on a cycle of standard collections, worked
    /// out when the untyped methods first meet such a cycle (see ``cyclicCollection(at:allowed:)``).
    var collectionCycleMembers: [Bool]?
    /// How the untyped methods decode the class descriptions seen (by index), for the
    /// allowed types at ``untypedDecodingsAllowedIndex`` of ``untypedAllowedLists``: the
    /// objects of a collection repeat one class, and working it out costs more than
    /// decoding many.
    @exclusivity(unchecked) var untypedDecodings: [Int: UntypedDecoding] = [:]
    @exclusivity(unchecked) var untypedDecodingsAllowedIndex: Int?
    /// Assignments waiting for an object in progress to finish, by object index.
    @exclusivity(unchecked) var pendingAssignments: [Int: [(Any) -> Void]] = [:]
    /// Class descriptions by their object index, with the type last resolved for them.
    @exclusivity(unchecked) var classes = IndexTable<ResolvedClass>()
    /// Whether the rules for resolving classes (secure coding, this unarchiver's class
    /// table) are those every cached object was decoded under, so that an object decoded
    /// as the type asked again can be returned without resolving its class again.
    @exclusivity(unchecked) var resolutionsUnchanged = true
    /// Types set with ``setClass(_:forClassName:)-swift.method``.
    var classMap: [String: any KeyedCoding.Type] = [:]
    /// The whole archive as a graph, built the first time an unknown class decodes generically.
    var genericGraph: ArchivedObjectGraph?

    /// Opens a keyed archive in binary or XML property-list form.
    ///
    /// A binary archive is read lazily and in place, without copying it: opening it reads
    /// only its header, trailer and `$top`, and each decode reads just the objects it
    /// reaches, so decoding one key of a large archive does not parse the whole file. An
    /// XML archive is checked and rewritten as a binary property list when opened (no tree
    /// of values is built), then read the same way; OpenStep text is parsed and written as
    /// a binary property list.
    ///
    /// - Parameters:
    ///   - data: The archive.
    ///   - options: Limits and choices; the defaults are safe for untrusted input.
    /// - Throws: ``KeyedArchiveError`` with code `corruptData` (or another property-list
    ///   error) when the bytes are not a property list, `invalidArchive` when the
    ///   property list is not a keyed archive (`$archiver`, `$version`, `$top`,
    ///   `$objects`), or `limitExceeded`.
    public convenience init(
        forReadingFrom data: Data, options: KeyedUnarchivingOptions = KeyedUnarchivingOptions()
    ) throws {
        switch PropertyListFormat.detect(data) {
        case .binary:
            // Binary archives are read lazily and in place, one $objects entry at a time.
            try self.init(source: BinaryArchiveSource(data: data, options: options), options: options)
        case .xml:
            // XML is rewritten as a binary property list in one pass (no tree of values),
            // which is then read as a binary archive is.
            let binary = try XMLPropertyListReader.binaryPropertyList(
                data, options: options.propertyListOptions)
            try self.init(source: BinaryArchiveSource(data: binary, options: options), options: options)
        case .openStep:
            // OpenStep text is parsed, then serialized as binary (rare: Apple never writes
            // keyed archives as OpenStep).
            let root = try PropertyList(from: data, options: options.propertyListOptions)
            try self.init(source: BinaryArchiveSource(propertyList: root, options: options), options: options)
        }
    }

    /// Opens a keyed archive that has already been parsed into a property-list value.
    ///
    /// The value is written as a binary property list first (time and memory linear in
    /// its size), then read as a binary archive is: one reader for every archive.
    ///
    /// - Parameters:
    ///   - propertyList: The archive's root dictionary.
    ///   - options: Limits and choices.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the value is not a
    ///   keyed archive, `invalidValue` when it cannot be written (a date that is not
    ///   finite), or `limitExceeded`.
    public convenience init(
        propertyList: PropertyList, options: KeyedUnarchivingOptions = KeyedUnarchivingOptions()
    ) throws {
        try self.init(
            source: BinaryArchiveSource(propertyList: propertyList, options: options), options: options)
    }

    init(source: BinaryArchiveSource, options: KeyedUnarchivingOptions) throws {
        self.source = source
        self.currentOptions = options
        self.containers = [DecodingContainer(fields: .parsed(source.top), uid: 0, classUID: 0)]
        self.inProgressFlags = ObjectIndexSet(objectCount: source.objectCount)
        self.stringsReadOnce = ObjectIndexSet(objectCount: source.objectCount)
        self.valuesReadOnce = stringsReadOnce
        self.decoded = IndexTable(keysBelow: source.objectCount)
        self.strings = IndexTable(keysBelow: source.objectCount)
        self.classes = IndexTable(keysBelow: source.objectCount)
    }

    // MARK: - Inspecting

    /// Whether the current object (or `$top`) has a value for `key`.
    ///
    /// - Parameter key: The key, as passed when encoding.
    /// - Returns: `true` if the key is present, even if it holds nil.
    public func containsValue(forKey key: String) -> Bool {
        do {
            return try withInput { try fieldValue(forKey: archiveEscapedKey(key)) != nil }
        } catch {
            // A damaged entry: report the key present, so that decoding it throws the error.
            return true
        }
    }

    /// The archived class name of the object under `key`, without decoding it: useful to
    /// choose what to decode when a key may hold different types (versioned formats).
    ///
    /// - Parameter key: The key.
    /// - Returns: `$classname` of the object, `NSString`, `NSNumber` or `NSData` for plain
    ///   values, or `nil` when the key is missing or holds nil.
    /// - Throws: ``KeyedArchiveError`` when the reference or class description is invalid.
    public func archivedClassName(forKey key: String) throws -> String? {
        try perform(.key(key)) {
            guard let value = try fieldValue(forKey: archiveEscapedKey(key)) else { return nil }
            guard case .uid = value else { return value.archivedKindName }
            let uid = try referenceIndex(value)
            guard uid != 0 else { return nil }
            guard case .object(let fields) = try entry(at: uid) else {
                return try object(at: uid).archivedKindName
            }
            return try classDescription(of: fields, uid: uid).name
        }
    }

    // MARK: - Objects

    /// Decodes the object under `key` as a `T`.
    ///
    /// ```swift
    /// let title = try coder.decodeObject(of: String.self, forKey: "Title")
    /// let tags = try coder.decodeObject(of: [String].self, forKey: "Tags")
    /// ```
    ///
    /// The archived class must be one `T` decodes from (its ``KeyedCoding/archivedClassName``,
    /// a name mapped to `T`, or for the standard types Apple's names such as
    /// `NSMutableArray`). When secure coding is off, a mapped subclass of `T` is accepted.
    /// A number type also reads a number stored inline (with `encode(_:forKey:)` of a
    /// scalar), which Foundation's `decodeObject(of: NSNumber.self, forKey:)` refuses.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The key in the current object (or in `$top`).
    /// - Returns: The object, or `nil` if the key is missing or holds nil.
    /// - Throws: ``KeyedArchiveError``: `typeMismatch` when the archive holds another type,
    ///   `classNotAllowed` in secure mode for a class outside the allowed set or a type
    ///   that does not support secure coding, `unresolvableCycle` for a reference to an
    ///   object still being decoded, `invalidArchive` for malformed references, or
    ///   whatever the type's `init(coder:)` throws.
    public func decodeObject<T: KeyedCoding>(of type: T.Type, forKey key: String) throws -> T? {
        // The hottest entry point, so not written with `perform`: this generic code runs
        // unspecialized in the caller's module, and passing `T?` through `perform`'s
        // generic result made the runtime look up `Optional<T>` metadata on every call.
        let quick = quickValue(forKey: key)
        if case .reference(let uid)? = quick {
            if uid == 0 { return nil }
            if ObjectIdentifier(T.self) == ObjectIdentifier(String.self), let text = quickString(uid) {
                // `T` is `String`, so this reinterprets a value as its own type.
                return unsafeBitCast(text, to: T.self)
            }
            if decoded.contains(uid), let known = reusable(uid, as: T.self),
                ObjectIdentifier(Swift.type(of: known)) == ObjectIdentifier(T.self)
            {
                // A repeated reference to an object decoded before as `T`: nothing can fail.
                return reinterpret(known, as: T.self)
            }
        }
        let isTopLevel = beginOperation(.key(key))
        let lookup: FieldLookup
        if case .reference(let uid)? = quick {
            lookup = .reference(uid)
        } else {
            do {
                lookup = try withInput { try fieldLookup(forKey: archiveEscapedKey(key)) }
            } catch let thrown {
                throw endOperation(failing: thrown, isTopLevel: isTopLevel)
            }
        }
        let decoded: T
        do {
            switch lookup {
            case .missing, .reference(0):
                try endOperation(isTopLevel: isTopLevel)
                return nil
            case .reference(let uid):
                decoded = try withInput { try decodeEntry(uid, as: T.self) }
            case .inline(let value):
                decoded = try withInput { try decodeNonNilValue(value, as: T.self) }
            }
        } catch let thrown {
            throw endOperation(failing: thrown, isTopLevel: isTopLevel)
        }
        try endOperation(isTopLevel: isTopLevel)
        return decoded
    }

    /// Decodes the object under `key` as any of `types` (or a standard type), for keys
    /// that may hold objects of several classes.
    ///
    /// Standard collections decode as `[Any]`, `[String: Any]` (or `[AnyHashable: Any]`
    /// when a key is not a string) and `Set<AnyHashable>`; their elements are checked
    /// against the same `types`. An array whose elements all decode as one type `T` (one
    /// of `types`, or a mapped type) decodes as `[T]`, so that the caller's `as? [T]`
    /// checks its type once instead of casting every element (`as? [Any]` reads it too).
    /// What those cannot hold is never refused: a set with an
    /// element, or a dictionary with a key, that is not `Hashable` decodes as an
    /// ``ArchivedCollection``, and a collection that contains itself (directly or through
    /// other collections) as the ``ArchivedObjectGraph`` rooted at it. `NSNull` decodes as
    /// ``ArchivedNull``; plain integers as `Int` (`UInt64` above `Int.max`), reals as
    /// `Double`, Booleans as `Bool`.
    ///
    /// - Parameters:
    ///   - types: The types the object (and the elements of a standard collection) may be.
    ///   - key: The key in the current object.
    /// - Returns: The object, or `nil` if the key is missing or holds nil.
    /// - Throws: ``KeyedArchiveError`` as ``decodeObject(of:forKey:)->T?``, or
    ///   `classNotFound` for a class no type maps to (when unknown classes are not
    ///   decoded generically).
    public func decodeObject(of types: [any KeyedCoding.Type], forKey key: String) throws -> Any? {
        try perform(.key(key)) {
            guard let value = try fieldValue(forKey: archiveEscapedKey(key)) else { return nil }
            return try decodeUntypedValue(value, allowed: types)
        }
    }

    /// Decodes the object under `key` as whatever type its class maps to; refused when
    /// secure coding is required.
    ///
    /// Classes resolve through ``setClass(_:forClassName:)-swift.method``, the process-wide
    /// table and the standard types; see ``decodeObject(of:forKey:)->Any?``
    /// for what standard values decode as.
    ///
    /// - Parameter key: The key in the current object.
    /// - Returns: The object, or `nil` if the key is missing or holds nil.
    /// - Throws: ``KeyedArchiveError`` with code `classNotAllowed` when
    ///   ``requiresSecureCoding`` is `true`, `classNotFound` for a class no type maps to,
    ///   or as ``decodeObject(of:forKey:)->T?``.
    public func decodeObject(forKey key: String) throws -> Any? {
        try perform(.key(key)) {
            try refuseUntypedDecodeIfSecure()
            guard let value = try fieldValue(forKey: archiveEscapedKey(key)) else { return nil }
            return try decodeUntypedValue(value, allowed: nil)
        }
    }

    /// Decodes the next unkeyed object (`$0`, `$1`, … in order) as a `T`, the
    /// counterpart of ``KeyedArchiver/encode(_:)``.
    ///
    /// - Parameter type: The type to decode.
    /// - Returns: The object, or `nil` if there are no more unkeyed values or it is nil.
    /// - Throws: ``KeyedArchiveError`` as ``decodeObject(of:forKey:)->T?``.
    public func decodeObject<T: KeyedCoding>(of type: T.Type) throws -> T? {
        let key = nextUnkeyedKey()
        return try perform(.key(key)) {
            guard let value = try fieldValue(forKey: key) else { return nil }
            return try decodeValue(value, as: T.self)
        }
    }

    /// Decodes the next unkeyed object (`$0`, `$1`, … in order) as whatever type its class
    /// maps to; refused when secure coding is required.
    ///
    /// - Returns: The object, or `nil` if there are no more unkeyed values or it is nil.
    /// - Throws: ``KeyedArchiveError`` as ``decodeObject(forKey:)``.
    public func decodeObject() throws -> Any? {
        let key = nextUnkeyedKey()
        return try perform(.key(key)) {
            try refuseUntypedDecodeIfSecure()
            guard let value = try fieldValue(forKey: key) else { return nil }
            return try decodeUntypedValue(value, allowed: nil)
        }
    }

    // MARK: - Class names

    /// Decodes objects archived under `name` as `type` in this unarchiver; `nil` removes
    /// the mapping. This mapping wins over the process-wide one.
    ///
    /// ```swift
    /// unarchiver.setClass(Creature.self, forClassName: "OldApp.Bug")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to construct, or `nil`.
    ///   - name: The archived class name.
    public func setClass(_ type: (any KeyedCoding.Type)?, forClassName name: String) {
        classMap[name] = type
        forgetResolutions()
    }

    /// The type set for `name` on this unarchiver, if any.
    ///
    /// - Parameter name: An archived class name.
    /// - Returns: The type set with ``setClass(_:forClassName:)-swift.method``, or `nil`.
    public func `class`(forClassName name: String) -> (any KeyedCoding.Type)? {
        classMap[name]
    }

    /// Decodes objects archived under `name` as `type` in every unarchiver of the process
    /// (unless one maps the name itself); `nil` removes the mapping. Thread-safe.
    ///
    /// - Parameters:
    ///   - type: The type to construct, or `nil`.
    ///   - name: The archived class name.
    public static func setClass(_ type: (any KeyedCoding.Type)?, forClassName name: String) {
        ArchiveClassRegistry.shared.setClass(type, forClassName: name)
    }

    /// The process-wide type set for `name`, if any.
    ///
    /// - Parameter name: An archived class name.
    /// - Returns: The type set with ``setClass(_:forClassName:)-swift.type.method``, or `nil`.
    public static func `class`(forClassName name: String) -> (any KeyedCoding.Type)? {
        ArchiveClassRegistry.shared.type(forClassName: name)
    }

    // MARK: - One-call decoding

    /// Decodes the root object of an archive as a `T`, with secure coding required.
    ///
    /// ```swift
    /// let names = try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, from: data)
    /// ```
    ///
    /// - Parameters:
    ///   - ofClass: The type of the root object.
    ///   - data: The archive.
    /// - Returns: The root object, or `nil` if the archive's root is nil.
    /// - Throws: ``KeyedArchiveError``: the errors of ``init(forReadingFrom:options:)``,
    ///   `invalidArchive` when `$top` has no `root`, then those of
    ///   ``decodeObject(of:forKey:)->T?``.
    public static func unarchivedObject<T: KeyedCoding>(ofClass: T.Type, from data: Data) throws -> T? {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        try unarchiver.requireRoot()
        return try unarchiver.decodeObject(of: T.self, forKey: KeyedArchiver.rootObjectKey)
    }

    /// Decodes the root object of an archive as any of `classes` (or a standard type),
    /// with secure coding required.
    ///
    /// ```swift
    /// // An array of one class decodes as an array of it: the cast checks its type once.
    /// let creatures = try KeyedUnarchiver.unarchivedObject(ofClasses: [Creature.self], from: data)
    ///     as? [Creature]
    /// ```
    ///
    /// Standard values decode as with ``decodeObject(of:forKey:)->Any?``.
    ///
    /// - Parameters:
    ///   - classes: The types the root object (and the elements of standard collections)
    ///     may be.
    ///   - data: The archive.
    /// - Returns: The root object, or `nil` if the archive's root is nil.
    /// - Throws: ``KeyedArchiveError`` as ``unarchivedObject(ofClass:from:)``.
    public static func unarchivedObject(ofClasses classes: [any KeyedCoding.Type], from data: Data) throws
        -> Any?
    {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        try unarchiver.requireRoot()
        return try unarchiver.decodeObject(of: classes, forKey: KeyedArchiver.rootObjectKey)
    }
}

/// The object being decoded: its fields and its position among unkeyed values.
///
/// A container is pushed and popped for every object decoded, so its fields are held as
/// two optionals rather than an ``ArchiveFields`` (whose copies and destruction go through
/// its enum's payloads): a binary archive's dictionary, read in place, which the key
/// lookups use directly, or a parsed dictionary.
package struct DecodingContainer {
    /// The object's dictionary when read in place from a binary archive.
    package let binaryFields: BinaryPropertyListObject?
    /// The object's dictionary otherwise (an OpenStep archive, a caller's property list, `$top`).
    package let parsedFields: PropertyListDictionary?
    let uid: Int
    /// The index of the object's class description (see
    /// ``KeyedUnarchiver/className(ofClassUID:)``); a number, not the name, so that pushing
    /// and popping a container retains nothing for a binary archive.
    package let classUID: Int
    var unkeyedIndex = 0

    init(fields: ArchiveFields, uid: Int, classUID: Int) {
        switch fields {
        case .binary(let object):
            binaryFields = object
            parsedFields = nil
        case .parsed(let dictionary):
            binaryFields = nil
            parsedFields = dictionary
        }
        self.uid = uid
        self.classUID = classUID
    }

    var fields: ArchiveFields {
        if let binaryFields { return .binary(binaryFields) }
        return .parsed(parsedFields ?? PropertyListDictionary())
    }
}

/// What a key of the current object holds.
enum FieldLookup {
    /// The key is absent.
    case missing
    /// A reference to `$objects[uid]`, checked to be in range; 0 is nil.
    case reference(Int)
    /// A value stored inline (not a reference).
    case inline(PropertyList)
}

/// A value decoded from one object as one type.
struct DecodedValueKey: Hashable {
    let uid: Int
    let type: ObjectIdentifier

    // One combine instead of two: this key is hashed for every value decoded.
    func hash(into hasher: inout Hasher) {
        hasher.combine(uid &* 0x9E37_79B9 ^ Int(bitPattern: type))
    }
}

/// What an object decoded to first: a class instance (kept whatever type is asked
/// next), or a value of one type.
struct DecodedObject {
    let type: ObjectIdentifier
    let isInstance: Bool
    let value: Any
}

/// A class description, with the type last resolved for it and the type that asked.
///
/// A class, so that the lookup made for every object decoded copies one reference.
final class ResolvedClass {
    let description: ClassDescription
    var requested: ObjectIdentifier?
    var chosen: (any KeyedCoding.Type)?
    /// The catalogue's class for the description's name (`.some(nil)`: not catalogued),
    /// looked up the first time it is asked (see ``KeyedUnarchiver/cataloguedClass(of:uid:)``).
    var catalogued: CataloguedClass??
    /// Every type resolved for the description, by requested type (usually one). A list
    /// rather than a dictionary keyed by description and type: the first insertion into
    /// such a dictionary made the runtime look up the key's `Hashable` conformance, a scan
    /// of every conformance record of the process (~0.36 M instructions, once per process).
    /// Its length is bounded by the types the program asks for, not by the input.
    var resolved: [(requested: ObjectIdentifier, chosen: any KeyedCoding.Type)] = []

    /// The type resolved for `requested` before, if any.
    func chosen(for requested: ObjectIdentifier) -> (any KeyedCoding.Type)? {
        for entry in resolved where entry.requested == requested { return entry.chosen }
        return nil
    }

    init(
        description: ClassDescription, requested: ObjectIdentifier? = nil,
        chosen: (any KeyedCoding.Type)? = nil
    ) {
        self.description = description
        self.requested = requested
        self.chosen = chosen
    }
}

// MARK: - Engine

extension KeyedUnarchiver {
    /// The value under `key` (escaped) in the current object (or `$top`), or `nil` when
    /// the key is missing.
    @inline(__always)
    package func fieldValue(forKey key: String) throws -> PropertyList? {
        try fieldValue(forKey: key, in: containers[containers.count - 1].fields)
    }

    /// The value under `key` (escaped) in `fields`, or `nil` when the key is missing.
    func fieldValue(forKey key: String, in fields: ArchiveFields) throws -> PropertyList? {
        switch fields {
        case .parsed(let dictionary):
            return dictionary[key]
        case .binary(let object):
            do {
                return try source.value(forKey: key, in: object)
            } catch let error as KeyedArchiveError {
                throw inputFailure(error, reading: containers[containers.count - 1].uid)
            }
        }
    }

    /// What `key` (escaped) holds in the current object (or `$top`): read straight from a
    /// binary archive's bytes, a reference never becomes a property-list value.
    func fieldLookup(forKey key: String) throws -> FieldLookup {
        let current = containers.count - 1
        if let object = containers[current].binaryFields {
            do {
                guard let reference = try source.valueReference(forKey: key, in: object) else {
                    return .missing
                }
                guard let raw = try source.uidValue(ofReference: reference) else {
                    return .inline(try source.value(ofReference: reference))
                }
                guard raw < UInt64(source.objectCount) else {
                    throw failure(
                        .invalidArchive,
                        "object reference \(raw) is out of range (\(source.objectCount) objects)")
                }
                return .reference(Int(raw))
            } catch let error as KeyedArchiveError {
                throw inputFailure(error, reading: containers[current].uid)
            }
        }
        guard let value = try fieldValue(forKey: key) else { return .missing }
        guard case .uid = value else { return .inline(value) }
        return .reference(try referenceIndex(value))
    }

    /// The value of `key` (not yet escaped) in the current object when it is a reference
    /// or a scalar: read in place by ``BinaryArchiveSource/quickValue(forKey:escaping:in:)``,
    /// or taken from a parsed dictionary; `nil` for the general path.
    ///
    /// Only inside an `init(coder:)`: a nested operation that succeeds leaves no trace (its
    /// key-path component is pushed and popped, no error is recorded), so the decoders
    /// return what this finds without that bookkeeping.
    @inline(__always)
    func quickValue(forKey key: String) -> QuickValue? {
        guard depth > 0 else { return nil }
        let current = containers.count - 1
        if let fields = containers[current].binaryFields {
            return source.quickValue(forKey: key, escaping: true, in: fields)
        }
        return QuickValue(
            containers[current].parsedFields?[archiveEscapedKey(key)], objectCount: source.objectCount)
    }

    /// The current object's fields as a property-list dictionary (built, for a binary
    /// archive), for the paths that need them all.
    package func currentDictionary() throws -> PropertyListDictionary {
        let container = containers[containers.count - 1]
        switch container.fields {
        case .parsed(let dictionary): return dictionary
        case .binary:
            guard case .dictionary(let dictionary) = try object(at: container.uid) else {
                return PropertyListDictionary()
            }
            return dictionary
        }
    }

    /// Runs one operation with the input's bytes at hand (see
    /// ``BinaryArchiveSource/withInput(_:)``); nested operations reuse them.
    @inline(__always)
    func withInput<R>(_ body: () throws -> R) throws -> R {
        try source.withInput(body)
    }

    /// Drops the types resolved for class descriptions, after the rules changed.
    func forgetResolutions() {
        classes.removeAll()
        untypedDecodings.removeAll()
        // Collections decoded under the old rules would skip the new ones.
        decodedUntyped.removeAll()
        resolutionsUnchanged = false
    }

    func nextUnkeyedKey() -> String {
        let index = containers[containers.count - 1].unkeyedIndex
        containers[containers.count - 1].unkeyedIndex = index + 1
        return "$\(index)"
    }

    /// An error located at the current key path.
    package func failure(_ code: KeyedArchiveError.Code, _ message: String) -> KeyedArchiveError {
        KeyedArchiveError(code, message, at: .keyPath(ArchiveKeyPath.render(path)))
    }

    /// Adds the current key path to an error that has no location yet.
    func located(_ error: KeyedArchiveError) -> KeyedArchiveError {
        guard error.location == nil else { return error }
        var located = error
        located.location = .keyPath(ArchiveKeyPath.render(path))
        return located
    }

    /// Runs one public decoding operation under `component` of the key path.
    ///
    /// Errors are recorded (the first one wins). A top-level operation (one not called
    /// from an `init(coder:)`) throws the recorded error even if a nested
    /// `init(coder:)` swallowed it, and resets the state a failure may leave behind.
    package func perform<R>(_ component: ArchiveKeyPathComponent, _ body: () throws -> R) throws -> R {
        let isTopLevel = beginOperation(component)
        let result: R
        do {
            result = try withInput(body)
        } catch let thrown {
            throw endOperation(failing: thrown, isTopLevel: isTopLevel)
        }
        try endOperation(isTopLevel: isTopLevel)
        return result
    }

    /// Starts a public decoding operation under `component` of the key path (see
    /// ``perform(_:_:)``); returns whether it is a top-level one.
    func beginOperation(_ component: ArchiveKeyPathComponent) -> Bool {
        let isTopLevel = depth == 0
        if isTopLevel {
            recordedError = nil
            source.beginOperation()
        }
        path.append(component)
        return isTopLevel
    }

    /// Ends an operation that returned: a top-level one throws the error a nested
    /// `init(coder:)` recorded and swallowed.
    func endOperation(isTopLevel: Bool) throws {
        path.removeLast()
        if isTopLevel, let error {
            resetAfterFailure()
            throw error
        }
    }

    /// Ends an operation that threw `thrown`: records it and returns the error to throw.
    func endOperation(failing thrown: any Error, isTopLevel: Bool) -> any Error {
        let failure =
            (thrown as? KeyedArchiveError).map(located) ?? self.failure(.invalidArchive, "\(thrown)")
        path.removeLast()
        if recordedError == nil { recordedError = failure }
        if isTopLevel {
            resetAfterFailure()
            return error ?? failure
        }
        return failure
    }

    /// Clears what a failed top-level decode may leave behind (every nested step also
    /// restores its own state as the error unwinds).
    func resetAfterFailure() {
        for container in containers.dropFirst() { inProgressFlags.remove(container.uid) }
        if containers.count > 1 { containers.removeSubrange(1...) }
        untypedCollections.removeAll()
        depth = 0
        pendingAssignments.removeAll()
    }

    func refuseUntypedDecodeIfSecure() throws {
        guard requiresSecureCoding else { return }
        throw failure(
            .classNotAllowed,
            "decoding without naming the allowed classes is refused when requiresSecureCoding is true; "
                + "use decodeObject(of:forKey:)")
    }

    func requireRoot() throws {
        guard source.top[KeyedArchiver.rootObjectKey] != nil else {
            let keys = source.top.keys.prefix(8).joined(separator: ", ")
            throw KeyedArchiveError(
                .invalidArchive, "$top has no \"root\" key (keys: \(keys.isEmpty ? "none" : keys))",
                at: .keyPath("$top"))
        }
    }

    /// The object index a reference value holds.
    package func referenceIndex(_ value: PropertyList) throws -> Int {
        guard case .uid(let raw) = value else {
            throw failure(.typeMismatch, "expected an object reference, found \(value.archivedKindName)")
        }
        guard let uid = Int(exactly: raw), uid < source.objectCount else {
            throw failure(
                .invalidArchive, "object reference \(raw) is out of range (\(source.objectCount) objects)")
        }
        return uid
    }

    /// `$objects[uid]` as a property-list value (built, for a binary archive).
    func object(at uid: Int) throws -> PropertyList {
        do {
            return try source.object(at: uid)
        } catch let error as KeyedArchiveError {
            throw inputFailure(error, reading: uid)
        }
    }

    /// `$objects[uid]` as a property-list value, not kept by the source (see
    /// ``BinaryArchiveSource/uncachedObject(at:)``).
    func uncachedObject(at uid: Int) throws -> PropertyList {
        do {
            return try source.uncachedObject(at: uid)
        } catch let error as KeyedArchiveError {
            throw inputFailure(error, reading: uid)
        }
    }

    /// `$objects[uid]` as an entry: an object's fields (read in place from a binary
    /// archive) or a plain value.
    @inline(__always)
    package func entry(at uid: Int) throws -> ArchiveEntry {
        do {
            return try source.entry(at: uid)
        } catch let error as KeyedArchiveError {
            throw inputFailure(error, reading: uid)
        }
    }

    /// An error of the input: a damaged binary entry keeps its byte offset, and the
    /// message says which object the decode was reaching for; otherwise it gets the key path.
    func inputFailure(_ error: KeyedArchiveError, reading uid: Int) -> KeyedArchiveError {
        guard error.location != nil else { return located(error) }
        var error = error
        error.message += " (reading $objects[\(uid)] for \(ArchiveKeyPath.render(path)))"
        return error
    }

    /// The class description an object's `$class` refers to, with the type last resolved
    /// for it.
    func resolvedClass(of fields: ArchiveFields, uid: Int) throws -> ResolvedClass {
        if case .binary(let object) = fields,
            case .reference(let classUID)? = source.quickValue(forKey: "$class", in: object),
            let known = classes[classUID]
        {
            // The common case: a class already seen, read in place.
            return known
        }
        guard let reference = try fieldValue(forKey: "$class", in: fields) else {
            throw failure(.invalidArchive, "$objects[\(uid)] is a dictionary without $class")
        }
        guard case .uid = reference else {
            throw failure(
                .invalidArchive,
                "$class of $objects[\(uid)] is \(reference.archivedKindName), not a reference")
        }
        let classUID = try referenceIndex(reference)
        if let known = classes[classUID] { return known }
        let description: ClassDescription
        do {
            // Not kept by the source: `classes` keeps it parsed.
            description = try ClassDescription(parsing: uncachedObject(at: classUID), uid: classUID)
        } catch let error as KeyedArchiveError {
            throw located(error)
        }
        let resolved = ResolvedClass(description: description)
        classes.insert(resolved, forKey: classUID)
        return resolved
    }

    /// The class description an object's `$class` refers to.
    package func classDescription(of fields: ArchiveFields, uid: Int) throws -> ClassDescription {
        try resolvedClass(of: fields, uid: uid).description
    }

    /// The catalogue's class for the class an object's `$class` refers to, or `nil` when
    /// the catalogue does not have it; looked up once per class description (the readers
    /// of other modules ask for every object, as an attributed string's attribute values).
    package func cataloguedClass(of fields: ArchiveFields, uid: Int) throws -> CataloguedClass? {
        let resolved = try resolvedClass(of: fields, uid: uid)
        if let known = resolved.catalogued { return known }
        let found = CataloguedClass(name: resolved.description.name)
        resolved.catalogued = .some(found)
        return found
    }

    // The key path and the current container, for the readers of other modules: their
    // own access to these properties would check exclusivity at run time, as
    // `@exclusivity(unchecked)` is honoured only in this module (callgrind,
    // `apple-classes/…/read/binary`: two `swift_beginAccess` per attribute).

    /// Appends `component` to the key path (what errors name as their location).
    package func enterPath(_ component: ArchiveKeyPathComponent) {
        path.append(component)
    }

    /// Removes the last component ``enterPath(_:)`` appended.
    package func leavePath() {
        path.removeLast()
    }

    /// The object being decoded (or `$top`).
    package var currentContainer: DecodingContainer {
        containers[containers.count - 1]
    }

    // MARK: Typed decoding

    /// The value under `key` (escaped) in the current object, or `nil` when the key is
    /// missing or holds the nil reference; a reference is checked to be in range.
    func nonNilValue(forKey key: String) throws -> PropertyList? {
        guard let value = try fieldValue(forKey: key) else { return nil }
        if case .uid = value, try referenceIndex(value) == 0 { return nil }
        return value
    }

    /// Decodes a value found under a key (a reference, or a plain inline value) as a `T`.
    func decodeValue<T: KeyedCoding>(_ value: PropertyList, as type: T.Type) throws -> T? {
        if case .uid = value, try referenceIndex(value) == 0 { return nil }
        return try decodeNonNilValue(value, as: T.self)
    }

    /// Decodes a value that is not the nil reference as a `T`.
    ///
    /// The decoding functions below return `T`, not `T?`, and leave nil to their callers:
    /// in unspecialized generic code every `T?` costs a run-time metadata lookup.
    func decodeNonNilValue<T: KeyedCoding>(_ value: PropertyList, as type: T.Type) throws -> T {
        switch value {
        case .uid:
            return try decodeEntry(referenceIndex(value), as: T.self)
        case .string, .integer, .real, .bool, .data:
            // Inline plain values, as NSMutableString's NS.string.
            return try decodePlain(value, as: T.self)
        default:
            throw failure(
                .typeMismatch, "expected \(T.archivedClassName), found \(value.archivedKindName)")
        }
    }

    /// Decodes `$objects[uid]` as a `T`; index 0 is nil.
    func decodeReference<T: KeyedCoding>(_ uid: Int, as type: T.Type) throws -> T? {
        guard uid != 0 else { return nil }
        return try decodeEntry(uid, as: T.self)
    }

    /// Decodes `$objects[uid]`, which is not index 0 (nil), as a `T`.
    package func decodeEntry<T: KeyedCoding>(_ uid: Int, as type: T.Type) throws -> T {
        // Strings are the most common entries: read them straight from the archive's
        // bytes, without a protocol lookup or a dynamic cast.
        if ObjectIdentifier(T.self) == ObjectIdentifier(String.self), let text = try binaryString(uid) {
            // `T` is `String`, so this reinterprets a value as its own type.
            return unsafeBitCast(text, to: T.self)
        }
        let decodedBefore = decoded.contains(uid)
        if decodedBefore, let known = reusable(uid, as: T.self) {
            return try cast(known, as: T.self, "found \(Swift.type(of: known))")
        }
        let fields: ArchiveFields
        if let object = source.quickObject(uid) {
            fields = .binary(object)
        } else {
            switch try entry(at: uid) {
            case .object(let objectFields):
                fields = objectFields
            case .plain(let value):
                return try decodePlainEntry(value, uid: uid, as: T.self)
            }
        }
        let resolved = try resolvedClass(of: fields, uid: uid)
        let chosen = try resolve(resolved, for: T.self)
        if let className = inProgressClassName(uid) {
            throw cycleFailure(className: className, uid: uid)
        }
        let chosenID = ObjectIdentifier(chosen)
        if decodedBefore, let known = decoded[uid] {
            if known.isInstance {
                return try cast(
                    known.value, as: T.self,
                    "found an instance of \(Swift.type(of: known.value)) (object #\(uid), \(resolved.description.name))"
                )
            }
            if known.type == chosenID {
                // One dynamic cast (this path runs for every repeated reference to a value).
                return try cast(known.value, as: T.self, "found \(Swift.type(of: known.value))")
            }
            if let value = values[DecodedValueKey(uid: uid, type: chosenID)], value is T {
                return try cast(value, as: T.self, "found \(Swift.type(of: value))")
            }
        }
        let classUID = resolved.description.uid
        if chosenID == ObjectIdentifier(T.self) {
            return try instantiate(T.self, uid: uid, fields: fields, classUID: classUID)
        }
        let value = try instantiate(chosen, uid: uid, fields: fields, classUID: classUID)
        return try cast(value, as: T.self, "found \(Swift.type(of: value))")
    }

    /// What `$objects[uid]` decoded to before as the very type `T`, under the same rules, so
    /// that it can be returned as is: resolving its class for `T` again would choose `T`
    /// again, and every check of the general path would pass. `nil` when there is none.
    @inline(__always)
    func reusable<T>(_ uid: Int, as type: T.Type) -> Any? {
        guard resolutionsUnchanged, !inProgressFlags.contains(uid), let known = decoded[uid],
            known.type == ObjectIdentifier(T.self)
        else { return nil }
        return known.value
    }

    /// `$objects[uid]` of a binary archive when it is a string, or `nil` for any other
    /// entry (left to the general path). Strings longer than the 15 bytes Swift stores
    /// inline are kept, so an archive that references one many times shares its storage.
    func binaryString(_ uid: Int) throws -> String? {
        if let known = strings[uid] { return known }
        if uid == entryKeyUID, let entryKey { return entryKey.pointee }
        do {
            return try source.withScanner { scanner -> String? in
                let object = try source.entryObject(uid, scanner: scanner)
                guard object.kind == .asciiString || object.kind == .utf16String else { return nil }
                let text = try scanner.string(object)
                if object.count > 15 || object.kind == .utf16String {
                    // Kept from its second read on: most strings are read once, and
                    // the second copy is the last.
                    if stringsReadOnce.contains(uid) {
                        strings.insert(text, forKey: uid)
                    } else {
                        stringsReadOnce.insert(uid)
                    }
                }
                return text
            }
        } catch let error as KeyedArchiveError {
            throw inputFailure(error, reading: uid)
        }
    }

    /// `$objects[uid]` when it is a string read without error, else `nil` (the general
    /// path then decodes it, and reports any damage).
    @inline(__always)
    func quickString(_ uid: Int) -> String? {
        guard let text = try? binaryString(uid) else { return nil }
        return text
    }

    /// Decodes the plain `$objects[uid]` as a `T`. Long strings and data are kept, so an
    /// archive that references one many times shares its storage instead of copying it
    /// each time.
    func decodePlainEntry<T: KeyedCoding>(_ value: PropertyList, uid: Int, as type: T.Type) throws -> T {
        let isLarge: Bool
        switch value {
        case .string(let text): isLarge = text.utf8.count > 15
        case .data(let bytes): isLarge = bytes.count > 15
        default: isLarge = false
        }
        guard isLarge else { return try decodePlain(value, as: T.self) }
        let typeID = ObjectIdentifier(T.self)
        if let known = decoded[uid], known.type == typeID, known.value is T {
            return try cast(known.value, as: T.self, "found \(Swift.type(of: known.value))")
        }
        let result = try decodePlain(value, as: T.self)
        if decoded[uid] == nil {
            decoded.insert(DecodedObject(type: typeID, isInstance: false, value: result), forKey: uid)
        }
        return result
    }

    /// `value` as a `T`, or a `typeMismatch` saying what was `found`. Kept out of line:
    /// the `T?` of a conditional cast costs a run-time metadata lookup in unspecialized
    /// code, which `decodeEntry` then pays only when it casts.
    @inline(never)
    func cast<T: KeyedCoding>(_ value: Any, as type: T.Type, _ found: @autoclosure () -> String) throws -> T {
        if ObjectIdentifier(Swift.type(of: value)) == ObjectIdentifier(T.self) {
            // The usual case, a value cached as the very type asked: no dynamic cast needed.
            return reinterpret(value, as: T.self)
        }
        return try dynamicCast(value, as: T.self, found())
    }

    /// `value as? T`, apart from ``cast(_:as:_:)``: the `T?` it needs costs a run-time
    /// metadata lookup on entry to whatever function contains it, taken or not.
    @inline(never)
    private func dynamicCast<T: KeyedCoding>(_ value: Any, as type: T.Type, _ found: String) throws -> T {
        guard let typed = value as? T else {
            throw failure(.typeMismatch, "expected \(T.archivedClassName), \(found)")
        }
        return typed
    }

    /// `value` (an existential, opened by the call) as `T`, which the caller has checked is
    /// its dynamic type.
    @inline(__always)
    private func reinterpret<Opened, T>(_ value: Opened, as type: T.Type) -> T {
        unsafeBitCast(value, to: T.self)
    }

    func decodePlain<T: KeyedCoding>(_ entry: PropertyList, as type: T.Type) throws -> T {
        switch entry {
        case .string, .integer, .real, .bool, .data:
            guard let plainType = T.self as? any ArchivePrimitive.Type, plainType.isArchivedPlain else {
                throw failure(
                    .typeMismatch, "expected \(T.archivedClassName), found \(entry.archivedKindName)")
            }
            do {
                let value = try plainType.init(archiveValue: entry)
                guard let typed = value as? T else {
                    throw failure(
                        .typeMismatch, "expected \(T.archivedClassName), found \(entry.archivedKindName)")
                }
                return typed
            } catch let error as KeyedArchiveError {
                throw located(error)
            }
        default:
            throw failure(
                .invalidArchive, "expected an object, found \(entry.typeName) in $objects")
        }
    }

    /// The class name of object `uid` if its `init(coder:)` is running, else `nil`.
    @inline(__always)
    func inProgressClassName(_ uid: Int) -> String? {
        guard inProgressFlags.contains(uid) else { return nil }
        return containers.last { $0.uid == uid }.map { className(ofClassUID: $0.classUID) } ?? ""
    }

    /// The name in the class description `$objects[classUID]`, for messages.
    package func className(ofClassUID classUID: Int) -> String {
        if let known = classes[classUID] { return known.description.name }
        return (try? ClassDescription(parsing: source.object(at: classUID), uid: classUID).name)
            ?? "the class of object #\(classUID)"
    }

    func cycleFailure(className: String, uid: Int) -> KeyedArchiveError {
        failure(
            .unresolvableCycle,
            "reference to \(DisplayText.quotedIfNeeded(className)) (object #\(uid)) whose init(coder:) has not "
                + "returned: the object "
                + "graph has a cycle; decode this reference with decodeBackReference(of:forKey:then:)")
    }

    /// The class instance decoded from `$objects[uid]`, or the value decoded from it as `type`.
    func cached(_ uid: Int, as type: any KeyedCoding.Type) -> Any? {
        guard let known = decoded[uid] else { return nil }
        if known.isInstance || known.type == ObjectIdentifier(type) { return known.value }
        return values[DecodedValueKey(uid: uid, type: ObjectIdentifier(type))]
    }

    /// Runs `U.init(coder:)` on `$objects[uid]`, marking it in progress meanwhile, then
    /// caches the result and runs back-reference assignments waiting for it.
    func instantiate<U: KeyedCoding>(
        _ type: U.Type, uid: Int, fields: ArchiveFields, classUID: Int
    ) throws -> U {
        let value: U
        do {
            value = try withObject(uid: uid, fields: fields, classUID: classUID) { try U(coder: self) }
        } catch let thrown {
            pendingAssignments[uid] = nil
            if let archiveError = thrown as? KeyedArchiveError { throw located(archiveError) }
            throw failure(
                .invalidArchive,
                "\(U.self).init(coder:) failed for \(DisplayText.quotedIfNeeded(className(ofClassUID: classUID))): \(thrown)"
            )
        }
        let typeID = ObjectIdentifier(U.self)
        if U.self is AnyObject.Type {
            // The instance takes the slot; a value decoded from the object before moves aside.
            if decoded.contains(uid), let earlier = decoded[uid], !earlier.isInstance {
                values[DecodedValueKey(uid: uid, type: earlier.type)] = earlier.value
            }
            decoded.insert(DecodedObject(type: typeID, isInstance: true, value: value), forKey: uid)
        } else if !decoded.contains(uid) {
            // A value too large to sit inline in an `Any` is cached from its second decode
            // on: most objects are referenced once, and caching each (boxed, kept until the
            // unarchiver goes) costs an allocation and memory for nothing. Such a shared
            // value is decoded at most twice, so decoding stays linear in the archive.
            // So are a few small types rarely shared (see UnsharedValueTypes).
            let small = MemoryLayout<U>.size <= MemoryLayout<(Int, Int, Int)>.size
            if (small && !UnsharedValueTypes.contains(typeID)
                && (rarelySharedTypes.isEmpty || !rarelySharedTypes.contains(typeID)))
                || valuesReadOnce.contains(uid)
            {
                decoded.insert(DecodedObject(type: typeID, isInstance: false, value: value), forKey: uid)
            } else {
                valuesReadOnce.insert(uid)
            }
        } else {
            values[DecodedValueKey(uid: uid, type: typeID)] = value
        }
        if !pendingAssignments.isEmpty, let waiting = pendingAssignments.removeValue(forKey: uid) {
            for assign in waiting { assign(value) }
        }
        return value
    }

    // MARK: Class resolution

    /// The type mapped to `name` by this unarchiver or process-wide.
    func mappedType(forClassName name: String) -> (any KeyedCoding.Type)? {
        if let type = classMap[name] { return type }
        return ArchiveClassRegistry.shared.type(forClassName: name)
    }

    /// Names tried in order: `$classname`, `$classhints`, and when secure coding is off
    /// the superclasses from `$classes`.
    func candidateNames(_ description: ClassDescription) -> [String] {
        var names = [description.name]
        names += description.hints
        if !requiresSecureCoding { names += description.chain.dropFirst() }
        return names
    }

    /// The type to construct for `resolved` when a `T` is requested, checked against the
    /// allowed set and secure coding before anything is constructed.
    @inline(__always)
    func resolve<T: KeyedCoding>(_ resolved: ResolvedClass, for type: T.Type) throws -> any KeyedCoding.Type {
        if let chosen = resolved.chosen, resolved.requested == ObjectIdentifier(T.self) { return chosen }
        return try resolve(resolved.description, for: T.self)
    }

    /// The type to construct for `description` when a `T` is requested, checked
    /// against the allowed set and secure coding before anything is constructed.
    func resolve<T: KeyedCoding>(_ description: ClassDescription, for type: T.Type) throws
        -> any KeyedCoding.Type
    {
        let requested = ObjectIdentifier(T.self)
        let known = classes[description.uid]
        if let known, let chosen = known.chosen, known.requested == requested {
            return chosen
        }
        let chosen: any KeyedCoding.Type
        if let earlier = known?.chosen(for: requested) {
            chosen = earlier
        } else {
            guard let found = try resolve(description, allowed: [T.self]) else {
                throw unmatched(description, allowed: [T.self])
            }
            try checkSecureCoding(found, className: description.name)
            chosen = found
        }
        // Remember it with the description: the next object of this class usually asks
        // for the same type.
        let resolved: ResolvedClass
        if let known {
            resolved = known
            resolved.requested = requested
            resolved.chosen = chosen
        } else {
            resolved = ResolvedClass(description: description, requested: requested, chosen: chosen)
            classes[description.uid] = resolved
        }
        if resolved.chosen(for: requested) == nil { resolved.resolved.append((requested, chosen)) }
        return chosen
    }

    /// The type to construct for `description` among `allowed` (all mapped types when
    /// `nil`), or `nil` when the class maps to none and is left to the standard or
    /// generic decoding.
    ///
    /// A class that maps to nothing (AppKit's `NSTextStorage`, an app's own subclass of a
    /// Foundation class) is read as its nearest superclass in `$classes` that is one of the
    /// catalogue's classes, as Apple's unarchiver reads a class it cannot load — under secure
    /// coding only when the caller named that superclass's type in `allowed` (the standard
    /// types allowed implicitly do not count), so that `["Evil", "NSArray"]` is refused where
    /// arrays were not asked for. An unknown subclass of one of the caller's own classes is
    /// refused: its type may hold invariants its superclass's reader does not know.
    func resolve(
        _ description: ClassDescription, allowed: [any KeyedCoding.Type]?
    ) throws -> (any KeyedCoding.Type)? {
        if let found = try resolveByName(description, allowed: allowed) { return found }
        guard requiresSecureCoding, let allowed, description.chain.count > 1,
            mappedType(forClassName: description.name) == nil,
            CataloguedClass.untypedKind(description.name) == nil
        else { return nil }
        for ancestor in description.chain.dropFirst().prefix(ClassCatalogue.maximumChainLength)
        where CataloguedClass(name: ancestor) != nil {
            if let mapped = mappedType(forClassName: ancestor) {
                let identifier = ObjectIdentifier(mapped)
                if allowed.contains(where: { ObjectIdentifier($0) == identifier }) { return mapped }
            }
            if let listed = allowed.first(where: { accepts($0, className: ancestor) }) { return listed }
        }
        return nil
    }

    private func resolveByName(
        _ description: ClassDescription, allowed: [any KeyedCoding.Type]?
    ) throws -> (any KeyedCoding.Type)? {
        for name in candidateNames(description) {
            if let mapped = mappedType(forClassName: name) {
                guard let allowed else { return mapped }
                let identifier = ObjectIdentifier(mapped)
                if allowed.contains(where: { ObjectIdentifier($0) == identifier }) { return mapped }
                if mapped is any ArchiveStandardType.Type { return mapped }
                if !requiresSecureCoding, allowed.contains(where: { isSubclass(mapped, of: $0) }) {
                    return mapped
                }
                throw requiresSecureCoding
                    ? notAllowed(name, mappedTo: mapped, allowed: allowed)
                    : failure(
                        .typeMismatch,
                        "expected \(Self.names(allowed)), found \(DisplayText.quotedIfNeeded(name)) (decoded as \(mapped))"
                    )
            }
            if let allowed, let listed = allowed.first(where: { accepts($0, className: name) }) {
                return listed
            }
            if CataloguedClass.untypedKind(name) != nil { return nil }
        }
        return nil
    }

    func accepts(_ type: any KeyedCoding.Type, className name: String) -> Bool {
        // The type's own name first: a standard type accepts it too (its
        // `acceptedClassNames` start with it), and the `as?` below is a conformance lookup
        // that scans every conformance record of the process the first time for each type
        // (~0.36 M instructions).
        if type.archivedClassName == name { return true }
        if let standard = type as? any ArchiveStandardType.Type { return standard.accepts(className: name) }
        return ArchiveClassRegistry.shared.className(for: type) == name
    }

    func isSubclass(_ candidate: any KeyedCoding.Type, of base: any KeyedCoding.Type) -> Bool {
        func check<Base: KeyedCoding>(_ base: Base.Type) -> Bool { candidate is Base.Type }
        return candidate is AnyObject.Type && check(base)
    }

    func checkSecureCoding(_ type: any KeyedCoding.Type, className: String) throws {
        guard requiresSecureCoding, !KeyedArchiver.supportsSecureCoding(type) else { return }
        throw failure(
            .classNotAllowed,
            "class \(DisplayText.quoted(className)) maps to \(type), which does not support secure coding "
                + "(adopt SecureKeyedCoding), and requiresSecureCoding is true")
    }

    /// The error for a class that none of `allowed` decodes from.
    func unmatched(_ description: ClassDescription, allowed: [any KeyedCoding.Type]) -> KeyedArchiveError {
        let isStandard = candidateNames(description).contains { CataloguedClass.untypedKind($0) != nil }
        if requiresSecureCoding, !isStandard {
            return notAllowed(description.name, mappedTo: nil, allowed: allowed)
        }
        return failure(
            .typeMismatch,
            "expected \(Self.names(allowed)), found \(DisplayText.quotedIfNeeded(description.name))")
    }

    func notAllowed(
        _ name: String, mappedTo mapped: (any KeyedCoding.Type)?, allowed: [any KeyedCoding.Type]
    ) -> KeyedArchiveError {
        let mappedText = mapped.map { " (mapped to \($0))" } ?? ""
        return failure(
            .classNotAllowed,
            "class \(DisplayText.quoted(name))\(mappedText) is not allowed; allowed: \(Self.names(allowed)) and the standard types"
        )
    }

    static func names(_ types: [any KeyedCoding.Type]) -> String {
        types.isEmpty ? "no classes" : types.map { $0.archivedClassName }.joined(separator: ", ")
    }
}

/// Value types the unarchiver caches from their second decode on even though they are
/// small: URLs and data, which most archives reference once each (a link, an attributed
/// string's run lengths), and the types an upper module registers with
/// `KeyedUnarchiver.cacheFromSecondDecode(_:)` (an attributed string's attribute
/// dictionaries and their table, in `ArchivedAppleClasses`: archives do not share them).
///
/// Types are compared by identity: a conformance check (`is P.Type`) costs a scan of the
/// process's conformance records the first time for each type, which the smallest reads
/// felt (callgrind: +25% on `decode-one`).
enum UnsharedValueTypes {
    private static let identifiers = (ObjectIdentifier(URL.self), ObjectIdentifier(Data.self))

    /// Whether `identifier` is one of the built-in types; the unarchiver checks the
    /// registered ones itself (an empty list first: iterating it retained and released the
    /// array for every value cached).
    @inline(__always)
    static func contains(_ identifier: ObjectIdentifier) -> Bool {
        identifier == identifiers.0 || identifier == identifiers.1
    }
}
