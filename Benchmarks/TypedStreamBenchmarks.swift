import Foundation
import KeyedArchive

/// Typedstreams (`NSArchiver`): iMessage-like `attributedBody` blobs (a text and three
/// attribute runs: a message part, a mention, bold text) read with ``IMessageBody``.
///
/// Foundation on Linux has no `NSUnarchiver`, so the baseline column is our keyed-archive
/// reader on the same attributed strings archived by `KeyedArchiver`. The comparison with
/// pytypedstream is `Benchmarks/typedstream-vs-pytypedstream.py`, which reads the same
/// bodies (written by `benchmarks --write-imessage-bodies PATH`).
enum TypedStreamBenchmarks: BenchmarkGroup {
    static let name = "typedstream"

    static func benchmarks(size: BenchmarkSize) -> [Benchmark] {
        let count = size == .full ? 10_000 : 200
        return [
            Benchmark(
                workload: "\(count)-imessage-bodies (baseline: the same as keyed archives)",
                operation: "read",
                format: "typedstream", target: nil,
                prepare: {
                    let strings = IMessageBodies.strings(count: count)
                    let bodies = try strings.map { try TypedStreamArchiver.archivedData(withRootObject: $0) }
                    let keyed = try strings.map {
                        try KeyedArchiver.archivedData(withRootObject: $0, requiringSecureCoding: true)
                    }
                    let bytes = bodies.reduce(0) { $0 + $1.count }
                    return PreparedBenchmark(
                        ours: {
                            var runs = 0
                            for body in bodies { runs += try IMessageBody(attributedBody: body).runs.count }
                            blackHole(runs)
                            return bytes
                        },
                        baseline: {
                            var runs = 0
                            for archive in keyed {
                                runs +=
                                    try KeyedUnarchiver.unarchivedObject(
                                        ofClass: ArchivedAttributedString.self, from: archive)?.runs.count
                                    ?? 0
                            }
                            blackHole(runs)
                            return bytes
                        },
                        inputBytes: bytes,
                        verify: {
                            for (body, string) in zip(bodies, strings) {
                                guard let read = try? IMessageBody(attributedBody: body) else {
                                    return "unreadable body"
                                }
                                guard read.attributedString == string, read.runs.count == 3,
                                    read.runs[1].mention != nil, read.runs[2].styles == .bold
                                else { return "a body reads back differently" }
                            }
                            return nil
                        })
                })
        ]
    }
}

/// The benchmark's message bodies: deterministic texts of a few words, with three runs.
enum IMessageBodies {
    static func strings(count: Int) -> [ArchivedAttributedString] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let words = [
            "see", "you", "at", "the", "station", "tomorrow", "thanks", "lunch", "sounds", "great", "ok",
        ]
        func phrase(_ length: Int) -> String {
            (0..<length).map { _ in words[next(words.count)] }.joined(separator: " ")
        }
        return (0..<count).map { index in
            let first = phrase(2 + next(4)) + " "
            let name = ["Dad", "Alex", "Sam", "Jo"][next(4)]
            let last = " " + phrase(1 + next(5))
            let text = first + name + last
            let a = first.utf16.count
            let b = a + name.utf16.count
            let part: ArchivedAttributeValue = .integer(0)
            return ArchivedAttributedString(
                text,
                runs: [
                    .init(range: 0..<a, attributes: ["__kIMMessagePartAttributeName": part]),
                    .init(
                        range: a..<b,
                        attributes: [
                            "__kIMMessagePartAttributeName": part,
                            "__kIMMentionConfirmedMention": .string("+1555\(1_000_000 + index)"),
                        ]),
                    .init(
                        range: b..<text.utf16.count,
                        attributes: [
                            "__kIMMessagePartAttributeName": part, "__kIMTextBoldAttributeName": .integer(1),
                        ]),
                ], isMutable: true)
        }
    }

    /// Writes the bodies to `path`: for each, its length (4 bytes, little-endian), then it.
    static func write(count: Int, to path: String) throws {
        var out = Data()
        for string in strings(count: count) {
            let body = try TypedStreamArchiver.archivedData(withRootObject: string)
            withUnsafeBytes(of: UInt32(body.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(body)
        }
        try out.write(to: URL(fileURLWithPath: path))
    }
}
