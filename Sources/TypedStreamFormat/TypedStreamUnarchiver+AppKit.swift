#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TypedStreamUnarchiver {
    /// Reads a property list written with `-encodePropertyList:` (as `NSFont` stores its
    /// name): a data object holding NeXTSTEP's old binary property-list format
    /// (`-decodePropertyList`).
    ///
    /// - Returns: A `String`, `Data`, `[Any]`, `[String: Any]`, or `nil` (``ArchivedNull`` inside
    ///   arrays and dictionaries).
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` when the next groups are not a
    ///   data object, `corruptData` when its bytes are not a property list.
    public func decodePropertyList() throws -> Any? {
        OldBinaryPropertyList.swiftValue(try OldBinaryPropertyList.read(try decodeDataObject()))
    }

    /// A value of ``objectGraph`` — such as an object reference among the values of an
    /// object that decoded generically — decoded as ``decodeObject()`` decodes objects:
    /// strings as `String`, fonts as ``ArchivedFont``, unknown classes as graphs.
    ///
    /// ```swift
    /// // A nib's root (NSIBObjectData) has no Swift type: walk its graph, decode the parts.
    /// let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
    /// let graph = unarchiver.objectGraph
    /// for case .object(let object) in graph.nodes where object.className == "NSTextFieldCell" {
    ///     let title = try unarchiver.value(of: object.groups[1].values[0])
    ///     print(title ?? "")
    /// }
    /// ```
    ///
    /// - Parameter value: A value of ``objectGraph``.
    /// - Returns: The decoded object, the value itself when it is not an object, or `nil` for nil.
    /// - Throws: ``KeyedArchiveError`` as ``decodeObject()``.
    public func value(of value: TypedStreamGraph.Value) throws -> Any? {
        try untypedValue(value)
    }

    /// A value of ``objectGraph`` decoded as `T` (see ``decodeObject(of:)``).
    ///
    /// - Parameters:
    ///   - value: A value of ``objectGraph``.
    ///   - type: The type expected.
    /// - Returns: The value, or `nil` for nil.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` when the value is of another type.
    public func value<T>(of value: TypedStreamGraph.Value, as type: T.Type) throws -> T? {
        try typedValue(value, as: type)
    }

    /// `NSFont` as AppKit writes it to typedstreams (class versions 21 and 30 seen): the
    /// PostScript name as a property list in the old NeXT binary format inside a data
    /// object (`-encodePropertyList:`, groups `i` and `[Nc]`), the point size (`f`), then
    /// four groups `c` of flags. `nil` for another layout (the object then decodes as a
    /// graph).
    func font() throws -> ArchivedFont? {
        guard nextEncoding == "i" else { return nil }
        let plist = try decodeDataObject()
        guard case .string(let name)? = try? OldBinaryPropertyList.read(plist) else { return nil }
        guard nextEncoding == "f" else { return nil }
        let size = try decodeDouble()
        var flags: [Int8] = []
        while flags.count < 4, nextEncoding == "c", let flag = try decodeValue(ofObjCType: "c").integerValue {
            flags.append(Int8(truncatingIfNeeded: flag))
        }
        guard isAtEnd else { return nil }
        var font = ArchivedFont(name: name, size: size)
        font.typedStreamFlags = flags
        return font
    }

    /// Runs `body`, which reads an AppKit object of a known layout; when the object turns
    /// out to have another layout (a group of other types, a value of another kind), the
    /// object decodes as its generic graph instead of failing.
    func knownLayout<T>(index: Int, _ body: () throws -> T?) throws -> Any {
        do {
            if let value = try body() { return value }
        } catch let error as KeyedArchiveError
            where error.code == .typeMismatch || error.code == .invalidArchive
        {
            // Another layout: shown generically below.
        }
        return objectGraph.rooted(at: .object(index))
    }
}

/// The property-list format of NeXTSTEP's `NSSerializer`, which `-[NSArchiver
/// encodePropertyList:]` writes into a typedstream as a data object (`NSFont` stores its
/// name this way). Every value starts with a 32-bit type number:
///
/// | type | value |
/// |---|---|
/// | 2 | array: a count, a byte length per element, the elements |
/// | 4 | data: a length, the bytes, zeros to a multiple of 4 |
/// | 5 | string in the NeXTSTEP 8-bit encoding: as data |
/// | 6 | string in UTF-16 with a byte-order mark: as data |
/// | 7 | dictionary: a count, the keys (strings), a byte length per value, the values |
/// | 8 | nil |
///
/// Numbers are little-endian as Intel Macs write them; a stream whose first number is
/// not a type in little-endian order is read big-endian (as PowerPC Macs wrote it).
enum OldBinaryPropertyList {
    enum Value: Hashable {
        case string(String)
        case data(Data)
        case array([Value])
        case dictionary([String: Value])
        case null
    }

