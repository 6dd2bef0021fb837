#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The key layout of an object dictionary read in place from a binary archive.
///
/// Writers store each key string once, so the objects of one class share their key
/// references: comparing an object's key references with a known shape's is enough to
/// know its keys (and where `$class`, `NS.keys`, … are) without reading any text.
final class BinaryObjectShape {
    /// The object index of each key string, in the dictionary's order.
    let keyReferences: [Int]
    /// The keys as archived, each once.
    let keys: [String]
    let classPosition: Int?
    let keysPosition: Int?
    let objectsPosition: Int?
    let timePosition: Int?
    let stringPosition: Int?
    let dataPosition: Int?

    init(keyReferences: [Int], keys: [String]) {
        self.keyReferences = keyReferences
        self.keys = keys
        classPosition = keys.firstIndex(of: "$class")
        keysPosition = keys.firstIndex(of: "NS.keys")
        objectsPosition = keys.firstIndex(of: "NS.objects")
        timePosition = keys.firstIndex(of: "NS.time")
        stringPosition = keys.firstIndex(of: "NS.string")
        dataPosition = keys.firstIndex(of: "NS.data")
    }
}

/// Reading a binary archive in place: the values the Codable bridge asks for are read
/// straight from the object table instead of from `PropertyList` entries built first.
///
/// Every method here handles the shapes the bridge's writers (and Apple's) produce and
/// returns `nil` for anything else, so that the general path in CodableArchiveReader.swift
/// gives the same result, or the same error, as it does for archives read from a
/// property-list value (OpenStep text, or a ``PropertyList`` the caller passed).
extension CodableArchiveReader {
    /// Runs `body` with the binary source and its scanner, or returns `nil` when the
    /// archive is not read in place; the input's errors get the coding path.
    ///
    /// Outside ``decodeRoot(_:from:)`` (a container an `init(from:)` kept and reads from
    /// later) the input is opened again for the one read.
    @inline(__always)
    private func inPlace<R>(
        _ parent: CodablePath?, _ key: (any CodingKey)?,
        _ body: (BinaryArchiveSource, BinaryPropertyListScanner) throws -> R?
    ) throws -> R? {
        do {
            if let scanner { return try body(source, scanner) }
            return try source.withScanner { try body(source, $0) }
        } catch let error as KeyedArchiveError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: CodablePath.keys(parent, appending: key), debugDescription: error.description,
                    underlyingError: error))
        }
    }

    /// Reference `position` of `container` as a shallow value: a reference or a scalar
    /// (an inline container is built, with the reader's checks).
    func binaryValue(
        _ container: BinaryPropertyListObject, at position: Int, parent: CodablePath?, key: (any CodingKey)?
    ) throws -> PropertyList {
        try inPlace(parent, key) { binary, scanner in
            try shallowValue(scanner.reference(container, at: position), binary, scanner)
        } ?? .uid(0)
    }

    @inline(__always)
    private func shallowValue(
        _ reference: Int, _ binary: BinaryArchiveSource, _ scanner: BinaryPropertyListScanner
    )
        throws -> PropertyList
    {
        if let raw = try uidValue(reference, scanner) { return .uid(raw) }
        let object = try scanner.object(reference)
        if object.kind.isContainer { return try binary.materialize(object, scanner: scanner) }
        return try scanner.scalar(object)
    }

    /// The plain value of `$objects[index]` (see ``scalar(_:parent:key:expected:)``).
    func binaryScalar(_ index: Int, parent: CodablePath?, key: (any CodingKey)?) throws -> PropertyList? {
        try inPlace(parent, key) { binary, scanner in
            let object = try binary.entryObject(index, scanner: scanner)
            switch object.kind {
            case .array, .set:
                return nil
            case .dictionary:
                guard let shape = try shape(of: object, scanner),
                    let kind = try classKind(of: object, shape, scanner, parent: parent, key: key)
                else { return nil }
                let position: Int?
                switch kind {
                case .date: position = shape.timePosition
                case .mutableString: position = shape.stringPosition
                case .mutableData: position = shape.dataPosition
                default: return nil
                }
                guard let position else { return nil }
                let value = try shallowValue(
                    scanner.reference(object, at: object.count + position), binary, scanner)
                guard kind == .date else { return value }
                return .date(Date(timeIntervalSinceReferenceDate: try seconds(value, parent, key)))
            default:
                return try scanner.scalar(object)
            }
        }
    }

    /// Whether `$objects[index]` is nil (see ``isNil(_:parent:key:)``).
    func binaryIsNil(_ index: Int, parent: CodablePath?, key: (any CodingKey)?) throws -> Bool? {
        try inPlace(parent, key) { binary, scanner in
            let object = try binary.entryObject(index, scanner: scanner)
            switch object.kind {
            case .asciiString:
                guard layout == .propertyList else { return false }
                return ("$null" as StaticString).withUTF8Buffer { scanner.asciiStringEquals(object, $0) }
            case .utf16String:
                guard layout == .propertyList else { return false }
                return try scanner.string(object) == "$null"
            case .dictionary:
                guard let shape = try shape(of: object, scanner),
                    let kind = try classKind(of: object, shape, scanner, parent: parent, key: key)
                else { return nil }
                return kind == .null
            default:
                return false
            }
        }
    }

    /// The keyed container of `$objects[index]` read in place: an object's fields, or an
    /// `NSDictionary` whose keys are distinct strings.
    func binaryKeyedSource(_ index: Int, parent: CodablePath?, key: (any CodingKey)?) throws -> KeyedSource? {
        try inPlace(parent, key) { binary, scanner in
            let object = try binary.entryObject(index, scanner: scanner)
            guard object.kind == .dictionary, let shape = try shape(of: object, scanner),
                let kind = try classKind(of: object, shape, scanner, parent: parent, key: key)
            else { return nil }
            switch kind {
            case .dictionary:
                guard let keysPosition = shape.keysPosition, let objectsPosition = shape.objectsPosition
                else {
                    return nil
                }
                let keyArray = try scanner.object(scanner.reference(object, at: object.count + keysPosition))
                let valueArray = try scanner.object(
                    scanner.reference(object, at: object.count + objectsPosition))
                guard keyArray.kind == .array, valueArray.kind == .array, keyArray.count == valueArray.count,
                    let keys = try dictionaryKeys(keyArray, scanner)
                else { return nil }
                return KeyedSource(keys: keys, binaryValues: valueArray, base: 0, isObjectFields: false)
            case .collection:
                return nil
            default:
                guard layout == .objects else { return nil }
                return KeyedSource(
                    keys: shape.keys, binaryValues: object, base: object.count, isObjectFields: true)
            }
        }
    }

    /// The elements of the `NSArray` (or set) `$objects[index]`, read in place.
    func binaryElements(_ index: Int, parent: CodablePath?, key: (any CodingKey)?) throws -> ElementSource? {
        try inPlace(parent, key) { binary, scanner in
            let object = try binary.entryObject(index, scanner: scanner)
            guard object.kind == .dictionary, let shape = try shape(of: object, scanner),
                let kind = try classKind(of: object, shape, scanner, parent: parent, key: key),
                kind == .collection,
                let objectsPosition = shape.objectsPosition
            else { return nil }
            let array = try scanner.object(scanner.reference(object, at: object.count + objectsPosition))
            guard array.kind == .array else { return nil }
            return ElementSource(binaryArray: array)
        }
    }

    // MARK: Shapes

    /// The shape of the object dictionary `object`, or `nil` when a key is not a string or
    /// repeats.
    func shape(of object: BinaryPropertyListObject, _ scanner: BinaryPropertyListScanner) throws
        -> BinaryObjectShape?
    {
        let count = object.count
        let first = count > 0 ? try scanner.reference(object, at: 0) : -1
        // Direct-mapped by the key count and the first key: objects of one class hit the
        // same slot (which other shapes may share, so every reference is compared).
        let slot = (first &* 31 &+ count) & (Self.shapeCacheSize - 1)
        if shapes.isEmpty { shapes = [BinaryObjectShape?](repeating: nil, count: Self.shapeCacheSize) }
        if let shape = shapes[slot], shape.keyReferences.count == count,
            try references(of: object, equal: shape.keyReferences, scanner)
        {
            return shape
        }
        guard let (references, keys) = try keyTexts(of: object, throughUIDs: false, scanner) else {
            return nil
        }
        let shape = BinaryObjectShape(keyReferences: references, keys: keys)
        shapes[slot] = shape
        return shape
    }

    /// Slots of the shape cache (a power of two).
    private static var shapeCacheSize: Int { 16 }

    /// The class kind of an object of `shape`, or `nil` when its `$class` is not a valid
    /// reference.
    func classKind(
        of object: BinaryPropertyListObject, _ shape: BinaryObjectShape, _ scanner: BinaryPropertyListScanner,
        parent: CodablePath?, key: (any CodingKey)?
    ) throws -> ClassKind? {
        guard let classPosition = shape.classPosition,
            let raw = try uidValue(scanner.reference(object, at: object.count + classPosition), scanner),
            raw > 0, raw < UInt64(source.objectCount)
        else { return nil }
        return try classKind(uid: Int(raw), parent: parent, key: key)
    }

    /// The value of the UID object `reference`, or `nil` when it is another kind: read
    /// without decoding a general object record, as most values of an archive are UIDs.
    @inline(__always)
    func uidValue(_ reference: Int, _ scanner: BinaryPropertyListScanner) throws -> UInt64? {
        let offset = try scanner.offset(of: reference)
        let marker = scanner.byte(offset)
        guard marker & 0xF0 == 0x80 else { return nil }
        let width = Int(marker & 0x0F) + 1
        guard width <= 8, width <= scanner.objectsEnd - offset - 1 else { return nil }
        return scanner.unsigned(offset + 1, width: width)
    }

    /// The keys of an `NSDictionary` (`NS.keys`, references to strings), or `nil` when
    /// one is not a plain string or repeats. Dictionaries of one type share their key
    /// references, so the last keys are reused when the references match.
    private func dictionaryKeys(_ array: BinaryPropertyListObject, _ scanner: BinaryPropertyListScanner)
        throws
        -> [String]?
    {
        if array.count == lastBinaryKeyReferences.count,
            try references(of: array, equal: lastBinaryKeyReferences, scanner)
        {
            return lastBinaryKeys
        }
        guard let (references, keys) = try keyTexts(of: array, throughUIDs: true, scanner) else { return nil }
        lastBinaryKeyReferences = references
        lastBinaryKeys = keys
        return keys
    }

    // MARK: Key lists

    /// Whether the first `stored.count` references of `container` are those of `stored`.
    @inline(__always)
    private func references(
        of container: BinaryPropertyListObject, equal stored: [Int], _ scanner: BinaryPropertyListScanner
    ) throws -> Bool {
        var position = 0
        while position < stored.count {
            if try scanner.reference(container, at: position) != stored[position] { return false }
            position += 1
        }
        return true
    }

    /// The first `container.count` references of `container` (an object's keys, or an
    /// `NS.keys` array whose elements are UIDs of `$objects` entries when `throughUIDs`),
    /// with the texts of the strings they lead to; `nil` when one is not a string or a
    /// text repeats.
    private func keyTexts(
        of container: BinaryPropertyListObject, throughUIDs: Bool, _ scanner: BinaryPropertyListScanner
    ) throws -> (references: [Int], keys: [String])? {
        let count = container.count
        var references: [Int] = []
        references.reserveCapacity(count)
        var keys: [String] = []
        keys.reserveCapacity(count)
        var seen: Set<String> = []
        for position in 0..<count {
            let reference = try scanner.reference(container, at: position)
            let string: BinaryPropertyListObject
            if throughUIDs {
                guard let raw = try uidValue(reference, scanner), raw > 0,
                    raw < UInt64(source.objectCount)
                else { return nil }
                string = try source.entryObject(Int(raw), scanner: scanner)
            } else {
                string = try scanner.object(reference)
            }
            guard string.kind == .asciiString || string.kind == .utf16String else { return nil }
            let text = try scanner.string(string)
            guard seen.insert(text).inserted else { return nil }
            references.append(reference)
            keys.append(text)
        }
        return (references, keys)
    }
}

