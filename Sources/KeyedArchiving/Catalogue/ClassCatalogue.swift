/// The class catalogue: the one table of the Apple classes the library knows by name, which
/// keyed archives (the unarchiver, typed and untyped, the archiver's class descriptions, the
/// secure-coding check), the Codable bridge, the typed values of Apple's classes
/// (``ArchivedAttributedString``, ``ArchivedColor``, …) and typedstreams (the unarchiver,
/// the iMessage body reader, the archiver) all read.
///
/// Each class is one row of ``CataloguedClass/entry``: its archived name, its kind (what it
/// holds, the same for a mutable variant), its superclass, whether it is a mutable variant,
/// and the class version `NSArchiver` writes for it in typedstreams. Everything else is
/// derived from the rows: the `$classes` chain Apple writes (`NSCountedSet < NSMutableSet <
/// NSSet < NSObject`, `NSDecimalNumber < NSNumber < NSValue < NSObject`), the typedstream
/// chains with their versions, the names each standard type accepts, and the lookups by name.
package enum ClassCatalogue {
    /// The longest class chain (a class and its superclasses) any reader follows: a keyed
    /// archive's `$classes` entry, a typedstream's chain of class records, a resolution
    /// walking up to the nearest catalogued ancestor. Apple's deepest chains are under 10
    /// classes; a longer one is hostile input, and walks bounded by this stay linear.
    package static let maximumChainLength = 64

    /// The root class every chain ends with; not a row of the catalogue (no reader decodes
    /// it as a value, and no resolution stops at it).
    package static let rootClassName = "NSObject"

    /// The class version `NSArchiver` writes for ``rootClassName``.
    package static let rootTypedStreamVersion = 0

    /// One class: a row of the catalogue.
    package struct Entry: Sendable {
        /// The archived class name (`NSMutableArray`).
        package let name: String
        /// What the class holds, the same for its mutable variant.
        package let kind: Kind
        /// The superclass Apple names before `NSObject`, if it is catalogued too.
        package let superclass: CataloguedClass?
        /// Whether this is a mutable variant (`NSMutableString`, `NSCountedSet`, …).
        package let isMutable: Bool
        /// The class version Apple's `NSArchiver` writes for this class in typedstreams,
        /// for the classes the typedstream unarchiver decodes as values and the archiver
        /// writes; `nil` for the others.
        package let typedStreamVersion: Int?

        init(
            _ name: String, _ kind: Kind, superclass: CataloguedClass? = nil, mutable: Bool = false,
            typedStream version: Int? = nil
        ) {
            self.name = name
            self.kind = kind
            self.superclass = superclass
            self.isMutable = mutable
            self.typedStreamVersion = version
        }
    }

    /// What a class holds, the same for its mutable variant.
    package enum Kind: UInt8, CaseIterable, Sendable {
        // The Foundation classes keyed archives are built from.
        case string, number, data, date, url, uuid
        case array, orderedSet, set, countedSet, dictionary
        case null, value
        // Apple's other classes, typed by the ArchivedAppleClasses module.
        case attributedString, color, colorSpace, font, fontDescriptor, paragraphStyle, textTab
        case indexSet, indexPath, decimalNumber, locale, timeZone, measurement, unit, unitConverter
        case error, affineTransform, dateComponents, personNameComponents, urlResponse, urlRequest
        case textCheckingResult, regularExpression, formatter

        /// Whether the class is one of the Foundation classes keyed archives are built from
        /// (strings, numbers, data, dates, URLs, UUIDs, collections, `NSNull`, `NSValue`),
        /// which the untyped decoding methods and the Codable bridge know themselves.
        package var isFoundation: Bool {
            switch self {
            case .string, .number, .data, .date, .url, .uuid, .array, .orderedSet, .set, .countedSet,
                .dictionary, .null, .value:
                return true
            default:
                return false
            }
        }

        /// Whether objects of this kind hold other objects (`NS.objects`, `NS.keys`, …).
        package var isCollection: Bool {
            switch self {
            case .array, .orderedSet, .set, .countedSet, .dictionary: return true
            default: return false
            }
        }
    }

    /// Every catalogued class by name.
    static let byName = ClassNameTable(CataloguedClass.allCases)

    /// The `$classes` chain Apple writes for `name`: the catalogue's, or the name and
    /// `NSObject` for a class outside it.
    package static func chain(forName name: String) -> [String] {
        CataloguedClass(name: name)?.chain ?? [name, rootClassName]
    }

    /// The names of every class of the given kinds, kind by kind in the order given,
    /// immutable before mutable within a kind.
    package static func names(ofKinds kinds: Kind...) -> [String] {
        if kinds.count == 1, let kind = kinds.first { return namesByKind[Int(kind.rawValue)] }
        return kinds.flatMap { namesByKind[Int($0.rawValue)] }
    }

    /// The names of each kind's classes, by ``Kind/rawValue``, in the catalogue's order
    /// (built in one pass: the standard types ask for theirs as they resolve classes).
    private static let namesByKind: [[String]] = {
        var lists = [[String]](repeating: [], count: Kind.allCases.count)
        for catalogued in CataloguedClass.allCases {
            let entry = catalogued.entry
            lists[Int(entry.kind.rawValue)].append(entry.name)
        }
        return lists
    }()

    /// The classes typedstreams decode as values and write, in the catalogue's order: those
    /// with a ``Entry/typedStreamVersion``.
    package static let typedStreamClasses: [CataloguedClass] = CataloguedClass.allCases.filter {
        $0.typedStreamVersion != nil
    }
}

