import KeyedArchiveSupport

/// The key → position index of a ``PropertyListDictionary`` past its linear-search size:
/// an open-addressing table of positions into the dictionary's `keys` array (which it
/// does not hold), hashed with ``ByteHash`` over the keys' UTF-8 bytes (`hashPadded`, which
/// takes a small ASCII string's bytes straight from its two words).
///
/// `[String: Int]` hashes every key with SipHash and stores a copy of it; a reader builds
/// one such index for every dictionary of more than eight entries it reads, which was a
/// sixth of the time of reading a small document. Here building is a fast hash and a
/// 4-byte store per key. The seed is random per process, so colliding keys cannot be
/// prepared in advance, and the table is at most half full, so probes stay short.
///
/// Keys are `String`s, equal when canonically equivalent (`"é"` and `"e\u{301}"`), which
/// their bytes do not show in general: only keys for which they do are hashed by their
/// bytes, ASCII keys and those made of normalization-stable scalars
/// (``NormalizationStableText``: two such keys are equal exactly when their bytes are).
/// Once another key is stored, the table rehashes every key with `String`'s own hash, which
/// is consistent with its equality (and normalizes every non-ASCII key it hashes, the reason
/// for the byte hashes); until then, another key is looked for by comparing it with every
/// key (it may equal a stored one, as U+212A KELVIN SIGN equals `K`, or `"e\u{301}"` `"é"`).
struct KeyPositionTable: Sendable {
    /// For each slot, the key's position plus one in the low 32 bits (0 for an empty
    /// slot) and the high 32 bits of its hash above, compared before any key is; then
    /// one more word, the header: the number of positions stored, and in its top bit
    /// whether keys are hashed with `String`'s own hash. One array and nothing else, so
    /// that a ``PropertyListDictionary`` (and so a ``PropertyList``) stays three words.
    private var slots: [UInt64] = []

    /// The number of slots.
    private var capacity: Int { Swift.max(0, slots.count - 1) }

    private static let textFlag: UInt64 = 1 << 63

    /// The number of positions stored.
    private(set) var count: Int {
        get { slots.isEmpty ? 0 : Int(truncatingIfNeeded: slots[slots.count - 1] & ~Self.textFlag) }
        set {
            guard !slots.isEmpty else { return }
            let flag = slots[slots.count - 1] & Self.textFlag
            slots[slots.count - 1] = flag | UInt64(truncatingIfNeeded: newValue)
        }
    }

    /// Whether keys are hashed with `String`'s own hash (a key whose bytes do not decide its
    /// equality was stored), not by their bytes.
    private var hashesText: Bool {
        get { !slots.isEmpty && slots[slots.count - 1] & Self.textFlag != 0 }
        set {
            guard !slots.isEmpty else { return }
            let stored = slots[slots.count - 1] & ~Self.textFlag
            slots[slots.count - 1] = stored | (newValue ? Self.textFlag : 0)
        }
    }

    /// Drawn once per process.
    private static let seed = ByteHash.randomSeed()

    init() {}

    /// Whether the table holds no position.
    var isEmpty: Bool { count == 0 }

