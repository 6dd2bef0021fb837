#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads XML property lists with a hand-written scanner over the UTF-8 bytes.
///
/// What is accepted, and why where it departs from a general XML parser:
/// - UTF-8 with or without a byte-order mark; UTF-16 (transcoded first). An XML declaration
///   naming any other encoding is refused with `unsupportedFormat`. Invalid UTF-8 in the
///   document is `corruptData`. Raw control characters, NUL included, are read as written:
///   XML forbids them, but CoreFoundation and swift-foundation read them, and Foundation's
///   writers have written NUL raw (swift-corelibs-foundation still does).
/// - The XML declaration, processing instructions and comments are skipped; one `DOCTYPE`
///   with public or system identifiers is skipped (nothing is fetched). Internal DTD subsets
///   and `<!ENTITY` declarations are refused with `unsupportedFormat`, so no entity is ever
///   expanded.
/// - Text may use the five predefined entities, decimal and hexadecimal character references
///   (any Unicode scalar value, including control characters, which Apple's readers accept and
///   this package's writer produces; surrogates and values beyond U+10FFFF are refused; at most
///   eight digits, as CoreFoundation), CDATA sections, comments and processing instructions.
///   Line ends are kept as written (CoreFoundation does not normalise CR LF either).
/// - Tags may carry attributes (ignored; quoted values may contain `>`) and whitespace before
///   `>` or `/>`.
/// - A bare value without the `<plist>` wrapper is accepted, as CoreFoundation does.
///   `<plist>` must hold exactly one value. `<key>` is only accepted as a dictionary key.
/// - `<integer>`, `<real>`, `<date>` and `<data>` hold plain text (no entities, as
///   CoreFoundation); surrounding whitespace is allowed, and whitespace anywhere in `<data>`.
///   A date must exist in the proleptic Gregorian calendar (no February 30, no hour 24;
///   a leap second `:60` is read as the next minute).
/// - A dictionary whose only entry is `CF$UID` with an integer becomes a ``PropertyList/uid(_:)``.
/// - The document ends with its root element (`</plist>`, or the bare value's end), as
///   CoreFoundation reads it: whatever follows is ignored, unread and unchecked, and
///   reported in ``PropertyListReadingReport/ignoredTrailingContent`` unless it is only
///   whitespace, comments and processing instructions.
///
/// Nesting deeper than ``PropertyListReadingOptions/maximumDepth`` and more values than the
/// budget allows are refused with `limitExceeded`. The scanner keeps an explicit stack, so deep
/// input cannot exhaust the call stack.
package enum XMLPropertyListReader {
    /// Reads `data` into a ``PropertyList``.
    ///
    /// - Parameter quickly: Whether values laid out as writers lay them out are read by the
    ///   quick path (`false` only to test that both paths agree).
    static func read(_ data: Data, options: PropertyListReadingOptions, quickly: Bool = true) throws
        -> PropertyList
    {
        var report = PropertyListReadingReport()
        return try read(data, options: options, quickly: quickly, report: &report)
    }

    /// Reads `data` into a ``PropertyList`` and says in `report` what it ignored.
    static func read(
        _ data: Data, options: PropertyListReadingOptions, quickly: Bool = true,
        report: inout PropertyListReadingReport
    ) throws -> PropertyList {
        var builder = XMLTreeBuilder(inputLength: data.count)
        return try parse(data, options: options, quickly: quickly, into: &builder, report: &report)
    }

    /// Reads `data` into a binary property list (`bplist00`) holding the same value, without
    /// building a ``PropertyList``: the input is checked exactly as ``read(_:options:)``
    /// checks it, and reading the result gives the value `read` gives.
    ///
    /// The keyed unarchiver opens XML archives this way, then reads the result lazily, in
    /// place, as it reads binary archives.
    ///
    /// - Throws: What ``read(_:options:)`` throws, or `limitExceeded` when the result would
    ///   pass the binary builder's limits.
    package static func binaryPropertyList(
        _ data: Data, options: PropertyListReadingOptions, quickly: Bool = true
    ) throws -> Data {
        var builder = XMLBinaryBuilder(inputLength: data.count)
        var report = PropertyListReadingReport()
        let top = try parse(data, options: options, quickly: quickly, into: &builder, report: &report)
        return try builder.finish(topObject: top)
    }

    /// Reads `data` into `builder`, checked exactly as ``read(_:options:)`` checks it.
    static func read<Builder: XMLValueBuilder>(
        _ data: Data, options: PropertyListReadingOptions, into builder: inout Builder
    ) throws -> Builder.Value {
        var report = PropertyListReadingReport()
        return try parse(data, options: options, quickly: true, into: &builder, report: &report)
    }

    private static func parse<Builder: XMLValueBuilder>(
        _ data: Data, options: PropertyListReadingOptions, quickly: Bool, into builder: inout Builder,
        report: inout PropertyListReadingReport
    ) throws -> Builder.Value {
        let budget = options.valueLimit(forInputLength: data.count)
        switch try XMLInputText.prepare(data) {
        case .utf8(let start):
            return try data.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                let (value, ignored) = try parse(
                    bytes, from: start, options: options, budget: budget, quickly: quickly, into: &builder)
                report.ignoredTrailingContent = ignored.map { ignored in
                    PropertyListReadingReport.IgnoredContent(
                        byteOffset: ignored.start, byteCount: bytes.count - ignored.start,
                        location: UTF8Text.location(of: ignored.start, in: bytes, from: start),
                        after: ignored.after)
                }
                return value
            }
        case .transcoded(let text):
            return try text.withUnsafeBufferPointer { bytes in
                let (value, ignored) = try parse(
                    bytes, from: 0, options: options, budget: budget, quickly: quickly, into: &builder)
                report.ignoredTrailingContent = ignored.map { ignored in
                    // The input was UTF-16: two bytes for each code unit of the ignored text.
                    let ignoredText = UnsafeBufferPointer(rebasing: bytes[ignored.start...])
                    let byteCount = min(
                        data.count, 2 * String(decoding: ignoredText, as: UTF8.self).utf16.count)
                    return PropertyListReadingReport.IgnoredContent(
                        byteOffset: data.count - byteCount, byteCount: byteCount,
                        location: UTF8Text.location(of: ignored.start, in: bytes, from: 0),
                        after: ignored.after)
                }
                return value
            }
        }
    }

    /// Where ignored content after the root element starts, and the markup it follows.
    private typealias Ignored = (start: Int, after: String)

    private static func parse<Builder: XMLValueBuilder>(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, options: PropertyListReadingOptions,
        budget: Int, quickly: Bool, into builder: inout Builder
    ) throws -> (Builder.Value, Ignored?) {
        var parser = XMLPropertyListParser(
            bytes: bytes, start: start, maximumDepth: options.maximumDepth, valueBudget: budget)
        parser.readsQuickly = quickly
        let value: Builder.Value
        do {
            value = try parser.parseDocument(into: &builder)
        } catch let error as KeyedArchiveError {
            // Every reading fails at the same point, where the general reading does (the
            // quick reading gives up and hands over before): invalid UTF-8 up to there is
            // the error, before what the scanner found.
            try parser.validateText(from: start, to: min(parser.index + 1, bytes.count))
            throw error
        }
        // The document's bytes are checked once read, up to the end of the root element:
        // what follows is not part of it. The quick reading has checked the text it passed
        // over, and anything else in its stretch would have made it give up.
        if let quick = parser.quicklyRead {
            try parser.validateText(from: start, to: quick.lowerBound)
            try parser.validateText(from: quick.upperBound, to: parser.documentEnd)
        } else {
            try parser.validateText(from: start, to: parser.documentEnd)
        }
        return (value, parser.ignoredStart.map { ($0, parser.rootEnd) })
    }
}
