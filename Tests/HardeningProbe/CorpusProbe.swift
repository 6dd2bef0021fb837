import Foundation
import KeyedArchive
import KeyedArchiveTool
import TestSupport

// `hardening-probe corpus NAME`: one input of the hostile corpus, built here from a
// generator (no big files), run through the entry point it attacks (a library call, or a
// command of the `keyed-archive` tool on the input written to a temporary file). Prints
// one line:
//
//   NAME: input I bytes, output O bytes, peak P KB, time T ms, OUTCOME
//
// where peak is this process's peak resident size (VmHWM, its own, unlike ru_maxrss
// after a spawn) above what it was before the case ran, and time the wall-clock time the
// case took.

/// This process's peak resident size so far, in kilobytes.
func peakResidentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    }
    return 0
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

/// A plain property list (not an archive) whose `items` refer `references` times to one
/// data value holding a `levels`-deep bomb as a binary property list (95 bytes for 14
/// levels), beside `padding` bytes of text: 62 KB for 2,000 references.
func sharedNestedBombPlist(references: Int, levels: Int, padding: Int) -> Data {
    let inner = BPlist.data(BPlist.bombObjects(levels: levels), minimumOffsetSize: 2)
    let value: PropertyList = [
        "pad": .string(String(repeating: "a", count: padding)),
        "items": .array(Array(repeating: .data(inner), count: references)),
    ]
    // The binary writer stores equal data once: every reference points at one object.
    return (try? value.data(format: .binary)) ?? Data()
}

/// What the tool reported when a command failed.
struct ToolRefusal: Error {
    let written: Int
    let message: String
}

/// Runs `keyed-archive ARGUMENTS FILE` in this process on the input written to a
/// temporary file, counting what it writes to standard output.
func toolCommand(_ arguments: [String]) -> @Sendable (Data) throws -> Int {
    { input in
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "hardening-probe-\(getpid()).plist")
        let path = url.path
        try input.write(to: url)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var written = 0
        var head = Data()
        var message = ""
        let status = Tool.run(
            arguments: arguments + [path],
            environment: .process(
                output: { piece in
                    written += piece.count
                    if head.count < 300 { head.append(piece.prefix(300 - head.count)) }
                },
                error: { if message.isEmpty { message = $0 } }))
        guard status == 0 else {
            // `--jsonl` reports on standard output.
            if message.isEmpty { message = String(decoding: head, as: UTF8.self) }
            message = message.replacing(path, with: "FILE").trimmingCharacters(in: .newlines)
            throw ToolRefusal(written: written, message: String(message.prefix(200)))
        }
        return written
    }
}

