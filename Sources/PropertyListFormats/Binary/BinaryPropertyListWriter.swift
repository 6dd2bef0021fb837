import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a ``PropertyList`` as a binary property list (`bplist00`).
///
/// Objects are numbered as Python's `plistlib` numbers them, which reproduces Cocoa's
/// output byte for byte: depth first, a container before its contents, a dictionary's
/// keys (sorted when ``PropertyListWritingOptions/sortsKeys``) before its values, equal
/// scalars stored once. The tree is walked iteratively, so any depth can be written.
package enum BinaryPropertyListWriter {
    /// Encodes `value`.
    ///
    /// With `sharesContainers`, an array or dictionary that appears in several places of
    /// `value` with the same storage (as the binary reader shares an object referenced
    /// more than once) is written once and referenced from each place, as the file it was
    /// read from had it; a 200-byte file describing a million values then stays 200 bytes
    /// instead of becoming a million objects. Off for `PropertyList.data(format:)`, whose
    /// bytes follow Cocoa's (which writes each place).
    ///
    /// - Throws: `invalidValue` for a NaN or infinite date.
    package static func write(
        _ value: PropertyList, options: PropertyListWritingOptions, sharesContainers: Bool = false
    ) throws -> Data {
        var builder = BinaryPropertyListBuilder()
        let top = try builder.add(value, sortsKeys: options.sortsKeys, sharesContainers: sharesContainers)
        return try builder.finish(topObject: top)
    }
}

extension BinaryPropertyListBuilder {
    /// One container whose contents are being added.
    private struct Frame {
        let object: Int
        /// Arrays: the elements; dictionaries: the values.
        let children: [PropertyList]
        /// Order in which to visit `children`; empty means as they are.
        let order: [Int]
        /// Where this container's references start in the shared reference stack.
        let referenceBase: Int
        let isDictionary: Bool
        var next = 0
    }

    /// Adds `value` and everything it contains, in `plistlib`'s order.
    ///
    /// - Parameters:
    ///   - value: The value to add.
    ///   - sortsKeys: Whether dictionary keys are visited in sorted order (by Unicode
    ///     scalar values, which is UTF-8 byte order).
    ///   - sharesContainers: Whether a container met again (the same storage) is referenced
    ///     where it was added, not added again (see ``BinaryPropertyListWriter``).
    /// - Returns: The object number of `value`.
    /// - Throws: `invalidValue` for a NaN or infinite date.
    mutating func add(_ value: PropertyList, sortsKeys: Bool, sharesContainers: Bool = false) throws -> Int {
        if let scalar = try addScalar(value) { return scalar }
        // Containers added, by storage (valid while `value`, which holds them all, is alive).
        var added: [StorageIdentity: Int] = [:]
        let root = reserveObject()
        var pending: [Int] = []  // references of the open containers, innermost last
        // Room for a small document's open containers at once: growing from empty was five
        // reallocations a small document (3% of writing one, callgrind).
        pending.reserveCapacity(64)
        // The innermost open container is kept out of `parents` so that walking it touches
        // no array of frames.
        guard var current = open(value, as: root, sortsKeys: sortsKeys, pending: &pending) else {
            return root
        }
        var parents: [Frame] = []
        parents.reserveCapacity(8)
        while true {
            let next = current.next
            if next < current.children.count {
                current.next = next + 1
                let child = current.children[current.order.isEmpty ? next : current.order[next]]
                if let scalar = try addScalar(child) {
                    pending.append(scalar)
                } else {
                    // A container is complete before anything after it is reached (a value
                    // cannot contain itself), so one met again can be referenced at once.
                    let identity = sharesContainers ? StorageIdentity(child) : nil
                    if let identity, let object = added[identity] {
                        pending.append(object)
                        continue
                    }
                    let object = reserveObject()
                    if let identity { added[identity] = object }
                    pending.append(object)
                    if let frame = open(child, as: object, sortsKeys: sortsKeys, pending: &pending) {
                        parents.append(current)
                        current = frame
                    }
                }
            } else {
                let base = current.referenceBase
                if current.isDictionary {
                    let split = base + current.children.count
                    try setDictionary(current.object, keys: pending[base..<split], values: pending[split...])
                } else {
                    try setArray(current.object, elements: pending[base...])
                }
                // No slice of `pending` is alive here, so this shortens it in place.
                pending.removeLast(pending.count - base)
                guard let parent = parents.popLast() else { return root }
                current = parent
            }
        }
    }

