/// What reading a property list passed over without reading it.
///
/// CoreFoundation stops reading an XML property list at the end of its root element and
/// ignores whatever follows, and so do these readers: real files carry more there (a
/// signed Safari configuration file has its signature after `</plist>`). The report says
/// whether anything was ignored, and where, for tools that want to tell:
///
/// ```swift
/// var report = PropertyListReadingReport()
/// let value = try PropertyList(
///     from: Data("<plist><true/></plist>\nsignature".utf8), report: &report)
/// print(value)                                                    // true
/// print(report.ignoredTrailingContent?.byteCount ?? 0)            // 9
/// print(report.ignoredTrailingContent.map { "\($0.location)" } ?? "")  // line 2, column 1
/// ```
public struct PropertyListReadingReport: Hashable, Sendable {
    /// Content after the end of an XML property list's root element, which was ignored;
    /// `nil` when only whitespace, comments and processing instructions follow it (as XML
    /// allows), and for binary and OpenStep property lists.
    public var ignoredTrailingContent: IgnoredContent?

    /// Creates an empty report, for a reading to fill in.
    public init() {}

    /// Bytes the reader passed over.
    public struct IgnoredContent: Hashable, Sendable {
        /// The offset of the first ignored byte in the input.
        public var byteOffset: Int
        /// How many bytes were ignored, up to the end of the input.
        public var byteCount: Int
        /// The line and column of the first ignored byte.
        public var location: KeyedArchiveError.Location
        /// The markup that ended the property list: `</plist>`, or the end of a root
        /// value written without the `<plist>` wrapper, such as `</dict>` or `<true/>`.
        public var after: String

        /// Creates a description of ignored bytes.
        ///
        /// - Parameters:
        ///   - byteOffset: The offset of the first ignored byte.
        ///   - byteCount: The number of ignored bytes.
        ///   - location: Where the first ignored byte is.
        ///   - after: The markup that ended the property list.
        public init(byteOffset: Int, byteCount: Int, location: KeyedArchiveError.Location, after: String) {
            self.byteOffset = byteOffset
            self.byteCount = byteCount
            self.location = location
            self.after = after
        }
    }
}
