#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CataloguedClass {
    /// The kind the untyped decoding methods decode an object of class `name` as, from
    /// the catalogue: the Foundation classes keyed archives are built from; `nil` for
    /// classes they leave to mapped types or generic decoding (numbers and `NSValue`s,
    /// which have types of their own, Apple's other classes, and classes outside it).
    static func untypedKind(_ name: String) -> ClassCatalogue.Kind? {
        guard let kind = CataloguedClass(name: name)?.kind, kind.isFoundation else { return nil }
        switch kind {
        case .number, .value: return nil
        default: return kind
        }
    }
}

extension KeyedUnarchiver {
    /// Decodes a value found under a key without a requested type.
    ///
    /// - Parameter allowed: The types objects may be; `nil` for any mapped type
    ///   (only when secure coding is off).
    func decodeUntypedValue(_ value: PropertyList, allowed: [any KeyedCoding.Type]?) throws -> Any? {
        switch value {
        case .uid:
            return try decodeUntypedReference(referenceIndex(value), allowed: allowed)
        case .string, .integer, .real, .bool, .data:
            return try plainValue(value)
        default:
            throw failure(.typeMismatch, "expected an object, found \(value.archivedKindName)")
        }
    }

    /// A plain `$objects` entry or inline value as a Swift value.
    func plainValue(_ entry: PropertyList) throws -> Any {
        switch entry {
        case .string(let value): return value
        case .integer(let value):
            if let small = value.intValue { return small }
            if let large = value.uint64Value { return large }
            throw failure(.valueOutOfRange, "integer \(value) does not fit in 64 bits")
        case .real(let value): return value
        case .bool(let value): return value
        case .data(let value): return value
        default:
            throw failure(.invalidArchive, "expected an object, found \(entry.typeName) in $objects")
        }
    }

    /// Decodes `$objects[uid]` as whatever its class maps to among `allowed`, or as a
    /// standard value; index 0 is nil.
    func decodeUntypedReference(_ uid: Int, allowed: [any KeyedCoding.Type]?) throws -> Any? {
        guard uid != 0 else { return nil }
        let fields: ArchiveFields
        switch try entry(at: uid) {
        case .object(let objectFields): fields = objectFields
        case .plain(let value): return try plainValue(value)
        }
        let description = try classDescription(of: fields, uid: uid)
        switch try untypedDecoding(of: description, allowed: allowed) {
        case .type(let chosen):
            if let className = inProgressClassName(uid) { throw cycleFailure(className: className, uid: uid) }
            if let cached = cached(uid, as: chosen) { return cached }
            return try instantiate(chosen, uid: uid, fields: fields, classUID: description.uid)
        case .standard(let standard):
            return try decodeStandard(
                standard, uid: uid, fields: fields, classUID: description.uid, allowed: allowed)
        case .generic:
            return try genericObject(at: uid)
        }
    }

    /// How the untyped methods decode an object of the class `description`.
    enum UntypedDecoding {
        /// As this type, mapped or among the allowed ones (checked for secure coding).
        case type(any KeyedCoding.Type)
        /// As one of Apple's standard classes, by its kind.
        case standard(ClassCatalogue.Kind)
        /// As a generic graph (``KeyedUnarchivingOptions/decodesUnknownClassesGenerically``).
        case generic
    }

    /// How the untyped methods decode an object of the class `description`, or the
    /// error for a class they may not decode. Remembered per class for the last `allowed`
    /// (errors and generic decoding are worked out each time).
    func untypedDecoding(
        of description: ClassDescription, allowed: [any KeyedCoding.Type]?
    ) throws -> UntypedDecoding {
        let allowedIndex = untypedAllowedIndex(allowed)
        let sameAllowed = allowedIndex == untypedDecodingsAllowedIndex
        if sameAllowed, let known = untypedDecodings[description.uid] { return known }
        let decoding = try workOutUntypedDecoding(of: description, allowed: allowed)
        if case .generic = decoding { return decoding }
        if !sameAllowed {
            untypedDecodings.removeAll(keepingCapacity: true)
            untypedDecodingsAllowedIndex = allowedIndex
        }
        untypedDecodings[description.uid] = decoding
        return decoding
    }

