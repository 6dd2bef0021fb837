import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// The tool converts every input format without a tree; the differentials that hold for
/// all of them are written once, over the formats, each format's documents checked by its
/// comparison of the streams (and the tool) with the tree's way: generated values of every
/// shape, and nesting around the readers' limit.
@Suite struct StreamedDifferentialTests {
    /// An input format the tool streams.
    enum Input: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case binary, xml, openStep, json
        var testDescription: String { rawValue }
    }

    /// Documents of `input` nested `depth` containers deep, each holding one of the
    /// format's innermost values.
    static func nested(_ input: Input, depth: Int) -> [(label: String, data: Data)] {
        func wrapped(_ open: String, _ inner: [String], _ close: String) -> [(label: String, data: Data)] {
            inner.map { inner in
                let text =
                    String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
                return ("\(input) depth \(depth) holding \(inner)", Data(text.utf8))
            }
        }
        switch input {
        case .binary:
            let objects = (0..<depth).map { $0 == depth - 1 ? [0xA0] : [0xA1] + BPlist.reference($0 + 1) }
            return [("binary depth \(depth)", BPlist.data(objects, refSize: 2, offsetSize: 2))]
        case .xml:
            return ["", "<array></array>", "<dict/>", "<string>x</string>"].map { inner in
                let xml =
                    "<plist><array>" + String(repeating: "<array>", count: depth - 1) + inner
                    + String(repeating: "</array>", count: depth - 1) + "</array></plist>"
                return ("XML depth \(depth) holding \(inner)", Data(xml.utf8))
            }
        case .openStep: return wrapped("(", ["", "a", "{}", "{ k = (); }"], ")")
        case .json: return wrapped("[", ["", "1", "{}", #"{"k":[]}"#], "]")
        }
    }

    /// Every streamed conversion of `data` and the tool's answers against the tree's way.
    static func expectTreesResults(_ input: Input, _ data: Data, _ label: String) {
        switch input {
        case .binary:
            StreamedBinaryAndJSONTests.expectTreesJSON(data, label)
            StreamedBinaryAndJSONTests.expectTreesJSON(data, prettyPrinted: true, "\(label), pretty")
            StreamedBinaryAndJSONTests.expectTreesBinary(data, label)
        case .xml:
            StreamedXMLInputTests.expectTreesResults(xml: data, label)
            StreamedPrintTests.expectTreesResult(data, label)
            StreamedBinaryAndJSONTests.expectTreesBinary(data, label)
        case .openStep: StreamedOpenStepInputTests.expectTreesResults(data, label)
        case .json: StreamedJSONInputTests.expectTreesResults(data, label)
        }
    }

    /// How many generated values each input format is checked on.
    static func generatedSeeds(_ input: Input) -> ClosedRange<UInt64> {
        switch input {
        case .binary, .xml: return 1...400
        case .openStep, .json: return 1...300
        }
    }

    /// Every how many generated documents of `input` the tool's answers are compared too
    /// (each runs the tool several times).
    static func toolCheckInterval(_ input: Input) -> UInt64 {
        switch input {
        case .binary: return 40
        case .xml: return 50
        case .openStep: return 25
        case .json: return 30
        }
    }

    /// The generated value of `seed` as a document of `input`, or `nil` where the format's
    /// conversions take no such document (JSON: a dictionary at the top). OpenStep wraps
    /// a scalar in an array, as its top level must be a container to stream.
    static func generatedDocument(_ input: Input, seed: UInt64) throws -> (value: PropertyList, data: Data)? {
        var value = GeneratedPropertyLists.value(seed: seed)
        switch input {
        case .binary: return (value, try value.data(format: .binary))
        case .xml: return (value, try value.data(format: .xml))
        case .openStep:
            if case .array = value {} else if case .dictionary = value {} else { value = [value] }
            return (value, Data(StreamedOpenStepInputTests.openStep(value, seed: seed).utf8))
        case .json:
            guard case .dictionary = value else { return nil }
            var text = Data()
            try value.writeJSON(
                options: PropertyListJSONOptions(prettyPrinted: seed % 2 == 0, sortsKeys: false)
            ) {
                text.append(contentsOf: $0)
            }
            return (value, text)
        }
    }

    /// Compares every streamed conversion of a generated document of `input` with the
    /// tree's way; returns how many the streams made (they may leave one to the tree
    /// where the format allows it).
    static func expectGeneratedStreamsTheTrees(
        _ input: Input, _ value: PropertyList, _ data: Data, seed: UInt64
    ) throws -> Int {
        var streamed = 0
        switch input {
        case .binary:
            for pretty in [false, true] {
                #expect(
                    try StreamedBinaryAndJSONTests.streamedJSON(data, prettyPrinted: pretty)
                        == StreamedBinaryAndJSONTests.treeJSON(data, prettyPrinted: pretty),
                    "seed \(seed): JSON")
                streamed += 1
            }
            #expect(
                try StreamedXMLInputTests.copiedBinary(data) == StreamedXMLInputTests.treeBinary(data),
                "seed \(seed): binary")
            streamed += 1
        case .xml:
            #expect(
                try StreamedBinaryAndJSONTests.streamedBinary(data)
                    == StreamedBinaryAndJSONTests.treeBinary(data),
                "seed \(seed): binary")
            streamed += 1
            for pretty in [false, true] {
                do {
                    #expect(
                        try StreamedXMLInputTests.streamedJSON(data, prettyPrinted: pretty)
                            == StreamedXMLInputTests.treeJSON(data, prettyPrinted: pretty),
                        "seed \(seed): JSON")
                    streamed += 1
                } catch let error as KeyedArchiveError {
                    // The JSON stream leaves a dictionary whose first key is `CF$UID` to the tree.
                    #expect(
                        StreamedXMLInputTests.hasDictionaryStartingWithUIDKey(value),
                        "seed \(seed): \(error.description)")
                }
            }
            #expect(
                try StreamedXMLInputTests.streamedXML(data) == StreamedXMLInputTests.treeXML(data),
                "seed \(seed): XML")
            streamed += 1
        case .openStep:
            for target in StreamedOpenStepInputTests.Target.allCases {
                let expected = StreamedOpenStepInputTests.tree(data, target)
                #expect(expected != nil, "seed \(seed) \(target): the tree's way reads it")
                // The event reader may give up; the tool then answers the tree's way.
                if let text = try? StreamedOpenStepInputTests.streamed(data, target) {
                    #expect(text == expected, "seed \(seed) \(target)")
                    streamed += 1
                }
            }
        case .json:
            for target in StreamedJSONInputTests.Target.allCases {
                #expect(
                    try StreamedJSONInputTests.streamed(data, target)
                        == StreamedJSONInputTests.tree(data, target),
                    "seed \(seed) \(target)")
                streamed += 1
            }
        }
        return streamed
    }

    /// Generated values of every type and shape (``GeneratedPropertyLists``) as documents
    /// of each input format: every streamed conversion gives the tree's bytes, and every
    /// few documents the tool answers as the tree's way does.
    @Test(arguments: Input.allCases)
    func generatedValuesStreamTheTreesBytes(_ input: Input) throws {
        var documents = 0
        var streamed = 0
        for seed in Self.generatedSeeds(input) {
            guard let document = try Self.generatedDocument(input, seed: seed) else { continue }
            documents += 1
            streamed += try Self.expectGeneratedStreamsTheTrees(
                input, document.value, document.data, seed: seed)
            if seed % Self.toolCheckInterval(input) == 0 {
                Self.expectTreesResults(input, document.data, "seed \(seed)")
            }
        }
        switch input {
        case .binary: #expect(documents == 400 && streamed == 1200)
        case .xml: #expect(streamed > 400 + 400 + 400, "conversions streamed: \(streamed) of 1600")
        case .openStep: #expect(streamed > 900, "conversions streamed: \(streamed) of 1200")
        case .json:
            #expect(documents > 50, "generated dictionaries: \(documents)")
            #expect(streamed == documents * StreamedJSONInputTests.Target.allCases.count)
        }
    }

    /// Nesting around the readers' limit of 512: the streams refuse where the tree's
    /// readers refuse, and the tool answers as the tree's way does.
    @Test(arguments: Input.allCases)
    func deepNesting(_ input: Input) {
        for depth in [100, 511, 512, 513, 600] {
            for (label, data) in Self.nested(input, depth: depth) {
                Self.expectTreesResults(input, data, label)
            }
        }
    }
}
