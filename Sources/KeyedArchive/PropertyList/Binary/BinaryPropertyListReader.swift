#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a binary property list (`bplist00`) into a ``PropertyList``.
///
/// Shares its core (``BinaryPropertyListTrailer`` validation and
/// ``BinaryPropertyListScanner``) with ``BinaryPropertyListDocument``: `read` materializes
/// the top object exactly as the document's `value(at:)` materializes any object.
enum BinaryPropertyListReader {
    /// Decodes a whole binary property list.
    ///
    /// - Throws: `corruptData` (with the byte offset) for malformed input, plist-level
    ///   cycles, NaN or infinite dates, lone UTF-16 surrogates and non-string dictionary
    ///   keys; `limitExceeded` when nesting or the value budget is exceeded;
    ///   `unsupportedFormat` for null objects and `bplist1x` files.
    static func read(_ data: Data, options: PropertyListReadingOptions) throws -> PropertyList {
        // The same core as the document, over the caller's bytes without copying them.
        try data.withUnsafeBytes { bytes in
            let trailer = try BinaryPropertyListTrailer(validating: bytes)
            return try BinaryPropertyListScanner(bytes: bytes, trailer: trailer).materialize(
                trailer.topObject, maximumDepth: options.maximumDepth,
                budget: options.valueLimit(forInputLength: bytes.count))
        }
    }
}

/// Lazy, random access to the objects of a binary property list.
///
/// Opening a document validates only the header, the trailer and the offset table's
/// position (O(1)); each object is checked when it is first looked at, so reading one
/// object of a large file touches only that object (and, for ``value(at:)``, what it
/// contains). This is what the keyed unarchiver uses to decode one key of a large
/// archive without parsing the whole file.
///
/// Objects are named by their index in the offset table (`0..<objectCount`), as the
/// references inside arrays and dictionaries are. Sets (marker `0xCn`) are reported and
/// read as arrays.
///
/// ```swift
/// let document = try BinaryPropertyListDocument(data)
/// let (keys, values) = try document.dictionaryReferences(at: document.topObject)
/// if let objects = try document.dictionaryValueReference(forKey: "$objects", inDictionaryAt: document.topObject) {
///     let first = try document.arrayReferences(at: objects)[0]
///     print(try document.value(at: first))
/// }
/// ```
///
/// Errors: `corruptData` with the byte offset of the faulty object (or reference, or
/// offset-table entry); `typeMismatch` when asking an object for a kind it is not (for
/// example ``arrayReferences(at:)`` of a string); `limitExceeded` and `unsupportedFormat`
/// as for ``BinaryPropertyListReader/read(_:options:)``.
///
/// Methods that return references do not follow them: a caller that walks nested
/// containers through references must bound its own depth and detect cycles, or use
/// ``value(at:)``, which does both.
struct BinaryPropertyListDocument: Sendable {
    /// What an object is.
    enum Kind: Hashable, Sendable {
        case boolean, integer, real, date, data, string, uid, array, dictionary
    }

    /// The input, copied once: random access through an array's buffer costs about a
    /// third of going through `Data.withUnsafeBytes` on every call (measured: 8 ns against
    /// 28 ns per `kind(of:)`), and the copy runs at memory speed.
    let bytes: [UInt8]
    /// The validated trailer.
    let trailer: BinaryPropertyListTrailer
    /// The limits applied by ``value(at:)``.
    let options: PropertyListReadingOptions

    /// Validates the header, the trailer and the offset table's bounds.
    ///
    /// - Parameters:
    ///   - data: A binary property list.
    ///   - options: Limits for ``value(at:)``.
    /// - Throws: `corruptData` or `unsupportedFormat` naming the faulty field.
    /// - Complexity: O(1).
    init(_ data: Data, options: PropertyListReadingOptions = PropertyListReadingOptions()) throws {
        self.bytes = [UInt8](data)
        self.trailer = try bytes.withUnsafeBytes { try BinaryPropertyListTrailer(validating: $0) }
        self.options = options
    }

    /// The number of objects in the offset table.
    var objectCount: Int { trailer.objectCount }

    /// The index of the root object.
    var topObject: Int { trailer.topObject }

    /// Runs `body` with a scanner over the bytes.
    @inline(__always)
    func withScanner<Result>(_ body: (BinaryPropertyListScanner) throws -> Result) throws -> Result {
        try bytes.withUnsafeBytes { buffer in
            try body(BinaryPropertyListScanner(bytes: buffer, trailer: trailer))
        }
    }

