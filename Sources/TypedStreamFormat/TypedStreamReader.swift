#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a whole typedstream into a ``TypedStreamGraph``: the engine behind
/// ``TypedStreamUnarchiver``.
///
/// Every count is checked against the bytes left before anything is reserved, every
/// reference against the table it refers to, nesting against the depth limit and the
/// stack left, and the values built against a budget proportional to the input.
struct TypedStreamReader {
    // Head bytes (signed): tags occupy -128 ... -111, references start at -110.
    static let tagInteger2: Int8 = -127  // 0x81
    static let tagInteger4: Int8 = -126  // 0x82
    static let tagFloatingPoint: Int8 = -125  // 0x83
    static let tagNew: Int8 = -124  // 0x84
    static let tagNil: Int8 = -123  // 0x85
    static let tagEndOfObject: Int8 = -122  // 0x86
    static let tagInteger8: Int8 = -121  // 0x87, written for 64-bit NSNumber values
    static let lastTag: Int8 = -111
    static let firstReference: Int64 = -110

    /// The longest class chain (a class and its superclasses) a stream may describe.
    /// Apple's deepest hierarchies in archives are under a dozen classes
    /// (`NSSecureTextField` < `NSTextField` < `NSControl` < `NSView` < `NSResponder` <
    /// `NSObject`); the bound keeps work that follows chains (`$classes` in the keyed
    /// graph, the archiver) linear in the stream. The catalogue's bound, shared with the
    /// keyed readers.
    static let maximumClassChainLength = ClassCatalogue.maximumChainLength

    /// The table index a reference number stands for, or `nil` when the number is a tag or
    /// so large that subtracting the first reference would overflow.
    @inline(__always)
    static func referenceIndex(_ raw: Int64) -> Int? {
        guard raw >= firstReference else { return nil }
        // raw >= -110, so raw - (-110) = raw + 110 overflows only above Int64.max - 110.
        let (index, overflow) = raw.subtractingReportingOverflow(firstReference)
        return overflow ? nil : Int(index)
    }

    // The header: the streamer version (3 or 4; Apple's writers write 4), the length of the
    // signature, then the signature, whose spelling gives the byte order.
    static let currentStreamerVersion: UInt8 = 4
    static let signatureLength = 11
    static let headerLength = 2 + signatureLength
    static let littleEndianSignature = Array("streamtyped".utf8)
    static let bigEndianSignature = Array("typedstream".utf8)

    /// Whether `data` starts like a typedstream (streamer version, signature).
    static func hasHeader(_ data: Data) -> Bool {
        guard data.count >= headerLength else { return false }
        let prefix = Array(data.prefix(headerLength))
        guard prefix[0] == 3 || prefix[0] == currentStreamerVersion, Int(prefix[1]) == signatureLength else {
            return false
        }
        let signature = Array(prefix[2..<headerLength])
        return signature == littleEndianSignature || signature == bigEndianSignature
    }

    enum Kind: UInt8 {
        case object, `class`, cString
    }

    private let bytes: [UInt8]
    private let options: TypedStreamUnarchivingOptions
    private var position = 0
    private var littleEndian = true
    private var strings: [Range<Int>] = []
    private var stringCache: [String?] = []
    /// Each shared string's bytes, built once: every atom or selector that refers to it
    /// shares them (a 30 KB string referenced 30,000 times is 30 KB, not 900 MB).
    private var dataCache: [Data?] = []
    private var typeCache: [[TypedStreamType]?] = []
    private var nodes: [TypedStreamGraph.Node] = []
    private var kinds: [Kind] = []
    /// Per node: the length of its class chain for a class, 0 for other nodes and for a
    /// class still being read.
    private var chainLengths: [UInt8] = []
    private var budget: Int
    private var depth = 0

    init(data: Data, options: TypedStreamUnarchivingOptions) {
        bytes = [UInt8](data)
        self.options = options
        budget = options.valueBudget(inputLength: data.count)
        // Typical streams hold about one shared string and two table entries per 16 bytes.
        let estimate = min(data.count / 16, 4096)
        strings.reserveCapacity(estimate)
        stringCache.reserveCapacity(estimate)
        dataCache.reserveCapacity(estimate)
        typeCache.reserveCapacity(estimate)
        nodes.reserveCapacity(estimate * 2)
        kinds.reserveCapacity(estimate * 2)
        chainLengths.reserveCapacity(estimate * 2)
    }

