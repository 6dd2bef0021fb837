#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A check that every conversion which builds no tree writes what the tree's way writes,
/// for the fuzzer and the tests.
///
/// ``PropertyListStreamedConversion`` promises, for each input format it reads (binary,
/// XML, OpenStep, JSON), that XML, JSON and binary output are byte for byte what reading
/// the value and writing it gives, and that it refuses at least what that refuses. Here
/// every such conversion of one input runs; each one that succeeds is compared with the
/// tree's output, which must then exist. The walks behind `keyed-archive -p` run too, so
/// that the fuzzer reaches them. Not part of the supported API: imported with
/// `@_spi(Fuzzing)`.
@_spi(Fuzzing)
public enum StreamedConversionPaths {
    /// Where a streamed conversion of `data` differs from the tree's way, or `nil` when
    /// every streamed conversion either failed or wrote what the tree's way writes.
    ///
    /// The input is read as its format is detected (``PropertyListFormat/detect(_:)``); text
    /// that is not XML is tried as OpenStep and as JSON both. For JSON the tree is the value
    /// of the streamed binary conversion with keys in the document's order, so that the
    /// JSON reader's outputs are checked against each other.
    ///
    /// - Parameter data: Any bytes.
    /// - Returns: A description of the first difference.
    public static func disagreement(in data: Data) -> String? {
        comparison(of: data).disagreement
    }

    /// How many streamed conversions of `data` wrote what the tree's way writes (walks
    /// included), and the first difference.
    static func comparison(of data: Data) -> (agreements: Int, disagreement: String?) {
        var agreements = 0
        let limit = 1 << 24
        let detected = PropertyListFormat.detect(data)
        var inputs: [Input] = []
        switch detected {
        case .binary: inputs = [.binary]
        case .xml: inputs = [.xml]
        case .openStep: inputs = [.openStep, .json]
        }
        for input in inputs {
            let tree: PropertyList?
            switch input {
            case .json:
                // Keys in the document's order, as the tool's tree of a JSON document has them.
                tree = try? PropertyList(
                    from: PropertyListStreamedConversion.binary(fromJSON: data, sortsKeys: false),
                    format: .binary)
            default:
                tree = try? PropertyList(from: data)
            }
            for output in Output.allCases {
                guard let streamed = try? convert(data, from: input, to: output, limit: limit) else {
                    continue
                }
                guard let tree else {
                    return (
                        agreements,
                        "\(input) to \(output): streamed wrote \(streamed.count) bytes, the tree did not read"
                    )
                }
                let expected: Data
                do {
                    expected = try output.write(tree, limit: limit)
                } catch {
                    return (
                        agreements,
                        "\(input) to \(output): streamed wrote \(streamed.count) bytes, the tree's writer threw \(error)"
                    )
                }
                if streamed != expected {
                    return (
                        agreements,
                        "\(input) to \(output): streamed \(excerpt(streamed)), tree \(excerpt(expected))"
                    )
                }
                agreements += 1
            }
            // The walks of `-p`: one that finishes read a document the tree reads too.
            var walked = true
            do {
                switch input {
                case .binary:
                    try BinaryPropertyListWalk.walk(data, options: PropertyListReadingOptions()) { _ in }
                case .xml: try PropertyListStreamedConversion.walk(xml: data) { _ in }
                case .json: try PropertyListStreamedConversion.walk(json: data) { _ in }
                case .openStep: walked = false
                }
            } catch {
                walked = false
            }
            if walked {
                if tree == nil { return (agreements, "\(input): the walk finished, the tree did not read") }
                agreements += 1
            }
        }
        return (agreements, nil)
    }

    private typealias Input = PropertyListStreamedConversion.Input

    private enum Output: CaseIterable {
        case xml, json, prettyJSON, binary

        func write(_ tree: PropertyList, limit: Int) throws -> Data {
            var bytes = Data()
            switch self {
            case .xml:
                try tree.write(format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: limit)) {
                    bytes.append(contentsOf: $0)
                }
            case .binary: try tree.write(format: .binary) { bytes.append(contentsOf: $0) }
            case .json, .prettyJSON:
                try tree.writeJSON(options: jsonOptions(limit: limit)) { bytes.append(contentsOf: $0) }
            }
            return bytes
        }

        func jsonOptions(limit: Int) -> PropertyListJSONOptions {
            PropertyListJSONOptions(
                prettyPrinted: self == .prettyJSON, sortsKeys: false, maximumOutputBytes: limit)
        }
    }

    /// The conversion `keyed-archive -convert` makes without a tree.
    private static func convert(_ data: Data, from input: Input, to output: Output, limit: Int) throws -> Data
    {
        let target: PropertyListStreamedConversion.Output
        switch output {
        case .xml: target = .xml
        case .binary: target = .binary
        case .json, .prettyJSON: target = .json(output.jsonOptions(limit: limit))
        }
        var bytes = Data()
        try PropertyListStreamedConversion.convert(data, from: input, to: target, maximumOutputBytes: limit) {
            bytes.append(contentsOf: $0)
        }
        return bytes
    }

    private static func excerpt(_ data: Data) -> String {
        "\(data.count) bytes: " + String(decoding: data.prefix(200), as: UTF8.self).debugDescription
    }
}