    /// One container of a binary property list whose contents are being copied.
    private struct CopyFrame {
        let object: Int
        let source: BinaryPropertyListObject
        /// Dictionaries: the positions of the entries in writing order; empty means as they are.
        let order: [Int]
        let referenceBase: Int
        var next = 0

        var isDictionary: Bool { source.kind == .dictionary }
        /// Elements or entries.
        var count: Int { source.count }
    }

    /// What copying remembers of the key objects of the file read: archives use the same
    /// few keys in thousands of dictionaries. One slot per object of that file.
    private struct CopiedKeys {
        /// The text of each key object read so far.
        var texts: [String?]
        /// The number each key object was added as, plus one (0: not yet added). Equal
        /// strings are stored once, so a key's number never changes once added.
        var numbers: [UInt32]
        /// Whether each key object read so far is not ASCII.
        var isNonASCII: [Bool]
        /// Whether any is: until one is, no dictionary needs looking at.
        var hasNonASCII = false

        init(objectCount: Int) {
            texts = Array(repeating: nil, count: objectCount)
            numbers = Array(repeating: 0, count: objectCount)
            isNonASCII = Array(repeating: false, count: objectCount)
        }
    }

    /// Adds the value of object `root` of a binary property list, read through `scanner`,
    /// as ``add(_:sortsKeys:)`` adds the value reading the file gives: the same objects,
    /// numbered and written the same way, without building the value. Sets are arrays, as
    /// reading gives them.
    ///
    /// The `-convert binary1` of an XML file rewrites the XML's one-pass binary form this
    /// way, so that its bytes are the tree's.
    ///
    /// - Throws: ``KeyedArchiveError`` for a malformed object, a key that is not a string or
    ///   is given twice (reading keeps the last value where the first was; a caller that
    ///   needs that goes the tree's way), nesting deeper than `maximumDepth`, a container
    ///   that contains itself, or more than `maximumValues` values (shared objects counted
    ///   each time they are reached; with `countsKeys`, each dictionary key too, as the binary
    ///   reader counts them).
    /// - Complexity: O(values), plus a sort of each dictionary's keys that are not in order.
    mutating func add(
        copying root: Int, from scanner: BinaryPropertyListScanner, sortsKeys: Bool, maximumDepth: Int,
        maximumValues: Int, countsKeys: Bool = false
    ) throws -> Int {
        var remaining = maximumValues
        func reach(_ index: Int) throws -> BinaryPropertyListObject {
            let object = try scanner.object(index)
            remaining -= 1
            guard remaining >= 0 else {
                throw KeyedArchiveError(
                    .limitExceeded,
                    "object \(index): the property list expands to more than \(maximumValues) values",
                    at: .byteOffset(object.offset))
            }
            return object
        }
        /// The keys of a container reached, when they count.
        func reachKeys(_ container: BinaryPropertyListObject) throws {
            guard countsKeys, container.kind == .dictionary else { return }
            remaining -= container.count
            guard remaining >= 0 else {
                throw KeyedArchiveError(
                    .limitExceeded,
                    "object \(container.index): the property list expands to more than \(maximumValues) values",
                    at: .byteOffset(container.offset))
            }
        }
        let rootObject = try reach(root)
        guard rootObject.kind.isContainer else { return try addCopiedScalar(rootObject, from: scanner) }
        try reachKeys(rootObject)
        guard maximumDepth >= 1 else {
            throw KeyedArchiveError(
                .limitExceeded,
                "object \(rootObject.index): \(rootObject.kind) nested deeper than the limit of \(maximumDepth) levels",
                at: .byteOffset(rootObject.offset))
        }
        var keys = CopiedKeys(objectCount: scanner.trailer.objectCount)
        var path = ObjectPath(objectCount: scanner.trailer.objectCount)
        var pending: [Int] = []
        var parents: [CopyFrame] = []
        let rootNumber = reserveObject()
        path.insert(rootObject.index)
        var current = try openCopy(
            rootObject, as: rootNumber, from: scanner, sortsKeys: sortsKeys, keys: &keys, pending: &pending)
        while true {
            let next = current.next
            if next < current.count {
                current.next = next + 1
                let position = current.order.isEmpty ? next : current.order[next]
                let child = try reach(
                    try scanner.reference(
                        current.source, at: current.isDictionary ? current.source.count + position : position)
                )
                guard child.kind.isContainer else {
                    pending.append(try addCopiedScalar(child, from: scanner))
                    continue
                }
                try reachKeys(child)
                guard parents.count + 1 < maximumDepth else {
                    throw KeyedArchiveError(
                        .limitExceeded,
                        "object \(child.index): \(child.kind) nested deeper than the limit of \(maximumDepth) levels",
                        at: .byteOffset(child.offset))
                }
                guard !path.contains(child.index) else {
                    throw KeyedArchiveError(
                        .corruptData, "object \(child.index): \(child.kind) contains itself",
                        at: .byteOffset(child.offset))
                }
                path.insert(child.index)
                let object = reserveObject()
                pending.append(object)
                parents.append(current)
                current = try openCopy(
                    child, as: object, from: scanner, sortsKeys: sortsKeys, keys: &keys, pending: &pending)
            } else {
                let base = current.referenceBase
                if current.isDictionary {
                    let split = base + current.count
                    try setDictionary(current.object, keys: pending[base..<split], values: pending[split...])
                } else {
                    try setArray(current.object, elements: pending[base...])
                }
                pending.removeLast(pending.count - base)
                path.remove(current.source.index)
                guard let parent = parents.popLast() else { return rootNumber }
                current = parent
            }
        }
    }

