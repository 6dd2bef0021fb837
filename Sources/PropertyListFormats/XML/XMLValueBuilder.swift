import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``XMLPropertyListParser`` hands the values it reads to; ``JSONTextReader`` and
/// ``OpenStepEventReader`` hand theirs the same way, so that every builder serves every
/// text format.
///
/// The parser checks the document and keeps the stack of open containers; a builder makes
/// values and keeps the children of open containers on its own stacks, which the parser
/// addresses by position (``keyCount`` and ``valueCount`` when a container opened). Two
/// builders share the one parser, so all accept and refuse exactly the same documents:
/// ``XMLTreeBuilder`` makes a ``PropertyList``; ``XMLBinaryBuilder`` writes a binary
/// property list holding the same value, with no tree in between; ``XMLJSONBuilder``
/// writes its JSON text as the document is read.
///
/// In document order, a builder is told of each non-empty container as it opens
/// (``open(dictionary:)``), of each key and scalar as it is read, and of each container as
/// it closes (``array(from:)``, ``dictionary(keysFrom:valuesFrom:)``): the events a
/// streaming writer consumes.
protocol XMLValueBuilder {
    associatedtype Value

    /// A builder with empty stacks, for a document of `inputLength` bytes.
    init(inputLength: Int)

    /// The keys on the key stack.
    var keyCount: Int { get }
    /// The values on the value stack.
    var valueCount: Int { get }

    /// Pushes the key of the next dictionary entry: its UTF-8 bytes, valid only during the
    /// call, of which `readable` bytes from the start (at least `text.count`) may be read.
    mutating func pushKey(_ text: UnsafeBufferPointer<UInt8>, readable: Int)
    /// Pushes a key of non-ASCII text the parser validated (valid only during the call): a
    /// builder that makes `String`s need not validate it again.
    mutating func pushKey(wellFormed text: WellFormedUTF8)
    /// The key at `position` on the key stack, for messages.
    func key(at position: Int) -> String?
    /// Pushes the next child of the innermost open container.
    mutating func push(_ value: Value)

    /// A string from its UTF-8 bytes, valid only during the call.
    mutating func string(_ text: UnsafeBufferPointer<UInt8>) -> Value
    /// A string from bytes the parser validated (valid only during the call): a builder that
    /// makes `String`s need not validate them again.
    mutating func string(wellFormed text: WellFormedUTF8) -> Value
    mutating func integer(_ value: PropertyListInteger) -> Value
    mutating func real(_ value: Double) -> Value
    /// A date, as seconds since 2001-01-01 (always finite).
    mutating func date(_ seconds: Double) -> Value
    mutating func data(_ bytes: Data) -> Value
    mutating func bool(_ value: Bool) -> Value
    mutating func uid(_ value: UInt64) -> Value
    mutating func emptyArray() -> Value
    mutating func emptyDictionary() -> Value

    /// Pops the values from `valueStart` on into an array.
    mutating func array(from valueStart: Int) -> Value
    /// Pops the keys from `keyStart` and the values from `valueStart` on (as many) into a
    /// dictionary; or into a UID when its only entry, duplicates merged, is `CF$UID` with
    /// an integer (CoreFoundation's rule): when every key's text is `CF$UID` and the last
    /// value is an integer. Every builder decides by the keys' text, so that every reading
    /// of a document agrees.
    mutating func dictionary(keysFrom keyStart: Int, valuesFrom valueStart: Int) -> XMLDictionaryResult<Value>

    /// A non-empty `<array>` (or `<dict>`, when `dictionary`) opens: its children follow,
    /// then ``array(from:)`` or ``dictionary(keysFrom:valuesFrom:)`` closes it. (A `<dict>`
    /// read as a compact UID is not opened: it is one ``uid(_:)``.)
    mutating func open(dictionary: Bool)

    /// Forgets everything built: the parser reads the value again from its start.
    mutating func restart(inputLength: Int)
}

extension XMLValueBuilder {
    /// Builders that make no `String` read the bytes.
    @inline(__always)
    mutating func string(wellFormed text: WellFormedUTF8) -> Value { string(text.bytes) }

    /// Builders that make no `String` read the bytes.
    @inline(__always)
    mutating func pushKey(wellFormed text: WellFormedUTF8) { pushKey(text.bytes, readable: text.bytes.count) }