    /// A value as the Swift value ``TypedStreamUnarchiver/decodePropertyList()`` returns.
    static func swiftValue(_ value: Value) -> Any? {
        switch value {
        case .string(let text): return text
        case .data(let data): return data
        case .null: return nil
        case .array(let elements): return elements.map { swiftValue($0) ?? ArchivedNull() }
        case .dictionary(let entries): return entries.mapValues { swiftValue($0) ?? ArchivedNull() }
        }
    }

    /// The value `bytes` holds, which must be all of it.
    static func read(_ bytes: Data) throws -> Value {
        let buffer = Array(bytes)
        guard buffer.count >= 4 else { throw failure("no type number", at: 0) }
        let littleEndian = [2, 4, 5, 6, 7, 8].contains(UInt32(buffer[0]) | UInt32(buffer[1]) << 8)
        var reader = Reader(bytes: buffer, littleEndian: littleEndian)
        let value = try reader.value(depth: 0)
        guard reader.offset == buffer.count else {
            throw failure("\(buffer.count - reader.offset) bytes after the value", at: reader.offset)
        }
        return value
    }

    /// `value` in the format, little-endian.
    static func write(_ value: Value) -> [UInt8] {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return bytes
    }

    private static func append(_ value: Value, to bytes: inout [UInt8]) {
        func word(_ number: Int) {
            let value = UInt32(truncatingIfNeeded: number)
            for shift in stride(from: 0, to: 32, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
        func padded(_ payload: [UInt8]) {
            word(payload.count)
            bytes += payload
            bytes += [UInt8](repeating: 0, count: (4 - payload.count % 4) % 4)
        }
        switch value {
        case .null: word(8)
        case .data(let data):
            word(4)
            padded(Array(data))
        case .string(let text):
            word(6)
            var utf16: [UInt8] = [0xFF, 0xFE]
            for unit in text.utf16 {
                utf16 += [UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8)]
            }
            padded(utf16)
        case .array(let elements):
            word(2)
            word(elements.count)
            let encoded = elements.map(write)
            for element in encoded { word(element.count) }
            for element in encoded { bytes += element }
        case .dictionary(let entries):
            word(7)
            let keys = entries.keys.sorted()
            word(keys.count)
            for key in keys { append(.string(key), to: &bytes) }
            let encoded = keys.map { write(entries[$0] ?? .null) }
            for element in encoded { word(element.count) }
            for element in encoded { bytes += element }
        }
    }

    private static func failure(_ message: String, at offset: Int) -> KeyedArchiveError {
        KeyedArchiveError(.corruptData, "old binary property list: \(message)", at: .byteOffset(offset))
    }

    private struct Reader {
        let bytes: [UInt8]
        let littleEndian: Bool
        var offset = 0

        mutating func word() throws -> Int {
            guard bytes.count - offset >= 4 else { throw failure("ends inside a number", at: offset) }
            var value: UInt32 = 0
            for index in 0..<4 {
                let byte = UInt32(bytes[offset + index])
                value |= littleEndian ? byte << (8 * index) : byte << (8 * (3 - index))
            }
            offset += 4
            return Int(value)
        }

        mutating func payload() throws -> ArraySlice<UInt8> {
            let length = try word()
            let padding = (4 - length % 4) % 4
            guard length <= bytes.count - offset, padding <= bytes.count - offset - length else {
                throw failure("\(length) bytes run past the end", at: offset)
            }
            let slice = bytes[offset..<offset + length]
            offset += length + padding
            return slice
        }

        mutating func value(depth: Int) throws -> Value {
            guard depth < 64 else { throw failure("values nested deeper than 64", at: offset) }
            let start = offset
            let type = try word()
            switch type {
            case 8: return .null
            case 4: return .data(Data(try payload()))
            case 5:
                // NeXTSTEP's 8-bit encoding is ASCII below 0x80; other bytes are shown as U+FFFD.
                let text = try payload().map { $0 < 0x80 ? Character(Unicode.Scalar($0)) : "\u{FFFD}" }
                return .string(String(text))
            case 6:
                let raw = Array(try payload())
                guard raw.count % 2 == 0 else { throw failure("UTF-16 text of odd length", at: start) }
                var big = !littleEndian
                var units = stride(from: 0, to: raw.count, by: 2).map { (raw[$0], raw[$0 + 1]) }
                if let first = units.first, first == (0xFF, 0xFE) || first == (0xFE, 0xFF) {
                    big = first == (0xFE, 0xFF)
                    units.removeFirst()
                }
                let decoded = units.map {
                    big ? UInt16($0.0) << 8 | UInt16($0.1) : UInt16($0.1) << 8 | UInt16($0.0)
                }
                return .string(String(decoding: decoded, as: UTF16.self))
            case 2, 7:
                let count = try word()
                // Each element takes at least 4 bytes (its length) plus 4 (its type).
                guard count <= (bytes.count - offset) / 8 else {
                    throw failure("\(count) elements cannot fit", at: start)
                }
                var keys: [String] = []
                if type == 7 {
                    for _ in 0..<count {
                        guard case .string(let key) = try value(depth: depth + 1) else {
                            throw failure("a dictionary key is not a string", at: offset)
                        }
                        keys.append(key)
                    }
                }
                var lengths: [Int] = []
                for _ in 0..<count { lengths.append(try word()) }
                var values: [Value] = []
                for length in lengths {
                    let before = offset
                    values.append(try value(depth: depth + 1))
                    guard offset - before == length else {
                        throw failure("an element is \(offset - before) bytes, not \(length)", at: before)
                    }
                }
                if type == 2 { return .array(values) }
                var dictionary: [String: Value] = [:]
                for (key, value) in zip(keys, values) { dictionary[key] = value }
                return .dictionary(dictionary)
            default:
                throw failure("unknown type \(type)", at: start)
            }
        }
    }
}

extension TypedStreamGraph {
    /// For an `NSColor`, `NSFont` or paragraph style of the layouts ``TypedStreamUnarchiver``
    /// reads, the fields a keyed archive holds for the same value (`NSColorSpace` and
    /// `NSRGB`, `NSName` and `NSSize`, `NSAlignment`, …), added in ``archivedObjectGraph()``
    /// beside the stream's own `$0`, `$1`, … so that what reads keyed graphs (the
    /// catalogue's summaries) sees the colour, font or style; empty for other objects.
    func keyedEquivalentFields(of object: Object) -> [ArchivedObjectGraph.Field] {
        let groups = object.groups
        switch object.className {
        case "NSColor":
            guard groups.count == 2, groups[0].encoding == "c",
                let kind = groups[0].values.first?.integerValue
            else { return [] }
            var fields = [
                ArchivedObjectGraph.Field(key: "NSColorSpace", value: .integer(PropertyListInteger(kind)))
            ]
            let key: String
            switch (kind, groups[1].encoding) {
            case (1, "ffff"), (2, "ffff"): key = "NSRGB"
            case (3, "ff"), (4, "ff"): key = "NSWhite"
            case (5, "fffff"): key = "NSCMYK"
            case (6, "@@@"):
                // A graph built by hand may hold fewer values than its encoding names.
                let values = groups[1].values
                guard values.count == 3 else { return fields }
                if let catalog = plainString(values[0]) {
                    fields.append(.init(key: "NSCatalogName", value: .string(catalog)))
                }
                if let name = plainString(values[1]) {
                    fields.append(.init(key: "NSColorName", value: .string(name)))
                }
                if case .object(let fallback) = values[2] {
                    fields.append(.init(key: "NSColor", value: .reference(fallback + 1)))
                }
                return fields
            default: return []
            }
            let numbers = groups[1].values.compactMap(\.doubleValue)
            let text = numbers.map { RealText.string($0) }.joined(separator: " ")
            fields.append(.init(key: key, value: .data(Data(text.utf8))))
            return fields
        case "NSFont":
            guard groups.count >= 3, groups[0].encoding == "i",
                case .byteArray(let plist)? = groups[1].values.first,
                groups[2].encoding == "f", let size = groups[2].values.first?.doubleValue,
                case .string(let name)? = try? OldBinaryPropertyList.read(plist)
            else { return [] }
            return [.init(key: "NSName", value: .string(name)), .init(key: "NSSize", value: .real(size))]
        case "NSParagraphStyle", "NSMutableParagraphStyle":
            // The numbers; the tab stops have no objects of their own in this graph.
            guard let style = TypedStreamParagraphStyle.style(of: object, in: self) else { return [] }
            return style.fields.keys.sorted().compactMap { key -> ArchivedObjectGraph.Field? in
                switch style.fields[key] {
                case .integer(let number)?:
                    return .init(key: key, value: .integer(PropertyListInteger(Int64(number))))
                case .real(let number)?: return .init(key: key, value: .real(number))
                default: return nil
                }
            }
        default:
            return []
        }
    }

    /// The text of an `NSString` object of the usual layout that `value` refers to.
    private func plainString(_ value: Value) -> String? {
        guard case .object(let index) = value, let object = object(at: index),
            object.className == "NSString" || object.className == "NSMutableString",
            case .bytes(let utf8)? = object.groups.first?.values.first
        else { return nil }
        return String(validating: utf8, as: UTF8.self)
    }
}
