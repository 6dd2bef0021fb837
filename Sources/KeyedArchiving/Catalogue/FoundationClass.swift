/// Apple's Foundation classes that keyed archives are built from: the one catalogue that
/// the unarchiver (typed and untyped), the Codable reader and writer, the archiver's class
/// descriptions and the secure-coding check consult.
///
/// Each class has a kind (what it holds, whatever its mutability) and the `$classes`
/// chain Apple writes for it, superclasses included: an `NSCountedSet` is archived as
/// `NSCountedSet < NSMutableSet < NSSet < NSObject`.
package enum FoundationClass: String, CaseIterable, Sendable {
    case string = "NSString"
    case mutableString = "NSMutableString"
    case number = "NSNumber"
    case data = "NSData"
    case mutableData = "NSMutableData"
    case date = "NSDate"
    case url = "NSURL"
    case uuid = "NSUUID"
    case array = "NSArray"
    case mutableArray = "NSMutableArray"
    case orderedSet = "NSOrderedSet"
    case mutableOrderedSet = "NSMutableOrderedSet"
    case set = "NSSet"
    case mutableSet = "NSMutableSet"
    case countedSet = "NSCountedSet"
    case dictionary = "NSDictionary"
    case mutableDictionary = "NSMutableDictionary"
    case null = "NSNull"
    case value = "NSValue"

    /// What a class holds, the same for its mutable variant.
    package enum Kind: Sendable {
        case string, number, data, date, url, uuid
        case array, orderedSet, set, countedSet, dictionary
        case null, value

        /// Whether objects of this kind hold other objects (`NS.objects`, `NS.keys`, …).
        var isCollection: Bool {
            switch self {
            case .array, .orderedSet, .set, .countedSet, .dictionary: return true
            default: return false
            }
        }
    }

    /// The class with the archived name `name`, if it is one of these.
    package init?(name: String) {
        self.init(rawValue: name)
    }

    /// The archived class name (`NSMutableArray`).
    package var name: String { rawValue }

    /// What the class holds.
    package var kind: Kind {
        switch self {
        case .string, .mutableString: return .string
        case .number: return .number
        case .data, .mutableData: return .data
        case .date: return .date
        case .url: return .url
        case .uuid: return .uuid
        case .array, .mutableArray: return .array
        case .orderedSet, .mutableOrderedSet: return .orderedSet
        case .set, .mutableSet: return .set
        case .countedSet: return .countedSet
        case .dictionary, .mutableDictionary: return .dictionary
        case .null: return .null
        case .value: return .value
        }
    }

    /// Whether this is a mutable variant (`NSMutableString`, `NSCountedSet`, …).
    var isMutable: Bool {
        switch self {
        case .mutableString, .mutableData, .mutableArray, .mutableOrderedSet, .mutableSet, .countedSet,
            .mutableDictionary:
            return true
        default:
            return false
        }
    }

    /// The immutable class a mutable one derives from, or `nil` for an immutable class.
    var superclass: FoundationClass? {
        switch self {
        case .mutableString: return .string
        case .mutableData: return .data
        case .mutableArray: return .array
        case .mutableOrderedSet: return .orderedSet
        case .mutableSet: return .set
        case .countedSet: return .mutableSet
        case .mutableDictionary: return .dictionary
        default: return nil
        }
    }

    /// `$classes` as Apple writes it: the class, its superclasses, then `NSObject`.
    package var chain: [String] {
        var names = [name]
        var current = self
        while let next = current.superclass {
            names.append(next.name)
            current = next
        }
        names.append("NSObject")
        return names
    }

    /// The names of every class of the given kinds, kind by kind in the order given,
    /// immutable before mutable within a kind.
    package static func names(ofKinds kinds: Kind...) -> [String] {
        kinds.flatMap { kind in allCases.filter { $0.kind == kind }.map(\.name) }
    }

    /// The `$classes` chain Apple writes for `name`: the catalogue's (this one first, then
    /// its continuation ``AppleClass``), or the name and `NSObject` for a class outside it.
    static func chain(forName name: String) -> [String] {
        if let known = FoundationClass(name: name) { return known.chain }
        return AppleClass(name: name)?.chain ?? [name, "NSObject"]
    }
}