    private func workOutUntypedDecoding(
        of description: ClassDescription, allowed: [any KeyedCoding.Type]?
    ) throws -> UntypedDecoding {
        if let chosen = try resolve(description, allowed: allowed) {
            try checkSecureCoding(chosen, className: description.name)
            return .type(chosen)
        }
        if let standard = candidateNames(description).lazy.compactMap(CataloguedClass.untypedKind).first {
            return .standard(standard)
        }
        if options.decodesUnknownClassesGenerically { return .generic }
        if requiresSecureCoding, let allowed {
            throw notAllowed(description.name, mappedTo: nil, allowed: allowed)
        }
        throw failure(
            .classNotFound,
            "no type is known for class \(DisplayText.quoted(description.name)) "
                + "(\(description.chain.map(DisplayText.quotedIfNeeded).joined(separator: " < "))); "
                + "map one with setClass(_:forClassName:) or set decodesUnknownClassesGenerically")
    }

    func decodeStandard(
        _ standard: ClassCatalogue.Kind, uid: Int, fields: ArchiveFields, classUID: Int,
        allowed: [any KeyedCoding.Type]?
    ) throws -> Any {
        if let className = inProgressClassName(uid) {
            if isUntypedCollectionCycle(uid) { throw UntypedCycle(uid: uid) }
            throw cycleFailure(className: className, uid: uid)
        }
        switch standard {
        case .string:
            return try cachedOrInstantiate(String.self, uid: uid, fields: fields, classUID: classUID)
        case .data: return try cachedOrInstantiate(Data.self, uid: uid, fields: fields, classUID: classUID)
        case .date: return try cachedOrInstantiate(Date.self, uid: uid, fields: fields, classUID: classUID)
        case .url: return try cachedOrInstantiate(URL.self, uid: uid, fields: fields, classUID: classUID)
        case .uuid: return try cachedOrInstantiate(UUID.self, uid: uid, fields: fields, classUID: classUID)
        case .null: return ArchivedNull()
        case .array, .orderedSet, .set, .countedSet, .dictionary: break
        default:
            // Numbers and values are not decoded untyped as standard values, nor Apple's
            // other classes (see CataloguedClass.untypedKind).
            throw failure(
                .typeMismatch,
                "\(DisplayText.quotedIfNeeded(className(ofClassUID: classUID))) is not a standard collection or value"
            )
        }
        let key = UntypedValueKey(uid: uid, allowed: untypedAllowedIndex(allowed))
        if let cached = decodedUntyped[key] { return cached }
        if let members = collectionCycleMembers, members.indices.contains(uid), members[uid] {
            let graph = try cyclicCollection(at: uid, allowed: allowed)
            decodedUntyped[key] = graph
            return graph
        }
        let value: Any
        do {
            value = try withObject(uid: uid, fields: fields, classUID: classUID) {
                untypedCollections.append(containers.count - 1)
                defer { untypedCollections.removeLast() }
                switch standard {
                case .set, .countedSet: return try untypedSet(standard, allowed: allowed)
                case .dictionary: return try untypedDictionary(allowed: allowed)
                default: return try untypedArray(allowed: allowed)
                }
            }
        } catch let cycle as UntypedCycle where cycle.uid == uid {
            value = try cyclicCollection(at: uid, allowed: allowed)
        }
        decodedUntyped[key] = value
        return value
    }

    /// A value decoded by the untyped methods: its object index and the index of the
    /// allowed types in ``untypedAllowedLists``.
    struct UntypedValueKey: Hashable {
        let uid: Int
        let allowed: Int
    }

