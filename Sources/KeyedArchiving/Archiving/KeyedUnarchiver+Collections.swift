extension KeyedUnarchiver {
    /// Decodes the array (`NSArray`, `NSMutableArray`, or an ordered set) under `key`,
    /// every element of which must be a `T`.
    ///
    /// The same as `decodeObject(of: [T].self, forKey: key)`.
    ///
    /// - Parameters:
    ///   - ofClass: The type of the elements.
    ///   - key: The key in the current object.
    /// - Returns: The elements, or `nil` if the key is missing or holds nil.
    /// - Throws: ``KeyedArchiveError`` as ``decodeObject(of:forKey:)->T?``, located at the
    ///   offending element (`root.items[3]`); a nil element is `invalidArchive`.
    public func decodeArrayOfObjects<T: KeyedCoding>(ofClass: T.Type, forKey key: String) throws -> [T]? {
        try decodeObject(of: [T].self, forKey: key)
    }

    /// Decodes the dictionary (`NSDictionary` or `NSMutableDictionary`) under `key`,
    /// whose keys must be `K`s and values `V`s.
    ///
    /// ```swift
    /// // An NSDictionary with NSNumber keys:
    /// let names = try coder.decodeDictionary(withKeysOfClass: Int.self, objectsOfClass: String.self,
    ///                                        forKey: "names")
    /// ```
    ///
    /// The same as `decodeObject(of: [K: V].self, forKey: key)`. A repeated key keeps its
    /// last value.
    ///
    /// - Parameters:
    ///   - keysOfClass: The type of the keys.
    ///   - objectsOfClass: The type of the values.
    ///   - key: The key in the current object.
    /// - Returns: The dictionary, or `nil` if the key is missing or holds nil.
    /// - Throws: ``KeyedArchiveError`` as ``decodeObject(of:forKey:)->T?``; `invalidArchive`
    ///   when `NS.keys` and `NS.objects` differ in length (checked before decoding either).
    public func decodeDictionary<K: KeyedCoding & Hashable, V: KeyedCoding>(
        withKeysOfClass keysOfClass: K.Type, objectsOfClass: V.Type, forKey key: String
    ) throws -> [K: V]? {
        try decodeObject(of: [K: V].self, forKey: key)
    }

    // MARK: Internal API for the standard types

    /// The elements of the current collection object, decoded as `E`s.
    package func decodeElements<E: KeyedCoding>(of type: E.Type) throws -> [E] {
        let indices = try elementIndices()
        var elements: [E] = []
        elements.reserveCapacity(indices.count)
        // An index loop and `decodeEntry` (not `enumerated()` and `decodeReference`): in
        // unspecialized code their optionals and tuples cost run-time metadata lookups.
        for position in indices.indices {
            let uid = indices[position]
            path.append(.index(position))
            defer { path.removeLast() }
            guard uid != 0 else { throw failure(.invalidArchive, "a collection element is nil") }
            elements.append(try decodeEntry(uid, as: E.self))
        }
        return elements
    }

    /// The elements of the current collection object, decoded as `E`s, as a set; of equal
    /// elements the first is kept.
    ///
    /// The set is built by ``KeyedCoding/keyedArchiveSet(keepingFirstOf:)``, whose default
    /// is compiled for `E` in the module that conforms `E` to ``KeyedCoding``: built here,
    /// in code generic over `E`, every `insert` would look the set's run-time metadata up
    /// again (+12% on `idiomatic/…/Set<T>/binary`). A conformance that gives no set (one
    /// that does not know `E` is `Hashable`, as an array's) is built here.
    func decodeSetElements<E: KeyedCoding & Hashable>(of type: E.Type) throws -> Set<E> {
        let elements = try decodeElements(of: E.self)
        if let set = E.keyedArchiveSet(keepingFirstOf: elements) as? Set<E> { return set }
        var set = Set<E>(minimumCapacity: elements.count)
        for element in elements { set.insert(element) }
        return set
    }

    /// The entries of the current dictionary object, decoded as `K`s and `V`s.
    func decodeEntries<K: KeyedCoding & Hashable, V: KeyedCoding>(
        keys keyType: K.Type, values valueType: V.Type
    ) throws -> [K: V] {
        let (keyIndices, valueIndices) = try entryIndices()
        if ObjectIdentifier(K.self) == ObjectIdentifier(String.self) {
            // The usual keys: a dictionary generic in its values only hashes its keys
            // without going through `K`'s witnesses. `K` is `String`, so the cast
            // reinterprets a value as its own type.
            let entries = try decodeStringKeyedEntries(keys: keyIndices, values: valueIndices, as: V.self)
            return unsafeBitCast(entries, to: [K: V].self)
        }
        var keys: [K] = []
        keys.reserveCapacity(keyIndices.count)
        // Index loops and `decodeEntry`, as in `decodeElements`.
        for position in keyIndices.indices {
            let uid = keyIndices[position]
            path.append(.dictionaryKey(position))
            defer { path.removeLast() }
            guard uid != 0 else { throw failure(.invalidArchive, "a dictionary key is nil") }
            keys.append(try decodeEntry(uid, as: K.self))
        }
        var dictionary: [K: V] = [:]
        dictionary.reserveCapacity(keys.count)
        for position in valueIndices.indices {
            let uid = valueIndices[position]
            let key = keys[position]
            path.append((key as? String).map { .dictionaryValue($0) } ?? .dictionaryValueAt(position))
            defer { path.removeLast() }
            guard uid != 0 else { throw failure(.invalidArchive, "a dictionary value is nil") }
            // `updateValue`, not the subscript: in unspecialized code the subscript costs
            // more run-time metadata lookups.
            dictionary.updateValue(try decodeEntry(uid, as: V.self), forKey: key)
        }
        return dictionary
    }

    /// The entries of the current dictionary object whose keys are strings.
    ///
    /// Decoded straight into the dictionary's storage (all keys, then all values, in
    /// archive order) and hashed in one pass when complete: inserting entry by entry
    /// through unspecialized code looks up the dictionary's run-time metadata for every
    /// entry. `allowingDuplicates`, as the archive is not trusted: a repeated key keeps
    /// its last value.
    ///
    /// While an entry's value decodes, its key (a plain string) is the unarchiver's
    /// ``entryKey``: archives share a key's string with the value it names (a name field),
    /// which then reads the key instead of copying the string again, without a cache entry
    /// per key.
    private func decodeStringKeyedEntries<V: KeyedCoding>(
        keys keyIndices: [Int], values valueIndices: [Int], as valueType: V.Type
    ) throws -> [String: V] {
        let count = keyIndices.count
        guard valueIndices.count == count else {
            throw failure(
                .invalidArchive, "the dictionary has \(count) keys but \(valueIndices.count) values")
        }
        guard count > 0 else { return [:] }
        var thrown: (any Error)?
        let dictionary = [String: V](_unsafeUninitializedCapacity: count, allowingDuplicates: true) {
            keyBuffer, valueBuffer in
            guard let keyBase = keyBuffer.baseAddress, let valueBase = valueBuffer.baseAddress else {
                return 0
            }
            var keyCount = 0
            var valueCount = 0
            // Which keys are not plain strings (decoded through the general path), once one is.
            var generalKeys: [Bool]?
            defer {
                entryKeyUID = -1
                entryKey = nil
            }
            do {
                while keyCount < count {
                    let uid = keyIndices[keyCount]
                    let key: String
                    if uid != 0, let text = quickString(uid) {
                        key = text
                    } else {
                        key = try decodeKey(uid, at: keyCount)
                        if generalKeys == nil { generalKeys = Array(repeating: false, count: count) }
                        generalKeys?[keyCount] = true
                    }
                    (keyBase + keyCount).initialize(to: key)
                    keyCount += 1
                }
                while valueCount < count {
                    let uid = valueIndices[valueCount]
                    if generalKeys?[valueCount] != true {
                        entryKeyUID = keyIndices[valueCount]
                        entryKey = UnsafePointer(keyBase + valueCount)
                    }
                    path.append(.dictionaryValueWithKey(keyBase + valueCount))
                    defer { path.removeLast() }
                    guard uid != 0 else { throw failure(.invalidArchive, "a dictionary value is nil") }
                    (valueBase + valueCount).initialize(to: try decodeEntry(uid, as: V.self))
                    valueCount += 1
                }
            } catch {
                // The entries with a value are handed over (and dropped with the
                // dictionary); the keys without one are released here.
                thrown = error
                (keyBase + valueCount).deinitialize(count: keyCount - valueCount)
                return valueCount
            }
            return count
        }
        if let thrown { throw thrown }
        return dictionary
    }

    /// `$objects[uid]`, the dictionary key at `position`, through the general path (a key
    /// that is not a plain string read without error), located at the key.
    @inline(never)
    private func decodeKey(_ uid: Int, at position: Int) throws -> String {
        path.append(.dictionaryKey(position))
        defer { path.removeLast() }
        guard uid != 0 else { throw failure(.invalidArchive, "a dictionary key is nil") }
        return try decodeEntry(uid, as: String.self)
    }
}
