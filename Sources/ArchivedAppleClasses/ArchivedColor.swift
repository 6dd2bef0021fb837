#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A colour as AppKit's `NSColor` or UIKit's `UIColor` archives it: its colour space and
/// components, a catalogue colour's names, and a custom colour space's ICC profile.
///
/// ```swift
/// let red = ArchivedColor(red: 1, green: 0, blue: 0)
/// print(red)               // calibratedRGB 1 0 0 1 #FF0000FF
/// let data = try KeyedArchiver.archivedData(withRootObject: red, requiringSecureCoding: true)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedColor.self, from: data)
/// print(copy?.hexString ?? "")  // #FF0000FF
/// ```
///
/// `NSColor` stores `NSColorSpace` (a number, see ``Space``) and, by space: `NSRGB`,
/// `NSWhite` or `NSCMYK` (the components as text in data), `NSComponents` with
/// `NSCustomColorSpace` (an `NSColorSpace` object with `NSID`, `NSModel` and the `NSICC`
/// profile), or `NSCatalogName`, `NSColorName` and a fallback `NSColor` for a named
/// colour. `UIColor` stores `UIRed`, `UIGreen`, `UIBlue`, `UIAlpha`, or `UIWhite`, or a
/// `UISystemColorName`. Component text is written back exactly as read while the
/// components are unchanged; fields without a property are kept in ``otherFields``.
public struct ArchivedColor: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// Which of Apple's colour classes a colour is archived as.
    public enum Platform: String, Hashable, Sendable {
        /// AppKit's `NSColor`.
        case appKit = "NSColor"
        /// UIKit's `UIColor`.
        case uiKit = "UIColor"
    }

    /// `NSColor`'s colour spaces, by the number it stores as `NSColorSpace`.
    public enum Space: Hashable, Sendable, CustomStringConvertible {
        /// 1: calibrated (generic) RGB, `NSRGB`.
        case calibratedRGB
        /// 2: device RGB, `NSRGB`.
        case deviceRGB
        /// 3: calibrated white, `NSWhite`.
        case calibratedWhite
        /// 4: device white, `NSWhite`.
        case deviceWhite
        /// 5: device CMYK, `NSCMYK`.
        case deviceCMYK
        /// 6: a named colour of a catalogue (`NSCatalogName`, `NSColorName`).
        case catalog
        /// 7: components in a custom colour space (`NSComponents`, `NSCustomColorSpace`).
        case custom
        /// 10: a pattern image.
        case pattern
        /// Another number.
        case other(Int)

        /// The space stored as `code`.
        ///
        /// - Parameter code: The `NSColorSpace` number.
        public init(code: Int) {
            switch code {
            case 1: self = .calibratedRGB
            case 2: self = .deviceRGB
            case 3: self = .calibratedWhite
            case 4: self = .deviceWhite
            case 5: self = .deviceCMYK
            case 6: self = .catalog
            case 7: self = .custom
            case 10: self = .pattern
            default: self = .other(code)
            }
        }

        /// The `NSColorSpace` number.
        public var code: Int {
            switch self {
            case .calibratedRGB: return 1
            case .deviceRGB: return 2
            case .calibratedWhite: return 3
            case .deviceWhite: return 4
            case .deviceCMYK: return 5
            case .catalog: return 6
            case .custom: return 7
            case .pattern: return 10
            case .other(let code): return code
            }
        }

        /// `calibratedRGB`, `deviceWhite`, …, or `space N`.
        public var description: String {
            switch self {
            case .calibratedRGB: return "calibratedRGB"
            case .deviceRGB: return "deviceRGB"
            case .calibratedWhite: return "calibratedWhite"
            case .deviceWhite: return "deviceWhite"
            case .deviceCMYK: return "deviceCMYK"
            case .catalog: return "catalog"
            case .custom: return "custom"
            case .pattern: return "pattern"
            case .other(let code): return "space \(code)"
            }
        }
    }

    /// The class the colour is archived as.
    public var platform: Platform
    /// The colour space (`NSColorSpace`); `nil` when not stored (a `UIColor` may store none).
    public var space: Space?
    /// The components in the order of the space, alpha last: red, green, blue, alpha;
    /// white, alpha; or cyan, magenta, yellow, black, alpha. Empty for a catalogue colour
    /// without components of its own.
    public var components: [Double]
    /// The components in the custom colour space (`NSComponents`), alpha last, if stored.
    public var customComponents: [Double]?
    /// The custom colour space (`NSCustomColorSpace`), if stored.
    public var customColorSpace: ArchivedColorSpace?
    /// A catalogue colour's catalogue (`NSCatalogName`, such as `System`).
    public var catalogName: String?
    /// A catalogue colour's name (`NSColorName`, such as `controlTextColor`), or a
    /// `UIColor`'s `UISystemColorName`.
    public var colorName: String?
    /// The fields this type has no property for, by key, written back as they were.
    public var otherFields: [String: ArchivedAttributeValue]

    /// A catalogue colour's fallback colour (`NSColor`), kept in an array for indirection.
    private var fallbackStorage: [ArchivedColor]
    /// Component texts as read (`NSRGB`, `NSWhite`, `NSCMYK`, `NSComponents`), written back
    /// while they still spell the components; not part of equality.
    private var storedTexts: StoredComponentTexts

    /// A catalogue colour's fallback colour (the `NSColor` it stores), if any.
    public var fallback: ArchivedColor? {
        get { fallbackStorage.first }
        set { fallbackStorage = newValue.map { [$0] } ?? [] }
    }

    /// Creates an RGB colour.
    ///
    /// - Parameters:
    ///   - red: Red, 0 to 1.
    ///   - green: Green, 0 to 1.
    ///   - blue: Blue, 0 to 1.
    ///   - alpha: Opacity, 0 to 1; default 1.
    ///   - space: `.calibratedRGB` (the default) or `.deviceRGB`.
    ///   - platform: The class to archive it as; default `NSColor`.
    public init(
        red: Double, green: Double, blue: Double, alpha: Double = 1, space: Space = .calibratedRGB,
        platform: Platform = .appKit
    ) {
        self.init(platform: platform, space: space, components: [red, green, blue, alpha])
    }

    /// Creates a grey.
    ///
    /// - Parameters:
    ///   - white: 0 (black) to 1 (white).
    ///   - alpha: Opacity; default 1.
    ///   - space: `.calibratedWhite` (the default) or `.deviceWhite`.
    ///   - platform: The class to archive it as; default `NSColor`.
    public init(
        white: Double, alpha: Double = 1, space: Space = .calibratedWhite, platform: Platform = .appKit
    ) {
        self.init(platform: platform, space: space, components: [white, alpha])
    }

    /// Creates a CMYK colour (`NSColorSpace` 5).
    ///
    /// - Parameters:
    ///   - cyan: Cyan, 0 to 1.
    ///   - magenta: Magenta, 0 to 1.
    ///   - yellow: Yellow, 0 to 1.
    ///   - black: Black, 0 to 1.
    ///   - alpha: Opacity; default 1.
    public init(cyan: Double, magenta: Double, yellow: Double, black: Double, alpha: Double = 1) {
        self.init(platform: .appKit, space: .deviceCMYK, components: [cyan, magenta, yellow, black, alpha])
    }

    /// Creates a named colour of a catalogue, such as `System`'s `controlTextColor`.
    ///
    /// - Parameters:
    ///   - catalogName: The catalogue.
    ///   - colorName: The colour's name in it.
    ///   - fallback: The colour to use where the catalogue is unknown.
    public init(catalogName: String, colorName: String, fallback: ArchivedColor? = nil) {
        self.init(platform: .appKit, space: .catalog, components: [])
        self.catalogName = catalogName
        self.colorName = colorName
        self.fallback = fallback
    }

    /// Creates a `UIColor` that names a system colour (`UISystemColorName`).
    ///
    /// - Parameter systemName: The name, such as `systemBlueColor`.
    public init(systemName: String) {
        self.init(platform: .uiKit, space: nil, components: [])
        self.colorName = systemName
    }

    init(platform: Platform, space: Space?, components: [Double]) {
        self.platform = platform
        self.space = space
        self.components = components
        self.customComponents = nil
        self.customColorSpace = nil
        self.catalogName = nil
        self.colorName = nil
        self.otherFields = [:]
        self.fallbackStorage = []
        self.storedTexts = StoredComponentTexts()
    }

    /// `NSColor`; a `UIColor` is written as `UIColor` (see ``platform``).
    public static var archivedClassName: String { Platform.appKit.rawValue }

    /// Whether the components are red, green, blue (and alpha).
    public var isRGB: Bool {
        switch space {
        case .calibratedRGB?, .deviceRGB?: return components.count >= 3
        case nil: return platform == .uiKit && components.count == 4
        default: return false
        }
    }

    /// `#RRGGBBAA` when the colour is RGB (or grey) and every component is an exact
    /// multiple of 1/255; `nil` otherwise.
    public var hexString: String? {
        let rgba: [Double]
        if isRGB {
            rgba = components.count == 3 ? components + [1] : components
        } else if components.count == 2,
            space == .calibratedWhite || space == .deviceWhite || (space == nil && platform == .uiKit)
        {
            rgba = [components[0], components[0], components[0], components[1]]
        } else {
            return nil
        }
        guard rgba.count == 4 else { return nil }
        var text = "#"
        for component in rgba {
            let scaled = component * 255
            guard component >= 0, component <= 1, scaled == scaled.rounded() else { return nil }
            let byte = Int(scaled)
            text +=
                String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
        }
        return text
    }

    /// The space and components, then `#RRGGBBAA` where exact: `calibratedRGB 1 0 0 1
    /// #FF0000FF`, `catalog System controlTextColor`, `UIColor systemBlueColor`.
    public var description: String {
        var parts: [String] = []
        if let space {
            parts.append(space.description)
        } else if platform == .uiKit {
            parts.append("UIColor")
        }
        if let catalogName { parts.append(catalogName) }
        if let colorName { parts.append(colorName) }
        let shown = components.isEmpty ? (customComponents ?? []) : components
        parts += shown.map(GeometryText.format)
        if let hexString { parts.append(hexString) }
        return parts.joined(separator: " ")
    }

    private static let knownKeys: Set<String> = [
        "NSColorSpace", "NSRGB", "NSWhite", "NSCMYK", "NSComponents", "NSCustomColorSpace", "NSCatalogName",
        "NSColorName", "NSColor", "UIRed", "UIGreen", "UIBlue", "UIAlpha", "UIWhite", "UISystemColorName",
    ]

    /// The key of the component text the space stores.
    private var componentTextKey: String? {
        switch space {
        case .calibratedRGB?, .deviceRGB?: return components.isEmpty ? nil : "NSRGB"
        case .calibratedWhite?, .deviceWhite?: return components.isEmpty ? nil : "NSWhite"
        case .deviceCMYK?: return components.isEmpty ? nil : "NSCMYK"
        default: return nil
        }
    }

    /// Writes the colour in the layout of its ``platform`` and space.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        if let space { coder.encode(space.code, forKey: "NSColorSpace") }
        if platform == .uiKit {
            if let colorName {
                coder.encode(colorName, forKey: "UISystemColorName")
            } else if components.count == 4 {
                for (key, value) in zip(["UIRed", "UIGreen", "UIBlue", "UIAlpha"], components) {
                    coder.encode(value, forKey: key)
                }
            } else if components.count == 2 {
                coder.encode(components[0], forKey: "UIWhite")
                coder.encode(components[1], forKey: "UIAlpha")
            }
        }
        if space != nil, let key = componentTextKey {
            coder.encodeBytes(storedTexts.text(for: key, spelling: components, terminated: true), forKey: key)
        }
        if let customComponents {
            coder.encodeBytes(
                storedTexts.text(for: "NSComponents", spelling: customComponents, terminated: false),
                forKey: "NSComponents")
        }
        if let customColorSpace { coder.encode(customColorSpace, forKey: "NSCustomColorSpace") }
        if space == .catalog || platform == .appKit {
            if let catalogName { coder.encode(catalogName, forKey: "NSCatalogName") }
            if let colorName { coder.encode(colorName, forKey: "NSColorName") }
        }
        if let fallback { coder.encode(fallback, forKey: "NSColor") }
        coder.encodeOtherFields(otherFields)
    }

    /// Reads an `NSColor` or `UIColor`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when component text is
    ///   not numbers, or `typeMismatch` when a field has the wrong type.
    public init(coder: KeyedUnarchiver) throws {
        let className = coder.currentClassName
        self.init(
            platform: className == Platform.uiKit.rawValue ? .uiKit : .appKit, space: nil, components: [])
        if coder.containsValue(forKey: "NSColorSpace") {
            space = Space(code: try coder.decodeInteger(forKey: "NSColorSpace"))
        }
        // The key the space stores its components under first: usually the only one.
        let textKeys: [String]
        switch space {
        case .calibratedRGB?, .deviceRGB?: textKeys = ["NSRGB", "NSWhite", "NSCMYK"]
        case .calibratedWhite?, .deviceWhite?: textKeys = ["NSWhite", "NSRGB", "NSCMYK"]
        default: textKeys = ["NSCMYK", "NSRGB", "NSWhite"]
        }
        for key in textKeys {
            guard let bytes = try coder.decodeBytes(forKey: key) else { continue }
            components = try coder.colorComponents(bytes, key: key)
            storedTexts.set(bytes, for: key)
            // A calibrated or device RGB colour stores three components when opaque.
            if key == "NSRGB", components.count == 3 { components.append(1) }
            if key == "NSWhite", components.count == 1 { components.append(1) }
            if key == "NSCMYK", components.count == 4 { components.append(1) }
            break
        }
        if platform == .appKit, coder.currentFieldCount == storedTexts.count + (space == nil ? 1 : 2) {
            // Nothing but the space and its components (and $class): the usual colour.
            return
        }
        if let bytes = try coder.decodeBytes(forKey: "NSComponents") {
            customComponents = try coder.colorComponents(bytes, key: "NSComponents")
            storedTexts.set(bytes, for: "NSComponents")
        }
        customColorSpace = try coder.decodeObject(of: ArchivedColorSpace.self, forKey: "NSCustomColorSpace")
        catalogName = try coder.decodeObject(of: String.self, forKey: "NSCatalogName")
        colorName = try coder.decodeObject(of: String.self, forKey: "NSColorName")
        fallback = try coder.decodeObject(of: ArchivedColor.self, forKey: "NSColor")
        if platform == .uiKit {
            if let name = try coder.decodeObject(of: String.self, forKey: "UISystemColorName") {
                colorName = name
            } else if coder.containsValue(forKey: "UIRed") {
                let keys = ["UIRed", "UIGreen", "UIBlue", "UIAlpha"]
                var values: [Double] = []
                for key in keys { values.append(try coder.decodeDouble(forKey: key)) }
                if components.isEmpty { components = values }
            } else if coder.containsValue(forKey: "UIWhite") {
                let values = [
                    try coder.decodeDouble(forKey: "UIWhite"), try coder.decodeDouble(forKey: "UIAlpha"),
                ]
                if components.isEmpty { components = values }
            }
        }
        if platform == .appKit {
            var found = storedTexts.count + (space == nil ? 0 : 1) + (customColorSpace == nil ? 0 : 1)
            found += (catalogName == nil ? 0 : 1) + (colorName == nil ? 0 : 1) + (fallback == nil ? 0 : 1)
            otherFields = try coder.otherFields(excluding: Self.knownKeys, found: found)
        } else {
            otherFields = try coder.otherFields(excluding: Self.knownKeys)
        }
    }
}

