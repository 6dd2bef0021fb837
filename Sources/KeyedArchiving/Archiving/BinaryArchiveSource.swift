#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `$objects` read in place from a binary property list: opening validates the header,
/// the trailer, the archive's root dictionary and the `$objects` array's marker, in time
/// independent of the number of objects; each entry is looked at only when a decode
/// reaches it, and an object's fields are read straight from its dictionary's bytes
/// (see ``ArchiveFields``) instead of being built into a ``PropertyList`` first.
///
/// Decoding one key of a large archive therefore touches only the objects that key
/// reaches, and decoding all of them builds nothing but the decoded values.
///
/// The bytes are read through `Data.withUnsafeBytes`, never copied: the unarchiver wraps
/// each top-level operation in ``withInput(_:)``, and everything read during it uses that
/// one scanner.
final class BinaryArchiveSource {
    let data: Data
    let trailer: BinaryPropertyListTrailer
    /// The `$objects` array (or set): entry `uid` is the object its reference `uid` names.
    let objects: BinaryPropertyListObject
    let readingOptions: PropertyListReadingOptions
    let top: PropertyListDictionary
    private(set) var headerNotes: [KeyedArchiveError] = []

    // Mutable state is touched for every object read, and the unarchiver (like this
    // source) is documented as not thread-safe. No access to these properties spans a
    // call that could reach them again, so the dynamic exclusivity checks Swift adds to
    // class properties would only cost time (they were the largest single item of the
    // profile).
    /// The scanner over `data` while an operation runs (see ``withInput(_:)``).
    @exclusivity(unchecked) private var activeScanner: BinaryPropertyListScanner?
    /// Recently looked-up keys, the object index of their string and where they were last
    /// found (see ``position(ofKey:in:scanner:)``).
    ///
    /// A buffer this source owns rather than an array: it is read several times per key
    /// looked up, and an array's accesses (bounds, uniqueness) were a visible cost.
    private let keyCache: UnsafeMutablePointer<CachedKeyIndex>
    /// The key-reference bytes of dictionaries whose keys are distinct texts, in a
    /// direct-mapped table by a hash of the bytes (see ``hasDistinctKeyTexts(_:scanner:)``).
    /// Made at the first such question: building an object graph never asks it, and making
    /// and freeing the table cost a tenth of opening and reading a small archive as a graph.
    @exclusivity(unchecked) private var distinctLayouts: [KeyLayout] = []
    /// The key texts of the dictionaries last searched by text. Allocated in the initializer
    /// once nothing before the last stored property can throw (as ``keyCache`` is): a
    /// property initializer would run first, and an initializer that throws before every
    /// property is set never reaches `deinit`, which frees it.
    @exclusivity(unchecked) private var keyTexts: DictionaryKeyTexts
    /// The dictionary whose keys were checked last (by byte offset), and the answer.
    @exclusivity(unchecked) private var lastCheckedDictionary: (offset: Int, distinct: Bool) = (-1, false)
    /// Entries materialized by ``object(at:)`` for the generic paths (object graphs,
    /// Codable), which may ask for the same entry repeatedly.
    @exclusivity(unchecked) private var materialized: [Int: PropertyList] = [:]
    /// The values one operation over the archive may build (see ``beginOperation()``).
    private let operationAllowance: Int
    /// The values the current operation may still build: one budget for everything it
    /// materializes, however many entries that is.
    @exclusivity(unchecked) private var operationBudget: Int
    /// The values `materialized` may still hold over the source's life, so that the
    /// entries kept for reuse stay within one budget however many operations run.
    @exclusivity(unchecked) private var cacheBudget: Int

    var objectCount: Int { objects.count }

