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

    /// A key as compared: keys of up to 16 bytes by their bytes, longer ones by a hash of
    /// them (equal hashes of different keys give up, harmlessly).
    private struct KeyIdentity: Hashable {
        var first: UInt64 = 0
        var second: UInt64 = 0
        /// The length, negated when the words are a hash.
        var length = 0

        init(_ text: UnsafeBufferPointer<UInt8>) {
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
            } else {
                var hasher = Hasher()
                hasher.combine(bytes: UnsafeRawBufferPointer(text))
                first = UInt64(truncatingIfNeeded: hasher.finalize())
                length = -text.count
            }
        }
    }

    init(inputLength: Int) {
        writer = JSONTextWriter(prettyPrinted: false, sortsKeys: false)
    }

    init(writer: JSONTextWriter) {
        self.writer = writer
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
        let identity = KeyIdentity(text)
        let depth = frames.count - 1
        let count = keys.count - keyStart
        if count == 0, text.elementsEqual("CF$UID".utf8) {
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
