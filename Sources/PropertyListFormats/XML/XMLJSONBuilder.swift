#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes the JSON text of an XML property list as the parser reads it, through a
/// ``JSONTextWriter``: each key and scalar is written as it is read, each container as it
/// opens and closes, and no value is kept. The text is the one ``JSONTextWriter/write(_:)``
/// writes for the value reading the document gives, keys in the document's order.
///
/// Two things of a dictionary are known only once it is read whole, and make the builder
/// give up (``failure``), for the caller to go the tree's way: a key given twice (reading
/// keeps the first spelling's place with the last value) and a first key `CF$UID` that
/// the parser did not read as a compact UID (the dictionary may be a UID). Giving up, or a
/// failure of the writer, stops the writing; the parser still reads to the end, so its
/// own errors come first.
struct XMLJSONBuilder: XMLValueBuilder {
    /// Nothing: the values are written, not kept.
    struct Written {}

    private(set) var writer: JSONTextWriter
    private var detectsUIDs = true
    /// Why the text is not the document's, once something went wrong.
    private(set) var failure: (any Error)?
    private(set) var keyCount = 0
    private(set) var valueCount = 0
    /// The open containers: for a dictionary, where its keys start in ``keys``; -1 for
    /// an array.
    private var frames: [Int] = []
    /// The keys of the open dictionaries, innermost last, to find a key given twice.
    private var keys: [KeyIdentity] = []
    /// For open dictionaries of more than ``linearKeyLimit`` keys, by their place in
    /// ``frames``: their keys, so that checking one costs a lookup, not a scan.
    private var largeDictionaries: [Int: Set<KeyIdentity>] = [:]

    private static let linearKeyLimit = 16

    /// A key as compared: ASCII keys of up to 16 bytes by their bytes, longer ones by a
    /// hash of them; other keys by the hash of their `String`, equal for canonically
    /// equivalent spellings, which reading takes for one key (`"e\u{301}"` and `"\u{E9}"`).
    /// Equal hashes of different keys give up, harmlessly.
    private struct KeyIdentity: Hashable {
        var first: UInt64 = 0
        var second: UInt64 = 0
        /// The length; negated when the words are a hash of the bytes, `Int.min` when
        /// they are a hash of the `String`.
        var length = 0

