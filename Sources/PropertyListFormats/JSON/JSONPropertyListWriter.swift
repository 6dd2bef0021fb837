#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renders a property list as JSON text for people and tools to inspect.
///
/// The rendering is the one documented on ``PropertyListJSONOptions`` and used by the
/// fixtures' `*.expected.json` files:
///
/// - strings, Booleans, arrays and dictionaries map to their JSON counterparts; strings
///   are escaped per RFC 8259 (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other control
///   characters as `\u00XX`); everything else, non-ASCII included, is written as UTF-8.
/// - integers are written exactly, whatever their size (JSON numbers have no limit).
/// - reals are written shortest-round-trip, always with a `.` or an exponent (`1.0`,
///   `1e+100`), so that a reader sees a floating-point number.
/// - types JSON lacks become one-key objects: `{"CF$UID": 3}`, `{"data": "<base64>"}`,
///   `{"date": "2001-01-01T00:00:00Z"}`, `{"real": "nan" | "inf" | "-inf"}`.
/// - a date with a fraction of a second keeps it to the microsecond, trailing zeros
///   removed (`2017-02-11T03:36:35.382174Z`), as Python's `plistlib` (and so the
///   fixtures) render it; whole seconds have no fraction. Apple's XML writer drops
///   fractions, but an inspection format should not hide them.
///
/// Pretty output indents by two spaces, writes `"key": value`, keeps empty containers
/// and the one-key objects above on one line, and has no trailing newline. Compact output
/// has no whitespace at all.
///
/// Nesting is walked with an explicit stack, not recursion; containers nested more than
/// ``maximumDepth`` deep are refused with `limitExceeded`, since JSON readers commonly
/// refuse them too.
enum JSONPropertyListWriter {
    /// The deepest nesting of arrays and dictionaries rendered.
    static let maximumDepth = 512

    static func write(_ value: PropertyList, options: PropertyListJSONOptions) throws -> Data {
        var writer = JSONTextWriter(
            prettyPrinted: options.prettyPrinted, sortsKeys: options.sortsKeys,
            maximumOutputBytes: options.maximumOutputBytes)
        try writer.write(value)
        return Data(writer.output)
    }

    /// Writes `value` to `output` in pieces as the text is made, so that only about
    /// ``JSONTextWriter/chunkSize`` bytes of it are held at a time.
    static func write(
        _ value: PropertyList, options: PropertyListJSONOptions,
        to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try withoutActuallyEscaping(output) { output in
            var writer = JSONTextWriter(
                prettyPrinted: options.prettyPrinted, sortsKeys: options.sortsKeys,
                maximumOutputBytes: options.maximumOutputBytes, destination: output)
            try writer.write(value)
            try writer.output.withUnsafeBytes(output)
        }
    }
}