/// The corpus: each case names its input and what it runs (returning the output size).
let corpusCases: [String: (input: @Sendable () -> Data, run: @Sendable (Data) throws -> Int)] = [
    "shared-plain-value-outline": (
        sharedPlainValueArchive, { try KeyedUnarchiver.objectGraph(from: $0).outline().utf8.count }
    ),
    "plain-bombs-graph": (
        { BPlist.archiveOfPlainBombs(entries: 64, levels: 20) },
        {
            _ = try KeyedUnarchiver.objectGraph(from: $0); return 0
        }
    ),
    "plain-bombs-untyped": (
        { BPlist.archiveOfPlainBombs(entries: 64, levels: 20) },
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
        { BPlist.nestedBomb(depth: 490, levels: 20) },
        {
            let limit = max(64 << 20, 64 * $0.count)
            return try PropertyList(from: $0).data(
                format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: limit)
            ).count
        }
    ),
    "nested-bomb-xml-streamed": (
        { BPlist.nestedBomb(depth: 490, levels: 20) },
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
        { BPlist.nestedBomb(depth: 490, levels: 20) },
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
        { BPlist.nestedBomb(depth: 490, levels: 20) },
        {
            let limit = max(64 << 20, 64 * $0.count)
            return try PropertyList(from: $0).jsonData(
                options: PropertyListJSONOptions(maximumOutputBytes: limit)
            ).count
        }
    ),
    // Hardening III: one `$objects` entry holding a 2^19-leaf bomb built a million values
    // (254–264 MB) for the graph, and a plain property list holding a bomb in a data value
    // referenced 2,000 times was expanded 2,000 times (2.6–3.8 GB).
    "plain-bomb-entry-graph": (
        { BPlist.plainBombEntryArchive(levels: 20) },
        { try KeyedUnarchiver.objectGraph(from: $0).nodes.count }
    ),
    "plain-bomb-entry-graph-from-value": (
        { BPlist.plainBombEntryArchive(levels: 20) },
        { try KeyedUnarchiver.objectGraph(from: try PropertyList(from: $0)).nodes.count }
    ),
    "plain-bomb-entry-outline": (
        { BPlist.plainBombEntryArchive(levels: 20) },
        { try KeyedUnarchiver.objectGraph(from: $0).outline().utf8.count }
    ),
    "tool-decode-plain-bomb-entry": ({ BPlist.plainBombEntryArchive(levels: 20) }, toolCommand(["decode"])),
    "tool-decode-json-plain-bomb-entry": (
        { BPlist.plainBombEntryArchive(levels: 20) }, toolCommand(["decode", "--json"])
    ),
    "tool-decode-jsonl-plain-bomb-entry": (
        { BPlist.plainBombEntryArchive(levels: 20) }, toolCommand(["decode", "--jsonl"])
    ),
    "tool-print-plain-bomb-entry": ({ BPlist.plainBombEntryArchive(levels: 20) }, toolCommand(["-p"])),
    "tool-expand-jsonl-shared-data": (
        { sharedNestedBombPlist(references: 2000, levels: 14, padding: 58_000) },
        toolCommand(["decode", "--jsonl", "--expand"])
    ),
    "tool-expand-text-shared-data": (
        { sharedNestedBombPlist(references: 2000, levels: 14, padding: 58_000) },
        toolCommand(["decode", "--expand"])
    ),
    "tool-expand-json-shared-data": (
        { sharedNestedBombPlist(references: 2000, levels: 14, padding: 58_000) },
        toolCommand(["decode", "--expand", "--json"])
    ),
    // `-p` of 490 nested arrays around a 2^19-leaf bomb (2.6 KB) printed for 20–33 s before
    // refusing at 64 MB; every printer now refuses it at once.
    "tool-print-nested-bomb": ({ BPlist.nestedBomb(depth: 490, levels: 20) }, toolCommand(["-p"])),
    "tool-swift-nested-bomb": (
        { BPlist.nestedBomb(depth: 490, levels: 20) }, toolCommand(["-convert", "swift", "-o", "-"])
    ),
    "tool-objc-nested-bomb": (
        { BPlist.nestedBomb(depth: 490, levels: 20) }, toolCommand(["-convert", "objc", "-o", "-"])
    ),
    "tool-xml-nested-bomb": (
        { BPlist.nestedBomb(depth: 490, levels: 20) }, toolCommand(["-convert", "xml1", "-o", "-"])
    ),
    "tool-json-nested-bomb": (
        { BPlist.nestedBomb(depth: 490, levels: 20) }, toolCommand(["-convert", "json", "-o", "-"])
    ),
    "tool-decode-expand-nested-bomb": (
        { BPlist.nestedBomb(depth: 490, levels: 20) }, toolCommand(["decode", "--expand"])
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
    let start = DispatchTime.now().uptimeNanoseconds
    var output = 0
    let result: String
    do {
        output = try entry.run(input)
        result = "value"
    } catch let error as KeyedArchiveError {
        result = "error \(error.code)"
    } catch let refusal as ToolRefusal {
        output = refusal.written
        result = "refused: \(refusal.message)"
    } catch {
        result = "UNEXPECTED \(error)"
    }
    let milliseconds = (DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    let peak = max(0, peakResidentKilobytes() - before)
    var notes = addressSanitizerIsPresent() ? " (AddressSanitizer)" : ""
    #if DEBUG
    notes += " (debug build)"
    #endif
    say(
        "\(name): input \(input.count) bytes, output \(output) bytes, peak \(peak) KB, time \(milliseconds) ms, "
            + "\(result)\(notes)")
    exit(result.hasPrefix("UNEXPECTED") ? 1 : 0)
}
