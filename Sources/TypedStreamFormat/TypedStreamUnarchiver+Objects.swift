#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TypedStreamUnarchiver {
    /// A value of the stream as the untyped methods return it.
    func untypedValue(_ value: TypedStreamGraph.Value) throws -> Any? {
        switch value {
        case .null: return nil
        case .object(let index): return try objectValue(index)
        default: return value
        }
    }

    /// A value as `T`, converting numbers that fit.
    func typedValue<T>(_ value: TypedStreamGraph.Value, as type: T.Type) throws -> T? {
        guard case .object(let index) = value else {
            if case .null = value { return nil }
            if let same = value as? T { return same }
            throw failure(.typeMismatch, "expected an object of type \(T.self), found \(value)")
        }
        if let decodable = T.self as? any TypedStreamDecodable.Type,
            let object = objectGraph.object(at: index),
            objectGraph.classChain(ofClassAt: object.classIndex, contains: decodable.typedStreamClassName)
        {
            return try instantiate(decodable, at: index) as? T
        }
        let untyped = try objectValue(index)
        if let result = untyped as? T { return result }
        if let number = untyped.flatMap(TypedStreamNumber.init), let converted = number.converted(to: T.self)
        {
            guard let result = converted else {
                throw failure(.valueOutOfRange, "\(number) does not fit in \(T.self)")
            }
            return result
        }
        let className = objectGraph.object(at: index)?.className ?? "?"
        throw failure(.typeMismatch, "expected \(T.self), found an object of class \(className)")
    }

    /// Object `index` decoded once and shared by every reference to it.
    func objectValue(_ index: Int) throws -> Any? {
        guard let object = objectGraph.object(at: index) else {
            throw failure(.invalidArchive, "reference #\(index) is not an object")
        }
        if let cached = decoded[index] { return cached }
        if inProgress[index] {
            throw failure(
                .unresolvableCycle,
                "object #\(index) (\(object.className)) contains itself; read it with objectGraph to see the cycle"
            )
        }
        let value: Any
        if !classMap.isEmpty, let type = classMap[object.className] {
            value = try instantiate(type, at: index)
        } else if let standard = standardClass(ofClassAt: object.classIndex) {
            value = try withObject(index) { try standardValue(standard, object: object, index: index) }
        } else if options.decodesUnknownClassesGenerically {
            value = objectGraph.rooted(at: .object(index))
        } else {
            throw failure(
                .classNotFound,
                "no type is known for class \(DisplayText.quoted(object.className)); map one with "
                    + "setClass(_:forClassName:) or set decodesUnknownClassesGenerically")
        }
        decoded[index] = value
        return value
    }

    /// The first standard class of a class chain (a class of the catalogue that typedstreams
    /// decode as a value), worked out once per class.
    private func standardClass(ofClassAt classIndex: Int) -> CataloguedClass? {
        guard standardClasses.indices.contains(classIndex) else { return nil }
        if let known = standardClasses[classIndex] { return known }
        let found = objectGraph.classChain(ofClassAt: classIndex).lazy.compactMap {
            CataloguedClass(name: $0.name).flatMap { $0.typedStreamVersion == nil ? nil : $0 }
        }.first
        standardClasses[classIndex] = .some(found)
        return found
    }

    func instantiate(_ type: any TypedStreamDecodable.Type, at index: Int) throws -> any TypedStreamDecodable
    {
        if let cached = decoded[index] as? any TypedStreamDecodable { return cached }
        let value = try withObject(index) { try type.init(typedStreamCoder: self) }
        decoded[index] = value
        return value
    }

    /// Runs `body` with object `index` as the current object, marked in progress.
    func withObject<R>(_ index: Int, _ body: () throws -> R) throws -> R {
        guard let object = objectGraph.object(at: index) else {
            throw failure(.invalidArchive, "reference #\(index) is not an object")
        }
        if inProgress[index] {
            throw failure(.unresolvableCycle, "object #\(index) (\(object.className)) contains itself")
        }
        guard frames.count <= options.maximumDepth else {
            throw failure(
                .limitExceeded, "objects are nested deeper than the limit of \(options.maximumDepth)")
        }
        if frames.count > StackHeadroom.uncheckedDepth, StackHeadroom.isLow() {
            throw failure(.limitExceeded, StackHeadroom.message(depth: frames.count))
        }
        inProgress[index] = true
        frames.append(Frame(groups: object.groups, next: 0, objectIndex: index))
        defer {
            frames.removeLast()
            inProgress[index] = false
        }
        return try body()
    }

    /// One of Foundation's classes, from the object being decoded (its groups in order).
    private func standardValue(
        _ standard: CataloguedClass, object: TypedStreamGraph.Object, index: Int
    )
        throws -> Any
    {
        switch standard.kind {
        case .string:
            guard case .bytes(let utf8) = try decodeValue(ofObjCType: "+") else {
                throw failure(.invalidArchive, "the NSString has no text")
            }
            guard let text = String(validating: utf8, as: UTF8.self) else {
                throw failure(.corruptData, "the NSString's text is not UTF-8")
            }
            return text
        case .number, .value:
            guard case .cString(let typeBytes) = try decodeValue(ofObjCType: "*") else {
                throw failure(.invalidArchive, "the \(standard.name) has no type encoding")
            }
            let typeText = String(decoding: typeBytes, as: UTF8.self)
            let value = try decodeValue(ofObjCType: typeText)
            if let number = Self.number(value, encoding: typeText) { return number }
            if let geometry = Self.geometry(value, encoding: typeText) { return geometry }
            return objectGraph.rooted(at: .object(index))
        case .data:
            return try decodeDataObject()
        case .date:
            return Date(timeIntervalSinceReferenceDate: try decodeDouble())
        case .url:
            let relative = try decodeBool()
            let base = relative ? try decodeObject(of: URL.self) : nil
            guard let text = try decodeObject(of: String.self) else {
                throw failure(.invalidArchive, "the NSURL has no string")
            }
            guard let url = URL(string: text, relativeTo: base) else {
                throw failure(
                    .invalidArchive, "\(DisplayText.quoted(text, maximumScalars: 100)) is not a valid URL")
            }
            return url
        case .array:
            return try elements(count: try decodeInteger())
        case .set:
            let members = try elements(count: try decodeInteger())
            var set = Set<AnyHashable>(minimumCapacity: members.count)
            for member in members {
                guard let hashable = member as? AnyHashable else {
                    throw failure(.typeMismatch, "a set member of type \(type(of: member)) is not hashable")
                }
                set.insert(hashable)
            }
            return set
        case .dictionary:
            return try dictionary(count: try decodeInteger())
        case .null:
            return ArchivedNull()
        case .attributedString:
            return try attributedString(
                mutable: object.className == CataloguedClass.mutableAttributedString.name)
        case .color:
            return try knownLayout(index: index) { try color() }
        case .font:
            return try knownLayout(index: index) { try font() }
        case .paragraphStyle:
            return try knownLayout(index: index) {
                TypedStreamParagraphStyle.style(of: object, in: objectGraph)
            }
        default:
            // Only the classes with a typedstream version are standard (standardClass(ofClassAt:)).
            throw failure(
                .invalidArchive, "the \(standard.name) has no typedstream form that is read as a value")
        }
    }

    /// `NSColor` (version 0) as AppKit wrote it to typedstreams: `c` the kind (1 calibrated
    /// RGB, 2 device RGB, 3 calibrated white, 4 device white, 5 device CMYK, 6 named), then
    /// the components as one group of `f`s, or for a named colour `@@@` (catalogue, name,
    /// the colour itself). `nil` for another kind.
    private func color() throws -> ArchivedColor? {
        guard let kind = try decodeValue(ofObjCType: "c").integerValue else { return nil }
        func components(_ types: String) throws -> [Double] {
            let values = try decodeValues(ofObjCTypes: types)
            return values.compactMap(\.doubleValue)
        }
        switch kind {
        case 1, 2:
            let parts = try components("ffff")
            guard parts.count == 4 else { return nil }
            return ArchivedColor(
                red: parts[0], green: parts[1], blue: parts[2], alpha: parts[3],
                space: kind == 1 ? .calibratedRGB : .deviceRGB)
        case 3, 4:
            let parts = try components("ff")
            guard parts.count == 2 else { return nil }
            return ArchivedColor(
                white: parts[0], alpha: parts[1], space: kind == 3 ? .calibratedWhite : .deviceWhite)
        case 5:
            let parts = try components("fffff")
            guard parts.count == 5 else { return nil }
            return ArchivedColor(
                cyan: parts[0], magenta: parts[1], yellow: parts[2], black: parts[3], alpha: parts[4])
        case 6:
            let values = try decodeValues(ofObjCTypes: "@@@")
            guard values.count == 3 else { return nil }
            let catalog = try typedValue(values[0], as: String.self) ?? ""
            let name = try typedValue(values[1], as: String.self) ?? ""
            let fallback = try typedValue(values[2], as: ArchivedColor.self)
            return ArchivedColor(catalogName: catalog, colorName: name, fallback: fallback)
        default:
            return nil
        }
    }

    private func elements(count: Int) throws -> [Any] {
        guard count >= 0, count <= (frames.last.map { $0.groups.count - $0.next } ?? 0) else {
            throw failure(.invalidArchive, "the collection claims \(count) members but holds fewer")
        }
        var members: [Any] = []
        members.reserveCapacity(count)
        for _ in 0..<count {
            guard let member = try decodeObject() else {
                throw failure(.invalidArchive, "a collection member is nil")
            }
            members.append(member)
        }
        return members
    }

    private func dictionary(count: Int) throws -> Any {
        guard count >= 0, count <= (frames.last.map { ($0.groups.count - $0.next) / 2 } ?? 0) else {
            throw failure(.invalidArchive, "the dictionary claims \(count) entries but holds fewer")
        }
        var keys: [AnyHashable] = []
        var values: [Any] = []
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        var allStrings = true
        for _ in 0..<count {
            guard let key = try decodeObject() else {
                throw failure(.invalidArchive, "a dictionary key is nil")
            }
            guard let hashable = key as? AnyHashable else {
                throw failure(.typeMismatch, "a dictionary key of type \(type(of: key)) is not hashable")
            }
            if !(key is String) { allStrings = false }
            guard let value = try decodeObject() else {
                throw failure(.invalidArchive, "a dictionary value is nil")
            }
            keys.append(hashable)
            values.append(value)
        }
        if allStrings {
            var result: [String: Any] = [:]
            result.reserveCapacity(count)
            for (key, value) in zip(keys, values) {
                if let text = key.base as? String { result[text] = value }
            }
            return result
        }
        var result: [AnyHashable: Any] = [:]
        result.reserveCapacity(count)
        for (key, value) in zip(keys, values) { result[key] = value }
        return result
    }

    /// A number as the Swift type of its C type (`Int8` for `c`, `Int32` for `i`, …); a
    /// wider type when the stream holds a value its C type cannot (a 64-bit tag on `i`).
    static func number(_ value: TypedStreamGraph.Value, encoding: String) -> Any? {
        switch value {
        case .integer(let number):
            switch encoding {
            case "c": return Int8(exactly: number) ?? number
            case "s": return Int16(exactly: number) ?? number
            case "i", "l": return Int32(exactly: number) ?? number
            default: return number
            }
        case .unsignedInteger(let number):
            switch encoding {
            case "C": return UInt8(exactly: number) ?? number
            case "S": return UInt16(exactly: number) ?? number
            case "I", "L": return UInt32(exactly: number) ?? number
            default: return number
            }
        case .bool(let flag): return flag
        case .float(let number): return number
        case .double(let number): return number
        default: return nil
        }
    }

    /// An `NSValue` structure as a geometry type, by its structure name and field count.
    static func geometry(_ value: TypedStreamGraph.Value, encoding: String) -> Any? {
        guard case .structure(let name, let fields) = value else { return nil }
        let numbers = fields.flatMap { field -> [Double?] in
            if case .structure(_, let inner) = field { return inner.map(\.doubleValue) }
            return [field.doubleValue]
        }
        guard numbers.allSatisfy({ $0 != nil }) else { return nil }
        let values = numbers.compactMap { $0 }
        switch (name ?? "", values.count) {
        case ("_NSPoint", 2), ("CGPoint", 2): return ArchivedPoint(x: values[0], y: values[1])
        case ("_NSSize", 2), ("CGSize", 2): return ArchivedSize(width: values[0], height: values[1])
        case ("_NSRect", 4), ("CGRect", 4):
            return ArchivedRect(x: values[0], y: values[1], width: values[2], height: values[3])
        case ("NSEdgeInsets", 4):
            return ArchivedEdgeInsets(top: values[0], left: values[1], bottom: values[2], right: values[3])
        case ("_NSRange", 2):
            guard let location = fields[0].integerValue, let length = fields[1].integerValue,
                let start = Int(exactly: location), let count = Int(exactly: length)
            else { return nil }
            return ArchivedRange(location: start, length: count)
        default: return nil
        }
    }
}

