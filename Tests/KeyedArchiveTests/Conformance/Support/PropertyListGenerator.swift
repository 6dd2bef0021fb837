import Foundation
import KeyedArchive
import TestSupport

/// What a peer and a format can carry, so that each differential direction generates
/// only values that can survive it unchanged (what they cannot carry is documented on
/// each profile, and checked elsewhere where it matters).
struct GeneratorProfile: Sendable, CustomStringConvertible {
    enum DateKind: Sendable {
        /// Any finite `Double` of seconds: binary property lists store the Double itself.
        case anyDouble
        /// Multiples of 1/64 s within years 1900–2100: Python's `datetime` has microsecond
        /// resolution and a year range of 1–9999, and 1/64 s is exactly 15,625 µs.
        case sixtyFourthsOfSecond
        /// Whole seconds: the XML date format has no fraction.
        case wholeSeconds
    }

    var name: String
    /// The largest UID generated, or `nil` for no UIDs at all.
    var maximumUID: UInt64?
    var dates: DateKind
    /// C0 controls other than tab and newline, and U+FFFE/U+FFFF, cannot appear in XML 1.0;
    /// `\r` is normalised to `\n` by XML parsers (and by plistlib's writer), so it is only
    /// generated for binary.
    var controlCharacters: Bool
    /// Foundation's XML path drops a U+FEFF (byte-order mark) at the start of a string, so
    /// its XML profiles do not generate one there (U+FEFF elsewhere is kept).
    var leadingByteOrderMark = true

    var description: String { name }

    /// Our binary → Foundation: CF's binary reader refuses UIDs wider than 32 bits (it
    /// fails the whole file) and Foundation's UID class holds a `UInt32`.
    static let foundationReadsBinary = GeneratorProfile(
        name: "ours→Foundation binary", maximumUID: UInt64(UInt32.max), dates: .anyDouble,
        controlCharacters: true)
    /// Our XML → Foundation: UIDs as `CF$UID` dictionaries, which CF turns back into UIDs.
    static let foundationReadsXML = GeneratorProfile(
        name: "ours→Foundation XML", maximumUID: UInt64(UInt32.max), dates: .wholeSeconds,
        controlCharacters: false,
        leadingByteOrderMark: false)
    /// Foundation → our binary: no UIDs, since Foundation on Linux offers no public way to
    /// create one (`_NSKeyedArchiverUID` is internal). Integers keep the full range: CF
    /// writes values above `Int64.max` as 16-byte integers.
    static let foundationWritesBinary = GeneratorProfile(
        name: "Foundation→ours binary", maximumUID: nil, dates: .anyDouble, controlCharacters: true)
    /// Foundation → our XML: no UIDs (as above); `-0.0` is expected back as `0.0`.
    static let foundationWritesXML = GeneratorProfile(
        name: "Foundation→ours XML", maximumUID: nil, dates: .wholeSeconds, controlCharacters: false,
        leadingByteOrderMark: false)
    /// plistlib, either direction, binary: `plistlib.UID` takes any 64-bit value.
    static let plistlibBinary = GeneratorProfile(
        name: "plistlib binary", maximumUID: UInt64.max, dates: .sixtyFourthsOfSecond, controlCharacters: true
    )
    /// plistlib, either direction, XML: UIDs travel as `CF$UID` dictionaries, which
    /// plistlib reads and writes as plain dictionaries.
    static let plistlibXML = GeneratorProfile(
        name: "plistlib XML", maximumUID: UInt64.max, dates: .wholeSeconds, controlCharacters: false)
}

/// Generates property lists for differential tests: first a fixed list of edge cases
/// (every integer width boundary, signed zeros, non-finite reals, empty and long strings,
/// count encodings around 15 and 255, shared subtrees, deep nesting), then seeded random
/// trees.
///
/// Integers stay within `Int64.min ... UInt64.max` for every peer: that is the range
/// binary property lists written by Apple, Foundation and plistlib hold (plistlib raises
/// `OverflowError` beyond it), and the one fixture with a wider integer is covered by the
/// fixture suite.
struct PropertyListGenerator {
    let profile: GeneratorProfile
    private var random: SeededGenerator

