#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes XML property lists in Apple's layout.
///
/// The output matches what CoreFoundation writes, byte for byte, for the same value (CPython's
/// `plistlib` reproduces the same bytes for `cpython_TESTDATA_xml.plist`): the XML declaration
/// and `DOCTYPE` lines, `<plist version="1.0">`, one tab per nesting level, `<array/>` and
/// `<dict/>` for empty collections, `<true/>` and `<false/>`, `&`, `<` and `>` escaped, dates
/// as `YYYY-MM-DDTHH:MM:SSZ` without fractions, and base64 in `<data>` wrapped so that a line
/// with its indentation (a tab counting eight columns, at most eight tabs) stays within 76
/// columns. A UID is written as `<dict><key>CF$UID</key><integer>N</integer></dict>`.
///
/// Choices where Apple's output is unusable or ambiguous:
/// - Reals are written in the shortest form that reads back exactly, without a trailing `.0`
///   (as swift-foundation writes them); NaN and infinities as `nan`, `inf` and `-inf`.
/// - Characters that XML 1.0 cannot carry literally (the C0 controls other than tab and line
///   feed) and carriage return (which XML parsers turn into a line feed) are written as
///   decimal character references such as `&#1;` and `&#13;`. Apple writes them raw, which
///   makes the document unreadable by XML parsers; the references are read back exactly by
///   CoreFoundation, swift-foundation and this package. Strict XML 1.0 parsers still refuse
///   the references to control characters; no XML 1.0 encoding of them exists.
/// - A date that is not finite, or too far from 2001 to print, throws `invalidValue` with the
///   key path of the value.
///
/// The tree is walked with an explicit stack, so any nesting depth can be written.
enum XMLPropertyListWriter {
    static func write(_ value: PropertyList, options: PropertyListWritingOptions) throws -> Data {
        var emitter = XMLPropertyListEmitter(
            sortsKeys: options.sortsKeys, maximumOutputBytes: options.maximumOutputBytes)
        try emitter.emitDocument(value)
        return emitter.output.finish()
    }

    /// Writes `value` to `output` in pieces as the text is made, so that only about
    /// ``XMLPropertyListEmitter/chunkSize`` bytes of it are held at a time.
    static func write(
        _ value: PropertyList, options: PropertyListWritingOptions,
        to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try withoutActuallyEscaping(output) { output in
            var emitter = XMLPropertyListEmitter(
                sortsKeys: options.sortsKeys, maximumOutputBytes: options.maximumOutputBytes,
                destination: output)
            try emitter.emitDocument(value)
            try emitter.output.drain(into: output)
        }
    }
}