    /// Opens a binary keyed archive.
    ///
    /// - Throws: ``KeyedArchiveError``: the binary reader's errors (`corruptData` with a
    ///   byte offset, …), `invalidArchive` when the root is not a keyed archive, or
    ///   `limitExceeded` when `$objects` is larger than allowed.
    /// - Complexity: O(1) in the number of objects (plus the size of `$top`).
    init(data: Data, options: KeyedUnarchivingOptions) throws {
        let readingOptions = options.propertyListOptions
        let budget = readingOptions.valueLimit(forInputLength: data.count)
        let depth = readingOptions.maximumDepth
        var notes: [KeyedArchiveError] = []
        let (trailer, objects, top) = try data.withUnsafeBytes {
            bytes -> (BinaryPropertyListTrailer, BinaryPropertyListObject, PropertyListDictionary) in
            let trailer = try BinaryPropertyListTrailer(validating: bytes)
            let scanner = try BinaryPropertyListScanner(bytes: bytes, trailer: trailer)
            let root = try scanner.object(trailer.topObject)
            guard root.kind == .dictionary else {
                let found = try scanner.materialize(root.index, maximumDepth: depth, budget: budget)
                throw KeyedArchiveError(
                    .invalidArchive, "the property list is \(found.typeName), not a keyed archive dictionary")
            }
            func value(_ key: String) throws -> PropertyList? {
                try scanner.valueReference(forKey: key, in: root).map {
                    try scanner.materialize($0, maximumDepth: depth, budget: budget)
                }
            }
            notes = try ArchiveHeader.validate(
                archiver: value("$archiver"), version: value("$version"),
                recovering: options.recoversFromDamage)
            let top = try ArchiveHeader.top(
                value("$top"), recovering: options.recoversFromDamage, notes: &notes)
            guard let objectsIndex = try scanner.valueReference(forKey: "$objects", in: root) else {
                throw KeyedArchiveError(
                    .invalidArchive, "the archive has no $objects", at: .keyPath("$objects"))
            }
            let objects = try scanner.object(objectsIndex)
            guard objects.kind == .array || objects.kind == .set else {
                throw KeyedArchiveError(
                    .invalidArchive, "$objects is \(objects.kind.withArticle), not an array",
                    at: .keyPath("$objects"))
            }
            return (trailer, objects, top)
        }
        try ArchiveHeader.validate(objectCount: objects.count, options: options)
        self.data = data
        self.trailer = trailer
        self.objects = objects
        self.readingOptions = readingOptions
        self.top = top
        self.operationAllowance = budget
        self.operationBudget = budget
        self.cacheBudget = budget
        // Nothing throws from here until every stored property is set, so `deinit` frees
        // these two buffers whatever happens next.
        self.keyCache = UnsafeMutablePointer<CachedKeyIndex>.allocate(capacity: Self.keyCacheSize)
        keyCache.initialize(repeating: CachedKeyIndex(), count: Self.keyCacheSize)
        self.keyTexts = DictionaryKeyTexts()
        headerNotes = notes
        headerNotes += try ArchiveHeader.validate(
            null: uncachedObject(at: 0), recovering: options.recoversFromDamage)
    }

    /// Opens a keyed archive given as a property-list value (parsed from OpenStep text, or
    /// built by the caller) by serializing it as a binary property list first, so that
    /// every archive is read by one set of paths.
    ///
    /// - Throws: ``KeyedArchiveError``: `invalidValue` when the value cannot be written
    ///   (a date that is not finite), then as ``init(data:options:)``.
    /// - Complexity: O(n) in the size of the value.
    convenience init(propertyList root: PropertyList, options: KeyedUnarchivingOptions) throws {
        // Containers the value shares stay shared: a value read from a small binary "bomb"
        // is not written out as the million objects it stands for.
        try self.init(
            data: BinaryPropertyListWriter.write(
                root, options: PropertyListWritingOptions(sortsKeys: false), sharesContainers: true),
            options: options)
    }

    deinit {
        keyCache.deinitialize(count: Self.keyCacheSize)
        keyCache.deallocate()
        keyTexts.deallocate()
    }

    // MARK: Input

    /// Runs `body` with the input's bytes available to ``withScanner(_:)`` without
    /// further cost; nested calls reuse the outer scope.
    @inline(__always)
    func withInput<R>(_ body: () throws -> R) throws -> R {
        if activeScanner != nil { return try body() }
        return try data.withUnsafeBytes { bytes in
            activeScanner = try BinaryPropertyListScanner(bytes: bytes, trailer: trailer)
            defer { activeScanner = nil }
            return try body()
        }
    }

