#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads old-style (OpenStep, NeXT) property lists: `.strings` files, old defaults and
/// Xcode projects.
///
/// The grammar and its corners follow CoreFoundation's `CFOldStylePList.c`:
///
/// - `{ key = value; … }` dictionaries, each entry ended by `;`; keys are strings; an
///   entry `key;` means `key = key`; the last of duplicate keys wins.
/// - `( a, b, )` arrays; one trailing comma is allowed.
/// - `<0fbd 77AA>` data: pairs of hex digits, with spaces, tabs and line breaks between
///   (never inside) pairs.
/// - `"…"` and `'…'` strings with the escapes `\a \b \f \n \r \t \v`, `\U` with one to
///   four hex digits (UTF-16; a surrogate pair written as two escapes is joined), octal
///   `\ooo` with one to three digits mapped through the NeXTSTEP encoding (ASCII below
///   `\200`), and `\` before any other character standing for that character.
/// - unquoted strings of `A–Z a–z 0–9 _ $ + / : . -`. Everything is a string: the
///   format has no numbers, Booleans or dates.
/// - `/* … */` and `// …` comments wherever whitespace may be.
/// - A top-level sequence of `key = value;` entries without braces (a strings file) is a
///   dictionary, and input that holds only whitespace and comments is an empty
///   dictionary.
///
/// Deliberate differences from CoreFoundation, all of them stricter or clearer:
/// - empty input (no characters at all) is refused, as CF refuses it;
/// - an unterminated `/*` comment is an error (CF silently ends the file there);
/// - text after the entries of a strings file is an error (CF ignores it);
/// - `\U` without a hex digit, an octal escape above `\377`, and `\376`/`\377` (no
///   NeXTSTEP character) are errors; an unpaired surrogate becomes U+FFFD, which is what
///   Foundation shows for CF's unpaired surrogate too.
///
/// Input is UTF-8 (with or without a byte-order mark) or UTF-16 with a byte-order mark.
/// Nesting is tracked on an explicit stack, never by recursion, so depth costs heap, not
/// call stack, and is bounded by ``PropertyListReadingOptions/maximumDepth``.
enum OpenStepPropertyListReader {
    static func read(_ data: Data, options: PropertyListReadingOptions) throws -> PropertyList {
        let budget = options.valueLimit(forInputLength: data.count)
        return try OpenStepText.withUTF8(from: data) { text in
            guard !text.bytes.isEmpty else {
                throw KeyedArchiveError(
                    .corruptData, "empty input: an OpenStep property list needs at least one character",
                    at: .text(line: 1, column: 1))
            }
            let value = try OpenStepParser.withParser(
                text: text, maximumDepth: options.maximumDepth, valueBudget: budget
            ) { parser -> PropertyList? in
                try parser.skipWhitespace()
                if parser.isAtEnd { return .dictionary(PropertyListDictionary()) }
                let value = try parser.parse(asStringsFile: false)
                try parser.skipWhitespace()
                if parser.isAtEnd { return value }
                guard case .string = value else {
                    throw parser.error(
                        "expected end of input after the top-level value, found \(parser.found)")
                }
                return nil
            }
            if let value { return value }
            // A string followed by more text: read the whole input again as the entries of a
            // strings file, as CoreFoundation does.
            return try OpenStepParser.withParser(
                text: text, maximumDepth: options.maximumDepth, valueBudget: budget
            ) { parser in
                try parser.parse(asStringsFile: true)
            }
        }
    }
}
