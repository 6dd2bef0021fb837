#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes ``KeyedCoding`` values as a keyed archive, the format of Apple's
/// `NSKeyedArchiver`, in binary or XML property-list form.
///
/// ```swift
/// let data = try KeyedArchiver.archivedData(withRootObject: creature, requiringSecureCoding: true)
///
/// // Or, to write several top-level keys:
/// let archiver = KeyedArchiver(requiringSecureCoding: true)
/// archiver.encode(creature, forKey: KeyedArchiver.rootObjectKey)
/// archiver.encode(3, forKey: "version")
/// let bytes = try archiver.finishedData()
/// ```
///
/// The archive has Apple's shape: `$archiver` = `NSKeyedArchiver`, `$version` = 100000,
/// `$top`, and `$objects` starting with `$null`. Strings, numbers and data are stored as
/// plain values, every other object as a dictionary whose `$class` refers to one shared
/// `{ $classname, $classes }` description per class.
///
/// - A class instance is stored once however often it is encoded, and decodes as one
///   shared instance; cycles between class instances are fine.
/// - Structs have no identity; equal struct values (and equal strings, numbers and
///   data) are stored once.
/// - Scalars encoded with the typed methods (`encode(_: Int, forKey:)`, …) are stored
///   inline in the object's dictionary.
/// - Keys that begin with `$` are written with one more `$`.
///
/// Encoding methods do not throw, because ``KeyedCoding/encode(with:)`` cannot; the
/// first problem is kept in ``error`` and thrown by ``finishedData()`` and
/// ``archivedData(withRootObject:requiringSecureCoding:format:)``.
///
/// An archiver is not thread-safe; use one per archive.
public final class KeyedArchiver {
    /// The `$top` key under which ``archivedData(withRootObject:requiringSecureCoding:format:)``
    /// stores the root object: `"root"`.
    public static let rootObjectKey: String = "root"

    /// Whether every encoded object must adopt ``SecureKeyedCoding`` with
    /// ``SecureKeyedCoding/supportsSecureCoding`` `true`; others are recorded as an
    /// error and stored as nil.
    ///
    /// Settable, as Foundation's is: objects encoded after a change are checked by the new
    /// setting.
    public var requiresSecureCoding: Bool {
        get { secureCodingRequired }
        set { secureCodingRequired = newValue }
    }
    /// The storage of ``requiresSecureCoding``, read for every object encoded.
    @exclusivity(unchecked) var secureCodingRequired: Bool

    /// The property-list format of ``encodedData``: `.binary` (the default) or `.xml`.
    ///
    /// Set it before ``finishEncoding()``; `.openStep` cannot be written and makes
    /// finishing fail with `unsupportedFormat`.
    public var outputFormat: PropertyListFormat = .binary

    /// The deepest nesting of objects encoded inside one another (an
    /// ``KeyedCoding/encode(with:)`` encoding an object whose `encode(with:)` encodes
    /// another, …). Default 512, the unarchiver's default limit, so that whatever is
    /// archived can be read back.
    ///
    /// A deeper object is recorded as a `limitExceeded` ``error`` and stored as nil, as is
    /// one reached when less than 64 KB of the thread's stack is left: a chain of a
    /// hundred thousand objects fails instead of overflowing the stack.
    public var maximumDepth: Int {
        get { depthLimit }
        set { depthLimit = newValue }
    }
    /// The storage of ``maximumDepth``, read for every object without exclusivity checks.
    @exclusivity(unchecked) var depthLimit = 512

    /// The first problem met while encoding, or `nil`.
    ///
    /// Problems include an object that does not support secure coding while
    /// ``requiresSecureCoding`` is `true`, encoding after ``finishEncoding()``, and
    /// errors reported by ``failWithError(_:)``.
    public private(set) var error: KeyedArchiveError?

    // The engine's state. An archiver is used from one thread at a time and never calls
    // out to other code while it modifies these, so the run-time exclusivity checks
    // (a measurable share of the time per field) are left out.

