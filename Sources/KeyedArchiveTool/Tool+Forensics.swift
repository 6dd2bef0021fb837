import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `decode --expand` (text) and `decode --jsonl`: reading archives as an examiner finds them.
extension Tool {
    /// The archives nested in `graph`'s data values, each after the outline as
    /// `PATH ⇒ keyed archive (N bytes):` and its own outline, indented; nested archives
    /// inside those follow theirs, up to ``NestedArchive/maximumLevels`` deep.
    static func expandedOutlines(
        _ graph: ArchivedObjectGraph, rootLabel: String?, expansion: ArchiveGraphJSON.Expansion
    ) -> String {
        guard expansion.level < NestedArchive.maximumLevels else { return "" }
        var text = ""
        for (path, data) in NestedArchive.dataValues(in: graph, rootLabel: rootLabel) {
            guard
                let content = NestedArchive.recognize(
                    data, recovering: expansion.recovering, budget: expansion.budget)
            else { continue }
            let indent = String(repeating: "  ", count: expansion.level + 1)
            text +=
                "\(String(repeating: "  ", count: expansion.level))\(path) ⇒ \(content.kindName) (\(data.count) bytes)"
            var body = ""
            switch content {
            case .keyedArchive(let nested), .typedstream(let nested):
                body =
                    nested.topLevel.isEmpty
                    ? "(empty archive: $top has no keys)\n"
                    : nested.outline(summarizingKnownClasses: expansion.summarizing)
                for problem in nested.problems { body += "problem: \(problem.description)\n" }
                var deeper = expansion
                deeper.level += 1
                body += expandedOutlines(nested, rootLabel: nil, expansion: deeper)
            case .propertyList(let value):
                body = PropertyListPrinter.render(value)
            }
            text += ":\n"
            for line in body.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                text += "\(indent)\(line)\n"
            }
        }
        return text
    }

    /// `decode --jsonl`: one JSON object per line and per file, folders searched
    /// (depth first, sorted, symbolic links not followed):
    /// `{"path": …, "format": "binary", "kind": "keyed archive", "result": {…}}`, or
    /// `{"path": …, "error": …}` for a file that does not read. Exit status 1 if any failed.
    func sweep(_ invocation: Invocation) -> Int32 {
        var status = ExitStatus.success
        for argument in invocation.files {
            let paths: [String]
            do {
                paths = argument == "-" ? ["-"] : try environment.fileSystem.filesForSweep(argument)
            } catch {
                writeFields([("path", Self.jsonString(argument)), ("error", Self.jsonString(error.message))])
                status = ExitStatus.failure
                continue
            }
            for path in paths {
                if !sweepOne(path, invocation) { status = ExitStatus.failure }
            }
        }
        return status
    }

    /// Writes the line for one file; `false` if it failed.
    private func sweepOne(_ path: String, _ invocation: Invocation) -> Bool {
        var fields: [(String, String)] = [("path", Self.jsonString(path))]
        func fail(_ message: String) -> Bool {
            fields.append(("error", Self.jsonString(message)))
            writeFields(fields)
            return false
        }
        let data: Data
        do {
            data = try readInput(path)
        } catch {
            return fail(error.message)
        }
        let limit = Self.outputLimit(forInputLength: data.count)
        let expansion =
            invocation.expands
            ? ArchiveGraphJSON.Expansion(
                recovering: invocation.recovers, level: 0,
                budget: NestedArchive.Budget(forInputLength: data.count))
            : nil
        /// A graph as `decode --json` prints it, on one line.
        func graphLine(_ graph: ArchivedObjectGraph) throws -> String {
            String(
                decoding: ArchiveGraphJSON.compacted(
                    try ArchiveGraphJSON.render(graph, expansion: expansion)),
                as: UTF8.self)
        }
        if TypedStreamUnarchiver.isTypedStream(data) {
            // NSArchiver's format: its object graph, as for a keyed archive.
            fields.append(("format", Self.jsonString("typedstream")))
            do {
                let graph = try TypedStreamUnarchiver.objectGraph(from: data).archivedObjectGraph()
                fields.append(("kind", Self.jsonString("typedstream")))
                fields.append(("result", try graphLine(graph)))
            } catch let error as KeyedArchiveError {
                return fail("not a readable typedstream: \(error.description)")
            } catch {
                return fail("not a readable typedstream: \(error)")
            }
        } else {
            let value: PropertyList
            do {
                value = try PropertyList(from: data)
            } catch let error as KeyedArchiveError {
                return fail(error.description)
            } catch {
                return fail("\(error)")
            }
            fields.append(("format", Self.jsonString(PropertyListFormat.detect(data).rawValue)))
            do {
                if case .dictionary(let dictionary) = value, dictionary["$objects"] != nil {
                    let graph = try KeyedUnarchiver.objectGraph(
                        from: value, options: KeyedUnarchivingOptions(recoversFromDamage: invocation.recovers)
                    )
                    fields.append(("kind", Self.jsonString("keyed archive")))
                    fields.append(("result", try graphLine(graph)))
                } else {
                    var plain = value
                    if invocation.expands {
                        var resolver = NestedArchive.PlainExpander(
                            recovering: invocation.recovers,
                            budget: NestedArchive.Budget(forInputLength: data.count),
                            valueBudget: max(1, limit / 16))
                        plain = try resolver.expanded(value, level: 0)
                    }
                    let rendered = try plain.jsonData(
                        options: PropertyListJSONOptions(prettyPrinted: false, maximumOutputBytes: limit))
                    fields.append(("kind", Self.jsonString("property list")))
                    fields.append(("result", String(decoding: rendered, as: UTF8.self)))
                }
            } catch let error as KeyedArchiveError {
                return fail("not a readable keyed archive: \(error.description)")
            } catch {
                return fail("\(error)")
            }
        }
        if fields.reduce(0, { $0 + $1.1.utf8.count }) > limit { return fail(Self.outputTooLarge(limit)) }
        writeFields(fields)
        return true
    }

    private func writeFields(_ fields: [(String, String)]) {
        let members = fields.map { "\(Self.jsonString($0.0)):\($0.1)" }
        environment.writeOutput(Data(("{" + members.joined(separator: ",") + "}\n").utf8))
    }

    static func jsonString(_ text: String) -> String {
        (try? PropertyList.string(text).jsonData()).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
