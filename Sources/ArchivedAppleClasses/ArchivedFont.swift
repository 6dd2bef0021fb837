#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A font as AppKit's `NSFont` or UIKit's `UIFont` archives it: a PostScript name and a
/// point size, with the flags and descriptor Apple stores beside them.
///
/// ```swift
/// let font = ArchivedFont(name: "Helvetica", size: 12)
/// let data = try KeyedArchiver.archivedData(withRootObject: font, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedFont.self, from: data)
/// print(copy?.description ?? "")   // Helvetica 12 pt
/// ```
///
/// - `NSFont` writes `NSName`, `NSSize` and `NSfFlags` (and, in nibs,
///   `NSFontUsesAppearanceFontSize`).
/// - `UIFont` writes `UIFontName`, `UIFontPointSize`, `UIFontTraits`, `UISystemFont` and
///   a `UIFontDescriptor`.
///
/// Fields without a property of their own are kept in ``otherFields`` and written back.
public struct ArchivedFont: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// Which of Apple's font classes a font is archived as.
    public enum Platform: String, Hashable, Sendable {
        /// AppKit's `NSFont`.
        case appKit = "NSFont"
        /// UIKit's `UIFont`.
        case uiKit = "UIFont"
    }

    /// The class the font is archived as.
    public var platform: Platform
    /// The font's PostScript name (`NSName`, `UIFontName`), such as `Helvetica-Bold` or
    /// `.AppleSystemUIFont`.
    public var name: String
    /// The point size (`NSSize`, `UIFontPointSize`).
    public var size: Double
    /// `NSFont`'s `NSfFlags`, or `UIFont`'s `UIFontTraits`; `nil` when not stored.
    public var flags: Int?
    /// Whether `UIFont` marks the font as the system font (`UISystemFont`); `nil` when not stored.
    public var isSystemFont: Bool?
    /// The font descriptor (`UIFontDescriptor`, `NSFontDescriptor`) when stored, kept as read.
    public var descriptor: ArchivedAttributeValue?
    /// The fields this type has no property for, by key, written back as they were.
    public var otherFields: [String: ArchivedAttributeValue]
    /// The four flag bytes an `NSFont` read from a typedstream (what `NSArchiver` wrote)
    /// stores after its size, such as `[0, 1, 0, 0]`; `nil` for a font from a keyed archive.
    /// Not part of keyed archives; ``TypedStreamArchiver`` writes them back (`[0, 1, 0, 0]`
    /// when `nil`).
    public var typedStreamFlags: [Int8]? = nil

    /// Creates a font.
    ///
    /// - Parameters:
    ///   - name: The PostScript name.
    ///   - size: The point size.
    ///   - platform: The class to archive it as; default `NSFont`.
    ///   - flags: `NSfFlags` or `UIFontTraits`, or `nil` to write none.
    public init(name: String, size: Double, platform: Platform = .appKit, flags: Int? = nil) {
        self.platform = platform
        self.name = name
        self.size = size
        self.flags = flags
        self.isSystemFont = nil
        self.descriptor = nil
        self.otherFields = [:]
    }

    /// `NSFont`; a `UIFont` is written as `UIFont` (see ``platform``).
    public static var archivedClassName: String { Platform.appKit.rawValue }

    /// `Name size pt`, such as `Helvetica 12 pt`.
    public var description: String {
        "\(name) \(GeometryText.format(size)) pt"
    }

    private static let appKitKeys: Set<String> = ["NSName", "NSSize", "NSfFlags", "NSFontDescriptor"]
    private static let uiKitKeys: Set<String> = [
        "UIFontName", "UIFontPointSize", "UIFontTraits", "UISystemFont", "UIFontDescriptor",
    ]

    /// Writes the font in the layout of its ``platform``.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        switch platform {
        case .appKit:
            coder.encode(name, forKey: "NSName")
            coder.encode(size, forKey: "NSSize")
            if let flags { coder.encode(flags, forKey: "NSfFlags") }
            if let descriptor { coder.encodeAttributeField(descriptor, forKey: "NSFontDescriptor") }
        case .uiKit:
            if let descriptor { coder.encodeAttributeField(descriptor, forKey: "UIFontDescriptor") }
            coder.encode(name, forKey: "UIFontName")
            coder.encode(size, forKey: "UIFontPointSize")
            if let flags { coder.encode(flags, forKey: "UIFontTraits") }
            if let isSystemFont { coder.encode(isSystemFont, forKey: "UISystemFont") }
        }
        coder.encodeOtherFields(otherFields)
    }

    /// Reads an `NSFont` or `UIFont`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when the font has no
    ///   name, or `typeMismatch` when a field has the wrong type.
    public init(coder: KeyedUnarchiver) throws {
        if coder.containsValue(forKey: "UIFontName") {
            platform = .uiKit
            guard let name = try coder.decodeObject(of: String.self, forKey: "UIFontName") else {
                throw coder.missingField("UIFontName", of: "UIFont")
            }
            self.name = name
            size = try coder.decodeDouble(forKey: "UIFontPointSize")
            flags =
                coder.containsValue(forKey: "UIFontTraits")
                ? try coder.decodeInteger(forKey: "UIFontTraits") : nil
            isSystemFont =
                coder.containsValue(forKey: "UISystemFont")
                ? try coder.decodeBool(forKey: "UISystemFont") : nil
            descriptor = try coder.decodeAttributeValue(forKey: "UIFontDescriptor")
            otherFields = try coder.otherFields(excluding: Self.uiKitKeys)
        } else {
            platform = .appKit
            guard let name = try coder.decodeObject(of: String.self, forKey: "NSName") else {
                throw coder.missingField("NSName", of: "NSFont")
            }
            self.name = name
            size = try coder.decodeDouble(forKey: "NSSize")
            flags =
                coder.containsValue(forKey: "NSfFlags") ? try coder.decodeInteger(forKey: "NSfFlags") : nil
            isSystemFont = nil
            if coder.currentFieldCount == 3 + (flags == nil ? 0 : 1) {
                // NSName, NSSize, NSfFlags and $class: the usual font.
                descriptor = nil
                otherFields = [:]
                return
            }
            descriptor = try coder.decodeAttributeValue(forKey: "NSFontDescriptor")
            let found = 2 + (flags == nil ? 0 : 1) + (descriptor == nil ? 0 : 1)
            otherFields = try coder.otherFields(excluding: Self.appKitKeys, found: found)
        }
    }
}

extension ArchivedFont: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .font) }
    package var archivedClassChain: [String] { [platform.rawValue, ClassCatalogue.rootClassName] }
}