    /// `$objects`, written into a binary property-list builder as objects are encoded.
    @exclusivity(unchecked) package var table = ArchiveObjectTable()
    /// The fields of the objects being encoded, innermost last, as builder objects: key
    /// strings and values (a conditional reference is `-1 - token`).
    @exclusivity(unchecked) var fieldKeys = ObjectNumberStack()
    @exclusivity(unchecked) var fieldValues = ObjectNumberStack()
    /// The objects being encoded, innermost last; element 0 is `$top`.
    @exclusivity(unchecked) var frames: [ArchiveFrame] = [ArchiveFrame(start: 0)]
    /// UID objects of the collection elements being encoded, innermost collection last.
    @exclusivity(unchecked) var elementStack = ObjectNumberStack()
    /// The path to the object being encoded, for error messages.
    @exclusivity(unchecked) var path: [ArchiveKeyPathComponent] = []
    /// Class instances already stored, and strong references keeping their identifiers unique.
    @exclusivity(unchecked) var identities = ArchiveIdentityTable()
    @exclusivity(unchecked) var retainedObjects: [AnyObject] = []
    /// Objects encoded only conditionally so far, by token.
    var conditionalObjects: [AnyObject] = []
    var conditionalTokens: [ObjectIdentifier: Int] = [:]
    /// See ``traits(of:)``.
    @exclusivity(unchecked) var typeCache = ArchiveTypeCache()
    /// Names set with the instance ``setClassName(_:for:)-swift.method``.
    var classNames: [ObjectIdentifier: String] = [:]
    var isFinished = false
    /// The finished archive in binary form, made once.
    var archiveBytes: Data?
    var hasOutput = false
    var output = Data()

    /// Creates an archiver.
    ///
    /// - Parameter requiringSecureCoding: Whether every encoded object must support
    ///   secure coding. Default `true`, as `NSKeyedArchiver(requiringSecureCoding:)`.
    public init(requiringSecureCoding: Bool = true) {
        self.secureCodingRequired = requiringSecureCoding
    }

    // MARK: - Objects

    /// Encodes an object (or nil) under `key`.
    ///
    /// Strings, numbers and data are stored as plain values; other types through their
    /// ``KeyedCoding/encode(with:)``. A class instance encoded before is referred to, not
    /// stored again.
    ///
    /// - Parameters:
    ///   - object: The object, or `nil` (stored as a reference to `$null`).
    ///   - key: The key in the current object (or in `$top`).
    public func encode(_ object: (any KeyedCoding)?, forKey key: String) {
        guard canEncode() else { return }
        let uid = object.map { reference(for: $0, at: .key(key)) } ?? 0
        append(key: key, value: table.builder.addUID(UInt64(uid)))
    }

    /// Encodes a value as an object in `$objects` under `key`, whatever its type: what
    /// Foundation's `encode(NSNumber(value: rating), forKey:)` writes.
    ///
    /// ```swift
    /// coder.encode(rating, forKey: "Rating")        // an inline real, as encodeDouble
    /// coder.encodeObject(rating, forKey: "Rating")  // a reference to an NSNumber object
    /// ```
    ///
    /// The same as `encode(_:forKey:)` with an object, but a `Bool`, `Int`, `Int32`,
    /// `Int64`, `Float` or `Double` passed here is stored as a number object, where
    /// `encode(_:forKey:)` stores it inline as Foundation's `encode(_:forKey:)` does.
    /// Unarchivers written with Foundation's `decodeObject(of: NSNumber.self, forKey:)`
    /// read only the object form, `decodeDouble(forKey:)` only the inline one; this
    /// package's decoding methods read both.
    ///
    /// - Parameters:
    ///   - object: The value, or `nil` (stored as a reference to `$null`).
    ///   - key: The key in the current object (or in `$top`).
    public func encodeObject(_ object: (any KeyedCoding)?, forKey key: String) {
        encode(object, forKey: key)
    }

    /// Encodes an object (or nil) under the next unkeyed key, `$0`, `$1`, … in the
    /// current object; ``KeyedUnarchiver/decodeObject(of:)`` reads them back in order.
    ///
    /// - Parameter object: The object, or `nil`.
    public func encode(_ object: (any KeyedCoding)?) {
        guard canEncode() else { return }
        let key = nextUnkeyedKey()
        let uid = object.map { reference(for: $0, at: .key(key)) } ?? 0
        appendField(table.keyObject(key), table.builder.addUID(UInt64(uid)))
    }