    /// Runs `body` with a scanner over the input: the one of the enclosing
    /// ``withInput(_:)``, or a new one.
    @inline(__always)
    func withScanner<R>(_ body: (BinaryPropertyListScanner) throws -> R) throws -> R {
        if let activeScanner { return try body(activeScanner) }
        return try data.withUnsafeBytes { bytes in
            try body(BinaryPropertyListScanner(bytes: bytes, trailer: trailer))
        }
    }

    // MARK: Entries

    /// The binary object of `$objects[uid]`, marker checked.
    ///
    /// - Throws: `invalidArchive` for an index out of range, or the scanner's errors.
    @inline(__always)
    func entryObject(_ uid: Int, scanner: BinaryPropertyListScanner) throws -> BinaryPropertyListObject {
        guard uid >= 0, uid < objects.count else {
            throw KeyedArchiveError(
                .invalidArchive, "object reference \(uid) is out of range (\(objects.count) objects)")
        }
        return try scanner.object(scanner.reference(objects, at: uid))
    }

    /// `$objects[uid]` as an entry: an object's fields read in place, or a plain value.
    func entry(at uid: Int) throws -> ArchiveEntry {
        try withScanner { scanner in
            let object = try entryObject(uid, scanner: scanner)
            switch object.kind {
            case .dictionary: return .object(.binary(object))
            case .array, .set: return .plain(try self.object(at: uid))
            default: return .plain(try scanner.scalar(object))
            }
        }
    }

    /// `$objects[index]` built as ``object(at:)`` builds it, but not kept: for entries
    /// their reader keeps in its own form (`$objects[0]`, checked once; class descriptions,
    /// kept parsed by the unarchiver). The first insertion into `materialized` makes the
    /// runtime look up `Int: Hashable` for its storage, a scan of every conformance record
    /// of the process (~0.36 M instructions, once per process), which a typed decode then
    /// never pays.
    func uncachedObject(at index: Int) throws -> PropertyList {
        try withScanner { scanner in
            try materialize(entryObject(index, scanner: scanner), scanner: scanner)
        }
    }

    func object(at index: Int) throws -> PropertyList {
        if let known = materialized[index] { return known }
        let before = operationBudget
        let value = try withScanner { scanner in
            try materialize(entryObject(index, scanner: scanner), scanner: scanner)
        }
        let spent = before - operationBudget
        if spent <= cacheBudget {
            cacheBudget -= spent
            materialized[index] = value
        }
        return value
    }

    /// Counts `values` against the current operation's budget, as materializing them
    /// would (for values read in place instead); `false`, with nothing counted, when fewer
    /// remain (materializing would then throw `limitExceeded`).
    func spend(_ values: Int) -> Bool {
        guard values >= 0, values <= operationBudget else { return false }
        operationBudget -= values
        return true
    }

    /// Starts an operation over the archive (a top-level decode, building the object
    /// graph): it gets the whole budget of values, which everything it materializes shares.
    func beginOperation() {
        operationBudget = operationAllowance
    }

    /// An object and everything it contains, with the reader's depth and cycle checks,
    /// spending from the current operation's budget.
    func materialize(_ object: BinaryPropertyListObject, scanner: BinaryPropertyListScanner) throws
        -> PropertyList
    {
        try scanner.materialize(
            object.index, maximumDepth: readingOptions.maximumDepth, remaining: &operationBudget,
            budget: operationAllowance)
    }

    // MARK: Fields

    /// The value object under `key` in the dictionary `fields`, or `nil` when absent; with
    /// repeated keys, the last wins.
    func valueObject(forKey key: String, in fields: BinaryPropertyListObject) throws
        -> BinaryPropertyListObject?
    {
        try withScanner { scanner in
            guard let position = try position(ofKey: key, in: fields, scanner: scanner) else { return nil }
            return try scanner.object(scanner.reference(fields, at: fields.count + position))
        }
    }

