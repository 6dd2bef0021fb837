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
        case .openStep: self = try OpenStepPropertyListReader.read(data, options: options)
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
}