    /// Encodes a reference to `object` that is kept only if the object is also encoded
    /// unconditionally somewhere in the archive (before or after); otherwise the key
    /// holds nil.
    ///
    /// - Parameters:
    ///   - object: The class instance, or `nil`.
    ///   - key: The key in the current object.
    public func encodeConditionalObject(_ object: (any KeyedCoding & AnyObject)?, forKey key: String) {
        guard canEncode() else { return }
        guard let object else {
            append(key: key, value: table.builder.addUID(0))
            return
        }
        let identifier = ObjectIdentifier(object)
        if let uid = identities.uid(of: identifier) {
            append(key: key, value: table.builder.addUID(UInt64(uid)))
            return
        }
        let token: Int
        if let existing = conditionalTokens[identifier] {
            token = existing
        } else {
            token = conditionalObjects.count
            conditionalObjects.append(object)
            conditionalTokens[identifier] = token
        }
        append(key: key, value: -1 - token)
    }

    // MARK: - Inline scalars

    /// Encodes a Boolean inline under `key`.
    ///
    /// As Foundation's `encode(_:forKey:)` of the same type does; ``encodeObject(_:forKey:)``
    /// stores the value as a number object instead.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key in the current object.
    public func encode(_ value: Bool, forKey key: String) {
        guard canEncode() else { return }
        append(key: key, value: table.builder.addBool(value))
    }

    /// Encodes an integer inline under `key`.
    ///
    /// As Foundation's `encode(_:forKey:)` of the same type does; ``encodeObject(_:forKey:)``
    /// stores the value as a number object instead.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key in the current object.
    public func encode(_ value: Int, forKey key: String) {
        guard canEncode() else { return }
        append(key: key, value: table.builder.addInteger(PropertyListInteger(Int64(value))))
    }

    /// Encodes a 32-bit integer inline under `key`.
    ///
    /// As Foundation's `encode(_:forKey:)` of the same type does; ``encodeObject(_:forKey:)``
    /// stores the value as a number object instead.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key in the current object.
    public func encode(_ value: Int32, forKey key: String) {
        guard canEncode() else { return }
        append(key: key, value: table.builder.addInteger(PropertyListInteger(Int64(value))))
    }

    /// Encodes a 64-bit integer inline under `key`.
    ///
    /// As Foundation's `encode(_:forKey:)` of the same type does; ``encodeObject(_:forKey:)``
    /// stores the value as a number object instead.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key in the current object.
    public func encode(_ value: Int64, forKey key: String) {
        guard canEncode() else { return }
        append(key: key, value: table.builder.addInteger(PropertyListInteger(value)))
    }

    /// Encodes a single-precision number inline under `key`.
    ///
    /// As Foundation's `encode(_:forKey:)` of the same type does; ``encodeObject(_:forKey:)``
    /// stores the value as a number object instead.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key in the current object.
    public func encode(_ value: Float, forKey key: String) {
        guard canEncode() else { return }
        append(key: key, value: table.builder.addFloat(value.bitPattern))
    }

    /// Encodes a double-precision number inline under `key`.
    ///
    /// As Foundation's `encode(_:forKey:)` of the same type does; ``encodeObject(_:forKey:)``
    /// stores the value as a number object instead.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key in the current object.
    public func encode(_ value: Double, forKey key: String) {
        guard canEncode() else { return }
        append(key: key, value: table.builder.addReal(value))
    }

    /// Encodes bytes inline under `key` (a data value in the object's dictionary, not a
    /// separate object).
    ///
    /// - Parameters:
    ///   - bytes: The bytes.
    ///   - key: The key in the current object.
    public func encodeBytes(_ bytes: some Sequence<UInt8>, forKey key: String) {
        guard canEncode() else { return }
        append(key: key, value: table.builder.addData(Array(bytes)))
    }

    // MARK: - Finishing