    /// The index of `allowed` in ``untypedAllowedLists``, appended when new.
    func untypedAllowedIndex(_ allowed: [any KeyedCoding.Type]?) -> Int {
        for (index, known) in untypedAllowedLists.enumerated() {
            switch (known, allowed) {
            case (nil, nil): return index
            case (let known?, let allowed?) where known.count == allowed.count:
                if zip(known, allowed).allSatisfy({ $0 == ObjectIdentifier($1) }) { return index }
            default: continue
            }
        }
        untypedAllowedLists.append(allowed?.map { ObjectIdentifier($0) })
        return untypedAllowedLists.count - 1
    }

    /// Thrown from inside the untyped decoding of a collection that reaches the collection
    /// `uid`, still being decoded, through standard collections alone; caught where `uid`
    /// is decoded, which then returns the generic graph rooted at it.
    struct UntypedCycle: Error {
        let uid: Int
    }

    /// Whether `$objects[uid]`, in progress, is a standard collection decoded by the
    /// untyped methods with only such collections between it and the innermost object,
    /// so that a reference to it can be answered by a graph: no `init(coder:)` runs in
    /// between that could see the signal.
    func isUntypedCollectionCycle(_ uid: Int) -> Bool {
        var expected = containers.count - 1
        for containerIndex in untypedCollections.reversed() {
            guard containerIndex == expected else { return false }
            if containers[containerIndex].uid == uid { return true }
            expected -= 1
        }
        return false
    }

    /// The collection `$objects[uid]`, which contains itself, as the generic graph rooted
    /// at it, once every object the graph reaches has been checked as the untyped
    /// decoding would check it (allowed classes, secure coding, unknown classes).
    ///
    /// The first such collection also works out every standard collection that is on a
    /// cycle of standard collections, so that each of them decodes as a graph however the
    /// cycle is entered (and whatever was decoded before).
    func cyclicCollection(at uid: Int, allowed: [any KeyedCoding.Type]?) throws -> ArchivedObjectGraph {
        let graph = try genericObject(at: uid)
        if collectionCycleMembers == nil {
            let collections = graph.nodes.map { node -> ArchivedObjectGraph.Node in
                guard case .object(let object) = node,
                    ([object.className] + object.classChain).contains(where: {
                        CataloguedClass.untypedKind($0)?.isCollection == true
                    })
                else { return .null }
                return node
            }
            collectionCycleMembers = ArchiveGraphBuilder.cyclicNodes(collections)
        }
        var seen = Set<Int>([uid])
        var pending = [uid]
        while let next = pending.popLast() {
            guard case .object? = graph[next], case .object(let fields) = try entry(at: next) else {
                continue
            }
            _ = try untypedDecoding(of: try classDescription(of: fields, uid: next), allowed: allowed)
            for reference in graph[next]?.references ?? [] where seen.insert(reference).inserted {
                pending.append(reference)
            }
        }
        return graph
    }

    func cachedOrInstantiate<U: KeyedCoding>(
        _ type: U.Type, uid: Int, fields: ArchiveFields, classUID: Int
    ) throws -> U {
        if let cached = cached(uid, as: U.self) as? U { return cached }
        return try instantiate(U.self, uid: uid, fields: fields, classUID: classUID)
    }