    /// The value under `key` in the dictionary `fields` as a property list (containers
    /// materialized with the reader's checks), or `nil` when absent.
    func value(forKey key: String, in fields: BinaryPropertyListObject) throws -> PropertyList? {
        try withScanner { scanner in
            guard let position = try position(ofKey: key, in: fields, scanner: scanner) else { return nil }
            let reference = try scanner.reference(fields, at: fields.count + position)
            // References and reals are most values of an object: read them without
            // decoding a general object record.
            let offset = try scanner.offset(of: reference)
            let marker = scanner.byte(offset)
            if marker & 0xF8 == 0x80 {
                let width = Int(marker & 0x07) + 1
                if width <= scanner.objectsEnd - offset - 1 {
                    return .uid(scanner.unsigned(offset + 1, width: width))
                }
            } else if marker == 0x23, 8 <= scanner.objectsEnd - offset - 1 {
                return .real(Double(bitPattern: scanner.unsigned(offset + 1, width: 8)))
            }
            let object = try scanner.object(reference)
            return object.kind.isContainer
                ? try materialize(object, scanner: scanner) : try scanner.scalar(object)
        }
    }

    /// The reference of the value of `fields`' entry `position`.
    func valueReference(at position: Int, in fields: BinaryPropertyListObject) throws -> Int {
        try withScanner { scanner in try scanner.reference(fields, at: fields.count + position) }
    }

    /// The entries of the dictionary `fields` as a property-list dictionary.
    func dictionary(_ fields: BinaryPropertyListObject) throws -> PropertyListDictionary {
        try withScanner { scanner in
            guard case .dictionary(let dictionary) = try materialize(fields, scanner: scanner) else {
                return PropertyListDictionary()
            }
            return dictionary
        }
    }

    /// The reference of the value under `key` in the dictionary `fields`, or `nil` when
    /// the key is absent; with repeated keys, the last wins.
    @inline(__always)
    func valueReference(forKey key: String, in fields: BinaryPropertyListObject) throws -> Int? {
        try withScanner { scanner in
            guard let position = try position(ofKey: key, in: fields, scanner: scanner) else { return nil }
            return try scanner.reference(fields, at: fields.count + position)
        }
    }

    /// The object index held by the value whose object is `reference`, when it is a UID
    /// object; `nil` for any other value. The index is not checked against the object count.
    @inline(__always)
    func uidValue(ofReference reference: Int) throws -> UInt64? {
        try withScanner { scanner in
            let offset = try scanner.offset(of: reference)
            let marker = scanner.byte(offset)
            guard marker & 0xF8 == 0x80 else { return nil }
            let width = Int(marker & 0x07) + 1
            guard width <= scanner.objectsEnd - offset - 1 else { return nil }
            return scanner.unsigned(offset + 1, width: width)
        }
    }

    /// The value whose object is `reference` as a property list (containers materialized
    /// with the reader's checks).
    func value(ofReference reference: Int) throws -> PropertyList {
        try withScanner { scanner in
            let offset = try scanner.offset(of: reference)
            if scanner.byte(offset) == 0x23, 8 <= scanner.objectsEnd - offset - 1 {
                return .real(Double(bitPattern: scanner.unsigned(offset + 1, width: 8)))
            }
            let object = try scanner.object(reference)
            return object.kind.isContainer
                ? try materialize(object, scanner: scanner) : try scanner.scalar(object)
        }
    }

    // MARK: Quick reads

    /// The value under `key` in `fields` when an operation has the input open (see
    /// ``withInput(_:)``) and the value is a UID, a real, an integer of at most 8 bytes or a
    /// Boolean, read in place without building a property-list value.
    ///
    /// `nil` for anything else: no open input, an absent key, another kind of value, or
    /// damaged bytes. The caller then takes the general path, which reads the key again and
    /// reports what is wrong; so this read never throws and never decides an error.
    ///
    /// With `escaping`, `key` is a caller's key, escaped (see `archiveEscapedKey`) only
    /// when the key strings are compared: a key found before is recognised as given.
    @inline(__always)
    func quickValue(
        forKey key: String, escaping: Bool = false, in fields: BinaryPropertyListObject
    ) -> QuickValue? {
        guard let scanner = activeScanner else { return nil }
        return quickValue(forKey: key, escaping: escaping, in: fields, scanner: scanner)
    }

    /// `$objects[uid]` when an operation has the input open and the entry is a dictionary
    /// (an object's fields) read without error; `nil` otherwise, for the general path.
    @inline(__always)
    func quickObject(_ uid: Int) -> BinaryPropertyListObject? {
        guard let scanner = activeScanner, let object = try? entryObject(uid, scanner: scanner),
            object.kind == .dictionary
        else { return nil }
        return object
    }

