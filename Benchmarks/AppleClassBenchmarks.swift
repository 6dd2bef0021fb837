import Foundation
import KeyedArchive

/// Apple's classes: attributed strings of three runs each (a font, a colour, a link),
/// decoded by us as ``ArchivedAttributedString`` values with typed `NSFont` and `NSColor`
/// attributes, against Foundation's `NSKeyedUnarchiver` decoding the Foundation-only
/// version of the same strings (the same text and runs, the font and colour as strings,
/// since Foundation on Linux has no `NSFont` or `NSColor`), from its own archive.
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
                    .init(range: 0..<8, attributes: ["NSFont": .font(ArchivedFont(name: "Helvetica-Bold", size: 12))]),
                    .init(
                        range: 8..<linkStart,
                        attributes: ["NSColor": .color(ArchivedColor(red: 1, green: Double(index % 256) / 255, blue: 0))]),
                    .init(
                        range: linkStart..<length,
                        attributes: ["NSLink": .url(URL(string: "https://example.com/\(index)")!)]),
                ])
        }
    }

    static func foundationStrings(_ strings: [ArchivedAttributedString]) -> [NSAttributedString] {
        strings.map { string in
            let result = NSMutableAttributedString(string: string.string)
            for run in string.runs {
                var attributes: [NSAttributedString.Key: Any] = [:]
                for (key, value) in run.attributes {
                    switch value {
                    case .url(let url): attributes[NSAttributedString.Key(key)] = url as NSURL
                    default: attributes[NSAttributedString.Key(key)] = value.description as NSString
                    }
                }
                result.setAttributes(
                    attributes, range: NSRange(location: run.range.lowerBound, length: run.range.count))
            }
            return result
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
                    let bytes = try KeyedArchiver.archivedData(withRootObject: values, requiringSecureCoding: true)
                    let theirs = try NSKeyedArchiver.archivedData(
                        withRootObject: foundationStrings(values) as NSArray, requiringSecureCoding: false)
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
                            let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: theirs)
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
                            return foundation?.count == values.count ? nil : "Foundation cannot read its archive"
                        })
                })
        ]
    }
}
