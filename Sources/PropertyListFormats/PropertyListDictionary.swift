import KeyedArchiveSupport

/// The dictionary of a property list: string keys mapped to values, in the order they
/// were read or inserted.
///
/// Order is kept so that printing a file shows it as written; equality and hashing
/// ignore order, as for any dictionary. Writers sort keys unless asked not to
/// (see ``PropertyListWritingOptions/sortsKeys``).
///
/// Inserting a key that is already present replaces its value and keeps its position,
/// so a file with a duplicated key reads as "last one wins", as Apple's readers do.
///
/// - Complexity: Lookup and insertion are O(1) on average. Small dictionaries (up to
///   eight entries, the usual size of an archived object) are searched linearly, which
///   saves building a hash table per dictionary when a large file is read.
public struct PropertyListDictionary: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// The keys, in order.
    public private(set) var keys: [String]
    /// The values, in the order of ``keys``.
    public private(set) var values: [PropertyList]
    /// Key → position, for every key once the dictionary has grown past
    /// `linearSearchLimit` entries; empty before that, when keys are searched in order.
    private var positions: KeyPositionTable
    private static let linearSearchLimit = 8

    /// Creates an empty dictionary.
    public init() {
        keys = []
        values = []
        positions = KeyPositionTable()
    }

    /// Creates an empty dictionary with room for `capacity` entries.
    ///
    /// - Parameter capacity: The number of entries to reserve space for.
    public init(minimumCapacity capacity: Int) {
        self.init()
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
        if capacity > Self.linearSearchLimit { positions.reserve(capacity) }
    }

    /// Creates a dictionary from key-value pairs; a repeated key keeps its first position
    /// and its last value.
    ///
    /// - Parameter pairs: The entries, in order.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PropertyList) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// Creates a dictionary from a literal.
    ///
    /// - Parameter elements: The entries, in order.
    public init(dictionaryLiteral elements: (String, PropertyList)...) {
        self.init(elements)
    }

    /// The number of entries.
    public var count: Int { keys.count }

    /// Whether the dictionary has no entries.
    public var isEmpty: Bool { keys.isEmpty }

    /// The value for `key`; assigning `nil` removes the entry.
    ///
    /// - Complexity: O(1) on average to read or replace; O(*n*) to remove.
    public subscript(key: String) -> PropertyList? {
        get {
            guard let position = position(of: key) else { return nil }
            return values[position]
        }
        set {
            guard let newValue else {
                removeValue(forKey: key)
                return
            }
            setValue(newValue, forKey: key)
        }
    }

    private func position(of key: String) -> Int? {
        positions.isEmpty ? keys.firstIndex(of: key) : positions.position(of: key, in: keys)
    }

    /// Removes the entry for `key`, if any, keeping the order of the others.
    ///
    /// - Parameter key: The key to remove.
    /// - Returns: The value that was removed, or `nil` if the key was absent.
    /// - Complexity: O(*n*).
    @discardableResult
    public mutating func removeValue(forKey key: String) -> PropertyList? {
        guard let position = position(of: key) else { return nil }
        keys.remove(at: position)
        let removed = values.remove(at: position)
        if !positions.isEmpty {
            positions.removeAll()
            for index in keys.indices { positions.insert(index, forKey: keys[index], in: keys) }
        }
        return removed
    }

    /// The entries in order, as `(key:value:)` pairs like `Dictionary`'s.
    ///
    /// - Returns: An iterator over the entries.
    public func makeIterator() -> Iterator {
        Iterator(keys: keys, values: values)
    }

    /// An iterator over a dictionary's entries in order.
    public struct Iterator: IteratorProtocol {
        private let keys: [String]
        private let values: [PropertyList]
        private var position = 0

        init(keys: [String], values: [PropertyList]) {
            self.keys = keys
            self.values = values
        }

        /// The next entry, or `nil` after the last.
        ///
        /// - Returns: The entry's key and value.
        public mutating func next() -> (key: String, value: PropertyList)? {
            guard position < keys.count, position < values.count else { return nil }
            defer { position += 1 }
            return (key: keys[position], value: values[position])
        }
    }

    /// The entries ordered by key (by Unicode scalar values, as Apple's writers sort).
    public var sortedByKey: [(key: String, value: PropertyList)] {
        zip(keys, values).map { (key: $0, value: $1) }.sorted {
            $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars)
        }
    }

    /// Whether two dictionaries have the same keys with equal values, in any order.
    ///
    /// - Parameters:
    ///   - lhs: A dictionary.
    ///   - rhs: Another dictionary.
    /// - Returns: `true` if they hold the same entries.
    public static func == (lhs: PropertyListDictionary, rhs: PropertyListDictionary) -> Bool {
        // PropertyList's equality walks nested values without recursion.
        PropertyList.dictionary(lhs) == PropertyList.dictionary(rhs)
    }

    /// Hashes the entries without regard to their order, as ``PropertyList/hash(into:)``
    /// hashes a dictionary value (in constant stack, however deep the values).
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        PropertyList.dictionary(self).hash(into: &hasher)
    }
}