    /// Keys that the JSON convention of the plistlib bridge would read as something else
    /// in a one-entry dictionary (`{"data": …}`), or that XML readers turn into a UID.
    private static let reservedKeys: Set<String> = ["data", "date", "real", "CF$UID"]

    init(profile: GeneratorProfile, seed: UInt64 = 0x5EED_0F_C0FF_EE) {
        self.profile = profile
        random = SeededGenerator(seed: seed)
    }

    /// The edge cases followed by `randomCount` random values.
    mutating func values(randomCount: Int = 120) -> [PropertyList] {
        var values = edgeCases()
        for index in 0..<randomCount {
            // Mostly collections at the top, as real files are, but scalars too.
            values.append(index % 8 == 0 ? scalar() : collection(depth: 0))
        }
        return values
    }

    // MARK: Edge cases

    mutating func edgeCases() -> [PropertyList] {
        var cases: [PropertyList] = []
        let integers: [Int64] = [
            0, 1, -1, 15, 16, 127, 128, 255, 256, -128, -129, -255, -256, 32767, 32768, 65535, 65536, -65536,
            Int64(Int32.max), Int64(Int32.max) + 1, Int64(UInt32.max), Int64(UInt32.max) + 1,
            Int64(Int32.min),
            Int64(Int32.min) - 1, Int64.max, Int64.min, Int64.min + 1,
        ]
        cases += integers.map { .integer(PropertyListInteger($0)) }
        cases += [UInt64(Int64.max) + 1, UInt64.max - 1, UInt64.max].map { .integer(PropertyListInteger($0)) }
        let reals: [Double] = [
            0, -0.0, 1, -1, 0.5, 1.5, .pi, -.pi, 0.1, 1e300, -1e300, 1e-300, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .leastNormalMagnitude, .leastNonzeroMagnitude, Double(Float.pi),
            Double(Float.greatestFiniteMagnitude), 123_456_789.123_456_789, 9_007_199_254_740_992,
            9_007_199_254_740_994,
            .nan, .infinity, -.infinity,
        ]
        cases += reals.map { .real($0) }
        cases += [.bool(true), .bool(false)]
        var strings = [
            "", "a", "$null", "12", "-3.5", "true", " leading and trailing ", " ", "\t", "\n\n",
            "line\nbreak",
            "tab\there", "a<b&c>d\"e'f", "]]>", "<![CDATA[x]]>", "&amp;", "é", "e\u{301}", "ß", "ÿ", "中文字符",
            "Ελληνικά", "Кириллица", "🎉", "👩‍👩‍👧‍👦", "𝄞 music", "\u{FEFF}bom", "\u{FFFD}", "\u{7F}",
            String(repeating: "x", count: 14), String(repeating: "x", count: 15),
            String(repeating: "x", count: 16),
            String(repeating: "é", count: 15), String(repeating: "é", count: 16),
            String(repeating: "ab", count: 128),
            String(repeating: "long ascii ", count: 500), String(repeating: "ünïcødé 🎉 ", count: 300),
        ]
        if profile.controlCharacters {
            strings += ["\u{0}", "nul\u{0}inside", "\u{1}\u{2}\u{1F}", "cr\rlf\r\n", "\u{FFFE}\u{FFFF}"]
        }
        cases += strings.filter { profile.leadingByteOrderMark || !$0.hasPrefix("\u{FEFF}") }.map {
            .string($0)
        }
        cases += [0, 1, 15, 16, 255, 256, 70_000].map { .data(Data(bytes(count: $0))) }
        cases.append(.data(Data((0...255).map { UInt8($0) })))
        cases += edgeDates().map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        if let maximumUID = profile.maximumUID {
            let uids: [UInt64] = [0, 1, 255, 256, 65535, 65536, UInt64(UInt32.max), UInt64.max]
            cases.append(.array(uids.filter { $0 <= maximumUID }.map { .uid($0) }))
            cases.append(["$class": .uid(min(maximumUID, 3)), "NS.objects": [.uid(1), .uid(2), .uid(1)]])
        }
        // Empty and boundary-sized collections (counts ≥ 15 take an extra count integer
        // in binary; ≥ 256 elements need 2-byte object references).
        cases += [.array([]), .dictionary([:]), [[]], ["": [:]]]
        for count in [14, 15, 16, 255, 256, 300] {
            cases.append(.array((0..<count).map { PropertyList($0) }))
            cases.append(
                .dictionary(PropertyListDictionary((0..<count).map { ("key\($0)", PropertyList($0 * 7)) })))
        }
        // Shared subtrees and repeated scalars, which a binary writer may store once.
        let shared: PropertyList = ["name": "shared", "values": [1, 2.5, "three"]]
        cases.append(.array(Array(repeating: shared, count: 20)))
        cases.append(.array(Array(repeating: "same string", count: 50) + Array(repeating: 42, count: 50)))
        // Deep nesting, well under every reader's limit.
        var nested: PropertyList = "bottom"
        for level in 0..<100 { nested = level.isMultiple(of: 2) ? [nested] : ["k": nested] }
        cases.append(nested)
        // Every kind of scalar side by side, in a dictionary with unicode keys.
        var mixed = PropertyListDictionary()
        mixed["string"] = "value"
        mixed["integer"] = -42
        mixed["real"] = 2.75
        mixed["bool"] = true
        mixed["date"] = .date(Date(timeIntervalSinceReferenceDate: 0))
        mixed["data"] = .data(Data([0xDE, 0xAD, 0xBE, 0xEF]))
        mixed["clé 🔑"] = "unicode key"
        mixed[""] = "empty key"
        cases.append(.dictionary(mixed))
        return cases
    }

