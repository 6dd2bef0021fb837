import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Typedstreams whose root is an attributed string (an iMessage `attributedBody`), shown as
/// their text and runs by `decode` and `decode --jsonl` unless `--raw` asks for the stored
/// values.
extension Tool {
    /// The attributed string `data` holds, when it is a typedstream whose root is one;
    /// `nil` otherwise (another root, or a stream that does not read: the general reading
    /// says why).
    static func attributedBody(_ data: Data) -> IMessageBody? {
        guard TypedStreamUnarchiver.isTypedStream(data) else { return nil }
        return try? IMessageBody(attributedBody: data)
    }

    /// The class name shown for a body.
    static func className(of body: IMessageBody) -> String {
        body.attributedString.isMutable ? "NSMutableAttributedString" : "NSAttributedString"
    }

    /// `decode`'s text for a body: `root: NSMutableAttributedString "text"`, then one line per
    /// run, `  0..<5 "Hello" name = value; …`.
    static func attributedBodyOutline(_ body: IMessageBody, label: String?) -> String {
        "\(label ?? "root"): \(className(of: body)) \(body.attributedString.description)\n"
    }

    /// `decode --json`'s (or, `compact`, a `decode --jsonl` line's) result for a body:
    /// `{"root": {"$class": …, "$summary": …, "string": …, "runs": [{"range": [0, 5],
    /// "text": …, "attributes": {…}}, …]}}`, attribute values typed as `-convert json`
    /// writes them.
    ///
    /// - Throws: ``PropertyListPrinter/OutputLimitExceeded`` when the text would pass `limit`.
    ///
    /// With `expansion` (`--expand`), an attribute value that is data holding an archive or
    /// a property list (such as the keyed archive of `__kIMDataDetectedAttributeName`) is
    /// `{"$expanded": kind, "$value": …}`, as a data value of a graph is.
    static func attributedBodyJSON(
        _ body: IMessageBody, label: String?, compact: Bool, limit: Int,
        expansion: ArchiveGraphJSON.Expansion? = nil
    ) throws -> String {
        // Expanded values are rendered apart and put in place of a placeholder string.
        var expanded: [String] = []
        let marker = "\u{1}$expanded\u{1}"
        var runs: [PropertyList] = []
        runs.reserveCapacity(body.runs.count)
        for run in body.runs {
            var attributes = PropertyListDictionary(minimumCapacity: run.attributes.count)
            for key in run.attributes.keys.sorted() {
                guard let value = run.attributes[key] else { continue }
                if let expansion, case .data(let bytes) = value,
                    let rendered = try ArchiveGraphJSON.expanded(
                        bytes, expansion: expansion, summarizing: expansion.summarizing, compact: compact,
                        depth: 5, limit: limit)
                {
                    attributes[key] = .string(marker + String(expanded.count))
                    expanded.append(rendered)
                    continue
                }
                attributes[key] = propertyList(value, depth: 0)
            }
            runs.append([
                "range": [
                    .integer(PropertyListInteger(Int64(run.range.lowerBound))),
                    .integer(PropertyListInteger(Int64(run.range.upperBound))),
                ],
                "text": .string(run.text), "attributes": .dictionary(attributes),
            ])
        }
        let root: PropertyList = [
            "$class": .string(className(of: body)),
            "$summary": .string(DisplayText.quoted(body.text, maximumScalars: 200)),
            "string": .string(body.text), "runs": .array(runs),
        ]
        var top = PropertyListDictionary()
        top[label ?? "root"] = root
        do {
            let data = try PropertyList.dictionary(top).jsonData(
                options: PropertyListJSONOptions(
                    prettyPrinted: !compact, sortsKeys: false, maximumOutputBytes: limit))
            var text = String(decoding: data, as: UTF8.self)
            if !expanded.isEmpty {
                text = try Self.substitute(expanded, marker: marker, in: text, limit: limit)
            }
            return text + (compact ? "" : "\n")
        } catch let error as KeyedArchiveError where error.code == .limitExceeded {
            throw PropertyListPrinter.OutputLimitExceeded(limit: limit)
        }
    }

    /// `text` with the JSON string of `marker` + N replaced by `values[N]`: each exactly
    /// once, else (a body whose own strings hold the marker) the values are left out as
    /// they were: data as `-convert json` writes it.
    private static func substitute(_ values: [String], marker: String, in text: String, limit: Int) throws
        -> String
    {
        var result = text
        for (index, value) in values.enumerated() {
            let placeholder = jsonString(marker + String(index))
            let pieces = result.split(separator: placeholder, omittingEmptySubsequences: false)
            guard pieces.count == 2 else { return text }
            result = String(pieces[0]) + value + String(pieces[1])
            guard result.utf8.count <= limit else {
                throw PropertyListPrinter.OutputLimitExceeded(limit: limit)
            }
        }
        return result
    }

    /// The data values of a body's attributes, each with its path
    /// (`runs[0].attributes.NAME`), for `decode --expand`'s outlines.
    static func dataValues(of body: IMessageBody) -> [(path: String, data: Data)] {
        var found: [(path: String, data: Data)] = []
        for (index, run) in body.runs.enumerated() {
            for key in run.attributes.keys.sorted() {
                if case .data(let bytes)? = run.attributes[key] {
                    found.append(("runs[\(index)].attributes.\(key)", bytes))
                }
            }
        }
        return found
    }

    /// An attribute value as JSON shows it: strings, numbers and Booleans as themselves,
    /// data and dates as `-convert json` writes them, a URL as its absolute string, fonts,
    /// colours, paragraph styles and other objects as their one-line descriptions.
    private static func propertyList(_ value: ArchivedAttributeValue, depth: Int) -> PropertyList {
        switch value {
        case .null: return .string("$null")
        case .string(let text): return .string(text)
        case .integer(let number): return .integer(PropertyListInteger(Int64(number)))
        case .real(let number): return .real(number)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes): return .data(bytes)
        case .date(let date): return .date(date)
        case .url(let url): return .string(url.absoluteString)
        case .array(let values):
            // Attribute values nest only as deep as their archive did; bounded all the same.
            guard depth < 64 else { return .string(value.description) }
            return .array(values.map { propertyList($0, depth: depth + 1) })
        case .font, .color, .paragraphStyle, .object: return .string(value.description)
        }
    }
}