    private func quickValue(
        forKey key: String, escaping: Bool, in fields: BinaryPropertyListObject,
        scanner: BinaryPropertyListScanner
    ) -> QuickValue? {
        guard let position = try? position(ofKey: key, escaping: escaping, in: fields, scanner: scanner),
            let reference = try? scanner.reference(fields, at: fields.count + position),
            let offset = try? scanner.offset(of: reference)
        else { return nil }
        let marker = scanner.byte(offset)
        let available = scanner.objectsEnd - offset - 1
        switch marker {
        case 0x80...0x87:
            let width = Int(marker & 0x07) + 1
            guard width <= available else { return nil }
            let raw = scanner.unsigned(offset + 1, width: width)
            guard raw < UInt64(objects.count) else { return nil }
            return .reference(Int(raw))
        case 0x23:
            guard available >= 8 else { return nil }
            return .real(Double(bitPattern: scanner.unsigned(offset + 1, width: 8)))
        case 0x22:
            guard available >= 4 else { return nil }
            let bits = UInt32(truncatingIfNeeded: scanner.unsigned(offset + 1, width: 4))
            return .real(Double(Float(bitPattern: bits)))
        case 0x10...0x13:
            let width = 1 << Int(marker & 0x0F)
            guard width <= available else { return nil }
            let raw = scanner.unsigned(offset + 1, width: width)
            return .integer(width == 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x08: return .bool(false)
        case 0x09: return .bool(true)
        default: return nil
        }
    }

    /// The position of `key` among the keys of `fields`: the last whose text is `key`.
    ///
    /// Writers store each key string once, and the objects of one class list the same key
    /// strings in the same order. So the cache remembers, for each key asked, the object
    /// index of its string and the position it was last found at; in a dictionary whose
    /// keys are known to be distinct texts (see ``hasDistinctKeyTexts(_:scanner:)``), the
    /// one position holding that string is the answer, usually found with one reference
    /// read. Otherwise, or when the string is not among the keys, the key texts are
    /// compared. The key is recognised by its `String` representation (see
    /// ``KeyIdentity``) rather than by hashing its text. With `escaping`, the text compared
    /// is `archiveEscapedKey(key)`; the cache is keyed by the key as given either way, and
    /// a key that needs no escaping is the same string both ways.
    @inline(__always)
    private func position(
        ofKey key: String, escaping: Bool = false, in fields: BinaryPropertyListObject,
        scanner: BinaryPropertyListScanner
    ) throws -> Int? {
        let identity = KeyIdentity(key, escaping: escaping)
        var slot = -1
        if let identity {
            slot = identity.slot
            if keyCache[slot].identity != identity {
                slot ^= 1  // the other way of the set
            }
            if keyCache[slot].identity == identity {
                // Find the remembered string first: where it is absent (archives written by
                // Foundation on Linux give each dictionary key strings of its own), the
                // keys' distinctness need not be checked at all.
                let keyIndex = keyCache[slot].keyIndex
                let remembered = keyCache[slot].position
                var found: Int?
                if remembered < fields.count, try scanner.reference(fields, at: remembered) == keyIndex {
                    found = remembered
                } else if remembered == CachedKeyIndex.byText, let words = identity.shortASCIIWords,
                    let indexed = try keyTexts.position(of: words, in: fields, scanner: scanner)
                {
                    // Last time the key's string was another object than the one remembered
                    // (each object has key strings of its own): its text is compared at once,
                    // from the words of the key. A key found as the same string again
                    // (strings shared between objects) goes back to the string path.
                    if let indexed {
                        if indexed.keyIndex == keyIndex {
                            keyCache[slot].position = indexed.position
                        } else {
                            keyCache[slot].keyIndex = indexed.keyIndex
                        }
                    }
                    return indexed?.position
                } else if let indexed = indexedPosition(of: identity, in: fields) {
                    keyCache[slot].position = CachedKeyIndex.byText
                    return indexed
                } else {
                    var position = fields.count
                    while position > 0 {
                        position -= 1
                        if try scanner.reference(fields, at: position) == keyIndex {
                            found = position
                            break
                        }
                    }
                }
                if let found, try hasDistinctKeyTexts(fields, scanner: scanner) {
                    keyCache[slot].position = found
                    return found
                }
            } else {
                if let indexed = indexedPosition(of: identity, in: fields) { return indexed }
                slot = -1
            }
        }
        // Compare the text of every key (the key is new, its string is another object
        // here, it is absent, or this dictionary may hold a key text twice).
        var text = escaping ? archiveEscapedKey(key) : key
        let found = try text.withUTF8 { keyBytes in
            if let words = DictionaryKeyTexts.words(of: UnsafeRawBufferPointer(keyBytes)),
                let indexed = try keyTexts.position(of: words, in: fields, scanner: scanner)
            {
                return indexed
            }
            return try scanner.position(ofKeyText: keyBytes, in: fields)
        }
        guard let found else { return nil }
        if let identity {
            if slot < 0 {
                // A new key takes the first way of its set; the key there moves to the other.
                slot = identity.slot
                keyCache[slot ^ 1] = keyCache[slot]
                keyCache[slot] = CachedKeyIndex(
                    identity: identity, key: key, keyIndex: found.keyIndex, position: found.position)
            } else {
                // A key known already whose string was not the one remembered: the next
                // lookup compares texts first (see above).
                keyCache[slot].position =
                    found.keyIndex == keyCache[slot].keyIndex ? found.position : CachedKeyIndex.byText
                keyCache[slot].keyIndex = found.keyIndex
            }
        }
        return found.position
    }

    /// The position of the key `identity` in a dictionary whose key texts were read
    /// already (its object's first key was looked up by text), from their words:
    /// `.some(nil)` when it has no such key, `nil` when the dictionary is not indexed.
    @inline(__always)
    private func indexedPosition(of identity: KeyIdentity, in fields: BinaryPropertyListObject) -> Int?? {
        guard let words = identity.shortASCIIWords,
            let indexed = keyTexts.indexedPosition(of: words, in: fields)
        else { return nil }
        return .some(indexed?.position)
    }

    /// Whether the keys of `fields` are distinct texts (no key string object twice, and no
    /// two string objects with the same text), so that finding a key's string object
    /// among them finds the key.
    ///
    /// Dictionaries with the same key references (the objects of one class) are checked
    /// once: the reference bytes of the last few layouts found distinct are kept, and the
    /// dictionary looked at last is remembered, as an object's keys are looked up in turn.
    @inline(__always)
    private func hasDistinctKeyTexts(
        _ fields: BinaryPropertyListObject, scanner: BinaryPropertyListScanner
    ) throws -> Bool {
        if fields.offset == lastCheckedDictionary.offset { return lastCheckedDictionary.distinct }
        return try checkKeyLayout(fields, scanner: scanner)
    }

    /// ``hasDistinctKeyTexts(_:scanner:)`` for a dictionary other than the last one asked
    /// about (kept out of line: the repeated question is asked inline).
    private func checkKeyLayout(
        _ fields: BinaryPropertyListObject, scanner: BinaryPropertyListScanner
    ) throws -> Bool {
        let references = scanner.referenceBytes(fields)
        let layout = KeyLayout(references)
        // Two ways per set: the layouts read in turn (an object and the date or array it
        // holds) may share a set.
        let slot = layout.slot(among: Self.layoutCacheSize) & ~1
        if distinctLayouts.isEmpty {
            distinctLayouts = [KeyLayout](repeating: KeyLayout(), count: Self.layoutCacheSize)
        }
        var distinct = false
        if distinctLayouts[slot].matches(layout, references) {
            distinct = true
        } else if distinctLayouts[slot + 1].matches(layout, references) {
            distinct = true
            distinctLayouts.swapAt(slot, slot + 1)
        } else if fields.count <= Self.layoutKeyLimit {
            distinct = try Self.keyTextsAreDistinct(fields, scanner: scanner)
            if distinct {
                // The layout takes the set's first way; the one there moves to the second,
                // replacing the least recently used.
                distinctLayouts[slot + 1] = distinctLayouts[slot]
                distinctLayouts[slot] = layout.keepingBytes(references)
            }
        }
        lastCheckedDictionary = (fields.offset, distinct)
        return distinct
    }

    /// Whether no two keys of `fields` have the same text (compared pairwise, for the few
    /// keys of an object; a key that is not a string makes the answer no).
    private static func keyTextsAreDistinct(
        _ fields: BinaryPropertyListObject, scanner: BinaryPropertyListScanner
    ) throws -> Bool {
        var keys: [BinaryPropertyListObject] = []
        keys.reserveCapacity(fields.count)
        for position in 0..<fields.count {
            let key = try scanner.object(scanner.reference(fields, at: position))
            guard key.kind == .asciiString || key.kind == .utf16String else { return false }
            if keys.contains(where: { scanner.sameText($0, key) }) { return false }
            keys.append(key)
        }
        return true
    }

    /// Dictionaries with more keys are not checked: their keys are found by text.
    private static let layoutKeyLimit = 32
    /// Slots of the layout table (a power of two, two ways per set): the classes whose
    /// objects are read in turn rarely number more.
    private static let layoutCacheSize = 32

    /// Two ways for each of 64 sets.
    private static let keyCacheSize = 128
}

/// A `String` recognised by its representation: the bytes of a short string, or the
/// address of a literal's or a heap string's storage. Equal identities are equal strings;
/// equal strings may differ in identity (the key is then looked up by its text).
///
/// A key looked up `escaping` (a caller's key, whose text in the archive is
/// `archiveEscapedKey(key)`) is another identity than the same string looked up as the
/// archive's own text: `"$$x"` given by a caller stands for the text `"$$$x"`.
struct KeyIdentity: Equatable {
    private let low: UInt64
    private let high: UInt64
    private let escaping: Bool