/// A number read from a stream, with its C type, and its conversions between Swift types.
enum TypedStreamNumber: CustomStringConvertible {
    case signed(Int64)
    case unsigned(UInt64)
    case bool(Bool)
    case float(Float)
    case double(Double)

    init?(value: TypedStreamGraph.Value) {
        switch value {
        case .integer(let number): self = .signed(number)
        case .unsignedInteger(let number): self = .unsigned(number)
        case .bool(let flag): self = .bool(flag)
        case .float(let number): self = .float(number)
        case .double(let number): self = .double(number)
        default: return nil
        }
    }

    /// A decoded Swift number (`Int32`, `Double`, …) as a number to convert.
    init?(_ any: Any) {
        switch any {
        case let value as Bool: self = .bool(value)
        case let value as Float: self = .float(value)
        case let value as Double: self = .double(value)
        case let value as any BinaryInteger:
            if let signed = Int64(exactly: value) {
                self = .signed(signed)
            } else if let unsigned = UInt64(exactly: value) {
                self = .unsigned(unsigned)
            } else {
                return nil
            }
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .signed(let value): return String(value)
        case .unsigned(let value): return String(value)
        case .bool(let value): return String(value)
        case .float(let value): return "\(value)"
        case .double(let value): return "\(value)"
        }
    }