extension ArchivedColor: ArchiveStandardType, ArchiveDynamicClass {
    package static var acceptedClassNames: [String] { ClassCatalogue.names(ofKinds: .color) }
    package var archivedClassChain: [String] { [platform.rawValue, ClassCatalogue.rootClassName] }
}

/// Component texts as read, ignored by equality: two colours with the same components
/// are equal whatever digits spelled them.
struct StoredComponentTexts: Hashable, Sendable {
    // Two slots, not a dictionary: one allocation fewer for every colour read.
    /// `NSRGB`, `NSWhite` or `NSCMYK`, and its bytes.
    var primaryKey: String?
    var primary: Data?
    /// `NSComponents`.
    var components: Data?

    var count: Int { (primary == nil ? 0 : 1) + (components == nil ? 0 : 1) }

    mutating func set(_ bytes: Data, for key: String) {
        if key == "NSComponents" {
            components = bytes
        } else {
            primaryKey = key
            primary = bytes
        }
    }

    func stored(_ key: String) -> Data? {
        key == "NSComponents" ? components : (key == primaryKey ? primary : nil)
    }

    static func == (lhs: StoredComponentTexts, rhs: StoredComponentTexts) -> Bool { true }
    func hash(into hasher: inout Hasher) {}

    /// The text stored for `key` if it still spells `components`, else a new one.
    func text(for key: String, spelling components: [Double], terminated: Bool) -> Data {
        if let stored = stored(key), let parsed = ColorComponentText.parse(stored) {
            // NSRGB may leave out an alpha of 1, NSWhite likewise.
            if parsed == components || parsed + [1] == components { return stored }
        }
        var values = components
        if terminated, values.last == 1, values.count > 1 { values.removeLast() }
        return ColorComponentText.format(values, terminated: terminated)
    }
}

