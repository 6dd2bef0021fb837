/// The rest of the class catalogue: the Foundation, AppKit and UIKit classes that real
/// archives carry beyond the ones keyed archives are built from (``FoundationClass``).
///
/// ``FoundationClass`` answers first wherever the archive format itself is concerned (its
/// lookups stay as fast as they were); this continuation is consulted after it, by
/// ``FoundationClass/chain(forName:)`` and by the typed values of Apple's classes
/// (``ArchivedAttributedString``, ``ArchivedColor``, …), so that there is still one list
/// of class names, each with its kind and the `$classes` chain Apple writes.
package enum AppleClass: String, CaseIterable, Sendable {
    case attributedString = "NSAttributedString"
    case mutableAttributedString = "NSMutableAttributedString"
    case color = "NSColor"
    case uiColor = "UIColor"
    case colorSpace = "NSColorSpace"
    case font = "NSFont"
    case uiFont = "UIFont"
    case fontDescriptor = "NSFontDescriptor"
    case uiFontDescriptor = "UIFontDescriptor"
    case paragraphStyle = "NSParagraphStyle"
    case mutableParagraphStyle = "NSMutableParagraphStyle"
    case textTab = "NSTextTab"
    case indexSet = "NSIndexSet"
    case mutableIndexSet = "NSMutableIndexSet"
    case indexPath = "NSIndexPath"
    case decimalNumber = "NSDecimalNumber"
    case decimalNumberPlaceholder = "NSDecimalNumberPlaceholder"
    case locale = "NSLocale"
    case timeZone = "NSTimeZone"
    case measurement = "NSMeasurement"
    case unit = "NSUnit"
    case dimension = "NSDimension"
    case unitConverterLinear = "NSUnitConverterLinear"
    case error = "NSError"
    case affineTransform = "NSAffineTransform"
    case dateComponents = "NSDateComponents"
    case personNameComponents = "NSPersonNameComponents"
    case httpURLResponse = "NSHTTPURLResponse"
    case urlResponse = "NSURLResponse"
    case urlRequest = "NSURLRequest"
    case mutableURLRequest = "NSMutableURLRequest"
    /// Foundation on Linux writes its request classes module-qualified.
    case linuxURLRequest = "FoundationNetworking.NSURLRequest"
    case linuxMutableURLRequest = "FoundationNetworking.NSMutableURLRequest"
    case textCheckingResult = "NSTextCheckingResult"
    case regularExpressionCheckingResult = "NSRegularExpressionCheckingResult"
    case simpleRegularExpressionCheckingResult = "NSSimpleRegularExpressionCheckingResult"
    case extendedRegularExpressionCheckingResult = "NSExtendedRegularExpressionCheckingResult"
    case complexRegularExpressionCheckingResult = "NSComplexRegularExpressionCheckingResult"
    case regularExpression = "NSRegularExpression"
    case formatter = "NSFormatter"
    case byteCountFormatter = "NSByteCountFormatter"
    case dateIntervalFormatter = "NSDateIntervalFormatter"
    case iso8601DateFormatter = "NSISO8601DateFormatter"

    /// What a class holds, the same for its mutable variant.
    package enum Kind: Sendable {
        case attributedString, color, colorSpace, font, fontDescriptor, paragraphStyle, textTab
        case indexSet, indexPath, decimalNumber, locale, timeZone, measurement, unit, unitConverter
        case error, affineTransform, dateComponents, personNameComponents, urlResponse, urlRequest
        case textCheckingResult, regularExpression, formatter
    }

    /// The class with the archived name `name`, if it is one of these (a hash lookup: the
    /// typed values ask for every attribute they read).
    package init?(name: String) {
        guard let known = Self.byName[name] else { return nil }
        self = known
    }

    private static let byName: [String: AppleClass] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// The archived class name.
    package var name: String { rawValue }

    /// What the class holds.
    package var kind: Kind {
        switch self {
        case .attributedString, .mutableAttributedString: return .attributedString
        case .color, .uiColor: return .color
        case .colorSpace: return .colorSpace
        case .font, .uiFont: return .font
        case .fontDescriptor, .uiFontDescriptor: return .fontDescriptor
        case .paragraphStyle, .mutableParagraphStyle: return .paragraphStyle
        case .textTab: return .textTab
        case .indexSet, .mutableIndexSet: return .indexSet
        case .indexPath: return .indexPath
        case .decimalNumber, .decimalNumberPlaceholder: return .decimalNumber
        case .locale: return .locale
        case .timeZone: return .timeZone
        case .measurement: return .measurement
        case .unit, .dimension: return .unit
        case .unitConverterLinear: return .unitConverter
        case .error: return .error
        case .affineTransform: return .affineTransform
        case .dateComponents: return .dateComponents
        case .personNameComponents: return .personNameComponents
        case .httpURLResponse, .urlResponse: return .urlResponse
        case .urlRequest, .mutableURLRequest, .linuxURLRequest, .linuxMutableURLRequest: return .urlRequest
        case .textCheckingResult, .regularExpressionCheckingResult, .simpleRegularExpressionCheckingResult,
            .extendedRegularExpressionCheckingResult, .complexRegularExpressionCheckingResult:
            return .textCheckingResult
        case .regularExpression: return .regularExpression
        case .formatter, .byteCountFormatter, .dateIntervalFormatter, .iso8601DateFormatter: return .formatter
        }
    }

    /// Whether this is a mutable variant (`NSMutableAttributedString`, …).
    var isMutable: Bool {
        switch self {
        case .mutableAttributedString, .mutableParagraphStyle, .mutableIndexSet, .mutableURLRequest,
            .linuxMutableURLRequest:
            return true
        default: return false
        }
    }

    /// The superclass Apple names in `$classes` (before `NSObject`), if any.
    var superclassName: String? {
        switch self {
        case .mutableAttributedString: return AppleClass.attributedString.name
        case .mutableParagraphStyle: return AppleClass.paragraphStyle.name
        case .mutableIndexSet: return AppleClass.indexSet.name
        case .decimalNumber: return FoundationClass.number.name
        case .dimension: return AppleClass.unit.name
        case .httpURLResponse: return AppleClass.urlResponse.name
        case .mutableURLRequest: return AppleClass.urlRequest.name
        case .linuxMutableURLRequest: return AppleClass.linuxURLRequest.name
        case .regularExpressionCheckingResult: return AppleClass.textCheckingResult.name
        case .simpleRegularExpressionCheckingResult, .extendedRegularExpressionCheckingResult,
            .complexRegularExpressionCheckingResult:
            return AppleClass.regularExpressionCheckingResult.name
        case .byteCountFormatter, .dateIntervalFormatter, .iso8601DateFormatter:
            return AppleClass.formatter.name
        default: return nil
        }
    }

    /// `$classes` as Apple writes it: the class, its superclasses, then `NSObject`.
    package var chain: [String] {
        var names = [name]
        var current = superclassName
        while let next = current {
            names.append(next)
            if let known = AppleClass(name: next) {
                current = known.superclassName
            } else {
                // A Foundation class of the archive format (NSNumber < NSValue).
                if next == FoundationClass.number.name { names.append(FoundationClass.value.name) }
                current = nil
            }
        }
        names.append("NSObject")
        return names
    }

    /// The names of every class of the given kind, immutable before mutable.
    package static func names(ofKind kind: Kind) -> [String] {
        allCases.filter { $0.kind == kind }.map(\.name)
    }
}
