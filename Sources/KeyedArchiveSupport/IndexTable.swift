/// A hash table from object indices (non-negative integers) to values, for the
/// unarchiver's per-object caches, which are consulted for every object decoded.
///
/// `Dictionary` hashes an `Int` with SipHash; here a lookup is a multiply, a shift and
/// usually one comparison (open addressing, linear probing). Values are stored densely
/// in insertion order, so growing the table rehashes integers only.
///
/// Memory grows with the entries stored (at most half the slots are used), not with the
/// archive's object count, so decoding a few objects of a large archive stays cheap. When
/// the keys are known to lie below a limit (the object count) and entries reach a
/// sixteenth of it, as when a whole archive is decoded, the table switches to direct
/// indexing: one 4-byte position per possible key, no hashing or probing. Below 512
/// possible keys it indexes directly from the first insertion.
@usableFromInline package struct IndexTable<Value> {
    /// For each slot, the position in `entries` plus one, or 0 for an empty slot.
    @usableFromInline var slots: [Int32] = []
    /// The key of each entry, while the table hashes (dropped once it indexes directly).
    @usableFromInline var keys: [Int] = []
    @usableFromInline var entries: [Value] = []
    /// log2 of the slot count (0 when nothing is allocated).
    @usableFromInline var bits = 0
    /// Direct indexing, once switched to: the position of key `k` plus one at `dense[k]`.
    @usableFromInline var dense: [Int32] = []
    /// Keys lie in `0..<keyLimit`; 0 when unknown (the table then never indexes directly).
    @usableFromInline let keyLimit: Int

    /// A table whose keys lie in `0..<keyLimit` (0: unknown).
    @inlinable package init(keysBelow keyLimit: Int = 0) {
        self.keyLimit = max(0, keyLimit)
    }

    @inlinable package var count: Int { entries.count }

    @inlinable static var smallKeyLimit: Int { 512 }

    @inline(__always)
    @inlinable func home(_ key: Int) -> Int {
        Int(
            truncatingIfNeeded: (UInt64(truncatingIfNeeded: key) &* 0x9E37_79B9_7F4A_7C15)
                >> UInt64(64 - bits))
    }

    /// The position in `entries` of `key`'s value, or `nil`.
    @inline(__always)
    @inlinable func position(of key: Int) -> Int? {
        if !dense.isEmpty {
            guard key >= 0, key < dense.count else { return nil }
            let stored = Int(dense[key])
            return stored == 0 ? nil : stored - 1
        }
        guard !entries.isEmpty else { return nil }
        let (slot, found) = LinearProbing.probe(
            hash: home(key), capacity: slots.count, isEmpty: { slots[$0] == 0 },
            matches: { keys[Int(slots[$0]) - 1] == key })
        return found ? Int(slots[slot]) - 1 : nil
    }

    /// Whether `key` has a value: cheaper than the subscript when the answer is usually
    /// no, as it copies no value.
    @inline(__always)
    @inlinable package func contains(_ key: Int) -> Bool {
        position(of: key) != nil
    }

    /// The value for `key`; setting `nil` is not supported (and ignored): the callers
    /// only add and replace.
    @inlinable package subscript(key: Int) -> Value? {
        @inline(__always) get {
            guard let position = position(of: key) else { return nil }
            return entries[position]
        }
        set {
            guard let newValue else { return }
            insert(newValue, forKey: key)
        }
    }

    /// Stores `value` for `key`, replacing any value there: the subscript's setter without
    /// its optional, which cost a copy of the value (and of everything it holds) per insertion.
    @inline(__always)
    @inlinable package mutating func insert(_ value: consuming Value, forKey key: Int) {
        if let position = position(of: key) {
            entries[position] = value
            return
        }
        // Positions are stored as Int32: beyond that many entries, stop caching
        // (callers then decode again, which is correct, only slower).
        guard entries.count < Int(Int32.max) - 1 else { return }
        // Below `smallKeyLimit` possible keys (a small file), index directly at once: the
        // positions take at most 2 KB, and hashing first then switching cost more.
        if dense.isEmpty, keyLimit > 0,
            (entries.count + 1) * 16 >= keyLimit || keyLimit <= Self.smallKeyLimit, keyLimit <= Int(Int32.max)
        {
            indexDirectly()
        }
        if !dense.isEmpty {
            // A key beyond the limit is not cached (callers only pass object indices).
            // `keys` is not kept: nothing rehashes a directly indexed table.
            guard key >= 0, key < dense.count else { return }
            entries.append(value)
            dense[key] = Int32(truncatingIfNeeded: entries.count)
            return
        }
        if LinearProbing.needsGrowth(count: entries.count, capacity: slots.count) { grow() }
        keys.append(key)
        entries.append(value)
        insertSlot(for: key, position: entries.count - 1)
    }

    @inlinable package mutating func removeAll() {
        slots = []
        keys = []
        entries = []
        dense = []
        bits = 0
    }

    @inline(__always)
    @inlinable mutating func insertSlot(for key: Int, position: Int) {
        let slot = LinearProbing.emptySlot(hash: home(key), capacity: slots.count) { slots[$0] == 0 }
        slots[slot] = Int32(truncatingIfNeeded: position + 1)
    }

    @inlinable mutating func grow() {
        bits = max(4, bits + 1)
        slots = LinearProbing.emptySlots(1 << bits)
        for position in keys.indices { insertSlot(for: keys[position], position: position) }
    }

    /// Switches to direct indexing (keys outside the limit, which callers never pass, are
    /// dropped).
    @inlinable mutating func indexDirectly() {
        dense = LinearProbing.emptySlots(keyLimit)
        for position in keys.indices where keys[position] >= 0 && keys[position] < keyLimit {
            dense[keys[position]] = Int32(truncatingIfNeeded: position + 1)
        }
        slots = []
        keys = []
        bits = 0
        // A table that reaches a sixteenth of the objects usually holds a good share of
        // them: room for a quarter saves the copies of growing there step by step (a large
        // allocation's pages are only committed as they are written).
        entries.reserveCapacity(keyLimit / 4)
    }
}
