import Foundation
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// Hand-assembled binary property lists for tests.
enum BPlist {
    /// Header `bplist00`, then `objects` back to back, an offset table, and a trailer.
    /// Every trailer field can be overridden to build corrupt files.
    static func assemble(
        _ objects: [[UInt8]], top: UInt64 = 0, refSize: UInt8 = 1, offsetSize: UInt8? = nil,
        offsets: [UInt64]? = nil, objectCount: UInt64? = nil, tableOffset: UInt64? = nil,
        header: [UInt8] = Array("bplist00".utf8), betweenTableAndTrailer: [UInt8] = [],
        unusedTrailerBytes: [UInt8] = [0, 0, 0, 0, 0, 0]
    ) -> [UInt8] {
        var bytes = header
        var computedOffsets: [UInt64] = []
        for object in objects {
            computedOffsets.append(UInt64(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        let width = offsetSize ?? UInt8(BinaryPropertyListWidth.bytes(forCount: Int(table)))
        for offset in offsets ?? computedOffsets { bytes += bigEndian(offset, width: Int(width)) }
        bytes += betweenTableAndTrailer
        bytes += unusedTrailerBytes
        bytes += [width, refSize]
        bytes += bigEndian(objectCount ?? UInt64(objects.count), width: 8)
        bytes += bigEndian(top, width: 8)
        bytes += bigEndian(tableOffset ?? table, width: 8)
        return bytes
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
    }

    /// An ASCII string object.
    static func ascii(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return header(0x50, count: bytes.count) + bytes
    }

    /// A marker with an inline count, or `0xF` and a 1-byte count integer.
    static func header(_ marker: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [marker | UInt8(count)] : [marker | 0x0F, 0x10, UInt8(count)]
    }

    /// Reads with the public entry point.
    static func read(
        _ bytes: [UInt8], options: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws -> PropertyList {
        try PropertyList(from: Data(bytes), format: .binary, options: options)
    }
}

/// Compares a decoded value with a fixture expectation: dates may differ by less than a
/// millisecond (Python keeps microseconds), and an expected `{"date": "…"}` object that
/// the shared JSON reader could not convert (fractional seconds) is parsed here.
func fixtureValueMatches(_ actual: PropertyList, _ expected: PropertyList) -> Bool {
    switch (actual, expected) {
    case (.date(let a), .date(let b)):
        return abs(a.timeIntervalSince(b)) < 0.001
    case (.date(let a), .dictionary(let dictionary)):
        guard dictionary.count == 1, let text = dictionary["date"]?.stringValue else { return false }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let b = formatter.date(from: text) else { return false }
        return abs(a.timeIntervalSince(b)) < 0.001
    case (.array(let a), .array(let b)):
        return a.count == b.count && zip(a, b).allSatisfy { fixtureValueMatches($0, $1) }
    case (.dictionary(let a), .dictionary(let b)):
        guard a.count == b.count else { return false }
        for (key, value) in a {
            guard let other = b[key], fixtureValueMatches(value, other) else { return false }
        }
        return true
    default:
        return actual == expected
    }
}

extension BPlist {
    /// Runs `body` with a scanner over `data`: random access to single objects, as the
    /// keyed unarchiver reads a binary archive.
    static func scan<Result>(_ data: Data, _ body: (BinaryPropertyListScanner) throws -> Result) throws
        -> Result
    {
        try data.withUnsafeBytes { bytes in
            let trailer = try BinaryPropertyListTrailer(validating: bytes)
            return try body(BinaryPropertyListScanner(bytes: bytes, trailer: trailer))
        }
    }
}

/// Checked conveniences over the scanner's object-level calls, for tests.
extension BinaryPropertyListScanner {
    /// The references of container `index`: the elements of an array or set, the keys then
    /// the values of a dictionary.
    func references(of index: Int) throws -> [Int] {
        let container = try object(index)
        guard container.kind.isContainer else {
            throw KeyedArchiveError(.typeMismatch, "object \(index) is \(container.kind.withArticle)")
        }
        let total = container.kind == .dictionary ? 2 * container.count : container.count
        return try (0..<total).map { try reference(container, at: $0) }
    }

    /// The key references of dictionary `index`, in file order.
    func keyReferences(of index: Int) throws -> [Int] {
        let references = try references(of: index)
        return Array(references.prefix(references.count / 2))
    }

    /// The text of string `index`.
    func string(at index: Int) throws -> String {
        let string = try object(index)
        guard string.kind == .asciiString || string.kind == .utf16String else {
            throw KeyedArchiveError(.typeMismatch, "object \(index) is \(string.kind.withArticle)")
        }
        return try self.string(string)
    }

    /// The value of object `index` and everything it contains, with the default limits.
    func value(at index: Int) throws -> PropertyList {
        let options = PropertyListReadingOptions()
        return try materialize(
            index, maximumDepth: options.maximumDepth,
            budget: options.valueLimit(forInputLength: bytes.count))
    }

    /// The reference of the value under `key` in dictionary `index`, or `nil`.
    func valueReference(forKey key: String, inDictionaryAt index: Int) throws -> Int? {
        let dictionary = try object(index)
        guard dictionary.kind == .dictionary else {
            throw KeyedArchiveError(.typeMismatch, "object \(index) is \(dictionary.kind.withArticle)")
        }
        return try valueReference(forKey: key, in: dictionary)
    }
}
