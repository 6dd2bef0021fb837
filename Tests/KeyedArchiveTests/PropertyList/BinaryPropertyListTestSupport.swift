import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// Reading what ``BPlist`` (TestSupport) assembles.
extension BPlist {
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