    // MARK: - Whole stream

    /// Reads the header and every top-level group; bytes after the last complete group
    /// that do not form another group are kept as trailing data.
    mutating func readGraph() throws -> TypedStreamGraph {
        let (byteOrder, streamerVersion) = try readHeader()
        let systemVersion = try readUnsigned(head: try readHead())
        var contents: [TypedStreamGraph.Group] = []
        var trailingStart = bytes.count
        while position < bytes.count {
            if contents.isEmpty {
                contents.append(try readGroup(head: try readHead()))
                continue
            }
            let saved = (position, strings.count, nodes.count, budget)
            do {
                contents.append(try readGroup(head: try readHead()))
            } catch let error as KeyedArchiveError where error.code == .corruptData {
                (position, _, _, budget) = saved
                strings.removeSubrange(saved.1...)
                stringCache.removeSubrange(saved.1...)
                dataCache.removeSubrange(saved.1...)
                typeCache.removeSubrange(saved.1...)
                nodes.removeSubrange(saved.2...)
                kinds.removeSubrange(saved.2...)
                chainLengths.removeSubrange(saved.2...)
                trailingStart = position
                break
            }
        }
        guard !contents.isEmpty else {
            throw KeyedArchiveError(
                .invalidArchive, "the typedstream holds no values", at: .byteOffset(position))
        }
        // Every placeholder has been filled: objects and classes are completed before
        // reading returns, or reading throws.
        return TypedStreamGraph(
            byteOrder: byteOrder, streamerVersion: streamerVersion,
            systemVersion: Int(clamping: systemVersion),
            nodes: nodes, contents: contents, trailingData: Data(bytes[trailingStart...]),
            storedRoot: contents.first?.values.first)
    }

    private mutating func readHeader() throws -> (TypedStreamGraph.ByteOrder, Int) {
        guard bytes.count >= 2 else { throw corrupt("too short for a typedstream header", at: 0) }
        let version = Int(bytes[0])
        guard version == 3 || version == Int(Self.currentStreamerVersion) else {
            throw KeyedArchiveError(
                .unsupportedFormat, "streamer version \(version) is not a typedstream version (3 or 4)",
                at: .byteOffset(0))
        }
        guard Int(bytes[1]) == Self.signatureLength, bytes.count >= Self.headerLength else {
            throw corrupt("the typedstream signature is not \(Self.signatureLength) bytes", at: 1)
        }
        let signature = Array(bytes[2..<Self.headerLength])
        position = Self.headerLength
        if signature == Self.littleEndianSignature {
            littleEndian = true
            return (.littleEndian, version)
        }
        if signature == Self.bigEndianSignature {
            littleEndian = false
            return (.bigEndian, version)
        }
        throw corrupt("the signature is neither \"streamtyped\" nor \"typedstream\"", at: 2)
    }

    // MARK: - Errors and limits

    private func corrupt(_ message: String, at offset: Int) -> KeyedArchiveError {
        KeyedArchiveError(.corruptData, message, at: .byteOffset(offset))
    }

    private mutating func spend(_ count: Int, at offset: Int) throws {
        guard count <= budget else {
            throw KeyedArchiveError(
                .limitExceeded,
                "the stream stands for more values than the expansion limit allows "
                    + "(maximumExpansionFactor \(options.maximumExpansionFactor) per input byte)",
                at: .byteOffset(offset))
        }
        budget -= count
    }

    /// What an object's or a class's slot holds until it is read.
    private static let placeholder = TypedStreamGraph.Node.cString(Data())

    private mutating func addNode(_ node: TypedStreamGraph.Node, kind: Kind, at offset: Int) throws -> Int {
        guard nodes.count < options.maximumObjectCount else {
            throw KeyedArchiveError(
                .limitExceeded, "more than \(options.maximumObjectCount) objects, classes and C strings",
                at: .byteOffset(offset))
        }
        try spend(1, at: offset)
        nodes.append(node)
        kinds.append(kind)
        chainLengths.append(0)
        return nodes.count - 1
    }

    // MARK: - Low-level values

    private mutating func readHead() throws -> Int8 {
        guard position < bytes.count else { throw corrupt("the stream ends early", at: position) }
        let head = Int8(bitPattern: bytes[position])
        position += 1
        return head
    }