// MARK: - Quick reads

/// The hot path of the containers: a value read in place with no coding path at hand.
///
/// Each method returns `nil` whenever the value is not plainly what was asked for (a nil
/// reference, another kind, a number out of range, damaged bytes); the container then
/// takes the general path, which gives the result or the error with its coding path.
/// Building the path (boxing keys, linking nodes) for every value would cost more than
/// reading it.
extension CodableArchiveReader {
    /// The object at reference `position` of `container`, or the `$objects` entry it refers to.
    @inline(__always)
    private func quickObject(_ container: BinaryPropertyListObject, at position: Int)
        -> BinaryPropertyListObject?
    {
        guard let scanner, let reference = try? scanner.reference(container, at: position) else {
            return nil
        }
        guard let raw = try? uidValue(reference, scanner) else { return try? scanner.object(reference) }
        guard raw > 0, raw < UInt64(source.objectCount) else { return nil }
        return try? source.entryObject(Int(raw), scanner: scanner)
    }

    /// A primitive at `position` of a keyed container.
    ///
    /// - Parameter optional: The value is decoded with `decodeIfPresent`, so the string
    ///   `$null` means nil (property-list layout) and is left to the general path.
    @inline(__always)
    func quickPrimitive<T: ArchivePrimitive>(
        _ type: T.Type, in source: KeyedSource, at position: Int, optional: Bool = false
    ) -> T? {
        guard let container = source.binaryValues else { return nil }
        return quickPrimitive(T.self, container, at: source.binaryBase + position, optional: optional)
    }