    /// The key's text as ``DictionaryKeyTexts`` words, when the key is a short ASCII
    /// string read as itself (not escaped: its first byte is not `$`); `nil` otherwise.
    @inline(__always)
    var shortASCIIWords: (UInt64, UInt64)? {
        // A short string holds its bytes in the two words and its count in the low
        // nibble of the top byte, above flags; 0x40 marks ASCII, 0x20 a short string.
        guard Self.shortLayoutHolds, high >> 56 & 0x60 == 0x60, !escaping || low & 0xFF != 0x24 else {
            return nil
        }
        let count = high >> 56 & 0x0F
        guard count < 15 else { return nil }
        return (low, high & 0x00FF_FFFF_FFFF_FFFF | count << 56)
    }

    /// Whether short strings are laid out as ``shortASCIIWords`` expects, checked once on
    /// a literal and on a string made at run time.
    private static let shortLayoutHolds: Bool = {
        func words(_ string: String) -> (UInt64, UInt64) {
            withUnsafeBytes(of: string) {
                ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
        }
        guard MemoryLayout<String>.size == 16 else { return false }
        for text in ["NS.objects", String(decoding: [0x24, 0x63, 0x6C, 0x61, 0x73, 0x73], as: UTF8.self)] {
            let (low, high) = words(text)
            var copy = text
            let made = copy.withUTF8 { DictionaryKeyTexts.words(of: UnsafeRawBufferPointer($0)) }
            guard high >> 56 & 0x60 == 0x60, let made, made.0 == low,
                made.1 == high & 0x00FF_FFFF_FFFF_FFFF | (high >> 56 & 0x0F) << 56
            else { return false }
        }
        return true
    }()

    /// `nil` where a `String` is not two words (32-bit platforms).
    @inline(__always)
    init?(_ key: String, escaping: Bool = false) {
        guard MemoryLayout<String>.size == 16 else { return nil }
        (low, high) = withUnsafeBytes(of: key) {
            ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        self.escaping = escaping
    }

    /// An identity no string has (a string's second word is never zero).
    init() {
        (low, high, escaping) = (0, 0, false)
    }

    /// The first way of this key's set in the cache: an even index below 128.
    @inline(__always)
    var slot: Int {
        let mixed = (low ^ (high &* 0xC2B2_AE3D_27D4_EB4F) ^ (escaping ? 1 : 0)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 58) << 1
    }
}

/// The key-reference bytes of a dictionary found to hold distinct key texts.
///
/// Up to 16 bytes (8 keys with 2-byte references, 4 with 4-byte ones) are held in two
/// words, compared without a loop: the first and the last 8 (or 4) bytes, overlapping,
/// cover them all. Longer layouts keep their bytes too, for the words in between.
struct KeyLayout {
    private var count = -1
    private var first: UInt64 = 0
    private var last: UInt64 = 0
    private var bytes: [UInt8] = []

    /// An empty slot, matching no layout.
    init() {}

    @inline(__always)
    init(_ references: UnsafeRawBufferPointer) {
        count = references.count
        guard let base = references.baseAddress else { return }
        switch count {
        case 8...:
            first = base.loadUnaligned(as: UInt64.self)
            last = base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        case 4..<8:
            first = UInt64(base.loadUnaligned(as: UInt32.self))
            last = UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        default:
            for offset in 0..<count {
                first = first << 8 | UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
            }
        }
    }

    /// The same layout holding its bytes when there are more than two words' worth.
    func keepingBytes(_ references: UnsafeRawBufferPointer) -> KeyLayout {
        var layout = self
        if count > 16 { layout.bytes = Array(references) }
        return layout
    }

    /// A slot for this layout in a table of `size` (a power of two) slots.
    @inline(__always)
    func slot(among size: Int) -> Int {
        let mixed =
            (first ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: count))
            &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 58) & (size - 1)
    }

