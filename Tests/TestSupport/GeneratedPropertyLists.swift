import Foundation
import KeyedArchive

/// The tests' generated property lists: one seed, one value, the same on every run.
public enum GeneratedPropertyLists {
    /// A value of every type and shape: scalars of every kind (integers at the edges of
    /// their widths, reals that are not finite, dates with fractions, data of every small
    /// length), unicode and escapes, empty and nested containers, keys out of order, UIDs.
    public static func value(seed: UInt64, depth: Int = 0) -> PropertyList {
        var random = SeededGenerator(seed: seed)
        func next() -> UInt64 { random.next() }
        let strings = [
            "", "a", "Potato Bug", "caf\u{E9}", "\u{1F954} emoji", "\u{65E5}\u{672C}\u{8A9E}", "tab\there",
            "quote\" back\\slash", "new\nline", "\u{1}\u{1F}", "<&>", "CF$UID", "$class", "NS.objects",
            String(repeating: "long ", count: 40), "e\u{301}", "\u{E9}",
        ]
        let integers: [PropertyListInteger] = [
            0, 1, -1, 127, 128, 255, 256, 65535, 65536, -129, PropertyListInteger(Int64.max),
            PropertyListInteger(Int64.min), PropertyListInteger(UInt64.max),
            PropertyListInteger(Int64(Int32.max) + 1),
        ]
        let reals: [Double] = [0, -0.0, 1.5, 0.1, 1e100, -2.5e-300, .pi, .nan, .infinity, -.infinity, 3]
        let dates: [Double] = [0, 1.5, -978_307_200, 504_000_000.123456, 1e9, -1, 0.000_001]
        func scalar() -> PropertyList {
            switch next() % 8 {
            case 0: return .string(strings[Int(next() % UInt64(strings.count))])
            case 1: return .integer(integers[Int(next() % UInt64(integers.count))])
            case 2: return .real(reals[Int(next() % UInt64(reals.count))])
            case 3: return .bool(next() % 2 == 0)
            case 4:
                return .date(Date(timeIntervalSinceReferenceDate: dates[Int(next() % UInt64(dates.count))]))
            case 5: return .data(Data((0..<Int(next() % 70)).map { UInt8(truncatingIfNeeded: $0 &* 37) }))
            case 6: return .uid(next() % 3 == 0 ? next() % 300 : next() % 5)
            default: return .string("s\(next() % 50)")
            }
        }
        func value(_ level: Int) -> PropertyList {
            guard level < 6, next() % 3 != 0 else { return scalar() }
            let count = Int(next() % 7)
            if next() % 2 == 0 {
                return .array((0..<count).map { _ in value(level + 1) })
            }
            var dictionary = PropertyListDictionary()
            for _ in 0..<count {
                let key = next() % 4 == 0 ? strings[Int(next() % UInt64(strings.count))] : "k\(next() % 40)"
                dictionary[key] = value(level + 1)
            }
            return .dictionary(dictionary)
        }
        return value(depth)
    }
}