    /// Runs `body` with `$objects[uid]` as the current object, marked in progress, and
    /// restores the state whether `body` returns or throws.
    func withObject<R>(
        uid: Int, fields: ArchiveFields, classUID: Int, _ body: () throws -> R
    ) throws -> R {
        guard depth < options.maximumDepth else {
            throw failure(
                .limitExceeded, "objects are nested deeper than the limit of \(options.maximumDepth)")
        }
        if depth >= StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
            throw failure(.limitExceeded, StackHeadroom.message(depth: depth))
        }
        // `uid` is in range: it came from `referenceIndex`.
        inProgressFlags.insert(uid)
        containers.append(DecodingContainer(fields: fields, uid: uid, classUID: classUID))
        depth += 1
        defer {
            containers.removeLast()
            depth -= 1
            inProgressFlags.remove(uid)
        }
        return try body()
    }

    func untypedElements(allowed: [any KeyedCoding.Type]?) throws -> [Any] {
        var elements: [Any] = []
        try appendUntypedElements(try elementIndices(), from: 0, to: &elements, allowed: allowed)
        return elements
    }

    /// Decodes the elements at `indices[start...]` untyped, appending them to `elements`.
    private func appendUntypedElements(
        _ indices: [Int], from start: Int, to elements: inout [Any], allowed: [any KeyedCoding.Type]?
    ) throws {
        elements.reserveCapacity(indices.count)
        for position in start..<indices.count {
            path.append(.index(position))
            defer { path.removeLast() }
            guard let element = try decodeUntypedReference(indices[position], allowed: allowed) else {
                throw failure(.invalidArchive, "a collection element is nil")
            }
            elements.append(element)
        }
    }

    /// The current array object's elements: as `[T]` when every element decodes as the
    /// one type `T` (a class or value type the caller allowed or mapped), so that the
    /// caller's `as? [T]` is a constant-time check rather than a cast of every element;
    /// as `[Any]` otherwise (mixed types, standard values, subclasses).
    func untypedArray(allowed: [any KeyedCoding.Type]?) throws -> Any {
        let indices = try elementIndices()
        if let first = indices.first, let type = homogeneousCandidate(first, allowed: allowed) {
            return try homogeneousArray(indices, as: type, allowed: allowed)
        }
        var elements: [Any] = []
        try appendUntypedElements(indices, from: 0, to: &elements, allowed: allowed)
        return elements
    }

    /// The type `$objects[uid]` decodes as when the untyped decoding gives it one (its
    /// class is mapped or allowed, checked for secure coding), else `nil`. Errors are left
    /// to the general path, which reports them where they belong.
    private func homogeneousCandidate(_ uid: Int, allowed: [any KeyedCoding.Type]?) -> (any KeyedCoding.Type)?
    {
        guard uid != 0, let object = source.quickObject(uid),
            let resolved = try? resolvedClass(of: .binary(object), uid: uid),
            case .type(let chosen)? = try? untypedDecoding(of: resolved.description, allowed: allowed)
        else { return nil }
        return chosen
    }

    /// The elements at `indices` as `[U]` while each decodes untyped as `U`, exactly as
    /// ``decodeUntypedReference(_:allowed:)`` would decode it (its class checked against
    /// the allowed types and secure coding before anything is built); from the first that
    /// does not on, the elements go to an `[Any]`.
    private func homogeneousArray<U: KeyedCoding>(
        _ indices: [Int], as type: U.Type, allowed: [any KeyedCoding.Type]?
    ) throws -> Any {
        var elements: [U] = []
        elements.reserveCapacity(indices.count)
        // The class description last found to decode as `U`: the elements of an array
        // usually share one. Held by identity, as a change of the rules mid-way (an
        // `init(coder:)` calling `setClass`) replaces the descriptions.
        var knownClass: ResolvedClass?
        var position = 0
        while position < indices.count {
            let uid = indices[position]
            guard uid != 0, let object = source.quickObject(uid) else { break }
            let fields = ArchiveFields.binary(object)
            path.append(.index(position))
            defer { path.removeLast() }
            let resolved = try resolvedClass(of: fields, uid: uid)
            if resolved !== knownClass {
                guard
                    case .type(let chosen) = try untypedDecoding(of: resolved.description, allowed: allowed),
                    ObjectIdentifier(chosen) == ObjectIdentifier(U.self)
                else { break }
                knownClass = resolved
            }
            if let className = inProgressClassName(uid) { throw cycleFailure(className: className, uid: uid) }
            if decoded.contains(uid) {
                // Decoded before: kept only if it is a `U` itself (a class instance decoded
                // before as another type goes to the general path, which returns it as is).
                guard let known = cached(uid, as: U.self),
                    ObjectIdentifier(Swift.type(of: known)) == ObjectIdentifier(U.self)
                else { break }
                elements.append(try cast(known, as: U.self, "found \(Swift.type(of: known))"))
            } else {
                elements.append(
                    try instantiate(U.self, uid: uid, fields: fields, classUID: resolved.description.uid))
            }
            position += 1
        }
        guard position < indices.count else { return elements }
        var mixed: [Any] = []
        mixed.reserveCapacity(indices.count)
        for element in elements { mixed.append(element) }
        try appendUntypedElements(indices, from: position, to: &mixed, allowed: allowed)
        return mixed
    }

    /// A set's elements as `Set<AnyHashable>`, or as an ``ArchivedCollection`` when one
    /// of them is not `Hashable` (or, for a counted set, to keep its counts then).
    func untypedSet(_ standard: ClassCatalogue.Kind, allowed: [any KeyedCoding.Type]?) throws -> Any {
        let elements = try untypedElements(allowed: allowed)
        var set = Set<AnyHashable>(minimumCapacity: elements.count)
        for element in elements {
            guard let hashable = element as? AnyHashable else {
                return try unhashableCollection(
                    standard == .countedSet ? .countedSet : .set, elements: elements)
            }
            set.insert(hashable)
        }
        return set
    }

    /// The current collection object as an ``ArchivedCollection``.
    func unhashableCollection(
        _ kind: ArchivedCollection.Kind, elements: [Any] = [], keys: [Any] = [], values: [Any] = []
    ) throws -> ArchivedCollection {
        let container = containers[containers.count - 1]
        return ArchivedCollection(
            kind: kind, className: className(ofClassUID: container.classUID), objectIndex: container.uid,
            elements: elements, counts: kind == .countedSet ? try countedSetCounts(elements.count) : [],
            keys: keys, values: values)
    }

    /// The `NS.count0`… counts of the current counted set, or none when it has no counts
    /// (an element without a count is an error, as is a count that is not a positive integer).
    package func countedSetCounts(_ elementCount: Int) throws -> [Int] {
        guard try fieldValue(forKey: "NS.count0") != nil else { return [] }
        return try (0..<elementCount).map { position in
            guard let value = try fieldValue(forKey: "NS.count\(position)") else {
                throw failure(.invalidArchive, "the counted set has no NS.count\(position)")
            }
            guard let count = value.intValue, count > 0 else {
                throw failure(.invalidArchive, "NS.count\(position) is not a positive count")
            }
            return count
        }
    }

    func untypedDictionary(allowed: [any KeyedCoding.Type]?) throws -> Any {
        let (keyIndices, valueIndices) = try entryIndices()
        var keys: [Any] = []
        keys.reserveCapacity(keyIndices.count)
        var allStrings = true
        var allHashable = true
        for (position, uid) in keyIndices.enumerated() {
            path.append(.dictionaryKey(position))
            defer { path.removeLast() }
            guard let key = try decodeUntypedReference(uid, allowed: allowed) else {
                throw failure(.invalidArchive, "a dictionary key is nil")
            }
            if !(key is String) {
                allStrings = false
                if !(key is AnyHashable) { allHashable = false }
            }
            keys.append(key)
        }
        var values: [Any] = []
        values.reserveCapacity(valueIndices.count)
        for (position, uid) in valueIndices.enumerated() {
            path.append(
                (keys[position] as? String).map { .dictionaryValue($0) } ?? .dictionaryValueAt(position))
            defer { path.removeLast() }
            guard let value = try decodeUntypedReference(uid, allowed: allowed) else {
                throw failure(.invalidArchive, "a dictionary value is nil")
            }
            values.append(value)
        }
        if allStrings {
            var dictionary: [String: Any] = [:]
            dictionary.reserveCapacity(keys.count)
            for (key, value) in zip(keys, values) {
                if let text = key as? String { dictionary[text] = value }
            }
            return dictionary
        }
        guard allHashable else { return try unhashableCollection(.dictionary, keys: keys, values: values) }
        var dictionary: [AnyHashable: Any] = [:]
        dictionary.reserveCapacity(keys.count)
        for (key, value) in zip(keys, values) {
            if let hashable = key as? AnyHashable { dictionary[hashable] = value }
        }
        return dictionary
    }

    // MARK: Collection layouts

    /// The element references of the current collection object, in any of Apple's
    /// layouts: `NS.objects` (arrays, sets), `NS.object.0`… (ordered sets), or
    /// `NS.count` with `NS.object0`… (counted sets).
    package func elementIndices() throws -> [Int] {
        if let indices = try binaryElementIndices() { return indices }
        do {
            return try ArchiveCollectionLayout.elementReferences(in: currentDictionary()).map(referenceIndex)
        } catch let problem as ArchiveCollectionLayout.Problem {
            throw failure(.invalidArchive, problem.message)
        }
    }

    /// The key and value references of the current dictionary object, checked to have
    /// the same count before either is decoded.
    package func entryIndices() throws -> (keys: [Int], values: [Int]) {
        if let keys = try binaryElementIndices(forKey: "NS.keys", acceptsSets: false),
            let values = try binaryElementIndices(forKey: "NS.objects", acceptsSets: false)
        {
            // The usual layout, read in place.
            guard keys.count == values.count else {
                throw failure(
                    .invalidArchive,
                    "the dictionary has \(keys.count) keys (NS.keys) but \(values.count) values (NS.objects)")
            }
            return (keys, values)
        }
        let fields = try currentDictionary()
        if fields["NS.keys"] != nil || fields["NS.objects"] != nil {
            let keys = try references(fields["NS.keys"] ?? .array([]), key: "NS.keys")
            let values = try references(fields["NS.objects"] ?? .array([]), key: "NS.objects")
            guard keys.count == values.count else {
                throw failure(
                    .invalidArchive,
                    "the dictionary has \(keys.count) keys (NS.keys) but \(values.count) values (NS.objects)")
            }
            return (keys, values)
        }
        var keys: [Int] = []
        var values: [Int] = []
        while let key = fields["NS.key.\(keys.count)"], keys.count < fields.count {
            guard let value = fields["NS.object.\(keys.count)"] else {
                throw failure(.invalidArchive, "NS.key.\(keys.count) has no NS.object.\(keys.count)")
            }
            keys.append(try referenceIndex(key))
            values.append(try referenceIndex(value))
        }
        return (keys, values)
    }

    /// The usual layout read straight from a binary archive: `NS.objects` (or `key`) as an
    /// array (or, when `acceptsSets`, a set) of in-range references. `nil` for anything else,
    /// which the general path reads (and reports errors for).
    package func binaryElementIndices(forKey key: String = "NS.objects", acceptsSets: Bool = true) throws
        -> [Int]?
    {
        guard case .binary(let fields) = containers[containers.count - 1].fields else { return nil }
        let binary = source
        let objectCount = binary.objectCount
        do {
            guard let objects = try binary.valueObject(forKey: key, in: fields),
                objects.kind == .array || (acceptsSets && objects.kind == .set)
            else { return nil }
            return try binary.withScanner { scanner -> [Int]? in
                var complete = true
                // Written in place (the count is bounded by the bytes that remain): appending
                // checks the array's uniqueness and capacity for every element.
                let indices = try [Int](unsafeUninitializedCapacity: objects.count) { buffer, initialized in
                    for position in 0..<objects.count {
                        // Each element is a UID object: its marker and bytes are read directly.
                        let offset = try scanner.offset(of: scanner.reference(objects, at: position))
                        let marker = scanner.byte(offset)
                        let width = Int(marker & 0x07) + 1
                        guard marker & 0xF8 == 0x80, width <= scanner.objectsEnd - offset - 1 else {
                            complete = false
                            return
                        }
                        let raw = scanner.unsigned(offset + 1, width: width)
                        guard raw < UInt64(objectCount) else {
                            complete = false
                            return
                        }
                        buffer[position] = Int(raw)
                        initialized = position + 1
                    }
                }
                return complete ? indices : nil
            }
        } catch let error as KeyedArchiveError {
            throw inputFailure(error, reading: containers[containers.count - 1].uid)
        }
    }

    private func references(_ value: PropertyList, key: String) throws -> [Int] {
        guard case .array(let elements) = value else {
            throw failure(.invalidArchive, "\(key) is \(value.archivedKindName), not an array of references")
        }
        return try elements.map(referenceIndex)
    }
}