    /// Builders that make values bottom-up need not know.
    @inline(__always)
    mutating func open(dictionary: Bool) {}

    @inline(__always)
    mutating func restart(inputLength: Int) { self = Self(inputLength: inputLength) }
}

/// What closing a `<dict>` gives.
enum XMLDictionaryResult<Value> {
    case value(Value)
    /// The dictionary is a UID whose number is negative or beyond 64 bits.
    case uidOutOfRange(PropertyListInteger)
}

/// Builds a ``PropertyList`` tree.
struct XMLTreeBuilder: XMLValueBuilder {
    private let keys = Stack<String>()
    private let values = Stack<PropertyList>()
    private let buildsSmallStrings = SmallText.isAvailable

    init(inputLength: Int) {}

    var keyCount: Int { keys.count }
    var valueCount: Int { values.count }

    // Inlined into the parser's loop, as it was before the split into modules
    // (callgrind, `plist/…/parse/xml`: out of line it cost +1.3%).
    // Short ASCII keys are built in place by `SmallText` from the input's bytes (parse-xml
    // small archive −6.3%, numbers −5.0%, flat −4.0%, strings −2.3%, non-ASCII −0.7%); other
    // ASCII keys are scanned once and not validated again by the standard library (flat
    // −1.3%, archive −1.0%); non-ASCII keys the quick reading validated come through
    // `pushKey(wellFormed:)`. `<string>` text the quick reading read comes as
    // `WellFormedUTF8`, ASCII known from its scan (a second scan here measured +1.5% on
    // string-heavy XML; `SmallText` for short text archive/flat −1.0/−1.1% but
    // strings/non-ASCII +0.5/+0.3%); other text through `String(decoding:)`.
    @inline(__always)
    func pushKey(_ text: UnsafeBufferPointer<UInt8>, readable: Int) {
        // Short ASCII keys (most) built in place from the readable bytes (``SmallText``).
        if buildsSmallStrings, text.count <= 15, let base = text.baseAddress,
            let key = SmallText.string(
                UnsafeBufferPointer(start: base, count: Swift.max(readable, text.count)), from: 0,
                to: text.count)
        {
            keys.push(key)
            return
        }
        keys.push(WellFormedUTF8.string(ifASCII: text) ?? String(decoding: text, as: UTF8.self))
    }

    /// A non-ASCII key the quick reading validated, made without validating it again.
    @inline(__always)
    func pushKey(wellFormed text: WellFormedUTF8) {
        keys.push(text.string(from: 0, to: text.bytes.count))
    }

    func key(at position: Int) -> String? { keys[position] }

    func push(_ value: PropertyList) { values.push(value) }

    func string(_ text: UnsafeBufferPointer<UInt8>) -> PropertyList {
        .string(String(decoding: text, as: UTF8.self))
    }

    func string(wellFormed text: WellFormedUTF8) -> PropertyList {
        .string(text.string(from: 0, to: text.bytes.count))
    }

    func integer(_ value: PropertyListInteger) -> PropertyList { .integer(value) }
    func real(_ value: Double) -> PropertyList { .real(value) }
    func date(_ seconds: Double) -> PropertyList { .date(Date(timeIntervalSinceReferenceDate: seconds)) }
    func data(_ bytes: Data) -> PropertyList { .data(bytes) }
    func bool(_ value: Bool) -> PropertyList { .bool(value) }
    func uid(_ value: UInt64) -> PropertyList { .uid(value) }
    func emptyArray() -> PropertyList { .array([]) }
    func emptyDictionary() -> PropertyList { .dictionary(PropertyListDictionary()) }

    func array(from valueStart: Int) -> PropertyList {
        .array(values.popArray(from: valueStart))
    }

    func dictionary(keysFrom keyStart: Int, valuesFrom valueStart: Int) -> XMLDictionaryResult<PropertyList> {
        let entryCount = values.count - valueStart
        if entryCount == 1, keys[keyStart] == "CF$UID", case .integer(let number) = values[valueStart] {
            // The common case, without building a dictionary.
            keys.pop(from: keyStart) { _, _ in }
            values.pop(from: valueStart) { _, _ in }
            guard let uid = number.uint64Value else { return .uidOutOfRange(number) }
            return .value(.uid(uid))
        }
        // Keys and values moved out as two arrays, which become the dictionary's storage
        // when the keys are distinct (checked by their bytes where that is exact: setting
        // entries one by one compared each key with `==`, which normalizes non-ASCII text).
        let dictionary = PropertyListDictionary(
            readKeys: keys.popArray(from: keyStart), values: values.popArray(from: valueStart))
        if dictionary.count == 1, case .integer(let number) = dictionary["CF$UID"] {
            guard let uid = number.uint64Value else { return .uidOutOfRange(number) }
            return .value(.uid(uid))
        }
        return .value(.dictionary(dictionary))
    }
}