    /// The hash of a key's bytes, or `nil` for a key whose bytes do not decide its
    /// equality (neither ASCII nor normalization-stable).
    @inline(__always)
    private static func byteHash(_ key: String) -> Int? {
        // A small ASCII string (most keys) from its two words, which hold its bytes in order
        // and then its length: the same hash as of its bytes, so a key stored otherwise (a
        // short string in allocated storage) finds it.
        if KnownASCII.readsSmallWords, let words = KnownASCII.smallWords(key) {
            let (first, second) = words
            return ByteHash.hashPadded(
                first: first, second: second & 0x00FF_FFFF_FFFF_FFFF, count: KnownASCII.smallCount(second),
                seed: seed)
        }
        // In place where the bytes are contiguous (native and small strings), without the
        // copy and reference counting of `withUTF8`.
        let inPlace = key.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            hashesByBytes(bytes) ? ByteHash.hashPadded(UnsafeRawBufferPointer(bytes), seed: seed) : nil
        }
        if let inPlace { return inPlace }
        var key = key
        return key.withUTF8 {
            hashesByBytes($0) ? ByteHash.hashPadded(UnsafeRawBufferPointer($0), seed: seed) : nil
        }
    }

    /// Whether a key's bytes decide its equality: ASCII (checked inline, the usual case),
    /// else normalization-stable.
    @inline(__always)
    private static func hashesByBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        BinaryPropertyListScanner.isASCII(bytes) || NormalizationStableText.kind(of: bytes) != .other
    }

    /// The key's hash in this table's way, or `nil` for a key whose bytes do not decide
    /// its equality while keys are hashed by their bytes.
    @inline(__always)
    private func hash(_ key: String) -> Int? {
        hashesText ? key.hashValue : Self.byteHash(key)
    }

    @inline(__always)
    private static func tag(_ hash: Int) -> UInt64 {
        UInt64(truncatingIfNeeded: hash) & 0xFFFF_FFFF_0000_0000
    }

    @inline(__always)
    private static func position(_ slot: UInt64) -> Int { Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1 }

    /// The position of `key` among `keys`, or `nil`.
    @inline(__always)
    func position(of key: String, in keys: [String]) -> Int? {
        guard count > 0 else { return nil }
        guard let hash = hash(key) else { return keys.firstIndex(of: key) }
        let tag = Self.tag(hash)
        let (slot, found) = LinearProbing.probe(
            hash: hash, capacity: capacity, isEmpty: { slots[$0] == 0 },
            matches: { slots[$0] & 0xFFFF_FFFF_0000_0000 == tag && keys[Self.position(slots[$0])] == key })
        return found ? Self.position(slots[slot]) : nil
    }

    /// Stores `position` for `key` (which is `keys[position]`), or returns the position
    /// already stored for an equal key, leaving the table as it was.
    @discardableResult
    mutating func insert(_ position: Int, forKey key: String, in keys: [String]) -> Int? {
        if LinearProbing.needsGrowth(count: count, capacity: capacity) {
            grow(to: LinearProbing.grownCapacity(from: capacity, minimum: 32), keys: keys)
        }
        var keyHash = hash(key)
        if keyHash == nil {
            // The first key whose bytes do not decide its equality: from now on every key
            // is hashed as a String.
            hashesText = true
            grow(to: capacity, keys: keys)
            keyHash = key.hashValue
        }
        let hash = keyHash ?? 0
        let tag = Self.tag(hash)
        let (slot, found) = LinearProbing.probe(
            hash: hash, capacity: capacity, isEmpty: { slots[$0] == 0 },
            matches: { slots[$0] & 0xFFFF_FFFF_0000_0000 == tag && keys[Self.position(slots[$0])] == key })
        if found { return Self.position(slots[slot]) }
        slots[slot] = tag | UInt64(truncatingIfNeeded: position + 1) & 0xFFFF_FFFF
        count += 1
        return nil
    }

    /// A table of the first `count` of `keys`, with room for `capacity` entries: `nil`
    /// if two of them are equal.
    ///
    /// The readers build one for every dictionary of more than eight entries; with ASCII
    /// keys (the usual case) it is one allocation and one pass over unchecked storage, less
    /// than half the instructions of inserting the keys one by one (callgrind, a small
    /// document's dictionary of 14 keys).
    static func distinct(_ keys: [String], count: Int, capacity: Int) -> KeyPositionTable? {
        let count = Swift.min(count, keys.count)
        var slotCount = 32
        while LinearProbing.needsGrowth(count: Swift.max(capacity, count) - 1, capacity: slotCount) {
            slotCount *= 2
        }
        var built: [UInt64] = LinearProbing.emptySlots(slotCount + 1)
        let outcome = built.withUnsafeMutableBufferPointer { slots in
            keys.withUnsafeBufferPointer { keys in
                fillDistinct(slots, slotCount: slotCount, keys: keys, count: count)
            }
        }
        switch outcome {
        case .filled:
            built[slotCount] = UInt64(truncatingIfNeeded: count)
            var table = KeyPositionTable()
            table.slots = built
            return table
        case .repeated:
            return nil
        case .notByBytes:
            // Hashed as Strings from the first key whose bytes do not decide its equality
            // on: the general way.
            var table = KeyPositionTable()
            table.reserve(capacity)
            for index in 0..<count where table.insert(index, forKey: keys[index], in: keys) != nil {
                return nil
            }
            return table
        }
    }

    private enum FillOutcome {
        case filled
        case repeated
        case notByBytes
    }

    /// Stores the positions of the first `count` keys by their byte hashes into `slots`
    /// (all empty, `slotCount` of them plus the header), stopping at a repeated key or at
    /// one whose bytes do not decide its equality.
    private static func fillDistinct(
        _ slots: UnsafeMutableBufferPointer<UInt64>, slotCount: Int, keys: UnsafeBufferPointer<String>,
        count: Int
    ) -> FillOutcome {
        let mask = slotCount - 1
        for index in 0..<count {
            guard let hash = byteHash(keys[index]) else { return .notByBytes }
            let tag = Self.tag(hash)
            var slot = hash & mask
            while true {
                let stored = slots[slot]
                if stored == 0 { break }
                if stored & 0xFFFF_FFFF_0000_0000 == tag, keys[Self.position(stored)] == keys[index] {
                    return .repeated
                }
                slot = (slot &+ 1) & mask
            }
            slots[slot] = tag | UInt64(truncatingIfNeeded: index + 1)
        }
        return .filled
    }

    /// Makes room for `capacity` entries without growing.
    mutating func reserve(_ capacity: Int) {
        var slotCount = 32
        while LinearProbing.needsGrowth(count: capacity - 1, capacity: slotCount) { slotCount *= 2 }
        if slotCount > capacity, count == 0 { grow(to: slotCount, keys: nil) }
    }

    /// Rehashes into `capacity` slots; `keys` is `nil` only when the table is empty.
    private mutating func grow(to capacity: Int, keys: [String]?) {
        var grown: [UInt64] = LinearProbing.emptySlots(capacity + 1)
        grown[capacity] = slots.last ?? 0  // the header
        if keys != nil {
            for stored in slots.dropLast() where stored != 0 {
                // The home slot comes from the low bits of the hash, which the tag lacks,
                // and the way of hashing may have changed: rehash the key.
                guard let keys, Self.position(stored) < keys.count else { continue }
                let key = keys[Self.position(stored)]
                let hash = hash(key) ?? key.hashValue
                let slot = LinearProbing.emptySlot(
                    hash: hash, capacity: capacity, isEmpty: { grown[$0] == 0 })
                grown[slot] = Self.tag(hash) | stored & 0xFFFF_FFFF
            }
        }
        slots = grown
    }

    /// Empties the table, keeping its slots.
    mutating func removeAll() {
        for index in 0..<capacity { slots[index] = 0 }
        count = 0
    }
}