/// The text form of colour components: decimal numbers separated by spaces, ending with
/// a NUL byte in `NSRGB`, `NSWhite` and `NSCMYK`.
enum ColorComponentText {
    /// The most components accepted (CMYK and alpha are five; custom spaces may have more).
    static let maximumCount = 32

    static func parse(_ bytes: Data) -> [Double]? {
        guard bytes.count <= 1024 else { return nil }
        var text = Substring(decoding: bytes, as: UTF8.self)
        while let last = text.last, last == "\0" || last == " " { text = text.dropLast() }
        var values: [Double] = []
        for piece in text.split(separator: " ", omittingEmptySubsequences: true) {
            guard values.count < maximumCount, let number = Double(piece), number.isFinite else { return nil }
            values.append(number)
        }
        return values
    }

    static func format(_ values: [Double], terminated: Bool) -> Data {
        var text = values.map(GeometryText.format).joined(separator: " ")
        if terminated { text += "\0" }
        return Data(text.utf8)
    }
}

extension KeyedUnarchiver {
    /// The class name of the object being decoded.
    var currentClassName: String {
        className(ofClassUID: currentContainer.classUID)
    }

    func colorComponents(_ bytes: Data, key: String) throws -> [Double] {
        guard let values = ColorComponentText.parse(bytes) else {
            throw failure(.invalidArchive, "\(key) is not colour components (numbers separated by spaces)")
        }
        return values
    }
}