    private mutating func readByte() throws -> UInt8 {
        guard position < bytes.count else { throw corrupt("the stream ends early", at: position) }
        let byte = bytes[position]
        position += 1
        return byte
    }

    private mutating func readRaw(_ count: Int) throws -> UInt64 {
        guard count <= bytes.count - position else {
            throw corrupt("a \(count)-byte number runs past the end", at: position)
        }
        var value: UInt64 = 0
        if littleEndian {
            for index in stride(from: count - 1, through: 0, by: -1) {
                value = value << 8 | UInt64(bytes[position + index])
            }
        } else {
            for index in 0..<count { value = value << 8 | UInt64(bytes[position + index]) }
        }
        position += count
        return value
    }

    @inline(__always)
    static func isTag(_ head: Int8) -> Bool { head <= lastTag }

    mutating func readSigned(head: Int8) throws -> Int64 {
        if !Self.isTag(head) { return Int64(head) }
        switch head {
        case Self.tagInteger2: return Int64(Int16(truncatingIfNeeded: try readRaw(2)))
        case Self.tagInteger4: return Int64(Int32(truncatingIfNeeded: try readRaw(4)))
        case Self.tagInteger8: return Int64(bitPattern: try readRaw(8))
        default: throw unexpectedTag(head, expected: "an integer")
        }
    }

    mutating func readUnsigned(head: Int8) throws -> UInt64 {
        if !Self.isTag(head) { return UInt64(UInt8(bitPattern: head)) }
        switch head {
        case Self.tagInteger2: return try readRaw(2)
        case Self.tagInteger4: return try readRaw(4)
        case Self.tagInteger8: return try readRaw(8)
        default: throw unexpectedTag(head, expected: "an integer")
        }
    }

    private func unexpectedTag(_ head: Int8, expected: String) -> KeyedArchiveError {
        let hex = String(UInt8(bitPattern: head), radix: 16)
        return corrupt("head byte 0x\(hex) where \(expected) belongs", at: position - 1)
    }

    private mutating func readReference(head: Int8, kind: Kind) throws -> Int {
        let offset = position - 1
        let raw = try readSigned(head: head)
        guard let found = Self.referenceIndex(raw), found < kinds.count else {
            throw corrupt(
                "reference number \(raw) is out of range (\(kinds.count) objects, classes and C strings)",
                at: offset)
        }
        guard kinds[found] == kind else {
            throw corrupt("reference \(found) is to a \(kinds[found]), where a \(kind) belongs", at: offset)
        }
        return found
    }

    private mutating func readLength(head: Int8) throws -> Int {
        let offset = position - 1
        let length = try readUnsigned(head: head)
        guard length <= UInt64(bytes.count - position) else {
            throw corrupt("a string of \(length) bytes runs past the end", at: offset)
        }
        return Int(length)
    }

    /// A shared string's index in the string table, or `nil` for nil.
    private mutating func readSharedString(head: Int8) throws -> Int? {
        switch head {
        case Self.tagNil: return nil
        case Self.tagNew:
            let offset = position - 1
            let inner = try readHead()
            guard inner != Self.tagNil else { throw corrupt("a new shared string is nil", at: offset) }
            let length = try readLength(head: inner)
            try spend(1, at: offset)
            strings.append(position..<position + length)
            stringCache.append(nil)
            dataCache.append(nil)
            typeCache.append(nil)
            position += length
            return strings.count - 1
        default:
            let offset = position - 1
            let raw = try readSigned(head: head)
            guard let index = Self.referenceIndex(raw), index < strings.count else {
                throw corrupt(
                    "shared string reference number \(raw) is out of range (\(strings.count) strings)",
                    at: offset)
            }
            return index
        }
    }

    /// Names that most streams hold, returned without building a new string: the common
    /// type encodings, the catalogue's typedstream classes (and `NSObject`), and the
    /// attribute names of iMessage bodies.
    private static let commonNames: [String] =
        ["@", "i", "I", "iI", "+", "*", "q", "d", "c", ClassCatalogue.rootClassName]
        + ClassCatalogue.typedStreamClasses.map(\.name)
        + [
            "__kIMMessagePartAttributeName", "__kIMFileTransferGUIDAttributeName",
            "__kIMBaseWritingDirectionAttributeName",
        ]

    private static let commonNameStrings: [(bytes: [UInt8], text: String)] = commonNames.map { name in
        (Array(name.utf8), name)
    }

