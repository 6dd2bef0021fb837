#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A one-pass reader for the common shape of an iMessage body: an `NSAttributedString` (or
/// mutable one) whose text is an `NSString` and whose attribute values are strings,
/// numbers, data and absolute URLs. It builds the ``ArchivedAttributedString`` as it reads,
/// without the generic graph, and gives up (`nil`) on anything else — another class, a
/// relative URL, bytes after the root, any malformation — so that the caller reads the
/// stream with ``TypedStreamUnarchiver``, which handles everything and reports errors.
/// Both give the same value wherever this one answers (tested on every fixture).
///
/// Every read is bounds-checked; nesting is fixed (root, text, dictionary, value, and a
/// URL's string), so no input drives recursion; no count reserves memory.
struct TypedStreamBodyReader {
    /// The head bytes and the header's layout, shared with the general reader.
    private typealias Tag = TypedStreamReader

    private enum Entry {
        case placeholder
        /// A class: the catalogue's class of that name among those read here (`nil` for
        /// another), and the length of its chain.
        case `class`(CataloguedClass?, chainLength: Int)
        case cString(UInt8)
        case value(ArchivedAttributeValue)
    }

    /// A class of one of these chains, as far as an iMessage body reads it.
    private typealias ClassKind = CataloguedClass?

    /// The classes an iMessage body holds, looked up from the bytes of a class name.
    private static let classNames = ClassNameTable([
        .string, .mutableString, .number, .dictionary, .mutableDictionary, .data, .mutableData, .url,
        .attributedString, .mutableAttributedString,
    ])

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private var littleEndian = true
    private var strings: [Range<Int>] = []
    private var entries: [Entry] = []

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        strings.reserveCapacity(24)
        entries.reserveCapacity(32)
    }

    /// The attributed string of `data`, or `nil` when it is not of the common shape.
    static func attributedString(_ data: Data, maximumObjectCount: Int) -> ArchivedAttributedString? {
        data.withUnsafeBytes { buffer in
            var reader = TypedStreamBodyReader(bytes: buffer)
            guard let string = reader.readRoot(), reader.entries.count <= maximumObjectCount else {
                return nil
            }
            return string
        }
    }

    // MARK: - Primitives (any failure is nil)

    private mutating func head() -> Int8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return Int8(bitPattern: bytes[position])
    }

    private mutating func raw(_ count: Int) -> UInt64? {
        guard count <= bytes.count - position else { return nil }
        var value: UInt64 = 0
        for index in 0..<count {
            let byte = UInt64(bytes[position + (littleEndian ? count - 1 - index : index)])
            value = value << 8 | byte
        }
        position += count
        return value
    }

    private mutating func signed(_ head: Int8) -> Int64? {
        if !TypedStreamReader.isTag(head) { return Int64(head) }
        switch head {
        case Tag.tagInteger2: return raw(2).map { Int64(Int16(truncatingIfNeeded: $0)) }
        case Tag.tagInteger4: return raw(4).map { Int64(Int32(truncatingIfNeeded: $0)) }
        case Tag.tagInteger8: return raw(8).map { Int64(bitPattern: $0) }
        default: return nil
        }
    }

    private mutating func unsigned(_ head: Int8) -> UInt64? {
        if !TypedStreamReader.isTag(head) { return UInt64(UInt8(bitPattern: head)) }
        switch head {
        case Tag.tagInteger2: return raw(2)
        case Tag.tagInteger4: return raw(4)
        case Tag.tagInteger8: return raw(8)
        default: return nil
        }
    }

    private mutating func reference(_ head: Int8) -> Int? {
        guard let raw = signed(head), let index = TypedStreamReader.referenceIndex(raw), index < entries.count
        else { return nil }
        return index
    }

    /// A shared string (never nil), as its index.
    private mutating func sharedString() -> Int? {
        guard let first = head() else { return nil }
        if first == Tag.tagNew {
            guard let lengthHead = head(), lengthHead != Tag.tagNil, let length = unsigned(lengthHead),
                length <= UInt64(bytes.count - position)
            else { return nil }
            strings.append(position..<position + Int(length))
            position += Int(length)
            return strings.count - 1
        }
        guard let raw = signed(first), let index = TypedStreamReader.referenceIndex(raw),
            index < strings.count
        else { return nil }
        return index
    }

    private func stringBytes(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[strings[index]])
    }

    private func isString(_ index: Int, _ expected: StaticString) -> Bool {
        let found = stringBytes(index)
        guard found.count == expected.utf8CodeUnitCount else { return false }
        return found.elementsEqual(
            UnsafeRawBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount))
    }

    /// A group of one type: its encoding string must be `expected`.
    private mutating func group(_ expected: StaticString) -> Bool {
        guard let index = sharedString() else { return false }
        return isString(index, expected)
    }

    private func kind(ofName index: Int) -> ClassKind {
        Self.classNames.lookup(stringBytes(index))
    }

    /// A class chain; the kind of its first class. Refused, as the general reader refuses
    /// them: a reference to a class of this chain (still being read) and a chain longer
    /// than ``TypedStreamReader/maximumClassChainLength``.
    private mutating func classChain() -> ClassKind? {
        guard var next = head() else { return nil }
        let chainStart = entries.count
        // The usual chain: one reference to a class read before (an object of a known class).
        if next != Tag.tagNew, next != Tag.tagNil {
            guard let index = reference(next), case .class(let kind, _) = entries[index] else { return nil }
            return kind
        }
        while next == Tag.tagNew {
            guard entries.count - chainStart < TypedStreamReader.maximumClassChainLength,
                let name = sharedString(), let versionHead = head(), signed(versionHead) != nil
            else {
                return nil
            }
            // Length 0 until the chain's end is known.
            entries.append(.class(kind(ofName: name), chainLength: 0))
            guard let following = head() else { return nil }
            next = following
        }
        var length = 0
        var superclassKind: ClassKind?
        if next != Tag.tagNil {
            guard let index = reference(next), index < chainStart,
                case .class(let kind, let superLength) = entries[index]
            else { return nil }
            (superclassKind, length) = (kind, superLength)
        }
        let newClasses = entries.count - chainStart
        guard newClasses <= TypedStreamReader.maximumClassChainLength - length else { return nil }
        var index = entries.count
        while index > chainStart {
            index -= 1
            length += 1
            guard case .class(let kind, _) = entries[index] else { return nil }
            entries[index] = .class(kind, chainLength: length)
        }
        guard newClasses > 0, case .class(let first, _) = entries[chainStart] else { return superclassKind }
        return first
    }

    // MARK: - Objects

    /// An object of one of the handled classes, new or referenced, as its value; only a
    /// string when `stringOnly` (inside a URL, so that no input makes this recurse).
    private mutating func object(stringOnly: Bool = false) -> ArchivedAttributeValue? {
        guard let first = head() else { return nil }
        if first != Tag.tagNew {
            guard let index = reference(first), case .value(let value) = entries[index] else { return nil }
            return value
        }
        let slot = entries.count
        entries.append(.placeholder)
        guard let kind = classChain() else { return nil }
        if stringOnly, kind != .string, kind != .mutableString { return nil }
        let value: ArchivedAttributeValue?
        switch kind {
        case .string, .mutableString: value = stringBody().map { .string($0) }
        case .number: value = numberBody()
        case .data, .mutableData: value = dataBody()
        case .url: value = urlBody()
        default: return nil
        }
        guard let value, head() == Tag.tagEndOfObject else { return nil }
        entries[slot] = .value(value)
        return value
    }

    private mutating func stringBody() -> String? {
        guard group("+"), let lengthHead = head(), let length = unsigned(lengthHead),
            length <= UInt64(bytes.count - position)
        else { return nil }
        let text = String(
            validating: UnsafeRawBufferPointer(rebasing: bytes[position..<position + Int(length)]),
            as: UTF8.self)
        position += Int(length)
        return text
    }

    private mutating func numberBody() -> ArchivedAttributeValue? {
        guard group("*"), let first = head() else { return nil }
        let type: UInt8
        if first == Tag.tagNew {
            guard let index = sharedString(), stringBytes(index).count == 1 else { return nil }
            type = stringBytes(index)[0]
            entries.append(.cString(type))
        } else {
            guard let index = reference(first), case .cString(let found) = entries[index] else { return nil }
            type = found
        }
        guard let encoding = sharedString(), stringBytes(encoding).count == 1,
            stringBytes(encoding)[0] == type
        else {
            return nil
        }
        switch type {
        case UInt8(ascii: "c"):
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return .integer(Int(Int8(bitPattern: bytes[position])))
        case UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"):
            guard let valueHead = head(), let number = signed(valueHead), let fitting = Int(exactly: number)
            else {
                return nil
            }
            return .integer(fitting)
        case UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"):
            guard let valueHead = head(), let number = unsigned(valueHead), let fitting = Int(exactly: number)
            else {
                return nil
            }
            return .integer(fitting)
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            guard let valueHead = head() else { return nil }
            if valueHead == Tag.tagFloatingPoint {
                if type == UInt8(ascii: "f") {
                    return raw(4).map { .real(Double(Float(bitPattern: UInt32($0)))) }
                }
                return raw(8).map { .real(Double(bitPattern: $0)) }
            }
            guard let number = signed(valueHead) else { return nil }
            return .real(type == UInt8(ascii: "f") ? Double(Float(number)) : Double(number))
        default:
            return nil
        }
    }

    private mutating func dataBody() -> ArchivedAttributeValue? {
        guard group("i"), let countHead = head(), let count = signed(countHead), count >= 0,
            count <= Int64(bytes.count - position), let encoding = sharedString()
        else { return nil }
        // "[Nc]" with N the count.
        guard arrayEncoding(encoding, count: Int(count)), Int(count) <= bytes.count - position else {
            return nil
        }
        defer { position += Int(count) }
        return .data(Data(UnsafeRawBufferPointer(rebasing: bytes[position..<position + Int(count)])))
    }

    private func arrayEncoding(_ index: Int, count: Int) -> Bool {
        let text = stringBytes(index)
        let expected = Array("[\(count)c]".utf8)
        return text.elementsEqual(expected)
    }

    private mutating func urlBody() -> ArchivedAttributeValue? {
        guard group("c"), position < bytes.count, bytes[position] == 0 else { return nil }
        position += 1
        guard group("@"), case .string(let text)? = object(stringOnly: true), let url = URL(string: text)
        else {
            return nil
        }
        return .url(url)
    }

    // MARK: - The attributed string

    private mutating func readRoot() -> ArchivedAttributedString? {
        guard bytes.count >= Tag.headerLength, bytes[0] == Tag.currentStreamerVersion,
            Int(bytes[1]) == Tag.signatureLength
        else { return nil }
        let signature = UnsafeRawBufferPointer(rebasing: bytes[2..<Tag.headerLength])
        if signature.elementsEqual(Tag.littleEndianSignature) {
            littleEndian = true
        } else if signature.elementsEqual(Tag.bigEndianSignature) {
            littleEndian = false
        } else {
            return nil
        }
        position = Tag.headerLength
        guard let versionHead = head(), unsigned(versionHead) != nil, group("@"), head() == Tag.tagNew else {
            return nil
        }
        entries.append(.placeholder)
        guard let kind = classChain(), kind == .attributedString || kind == .mutableAttributedString else {
            return nil
        }
        guard group("@"), head() == Tag.tagNew else { return nil }
        let textSlot = entries.count
        entries.append(.placeholder)
        guard let textKind = classChain(), textKind == .string || textKind == .mutableString,
            let text = stringBody(), head() == Tag.tagEndOfObject
        else { return nil }
        entries[textSlot] = .value(.string(text))
        let length = text.utf16.count
        var tables: [[String: ArchivedAttributeValue]] = []
        var runs: [ArchivedAttributedString.Run] = []
        var location = 0
        while true {
            guard let next = head() else { return nil }
            if next == Tag.tagEndOfObject { break }
            position -= 1
            guard group("iI"), let indexHead = head(), let index = signed(indexHead), let lengthHead = head(),
                let runLength = unsigned(lengthHead), runLength <= UInt64(length - location)
            else { return nil }
            if index == Int64(tables.count) + 1 {
                guard let table = dictionary() else { return nil }
                tables.append(table)
            }
            guard index >= 1, index <= Int64(tables.count) else { return nil }
            let end = location + Int(runLength)
            runs.append(
                ArchivedAttributedString.Run(range: location..<end, attributes: tables[Int(index) - 1]))
            location = end
        }
        guard position == bytes.count else { return nil }
        return ArchivedAttributedString(text, runs: runs, isMutable: kind == .mutableAttributedString)
    }

    private mutating func dictionary() -> [String: ArchivedAttributeValue]? {
        guard group("@"), head() == Tag.tagNew else { return nil }
        entries.append(.placeholder)
        guard let kind = classChain(), kind == .dictionary || kind == .mutableDictionary, group("i"),
            let countHead = head(), let count = signed(countHead), count >= 0,
            count <= Int64(bytes.count - position)
        else { return nil }
        var table: [String: ArchivedAttributeValue] = [:]
        table.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard group("@"), case .string(let key)? = object(), group("@"), let value = object() else {
                return nil
            }
            table[key] = value
        }
        guard head() == Tag.tagEndOfObject else { return nil }
        return table
    }
}
