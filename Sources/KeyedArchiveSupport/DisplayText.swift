/// Strings quoted for people to read: descriptions, outlines, error messages and the
/// command-line tool's `-p` output.
///
/// Every style escapes one set of scalars, so that text from a hostile file can neither
/// drive a terminal nor reorder what is shown around it: the C0 controls, DEL, the C1
/// controls and the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069) are written `\u{1b}`. What differs between styles is the rest (see
/// ``DisplayText/Style``).
///
/// Used by the tool through `package` access; not part of the library's public API.
package enum DisplayText {
    /// How a string is quoted besides the escape set every style shares.
    package struct Style: Sendable {
        /// Whether `"` and `\` are written `\"` and `\\`, and newline, tab and carriage
        /// return `\n`, `\t` and `\r`; otherwise `"` and `\` are written as they are,
        /// newline and tab raw, and carriage return `\u{d}`.
        package var escapesQuotesAndLineBreaks: Bool

        /// `"a\"b\n"`: unambiguous, one line. Descriptions, outlines and messages.
        package static let escaped = Style(escapesQuotesAndLineBreaks: true)

        /// `"a"b` followed by a real line break: quoted but not escaped, as `plutil -p`
        /// prints strings, except the escape set.
        package static let plutil = Style(escapesQuotesAndLineBreaks: false)
    }

    /// Whether every style writes `scalar` as `\u{…}` (or, in ``Style/escaped``, as `\n`,
    /// `\t` or `\r`): a C0 control, DEL, a C1 control or a bidirectional control.
    @inline(__always)
    package static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        // Bidirectional controls all lie in U+061C...U+2069; skip the lookup below it.
        return value >= 0x061C && value <= 0x2069 && scalar.properties.isBidiControl
    }

    /// Appends `string` in double quotes, escaped as `style` says.
    ///
    /// - Parameters:
    ///   - string: The text to show.
    ///   - text: Where to append it.
    ///   - style: What is escaped besides the shared escape set.
    ///   - maximumScalars: The most scalars shown; a longer string is cut there and ends
    ///     with `…` inside the quotes.
    package static func appendQuoted(
        _ string: some StringProtocol, to text: inout String, style: Style = .escaped,
        maximumScalars: Int = .max
    ) {
        text.unicodeScalars.append("\"")
        var shown = 0
        for scalar in string.unicodeScalars {
            if shown == maximumScalars {
                text.unicodeScalars.append("…")
                break
            }
            shown += 1
            if style.escapesQuotesAndLineBreaks {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\t": text += "\\t"
                case "\r": text += "\\r"
                default: appendScalar(scalar, to: &text)
                }
            } else if scalar == "\n" || scalar == "\t" {
                text.unicodeScalars.append(scalar)
            } else {
                appendScalar(scalar, to: &text)
            }
        }
        text.unicodeScalars.append("\"")
    }

    /// `string` in double quotes, escaped as `style` says (see
    /// ``appendQuoted(_:to:style:maximumScalars:)``).
    package static func quoted(
        _ string: some StringProtocol, style: Style = .escaped, maximumScalars: Int = .max
    ) -> String {
        var text = ""
        appendQuoted(string, to: &text, style: style, maximumScalars: maximumScalars)
        return text
    }

    /// `name` as it is when it is not empty and holds no space, no other character up to
    /// U+0020 and nothing of the escape set; otherwise ``quoted(_:style:maximumScalars:)``.
    /// For class names and keys, which are almost always plain.
    package static func quotedIfNeeded(_ name: some StringProtocol) -> String {
        let plain = !name.isEmpty && name.unicodeScalars.allSatisfy { $0.value > 0x20 && !isEscaped($0) }
        return plain ? String(name) : quoted(name)
    }

    @inline(__always)
    private static func appendScalar(_ scalar: Unicode.Scalar, to text: inout String) {
        if isEscaped(scalar) {
            text += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
            text.unicodeScalars.append(scalar)
        }
    }
}
