#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text of an iMessage and what its attributes say, from the `attributedBody` column
/// of Messages' `chat.db` (a typedstream of an `NSAttributedString`) in one call.
///
/// ```swift
/// let body = try IMessageBody(attributedBody: blob)
/// print(body.text)
/// for run in body.runs {
///     if let handle = run.mention { print("mentions \(handle): \(run.text)") }
///     if let guid = run.attachmentGUID { print("attachment \(guid)") }
///     if let link = run.link { print("link \(link)") }
///     if run.styles.contains(.bold) { print("bold: \(run.text)") }
/// }
/// ```
///
/// Each run is a range of the text (in UTF-16 code units, as Apple counts) with its
/// attributes; the accessors read the attributes Messages writes (`__kIM…AttributeName`)
/// and ``Run/attributes`` keeps them all, typed as ``ArchivedAttributeValue``.
public struct IMessageBody: Hashable, Sendable, CustomStringConvertible {
    /// The attributed string the blob holds.
    public let attributedString: ArchivedAttributedString

    /// The message text. An attachment stands in it as U+FFFC (object replacement).
    public var text: String { attributedString.string }

    /// The runs of attributes, in order.
    public let runs: [Run]

    /// Reads an `attributedBody` blob.
    ///
    /// - Parameters:
    ///   - attributedBody: The blob, a typedstream.
    ///   - options: Limits for reading it.
    /// - Throws: ``KeyedArchiveError``: what reading the stream throws, or `typeMismatch`
    ///   when its root is not an attributed string.
    public init(
        attributedBody: Data, options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    ) throws {
        // Most bodies have one shape, read in one pass; anything else (and every error) goes
        // through the general reader.
        if options.allowedClassNames == nil,
            let string = TypedStreamBodyReader.attributedString(
                attributedBody, maximumObjectCount: options.maximumObjectCount)
        {
            self.init(string)
            return
        }
        self.init(try IMessageBodyReadingPaths.generalReading(attributedBody, options: options))
    }

    /// Interprets an attributed string as a message body.
    ///
    /// - Parameter attributedString: The text and runs.
    public init(_ attributedString: ArchivedAttributedString) {
        self.attributedString = attributedString
        runs = attributedString.runs.map { run in
            Run(
                range: run.range, text: attributedString.text(in: run.range) ?? "", attributes: run.attributes
            )
        }
    }

    /// The text, then one line per run with its range and attributes.
    public var description: String { attributedString.description }

    /// A range of the message and its attributes.
    public struct Run: Hashable, Sendable {
        /// The range, in UTF-16 code units of the text.
        public let range: Range<Int>
        /// The text of the range.
        public let text: String
        /// Every attribute of the range by name.
        public let attributes: [String: ArchivedAttributeValue]

        /// Creates a run.
        ///
        /// - Parameters:
        ///   - range: The range in UTF-16 code units.
        ///   - text: The text of the range.
        ///   - attributes: The attributes.
        public init(range: Range<Int>, text: String, attributes: [String: ArchivedAttributeValue]) {
            self.range = range
            self.text = text
            self.attributes = attributes
        }

        /// The message part this run belongs to (`__kIMMessagePartAttributeName`): 0 for the
        /// first part, 1 for the next, … (an attachment and the text after it are parts).
        public var messagePart: Int? { attributes["__kIMMessagePartAttributeName"]?.intValue }

        /// The handle (phone number or e-mail address) this run mentions
        /// (`__kIMMentionConfirmedMention`).
        public var mention: String? { attributes["__kIMMentionConfirmedMention"]?.stringValue }

        /// The link of this run (`__kIMLinkAttributeName`).
        public var link: URL? {
            switch attributes["__kIMLinkAttributeName"] {
            case .url(let url)?: return url
            case .string(let text)?: return URL(string: text)
            default: return nil
            }
        }

        /// The GUID of the attachment this run stands for (`__kIMFileTransferGUIDAttributeName`),
        /// the `guid` of its row in the `attachment` table.
        public var attachmentGUID: String? { attributes["__kIMFileTransferGUIDAttributeName"]?.stringValue }

        /// The attachment's file name (`__kIMFilenameAttributeName`).
        public var attachmentFilename: String? { attributes["__kIMFilenameAttributeName"]?.stringValue }

        /// The text effect (`__kIMTextEffectAttributeName`): see ``textEffectName``.
        public var textEffect: Int? { attributes["__kIMTextEffectAttributeName"]?.intValue }

        /// The text effect's name as Messages shows it (`big`, `small`, `shake`, `nod`,
        /// `explode`, `ripple`, `bloom`, `jitter`), or `nil` for none or an unknown one.
        public var textEffectName: String? {
            switch textEffect {
            case 4: return "ripple"
            case 5: return "big"
            case 6: return "bloom"
            case 8: return "nod"
            case 9: return "shake"
            case 10: return "jitter"
            case 11: return "small"
            case 12: return "explode"
            default: return nil
            }
        }

        /// The text styles of the run (`__kIMTextBoldAttributeName`, …).
        public var styles: TextStyles {
            var styles: TextStyles = []
            for (style, name) in TextStyles.attributeNames where (attributes[name]?.intValue ?? 0) != 0 {
                styles.insert(style)
            }
            return styles
        }

        /// Whether Messages detected something in this run (a date, an address, a phone
        /// number, …: `__kIMDataDetectedAttributeName`); the detector's result is the
        /// attribute's data, a keyed archive.
        public var isDataDetected: Bool { attributes["__kIMDataDetectedAttributeName"] != nil }
    }

    /// Text styles Messages writes as attributes.
    public struct TextStyles: OptionSet, Hashable, Sendable {
        /// The raw bits.
        public let rawValue: Int

        /// Creates styles from raw bits.
        ///
        /// - Parameter rawValue: The bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Bold (`__kIMTextBoldAttributeName`).
        public static let bold = TextStyles(rawValue: 1)
        /// Italic (`__kIMTextItalicAttributeName`).
        public static let italic = TextStyles(rawValue: 2)
        /// Underlined (`__kIMTextUnderlineAttributeName`).
        public static let underline = TextStyles(rawValue: 4)
        /// Struck through (`__kIMTextStrikethroughAttributeName`).
        public static let strikethrough = TextStyles(rawValue: 8)

        static let attributeNames: [(TextStyles, String)] = [
            (.bold, "__kIMTextBoldAttributeName"), (.italic, "__kIMTextItalicAttributeName"),
            (.underline, "__kIMTextUnderlineAttributeName"),
            (.strikethrough, "__kIMTextStrikethroughAttributeName"),
        ]
    }
}