/// A colour space as AppKit's `NSColorSpace` archives it: an identifier, a model and,
/// for custom spaces, the ICC profile, kept as data.
public struct ArchivedColorSpace: SecureKeyedCoding, Hashable, Sendable, CustomStringConvertible {
    /// `NSID`: which space (for example 7 for sRGB, 9 for generic grey).
    public var identifier: Int?
    /// `NSModel`: the colour model (0 grey, 1 RGB, 2 CMYK, …).
    public var model: Int?
    /// `NSICC`: the ICC profile, as stored.
    public var iccProfile: Data?
    /// The fields this type has no property for, by key, written back as they were.
    public var otherFields: [String: ArchivedAttributeValue]

    /// Creates a colour space.
    ///
    /// - Parameters:
    ///   - identifier: `NSID`.
    ///   - model: `NSModel`.
    ///   - iccProfile: The ICC profile.
    public init(identifier: Int? = nil, model: Int? = nil, iccProfile: Data? = nil) {
        self.identifier = identifier
        self.model = model
        self.iccProfile = iccProfile
        self.otherFields = [:]
    }

    /// `NSColorSpace`.
    public static var archivedClassName: String { CataloguedClass.colorSpace.name }

    /// `NSColorSpace id 7 model 1 (ICC 3144 bytes)`.
    public var description: String {
        var text = "NSColorSpace"
        if let identifier { text += " id \(identifier)" }
        if let model { text += " model \(model)" }
        if let iccProfile { text += " (ICC \(iccProfile.count) bytes)" }
        return text
    }

    /// Writes `NSID`, `NSModel` and `NSICC`.
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        if let identifier { coder.encode(identifier, forKey: "NSID") }
        if let model { coder.encode(model, forKey: "NSModel") }
        if let iccProfile { coder.encode(iccProfile, forKey: "NSICC") }
        coder.encodeOtherFields(otherFields)
    }

    /// Reads an `NSColorSpace`.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: ``KeyedArchiveError`` with code `typeMismatch` when a field has the wrong type.
    public init(coder: KeyedUnarchiver) throws {
        identifier = coder.containsValue(forKey: "NSID") ? try coder.decodeInteger(forKey: "NSID") : nil
        model = coder.containsValue(forKey: "NSModel") ? try coder.decodeInteger(forKey: "NSModel") : nil
        iccProfile = try coder.decodeObject(of: Data.self, forKey: "NSICC")
        otherFields = try coder.otherFields(excluding: ["NSID", "NSModel", "NSICC"])
    }
}
