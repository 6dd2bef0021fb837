import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a binary property list as an XML property list straight from its bytes.
///
/// The document is the one ``XMLPropertyListWriter`` writes, keys sorted, for the value
/// that reading the binary property list gives; no ``PropertyList`` is built. The keyed
/// archiver writes XML this way: its object table is a binary property list, and an
/// archive holds tens of thousands of small dictionaries whose values would each become
/// an allocation.
///
/// As reading does: sets are written as arrays, a dictionary key given twice (as equal
/// strings) keeps its first spelling and its last value, ASCII strings with bytes above
/// 0x7F are Latin-1, and a container that contains itself is refused. Dictionaries that
/// share their key objects (every object of one archived class) share their order, which
/// is computed once.
///
/// - Complexity: O(output size), plus a sort for each distinct list of keys.
package enum XMLPropertyListTranscoder {
    /// Writes `data`, a binary property list, as XML.
    ///
    /// - Parameters:
    ///   - data: A binary property list.
    ///   - maximumValues: The values (and dictionary keys) that may be written, counting a
    ///     shared object each time it is reached, so that a small file whose objects refer
    ///     many times to each other cannot expand without bound.
    /// - Returns: The XML property list.
    /// - Throws: `corruptData` for a malformed binary property list, naming the object and
    ///   its byte offset; `invalidValue` for a date too far from 2001 to write;
    ///   `limitExceeded` past `maximumValues`.
    package static func transcode(_ data: Data, maximumValues: Int = 1 << 30) throws -> Data {
        try data.withUnsafeBytes { bytes in
            let trailer = try BinaryPropertyListTrailer(validating: bytes)
            var writer = Writer(
                scanner: try BinaryPropertyListScanner(bytes: bytes, trailer: trailer),
                // XML takes about five times the bytes of the binary form.
                capacity: bytes.count * 6 + 4096, maximumValues: maximumValues)
            try writer.writeDocument(root: trailer.topObject)
            return writer.output.finish()
        }
    }

    /// Writes `data`, a binary property list, as XML to `output` in pieces of about
    /// ``XMLPropertyListEmitter/chunkSize`` bytes, refusing what reading it refuses: the
    /// tool's `-convert xml1` without the tree.
    ///
    /// The text is the one `PropertyList(from: data, options: readingOptions)` written with
    /// `write(format: .xml, options: PropertyListWritingOptions(maximumOutputBytes:))` gives,
    /// byte for byte. Every input that reading or that writing refuses is refused here too
    /// (the message may differ): the reader's nesting limit and value budget, counted as the
    /// reader counts them, and the writer's output bound, checked where the writer checks
    /// it. Sometimes more is refused: a dictionary that gives a key twice (its overwritten
    /// values would have to be read and checked without being written), so a caller that
    /// needs every input written falls back to the tree when this throws.
    ///
    /// - Throws: ``KeyedArchiveError`` as reading and writing do, and `unsupportedFormat`
    ///   for a key given twice; what `output` throws. What was handed to `output` before
    ///   stays handed over.
    package static func transcode(
        _ data: Data, readingOptions: PropertyListReadingOptions, maximumOutputBytes: Int,
        to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try withoutActuallyEscaping(output) { output in
            try data.withUnsafeBytes { bytes in
                let trailer = try BinaryPropertyListTrailer(validating: bytes)
                var writer = Writer(
                    scanner: try BinaryPropertyListScanner(bytes: bytes, trailer: trailer),
                    capacity: XMLPropertyListEmitter.chunkSize + 4096,
                    maximumValues: readingOptions.valueLimit(forInputLength: bytes.count))
                writer.maximumDepth = readingOptions.maximumDepth
                writer.maximumOutputBytes = maximumOutputBytes
                writer.destination = output
                writer.refusesDuplicateKeys = true
                writer.updateCheckpoint()
                try writer.writeDocument(root: trailer.topObject)
                try writer.output.drain(into: output)
            }
        }
    }

    /// The walk over the objects, with an explicit stack of open containers.
    private struct Writer: ~Copyable {
        /// An open `<array>` or `<dict>` and the next entry to write.
        struct Frame {
            let container: BinaryPropertyListObject
            /// Dictionaries: where the container's entry order starts, in the order cache's
            /// storage or (when `ordersOnStack`) in ``orders``.
            let orderBase: Int
            let ordersOnStack: Bool
            /// The entries to write (distinct keys for dictionaries).
            let count: Int
            var next = 0
        }

        struct VerbatimKey {
            var index = -1
            var payload = 0
            var count = 0
        }

        let scanner: BinaryPropertyListScanner
        var output: XMLOutputBuffer
        private var frames: [Frame] = []
        /// The entry orders of open dictionaries that the cache could not keep, stacked:
        /// for each entry, the position of its key and the position of its value.
        private var orders: [Int] = []
        private var orderCache = DictionaryOrderCache()
        /// Keys written verbatim (ASCII needing no escapes), by object index: archives
        /// write the same few keys thousands of times.
        private var verbatimKeys = [VerbatimKey](repeating: VerbatimKey(), count: 64)
        /// The open containers, to refuse one that contains itself.
        private var path: ObjectPath
        private let maximumValues: Int
        private var remaining: Int
        /// The reader's nesting limit (the root is level 1).
        var maximumDepth = Int.max
        /// The writer's output bound, checked before each value as the tree's writer checks it.
        var maximumOutputBytes = Int.max
        /// Where the text goes in pieces as it is made, or nil to keep all of it in ``output``.
        var destination: ((UnsafeRawBufferPointer) throws -> Void)?
        /// The bytes already handed to ``destination``.
        private var drainedCount = 0
        /// The length of ``output`` at which the next value drains it or checks the bound:
        /// one comparison a value, and `Int.max` (never) without a destination or a bound.
        private var checkpoint = Int.max
        /// Whether a dictionary that gives a key twice is refused rather than written.
        var refusesDuplicateKeys = false

        init(scanner: BinaryPropertyListScanner, capacity: Int, maximumValues: Int) {
            self.scanner = scanner
            output = XMLOutputBuffer(capacity: capacity)
            path = ObjectPath(objectCount: scanner.trailer.objectCount)
            self.maximumValues = maximumValues
            remaining = maximumValues
        }

        mutating func writeDocument(root: Int) throws {
            output.appendDocumentStart()
            try writeValue(root)
            while let last = frames.indices.last {
                let frame = frames[last]
                guard frame.next < frame.count else {
                    frames.removeLast()
                    path.remove(frame.container.index)
                    output.indent(last)
                    if frame.container.kind == .dictionary {
                        if frame.ordersOnStack { orders.removeLast(2 * frame.count) }
                        output.append("</dict>\n")
                    } else {
                        output.append("</array>\n")
                    }
                    continue
                }
                frames[last].next = frame.next + 1
                let child: Int
                if frame.container.kind == .dictionary {
                    let entry = frame.orderBase + 2 * frame.next
                    let keyPosition = frame.ordersOnStack ? orders[entry] : orderCache.orders[entry]
                    let valuePosition = frame.ordersOnStack ? orders[entry + 1] : orderCache.orders[entry + 1]
                    try writeKey(
                        try scanner.reference(frame.container, at: keyPosition), of: frame.container,
                        depth: last + 1)
                    child = try scanner.reference(frame.container, at: frame.container.count + valuePosition)
                } else {
                    child = try scanner.reference(frame.container, at: frame.next)
                }
                try writeValue(child)
            }
            output.append("</plist>\n")
        }

        /// Writes a scalar completely, or the opening line of a container and pushes its frame.
        private mutating func writeValue(_ index: Int) throws {
            let object = try object(index)
            try spend(at: object)
            if output.count >= checkpoint { try reachCheckpoint(at: object) }
            let depth = frames.count
            output.indent(depth)
            switch object.kind {
            case .asciiString, .utf16String:
                output.append("<string>")
                try writeText(object)
                output.append("</string>\n")
            case .integer:
                output.append("<integer>")
                output.appendInteger(scanner.integer(object))
                output.append("</integer>\n")
            case .real:
                output.append("<real>")
                if object.count == 4 {
                    let bits = UInt32(truncatingIfNeeded: scanner.unsigned(object.payload, width: 4))
                    output.appendReal(Double(Float(bitPattern: bits)))
                } else {
                    output.appendReal(Double(bitPattern: scanner.unsigned(object.payload, width: 8)))
                }
                output.append("</real>\n")
            case .boolean:
                output.append(object.marker == 0x09 ? "<true/>\n" : "<false/>\n")
            case .uid:
                output.append("<dict>\n")
                output.indent(depth + 1)
                output.append("<key>CF$UID</key>\n")
                output.indent(depth + 1)
                output.append("<integer>")
                output.appendDecimal(scanner.unsigned(object.payload, width: object.count))
                output.append("</integer>\n")
                output.indent(depth)
                output.append("</dict>\n")
            case .date:
                try writeDate(object)
            case .data:
                output.append("<data>\n")
                let lineIndentation = min(depth, 8)
                output.appendBase64Lines(
                    of: UnsafeRawBufferPointer(
                        rebasing: scanner.bytes[object.payload..<object.payload + object.count]),
                    charactersPerLine: 76 - 8 * lineIndentation, indentation: lineIndentation)
                output.indent(depth)
                output.append("</data>\n")
            case .array, .set:
                try checkDepth(object)
                guard object.count > 0 else {
                    output.append("<array/>\n")
                    return
                }
                output.append("<array>\n")
                try enter(object)
                frames.append(
                    Frame(container: object, orderBase: 0, ordersOnStack: false, count: object.count))
            case .dictionary:
                try checkDepth(object)
                guard object.count > 0 else {
                    output.append("<dict/>\n")
                    return
                }
                output.append("<dict>\n")
                try enter(object)
                frames.append(try dictionaryFrame(object))
            }
        }

        /// Sets ``checkpoint`` from the destination, the bound and what was drained.
        mutating func updateCheckpoint() {
            // The bound is passed once the output reaches one byte more than the room left.
            let (room, overflow) = (maximumOutputBytes - drainedCount).addingReportingOverflow(1)
            checkpoint = min(
                destination == nil ? .max : XMLPropertyListEmitter.chunkSize, overflow ? .max : room)
        }

        /// Drains the output into the destination once a piece is complete, and refuses a
        /// value that would start past the bound, where the tree's writer checks it.
        @inline(never)
        private mutating func reachCheckpoint(at object: BinaryPropertyListObject) throws {
            if output.count >= XMLPropertyListEmitter.chunkSize, let destination {
                drainedCount += output.count
                try output.drain(into: destination)
            }
            guard drainedCount + output.count <= maximumOutputBytes else {
                throw KeyedArchiveError(
                    .limitExceeded, "the XML would be longer than \(maximumOutputBytes) bytes",
                    at: .byteOffset(object.offset))
            }
            updateCheckpoint()
        }

        /// Object `index`: the common small objects (short ASCII strings, UIDs, 8-byte reals,
        /// short arrays and dictionaries) are decoded here, with the same bounds checks;
        /// anything else goes to the scanner, which also explains what is wrong.
        @inline(__always)
        private func object(_ index: Int) throws -> BinaryPropertyListObject {
            let trailer = scanner.trailer
            guard index >= 0, index < trailer.objectCount else { return try scanner.object(index) }
            let entry = trailer.offsetTableOffset + index * trailer.offsetIntSize
            let offset = Int(
                truncatingIfNeeded: scanner.unsignedBeforeTrailer(entry, width: trailer.offsetIntSize))
            guard offset >= 8, offset < scanner.objectsEnd else { return try scanner.object(index) }
            let marker = scanner.byte(offset)
            let low = Int(marker & 0x0F)
            // Bytes after the marker.
            let remaining = scanner.objectsEnd - offset - 1
            let kind: BinaryPropertyListKind
            let count: Int
            switch marker >> 4 {
            case 0x5 where low < 15 && low <= remaining:
                (kind, count) = (.asciiString, low)
            case 0x8 where low < 8 && low < remaining:
                (kind, count) = (.uid, low + 1)
            case 0x2 where low == 3 && remaining >= 8:
                (kind, count) = (.real, 8)
            case 0xA where low < 15 && low <= remaining / trailer.objectRefSize:
                (kind, count) = (.array, low)
            case 0xD where low < 15 && low <= remaining / (2 * trailer.objectRefSize):
                (kind, count) = (.dictionary, low)
            default:
                return try scanner.object(index)
            }
            return BinaryPropertyListObject(
                index: index, kind: kind, marker: marker, offset: offset, payload: offset + 1, count: count)
        }

        private mutating func writeKey(_ index: Int, of dictionary: BinaryPropertyListObject, depth: Int)
            throws
        {
            let known = verbatimKeys[index & (verbatimKeys.count - 1)]
            if known.index == index {
                try spend(at: dictionary)
                output.indent(depth)
                output.append("<key>")
                output.append(
                    UnsafeRawBufferPointer(
                        rebasing: scanner.bytes[known.payload..<known.payload + known.count]
                    )
                    .assumingMemoryBound(to: UInt8.self))
                output.append("</key>\n")
                return
            }
            let key = try object(index)
            guard key.kind == .asciiString || key.kind == .utf16String else {
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(dictionary.index): dictionary key is object \(index), \(key.kind.withArticle); "
                        + "keys must be strings",
                    at: .byteOffset(key.offset))
            }
            try spend(at: dictionary)
            output.indent(depth)
            output.append("<key>")
            let start = output.count
            try writeText(key)
            // Pure ASCII without escapes is the only text written at its own length.
            if key.kind == .asciiString, output.count - start == key.count {
                verbatimKeys[index & (verbatimKeys.count - 1)] = VerbatimKey(
                    index: index, payload: key.payload, count: key.count)
            }
            output.append("</key>\n")
        }

        /// Writes a string object's text, escaped.
        private mutating func writeText(_ object: BinaryPropertyListObject) throws {
            if object.kind == .asciiString {
                let bytes = UnsafeRawBufferPointer(
                    rebasing: scanner.bytes[object.payload..<object.payload + object.count]
                ).assumingMemoryBound(to: UInt8.self)
                if BinaryPropertyListScanner.isASCII(bytes) {
                    output.appendEscaped(bytes)
                    return
                }
            }
            output.appendEscaped(try scanner.string(object))
        }

        private mutating func writeDate(_ object: BinaryPropertyListObject) throws {
            let seconds = Double(bitPattern: scanner.unsigned(object.payload, width: 8))
            guard seconds.isFinite else {
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(object.index): date is \(seconds), not a finite number of seconds",
                    at: .byteOffset(object.offset))
            }
            guard abs(seconds) < ISO8601Date.formattableRange else {
                throw KeyedArchiveError(
                    .invalidValue,
                    "object \(object.index): the date \(seconds) seconds from 2001 cannot be written in XML",
                    at: .byteOffset(object.offset))
            }
            output.append("<date>")
            output.appendString(ISO8601Date.format(seconds))
            output.append("</date>\n")
        }

        @inline(__always)
        private mutating func spend(at object: BinaryPropertyListObject) throws {
            try BinaryPropertyListScanner.spend(&remaining, budget: maximumValues, at: object)
        }

        /// Refuses a container (empty ones too, as reading does) nested past ``maximumDepth``.
        @inline(__always)
        private func checkDepth(_ container: BinaryPropertyListObject) throws {
            guard frames.count < maximumDepth else { throw tooDeep(container) }
        }

        @inline(never)
        private func tooDeep(_ container: BinaryPropertyListObject) -> KeyedArchiveError {
            KeyedArchiveError(
                .limitExceeded,
                "object \(container.index): \(container.kind) nested deeper than the limit of \(maximumDepth) levels",
                at: .byteOffset(container.offset))
        }

        private mutating func enter(_ container: BinaryPropertyListObject) throws {
            if path.contains(container.index) {
                throw KeyedArchiveError(
                    .corruptData,
                    "object \(container.index): \(container.kind) contains itself "
                        + "(plist-level cycles are not allowed)",
                    at: .byteOffset(container.offset))
            }
            path.insert(container.index)
        }

        /// The frame of a non-empty dictionary, with its entries in key order: one per
        /// distinct key, with the position of its first spelling and of its last value.
        private mutating func dictionaryFrame(_ dictionary: BinaryPropertyListObject) throws -> Frame {
            let keyReferences = UnsafeRawBufferPointer(
                rebasing: scanner.bytes[
                    dictionary.payload..<dictionary.payload + dictionary.count * scanner.trailer.objectRefSize
                ])
            if let (start, count) = orderCache.order(forKeys: keyReferences) {
                return Frame(container: dictionary, orderBase: start, ordersOnStack: false, count: count)
            }
            let base = orders.count
            try appendSortedEntries(of: dictionary)
            let count = (orders.count - base) / 2
            if let start = orderCache.insert(forKeys: keyReferences, order: orders[base...]) {
                orders.removeLast(2 * count)
                return Frame(container: dictionary, orderBase: start, ordersOnStack: false, count: count)
            }
            return Frame(container: dictionary, orderBase: base, ordersOnStack: true, count: count)
        }

        private mutating func appendSortedEntries(of dictionary: BinaryPropertyListObject) throws {
            // Equal keys are found as reading finds them: by `String` equality.
            var texts: [String] = []
            var valuePositions: [Int] = []
            var firstPositions: [Int] = []
            var known: [String: Int] = [:]
            for position in 0..<dictionary.count {
                let keyIndex = try scanner.reference(dictionary, at: position)
                let text = try scanner.key(keyIndex, position: position, of: dictionary)
                let existing = dictionary.count <= 16 ? texts.firstIndex(of: text) : known[text]
                if let existing {
                    if refusesDuplicateKeys {
                        throw KeyedArchiveError(
                            .unsupportedFormat,
                            "object \(dictionary.index): the key \"\(text)\" is given twice; "
                                + "its overwritten value is not checked without reading the whole value",
                            at: .byteOffset(dictionary.offset))
                    }
                    valuePositions[existing] = position
                    continue
                }
                if dictionary.count > 16 { known[text] = texts.count }
                texts.append(text)
                firstPositions.append(position)
                valuePositions.append(position)
            }
            // Distinct keys never have the same bytes, so the order has no ties.
            for entry in texts.indices.sorted(by: { XMLPropertyListEmitter.precedes(texts[$0], texts[$1]) }) {
                orders.append(firstPositions[entry])
                orders.append(valuePositions[entry])
            }
        }
    }
}