/// Writes a binary property list as the parser reads, through a
/// ``BinaryPropertyListStream``: values are object numbers, and each container is written
/// when it closes.
///
/// Short keys are written once each while they stay in a small table of recent keys
/// (objects of one class repeat the same few keys, and readers recognise an object's
/// layout by its key references); `CF$UID` always once; other values are written where
/// they occur. A dictionary's entries are written as the document lists them, duplicates
/// included: the binary readers merge duplicate keys as the XML reader does (the first
/// spelling, the last value), so the value read back is the same.
struct XMLBinaryBuilder: XMLValueBuilder {
    private let stream: BinaryPropertyListStream
    private let keys = Stack<UInt32>()
    private let values = Stack<UInt32>(capacity: 256)
    /// The object of the key `CF$UID`, once one was read: the only object of that text,
    /// so that a dictionary is told to be a UID by its keys' objects, which is by their
    /// text (the table of recent keys may forget a key and write it again).
    private var uidKey = -1
    /// Whether a dictionary whose keys are all `CF$UID`, the last value an integer, is
    /// a UID (XML's rule; not JSON's).
    var convertsUIDs = true
    /// Short keys read so far, by a hash of their bytes (see ``keyObject(_:)``).
    private let recentKeys = RecentKeyTable()

    private struct RecentKey {
        /// The key's bytes, zero-padded.
        var words: (UInt64, UInt64) = (0, 0)
        var count = 0
        var object = -1
        /// The slot of the key read after this one last time: objects of one class list
        /// the same keys in the same order, so it is compared first, without hashing.
        var following = 0
    }

    /// The 64 slots of ``recentKeys``, read and written in place (an array there cost a
    /// bounds check on each read and a uniqueness check on each write, for every key), and
    /// the slot of the last key read.
    private final class RecentKeyTable {
        static let slotCount = 64
        let slots: UnsafeMutablePointer<RecentKey>
        var last = 0

        init() {
            slots = .allocate(capacity: Self.slotCount)
            slots.initialize(repeating: RecentKey(), count: Self.slotCount)
        }

        deinit {
            slots.deinitialize(count: Self.slotCount)
            slots.deallocate()
        }
    }

    var keyCount: Int { keys.count }
    var valueCount: Int { values.count }

    /// A builder for a document of `inputLength` bytes: binary output takes about a fifth
    /// of the XML, and an object about 50 bytes of it. An archive's UIDs count its objects,
    /// which take at least 7 bytes of XML each and usually far more: UIDs below a sixteenth
    /// of the input's length are shared, through a table of at most a quarter of that
    /// length; larger ones, which only archives of tiny objects reach, are written each
    /// time (a longer result, the same value).
    init(inputLength: Int) {
        stream = BinaryPropertyListStream(
            expectedBytes: inputLength / 4 + 256, expectedObjects: inputLength / 48,
            sharedUIDLimit: inputLength / 16 + 1024)
    }

    mutating func pushKey(_ text: UnsafeBufferPointer<UInt8>, readable: Int) {
        keys.push(UInt32(truncatingIfNeeded: keyObject(text, readable: readable)))
    }