    /// Adds a scalar object of the file read as ``addScalar(_:)`` adds the value reading
    /// gives: an ASCII string straight from its bytes (the payload ``addString(_:)`` would
    /// store), anything else through its value.
    private mutating func addCopiedScalar(
        _ object: BinaryPropertyListObject, from scanner: BinaryPropertyListScanner
    ) throws -> Int {
        if object.kind == .asciiString {
            let bytes = UnsafeRawBufferPointer(
                rebasing: scanner.bytes[object.payload..<object.payload + object.count])
            if BinaryPropertyListScanner.isASCII(bytes.bindMemory(to: UInt8.self)) {
                return addASCIIString(bytes)
            }
        }
        return try addScalar(try scanner.scalar(object)) ?? 0
    }

    /// Starts copying a container: a dictionary's keys are added at once, in writing
    /// order, as ``open(_:as:sortsKeys:pending:)`` adds them.
    private mutating func openCopy(
        _ container: BinaryPropertyListObject, as object: Int, from scanner: BinaryPropertyListScanner,
        sortsKeys: Bool, keys: inout CopiedKeys, pending: inout [Int]
    ) throws -> CopyFrame {
        let base = pending.count
        guard container.kind == .dictionary, container.count > 0 else {
            return CopyFrame(object: object, source: container, order: [], referenceBase: base)
        }
        let count = container.count
        var indices: [Int] = []
        indices.reserveCapacity(count)
        var texts: [String] = []
        texts.reserveCapacity(count)
        for position in 0..<count {
            let keyIndex = try scanner.reference(container, at: position)
            indices.append(keyIndex)
            if let text = keys.texts[keyIndex] {
                texts.append(text)
            } else {
                let text = try scanner.key(keyIndex, position: position, of: container)
                keys.texts[keyIndex] = text
                if text.utf8.contains(where: { $0 >= 0x80 }) {
                    keys.isNonASCII[keyIndex] = true
                    keys.hasNonASCII = true
                }
                texts.append(text)
            }
        }
        if keys.hasNonASCII, indices.contains(where: { keys.isNonASCII[$0] }) {
            // Canonically equivalent keys (`"e\u{301}"`, `"\u{E9}"`, `"\u{212A}"` and `"K"`)
            // are one key to reading, whatever their bytes and wherever they sort.
            var seen = Set<String>(minimumCapacity: count)
            for text in texts where !seen.insert(text).inserted {
                throw Self.keyGivenTwice(text, in: container)
            }
        }
        // Keys in strictly increasing order are sorted and distinct; others are sorted
        // (when asked) and then checked for neighbours that are equal.
        var order: [Int] = []
        if !Self.isSorted(texts) {
            if sortsKeys {
                order = texts.indices.sorted { Self.precedes(texts[$0], texts[$1]) }
                for step in order.indices.dropFirst() where texts[order[step - 1]] == texts[order[step]] {
                    throw Self.keyGivenTwice(texts[order[step]], in: container)
                }
            } else {
                var seen = Set<String>(minimumCapacity: count)
                for text in texts where !seen.insert(text).inserted {
                    throw Self.keyGivenTwice(text, in: container)
                }
            }
        }
        for step in 0..<count {
            let position = order.isEmpty ? step : order[step]
            let keyIndex = indices[position]
            let known = keys.numbers[keyIndex]
            if known != 0 {
                pending.append(Int(known) - 1)
            } else {
                let number = addString(texts[position])
                keys.numbers[keyIndex] = UInt32(truncatingIfNeeded: number + 1)
                pending.append(number)
            }
        }
        return CopyFrame(object: object, source: container, order: order, referenceBase: base)
    }