extension PropertyListDictionary {
    /// A dictionary of the entries a reader found in order: `keys[i]` maps to `values[i]`,
    /// a repeated key keeping its first position and its last value, as the subscript
    /// would leave them. The arrays become the storage as they are when the keys are
    /// distinct (the usual case), so building costs the duplicate check (and, past
    /// `linearSearchLimit` entries, the position table) and no append per entry. Entries
    /// beyond the shorter array are dropped.
    init(readKeys keys: [String], values: [PropertyList]) {
        let count = Swift.min(keys.count, values.count)
        if keys.count == count, values.count == count {
            if count <= Self.linearSearchLimit {
                if Self.areDistinct(keys) {
                    self.init(storage: keys, values: values, positions: KeyPositionTable())
                    return
                }
            } else {
                if let positions = KeyPositionTable.distinct(keys, count: count, capacity: count) {
                    self.init(storage: keys, values: values, positions: positions)
                    return
                }
            }
        }
        self.init(minimumCapacity: count)
        for index in 0..<count { setValue(values[index], forKey: keys[index]) }
    }

    /// A dictionary of `keys`, distinct, with `positions` built for them (empty for at most
    /// `linearSearchLimit` keys), as another dictionary with the same keys has them, and
    /// `values` in their order (as many).
    init(
        distinctKeys keys: consuming [String], positions: consuming KeyPositionTable,
        values: consuming [PropertyList]
    ) {
        guard keys.count == values.count else {
            self.init(readKeys: keys, values: values)
            return
        }
        self.init(storage: keys, values: values, positions: positions)
    }

    /// The key → position index, for a dictionary with the same keys.
    var positionTable: KeyPositionTable { positions }

    private init(storage keys: [String], values: [PropertyList], positions: KeyPositionTable) {
        self.keys = keys
        self.values = values
        self.positions = positions
    }

    private static func areDistinct(_ keys: [String]) -> Bool {
        // ASCII keys compare quickly with `==`; other keys by their bytes where that is
        // exact (see `NormalizationStableText`), since `==` normalizes them.
        var comparesWords = false
        if KnownASCII.isAvailable {
            var ascii = true
            for key in keys where !KnownASCII.flag(key) {
                ascii = false
                break
            }
            if !ascii, let distinct = NormalizationStableText.areDistinct(keys) { return distinct }
            comparesWords = ascii && KnownASCII.readsSmallWords
        }
        // Among ASCII keys, two short ones (the usual ones) compare by their two words,
        // without a call into the standard library's comparison; any other pair by `==`.
        var index = 1
        while index < keys.count {
            let key = keys[index]
            let words = comparesWords ? KnownASCII.smallWords(key) : nil
            for earlier in 0..<index {
                if let words, let other = KnownASCII.smallWords(keys[earlier]) {
                    if other == words { return false }
                } else if keys[earlier] == key {
                    return false
                }
            }
            index += 1
        }
        return true
    }

    /// Sets `value` for `key` like the subscript (one hash; a new key is appended, an
    /// existing one keeps its position and takes the new value), but takes both arguments
    /// as `consuming` so that they move into storage without retain and release. The
    /// binary reader's hot path uses it: measured 15% faster materializing than the setter.
    mutating func setValue(_ value: consuming PropertyList, forKey key: consuming String) {
        let end = keys.count
        if positions.isEmpty {
            if let position = keys.firstIndex(of: key) {
                values[position] = consume value
                return
            }
            keys.append(consume key)
            values.append(consume value)
            if keys.count > Self.linearSearchLimit {
                positions.reserve(keys.count * 2)
                for index in keys.indices { positions.insert(index, forKey: keys[index], in: keys) }
            }
            return
        }
        // One probe: a new key takes the next position, an existing one hands back its own.
        if let position = positions.insert(end, forKey: key, in: keys) {
            values[position] = consume value
        } else {
            keys.append(consume key)
            values.append(consume value)
        }
    }
}