        /// The identity of `text`, or nil for a key equivalent to an ASCII spelling of
        /// itself (`"\u{212A}"`, the Kelvin sign, is `"K"`), which is not looked for.
        init?(_ text: UnsafeBufferPointer<UInt8>) {
            if text.count <= 16 {
                withUnsafeMutableBytes(of: &self.first) {
                    $0.copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(text).prefix(8)))
                }
                if text.count > 8 {
                    withUnsafeMutableBytes(of: &self.second) {
                        $0.copyMemory(
                            from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(text)[8...]))
                    }
                }
                length = text.count
                if (first | second) & 0x8080_8080_8080_8080 == 0 { return }
            } else if !text.contains(where: { $0 >= 0x80 }) {
                var hasher = Hasher()
                hasher.combine(bytes: UnsafeRawBufferPointer(text))
                first = UInt64(truncatingIfNeeded: hasher.finalize())
                second = 0
                length = -text.count
                return
            }
            // Not ASCII. The characters whose canonical decomposition is ASCII: U+212A (K),
            // U+037E (;), U+1FEF (`).
            for index in text.indices where text[index] == 0xE2 || text[index] == 0xCD || text[index] == 0xE1
            {
                let rest = UnsafeBufferPointer(rebasing: text[index...])
                if rest.starts(with: [0xE2, 0x84, 0xAA]) || rest.starts(with: [0xCD, 0xBE])
                    || rest.starts(with: [0xE1, 0xBF, 0xAF])
                {
                    return nil
                }
            }
            first = UInt64(truncatingIfNeeded: String(decoding: text, as: UTF8.self).hashValue)
            second = 0
            length = .min
        }
    }

    init(inputLength: Int) {
        writer = JSONTextWriter(prettyPrinted: false, sortsKeys: false)
    }

    /// - Parameter detectsUIDs: Whether a dictionary may be a UID, as in XML (`false` for
    ///   JSON input, where `{"CF$UID": 1}` stays a dictionary).
    init(writer: JSONTextWriter, detectsUIDs: Bool = true) {
        self.writer = writer
        self.detectsUIDs = detectsUIDs
    }

    /// Stops writing: the text will not be the document's.
    private mutating func giveUp(_ error: any Error) {
        if failure == nil { failure = error }
    }

    private mutating func write(_ body: (inout JSONTextWriter) throws -> Void) {
        guard failure == nil else { return }
        do {
            try body(&writer)
        } catch {
            failure = error
        }
    }

    mutating func restart(inputLength: Int) {
        keyCount = 0
        valueCount = 0
        frames.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        largeDictionaries.removeAll()
        if writer.restart() {
            failure = nil
        } else {
            giveUp(
                KeyedArchiveError(
                    .unsupportedFormat, "the document is read again after part of its JSON was written"))
        }
    }

    mutating func open(dictionary: Bool) {
        frames.append(dictionary ? keys.count : -1)
        write { try $0.openContainer(isArray: !dictionary) }
    }

    mutating func pushKey(_ text: UnsafeBufferPointer<UInt8>, readable: Int) {
        keyCount += 1
        guard failure == nil, let keyStart = frames.last, keyStart >= 0 else { return }
        guard let identity = KeyIdentity(text) else {
            giveUp(KeyedArchiveError(.unsupportedFormat, "a key equivalent to an ASCII spelling"))
            return
        }
        let depth = frames.count - 1
        let count = keys.count - keyStart
        if detectsUIDs, count == 0, text.elementsEqual("CF$UID".utf8) {
            giveUp(
                KeyedArchiveError(
                    .unsupportedFormat, "a dictionary starting with the key CF$UID may be a UID"))
            return
        }
        var given = false
        if count < Self.linearKeyLimit {
            given = keys[keyStart...].contains(identity)
            keys.append(identity)
        } else if count == Self.linearKeyLimit {
            var set = Set(keys[keyStart...])
            given = !set.insert(identity).inserted
            largeDictionaries[depth] = set
            keys.append(identity)
        } else {
            given = largeDictionaries[depth]?.insert(identity).inserted == false
        }
        if given {
            giveUp(
                KeyedArchiveError(
                    .unsupportedFormat,
                    "the key \"\(String(decoding: text, as: UTF8.self))\" is given twice in a dictionary"))
            return
        }
        writer.writeKey(utf8: text)
    }

    func key(at position: Int) -> String? { nil }

    mutating func push(_ value: Written) { valueCount += 1 }

    mutating func string(_ text: UnsafeBufferPointer<UInt8>) -> Written {
        write { try $0.writeStringValue(utf8: text) }
        return Written()
    }

    mutating func integer(_ value: PropertyListInteger) -> Written { scalar(.integer(value)) }
    mutating func real(_ value: Double) -> Written { scalar(.real(value)) }
    mutating func date(_ seconds: Double) -> Written {
        scalar(.date(Date(timeIntervalSinceReferenceDate: seconds)))
    }
    mutating func data(_ bytes: Data) -> Written { scalar(.data(bytes)) }
    mutating func bool(_ value: Bool) -> Written { scalar(.bool(value)) }
    mutating func uid(_ value: UInt64) -> Written { scalar(.uid(value)) }

    private mutating func scalar(_ value: PropertyList) -> Written {
        write { try $0.writeScalarValue(value) }
        return Written()
    }

    mutating func emptyArray() -> Written {
        write { try $0.writeEmptyContainer(isArray: true) }
        return Written()
    }

    mutating func emptyDictionary() -> Written {
        write { try $0.writeEmptyContainer(isArray: false) }
        return Written()
    }

    mutating func array(from valueStart: Int) -> Written {
        valueCount = valueStart
        close()
        return Written()
    }

    mutating func dictionary(keysFrom keyStart: Int, valuesFrom valueStart: Int) -> XMLDictionaryResult<
        Written
    > {
        keyCount = keyStart
        valueCount = valueStart
        close()
        return .value(Written())
    }

    private mutating func close() {
        if let keyStart = frames.popLast(), keyStart >= 0 {
            if keys.count - keyStart > Self.linearKeyLimit { largeDictionaries[frames.count] = nil }
            keys.removeLast(keys.count - keyStart)
        }
        write { try $0.closeContainer() }
    }
}