    /// The number as `T` if `T` is a numeric type: `.some(nil)` when it does not fit,
    /// `nil` when `T` is not numeric.
    func converted<T>(to type: T.Type) -> T?? {
        if let integerType = T.self as? any BinaryInteger.Type {
            return .some(Self.integer(self, as: integerType) as? T)
        }
        if T.self == Double.self {
            switch self {
            case .signed(let value): return .some(Double(exactly: value) as? T)
            case .unsigned(let value): return .some(Double(exactly: value) as? T)
            case .float(let value): return .some(Double(value) as? T)
            case .double(let value): return .some(value as? T)
            case .bool(let value): return .some((value ? 1.0 : 0.0) as? T)
            }
        }
        if T.self == Float.self {
            switch self {
            case .signed(let value): return .some(Float(exactly: value) as? T)
            case .unsigned(let value): return .some(Float(exactly: value) as? T)
            case .float(let value): return .some(value as? T)
            case .double(let value): return .some(Float(value) as? T)
            case .bool(let value): return .some((value ? Float(1) : 0) as? T)
            }
        }
        if T.self == Bool.self {
            switch self {
            case .signed(let value) where value == 0 || value == 1: return .some((value == 1) as? T)
            case .unsigned(let value) where value <= 1: return .some((value == 1) as? T)
            case .bool(let value): return .some(value as? T)
            default: return .some(nil)
            }
        }
        return nil
    }

    private static func integer<I: BinaryInteger>(_ number: TypedStreamNumber, as type: I.Type) -> I? {
        switch number {
        case .signed(let value): return I(exactly: value)
        case .unsigned(let value): return I(exactly: value)
        case .bool(let value): return value ? 1 : 0
        case .float(let value): return I(exactly: value)
        case .double(let value): return I(exactly: value)
        }
    }
}