    private mutating func sharedString(_ index: Int) -> String {
        if let cached = stringCache[index] { return cached }
        let range = strings[index]
        for common in Self.commonNameStrings where common.bytes.count == range.count {
            if bytes[range].elementsEqual(common.bytes) {
                stringCache[index] = common.text
                return common.text
            }
        }
        let text = String(decoding: bytes[range], as: UTF8.self)
        stringCache[index] = text
        return text
    }

    private mutating func sharedBytes(_ index: Int) -> Data {
        if let cached = dataCache[index] { return cached }
        let data = Data(bytes[strings[index]])
        dataCache[index] = data
        return data
    }

    private mutating func types(ofString index: Int, at offset: Int) throws -> [TypedStreamType] {
        if let cached = typeCache[index] { return cached }
        let range = strings[index]
        if range.count == 1, let common = TypedStreamType.single[Int(bytes[range.lowerBound])] {
            typeCache[index] = common
            return common
        }
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            TypedStreamType.parse(UnsafeBufferPointer(rebasing: buffer[range]))
        }
        switch parsed {
        case .success(let types):
            typeCache[index] = types
            return types
        case .failure(let error):
            throw corrupt(
                "type encoding \(DisplayText.quoted(sharedString(index))): \(error.message)", at: offset)
        }
    }

    // MARK: - Groups, values, objects, classes

    private mutating func readGroup(head: Int8) throws -> TypedStreamGraph.Group {
        let offset = position - 1
        guard let stringIndex = try readSharedString(head: head) else {
            throw corrupt("a group of values has a nil type encoding", at: offset)
        }
        let types = try types(ofString: stringIndex, at: offset)
        var values: [TypedStreamGraph.Value] = []
        values.reserveCapacity(types.count)
        for type in types { values.append(try readValue(type)) }
        return TypedStreamGraph.Group(encoding: sharedString(stringIndex), values: values)
    }

    private mutating func readValue(_ type: TypedStreamType) throws -> TypedStreamGraph.Value {
        try spend(1, at: position)
        switch type {
        case .signed: return .integer(try readSigned(head: try readHead()))
        case .unsigned: return .unsignedInteger(try readUnsigned(head: try readHead()))
        case .signedCharacter: return .integer(Int64(Int8(bitPattern: try readByte())))
        case .unsignedCharacter: return .unsignedInteger(UInt64(try readByte()))
        case .bool:
            let offset = position
            let byte = try readByte()
            guard byte <= 1 else { throw corrupt("a BOOL of \(byte)", at: offset) }
            return .bool(byte == 1)
        case .float:
            let head = try readHead()
            if head == Self.tagFloatingPoint {
                return .float(Float(bitPattern: UInt32(truncatingIfNeeded: try readRaw(4))))
            }
            return .float(Float(try readSigned(head: head)))
        case .double:
            let head = try readHead()
            if head == Self.tagFloatingPoint { return .double(Double(bitPattern: try readRaw(8))) }
            return .double(Double(try readSigned(head: head)))
        case .bytes:
            let head = try readHead()
            if head == Self.tagNil { return .null }
            let length = try readLength(head: head)
            defer { position += length }
            return .bytes(Data(bytes[position..<position + length]))
        case .cString:
            let head = try readHead()
            switch head {
            case Self.tagNil: return .null
            case Self.tagNew:
                let offset = position - 1
                guard let index = try readSharedString(head: try readHead()) else {
                    throw corrupt("a new C string is nil", at: offset)
                }
                let text = sharedBytes(index)
                _ = try addNode(.cString(text), kind: .cString, at: offset)
                return .cString(text)
            default:
                let index = try readReference(head: head, kind: .cString)
                guard case .cString(let text) = nodes[index] else { return .null }
                return .cString(text)
            }
        case .atom:
            guard let index = try readSharedString(head: try readHead()) else { return .null }
            return .atom(sharedBytes(index))
        case .selector:
            guard let index = try readSharedString(head: try readHead()) else { return .null }
            return .selector(sharedBytes(index))
        case .class:
            guard let index = try readClass(head: try readHead()) else { return .null }
            return .class(index)
        case .object:
            return try readObject(head: try readHead())
        case .ignored:
            return .null
        case .byteArray(let count):
            guard count <= bytes.count - position else {
                throw corrupt("an array of \(count) bytes runs past the end", at: position)
            }
            defer { position += count }
            return .byteArray(Data(bytes[position..<position + count]))
        case .array(let count, let element):
            try spend(count, at: position)
            var values: [TypedStreamGraph.Value] = []
            values.reserveCapacity(min(count, bytes.count - position))
            for _ in 0..<count { values.append(try readValue(element)) }
            return .array(values)
        case .structure(let name, let fields):
            var values: [TypedStreamGraph.Value] = []
            values.reserveCapacity(fields.count)
            for field in fields { values.append(try readValue(field)) }
            return .structure(name: name, fields: values)
        case .pointer(let pointee):
            return try readValue(pointee)
        }
    }

    /// A class chain: new classes (each followed by its superclass) ending in nil or a
    /// reference to a class already read. Returns the first class, or `nil` for nil.
    ///
    /// A reference to a class of this chain (still being read, so its superclass is not
    /// known yet) would make a class its own ancestor and is refused; so is a chain longer
    /// than ``maximumClassChainLength``.
    private mutating func readClass(head firstHead: Int8) throws -> Int? {
        var head = firstHead
        var chain: [(index: Int, name: String, version: Int)] = []
        while head == Self.tagNew {
            let offset = position - 1
            guard let nameIndex = try readSharedString(head: try readHead()) else {
                throw corrupt("a class name is nil", at: offset)
            }
            let versionOffset = position
            let version = try readSigned(head: try readHead())
            guard let fitting = Int(exactly: version) else {
                throw corrupt("class version \(version) does not fit an Int", at: versionOffset)
            }
            guard chain.count < Self.maximumClassChainLength else {
                throw corrupt(
                    "a class chain is longer than \(Self.maximumClassChainLength) classes", at: offset)
            }
            let index = try addNode(Self.placeholder, kind: .class, at: offset)
            chain.append((index, sharedString(nameIndex), fitting))
            head = try readHead()
        }
        var superclass: Int?
        var length = 0
        if head != Self.tagNil {
            let offset = position - 1
            let found = try readReference(head: head, kind: .class)
            guard chainLengths[found] > 0 else {
                throw corrupt(
                    "class reference #\(found) is to a class still being read (a class would be its own superclass)",
                    at: offset)
            }
            superclass = found
            length = Int(chainLengths[found])
        }
        guard chain.count <= Self.maximumClassChainLength - length else {
            throw corrupt(
                "a class chain is longer than \(Self.maximumClassChainLength) classes", at: position - 1)
        }
        for link in chain.reversed() {
            nodes[link.index] = .class(
                TypedStreamGraph.Class(name: link.name, version: link.version, superclassIndex: superclass))
            length += 1
            chainLengths[link.index] = UInt8(length)
            superclass = link.index
        }
        return superclass
    }

    private mutating func readObject(head: Int8) throws -> TypedStreamGraph.Value {
        switch head {
        case Self.tagNil:
            return .null
        case Self.tagNew:
            let offset = position - 1
            let index = try addNode(Self.placeholder, kind: .object, at: offset)
            let classOffset = position
            guard let classIndex = try readClass(head: try readHead()),
                case .class(let objectClass) = nodes[classIndex]
            else {
                throw corrupt("an object has a nil class", at: classOffset)
            }
            if let allowed = options.allowedClassNames, !allowed.contains(objectClass.name) {
                throw KeyedArchiveError(
                    .classNotAllowed,
                    "class \(DisplayText.quoted(objectClass.name)) is not among the allowed classes",
                    at: .byteOffset(classOffset))
            }
            guard depth < options.maximumDepth else {
                throw KeyedArchiveError(
                    .limitExceeded, "objects are nested deeper than the limit of \(options.maximumDepth)",
                    at: .byteOffset(offset))
            }
            if depth >= StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
                throw KeyedArchiveError(
                    .limitExceeded, StackHeadroom.message(depth: depth), at: .byteOffset(offset))
            }
            depth += 1
            defer { depth -= 1 }
            var groups: [TypedStreamGraph.Group] = []
            while true {
                let head = try readHead()
                if head == Self.tagEndOfObject { break }
                groups.append(try readGroup(head: head))
            }
            nodes[index] = .object(
                TypedStreamGraph.Object(classIndex: classIndex, className: objectClass.name, groups: groups))
            return .object(index)
        default:
            return .object(try readReference(head: head, kind: .object))
        }
    }
}
