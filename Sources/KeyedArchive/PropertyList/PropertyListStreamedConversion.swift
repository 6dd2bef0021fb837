#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Conversions between property-list formats that build no ``PropertyList`` tree, for the
/// tool's `-convert`: each writes the bytes that reading the input and writing the value
/// gives, and refuses at least what that refuses (sometimes more, such as a key given
/// twice, whose handling needs the tree; a caller that must accept every input then goes
/// the tree's way).
package enum PropertyListStreamedConversion {
    /// The binary property list ``PropertyList/write(format:options:to:)`` writes for the
    /// value of the XML document `data`, byte for byte: the XML is rewritten as a compact
    /// binary property list in one pass (the keyed unarchiver's way of opening XML), whose
    /// objects are then copied in the tree writer's order (depth first, a container before
    /// its contents, a dictionary's keys before its values, equal scalars stored once).
    ///
    /// - Parameters:
    ///   - data: An XML property list.
    ///   - readingOptions: The limits of reading, as for ``PropertyList/init(from:options:)``.
    ///   - sortsKeys: Whether dictionary keys are written sorted (the writer's default).
    /// - Throws: What reading the XML throws, `unsupportedFormat` for a key given twice,
    ///   or what the binary writer throws.
    /// - Complexity: O(*n*) in the size of the document, plus a sort of each dictionary's
    ///   keys.
    package static func binary(
        fromXML data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        sortsKeys: Bool = true
    ) throws -> Data {
        let compact = try XMLPropertyListReader.binaryPropertyList(data, options: readingOptions)
        return try compact.withUnsafeBytes { bytes in
            let trailer = try BinaryPropertyListTrailer(validating: bytes)
            let scanner = try BinaryPropertyListScanner(bytes: bytes, trailer: trailer)
            var builder = BinaryPropertyListBuilder()
            let top = try builder.add(
                copying: trailer.topObject, from: scanner, sortsKeys: sortsKeys,
                maximumDepth: readingOptions.maximumDepth &+ 1,
                maximumValues: readingOptions.valueLimit(forInputLength: data.count))
            return try builder.finish(topObject: top)
        }
    }

    /// Writes the JSON text ``PropertyList/writeJSON(options:to:)`` writes for the value of
    /// the binary property list `data`, byte for byte, from a walk over its objects
    /// (``BinaryPropertyListWalk``), in pieces of about 256 KB as it is made.
    ///
    /// - Parameters:
    ///   - data: A binary property list.
    ///   - readingOptions: The limits of reading, as for ``PropertyList/init(from:options:)``.
    ///   - options: Indentation, key order and the output bound.
    ///   - output: Receives the UTF-8 text, in order.
    /// - Throws: What reading `data` throws (`unsupportedFormat` for a key given twice),
    ///   `limitExceeded` where the JSON writer's bounds fall, or what `output` throws.
    package static func json(
        fromBinary data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        options: PropertyListJSONOptions, to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try withoutActuallyEscaping(output) { output in
            var writer = JSONTextWriter(
                prettyPrinted: options.prettyPrinted, sortsKeys: options.sortsKeys,
                maximumOutputBytes: options.maximumOutputBytes, destination: output)
            try BinaryPropertyListWalk.walk(data, options: readingOptions, sortsKeys: options.sortsKeys) {
                event in
                try writer.consume(event)
            }
            try writer.output.withUnsafeBytes(output)
        }
    }
}
