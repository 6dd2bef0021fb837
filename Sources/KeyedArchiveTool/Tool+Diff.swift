import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Tool {
    /// `diff`'s exit statuses, as `diff(1)`'s: equal, different, trouble.
    enum DiffStatus {
        static let equal: Int32 = 0
        static let different: Int32 = 1
        static let trouble: Int32 = 2
    }

    /// `keyed-archive diff [--json] A B`: the differences from A to B by key path
    /// (``PropertyList/differences(from:options:)``,
    /// ``ArchivedObjectGraph/differences(from:options:)``), one line each, or JSON.
    func diff(_ invocation: Invocation) -> Int32 {
        guard invocation.files.count == 2 else {
            environment.writeError(
                "keyed-archive: diff takes two files (\(invocation.files.count) given)\n\(Usage.synopsis)")
            return ExitStatus.usage
        }
        let (oldName, newName) = (invocation.files[0], invocation.files[1])
        var inputs: [ResolvedInput] = []
        for name in [oldName, newName] {
            do throws(ToolFailure) {
                inputs.append(try resolvedInput(name))
            } catch {
                environment.writeError("\(name): \(error.message)\n")
                return DiffStatus.trouble
            }
        }
        let (older, newer) = (inputs[0], inputs[1])
        let limit = Self.outputLimit(forInputLength: older.byteCount + newer.byteCount)
        let options = ArchiveComparisonOptions(maximumValues: max(1 << 16, limit / 16))
        let comparison: ArchiveComparison
        if let oldGraph = older.view.graph, let newGraph = newer.view.graph {
            comparison = newGraph.differences(from: oldGraph, options: options)
        } else {
            // A graph against a plain property list: the graph's `$top` against the value.
            var differ = ArchiveDiffer(old: older.view, new: newer.view, options: options)
            differ.compare(older.root, newer.root, path: [], depth: 0)
            comparison = differ.result
        }
        var text = ""
        if invocation.json {
            text = Self.diffJSON(comparison, older.kind, newer.kind)
        } else {
            if older.kind != newer.kind {
                text += "# \(oldName): \(older.kind); \(newName): \(newer.kind)\n"
            }
            for difference in comparison.differences { text += difference.description + "\n" }
        }
        guard text.utf8.count <= limit else {
            environment.writeError("\(newName): \(Self.outputTooLarge(limit))\n")
            return DiffStatus.trouble
        }
        writeText(text)
        if comparison.isIncomplete {
            environment.writeError(
                "\(newName): the comparison stopped at its limit (\(options.maximumValues) values, "
                    + "\(options.maximumDepth) levels); the differences above are those found so far\n")
            return DiffStatus.trouble
        }
        return comparison.differences.isEmpty ? DiffStatus.equal : DiffStatus.different
    }

    static func diffJSON(_ comparison: ArchiveComparison, _ oldKind: String, _ newKind: String) -> String {
        func string(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\t": result += "\\t"
                case "\r": result += "\\r"
                default:
                    if scalar.value < 0x20 || DisplayText.isEscaped(scalar) {
                        let hex = String(scalar.value, radix: 16)
                        result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
            return result + "\""
        }
        var text = "{\n  \"equal\": \(comparison.isEqual),\n  \"complete\": \(!comparison.isIncomplete),\n"
        text += "  \"old\": \(string(oldKind)),\n  \"new\": \(string(newKind)),\n  \"differences\": ["
        for (index, difference) in comparison.differences.enumerated() {
            text += index == 0 ? "\n" : ",\n"
            text +=
                "    {\"change\": \(string(difference.kind.rawValue)), \"path\": \(string(difference.keyPathText)), "
            text += "\"keyPath\": [\(difference.keyPath.map(string).joined(separator: ", "))]"
            if let old = difference.oldValue { text += ", \"old\": \(string(old))" }
            if let new = difference.newValue { text += ", \"new\": \(string(new))" }
            text += "}"
        }
        text += comparison.differences.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return text
    }
}