    /// The object of a key's string: short keys are looked up by their bytes in a small
    /// open-addressed table (the key that followed the last one, last time, compared first)
    /// and written once; longer ones (rare) are written each time.
    @inline(__always)
    private mutating func keyObject(_ text: UnsafeBufferPointer<UInt8>, readable: Int) -> Int {
        guard text.count <= 16 else { return addKey(text) }
        var words: (UInt64, UInt64) = (0, 0)
        if readable >= 16, let base = text.baseAddress {
            // Two words read in place, the bytes past the key masked off.
            let raw = UnsafeRawPointer(base)
            let first = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            let second = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            let count = text.count
            words.0 = count >= 8 ? first : first & (1 << UInt64(count * 8) &- 1)
            words.1 = count <= 8 ? 0 : count == 16 ? second : second & (1 << UInt64((count - 8) * 8) &- 1)
        } else {
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(text)) }
        }
        let table = recentKeys
        let slots = table.slots
        let predicted = slots[table.last].following
        let guess = slots[predicted]
        if guess.count == text.count, guess.words == words, guess.object >= 0 {
            table.last = predicted
            return guess.object
        }
        let mixed =
            (words.0 ^ (words.1 &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(text.count)) &* 0x9E37_79B9_7F4A_7C15
        // A few probes; when they are all taken, the first slot is replaced.
        let first = Int(truncatingIfNeeded: mixed >> 58)
        var found = first
        var object = -1
        for probe in 0..<4 {
            let slot = (first &+ probe) & (RecentKeyTable.slotCount - 1)
            let known = slots[slot]
            if known.object < 0 {
                found = slot
                break
            }
            if known.count == text.count, known.words == words {
                found = slot
                object = known.object
                break
            }
        }
        if object < 0 {
            object = addKey(text)
            slots[found] = RecentKey(words: words, count: text.count, object: object)
        }
        slots[table.last].following = found
        table.last = found
        return object
    }

    /// Writes a key the table did not know; `CF$UID` only the first time.
    private mutating func addKey(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        if text.count == 6, text.elementsEqual("CF$UID".utf8) {
            if uidKey < 0 { uidKey = stream.addString(utf8: text) }
            return uidKey
        }
        return stream.addString(utf8: text)
    }

    func key(at position: Int) -> String? {
        guard let key = keys[position] else { return nil }
        return stream.stringValue(of: Int(key))
    }

    mutating func push(_ value: Int) { values.push(UInt32(truncatingIfNeeded: value)) }

    mutating func string(_ text: UnsafeBufferPointer<UInt8>) -> Int { stream.addString(utf8: text) }
    mutating func integer(_ value: PropertyListInteger) -> Int { stream.addInteger(value) }
    @inline(__always)
    mutating func real(_ value: Double) -> Int { stream.addReal(value) }
    mutating func date(_ seconds: Double) -> Int { stream.addDate(seconds) }
    mutating func data(_ bytes: Data) -> Int { stream.addData(bytes) }
    mutating func bool(_ value: Bool) -> Int { stream.addBool(value) }
    @inline(__always)
    mutating func uid(_ value: UInt64) -> Int { stream.addUID(value) }

    mutating func emptyArray() -> Int {
        stream.addArray(UnsafeBufferPointer(start: nil, count: 0))
    }

    mutating func emptyDictionary() -> Int {
        stream.addDictionary(
            keys: UnsafeBufferPointer(start: nil, count: 0), values: UnsafeBufferPointer(start: nil, count: 0)
        )
    }

    @inline(__always)
    mutating func array(from valueStart: Int) -> Int {
        let object = stream.addArray(values.elements(from: valueStart))
        values.removeAll(from: valueStart)
        return object
    }

    mutating func dictionary(keysFrom keyStart: Int, valuesFrom valueStart: Int) -> XMLDictionaryResult<Int> {
        let keyObjects = keys.elements(from: keyStart)
        let valueObjects = values.elements(from: valueStart)
        // The stacks are cut after the result is written, not in a `defer` (which the
        // compiler outlined into a call per dictionary).
        let result: XMLDictionaryResult<Int>
        // Every key `CF$UID` (that text has one object) and the last value an integer: the
        // dictionary the tree builder merges to one entry, a UID.
        if convertsUIDs, uidKey >= 0, !keyObjects.isEmpty, keyObjects.allSatisfy({ Int($0) == uidKey }),
            let last = valueObjects.last, let number = stream.integerValue(of: Int(last))
        {
            if let uid = number.uint64Value {
                result = .value(stream.addUID(uid))
            } else {
                result = .uidOutOfRange(number)
            }
        } else {
            result = .value(stream.addDictionary(keys: keyObjects, values: valueObjects))
        }
        keys.removeAll(from: keyStart)
        values.removeAll(from: valueStart)
        return result
    }

    /// The binary property list, `top` its root.
    func finish(topObject top: Int) throws -> Data {
        try stream.finish(topObject: top)
    }
}