    private func edgeDates() -> [Double] {
        switch profile.dates {
        case .anyDouble:
            return [0, -1, 1, 0.5, -0.5, 1e-9, 631_152_000.123_456_789, -3_155_760_000.75, 1e10, -1e10]
        case .sixtyFourthsOfSecond:
            return [0, -1, 1, 0.5, -0.5, 0.015625, 631_152_000.984375, -3_155_673_600.25, 3_155_673_599.5]
        case .wholeSeconds:
            return [0, -1, 1, 631_152_000, -978_307_200, -3_155_673_600, 3_155_673_599]
        }
    }

    // MARK: Random values

    private mutating func collection(depth: Int) -> PropertyList {
        let count: Int
        switch Int.random(in: 0..<20, using: &random) {
        case 0: count = 0
        case 1: count = Int.random(in: 14...17, using: &random)
        case 2 where depth == 0: count = Int.random(in: 250...300, using: &random)
        default: count = Int.random(in: 1...6, using: &random)
        }
        if Bool.random(using: &random) {
            return .array((0..<count).map { _ in element(depth: depth + 1) })
        }
        var dictionary = PropertyListDictionary(minimumCapacity: count)
        while dictionary.count < count {
            let key = self.key()
            if dictionary[key] == nil { dictionary[key] = element(depth: depth + 1) }
        }
        return .dictionary(dictionary)
    }

    private mutating func element(depth: Int) -> PropertyList {
        let nestingChance = depth < 5 ? 4 : 0
        return Int.random(in: 0..<12, using: &random) < nestingChance ? collection(depth: depth) : scalar()
    }

    private mutating func key() -> String {
        while true {
            let key = string(maximumLength: 12)
            if !Self.reservedKeys.contains(key) { return key }
        }
    }

    private mutating func scalar() -> PropertyList {
        switch Int.random(in: 0..<16, using: &random) {
        case 0...3:
            return .string(string(maximumLength: Int.random(in: 0..<10, using: &random) == 0 ? 2000 : 24))
        case 4...6: return .integer(integer())
        case 7...8: return .real(real())
        case 9: return .bool(Bool.random(using: &random))
        case 10: return .date(Date(timeIntervalSinceReferenceDate: date()))
        case 11: return .data(Data(bytes(count: Int.random(in: 0...40, using: &random))))
        case 12:
            if let maximumUID = profile.maximumUID {
                return .uid(
                    Bool.random(using: &random)
                        ? UInt64.random(in: 0...300, using: &random)
                        : UInt64.random(in: 0...maximumUID, using: &random))
            }
            return .string(string(maximumLength: 8))
        default: return .string(string(maximumLength: 8))
        }
    }