    /// A primitive at element `index` of an unkeyed container.
    @inline(__always)
    func quickPrimitive<T: ArchivePrimitive>(
        _ type: T.Type, in elements: ElementSource, at index: Int
    ) -> T? {
        guard let array = elements.binaryArray, index < array.count else { return nil }
        return quickPrimitive(T.self, array, at: index, optional: false)
    }

    private func quickPrimitive<T: ArchivePrimitive>(
        _ type: T.Type, _ container: BinaryPropertyListObject, at position: Int, optional: Bool
    ) -> T? {
        guard let scanner, let object = quickObject(container, at: position) else { return nil }
        switch object.kind {
        case .array, .set, .uid:
            return nil
        case .dictionary:
            guard T.self == Date.self, let date = quickDate(object, scanner) else { return nil }
            return date as? T
        case .asciiString where optional && layout == .propertyList:
            let isNull = ("$null" as StaticString).withUTF8Buffer { scanner.asciiStringEquals(object, $0) }
            guard !isNull, let plain = try? scanner.scalar(object) else { return nil }
            return try? T(archiveValue: plain)
        case .utf16String where optional && layout == .propertyList:
            return nil
        default:
            guard let plain = try? scanner.scalar(object) else { return nil }
            return try? T(archiveValue: plain)
        }
    }

