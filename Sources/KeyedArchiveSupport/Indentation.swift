/// Runs of spaces for indenting printed lines, made once.
///
/// `String(repeating:count:)` appends its unit once per repetition: building each line's
/// indentation that way took 70% of printing a deeply nested outline (callgrind).
package enum Indentation {
    /// The longest run kept ready; longer ones are made when asked for.
    static let longestCached = 256

    private static let cached: [String] = (0...longestCached).map { String(repeating: " ", count: $0) }

    /// `count` spaces.
    package static func spaces(_ count: Int) -> String {
        guard count >= 0 else { return "" }
        return count <= longestCached ? cached[count] : String(repeating: " ", count: count)
    }
}
