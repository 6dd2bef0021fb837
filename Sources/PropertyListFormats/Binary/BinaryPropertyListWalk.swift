import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Walks a binary property list object by object, as events, without building the
/// ``PropertyList`` tree: the tool's `-p` prints from it.
///
/// The events describe the value reading the file gives, with each dictionary's entries in
/// key order (Unicode scalar values, as ``PropertyListDictionary/sortedByKey``): a scalar is
/// one event, a container an opening event, its contents (each dictionary value after its
/// key) and ``Event/end``. Sets are arrays, as reading gives them.
///
/// Everything reading refuses is refused (the message may differ): malformed objects, the
/// nesting limit (empty containers included), the value budget counted as the reader counts
/// it, containers that contain themselves. Sometimes more: a dictionary that gives a key
/// twice, whose overwritten value would have to be read and checked without being shown.
/// A caller that needs every input falls back to the tree when this throws.
///
/// - Complexity: O(values shown), plus a sort of each dictionary's keys.
package enum BinaryPropertyListWalk {
    /// One step of the walk.
    package enum Event {
        /// A string, number, Boolean, date, data or UID.
        case scalar(PropertyList)
        /// An array (or set) of `count` elements opens.
        case arrayStart(count: Int)
        /// A dictionary of `count` entries opens.
        case dictionaryStart(count: Int)
        /// The key of the dictionary entry whose value follows.
        case key(String)
        /// The innermost open array or dictionary closes.
        case end
    }

    /// Walks `data`, a binary property list, handing each event to `visit`.
    ///
    /// - Parameter sortsKeys: Whether each dictionary's entries come in key order (else in
    ///   the file's order, the order reading keeps).
    /// - Throws: ``KeyedArchiveError`` as reading does, `unsupportedFormat` for a key given
    ///   twice, or what `visit` throws.
    package static func walk(
        _ data: Data, options: PropertyListReadingOptions, sortsKeys: Bool = true,
        _ visit: (Event) throws -> Void
    ) throws {
        try data.withUnsafeBytes { bytes in
            let trailer = try BinaryPropertyListTrailer(validating: bytes)
            var walker = Walker(
                scanner: try BinaryPropertyListScanner(bytes: bytes, trailer: trailer),
                maximumDepth: options.maximumDepth,
                maximumValues: options.valueLimit(forInputLength: bytes.count), sortsKeys: sortsKeys)
            try walker.walk(root: trailer.topObject, visit)
        }
    }

    private struct Walker {
        /// An open container: its object, the entries in order (for dictionaries, the
        /// position of each key and of its value), and the next entry.
        struct Frame {
            let container: BinaryPropertyListObject
            let order: [Int]
            /// For a dictionary, the text of each key in order (read once, when ordering).
            var keys: [String] = []
            var next = 0
        }

        let scanner: BinaryPropertyListScanner
        let maximumDepth: Int
        let maximumValues: Int
        let sortsKeys: Bool
        var remaining: Int
        var path: ObjectPath
        var frames: [Frame] = []
        /// The text of each key object read so far: archives use the same few keys in
        /// thousands of dictionaries. At most one entry per object of the file.
        var keyTexts: [Int: String] = [:]
        /// The entry order and the keys' texts in that order of each list of key objects seen,
        /// by the list: every object of one archived class has the same keys. Bounded by the
        /// file's length (each list is in it).
        var orders: [[Int]: (order: [Int], keys: [String])] = [:]
        /// The dictionaries opened so far (the caches above serve from the second on).
        var dictionariesSeen = 0

        init(scanner: BinaryPropertyListScanner, maximumDepth: Int, maximumValues: Int, sortsKeys: Bool) {
            self.scanner = scanner
            self.sortsKeys = sortsKeys
            self.maximumDepth = maximumDepth
            self.maximumValues = maximumValues
            remaining = maximumValues
            path = ObjectPath(objectCount: scanner.trailer.objectCount)
        }

        mutating func walk(root: Int, _ visit: (Event) throws -> Void) throws {
            try open(root, visit)
            while let last = frames.indices.last {
                let frame = frames[last]
                let isDictionary = frame.container.kind == .dictionary
                let count = isDictionary ? frame.order.count / 2 : frame.container.count
                guard frame.next < count else {
                    frames.removeLast()
                    path.remove(frame.container.index)
                    try visit(.end)
                    continue
                }
                frames[last].next = frame.next + 1
                if isDictionary {
                    try spend(at: frame.container)
                    try visit(.key(frame.keys[frame.next]))
                    try open(
                        try scanner.reference(
                            frame.container, at: frame.container.count + frame.order[2 * frame.next + 1]),
                        visit)
                } else {
                    try open(try scanner.reference(frame.container, at: frame.next), visit)
                }
            }
        }

        /// Hands over a scalar, or opens a container and pushes its frame.
        private mutating func open(_ index: Int, _ visit: (Event) throws -> Void) throws {
            let object = try scanner.object(index)
            try spend(at: object)
            guard object.kind.isContainer else {
                try visit(.scalar(try scanner.scalar(object)))
                return
            }
            guard frames.count < maximumDepth else {
                throw KeyedArchiveError(
                    .limitExceeded,
                    "object \(object.index): \(object.kind) nested deeper than the limit of \(maximumDepth) levels",
                    at: .byteOffset(object.offset))
            }
            if path.contains(object.index) {
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(object.index): \(object.kind) contains itself (plist-level cycles are not allowed)",
                    at: .byteOffset(object.offset))
            }
            path.insert(object.index)
            if object.kind == .dictionary {
                let (order, keys) = try sortedEntries(of: object)
                try visit(.dictionaryStart(count: order.count / 2))
                frames.append(Frame(container: object, order: order, keys: keys))
            } else {
                try visit(.arrayStart(count: object.count))
                frames.append(Frame(container: object, order: []))
            }
        }

        /// For each key in order, the position of the key and of its value; and the keys' texts
        /// in that order.
        private mutating func sortedEntries(of dictionary: BinaryPropertyListObject) throws -> (
            order: [Int], keys: [String]
        ) {
            var keyIndices: [Int] = []
            keyIndices.reserveCapacity(dictionary.count)
            for position in 0..<dictionary.count {
                keyIndices.append(try scanner.reference(dictionary, at: position))
            }
            // The first dictionary's keys are read and ordered without the caches: a small
            // document (a BLOB of a database sweep) often has no other, and filling the
            // tables cost more than the rest of the walk.
            let caches = dictionariesSeen > 0
            dictionariesSeen += 1
            if caches, let known = orders[keyIndices] { return known }
            var texts: [String] = []
            texts.reserveCapacity(dictionary.count)
            // A few keys are compared with those before them; more go through a set (both by
            // `==`, as the dictionary reading gives compares keys).
            var known: Set<String> = []
            let comparesInPlace = dictionary.count <= 16
            for position in 0..<dictionary.count {
                let text =
                    caches
                    ? try key(keyIndices[position], position: position, of: dictionary)
                    : try scanner.key(keyIndices[position], position: position, of: dictionary)
                let repeated = comparesInPlace ? texts.contains(text) : !known.insert(text).inserted
                guard !repeated else {
                    throw KeyedArchiveError(
                        .unsupportedFormat,
                        "object \(dictionary.index): the key \"\(text)\" is given twice; "
                            + "its overwritten value is not checked without reading the whole value",
                        at: .byteOffset(dictionary.offset))
                }
                texts.append(text)
            }
            var order: [Int] = []
            order.reserveCapacity(2 * texts.count)
            var keys: [String] = []
            keys.reserveCapacity(texts.count)
            // By UTF-8 bytes, which order strings as their Unicode scalar values do.
            let positions =
                sortsKeys
                ? texts.indices.sorted(by: { texts[$0].utf8.lexicographicallyPrecedes(texts[$1].utf8) })
                : Array(texts.indices)
            for position in positions {
                order.append(position)
                order.append(position)
                keys.append(texts[position])
            }
            if caches { orders[keyIndices] = (order, keys) }
            return (order, keys)
        }

        /// The text of key object `index`, read once.
        private mutating func key(_ index: Int, position: Int, of dictionary: BinaryPropertyListObject) throws
            -> String
        {
            if let text = keyTexts[index] { return text }
            let text = try scanner.key(index, position: position, of: dictionary)
            keyTexts[index] = text
            return text
        }

        private mutating func spend(at object: BinaryPropertyListObject) throws {
            try BinaryPropertyListScanner.spend(&remaining, budget: maximumValues, at: object)
        }
    }
}