    /// The date of an `NSDate` object.
    private func quickDate(_ object: BinaryPropertyListObject, _ scanner: BinaryPropertyListScanner) -> Date?
    {
        guard let shape = try? shape(of: object, scanner), let position = shape.timePosition,
            (try? classKind(of: object, shape, scanner, parent: nil, key: nil)) == .date,
            let reference = try? scanner.reference(object, at: object.count + position),
            let offset = try? scanner.offset(of: reference)
        else { return nil }
        // NS.time is a real of 8 bytes (marker 0x23) whenever Foundation or this library wrote it.
        guard scanner.byte(offset) == 0x23, 8 <= scanner.objectsEnd - offset - 1 else {
            guard let time = try? scanner.object(reference), time.kind == .real || time.kind == .integer,
                let plain = try? scanner.scalar(time), let seconds = try? ArchiveScalar.double(plain)
            else { return nil }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        return Date(
            timeIntervalSinceReferenceDate: Double(bitPattern: scanner.unsigned(offset + 1, width: 8)))
    }
}

// The containers are generic over their key type and reached through the standard
// library's type-erasing box, so their code is not specialized: a generic helper called
// from them would look up `T?` metadata at run time on every value. These concrete entry
// points keep the common primitives free of it.
extension CodableArchiveReader {
    func quickString(in source: KeyedSource, at position: Int, optional: Bool = false) -> String? {
        quickPrimitive(String.self, in: source, at: position, optional: optional)
    }

    func quickInt(in source: KeyedSource, at position: Int, optional: Bool = false) -> Int? {
        quickPrimitive(Int.self, in: source, at: position, optional: optional)
    }

    func quickDouble(in source: KeyedSource, at position: Int, optional: Bool = false) -> Double? {
        quickPrimitive(Double.self, in: source, at: position, optional: optional)
    }

    func quickBool(in source: KeyedSource, at position: Int, optional: Bool = false) -> Bool? {
        quickPrimitive(Bool.self, in: source, at: position, optional: optional)
    }

    func quickDate(in source: KeyedSource, at position: Int) -> Date? {
        quickPrimitive(Date.self, in: source, at: position)
    }
}
