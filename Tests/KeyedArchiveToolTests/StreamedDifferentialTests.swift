import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// The tool converts every input format without a tree; the differentials that hold for
/// all of them are written once, over the formats, each format's documents checked by its
/// comparison of the streams (and the tool) with the tree's way.
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
