#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@available(macOS 12, iOS 15, tvOS 15, watchOS 8, *)
extension ArchivedAttributedString {
    /// The attributes of a run that Foundation's `AttributedString` has no key for
    /// (fonts, colours, paragraph styles, anything else archived), kept under this key so
    /// that converting to `AttributedString` and back loses nothing.
    public enum OtherAttributes: AttributedStringKey {
        /// The archived attributes by name, as in ``ArchivedAttributedString/Run/attributes``.
        public typealias Value = [String: ArchivedAttributeValue]
        /// `KeyedArchive.archivedAttributes`.
        public static let name = "KeyedArchive.archivedAttributes"
    }

    /// The archived name of the link attribute, which `AttributedString` calls `link`.
    static let linkAttributeName = "NSLink"

    /// The string as Foundation's `AttributedString` (available with FoundationEssentials):
    /// `NSLink` URLs become `link`, every other attribute is kept under ``OtherAttributes``.
    ///
    /// Runs whose range is outside the text or splits a surrogate pair are left out.
    public var attributedString: AttributedString {
        var result = AttributedString(string)
        let utf16 = result.utf16
        for run in runs {
            // `text(in:)` is nil for a range out of bounds or one that splits a surrogate pair.
            guard !run.range.isEmpty, text(in: run.range) != nil else { continue }
            let lower = utf16.index(result.startIndex, offsetBy: run.range.lowerBound)
            let upper = utf16.index(lower, offsetBy: run.range.count)
            var others = run.attributes
            if case .url(let url)? = others[Self.linkAttributeName] {
                result[lower..<upper].link = url
                others[Self.linkAttributeName] = nil
            }
            if !others.isEmpty { result[lower..<upper][OtherAttributes.self] = others }
        }
        return result
    }

    /// Creates an archived attributed string from Foundation's `AttributedString`: `link`
    /// becomes `NSLink`, ``OtherAttributes`` are restored, other Foundation attributes are
    /// not archived.
    ///
    /// - Parameters:
    ///   - attributedString: The string.
    ///   - isMutable: Whether to archive it as `NSMutableAttributedString`.
    public init(_ attributedString: AttributedString, isMutable: Bool = false) {
        let utf16 = attributedString.utf16
        var runs: [Run] = []
        for run in attributedString.runs {
            var attributes = run[OtherAttributes.self] ?? [:]
            if let link = run.link { attributes[Self.linkAttributeName] = .url(link) }
            let lower = utf16.distance(from: attributedString.startIndex, to: run.range.lowerBound)
            let upper = utf16.distance(from: attributedString.startIndex, to: run.range.upperBound)
            if let last = runs.last, last.attributes == attributes, last.range.upperBound == lower {
                runs[runs.count - 1].range = last.range.lowerBound..<upper
            } else {
                runs.append(Run(range: lower..<upper, attributes: attributes))
            }
        }
        if runs.count == 1, runs[0].attributes.isEmpty { runs = [] }
        self.init(String(attributedString.characters), runs: runs, isMutable: isMutable)
    }
}
