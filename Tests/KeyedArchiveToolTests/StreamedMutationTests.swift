import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// The streamed readers are never looser than the tree's: for documents damaged at random
/// (bytes replaced by markup characters, removed, repeated), whatever a stream converts,
/// the tree's way converts to the same bytes.
@Suite struct StreamedMutationTests {
    typealias Target = StreamedJSONInputTests.Target

    /// `data` with one damage that `random` picks.
    static func mutated(_ data: Data, _ random: inout SeededGenerator) -> Data {
        func next() -> Int { Int(truncatingIfNeeded: random.next() >> 1) }
        var bytes = [UInt8](data)
        guard !bytes.isEmpty else { return data }
        let markup =
            Array(#"<>/{}()[]"'\;,=:- !?&#abefnrtuxU0179$"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xE2, 0xFF]
        let position = next() % bytes.count
        switch next() % 4 {
        case 0: bytes[position] = markup[next() % markup.count]
        case 1: bytes.remove(at: position)
        case 2: bytes.insert(markup[next() % markup.count], at: position)
        default:
            let end = min(bytes.count, position + 1 + next() % 12)
            bytes.insert(contentsOf: bytes[position..<end], at: position)
        }
        return Data(bytes)
    }

    static func bases(seed: UInt64) -> [PropertyList] {
        (0..<6).map { index -> PropertyList in
            let value = GeneratedPropertyLists.value(seed: seed &+ UInt64(index) &* 31)
            if case .dictionary = value { return value }
            if case .array = value { return value }
            return ["value": value, "list": [value, "x"]]
        }
    }

    /// What `-p` prints from `walk`'s events, or nil when it throws.
    static func walkedText(
        _ data: Data, _ walk: ((BinaryPropertyListWalk.Event) throws -> Void) throws -> Void
    )
        -> String?
    {
        var text = ""
        var formatter = PropertyListPrinter.Formatter(limit: .max, output: { text += $0 })
        do {
            try walk { try formatter.consume($0) }
            try formatter.finish()
        } catch {
            return nil
        }
        return text
    }

    @Test func damagedXML() throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        var converted = 0
        for base in Self.bases(seed: 3) {
            let xml = try base.data(format: .xml)
            for _ in 0..<400 {
                let data = Self.mutated(xml, &random)
                if let text = try? StreamedXMLInputTests.streamedJSON(data) {
                    #expect(
                        text == (try? StreamedXMLInputTests.treeJSON(data)),
                        "\(String(decoding: data, as: UTF8.self))")
                    converted += 1
                }
                if let text = try? StreamedXMLInputTests.streamedXML(data) {
                    #expect(
                        text == (try? StreamedXMLInputTests.treeXML(data)),
                        "\(String(decoding: data, as: UTF8.self))")
                }
                if let text = try? StreamedXMLInputTests.walkedText(data) {
                    #expect(
                        text == (try? PropertyList(from: data)).map { PropertyListPrinter.render($0) },
                        "\(String(decoding: data, as: UTF8.self))")
                }
            }
        }
        #expect(converted > 100, "damaged documents still read: \(converted)")
    }

    @Test func damagedJSON() throws {
        var random = SeededGenerator(seed: 0x5EED_0002)
        var converted = 0
        for base in Self.bases(seed: 5) {
            var json = Data()
            try base.writeJSON(options: PropertyListJSONOptions(prettyPrinted: true, sortsKeys: false)) {
                json.append(contentsOf: $0)
            }
            for _ in 0..<400 {
                let data = Self.mutated(json, &random)
                guard Tool.isJSONNotOpenStep(data) else { continue }
                if let text = Self.walkedText(
                    data, { try PropertyListStreamedConversion.walk(json: data, $0) })
                {
                    #expect(
                        text == StreamedJSONInputTests.treeValue(data).map { PropertyListPrinter.render($0) },
                        "-p: \(String(decoding: data, as: UTF8.self))")
                }
                for target in Target.allCases {
                    if let text = try? StreamedJSONInputTests.streamed(data, target) {
                        #expect(
                            text == StreamedJSONInputTests.tree(data, target),
                            "\(target): \(String(decoding: data, as: UTF8.self))")
                        converted += 1
                    }
                }
            }
        }
        #expect(converted > 100, "damaged documents still read: \(converted)")
    }

    @Test func damagedOpenStep() throws {
        var random = SeededGenerator(seed: 0x5EED_0003)
        var converted = 0
        for (index, base) in Self.bases(seed: 7).enumerated() {
            let text = Data(StreamedOpenStepInputTests.openStep(base, seed: UInt64(index + 1)).utf8)
            for _ in 0..<400 {
                let data = Self.mutated(text, &random)
                for target in Target.allCases {
                    if let streamed = try? StreamedOpenStepInputTests.streamed(data, target) {
                        #expect(
                            streamed == StreamedOpenStepInputTests.tree(data, target),
                            "\(target): \(String(decoding: data, as: UTF8.self))")
                        converted += 1
                    }
                }
            }
        }
        #expect(converted > 100, "damaged documents still read: \(converted)")
    }
}