    private mutating func integer() -> PropertyListInteger {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return PropertyListInteger(Int64.random(in: 0...15, using: &random))
        case 1: return PropertyListInteger(Int64.random(in: 0...255, using: &random))
        case 2: return PropertyListInteger(Int64.random(in: 256...65535, using: &random))
        case 3: return PropertyListInteger(Int64.random(in: 65536...Int64(UInt32.max), using: &random))
        case 4: return PropertyListInteger(Int64.random(in: Int64(UInt32.max)...Int64.max, using: &random))
        case 5: return PropertyListInteger(Int64.random(in: -300...(-1), using: &random))
        case 6: return PropertyListInteger(Int64.random(in: Int64.min...(-1), using: &random))
        default:
            return PropertyListInteger(
                UInt64.random(in: (UInt64(Int64.max) + 1)...UInt64.max, using: &random))
        }
    }

    private mutating func real() -> Double {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return Double(Int.random(in: -100_000...100_000, using: &random)) / 100
        case 1: return Double(Float.random(in: -1000...1000, using: &random))
        case 2: return Double.random(in: -1e6...1e6, using: &random)
        case 3:
            // Any finite bit pattern, subnormals and extreme exponents included.
            while true {
                let value = Double(bitPattern: random.next())
                if value.isFinite { return value }
            }
        case 4:
            return [0, -0.0, .nan, .infinity, -.infinity, 0x1p-1030][Int.random(in: 0..<6, using: &random)]
        default: return Double(Int.random(in: -1000...1000, using: &random))
        }
    }

    private mutating func date() -> Double {
        switch profile.dates {
        case .anyDouble:
            return Double.random(in: -4e9...4e9, using: &random)
        case .sixtyFourthsOfSecond:
            // 1900 ... 2100, in 64ths of a second.
            return Double(Int64.random(in: -3_155_673_600 * 64...3_155_673_599 * 64, using: &random)) / 64
        case .wholeSeconds:
            return Double(Int64.random(in: -3_155_673_600...3_155_673_599, using: &random))
        }
    }

    private static let alphabets: [[Unicode.Scalar]] = [
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. ".unicodeScalars),
        Array("<>&\"';:$#@!?/\\{}[]()=+*%\t\n".unicodeScalars),
        Array("éèêëàâäçñøåßÿÉÀÇ€£¥©®°±µ¶".unicodeScalars),
        Array("中文字符日本語한국어ΑλφαβητοКириллица".unicodeScalars),
        Array("🎉😀👍🏽🚀𝄞𝕏🀄\u{301}\u{200D}\u{FEFF}\u{FFFD}".unicodeScalars),
    ]
    private static let controlAlphabet: [Unicode.Scalar] = Array(
        "\u{0}\u{1}\u{8}\u{B}\u{C}\u{1F}\r\u{FFFE}".unicodeScalars)

    private mutating func string(maximumLength: Int) -> String {
        let length = Int.random(in: 0...maximumLength, using: &random)
        let alphabetCount = Self.alphabets.count + (profile.controlCharacters ? 1 : 0)
        // Most strings draw from one or two alphabets: pure ASCII ones take the binary
        // format's one-byte form, the others its UTF-16 form.
        let first = Int.random(in: 0..<alphabetCount, using: &random)
        let second =
            Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<alphabetCount, using: &random) : 0
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let choice = Bool.random(using: &random) ? first : second
            let alphabet = choice < Self.alphabets.count ? Self.alphabets[choice] : Self.controlAlphabet
            let scalar = alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
            if scalar == "\u{FEFF}" && scalars.isEmpty && !profile.leadingByteOrderMark { continue }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    private mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }
}
