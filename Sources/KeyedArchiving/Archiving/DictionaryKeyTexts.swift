/// The key texts of the last few dictionaries looked up by text, each key as two words:
/// for the archives whose every object has key strings of its own, in an order of its
/// own (what `NSKeyedArchiver` on Linux writes), where remembering a key's string object
/// or position finds nothing.
///
/// The first key looked up in such a dictionary reads all its keys once; every later key
/// of the same object is then found by comparing two words per key, without reading the
/// file again. Only dictionaries of at most ``keyLimit`` keys, each a short ASCII string
/// (fewer than 15 bytes, as archives' keys are), are indexed; others are searched by
/// text as before. A short ASCII text is its two words exactly (its bytes, zero-padded,
/// and its length in the top byte), so equal words are equal texts; they are the words of
/// a short ASCII `String` with its flags masked off (see ``KeyIdentity/shortASCIIWords``),
/// so a key given as a literal is looked up without reading its text.
///
/// Owned by one ``BinaryArchiveSource`` (whose input the offsets refer to), which frees
/// it with ``deallocate()``.
struct DictionaryKeyTexts {
    /// The most keys of a dictionary indexed.
    static let keyLimit = 16
    /// The dictionaries remembered: an object's own and those of the objects it decodes
    /// in between (a date, an array).
    private static let dictionaryCount = 4
    /// Words per dictionary: two per key text and one per key reference.
    private static let stride = 3 * keyLimit

    /// For each dictionary: its byte offset (-1: none) and its key count (-1: it cannot
    /// be indexed).
    private let headers: UnsafeMutablePointer<(offset: Int, count: Int)>
    private let words: UnsafeMutablePointer<UInt64>
    private var next = 0

    init() {
        headers = .allocate(capacity: Self.dictionaryCount)
        headers.initialize(repeating: (-1, 0), count: Self.dictionaryCount)
        words = .allocate(capacity: Self.dictionaryCount * Self.stride)
        words.initialize(repeating: 0, count: Self.dictionaryCount * Self.stride)
    }

    func deallocate() {
        headers.deallocate()
        words.deallocate()
    }

    /// The two words of a short ASCII text, or `nil` for any other.
    @inline(__always)
    static func words(of text: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
        let count = text.count
        guard count < 15 else { return nil }
        return words(at: text.baseAddress, count: count, readable: count)
    }

    /// The two words of the short text of `count` bytes (fewer than 15) at `start`, of
    /// which `readable` bytes may be read (at least `count`): two loads when 16 are, a loop
    /// otherwise.
    @inline(__always)
    static func words(at start: UnsafeRawPointer?, count: Int, readable: Int) -> (UInt64, UInt64)? {
        guard let start else { return count == 0 ? (0, 0) : nil }
        guard count < 15 else { return nil }
        if readable >= 16 {
            return words(loadedAt: start, count: count)
        }
        let text = UnsafeRawBufferPointer(start: start, count: count)
        var low: UInt64 = 0
        var high = UInt64(count) << 56
        for index in 0..<count {
            let byte = UInt64(text[index])
            guard byte < 0x80 else { return nil }
            if index < 8 {
                low |= byte << UInt64(index * 8)
            } else {
                high |= byte << UInt64((index - 8) * 8)
            }
        }
        return (low, high)
    }

    /// ``words(at:count:readable:)`` where 16 bytes may be read at `start` and `count` is
    /// below 15: two loads, masked (shifts by less than 64 bits, so without the checks of
    /// a general shift).
    @inline(__always)
    private static func words(loadedAt start: UnsafeRawPointer, count: Int) -> (UInt64, UInt64)? {
        var low = UInt64(littleEndian: start.loadUnaligned(as: UInt64.self))
        var high = UInt64(littleEndian: start.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let bits = UInt64(truncatingIfNeeded: count &* 8)
        if count < 8 {
            low &= (1 &<< bits) &- 1
            high = 0
        } else {
            high &= (1 &<< (bits &- 64)) &- 1
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return (low, high | bits &<< 53)
    }

    /// ``position(of:in:scanner:)`` for a dictionary already indexed; `nil` for any other.
    @inline(__always)
    func indexedPosition(of key: (UInt64, UInt64), in dictionary: BinaryPropertyListObject)
        -> (position: Int, keyIndex: Int)??
    {
        var slot = 0
        while headers[slot].offset != dictionary.offset {
            slot += 1
            if slot == Self.dictionaryCount { return nil }
        }
        guard headers[slot].count >= 0 else { return nil }
        return find(key, in: slot)
    }

    @inline(__always)
    private func find(_ key: (UInt64, UInt64), in slot: Int) -> (position: Int, keyIndex: Int)?? {
        let base = words + slot * Self.stride
        var position = headers[slot].count
        while position > 0 {
            position -= 1
            if base[2 * position] == key.0, base[2 * position + 1] == key.1 {
                return .some((position, Int(truncatingIfNeeded: base[2 * Self.keyLimit + position])))
            }
        }
        return .some(nil)
    }

    /// The last position of `dictionary` whose key is the short ASCII text `key` (given
    /// as ``words(of:)``), and the object index of that key's string; `.some(nil)` when
    /// it has no such key, `nil` when the dictionary cannot be indexed (the caller then
    /// compares texts).
    mutating func position(
        of key: (UInt64, UInt64), in dictionary: BinaryPropertyListObject, scanner: BinaryPropertyListScanner
    ) throws -> (position: Int, keyIndex: Int)?? {
        guard dictionary.kind == .dictionary, dictionary.count <= Self.keyLimit else { return nil }
        var slot = 0
        while slot < Self.dictionaryCount, headers[slot].offset != dictionary.offset { slot += 1 }
        if slot == Self.dictionaryCount {
            slot = next
            next = (next + 1) % Self.dictionaryCount
            headers[slot] = (-1, 0)
            let indexed = try index(dictionary, into: words + slot * Self.stride, scanner: scanner)
            headers[slot] = (dictionary.offset, indexed ? dictionary.count : -1)
        }
        guard headers[slot].count >= 0 else { return nil }
        return find(key, in: slot)
    }

    /// Reads the key texts of `dictionary` into `base`; `false` if one is not a short
    /// ASCII string.
    private func index(
        _ dictionary: BinaryPropertyListObject, into base: UnsafeMutablePointer<UInt64>,
        scanner: BinaryPropertyListScanner
    ) throws -> Bool {
        guard let start = scanner.bytes.baseAddress else { return false }
        let readableEnd = scanner.bytes.count - 1
        for position in 0..<dictionary.count {
            let keyIndex = try scanner.reference(dictionary, at: position)
            let offset = try scanner.offset(of: keyIndex)
            let marker = scanner.byte(offset)
            let length = Int(marker & 0x0F)
            guard marker >> 4 == 0x5, length < 0x0F, length <= scanner.objectsEnd - offset - 1 else {
                return false
            }
            // Two loads unless fewer than 16 bytes follow the text's start (never in a
            // whole file, whose 32-byte trailer follows the objects).
            let readable = readableEnd - offset
            guard
                let (low, high) =
                    readable >= 16
                    ? Self.words(loadedAt: start + offset + 1, count: length)
                    : Self.words(at: start + offset + 1, count: length, readable: readable)
            else { return false }
            base[2 * position] = low
            base[2 * position + 1] = high
            base[2 * Self.keyLimit + position] = UInt64(keyIndex)
        }
        return true
    }
}
