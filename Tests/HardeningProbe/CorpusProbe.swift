import Foundation
import KeyedArchive

// `hardening-probe corpus NAME`: one input of the hostile corpus, built here from a
// generator (no big files), run through the entry point it attacks. Prints one line:
//
//   NAME: input I bytes, output O bytes, peak P KB, OUTCOME
//
// where peak is this process's peak resident size (VmHWM, its own, unlike ru_maxrss
// after a spawn) above what it was before the case ran.

/// This process's peak resident size so far, in kilobytes.
func peakResidentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    }
    return 0
}

/// A binary property list from objects (object 0 the top) with 2-byte references.
func corpusPlist(_ objects: [[UInt8]]) -> Data {
    func two(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
    func eight(_ value: Int) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
        offsets.append(bytes.count)
        bytes += object
    }
    let table = bytes.count
    let wide = table >= 1 << 16
    for offset in offsets { bytes += wide ? eight(offset).suffix(4) : two(offset) }
    bytes += [0, 0, 0, 0, 0, 0, wide ? 4 : 2, 2] + eight(objects.count) + eight(0) + eight(table)
    return Data(bytes)
}

func ref(_ index: Int) -> [UInt8] { [UInt8(index >> 8), UInt8(index & 0xFF)] }

/// A keyed archive whose `$objects` holds `entries` plain arrays, each holding the top
/// of one shared `levels`-deep bomb.
func plainBombsArchive(entries: Int, levels: Int) -> Data {
    func ascii(_ text: String) -> [UInt8] { [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }
    let firstEntry = 12
    let bombTop = firstEntry + entries
    var objects: [[UInt8]] = [
        [0xD4] + [1, 2, 3, 4, 5, 6, 7, 8].flatMap(ref),
        ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),
        [0x5F, 0x10, 0x0F] + Array("NSKeyedArchiver".utf8), [0x12, 0x00, 0x01, 0x86, 0xA0],
        [0xD1] + ref(9) + ref(10),
        [0xAF, 0x10, UInt8(entries + 1)] + ref(11) + (0..<entries).flatMap { ref(firstEntry + $0) },
        ascii("root"), [0x80, 0x01], ascii("$null"),
    ]
    objects += Array(repeating: [0xA1] + ref(bombTop), count: entries)
    for level in 0..<levels {
        let next = ref(bombTop + level + 1)
        objects.append(level == levels - 1 ? [0x10, 7] : [0xA2] + next + next)
    }
    return corpusPlist(objects)
}

/// `depth` nested one-element arrays around a `levels`-deep bomb.
func nestedBomb(depth: Int, levels: Int) -> Data {
    var objects: [[UInt8]] = (0..<depth).map { [0xA1] + ref($0 + 1) }
    for level in 0..<levels {
        let next = ref(depth + level + 1)
        objects.append(level == levels - 1 ? [0x10, 7] : [0xA2] + next + next)
    }
    return corpusPlist(objects)
}

/// The archive of defect 1: `$objects = [$null, [7] × 10,000, [UID 1] × 10,000]`, root UID 2.
func sharedPlainValueArchive() -> Data {
    let plist: PropertyList = [
        "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(2)],
        "$objects": [
            "$null", .array(Array(repeating: 7, count: 10_000)),
            .array(Array(repeating: .uid(1), count: 10_000)),
        ],
    ]
    return (try? plist.data(format: .binary)) ?? Data()
}

