#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A colour list file (`.clr`, what `NSColorList` saves) in the typedstream format: named
/// colours in order.
///
/// ```swift
/// let data = try Data(contentsOf: URL(fileURLWithPath: "Crayons.clr"))
/// let list = try TypedStreamColorList(typedStream: data)
/// for entry in list.entries {
///     print(entry.key, entry.color?.hexString ?? "(another kind of colour)")
/// }
/// ```
///
/// The stream holds no `NSColorList` object but top-level groups: `i` (a format version,
/// 1), `@i` (an object, nil in the files seen, and the number of colours), then per colour
/// a group `@@`: the `NSColor` and its key (an `NSString`). A colour of a kind that
/// ``ArchivedColor`` cannot hold (a pattern) has a `nil` ``Entry/color``;
/// ``TypedStreamUnarchiver/objectGraph(from:options:)`` shows it.
public struct TypedStreamColorList: Hashable, Sendable {
    /// One named colour.
    public struct Entry: Hashable, Sendable {
        /// The colour's key (its name in the colour panel).
        public var key: String
        /// The colour, or `nil` for a kind of colour ``ArchivedColor`` cannot hold.
        public var color: ArchivedColor?

        /// Creates an entry.
        ///
        /// - Parameters:
        ///   - key: The colour's key.
        ///   - color: The colour.
        public init(key: String, color: ArchivedColor?) {
            self.key = key
            self.color = color
        }
    }

    /// The format version of the first group (1).
    public var version: Int
    /// The object written before the colour count when it is a string; `nil` in the files
    /// seen.
    public var name: String?
    /// The colours in order.
    public var entries: [Entry]

    /// Creates a colour list.
    ///
    /// - Parameters:
    ///   - entries: The colours in order.
    ///   - name: The object to write before the count (usually `nil`).
    ///   - version: The format version (1).
    public init(entries: [Entry], name: String? = nil, version: Int = 1) {
        self.entries = entries
        self.name = name
        self.version = version
    }

    /// Reads a colour list file.
    ///
    /// - Parameters:
    ///   - data: The file's bytes, a typedstream.
    ///   - options: Limits and choices.
    /// - Throws: ``KeyedArchiveError``: what reading the typedstream throws, or
    ///   `typeMismatch` / `invalidArchive` when the stream is not laid out as a colour list.
    public init(
        typedStream data: Data, options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    )
        throws
    {
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data, options: options)
        version = try unarchiver.decodeInteger()
        let header = try unarchiver.decodeValues(ofObjCTypes: "@i")
        guard header.count == 2, let count = header[1].integerValue, count >= 0 else {
            throw unarchiver.failure(.invalidArchive, "the colour count is not a non-negative integer")
        }
        name = try? unarchiver.typedValue(header[0], as: String.self)
        var entries: [Entry] = []
        for _ in 0..<count {
            // Each entry is a group: the count cannot exceed the groups the stream holds.
            let pair = try unarchiver.decodeValues(ofObjCTypes: "@@")
            guard pair.count == 2, let key = try unarchiver.typedValue(pair[1], as: String.self) else {
                throw unarchiver.failure(.invalidArchive, "a colour has no key")
            }
            let color = try? unarchiver.typedValue(pair[0], as: ArchivedColor.self)
            entries.append(Entry(key: key, color: color ?? nil))
        }
        self.entries = entries
    }

    /// The list as a colour list file, as `NSColorList` writes it.
    ///
    /// - Returns: The typedstream.
    /// - Throws: ``KeyedArchiveError`` with code `invalidValue` when an entry has no colour
    ///   or a colour of a kind a typedstream cannot hold.
    public func typedStreamData() throws -> Data {
        let archiver = TypedStreamArchiver()
        try archiver.encodeValues(ofObjCTypes: "i", [.integer(Int64(version))])
        try archiver.encodeGroup("@i", objects: [name], values: [.integer(Int64(entries.count))])
        for entry in entries {
            guard let color = entry.color else {
                throw KeyedArchiveError(
                    .invalidValue, "the colour \(DisplayText.quoted(entry.key)) has none to write")
            }
            try archiver.encodeObjects([color, entry.key])
        }
        return archiver.encodedData
    }
}