/// A class of the catalogue: a handle to its row of ``ClassCatalogue`` (``entry``).
package enum CataloguedClass: UInt8, CaseIterable, Sendable {
    // The Foundation classes keyed archives are built from.
    case string, mutableString, number, data, mutableData, date, url, uuid
    case array, mutableArray, orderedSet, mutableOrderedSet, set, mutableSet, countedSet
    case dictionary, mutableDictionary, null, value
    // Apple's other classes (Foundation, AppKit, UIKit).
    case attributedString, mutableAttributedString, color, uiColor, colorSpace, font, uiFont
    case fontDescriptor, uiFontDescriptor, paragraphStyle, mutableParagraphStyle, textTab
    case indexSet, mutableIndexSet, indexPath, decimalNumber, decimalNumberPlaceholder
    case locale, timeZone, measurement, unit, dimension
    // Foundation's dimensions.
    case unitAcceleration, unitAngle, unitArea, unitConcentrationMass, unitDispersion, unitDuration
    case unitElectricCharge, unitElectricCurrent, unitElectricPotentialDifference
    case unitElectricResistance, unitEnergy, unitFrequency, unitFuelEfficiency, unitIlluminance
    case unitInformationStorage, unitLength, unitMass, unitPower, unitPressure, unitSpeed
    case unitTemperature, unitVolume
    case unitConverter, unitConverterLinear
    case error, affineTransform, dateComponents, personNameComponents, httpURLResponse, urlResponse
    case urlRequest, mutableURLRequest, linuxURLRequest, linuxMutableURLRequest
    case textCheckingResult, regularExpressionCheckingResult, simpleRegularExpressionCheckingResult
    case extendedRegularExpressionCheckingResult, complexRegularExpressionCheckingResult
    case regularExpression, formatter, byteCountFormatter, dateIntervalFormatter, iso8601DateFormatter

    /// The class's row of the catalogue: the table itself.
    package var entry: ClassCatalogue.Entry {
        typealias Row = ClassCatalogue.Entry
        switch self {
        case .string: return Row("NSString", .string, typedStream: 1)
        case .mutableString:
            return Row("NSMutableString", .string, superclass: .string, mutable: true, typedStream: 1)
        case .number: return Row("NSNumber", .number, superclass: .value, typedStream: 0)
        case .data: return Row("NSData", .data, typedStream: 0)
        case .mutableData:
            return Row("NSMutableData", .data, superclass: .data, mutable: true, typedStream: 0)
        case .date: return Row("NSDate", .date, typedStream: 0)
        case .url: return Row("NSURL", .url, typedStream: 0)
        case .uuid: return Row("NSUUID", .uuid)
        case .array: return Row("NSArray", .array, typedStream: 0)
        case .mutableArray:
            return Row("NSMutableArray", .array, superclass: .array, mutable: true, typedStream: 0)
        case .orderedSet: return Row("NSOrderedSet", .orderedSet)
        case .mutableOrderedSet:
            return Row("NSMutableOrderedSet", .orderedSet, superclass: .orderedSet, mutable: true)
        case .set: return Row("NSSet", .set, typedStream: 0)
        case .mutableSet: return Row("NSMutableSet", .set, superclass: .set, mutable: true, typedStream: 0)
        // A counted set is a mutable set, but counts its elements: a kind of its own.
        case .countedSet: return Row("NSCountedSet", .countedSet, superclass: .mutableSet, mutable: true)
        case .dictionary: return Row("NSDictionary", .dictionary, typedStream: 0)
        case .mutableDictionary:
            return Row(
                "NSMutableDictionary", .dictionary, superclass: .dictionary, mutable: true, typedStream: 0)
        case .null: return Row("NSNull", .null, typedStream: 0)
        case .value: return Row("NSValue", .value, typedStream: 0)

        case .attributedString: return Row("NSAttributedString", .attributedString, typedStream: 0)
        case .mutableAttributedString:
            return Row(
                "NSMutableAttributedString", .attributedString, superclass: .attributedString, mutable: true,
                typedStream: 0)
        case .color: return Row("NSColor", .color, typedStream: 0)
        case .uiColor: return Row("UIColor", .color)
        case .colorSpace: return Row("NSColorSpace", .colorSpace)
        case .font: return Row("NSFont", .font, typedStream: 30)
        case .uiFont: return Row("UIFont", .font)
        case .fontDescriptor: return Row("NSFontDescriptor", .fontDescriptor)
        case .uiFontDescriptor: return Row("UIFontDescriptor", .fontDescriptor)
        // Version 3 with 64-bit integers, as 64-bit macOS writes it, for a style read from
        // nothing else (see ArchivedParagraphStyle.typedStreamForm); versions 0–2 are read too.
        case .paragraphStyle: return Row("NSParagraphStyle", .paragraphStyle, typedStream: 3)
        case .mutableParagraphStyle:
            return Row(
                "NSMutableParagraphStyle", .paragraphStyle, superclass: .paragraphStyle, mutable: true,
                typedStream: 0)
        case .textTab: return Row("NSTextTab", .textTab)
        case .indexSet: return Row("NSIndexSet", .indexSet)
        case .mutableIndexSet:
            return Row("NSMutableIndexSet", .indexSet, superclass: .indexSet, mutable: true)
        case .indexPath: return Row("NSIndexPath", .indexPath)
        case .decimalNumber: return Row("NSDecimalNumber", .decimalNumber, superclass: .number)
        case .decimalNumberPlaceholder:
            return Row("NSDecimalNumberPlaceholder", .decimalNumber, superclass: .decimalNumber)
        case .locale: return Row("NSLocale", .locale)
        case .timeZone: return Row("NSTimeZone", .timeZone)
        case .measurement: return Row("NSMeasurement", .measurement)
        case .unit: return Row("NSUnit", .unit)
        case .dimension: return Row("NSDimension", .unit, superclass: .unit)
        case .unitAcceleration: return Row("NSUnitAcceleration", .unit, superclass: .dimension)
        case .unitAngle: return Row("NSUnitAngle", .unit, superclass: .dimension)
        case .unitArea: return Row("NSUnitArea", .unit, superclass: .dimension)
        case .unitConcentrationMass: return Row("NSUnitConcentrationMass", .unit, superclass: .dimension)
        case .unitDispersion: return Row("NSUnitDispersion", .unit, superclass: .dimension)
        case .unitDuration: return Row("NSUnitDuration", .unit, superclass: .dimension)
        case .unitElectricCharge: return Row("NSUnitElectricCharge", .unit, superclass: .dimension)
        case .unitElectricCurrent: return Row("NSUnitElectricCurrent", .unit, superclass: .dimension)
        case .unitElectricPotentialDifference:
            return Row("NSUnitElectricPotentialDifference", .unit, superclass: .dimension)
        case .unitElectricResistance: return Row("NSUnitElectricResistance", .unit, superclass: .dimension)
        case .unitEnergy: return Row("NSUnitEnergy", .unit, superclass: .dimension)
        case .unitFrequency: return Row("NSUnitFrequency", .unit, superclass: .dimension)
        case .unitFuelEfficiency: return Row("NSUnitFuelEfficiency", .unit, superclass: .dimension)
        case .unitIlluminance: return Row("NSUnitIlluminance", .unit, superclass: .dimension)
        case .unitInformationStorage: return Row("NSUnitInformationStorage", .unit, superclass: .dimension)
        case .unitLength: return Row("NSUnitLength", .unit, superclass: .dimension)
        case .unitMass: return Row("NSUnitMass", .unit, superclass: .dimension)
        case .unitPower: return Row("NSUnitPower", .unit, superclass: .dimension)
        case .unitPressure: return Row("NSUnitPressure", .unit, superclass: .dimension)
        case .unitSpeed: return Row("NSUnitSpeed", .unit, superclass: .dimension)
        case .unitTemperature: return Row("NSUnitTemperature", .unit, superclass: .dimension)
        case .unitVolume: return Row("NSUnitVolume", .unit, superclass: .dimension)
        case .unitConverter: return Row("NSUnitConverter", .unitConverter)
        case .unitConverterLinear:
            return Row("NSUnitConverterLinear", .unitConverter, superclass: .unitConverter)
        case .error: return Row("NSError", .error)
        case .affineTransform: return Row("NSAffineTransform", .affineTransform)
        case .dateComponents: return Row("NSDateComponents", .dateComponents)
        case .personNameComponents: return Row("NSPersonNameComponents", .personNameComponents)
        case .httpURLResponse: return Row("NSHTTPURLResponse", .urlResponse, superclass: .urlResponse)
        case .urlResponse: return Row("NSURLResponse", .urlResponse)
        case .urlRequest: return Row("NSURLRequest", .urlRequest)
        case .mutableURLRequest:
            return Row("NSMutableURLRequest", .urlRequest, superclass: .urlRequest, mutable: true)
        // Foundation on Linux writes its request classes module-qualified.
        case .linuxURLRequest: return Row("FoundationNetworking.NSURLRequest", .urlRequest)
        case .linuxMutableURLRequest:
            return Row(
                "FoundationNetworking.NSMutableURLRequest", .urlRequest, superclass: .linuxURLRequest,
                mutable: true)
        case .textCheckingResult: return Row("NSTextCheckingResult", .textCheckingResult)
        case .regularExpressionCheckingResult:
            return Row(
                "NSRegularExpressionCheckingResult", .textCheckingResult, superclass: .textCheckingResult)
        case .simpleRegularExpressionCheckingResult:
            return Row(
                "NSSimpleRegularExpressionCheckingResult", .textCheckingResult,
                superclass: .regularExpressionCheckingResult)
        case .extendedRegularExpressionCheckingResult:
            return Row(
                "NSExtendedRegularExpressionCheckingResult", .textCheckingResult,
                superclass: .regularExpressionCheckingResult)
        case .complexRegularExpressionCheckingResult:
            return Row(
                "NSComplexRegularExpressionCheckingResult", .textCheckingResult,
                superclass: .regularExpressionCheckingResult)
        case .regularExpression: return Row("NSRegularExpression", .regularExpression)
        case .formatter: return Row("NSFormatter", .formatter)
        case .byteCountFormatter: return Row("NSByteCountFormatter", .formatter, superclass: .formatter)
        case .dateIntervalFormatter: return Row("NSDateIntervalFormatter", .formatter, superclass: .formatter)
        case .iso8601DateFormatter: return Row("NSISO8601DateFormatter", .formatter, superclass: .formatter)
        }
    }

    /// The class with the archived name `name`, if the catalogue has it (a hash lookup
    /// built once: the readers ask for every class they meet).
    package init?(name: String) {
        guard let found = ClassCatalogue.byName.lookup(name) else { return nil }
        self = found
    }

    /// The archived class name (`NSMutableArray`).
    package var name: String { entry.name }

    /// What the class holds, the same for its mutable variant.
    package var kind: ClassCatalogue.Kind { entry.kind }

    /// Whether this is a mutable variant (`NSMutableString`, `NSCountedSet`, …).
    package var isMutable: Bool { entry.isMutable }

    /// The superclass Apple names before `NSObject`, if it is catalogued too.
    package var superclass: CataloguedClass? { entry.superclass }

    /// The class version `NSArchiver` writes, for the classes typedstreams decode and write.
    package var typedStreamVersion: Int? { entry.typedStreamVersion }

    /// `$classes` as Apple writes it: the class, its superclasses, then `NSObject`.
    package var chain: [String] {
        var names = [name]
        var current = superclass
        // The rows form no cycle (a test walks them); the bound makes that needless here.
        while let next = current, names.count < ClassCatalogue.maximumChainLength {
            names.append(next.name)
            current = next.superclass
        }
        names.append(ClassCatalogue.rootClassName)
        return names
    }

    /// The chain of class records `NSArchiver` writes: the class and its superclasses with
    /// their versions, then `NSObject`.
    package var typedStreamChain: [(name: String, version: Int)] {
        var links: [(name: String, version: Int)] = []
        var current: CataloguedClass? = self
        while let next = current, links.count < ClassCatalogue.maximumChainLength {
            let entry = next.entry
            links.append((entry.name, entry.typedStreamVersion ?? 0))
            current = entry.superclass
        }
        links.append((ClassCatalogue.rootClassName, ClassCatalogue.rootTypedStreamVersion))
        return links
    }
}

extension CataloguedClass {
    /// The class named `name` if the catalogue has it among Apple's other classes, not the
    /// Foundation classes keyed archives are built from (see ``ClassCatalogue/Kind/isFoundation``).
    package init?(appleClassNamed name: String) {
        guard let found = CataloguedClass(name: name), !found.kind.isFoundation else { return nil }
        self = found
    }
}