    /// The kind of object `index`.
    ///
    /// - Throws: `corruptData` if the object's offset or marker is invalid, or its count
    ///   exceeds the bytes that remain.
    func kind(of index: Int) throws -> Kind {
        try withScanner { scanner in
            switch try scanner.object(index).kind {
            case .boolean: return .boolean
            case .integer: return .integer
            case .real: return .real
            case .date: return .date
            case .data: return .data
            case .asciiString, .utf16String: return .string
            case .uid: return .uid
            case .array, .set: return .array
            case .dictionary: return .dictionary
            }
        }
    }

    /// The value of object `index` and everything it contains.
    ///
    /// Depth, cycles and the value budget (`PropertyListReadingOptions.valueLimit(forInputLength:)`
    /// of the whole input) are checked for this subtree, iteratively.
    ///
    /// - Throws: `corruptData`, `limitExceeded` or `unsupportedFormat`.
    func value(at index: Int) throws -> PropertyList {
        let budget = options.valueLimit(forInputLength: bytes.count)
        let depth = options.maximumDepth
        return try withScanner { scanner in
            try scanner.materialize(index, maximumDepth: depth, budget: budget)
        }
    }

    /// The number of elements of an array or set, or of entries of a dictionary.
    ///
    /// - Throws: `typeMismatch` if the object is not a container.
    func count(at index: Int) throws -> Int {
        try withScanner { scanner in
            let object = try scanner.object(index)
            guard object.kind.isContainer else { throw Self.mismatch(object, expected: "a container") }
            return object.count
        }
    }

    /// The element references of an array or set, each checked to be below ``objectCount``.
    ///
    /// - Throws: `typeMismatch` if the object is not an array or set; `corruptData` for a
    ///   reference out of range.
    func arrayReferences(at index: Int) throws -> [Int] {
        try withScanner { scanner in
            let object = try scanner.object(index)
            guard object.kind == .array || object.kind == .set else {
                throw Self.mismatch(object, expected: "an array")
            }
            var references: [Int] = []
            references.reserveCapacity(object.count)  // bounded by the bytes that remain
            for element in 0..<object.count { references.append(try scanner.reference(object, at: element)) }
            return references
        }
    }

    /// The key and value references of a dictionary, in file order (duplicates kept).
    ///
    /// - Throws: `typeMismatch` if the object is not a dictionary; `corruptData` for a
    ///   reference out of range.
    func dictionaryReferences(at index: Int) throws -> (keys: [Int], values: [Int]) {
        try withScanner { scanner in
            let object = try scanner.object(index)
            guard object.kind == .dictionary else { throw Self.mismatch(object, expected: "a dictionary") }
            var keys: [Int] = []
            var values: [Int] = []
            keys.reserveCapacity(object.count)
            values.reserveCapacity(object.count)
            for element in 0..<object.count {
                keys.append(try scanner.reference(object, at: element))
                values.append(try scanner.reference(object, at: object.count + element))
            }
            return (keys, values)
        }
    }

    /// The text of a string object (ASCII read as Latin-1 beyond 0x7F, as CoreFoundation).
    ///
    /// - Throws: `typeMismatch` if the object is not a string; `corruptData` for a lone
    ///   UTF-16 surrogate.
    func string(at index: Int) throws -> String {
        try withScanner { scanner in
            let object = try scanner.object(index)
            guard object.kind == .asciiString || object.kind == .utf16String else {
                throw Self.mismatch(object, expected: "a string")
            }
            return try scanner.string(object)
        }
    }

    /// The reference of the value stored under `key` in a dictionary, or `nil` if absent;
    /// with duplicate keys the last one wins. ASCII keys are compared as bytes, without
    /// building strings.
    ///
    /// - Throws: `typeMismatch` if the object is not a dictionary; `corruptData` for a
    ///   non-string key or a reference out of range.
    /// - Complexity: O(*n*) in the number of entries.
    func dictionaryValueReference(forKey key: String, inDictionaryAt index: Int) throws -> Int? {
        try withScanner { scanner in
            let object = try scanner.object(index)
            guard object.kind == .dictionary else {
                throw Self.mismatch(object, expected: "a dictionary")
            }
            return try scanner.valueReference(forKey: key, in: object)
        }
    }

    private static func mismatch(_ object: BinaryPropertyListObject, expected: String) -> KeyedArchiveError {
        KeyedArchiveError(
            .typeMismatch, "object \(object.index): expected \(expected), found \(object.kind.withArticle)",
            at: .byteOffset(object.offset))
    }
}
