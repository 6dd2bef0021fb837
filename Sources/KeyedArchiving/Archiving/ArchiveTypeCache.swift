/// What the archiver needs to know about each type it meets, and the identity of each
/// class instance it has stored: the two lookups made for every encoded object, so
/// they avoid `Hasher`.
///
/// Archives use few types, so types are found by a linear scan while there are at most
/// ``linearLimit`` of them, then through a dictionary.
struct ArchiveTypeCache {
    static let linearLimit = 24
    private var types: [ObjectIdentifier] = []
    private var traits: [ArchivedTypeTraits] = []
    private var index: [ObjectIdentifier: Int] = [:]

    /// The position of `type`'s traits, or `nil`.
    @inline(__always)
    func position(of type: ObjectIdentifier) -> Int? {
        if types.count <= Self.linearLimit {
            var position = 0
            while position < types.count {
                if types[position] == type { return position }
                position += 1
            }
            return nil
        }
        return index[type]
    }

    /// Records the traits of a new type and returns their position.
    mutating func insert(_ value: ArchivedTypeTraits, for type: ObjectIdentifier) -> Int {
        types.append(type)
        traits.append(value)
        index[type] = types.count - 1
        return types.count - 1
    }

    subscript(position: Int) -> ArchivedTypeTraits {
        get { traits[position] }
        set { traits[position] = newValue }
    }
}

/// Class instances already stored, by address: an open-addressing table whose hash is
/// a multiply of the address (addresses are not chosen by the archive's data).
struct ArchiveIdentityTable {
    private var keys: [UInt] = []
    private var values: [Int] = []
    private var count = 0

    @inline(__always)
    private static func hash(_ key: UInt) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) >> 4) &* 0x9E37_79B9_7F4A_7C15 >> 20)
    }

    /// The UID stored for `object`, or `nil`.
    @inline(__always)
    func uid(of object: ObjectIdentifier) -> Int? {
        guard !keys.isEmpty else { return nil }
        let key = UInt(bitPattern: object)
        let (slot, found) = LinearProbing.probe(
            hash: Self.hash(key), capacity: keys.count, isEmpty: { keys[$0] == 0 },
            matches: { keys[$0] == key })
        return found ? values[slot] : nil
    }

    /// Records the UID of `object` (which is not in the table yet).
    mutating func insert(_ uid: Int, for object: ObjectIdentifier) {
        insert(uid, key: UInt(bitPattern: object))
    }

    private mutating func insert(_ uid: Int, key: UInt) {
        if LinearProbing.needsGrowth(count: count, capacity: keys.count) { grow() }
        let (slot, found) = LinearProbing.probe(
            hash: Self.hash(key), capacity: keys.count, isEmpty: { keys[$0] == 0 },
            matches: { keys[$0] == key })
        if found {
            values[slot] = uid
            return
        }
        keys[slot] = key
        values[slot] = uid
        count += 1
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        let capacity = LinearProbing.grownCapacity(from: keys.count, minimum: 64)
        keys = [UInt](repeating: 0, count: capacity)
        values = [Int](repeating: 0, count: capacity)
        count = 0
        for (key, value) in zip(oldKeys, oldValues) where key != 0 {
            insert(value, key: key)
        }
    }
}
