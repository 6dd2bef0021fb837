#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PropertyList {
    /// Reads a property list in any supported format, detected from its bytes.
    ///
    /// ```swift
    /// let value = try PropertyList(from: Data("<plist><string>hi</string></plist>".utf8))
    /// value.stringValue  // "hi"
    /// ```
    ///
    /// - Parameters:
    ///   - data: A binary, XML or OpenStep property list.
    ///   - options: Limits on nesting and size; the defaults are safe for untrusted input.
    /// - Throws: ``KeyedArchiveError`` with code `corruptData` (and the byte offset, or
    ///   line and column) for malformed input, `limitExceeded` when a limit is reached, or
    ///   `unsupportedFormat` for XML entity declarations.
    public init(from data: Data, options: PropertyListReadingOptions = PropertyListReadingOptions()) throws {
        try self.init(from: data, format: PropertyListFormat.detect(data), options: options)
    }

    /// Reads a property list in any supported format, detected from its bytes, and says
    /// in `report` what the reading passed over.
    ///
    /// An XML property list ends with its root element, as CoreFoundation reads it;
    /// whatever follows is ignored and described in
    /// ``PropertyListReadingReport/ignoredTrailingContent``:
    ///
    /// ```swift
    /// var report = PropertyListReadingReport()
    /// let value = try PropertyList(from: Data("<plist><true/></plist>signed".utf8), report: &report)
    /// report.ignoredTrailingContent?.byteCount  // 6
    /// ```
    ///
    /// - Parameters:
    ///   - data: A binary, XML or OpenStep property list.
    ///   - options: Limits on nesting and size.
    ///   - report: Replaced by what this reading passed over.
    /// - Throws: What ``init(from:options:)`` throws.
    public init(
        from data: Data, options: PropertyListReadingOptions = PropertyListReadingOptions(),
        report: inout PropertyListReadingReport
    ) throws {
        report = PropertyListReadingReport()
        switch PropertyListFormat.detect(data) {
        case .xml: self = try XMLPropertyListReader.read(data, options: options, report: &report)
        case let format: try self.init(from: data, format: format, options: options)
        }
    }

    /// Reads a property list in the given format.
    ///
    /// - Parameters:
    ///   - data: The encoded property list.
    ///   - format: The format the bytes are in.
    ///   - options: Limits on nesting and size.
    /// - Throws: ``KeyedArchiveError`` describing what is wrong and where.
    public init(
        from data: Data, format: PropertyListFormat,
        options: PropertyListReadingOptions = PropertyListReadingOptions()
    ) throws {
        switch format {
        case .binary: self = try BinaryPropertyListReader.read(data, options: options)
        case .xml: self = try XMLPropertyListReader.read(data, options: options)
        case .openStep:
            // Empty input, a typedstream or JSON is named as such, not read as OpenStep text.
            if let refusal = ForeignInput.refusal(data) { throw refusal }
            do {
                self = try OpenStepPropertyListReader.read(data, options: options)
            } catch let error as KeyedArchiveError {
                throw ForeignInput.jsonRefusal(data, openStepError: error) ?? error
            }
        }
    }

    /// Encodes the property list.
    ///
    /// - Parameters:
    ///   - format: `.binary` or `.xml`.
    ///   - options: Writing choices such as key sorting.
    /// - Returns: The encoded bytes.
    /// - Throws: ``KeyedArchiveError`` with code `unsupportedFormat` for `.openStep`, or
    ///   `invalidValue` for a value the format cannot hold.
    public func data(
        format: PropertyListFormat = .binary,
        options: PropertyListWritingOptions = PropertyListWritingOptions()
    ) throws -> Data {
        switch format {
        case .binary: return try BinaryPropertyListWriter.write(self, options: options)
        case .xml: return try XMLPropertyListWriter.write(self, options: options)
        case .openStep:
            throw KeyedArchiveError(.unsupportedFormat, "writing OpenStep property lists is not supported")
        }
    }

    /// Encodes the property list, handing the bytes to `output` in pieces as they are made.
    ///
    /// ```swift
    /// let list: PropertyList = ["Title": "Potato Bug", "Rating": 3]
    /// var text = Data()
    /// try list.write(format: .xml) { piece in text.append(contentsOf: piece) }
    /// ```
    ///
    /// An XML document is handed over in pieces of about 256 KB as it is written, so writing
    /// it to a file or a socket holds only one piece, however long the text (the bound of
    /// ``PropertyListWritingOptions/maximumOutputBytes`` counts every piece). A binary
    /// property list is handed over in one piece once complete, since its offset table
    /// follows its objects. Each buffer is valid only during the call. If `output` throws,
    /// writing stops and its error is rethrown; what was handed over before stays handed
    /// over.
    ///
    /// - Parameters:
    ///   - format: `.binary` or `.xml`.
    ///   - options: Writing choices such as key sorting and the output bound.
    ///   - output: Receives the bytes, in order.
    /// - Throws: As ``data(format:options:)``, or what `output` throws.
    public func write(
        format: PropertyListFormat = .binary,
        options: PropertyListWritingOptions = PropertyListWritingOptions(),
        to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        switch format {
        case .binary: try BinaryPropertyListWriter.write(self, options: options).withUnsafeBytes(output)
        case .xml: try XMLPropertyListWriter.write(self, options: options, to: output)
        case .openStep:
            throw KeyedArchiveError(.unsupportedFormat, "writing OpenStep property lists is not supported")
        }
    }

    /// Renders the property list as JSON, for inspection.
    ///
    /// Types JSON lacks are rendered as described in ``PropertyListJSONOptions``.
    ///
    /// - Parameter options: Indentation and key order.
    /// - Returns: UTF-8 JSON text.
    /// - Throws: ``KeyedArchiveError`` if nesting exceeds 512 levels.
    public func jsonData(options: PropertyListJSONOptions = PropertyListJSONOptions()) throws -> Data {
        try JSONPropertyListWriter.write(self, options: options)
    }

    /// Renders the property list as JSON, handing the text to `output` in pieces of about
    /// 256 KB as it is made, so that only one piece is held at a time.
    ///
    /// ```swift
    /// let list: PropertyList = ["Title": "Potato Bug"]
    /// var text = Data()
    /// try list.writeJSON { piece in text.append(contentsOf: piece) }
    /// ```
    ///
    /// The text is the same as ``jsonData(options:)`` returns. Each buffer is valid only
    /// during the call; if `output` throws, writing stops and its error is rethrown.
    ///
    /// - Parameters:
    ///   - options: Indentation, key order and the output bound (which counts every piece).
    ///   - output: Receives the UTF-8 text, in order.
    /// - Throws: As ``jsonData(options:)``, or what `output` throws.
    public func writeJSON(
        options: PropertyListJSONOptions = PropertyListJSONOptions(),
        to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try JSONPropertyListWriter.write(self, options: options, to: output)
    }
}