/// The entry orders of dictionaries already written, by their key references (the raw
/// bytes of the reference list, so equal lists of key objects share one order).
///
/// Direct-mapped: a list replaces whatever shared its slot. Stored orders are never
/// removed (open dictionaries read them in place); past a fixed size nothing more is
/// stored, so memory stays bounded.
private struct DictionaryOrderCache {
    private struct Slot {
        var hash = 0
        var keyStart = 0
        var keyCount = 0
        var orderStart = 0
        var entryCount = 0
    }

    private static let slotCount = 256
    /// Past this many stored bytes or positions, nothing more is stored.
    private static let storageLimit = 1 << 16
    /// Only reference lists up to this length are kept.
    private static let maximumKeyBytes = 512

    private var slots = [Slot](repeating: Slot(), count: slotCount)
    private var keyBytes: [UInt8] = []
    /// Stored orders: for each entry, the position of its key and of its value.
    private(set) var orders: [Int] = []
    private let seed = ByteHash.randomSeed()

    /// Where the stored order for `keys` starts in ``orders``, and its entries.
    func order(forKeys keys: UnsafeRawBufferPointer) -> (start: Int, count: Int)? {
        guard keys.count <= Self.maximumKeyBytes else { return nil }
        let hash = ByteHash.hash(keys, seed: seed)
        let slot = slots[hash & (Self.slotCount - 1)]
        guard slot.hash == hash, slot.keyCount == keys.count else { return nil }
        let matches = keyBytes.withUnsafeBytes { stored in
            ByteHash.equal(
                UnsafeRawBufferPointer(rebasing: stored[slot.keyStart..<slot.keyStart + slot.keyCount]), keys)
        }
        return matches ? (slot.orderStart, slot.entryCount) : nil
    }

    /// Stores the order of the dictionary whose key references are `keys`, and returns
    /// where it starts in ``orders``; `nil` when it is not stored.
    mutating func insert(forKeys keys: UnsafeRawBufferPointer, order: ArraySlice<Int>) -> Int? {
        guard keys.count <= Self.maximumKeyBytes, keyBytes.count + keys.count <= Self.storageLimit,
            orders.count + order.count <= Self.storageLimit
        else { return nil }
        let hash = ByteHash.hash(keys, seed: seed)
        let start = orders.count
        slots[hash & (Self.slotCount - 1)] = Slot(
            hash: hash, keyStart: keyBytes.count, keyCount: keys.count, orderStart: start,
            entryCount: order.count / 2)
        keyBytes.append(contentsOf: keys)
        orders.append(contentsOf: order)
        return start
    }
}
