/// One C type of a typedstream type-encoding string, parsed once per distinct string.
///
/// The letters are the Objective-C `@encode` ones: `c C s S i I l L q Q f d B` numbers,
/// `*` C string, `+` byte string, `%` atom, `:` selector, `#` class, `@` object, `!`
/// ignored, `^T` pointer (the pointee is written), `[NT]` array, `{name=T…}` structure.
enum TypedStreamType: Hashable, Sendable {
    case signed(UInt8)
    case unsigned(UInt8)
    case signedCharacter
    case unsignedCharacter
    case bool
    case float
    case double
    case cString
    case bytes
    case atom
    case selector
    case object
    case `class`
    case ignored
    case byteArray(count: Int)
    indirect case array(count: Int, element: TypedStreamType)
    case structure(name: String?, fields: [TypedStreamType])
    indirect case pointer(TypedStreamType)

    /// The types of the one-letter encodings, by letter, made once for every stream
    /// (without the parser, whose error messages a static table need not hold).
    static let single: [[TypedStreamType]?] = (0..<256).map { byte in
        guard byte < 128, let type = scalar(UInt8(byte)) else { return nil }
        return [type]
    }

    /// The type a one-letter encoding stands for, or `nil` for a letter that is not one.
    static func scalar(_ letter: UInt8) -> TypedStreamType? {
        switch letter {
        case UInt8(ascii: "c"): return .signedCharacter
        case UInt8(ascii: "C"): return .unsignedCharacter
        case UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"):
            return .signed(letter)
        case UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"):
            return .unsigned(letter)
        case UInt8(ascii: "B"): return .bool
        case UInt8(ascii: "f"): return .float
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "*"): return .cString
        case UInt8(ascii: "+"): return .bytes
        case UInt8(ascii: "%"): return .atom
        case UInt8(ascii: ":"): return .selector
        case UInt8(ascii: "@"): return .object
        case UInt8(ascii: "#"): return .class
        case UInt8(ascii: "!"): return .ignored
        default: return nil
        }
    }

    /// The deepest nesting of arrays, structures and pointers accepted in one encoding.
    static let maximumNesting = 64

    /// The types of an encoding string such as `iI` or `{_NSRect={_NSPoint=ff}{_NSSize=ff}}`.
    ///
    /// - Returns: The types, or a message saying what is wrong.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Result<[TypedStreamType], TypedStreamTypeError> {
        var parser = Parser(text: text)
        var types: [TypedStreamType] = []
        while parser.position < text.count {
            switch parser.parseOne(depth: 0) {
            case .success(let type): types.append(type)
            case .failure(let error): return .failure(error)
            }
        }
        if types.isEmpty { return .failure(TypedStreamTypeError(message: "empty type encoding")) }
        return .success(types)
    }

    /// The encoding letter or text of this type, as `@encode` writes it.
    var encoding: String {
        switch self {
        case .signed(let letter), .unsigned(let letter): return String(UnicodeScalar(letter))
        case .signedCharacter: return "c"
        case .unsignedCharacter: return "C"
        case .bool: return "B"
        case .float: return "f"
        case .double: return "d"
        case .cString: return "*"
        case .bytes: return "+"
        case .atom: return "%"
        case .selector: return ":"
        case .object: return "@"
        case .class: return "#"
        case .ignored: return "!"
        case .byteArray(let count): return "[\(count)c]"
        case .array(let count, let element): return "[\(count)\(element.encoding)]"
        case .structure(let name, let fields):
            return "{" + (name.map { "\($0)=" } ?? "") + fields.map(\.encoding).joined() + "}"
        case .pointer(let pointee): return "^" + pointee.encoding
        }
    }

    private struct Parser {
        let text: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func parseOne(depth: Int) -> Result<TypedStreamType, TypedStreamTypeError> {
            guard depth < TypedStreamType.maximumNesting else {
                return .failure(
                    TypedStreamTypeError(
                        message: "type encoding nested deeper than \(TypedStreamType.maximumNesting)"))
            }
            // Method qualifiers (const, in, out, …) carry no value.
            while position < text.count, "rnNoORV".utf8.contains(text[position]) { position += 1 }
            guard position < text.count else {
                return .failure(TypedStreamTypeError(message: "type encoding ends early"))
            }
            let letter = text[position]
            position += 1
            if let simple = TypedStreamType.scalar(letter) { return .success(simple) }
            switch letter {
            case UInt8(ascii: "^"):
                return parseOne(depth: depth + 1).map { .pointer($0) }
            case UInt8(ascii: "["): return parseArray(depth: depth)
            case UInt8(ascii: "{"): return parseStructure(depth: depth)
            case UInt8(ascii: "("):
                return .failure(
                    TypedStreamTypeError(
                        message: "unions (type encoding \"(\") carry no tag saying which member was written "
                            + "and cannot be read"))
            default:
                return .failure(
                    TypedStreamTypeError(
                        message: "unknown type \(DisplayText.quoted(String(UnicodeScalar(letter))))"))
            }
        }

        mutating func parseArray(depth: Int) -> Result<TypedStreamType, TypedStreamTypeError> {
            var count = 0
            var digits = 0
            while position < text.count, text[position] >= UInt8(ascii: "0"),
                text[position] <= UInt8(ascii: "9")
            {
                let (times, overflow1) = count.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int(text[position] - UInt8(ascii: "0")))
                guard !overflow1, !overflow2, sum <= Int(Int32.max) else {
                    return .failure(TypedStreamTypeError(message: "array length is too large"))
                }
                count = sum
                digits += 1
                position += 1
            }
            guard digits > 0 else { return .failure(TypedStreamTypeError(message: "array without a length")) }
            let element: TypedStreamType
            switch parseOne(depth: depth + 1) {
            case .success(let parsed): element = parsed
            case .failure(let error): return .failure(error)
            }
            guard position < text.count, text[position] == UInt8(ascii: "]") else {
                return .failure(TypedStreamTypeError(message: "array type without \"]\""))
            }
            position += 1
            switch element {
            case .signedCharacter, .unsignedCharacter: return .success(.byteArray(count: count))
            default: return .success(.array(count: count, element: element))
            }
        }

        mutating func parseStructure(depth: Int) -> Result<TypedStreamType, TypedStreamTypeError> {
            // A name ends at "=" met before any nested "{" or the closing "}"; without one
            // the whole body is fields.
            var name: String?
            var scan = position
            while scan < text.count, text[scan] != UInt8(ascii: "="), text[scan] != UInt8(ascii: "{"),
                text[scan] != UInt8(ascii: "}")
            {
                scan += 1
            }
            if scan < text.count, text[scan] == UInt8(ascii: "=") {
                let raw = String(
                    decoding: UnsafeBufferPointer(rebasing: text[position..<scan]), as: UTF8.self)
                name = raw == "?" ? nil : raw
                position = scan + 1
            }
            var fields: [TypedStreamType] = []
            while true {
                guard position < text.count else {
                    return .failure(TypedStreamTypeError(message: "structure type without \"}\""))
                }
                if text[position] == UInt8(ascii: "}") {
                    position += 1
                    return .success(.structure(name: name, fields: fields))
                }
                switch parseOne(depth: depth + 1) {
                case .success(let field): fields.append(field)
                case .failure(let error): return .failure(error)
                }
            }
        }
    }
}

/// Why a type-encoding string cannot be read.
struct TypedStreamTypeError: Error {
    let message: String
}
