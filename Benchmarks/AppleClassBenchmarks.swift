import Foundation
import KeyedArchive

/// Apple's classes: attributed strings of three runs each (a font, a colour, a link),
/// decoded by us as ``ArchivedAttributedString`` values with typed `NSFont` and `NSColor`
/// attributes, against Foundation's `NSKeyedUnarchiver` decoding the Foundation-only
/// version of the same strings (the same text and runs, the font and colour as strings,
/// since Foundation on Linux has no `NSFont` or `NSColor`).
enum AppleClassBenchmarks: BenchmarkGroup {
    static let name = "apple-classes"

    static func strings(count: Int) -> [ArchivedAttributedString] {
        (0..<count).map { index in
            let text = "Creature \(index): see https://example.com/\(index)"
            let length = text.utf16.count
            let linkStart = length - "https://example.com/\(index)".utf16.count
            return ArchivedAttributedString(
                text,
                runs: [
                    .init(
                        range: 0..<8,
                        attributes: ["NSFont": .font(ArchivedFont(name: "Helvetica-Bold", size: 12))]),
                    .init(
                        range: 8..<linkStart,
                        attributes: [
                            "NSColor": .color(
                                ArchivedColor(red: 1, green: Double(index % 256) / 255, blue: 0))
                        ]),
                    .init(
                        range: linkStart..<length,
                        attributes: [
                            "NSLink": .url(
                                URL(string: "https://example.com/\(index)") ?? URL(fileURLWithPath: "/"))
                        ]),
                ])
        }
    }

    /// The same strings with only what Foundation on Linux can decode: the font and colour
    /// as their descriptions (strings), the link as a URL. Written by our archiver (in the
    /// run-length form Foundation reads), since Foundation's own takes minutes for 10,000.
    static func foundationOnlyStrings(_ strings: [ArchivedAttributedString]) -> [ArchivedAttributedString] {
        strings.map { string in
            var copy = string
            for index in copy.runs.indices {
                for (key, value) in copy.runs[index].attributes {
                    switch value {
                    case .url, .string: break
                    default: copy.runs[index].attributes[key] = .string(value.description)
                    }
                }
            }
            return copy
        }
    }

    static func benchmarks(size: BenchmarkSize) -> [Benchmark] {
        let count = size == .full ? 10_000 : 200
        let ours = Lazy { strings(count: count) }
        return [
            Benchmark(
                workload: "\(count)-attributed-strings", operation: "read", format: "binary", target: 10,
                prepare: {
                    let values = try ours.get()
                    let bytes = try KeyedArchiver.archivedData(
                        withRootObject: values, requiringSecureCoding: true)
                    let theirs = try KeyedArchiver.archivedData(
                        withRootObject: foundationOnlyStrings(values), requiringSecureCoding: true)
                    let classes: [AnyClass] = [
                        NSArray.self, NSAttributedString.self, NSMutableAttributedString.self, NSString.self,
                        NSURL.self, NSDictionary.self, NSData.self,
                    ]
                    return PreparedBenchmark(
                        ours: {
                            let decoded = try KeyedUnarchiver.unarchivedObject(
                                ofClass: [ArchivedAttributedString].self, from: bytes)
                            blackHole(decoded?.count ?? 0)
                            return bytes.count
                        },
                        baseline: {
                            let decoded = try NSKeyedUnarchiver.unarchivedObject(
                                ofClasses: classes, from: theirs)
                            blackHole((decoded as? NSArray)?.count ?? 0)
                            return theirs.count
                        },
                        inputBytes: bytes.count,
                        verify: {
                            guard
                                let decoded = try? KeyedUnarchiver.unarchivedObject(
                                    ofClass: [ArchivedAttributedString].self, from: bytes)
                            else { return "ours fails to unarchive" }
                            guard decoded == values else { return "ours unarchives different strings" }
                            let foundation =
                                (try? NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: theirs))
                                as? [NSAttributedString]
                            return foundation?.count == values.count
                                ? nil : "Foundation cannot read its archive"
                        })
                })
        ]
    }
}