    /// Records `error` as the archiver's error unless one is already recorded, so that
    /// ``KeyedCoding/encode(with:)`` can report a problem.
    ///
    /// - Parameter error: The problem.
    public func failWithError(_ error: KeyedArchiveError) {
        if self.error == nil { self.error = error }
    }

    /// Resolves conditional references and encodes the archive in ``outputFormat``.
    ///
    /// Later calls do nothing; encoding after finishing is recorded as an error.
    public func finishEncoding() {
        guard !hasOutput else { return }
        guard finishTable() else { return }
        hasOutput = true
        do {
            switch outputFormat {
            case .binary: output = try finishedArchiveBytes()
            case .xml: output = try XMLPropertyListTranscoder.transcode(try finishedArchiveBytes())
            case .openStep:
                throw KeyedArchiveError(
                    .unsupportedFormat, "keyed archives cannot be written as OpenStep text")
            }
        } catch let failure as KeyedArchiveError {
            failWithError(failure)
        } catch {
            record(.invalidValue, "\(error)")
        }
    }

    /// The encoded archive; reading it calls ``finishEncoding()`` first.
    ///
    /// If encoding met a problem, this is the archive as far as it could be written;
    /// check ``error``, or use ``finishedData()``, which throws instead.
    public var encodedData: Data {
        finishEncoding()
        return output
    }

    /// Finishes encoding and returns the archive, or throws the first problem met.
    ///
    /// - Returns: The encoded archive.
    /// - Throws: ``KeyedArchiveError`` recorded while encoding: `classNotAllowed` for an
    ///   object that does not support secure coding, `invalidValue` for misuse, or
    ///   `unsupportedFormat` when ``outputFormat`` is `.openStep`.
    public func finishedData() throws -> Data {
        finishEncoding()
        if let error { throw error }
        return output
    }

    /// The archive as a property-list value (the dictionary with `$archiver`,
    /// `$version`, `$top` and `$objects`), for inspection or custom serialization.
    ///
    /// Reading it ends encoding as ``finishEncoding()`` does, without serializing.
    public var encodedPropertyList: PropertyList {
        guard finishTable() else { return [:] }
        do {
            return try finishedPropertyList()
        } catch let failure as KeyedArchiveError {
            failWithError(failure)
        } catch {
            record(.invalidValue, "\(error)")
        }
        return [:]
    }

    /// Archives `object` under ``rootObjectKey`` and returns the archive.
    ///
    /// ```swift
    /// let data = try KeyedArchiver.archivedData(withRootObject: ["a", "b"], requiringSecureCoding: true)
    /// ```
    ///
    /// - Parameters:
    ///   - object: The root object.
    ///   - requiringSecureCoding: Whether every object must support secure coding.
    ///   - format: `.binary` (the default) or `.xml`.
    /// - Returns: The archive.
    /// - Throws: ``KeyedArchiveError`` with code `classNotAllowed` when secure coding is
    ///   required and an object does not support it, `unsupportedFormat` for
    ///   `.openStep`, or whatever an ``KeyedCoding/encode(with:)`` reported.
    public static func archivedData(
        withRootObject object: any KeyedCoding, requiringSecureCoding: Bool,
        format: PropertyListFormat = .binary
    ) throws -> Data {
        let archiver = KeyedArchiver(requiringSecureCoding: requiringSecureCoding)
        archiver.outputFormat = format
        archiver.encode(object, forKey: rootObjectKey)
        return try archiver.finishedData()
    }
}

/// One object being encoded: where its fields start in the archiver's field stack.
struct ArchiveFrame {
    var start: Int
    var unkeyedCount = 0
}

// MARK: - Engine

extension KeyedArchiver {
    /// Ends encoding and resolves conditional references, once.
    ///
    /// - Returns: `false` if encoding cannot end yet (an object is being encoded).
    @discardableResult
    func finishTable() -> Bool {
        if isFinished { return true }
        guard frames.count == 1 else {
            record(.invalidValue, "encoding was finished while an object was being encoded")
            return false
        }
        isFinished = true
        guard !conditionalObjects.isEmpty else { return true }
        let resolve: (Int) -> Int = { [identities, conditionalObjects] token in
            guard conditionalObjects.indices.contains(token) else { return 0 }
            return identities.uid(of: ObjectIdentifier(conditionalObjects[token])) ?? 0
        }
        do {
            try table.resolveConditionals(resolve)
        } catch let failure as KeyedArchiveError {
            failWithError(failure)
        } catch {
            record(.invalidValue, "\(error)")
        }
        for index in fieldValues.indices where fieldValues[index] < 0 {
            fieldValues[index] = table.builder.addUID(UInt64(resolve(-1 - fieldValues[index])))
        }
        return true
    }