    private static func keyGivenTwice(_ key: String, in dictionary: BinaryPropertyListObject)
        -> KeyedArchiveError
    {
        KeyedArchiveError(
            .unsupportedFormat, "object \(dictionary.index): the key \"\(key)\" is given twice",
            at: .byteOffset(dictionary.offset))
    }

    /// Adds a scalar and returns its number, or returns `nil` for a container.
    private mutating func addScalar(_ value: PropertyList) throws -> Int? {
        switch value {
        case .string(let string): return addString(string)
        case .integer(let integer): return addInteger(integer)
        case .real(let real): return addReal(real)
        case .bool(let bool): return addBool(bool)
        case .date(let date): return try addDate(date)
        case .data(let data): return addData(data)
        case .uid(let uid): return addUID(uid)
        case .array, .dictionary: return nil
        }
    }

    /// Starts a container: a dictionary's keys are added at once, as plistlib does.
    private mutating func open(
        _ container: PropertyList, as object: Int, sortsKeys: Bool, pending: inout [Int]
    ) -> Frame? {
        switch container {
        case .array(let elements):
            return Frame(
                object: object, children: elements, order: [], referenceBase: pending.count,
                isDictionary: false)
        case .dictionary(let dictionary):
            let keys = dictionary.keys
            let order = sortsKeys ? KeyOrder.sortedPositions(keys) : []
            let base = pending.count
            if order.isEmpty {
                for key in keys { pending.append(addString(key)) }
            } else {
                for index in order { pending.append(addString(keys[index])) }
            }
            return Frame(
                object: object, children: dictionary.values, order: order, referenceBase: base,
                isDictionary: true)
        default:
            return nil
        }
    }

    /// Orders strings by Unicode scalar values (UTF-8 byte order), as plistlib and Cocoa
    /// sort keys; `String.<` would compare canonical equivalents instead.
    static func precedes(_ first: String, _ second: String) -> Bool {
        KeyOrder.precedes(first, second)
    }

    private static func isSorted(_ keys: [String]) -> Bool {
        var previous: String?
        for key in keys {
            if let previous, !precedes(previous, key) { return false }
            previous = key
        }
        return true
    }
}