    /// Whether `other`, made from `references`, is this layout.
    @inline(__always)
    func matches(_ other: KeyLayout, _ references: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count, first == other.first, last == other.last else { return false }
        guard count > 16 else { return true }
        // The words between the first and the last 8 bytes.
        return bytes.withUnsafeBytes { stored in
            guard let kept = stored.baseAddress, let given = references.baseAddress,
                stored.count == references.count
            else { return false }
            var offset = 8
            while offset < count - 8 {
                if kept.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    != given.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                {
                    return false
                }
                offset += 8
            }
            return true
        }
    }
}

/// A key, the object index of its string in a binary archive, and the position it was last
/// found at. Holding `key` keeps its storage alive, so that no other string takes its
/// identity while it is cached.
struct CachedKeyIndex {
    var identity = KeyIdentity()
    var key = ""
    var keyIndex = -1
    /// The position, or ``byText``.
    var position = 0

    /// The position of a key last found by its text, its string being another object than
    /// the one remembered: the next lookup compares texts first (no dictionary has so many
    /// keys, so no string is looked for at this position).
    static var byText: Int { Int.max }
}

/// An entry of `$objects`: an object (a dictionary with `$class`, or a class description)
/// or a plain value (a string, number or data).
package enum ArchiveEntry {
    case object(ArchiveFields)
    case plain(PropertyList)
}

/// The fields of an object: a dictionary already parsed (OpenStep text, or a
/// ``PropertyList`` the caller passed), or a dictionary of a binary archive read in place
/// (XML archives included, rewritten as binary when opened).
package enum ArchiveFields {
    case parsed(PropertyListDictionary)
    case binary(BinaryPropertyListObject)
}

/// A field value as the hot decoding paths read it (see
/// ``KeyedUnarchiver/quickValue(forKey:)``): a reference or a scalar, read without a
/// ``PropertyList`` from a binary archive, or taken from a parsed dictionary.
enum QuickValue {
    /// A UID, checked to be below the object count; 0 is nil.
    case reference(Int)
    case real(Double)
    /// An integer that fits in 64 bits (binary: 1, 2, 4 bytes unsigned or 8 signed).
    case integer(Int64)
    case bool(Bool)

    /// `value` as a quick value, or `nil` for any other kind (or an integer beyond `Int64`).
    @inline(__always)
    init?(_ value: PropertyList?, objectCount: Int) {
        switch value {
        case .uid(let raw)?:
            guard raw < UInt64(objectCount) else { return nil }
            self = .reference(Int(raw))
        case .real(let real)?: self = .real(real)
        case .integer(let integer)?:
            guard let exact = integer.int64Value else { return nil }
            self = .integer(exact)
        case .bool(let flag)?: self = .bool(flag)
        default: return nil
        }
    }
}
