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
    /// The formats these conversions read.
    package enum Input: Sendable, CaseIterable {
        case binary, xml, openStep, json
    }

    /// The formats these conversions write; JSON with its options.
    package enum Output: Sendable {
        case xml, binary
        case json(PropertyListJSONOptions)
    }

    /// Writes what reading `data` as `input` and writing the value as `output` writes, byte
    /// for byte, without the tree: the one place that picks the conversion for a pair of
    /// formats, for `keyed-archive -convert` and for ``StreamedConversionPaths``.
    ///
    /// - Parameters:
    ///   - data: A document in the format `input`.
    ///   - input: The format `data` is read as.
    ///   - output: The format written (default reading limits; binary keys sorted).
    ///   - maximumOutputBytes: The bound on the XML written (JSON has its own, in its
    ///     options; binary output is bounded by what was read).
    ///   - write: Receives the output in pieces (the binary output in one).
    /// - Throws: What the conversion for the pair throws (see each), or what `write` throws.
    package static func convert(
        _ data: Data, from input: Input, to output: Output, maximumOutputBytes: Int,
        to write: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        switch (input, output) {
        case (.binary, .xml):
            try XMLPropertyListTranscoder.transcode(
                data, readingOptions: PropertyListReadingOptions(), maximumOutputBytes: maximumOutputBytes,
                to: write)
        case (.xml, .xml): try xml(fromXML: data, maximumOutputBytes: maximumOutputBytes, to: write)
        case (.json, .xml): try xml(fromJSON: data, maximumOutputBytes: maximumOutputBytes, to: write)
        case (.openStep, .xml): try xml(fromOpenStep: data, maximumOutputBytes: maximumOutputBytes, to: write)
        case (.binary, .json(let options)): try json(fromBinary: data, options: options, to: write)
        case (.xml, .json(let options)): try json(fromXML: data, options: options, to: write)
        case (.json, .json(let options)): try json(fromJSON: data, options: options, to: write)
        case (.openStep, .json(let options)): try json(fromOpenStep: data, options: options, to: write)
        case (.binary, .binary): try binary(fromBinary: data).withUnsafeBytes(write)
        case (.xml, .binary): try binary(fromXML: data).withUnsafeBytes(write)
        case (.json, .binary): try binary(fromJSON: data).withUnsafeBytes(write)
        case (.openStep, .binary): try binary(fromOpenStep: data).withUnsafeBytes(write)
        }
    }

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
        return try copy(
            compact, sortsKeys: sortsKeys,
            maximumDepth: readingOptions.maximumDepth == .max ? .max : readingOptions.maximumDepth + 1,
            maximumValues: readingOptions.valueLimit(forInputLength: data.count), countsKeys: false)
    }

    /// The binary property list ``PropertyList/write(format:options:to:)`` writes for the
    /// value of the binary property list `data`, byte for byte: its objects are copied in
    /// the tree writer's order, as ``binary(fromXML:readingOptions:sortsKeys:)`` copies
    /// them (a shared object once for each time it is reached, equal scalars stored once).
    ///
    /// - Throws: What reading `data` throws (its nesting limit, its value budget counted as
    ///   it counts it, keys included), `unsupportedFormat` for a key given twice, or what
    ///   the binary writer throws.
    package static func binary(
        fromBinary data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        sortsKeys: Bool = true
    ) throws -> Data {
        try copy(
            data, sortsKeys: sortsKeys, maximumDepth: readingOptions.maximumDepth,
            maximumValues: readingOptions.valueLimit(forInputLength: data.count), countsKeys: true)
    }

    private static func copy(
        _ data: Data, sortsKeys: Bool, maximumDepth: Int, maximumValues: Int, countsKeys: Bool
    ) throws -> Data {
        try data.withUnsafeBytes { bytes in
            let trailer = try BinaryPropertyListTrailer(validating: bytes)
            let scanner = try BinaryPropertyListScanner(bytes: bytes, trailer: trailer)
            var builder = BinaryPropertyListBuilder()
            let top = try builder.add(
                copying: trailer.topObject, from: scanner, sortsKeys: sortsKeys, maximumDepth: maximumDepth,
                maximumValues: maximumValues, countsKeys: countsKeys)
            return try builder.finish(topObject: top)
        }
    }

    /// Writes the XML ``PropertyList/write(format:options:to:)`` writes for the value of
    /// the XML document `data`, byte for byte (keys sorted): the XML is rewritten as a
    /// compact binary property list in one pass (as ``binary(fromXML:readingOptions:sortsKeys:)``
    /// does), which ``XMLPropertyListTranscoder`` writes as XML, in pieces of about 256 KB.
    ///
    /// - Throws: What reading the XML throws, `unsupportedFormat` for a key given twice,
    ///   `limitExceeded` past `maximumOutputBytes`, or what `output` throws.
    package static func xml(
        fromXML data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        maximumOutputBytes: Int, to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let compact = try XMLPropertyListReader.binaryPropertyList(data, options: readingOptions)
        let options = compactReadingOptions(readingOptions, forInputLength: data.count)
        try XMLPropertyListTranscoder.transcode(
            compact, readingOptions: options, maximumOutputBytes: maximumOutputBytes, to: output)
    }

    /// Walks the value of the XML document `data` as ``BinaryPropertyListWalk`` walks a
    /// binary property list (the tool's `-p`): the events of the value reading the XML gives,
    /// each dictionary's keys in order, through the XML's compact binary form.
    ///
    /// - Throws: What reading the XML throws, what the walk throws (`unsupportedFormat` for
    ///   a key given twice), or what `visit` throws.
    package static func walk(
        xml data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        _ visit: (BinaryPropertyListWalk.Event) throws -> Void
    ) throws {
        let compact = try XMLPropertyListReader.binaryPropertyList(data, options: readingOptions)
        try BinaryPropertyListWalk.walk(
            compact, options: compactReadingOptions(readingOptions, forInputLength: data.count), visit)
    }

    /// The limits of walking the compact form of an XML document that reading it with
    /// `readingOptions` applied its own limits to: the compact form holds its values (each at
    /// most once: no container is shared) and their keys, at most as many, and nests as deep,
    /// plus the level of an empty container.
    private static func compactReadingOptions(
        _ readingOptions: PropertyListReadingOptions, forInputLength length: Int
    ) -> PropertyListReadingOptions {
        let (values, overflow) = readingOptions.valueLimit(forInputLength: length)
            .multipliedReportingOverflow(by: 2)
        var options = readingOptions
        options.maximumDepth = readingOptions.maximumDepth == .max ? .max : readingOptions.maximumDepth + 1
        options.baseValueAllowance = overflow ? .max : values
        options.maximumExpansionFactor = 0
        return options
    }

    /// Writes the JSON text ``PropertyList/writeJSON(options:to:)`` writes for the value of
    /// the XML document `data`, byte for byte, as the document is read (``XMLJSONBuilder``),
    /// in pieces of about 256 KB as it is made.
    ///
    /// - Throws: What reading the XML throws; `unsupportedFormat` for a key given twice or
    ///   a dictionary whose first key is `CF$UID` not written as writers write a UID (the
    ///   value of either is known only once the dictionary is read whole) or a document read
    ///   again after part of the text was handed over; `limitExceeded` where the JSON
    ///   writer's bounds fall; or what `output` throws. What was handed to `output` before
    ///   stays handed over.
    package static func json(
        fromXML data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        options: PropertyListJSONOptions, to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try streamJSON(options: options, detectsUIDs: true, to: output) { builder in
            _ = try XMLPropertyListReader.read(data, options: readingOptions, into: &builder)
        }
    }

    /// Writes the JSON text of the events `read` gives an ``XMLJSONBuilder`` (the shared
    /// part of the streamed JSON of XML, JSON and OpenStep text): keys in the order read,
    /// so `options.sortsKeys` is refused (sorted keys need each dictionary read whole).
    private static func streamJSON(
        options: PropertyListJSONOptions, detectsUIDs: Bool,
        to output: (UnsafeRawBufferPointer) throws -> Void,
        read: (inout XMLJSONBuilder) throws -> Void
    ) throws {
        guard !options.sortsKeys else {
            throw KeyedArchiveError(.unsupportedFormat, "sorted keys need the dictionary read whole")
        }
        try withoutActuallyEscaping(output) { output in
            var builder = XMLJSONBuilder(
                writer: JSONTextWriter(
                    prettyPrinted: options.prettyPrinted, sortsKeys: false,
                    maximumOutputBytes: options.maximumOutputBytes, destination: output),
                detectsUIDs: detectsUIDs)
            try read(&builder)
            if let failure = builder.failure { throw failure }
            try builder.writer.output.withUnsafeBytes(output)
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

    // MARK: - JSON input

    // JSON read as the tool reads a JSON file (see ``JSONTextReader``): no reading options
    // apply (the reader's own nesting limit does), and `{"CF$UID": 1}` stays a dictionary.

    /// The compact binary property list of the JSON text `data`, as
    /// ``XMLPropertyListReader/binaryPropertyList(_:options:quickly:)`` makes one of XML.
    private static func compactBinary(fromJSON data: Data) throws -> Data {
        var builder = XMLBinaryBuilder(inputLength: data.count)
        builder.convertsUIDs = false
        let top = try JSONTextReader.read(data, into: &builder)
        return try builder.finish(topObject: top)
    }

    /// The limits of reading a compact form made of `data`'s text: none but the input's
    /// size (each value and key is at least a byte of it) and the text reader's depth.
    private static func compactReadingOptions(forInputLength length: Int) -> PropertyListReadingOptions {
        let (values, overflow) = length.multipliedReportingOverflow(by: 2)
        return PropertyListReadingOptions(
            maximumDepth: JSONTextReader.maximumDepth + 1, maximumExpansionFactor: 0,
            baseValueAllowance: overflow ? .max : values + 16)
    }

    /// The binary property list the tool writes for the JSON text `data`, byte for byte:
    /// as ``binary(fromXML:readingOptions:sortsKeys:)``, through a compact form.
    ///
    /// - Throws: What ``JSONTextReader`` throws, `unsupportedFormat` for a key given twice,
    ///   or what the binary writer throws.
    package static func binary(fromJSON data: Data, sortsKeys: Bool = true) throws -> Data {
        let options = compactReadingOptions(forInputLength: data.count)
        return try copy(
            try compactBinary(fromJSON: data), sortsKeys: sortsKeys, maximumDepth: options.maximumDepth,
            maximumValues: options.valueLimit(forInputLength: 0), countsKeys: false)
    }

    /// Writes the XML the tool writes for the JSON text `data`, byte for byte: as
    /// ``xml(fromXML:readingOptions:maximumOutputBytes:to:)``, through a compact form.
    ///
    /// - Throws: What ``JSONTextReader`` throws, `unsupportedFormat` for a key given twice,
    ///   `limitExceeded` past `maximumOutputBytes`, or what `output` throws.
    package static func xml(
        fromJSON data: Data, maximumOutputBytes: Int, to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try XMLPropertyListTranscoder.transcode(
            try compactBinary(fromJSON: data),
            readingOptions: compactReadingOptions(forInputLength: data.count),
            maximumOutputBytes: maximumOutputBytes, to: output)
    }

    /// Writes the JSON text the tool writes for the JSON text `data` (its value, keys in
    /// their order, written again), byte for byte, as it is read.
    ///
    /// - Throws: What ``JSONTextReader`` throws; `unsupportedFormat` for a key given twice;
    ///   `limitExceeded` where the JSON writer's bounds fall; what `output` throws.
    package static func json(
        fromJSON data: Data, options: PropertyListJSONOptions,
        to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try streamJSON(options: options, detectsUIDs: false, to: output) { builder in
            _ = try JSONTextReader.read(data, into: &builder)
        }
    }

    /// Walks the value of the JSON text `data` as ``walk(xml:readingOptions:_:)`` walks XML,
    /// through its compact binary form.
    ///
    /// - Throws: What ``JSONTextReader`` throws, what the walk throws (`unsupportedFormat`
    ///   for a key given twice), or what `visit` throws.
    package static func walk(json data: Data, _ visit: (BinaryPropertyListWalk.Event) throws -> Void) throws {
        try BinaryPropertyListWalk.walk(
            try compactBinary(fromJSON: data), options: compactReadingOptions(forInputLength: data.count),
            visit)
    }

    // MARK: - OpenStep input

    // OpenStep read as ``OpenStepEventReader`` reads it: the usual part of the format, as
    // the OpenStep reader reads it; anything else throws, for the tree's way.

    /// The compact binary property list of the OpenStep text `data`.
    private static func compactBinary(fromOpenStep data: Data, readingOptions: PropertyListReadingOptions)
        throws -> Data
    {
        var builder = XMLBinaryBuilder(inputLength: data.count)
        builder.convertsUIDs = false
        let top = try OpenStepEventReader.read(data, options: readingOptions, into: &builder)
        return try builder.finish(topObject: top)
    }

    /// The binary property list ``PropertyList/write(format:options:to:)`` writes for the
    /// value of the OpenStep text `data`, byte for byte, through a compact form.
    ///
    /// - Throws: What ``OpenStepEventReader`` throws, `unsupportedFormat` for a key given
    ///   twice, or what the binary writer throws.
    package static func binary(
        fromOpenStep data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        sortsKeys: Bool = true
    ) throws -> Data {
        let options = compactReadingOptions(readingOptions, forInputLength: data.count)
        return try copy(
            try compactBinary(fromOpenStep: data, readingOptions: readingOptions), sortsKeys: sortsKeys,
            maximumDepth: options.maximumDepth, maximumValues: options.valueLimit(forInputLength: 0),
            countsKeys: false)
    }

    /// Writes the XML ``PropertyList/write(format:options:to:)`` writes for the value of the
    /// OpenStep text `data`, byte for byte, through a compact form.
    ///
    /// - Throws: What ``OpenStepEventReader`` throws, `unsupportedFormat` for a key given
    ///   twice, `limitExceeded` past `maximumOutputBytes`, or what `output` throws.
    package static func xml(
        fromOpenStep data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        maximumOutputBytes: Int, to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try XMLPropertyListTranscoder.transcode(
            try compactBinary(fromOpenStep: data, readingOptions: readingOptions),
            readingOptions: compactReadingOptions(readingOptions, forInputLength: data.count),
            maximumOutputBytes: maximumOutputBytes, to: output)
    }

    /// Writes the JSON text ``PropertyList/writeJSON(options:to:)`` writes for the value of
    /// the OpenStep text `data`, byte for byte, as it is read.
    ///
    /// - Throws: What ``OpenStepEventReader`` throws; `unsupportedFormat` for a key given
    ///   twice; `limitExceeded` where the JSON writer's bounds fall; what `output` throws.
    package static func json(
        fromOpenStep data: Data, readingOptions: PropertyListReadingOptions = PropertyListReadingOptions(),
        options: PropertyListJSONOptions, to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try streamJSON(options: options, detectsUIDs: false, to: output) { builder in
            _ = try OpenStepEventReader.read(data, options: readingOptions, into: &builder)
        }
    }
}
