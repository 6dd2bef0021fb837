/// The key → position index of a ``PropertyListDictionary`` past its linear-search size:
/// an open-addressing table of positions into the dictionary's `keys` array (which it
/// does not hold), hashed with ``ByteHash`` over the keys' UTF-8 bytes.
///
/// `[String: Int]` hashes every key with SipHash and stores a copy of it; a reader builds
/// one such index for every dictionary of more than eight entries it reads, which was a
/// sixth of the time of reading a small document. Here building is a fast hash and a
/// 4-byte store per key. The seed is random per process, so colliding keys cannot be
/// prepared in advance, and the table is at most half full, so probes stay short.
struct KeyPositionTable: Sendable {
    /// For each slot, the key's position plus one in the low 32 bits (0 for an empty
    /// slot) and the high 32 bits of its hash above, compared before any key is.
    private var slots: [UInt64] = []
    /// The number of positions stored.
    private(set) var count = 0

    /// Drawn once per process.
    private static let seed = ByteHash.randomSeed()

    init() {}

    /// Whether the table holds no position.
    var isEmpty: Bool { count == 0 }

    @inline(__always)
    static func hash(_ key: String) -> Int {
        var key = key
        return key.withUTF8 { ByteHash.hash(UnsafeRawBufferPointer($0), seed: seed) }
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
        let hash = Self.hash(key)
        let tag = Self.tag(hash)
        let (slot, found) = LinearProbing.probe(
            hash: hash, capacity: slots.count, isEmpty: { slots[$0] == 0 },
            matches: { slots[$0] & 0xFFFF_FFFF_0000_0000 == tag && keys[Self.position(slots[$0])] == key })
        return found ? Self.position(slots[slot]) : nil
    }

    /// Stores `position` for `key` (which is `keys[position]`), or returns the position
    /// already stored for an equal key, leaving the table as it was.
    @discardableResult
    mutating func insert(_ position: Int, forKey key: String, in keys: [String]) -> Int? {
        if LinearProbing.needsGrowth(count: count, capacity: slots.count) {
            grow(to: LinearProbing.grownCapacity(from: slots.count, minimum: 32), keys: keys)
        }
        let hash = Self.hash(key)
        let tag = Self.tag(hash)
        let (slot, found) = LinearProbing.probe(
            hash: hash, capacity: slots.count, isEmpty: { slots[$0] == 0 },
            matches: { slots[$0] & 0xFFFF_FFFF_0000_0000 == tag && keys[Self.position(slots[$0])] == key })
        if found { return Self.position(slots[slot]) }
        slots[slot] = tag | UInt64(truncatingIfNeeded: position + 1) & 0xFFFF_FFFF
        count += 1
        return nil
    }

    /// A table of the first `count` of `keys`, with room for `capacity` entries: `nil`
    /// if two of them are equal.
    static func distinct(_ keys: [String], count: Int, capacity: Int) -> KeyPositionTable? {
        var table = KeyPositionTable()
        table.reserve(capacity)
        for index in 0..<count where table.insert(index, forKey: keys[index], in: keys) != nil {
            return nil
        }
        return table
    }

    /// Makes room for `capacity` entries without growing.
    mutating func reserve(_ capacity: Int) {
        var slotCount = 32
        while LinearProbing.needsGrowth(count: capacity - 1, capacity: slotCount) { slotCount *= 2 }
        if slotCount > slots.count, count == 0 { grow(to: slotCount, keys: nil) }
    }

    /// Rehashes into `capacity` slots; `keys` is `nil` only when the table is empty.
    private mutating func grow(to capacity: Int, keys: [String]?) {
        var grown = [UInt64](repeating: 0, count: capacity)
        if keys != nil {
            for stored in slots where stored != 0 {
                // The home slot comes from the low bits of the hash, which the tag lacks:
                // rehash the key.
                guard let keys, Self.position(stored) < keys.count else { continue }
                let slot = LinearProbing.emptySlot(
                    hash: Self.hash(keys[Self.position(stored)]), capacity: capacity,
                    isEmpty: { grown[$0] == 0 })
                grown[slot] = stored
            }
        }
        slots = grown
    }

    /// Empties the table, keeping its slots.
    mutating func removeAll() {
        for index in slots.indices { slots[index] = 0 }
        count = 0
    }
}
