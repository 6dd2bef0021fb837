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
final class BinaryArchiveSource: ArchiveObjectSource {
    let data: Data
    let trailer: BinaryPropertyListTrailer
    /// The `$objects` array (or set): entry `uid` is the object its reference `uid` names.
    let objects: BinaryPropertyListObject
    let readingOptions: PropertyListReadingOptions
    let top: PropertyListDictionary

    // Mutable state is touched for every object read, and the unarchiver (like this
    // source) is documented as not thread-safe. No access to these properties spans a
    // call that could reach them again, so the dynamic exclusivity checks Swift adds to
    // class properties would only cost time (they were the largest single item of the
    // profile).
    /// The scanner over `data` while an operation runs (see ``withInput(_:)``).
    @exclusivity(unchecked) private var activeScanner: BinaryPropertyListScanner?
    /// Recently looked-up keys and the object index of their string, direct-mapped by a
    /// cheap hash of the key: writers store each key string once, so comparing a
    /// dictionary's key references with this index finds a key without reading its text.
    @exclusivity(unchecked) private var keyIndices: [CachedKeyIndex]
    /// Entries materialized by ``object(at:)`` for the generic paths (object graphs,
    /// Codable), which may ask for the same entry repeatedly.
    @exclusivity(unchecked) private var materialized: [Int: PropertyList] = [:]

    var objectCount: Int { objects.count }

    /// Opens a binary keyed archive.
    ///
    /// - Throws: ``KeyedArchiveError``: the binary reader's errors (`corruptData` with a
    ///   byte offset, …), `invalidArchive` when the root is not a keyed archive, or
    ///   `limitExceeded` when `$objects` is larger than allowed.
    /// - Complexity: O(1) in the number of objects (plus the size of `$top`).
    init(data: Data, options: KeyedUnarchivingOptions) throws {
        let readingOptions = options.propertyListOptions
        let budget = readingOptions.valueBudget(forInputLength: data.count)
        let depth = readingOptions.maximumDepth
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
            try ArchiveHeader.validate(archiver: value("$archiver"), version: value("$version"))
            guard let topValue = try value("$top") else {
                throw KeyedArchiveError(.invalidArchive, "the archive has no $top", at: .keyPath("$top"))
            }
            guard case .dictionary(let top) = topValue else {
                throw KeyedArchiveError(
                    .invalidArchive, "$top is \(topValue.typeName), not a dictionary", at: .keyPath("$top"))
            }
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
        self.keyIndices = [CachedKeyIndex](repeating: CachedKeyIndex(), count: Self.keyCacheSize)
        try ArchiveHeader.validate(null: object(at: 0))
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
            case .array, .set: return .plain(try materialize(object, scanner: scanner))
            default: return .plain(try scanner.scalar(object))
            }
        }
    }

    func object(at index: Int) throws -> PropertyList {
        if let known = materialized[index] { return known }
        let value = try withScanner { scanner in
            try materialize(entryObject(index, scanner: scanner), scanner: scanner)
        }
        materialized[index] = value
        return value
    }

    /// An object and everything it contains, with the reader's depth, cycle and budget checks.
    func materialize(_ object: BinaryPropertyListObject, scanner: BinaryPropertyListScanner) throws
        -> PropertyList
    {
        try scanner.materialize(
            object.index, maximumDepth: readingOptions.maximumDepth,
            budget: readingOptions.valueBudget(forInputLength: data.count))
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

    /// The position of `key` among the keys of `fields`.
    private func position(
        ofKey key: String, in fields: BinaryPropertyListObject, scanner: BinaryPropertyListScanner
    ) throws -> Int? {
        var text = key
        return try text.withUTF8 { keyBytes in
            let slot = Self.cacheSlot(keyBytes)
            let cached = keyIndices[slot]
            if cached.index >= 0, cached.key == key {
                var position = fields.count
                while position > 0 {
                    position -= 1
                    if try scanner.reference(fields, at: position) == cached.index { return position }
                }
            }
            // Not found by index: compare the text of every key (a writer may store a
            // key string more than once, or the key is absent).
            let keyIsASCII = BinaryPropertyListScanner.isASCII(keyBytes)
            var position = fields.count
            while position > 0 {
                position -= 1
                let keyIndex = try scanner.reference(fields, at: position)
                let candidate = try scanner.object(keyIndex)
                let matches: Bool
                if keyIsASCII && candidate.kind == .asciiString {
                    matches = scanner.asciiStringEquals(candidate, keyBytes)
                } else {
                    matches = try scanner.key(keyIndex, position: position, of: fields).utf8.elementsEqual(
                        keyBytes)
                }
                if matches {
                    keyIndices[slot] = CachedKeyIndex(key: key, index: keyIndex)
                    return position
                }
            }
            return nil
        }
    }

    private static let keyCacheSize = 64

    /// A slot from the key's length and its first and last (up to) eight bytes.
    @inline(__always)
    private static func cacheSlot(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let count = bytes.count
        guard let start = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(start)
        var head: UInt64 = 0
        var tail: UInt64 = 0
        if count >= 8 {
            head = raw.loadUnaligned(as: UInt64.self)
            tail = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            for index in 0..<count { head = head << 8 | UInt64(start[index]) }
        }
        let mixed = (head ^ (tail &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(count)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 58)  // 64 slots
    }
}

/// A key and the object index of its string in a binary archive.
struct CachedKeyIndex {
    var key = ""
    var index = -1
}

/// An entry of `$objects`: an object (a dictionary with `$class`, or a class description)
/// or a plain value (a string, number or data).
enum ArchiveEntry {
    case object(ArchiveFields)
    case plain(PropertyList)
}

/// The fields of an object: a dictionary already parsed (XML, or a ``PropertyList`` the
/// caller passed), or a dictionary of a binary archive read in place.
enum ArchiveFields {
    case parsed(PropertyListDictionary)
    case binary(BinaryPropertyListObject)
}

extension BinaryPropertyListScanner {
    /// The reference of the value under `key` in `dictionary`, comparing key bytes; with
    /// repeated keys, the last wins.
    func valueReference(forKey key: String, in dictionary: BinaryPropertyListObject) throws -> Int? {
        var key = key
        return try key.withUTF8 { keyBytes in
            let keyIsASCII = Self.isASCII(keyBytes)
            var position = dictionary.count
            while position > 0 {
                position -= 1
                let keyIndex = try reference(dictionary, at: position)
                let candidate = try object(keyIndex)
                let matches: Bool
                if keyIsASCII && candidate.kind == .asciiString {
                    matches = asciiStringEquals(candidate, keyBytes)
                } else {
                    matches = try self.key(keyIndex, position: position, of: dictionary).utf8.elementsEqual(
                        keyBytes)
                }
                if matches { return try reference(dictionary, at: dictionary.count + position) }
            }
            return nil
        }
    }
}
