import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The literal source of `-convert swift` and `-convert objc`, laid out as `plutil`
/// lays it out:
///
/// ```
/// /// Generated from creature.plist
/// let creature : [String : Any] = [
///     "Legs" : 14,
///     "Title" : "Potato Bug",
/// ]
/// ```
///
/// Dictionary keys are sorted case-insensitively, four spaces indent each level, and every
/// element ends with a comma. Unlike `plutil`'s, the Swift output always compiles: strings
/// escape every control character, an empty dictionary is `[:]`, a top-level array is
/// typed `[Any]`, reals keep every digit (`0.1`, not `0.100000`), data is `Data([…])`, and
/// the variable name is a valid identifier. Objective-C has no literal for dates and data,
/// which are refused as `plutil` refuses them. A UID (a keyed archive's reference) is
/// written as the dictionary `["CF$UID": n]`, as in `-convert json`.
enum LiteralSourceWriter {
    enum Language {
        case swift, objc
    }

    struct Failure: Error {
        var message: String
    }

    /// The variable name for the file `name`: its base name without the extension, with
    /// every character outside `[A-Za-z0-9_]` replaced by `_`, and `_` in front of a digit.
    static func identifier(forFileName name: String) -> String {
        guard name != "-" else { return "_" }
        var base = name.split(separator: "/").last.map(String.init) ?? name
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = String(base[..<dot]) }
        var identifier = String(
            base.unicodeScalars.map { scalar -> Character in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
                    ? Character(scalar) : "_"
            })
        if identifier.isEmpty || identifier.first?.isNumber == true { identifier = "_" + identifier }
        return identifier
    }

    /// `name` for the one-line comment: a line break or other control character in a file
    /// name would end the comment and put the rest of the name in the source, so each is `?`.
    static func commentText(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                        || (0x2028...0x2029).contains(scalar.value)
                        ? "?" : scalar
                }))
    }

    /// Renders `value` as a source file declaring one constant.
    ///
    /// - Parameters:
    ///   - value: The property list.
    ///   - language: Swift or Objective-C.
    ///   - fileName: The input's name, for the comment and the variable name.
    ///   - limit: The most bytes of source to produce.
    /// - Throws: ``Failure`` for a value the language has no literal for, or output past `limit`.
    ///   - headerName: With `-header`, the header's file name, which the Objective-C source
    ///     imports first (`#import "creature.h"`), as `plutil`'s does.
    static func render(
        _ value: PropertyList, language: Language, fileName: String, limit: Int, headerName: String? = nil
    )
        throws(Failure)
        -> Data
    {
        let name = identifier(forFileName: fileName)
        var text = ""
        if let headerName, language == .objc { text += "#import \"\(try importable(headerName))\"\n\n" }
        text +=
            "/// Generated from \(commentText(fileName.split(separator: "/").last.map(String.init) ?? fileName))\n"
        switch language {
        case .swift:
            let annotation: String
            switch value {
            case .dictionary: annotation = " : [String : Any]"
            case .array: annotation = " : [Any]"
            default: annotation = ""
            }
            text += "let \(name)\(annotation) = "
        case .objc:
            text += "__attribute__((visibility(\"hidden\")))\n\(try objcType(of: value)) * const \(name) = "
        }
        // Refused at once when certainly too long (a bomb of shared objects), after the
        // check for what Objective-C cannot write, whose message says more.
        if language == .objc { try checkRepresentable(value) }
        if PrintedSize.exceeds(limit - text.utf8.count, value, layout: .literal(language)) {
            throw tooLarge(limit)
        }
        try append(value, language: language, to: &text, limit: limit)
        text += language == .objc ? ";\n" : "\n"
        guard text.utf8.count <= limit else { throw tooLarge(limit) }
        return Data(text.utf8)
    }

    /// The header `-convert objc -header` writes beside the source, laid out as `plutil`'s:
    ///
    /// ```
    /// #import <Foundation/Foundation.h>
    ///
    /// /// Generated from creature.plist
    /// __attribute__((visibility("hidden")))
    /// extern NSDictionary * const creature;
    /// ```
    ///
    /// - Throws: ``Failure`` for a value Objective-C has no literal for (as the source).
    static func header(_ value: PropertyList, fileName: String) throws(Failure) -> Data {
        let type = try objcType(of: value)
        try checkRepresentable(value)
        let comment = commentText(fileName.split(separator: "/").last.map(String.init) ?? fileName)
        let text =
            "#import <Foundation/Foundation.h>\n\n/// Generated from \(comment)\n"
            + "__attribute__((visibility(\"hidden\")))\n"
            + "extern \(type) * const \(identifier(forFileName: fileName));\n"
        return Data(text.utf8)
    }

    /// The class of the Objective-C constant holding `value`.
    private static func objcType(of value: PropertyList) throws(Failure) -> String {
        switch value {
        case .dictionary, .uid: return "NSDictionary"
        case .array: return "NSArray"
        case .string: return "NSString"
        case .integer, .real, .bool: return "NSNumber"
        case .date, .data: throw unrepresentable
        }
    }

    /// Refuses a value holding a date or data anywhere, without writing it.
    private static func checkRepresentable(_ value: PropertyList) throws(Failure) {
        var work = [value]
        while let item = work.popLast() {
            switch item {
            case .date, .data: throw unrepresentable
            case .array(let elements): work.append(contentsOf: elements)
            case .dictionary(let dictionary): work.append(contentsOf: dictionary.values)
            default: break
            }
        }
    }

    /// A file name `#import "…"` can hold: no quote, backslash or control character, which
    /// the directive has no escape for.
    private static func importable(_ name: String) throws(Failure) -> String {
        for scalar in name.unicodeScalars
        where scalar == "\"" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F {
            throw Failure(message: "cannot name the header \(commentText(name)) in an #import directive")
        }
        return name
    }

    private static let unrepresentable = Failure(
        message:
            "Input contains an object that cannot be represented in Obj-C literal syntax (a date or data)")

    private static func tooLarge(_ limit: Int) -> Failure {
        Failure(message: Tool.outputTooLarge(limit))
    }

    /// Appends `value` with an explicit work list, so that any depth the reader allowed
    /// renders without recursion, and stops once `limit` is passed.
    private static func append(_ value: PropertyList, language: Language, to text: inout String, limit: Int)
        throws(Failure)
    {
        enum Work {
            case value(PropertyList, indent: Int)
            case text(String)
        }
        let objc = language == .objc
        var work: [Work] = [.value(value, indent: 0)]
        while let item = work.popLast() {
            switch item {
            case .text(let literal):
                text += literal
            case .value(let value, let indent):
                let inner = Indentation.spaces(4 * (indent + 1))
                let outer = Indentation.spaces(4 * indent)
                switch value {
                case .array(let elements):
                    if elements.isEmpty && !objc {
                        text += "[]"
                        continue
                    }
                    text += objc ? "@[\n" : "[\n"
                    work.append(.text(outer + "]"))
                    for element in elements.reversed() {
                        work.append(.text(",\n"))
                        work.append(.value(element, indent: indent + 1))
                        work.append(.text(inner))
                    }
                case .dictionary(let dictionary):
                    if dictionary.isEmpty && !objc {
                        text += "[:]"
                        continue
                    }
                    text += objc ? "@{\n" : "[\n"
                    work.append(.text(outer + (objc ? "}" : "]")))
                    let sorted = dictionary.sortedByKey.sorted {
                        let left = $0.key.lowercased()
                        let right = $1.key.lowercased()
                        return left != right ? left < right : $0.key < $1.key
                    }
                    for (key, element) in sorted.reversed() {
                        work.append(.text(",\n"))
                        work.append(.value(element, indent: indent + 1))
                        work.append(.text(inner + quoted(key, language: language) + " : "))
                    }
                case .uid(let uid):
                    text += objc ? "@{ @\"CF$UID\" : @\(uid) }" : "[\"CF$UID\" : \(uid)]"
                default:
                    text += try scalar(value, language: language)
                }
            }
            guard text.utf8.count <= limit else { throw tooLarge(limit) }
        }
    }

    private static func scalar(_ value: PropertyList, language: Language) throws(Failure) -> String {
        let objc = language == .objc
        switch value {
        case .string(let string):
            return quoted(string, language: language)
        case .integer(let integer):
            if !integer.isNegative, integer.int64Value == nil {
                return objc ? "@\(integer)ULL" : "\(integer) as UInt64"
            }
            // Objective-C reads `-9223372036854775808` as the negation of a literal too large
            // for `long long`: C's own spelling of the smallest value instead.
            if objc, integer.int64Value == Int64.min { return "@(-9223372036854775807LL - 1)" }
            return objc ? "@\(integer)" : "\(integer)"
        case .real(let real):
            let literal: String
            if real.isNaN {
                literal = objc ? "(NAN)" : "Double.nan"
            } else if real.isInfinite {
                literal =
                    objc
                    ? (real < 0 ? "(-INFINITY)" : "(INFINITY)")
                    : (real < 0 ? "-Double.infinity" : "Double.infinity")
            } else {
                literal = RealLiteral.text(real)
            }
            return objc ? "@\(literal)" : literal
        case .bool(let flag):
            return objc ? (flag ? "@YES" : "@NO") : (flag ? "true" : "false")
        case .date(let date):
            if objc { throw unrepresentable }
            return
                "Date(timeIntervalSinceReferenceDate: \(RealLiteral.text(date.timeIntervalSinceReferenceDate)))"
        case .data(let data):
            if objc { throw unrepresentable }
            var text = "Data(["
            for (index, byte) in data.enumerated() {
                if index > 0 { text += ", " }
                text += "0x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
            return text + "])"
        case .array, .dictionary, .uid:
            return ""
        }
    }

    /// A string literal: `"…"` in Swift, `@"…"` in Objective-C, with quotes, backslashes
    /// and every control character escaped.
    /// Whether `scalar` is a bidirectional formatting character.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    static func quoted(_ string: String, language: Language) -> String {
        var text = language == .objc ? "@\"" : "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                // Controls, line and paragraph separators, and the bidirectional controls
                // (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), which would make
                // the source read differently from what it compiles to ("Trojan Source").
                let isControl =
                    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                    || (0x2028...0x2029).contains(scalar.value) || Self.isBidiControl(scalar)
                if isControl || (language == .objc && scalar == "?") {
                    // Objective-C: octal escapes (a hex escape would swallow following digits;
                    // `?` is escaped so no trigraph can form).
                    if language == .objc {
                        if scalar.value < 0x100 {
                            text += "\\" + String(scalar.value, radix: 8).leftPadded(to: 3)
                        } else {
                            text += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
                        }
                    } else {
                        text += "\\u{\(String(scalar.value, radix: 16))}"
                    }
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }
}

/// A real as a source literal that reads back to the same value: Swift's shortest
/// round-trip description, with `.0` added to whole numbers.
enum RealLiteral {
    static func text(_ real: Double) -> String {
        let description = "\(real)"
        if description.contains(".") || description.contains("e") || description.contains("n") {
            return description
        }
        return description + ".0"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
