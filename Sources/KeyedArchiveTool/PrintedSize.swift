import KeyedArchive

/// A lower bound of the text a printer makes of a property list, found by walking the
/// value without writing anything.
///
/// A printer checks it first, so that a value describing far more text than its file
/// holds — a binary property list's objects referenced many times, printed at every
/// reference and under hundreds of levels of indentation — is refused at once instead of
/// after making the text up to the limit (`-p` of a 2.6 KB file took seconds to reach
/// 64 MB, twice: streamed, then from the tree).
///
/// The bound counts what every line must hold (indentation, the element's index or key,
/// the brackets, the shortest text of each scalar), so it never exceeds the real size; for
/// the nested bombs it is within a few percent.
///
/// - Complexity: O(values the printer would print), each visited once per place it
///   appears (the reader's value budget bounds that), and the walk stops as soon as the
///   bound passes the limit; a small fraction of what printing them costs.
enum PrintedSize {
    /// How a printer lays a value out.
    enum Layout {
        /// `-p` (``PropertyListPrinter``).
        case plutil
        /// `-convert swift` and `-convert objc` (``LiteralSourceWriter``).
        case literal(LiteralSourceWriter.Language)
    }

    /// Whether the text `layout` makes of `value` is certainly longer than `limit` bytes.
    static func exceeds(_ limit: Int, _ value: PropertyList, layout: Layout) -> Bool {
        // (value, nesting level of its line, bytes its line holds before it)
        var work: [(value: PropertyList, level: Int, prefix: Int)] = [(value, 0, 0)]
        var total = 0
        while let (value, level, prefix) = work.popLast() {
            total += prefix
            switch value {
            case .array(let elements):
                total += layout.containerBytes(level: level, isEmpty: elements.isEmpty, isDictionary: false)
                for (index, element) in elements.enumerated() {
                    work.append((element, level + 1, layout.elementPrefix(level: level + 1, index: index)))
                }
            case .dictionary(let dictionary):
                total += layout.containerBytes(level: level, isEmpty: dictionary.isEmpty, isDictionary: true)
                for (key, element) in dictionary {
                    work.append(
                        (element, level + 1, layout.entryPrefix(level: level + 1, keyBytes: key.utf8.count)))
                }
            default:
                total += layout.scalarBytes(value)
            }
            // Each term is below the input's size or a few hundred bytes: no overflow
            // before this check stops the walk.
            if total > limit { return true }
        }
        return false
    }
}

extension PrintedSize.Layout {
    /// The indentation of a line at nesting `level`.
    func indent(_ level: Int) -> Int {
        switch self {
        case .plutil:
            // Two spaces a level up to 32, then `⋯N ` (`⋯` is three bytes).
            let cap = PropertyListPrinter.maximumIndent
            return 2 * min(level, cap) + (level > cap ? 4 + Self.digits(level) : 0)
        case .literal:
            return 4 * level
        }
    }

    /// What an array element's line holds besides its value: indentation, `3 => ` (`-p`),
    /// or the `,` and newline after it (literals).
    func elementPrefix(level: Int, index: Int) -> Int {
        switch self {
        case .plutil: return indent(level) + Self.digits(index) + 4
        case .literal: return indent(level) + 2
        }
    }

    /// What a dictionary entry's line holds besides its value: indentation, the key
    /// quoted, ` => ` or ` : `, and for literals the `,` and newline.
    func entryPrefix(level: Int, keyBytes: Int) -> Int {
        switch self {
        case .plutil: return indent(level) + keyBytes + 2 + 4
        case .literal(let language): return indent(level) + keyBytes + (language == .objc ? 3 : 2) + 3 + 2
        }
    }

    /// A container's brackets and the line that closes it.
    func containerBytes(level: Int, isEmpty: Bool, isDictionary: Bool) -> Int {
        switch self {
        case .plutil:
            return 2 + indent(level) + 2
        case .literal(let language):
            if language == .objc { return 3 + indent(level) + 1 }
            return isEmpty ? (isDictionary ? 3 : 2) : 2 + indent(level) + 1
        }
    }

    /// The shortest text of a scalar (with `-p`'s newline).
    func scalarBytes(_ value: PropertyList) -> Int {
        switch self {
        case .plutil:
            let text: Int
            switch value {
            case .string(let string): text = string.utf8.count + 2
            case .bool: text = 4
            // `2020-01-02 03:04:05 +0000`, or seconds since 2001 written out.
            case .date: text = 25
            // `{length = 4, bytes = 0x01020304}`; beyond 24 bytes, 24 of them shown.
            case .data(let data): text = 23 + Self.digits(data.count) + 2 * min(data.count, 24)
            case .uid: text = 6
            default: text = 1
            }
            return text + 1
        case .literal(let language):
            let objc = language == .objc ? 1 : 0
            switch value {
            case .string(let string): return string.utf8.count + 2 + objc
            // `true`, `@NO`.
            case .bool: return 4 - objc
            // `Date(timeIntervalSinceReferenceDate: 0.0)` (Objective-C refuses dates and data).
            case .date: return 41
            // `Data([0x01, 0x02])`.
            case .data(let data): return 8 + 6 * max(0, data.count - 1) + (data.isEmpty ? 0 : 4)
            case .uid: return 14
            default: return 1 + objc
            }
        }
    }

    /// The decimal digits of a non-negative number.
    static func digits(_ number: Int) -> Int {
        var count = 1
        var rest = number
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }
}