    package func canEncode() -> Bool {
        guard !isFinished else {
            record(.invalidValue, "an encode method was called after finishEncoding()")
            return false
        }
        return true
    }

    /// Appends a field to the object being encoded, given a key as the caller wrote it.
    @inline(__always)
    package func append(key: String, value: Int) {
        appendField(table.keyObject(archiveEscapedKey(key)), value)
    }

    /// Appends a field to the object being encoded, given key and value objects.
    @inline(__always)
    package func appendField(_ key: Int, _ value: Int) {
        fieldKeys.append(key)
        fieldValues.append(value)
    }

    /// Appends a field given as an ``ArchiveFieldValue``; the key is already escaped.
    func append(_ key: String, _ value: ArchiveFieldValue) {
        appendField(table.keyObject(key), table.valueObject(value))
    }

    func nextUnkeyedKey() -> String {
        let index = frames[frames.count - 1].unkeyedCount
        frames[frames.count - 1].unkeyedCount = index + 1
        return "$\(index)"
    }

    func record(_ code: KeyedArchiveError.Code, _ message: String) {
        failWithError(KeyedArchiveError(code, message, at: .keyPath(ArchiveKeyPath.render(path))))
    }

    /// Stores `object` (or finds it already stored) and returns its index in `$objects`.
    ///
    /// Generic so that an existential argument is opened once: the casts below are then
    /// from a known type, which the runtime answers quickly, where casts from
    /// `any KeyedCoding` go through its slow general path.
    package func reference<Object: KeyedCoding>(for object: Object, at component: ArchiveKeyPathComponent)
        -> Int
    {
        // The dynamic type: an element of `[Shape]` may be a `Circle`.
        let type = type(of: object)
        let traits = self.traits(of: type)
        if traits.isPlain {
            // Strings are the most common plain value. Even from a known type, `as?`
            // goes through the general cast machinery; the type check makes the
            // reinterpretation exact.
            if Object.self == String.self {
                return table.uniqueString(unsafeBitCast(object, to: String.self))
            }
            if let plain = object as? any ArchivePrimitive, let record = plain.archivePlainRecord {
                return table.uniqueIndex(of: record)
            }
        }
        var instance: AnyObject?
        if traits.isClass {
            // The dynamic type is a class, so `Object` (a superclass of it) is one too,
            // so its value is one object reference. `as AnyObject` would ask the
            // bridging runtime, which first tries to unwrap an Optional.
            let converted = unsafeBitCast(object, to: AnyObject.self)
            if let uid = identities.uid(of: ObjectIdentifier(converted)) { return uid }
            instance = converted
        }
        path.append(component)
        defer { path.removeLast() }
        if secureCodingRequired, !traits.supportsSecureCoding {
            record(
                .classNotAllowed,
                "\(archivedName(of: type)) does not support secure coding (adopt SecureKeyedCoding) "
                    + "and the archiver requires it")
            return 0
        }
        // frames[0] is $top: an object encoded there is at depth 1.
        let depth = frames.count
        if depth > depthLimit {
            record(.limitExceeded, "objects are nested deeper than the limit of \(depthLimit)")
            return 0
        }
        if depth >= StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
            record(.limitExceeded, StackHeadroom.message(depth: depth))
            return 0
        }
        let uid = table.reserve()
        if let instance {
            identities.insert(uid, for: ObjectIdentifier(instance))
            retainedObjects.append(instance)
        }
        let start = fieldKeys.count
        frames.append(ArchiveFrame(start: start))
        object.encode(with: self)
        frames.removeLast()
        let classUID = classUID(for: type, instance: object)
        let stored = table.setObject(
            uid, classUID: classUID, keys: fieldKeys.suffix(from: start),
            values: fieldValues.suffix(from: start),
            shareable: instance == nil)
        fieldKeys.removeSuffix(from: start)
        fieldValues.removeSuffix(from: start)
        return stored
    }

    /// What `reference(for:at:)` asks of every object's type, cached: each of these casts
    /// of a metatype to a protocol existential costs a run-time conformance lookup.
    func traits(of type: any KeyedCoding.Type) -> ArchivedTypeTraits {
        typeCache[traitsPosition(of: type)]
    }

    /// Where ``typeCache`` keeps the traits of `type`, computing them the first time.
    func traitsPosition(of type: any KeyedCoding.Type) -> Int {
        let identifier = ObjectIdentifier(type)
        if let position = typeCache.position(of: identifier) { return position }
        let traits = ArchivedTypeTraits(
            isPlain: (type as? any ArchivePrimitive.Type)?.isArchivedPlain ?? false,
            isClass: type is AnyObject.Type,
            supportsSecureCoding: Self.supportsSecureCoding(type))
        return typeCache.insert(traits, for: identifier)
    }

    static func supportsSecureCoding(_ type: any KeyedCoding.Type) -> Bool {
        guard let secure = type as? any SecureKeyedCoding.Type else { return false }
        return secure.supportsSecureCoding
    }

    // MARK: Internal API for the standard types

    /// Encodes a string inline (as `NSMutableString` stores `NS.string`).
    package func encodeInlineString(_ value: String, forKey key: String) {
        guard canEncode() else { return }
        append(key: key, value: table.builder.addString(value))
    }

    /// Encodes a plain value (string, number, data) inline, as the number types'
    /// ``KeyedCoding/encode(with:)`` store `NS.number`.
    func encodeInlinePlain(_ record: ArchivedObjectRecord, forKey key: String) {
        guard canEncode() else { return }
        let value: ArchiveFieldValue
        switch record {
        case .string(let text): value = .string(text)
        case .integer(let integer): value = .integer(integer)
        case .real(let bits): value = .real(bits)
        case .float(let bits): value = .float(bits)
        case .bool(let flag): value = .bool(flag)
        case .data(let bytes): value = .data(bytes)
        default: return
        }
        append(archiveEscapedKey(key), value)
    }

    /// Encodes the elements of an array as an inline array of references (`NS.objects`).
    ///
    /// Indexing, unlike iterating a generic sequence, needs no `Optional<Element>`
    /// metadata, which unspecialized code would look up for every array.
    package func encodeElements<Element: KeyedCoding>(_ elements: [Element], forKey key: String) {
        guard canEncode() else { return }
        let start = elementStack.count
        var index = 0
        let count = elements.count
        while index < count {
            let uid = reference(for: elements[index], at: .index(index))
            elementStack.append(table.builder.addUID(UInt64(uid)))
            index += 1
        }
        let array = table.builder.addShareableArray(elementStack.suffix(from: start))
        elementStack.removeSuffix(from: start)
        append(key: key, value: array)
    }

    /// Encodes the elements of a collection as an inline array of references
    /// (`NS.objects`, `NS.keys`).
    package func encodeReferences<S: Sequence>(_ elements: S, forKey key: String)
    where S.Element: KeyedCoding {
        guard canEncode() else { return }
        // The UID objects go on a stack shared by nested collections: an element's own
        // collections push and pop theirs above these.
        let start = elementStack.count
        // A counter, not `enumerated()`: in unspecialized code its tuples cost run-time
        // metadata lookups for every element.
        var index = 0
        for element in elements {
            let uid = reference(for: element, at: .index(index))
            elementStack.append(table.builder.addUID(UInt64(uid)))
            index += 1
        }
        let array = table.builder.addShareableArray(elementStack.suffix(from: start))
        elementStack.removeSuffix(from: start)
        append(key: key, value: array)
    }
}

/// How the archiver treats a type; see ``KeyedArchiver/traits(of:)``.
struct ArchivedTypeTraits {
    let isPlain: Bool
    let isClass: Bool
    let supportsSecureCoding: Bool
    /// The `$objects` index of the class description, once stored.
    var classUID: Int?
}