/// An XML keyed archive whose root is the UID `uid`.
func largeUIDArchive(_ uid: UInt64) -> Data {
    Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>$archiver</key><string>NSKeyedArchiver</string>
        <key>$version</key><integer>100000</integer>
        <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>\(uid)</integer></dict></dict>
        <key>$objects</key><array><string>$null</string><dict><key>CF$UID</key><integer>\(uid)</integer></dict></array>
        </dict></plist>
        """.utf8)
}

/// The corpus: each case names its input and what it runs (returning the output size).
let corpusCases: [String: (input: @Sendable () -> Data, run: @Sendable (Data) throws -> Int)] = [
    "shared-plain-value-outline": (
        sharedPlainValueArchive, { try KeyedUnarchiver.objectGraph(from: $0).outline().utf8.count }
    ),
    "plain-bombs-graph": (
        { plainBombsArchive(entries: 64, levels: 20) },
        {
            _ = try KeyedUnarchiver.objectGraph(from: $0); return 0
        }
    ),
    "plain-bombs-untyped": (
        { plainBombsArchive(entries: 64, levels: 20) },
        {
            var options = KeyedUnarchivingOptions()
            options.decodesUnknownClassesGenerically = true
            let unarchiver = try KeyedUnarchiver(forReadingFrom: $0, options: options)
            unarchiver.requiresSecureCoding = false
            _ = try unarchiver.objectGraph()
            return 0
        }
    ),
    "large-uid-xml-archive": (
        { largeUIDArchive(16_777_215) },
        {
            _ = try KeyedUnarchiver(forReadingFrom: $0).objectGraph(); return 0
        }
    ),
    "large-uid-to-binary": (
        { largeUIDArchive(67_108_863) }, { try PropertyList(from: $0).data(format: .binary).count }
    ),
    "nested-bomb-xml": (
        { nestedBomb(depth: 490, levels: 20) },
        {
            let limit = max(64 << 20, 64 * $0.count)
            return try PropertyList(from: $0).data(
                format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: limit)
            ).count
        }
    ),
    "nested-bomb-xml-streamed": (
        { nestedBomb(depth: 490, levels: 20) },
        {
            let limit = max(64 << 20, 64 * $0.count)
            var written = 0
            try PropertyList(from: $0).write(
                format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: limit)
            ) { written += $0.count }
            return written
        }
    ),
    "nested-bomb-json-streamed": (
        { nestedBomb(depth: 490, levels: 20) },
        {
            let limit = max(64 << 20, 64 * $0.count)
            var written = 0
            try PropertyList(from: $0).writeJSON(options: PropertyListJSONOptions(maximumOutputBytes: limit))
            {
                written += $0.count
            }
            return written
        }
    ),
    "nested-bomb-json": (
        { nestedBomb(depth: 490, levels: 20) },
        {
            let limit = max(64 << 20, 64 * $0.count)
            return try PropertyList(from: $0).jsonData(
                options: PropertyListJSONOptions(maximumOutputBytes: limit)
            ).count
        }
    ),
]

/// Writes every corpus input to `folder`, one file per case, named after it.
func writeCorpus(to folder: URL) -> Never {
    let cases = corpusCases.merging(typedStreamCorpusCases) { first, _ in first }
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, entry) in cases.sorted(by: { $0.key < $1.key }) {
            try entry.input().write(to: folder.appendingPathComponent(name))
            say(name)
        }
    } catch {
        say("UNEXPECTED \(error)")
        exit(1)
    }
    exit(0)
}

func corpusProbe(name: String) -> Never {
    guard let entry = corpusCases[name] ?? typedStreamCorpusCases[name] else {
        let names = corpusCases.keys.sorted() + typedStreamCorpusCases.keys.sorted()
        say("unknown case \(name); cases: \(names.joined(separator: " "))")
        exit(2)
    }
    let input = entry.input()
    let before = peakResidentKilobytes()
    var output = 0
    let result: String
    do {
        output = try entry.run(input)
        result = "value"
    } catch let error as KeyedArchiveError {
        result = "error \(error.code)"
    } catch {
        result = "UNEXPECTED \(error)"
    }
    let peak = max(0, peakResidentKilobytes() - before)
    let sanitizer = addressSanitizerIsPresent() ? " (AddressSanitizer)" : ""
    say("\(name): input \(input.count) bytes, output \(output) bytes, peak \(peak) KB, \(result)\(sanitizer)")
    exit(result.hasPrefix("UNEXPECTED") ? 1 : 0)
}
