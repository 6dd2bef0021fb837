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
    func decodeElements<E: KeyedCoding>(of type: E.Type) throws -> [E] {
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

    /// The entries of the current dictionary object, decoded as `K`s and `V`s.
    func decodeEntries<K: KeyedCoding & Hashable, V: KeyedCoding>(
        keys keyType: K.Type, values valueType: V.Type
    ) throws -> [K: V] {
        let (keyIndices, valueIndices) = try entryIndices()
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
        let keysAreStrings = ObjectIdentifier(K.self) == ObjectIdentifier(String.self)
        var dictionary: [K: V] = [:]
        dictionary.reserveCapacity(keys.count)
        for position in valueIndices.indices {
            let uid = valueIndices[position]
            let key = keys[position]
            // `K` is `String` when `keysAreStrings`: no dynamic cast for the usual keys.
            path.append(
                keysAreStrings
                    ? .dictionaryValue(unsafeBitCast(key, to: String.self))
                    : ((key as? String).map { .dictionaryValue($0) } ?? .dictionaryValueAt(position)))
            defer { path.removeLast() }
            guard uid != 0 else { throw failure(.invalidArchive, "a dictionary value is nil") }
            dictionary[key] = try decodeEntry(uid, as: V.self)
        }
        return dictionary
    }
}
