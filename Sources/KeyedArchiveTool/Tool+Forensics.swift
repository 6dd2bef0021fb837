import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `decode --expand` (text) and `decode --jsonl`: reading archives as an examiner finds them.
extension Tool {
    /// The archives nested in the data values `found` (each with its key path), each as
    /// `PATH ⇒ keyed archive (N bytes):` and its own outline, indented; nested archives
    /// inside those follow theirs, up to ``NestedArchive/maximumLevels`` deep. Each line
    /// starts with `prefix` (the indentation of the archive `found` is in).
    ///
    /// Identical data (an archive stored in many places) is read and rendered once.
    ///
    /// - Throws: ``PropertyListPrinter/OutputLimitExceeded`` as soon as the text passes
    ///   `limit` bytes.
    static func expandedOutlines(
        of found: [(path: String, data: Data)], expansion: ArchiveGraphJSON.Expansion, prefix: String = "",
        limit: Int
    ) throws(PropertyListPrinter.OutputLimitExceeded) -> String {
        guard expansion.level < NestedArchive.maximumLevels else { return "" }
        let headerPrefix = prefix + String(repeating: "  ", count: expansion.level)
        let bodyPrefix = prefix + String(repeating: "  ", count: expansion.level + 1)
        var text = ""
        for (path, data) in found {
            guard
                let content = NestedArchive.recognize(
                    data, recovering: expansion.recovering, budget: expansion.budget)
            else { continue }
            let header = "\(headerPrefix)\(path) ⇒ \(content.kindName) (\(data.count) bytes):\n"
            let key = NestedArchive.RenderingKey(
                data: data, level: expansion.level, depth: prefix.utf8.count, json: false)
            let body: String
            if let known = expansion.budget.renderings[key] {
                body = known
            } else {
                body = try expandedBody(
                    content, expansion: expansion, prefix: bodyPrefix,
                    limit: limit - text.utf8.count - header.utf8.count)
                expansion.budget.renderings[key] = body
            }
            // Checked before appending: the text never passes the limit.
            guard text.utf8.count + header.utf8.count + body.utf8.count <= limit else {
                throw PropertyListPrinter.OutputLimitExceeded(limit: limit)
            }
            text += header
            text += body
        }
        return text
    }

    /// What expanded data shows under its header: a nested archive's outline, its problems
    /// and the archives nested in it, or a property list as `-p` prints it; every line
    /// after `prefix`.
    private static func expandedBody(
        _ content: NestedArchive.Content, expansion: ArchiveGraphJSON.Expansion, prefix: String, limit: Int
    ) throws(PropertyListPrinter.OutputLimitExceeded) -> String {
        var body = ""
        switch content {
        case .keyedArchive(let nested), .typedstream(let nested):
            if nested.topLevel.isEmpty {
                body = prefix + "(empty archive: $top has no keys)\n"
            } else {
                guard
                    let outline = nested.outline(
                        summarizingKnownClasses: expansion.summarizing, linePrefix: prefix,
                        maximumBytes: max(0, limit))
                else { throw PropertyListPrinter.OutputLimitExceeded(limit: limit) }
                body = outline
            }
            for problem in nested.problems { body += "\(prefix)problem: \(problem.description)\n" }
            var deeper = expansion
            deeper.level += 1
            body += try expandedOutlines(
                of: NestedArchive.dataValues(in: nested, rootLabel: nil), expansion: deeper, prefix: prefix,
                limit: limit - body.utf8.count)
        case .propertyList(let value):
            var atLineStart = true
            try PropertyListPrinter.render(value, limit: max(0, limit)) { piece in
                var rest = Substring(piece)
                while !rest.isEmpty {
                    if atLineStart { body += prefix }
                    guard let newline = rest.firstIndex(of: "\n") else {
                        body += rest
                        atLineStart = false
                        break
                    }
                    body += rest[...newline]
                    rest = rest[rest.index(after: newline)...]
                    atLineStart = true
                }
            }
        }
        guard body.utf8.count <= limit else { throw PropertyListPrinter.OutputLimitExceeded(limit: limit) }
        return body
    }

    /// `decode --jsonl`: one JSON object per line and per file, folders searched
    /// (depth first, sorted, symbolic links not followed):
    /// `{"path": …, "format": "binary", "kind": "keyed archive", "result": {…}}`, or
    /// `{"path": …, "error": …}` for a file that does not read. Exit status 1 if any failed.
    func sweep(_ invocation: Invocation) -> Int32 {
        guard lines != nil else {
            // The lines gathered into writes of ``OutputLines/capacity`` bytes.
            var buffered = self
            let lines = OutputLines(environment.writeOutput)
            buffered.lines = lines
            defer { lines.flush() }
            return buffered.sweep(invocation)
        }
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
            // A database's -wal, -shm and -journal files are read with it.
            for path in paths where !Self.isDatabaseCompanion(path, sweeping: paths) {
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
        if path != "-", let succeeded = sweepDatabase(path, invocation) { return succeeded }
        let data: Data
        do {
            data = try readInput(path)
        } catch {
            return fail(error.message)
        }
        if let message = appendDecoded(data, invocation, to: &fields) { return fail(message) }
        writeFields(fields)
        return true
    }

    /// Appends `format`, `kind` and `result` for an archive or property list, as a
    /// `decode --jsonl` line shows them; the message of the `error` field if it does not read.
    func appendDecoded(_ data: Data, _ invocation: Invocation, to fields: inout [(String, String)]) -> String?
    {
        func fail(_ message: String) -> String? { message }
        let limit = Self.outputLimit(forInputLength: data.count)
        let expansion =
            invocation.expands
            ? ArchiveGraphJSON.Expansion(
                recovering: invocation.recovers, level: 0,
                budget: NestedArchive.Budget(forInputLength: data.count), summarizing: !invocation.raw)
            : nil
        /// A graph as `decode --json` prints it, on one line.
        func graphLine(_ graph: ArchivedObjectGraph) throws -> String {
            try ArchiveGraphJSON.render(
                graph, expansion: expansion, summarizing: !invocation.raw, compact: true, limit: limit)
        }
        if TypedStreamUnarchiver.isTypedStream(data) {
            // NSArchiver's format: its object graph, as for a keyed archive; an attributed
            // string (an iMessage body) as its text and runs, unless --raw.
            fields.append(("format", Self.jsonString("typedstream")))
            do {
                if !invocation.raw, let body = Self.attributedBody(data) {
                    fields.append(("kind", Self.jsonString("typedstream")))
                    fields.append(
                        (
                            "result",
                            try Self.attributedBodyJSON(
                                body, label: nil, compact: true, limit: limit, expansion: expansion)
                        )
                    )
                    return fields.reduce(0, { $0 + $1.1.utf8.count }) > limit
                        ? fail(Self.outputTooLarge(limit)) : nil
                }
                let graph = try TypedStreamUnarchiver.objectGraph(from: data).archivedObjectGraph()
                fields.append(("kind", Self.jsonString("typedstream")))
                fields.append(("result", try graphLine(graph)))
            } catch is PropertyListPrinter.OutputLimitExceeded {
                return fail(Self.outputTooLarge(limit))
            } catch let error as KeyedArchiveError {
                return fail("not a readable typedstream: \(error.description)")
            } catch {
                return fail("not a readable typedstream: \(error)")
            }
        } else {
            let options = KeyedUnarchivingOptions(recoversFromDamage: invocation.recovers)
            // A keyed archive is read from its bytes (a binary one in place), not through a
            // tree that the unarchiver would write back as binary: several times faster. One
            // that does not read so takes the general way below, which says what is wrong.
            var archive: ArchivedObjectGraph?
            if Self.mentionsObjects(data) {
                archive = try? KeyedUnarchiver.objectGraph(from: data, options: options)
            }
            // A plain binary or XML property list, without --expand, goes from its bytes to
            // JSON without a tree (the streamed conversion writes what the tree's JSON
            // writer writes and refuses at least what reading refuses; what it refuses takes
            // the tree's way, which says what is wrong).
            if archive == nil, expansion == nil, let rendered = Self.streamedJSON(data, limit: limit) {
                fields.append(("format", Self.jsonString(PropertyListFormat.detect(data).rawValue)))
                fields.append(("kind", Self.jsonString("property list")))
                fields.append(("result", rendered))
                if fields.reduce(0, { $0 + $1.1.utf8.count }) > limit {
                    return fail(Self.outputTooLarge(limit))
                }
                return nil
            }
            var value = PropertyList.string("")
            if archive == nil {
                do {
                    value = try PropertyList(from: data)
                } catch let error as KeyedArchiveError {
                    return fail(error.description)
                } catch {
                    return fail("\(error)")
                }
            }
            fields.append(("format", Self.jsonString(PropertyListFormat.detect(data).rawValue)))
            do {
                if let archive {
                    fields.append(("kind", Self.jsonString("keyed archive")))
                    fields.append(("result", try graphLine(archive)))
                } else if case .dictionary(let dictionary) = value, dictionary["$objects"] != nil {
                    let graph = try KeyedUnarchiver.objectGraph(from: value, options: options)
                    fields.append(("kind", Self.jsonString("keyed archive")))
                    fields.append(("result", try graphLine(graph)))
                } else {
                    var plain = value
                    if let expansion {
                        var expander = NestedArchive.PlainExpander(
                            recovering: invocation.recovers, budget: expansion.budget)
                        plain = try expander.expanded(value, level: 0)
                    }
                    let rendered = try Self.json(plain, readable: false, limit: limit)
                    fields.append(("kind", Self.jsonString("property list")))
                    fields.append(("result", rendered))
                }
            } catch is PropertyListPrinter.OutputLimitExceeded {
                return fail(Self.outputTooLarge(limit))
            } catch let error as KeyedArchiveError {
                return fail("not a readable keyed archive: \(error.description)")
            } catch {
                return fail("\(error)")
            }
        }
        if fields.reduce(0, { $0 + $1.1.utf8.count }) > limit { return fail(Self.outputTooLarge(limit)) }
        return nil
    }

    /// The compact JSON of the plain binary or XML property list `data`, as
    /// ``json(_:readable:limit:)`` writes its value, made without a tree; nil when it is
    /// neither, does not convert so, or may be a keyed archive (`"$objects"` in the text).
    static func streamedJSON(_ data: Data, limit: Int) -> String? {
        let input: PropertyListStreamedConversion.Input
        switch PropertyListFormat.detect(data) {
        case .binary: input = .binary
        case .xml: input = .xml
        default: return nil
        }
        var bytes: [UInt8] = []
        do {
            try PropertyListStreamedConversion.convert(
                data, from: input,
                to: .json(PropertyListJSONOptions(prettyPrinted: false, maximumOutputBytes: limit)),
                maximumOutputBytes: limit
            ) { bytes.append(contentsOf: $0) }
        } catch {
            return nil
        }
        let text = String(decoding: bytes, as: UTF8.self)
        // A dictionary with `$objects` is read as a keyed archive, which the tree's way does.
        return bytes.withUnsafeBytes(mentionsObjects) ? nil : text
    }

    /// Whether the bytes `$objects` occur in `data`, as they do in every keyed archive,
    /// binary or XML.
    static func mentionsObjects(_ data: Data) -> Bool {
        data.withUnsafeBytes(mentionsObjects)
    }

    /// Whether the bytes `$objects` occur in `raw`.
    static func mentionsObjects(_ raw: UnsafeRawBufferPointer) -> Bool {
        let key: StaticString = "$objects"
        let keyCount = key.utf8CodeUnitCount
        let keyBytes = UnsafeBufferPointer(start: key.utf8Start, count: keyCount)
        let count = raw.count
        guard count >= keyCount, let base = raw.baseAddress, let keyStart = keyBytes.baseAddress else {
            return false
        }
        // Each `$` found by the C library's `memchr`: a sweep asks this of every archive
        // BLOB and of every plain property list's JSON (a byte loop here was 2.5% of
        // sweeping a database).
        var start = 0
        while count - start >= keyCount,
            let found = memchr(base + start, 0x24, count - start - keyCount + 1)
        {
            let index = base.distance(to: UnsafeRawPointer(found))
            if memcmp(base + index, keyStart, keyCount) == 0 { return true }
            start = index + 1
        }
        return false
    }

    /// Writes one line, `{"key":value,…}`: into the sweep's ``OutputLines`` when there is
    /// one (a sweep writes tens of thousands of lines), else in one write when it is short;
    /// a long value (a result may be tens of megabytes) is handed out on its own, not copied
    /// into the line.
    func writeFields(_ fields: [(String, String)]) {
        if let lines {
            lines.append(fields)
            return
        }
        var line = ""
        line.reserveCapacity(
            fields.reduce(4) { $0 + $1.0.utf8.count + 4 + min($1.1.utf8.count, Self.longestCopiedValue) })
        for (index, (key, value)) in fields.enumerated() {
            line += index == 0 ? "{\"" : ",\""
            // Keys are the tool's own names: plain ASCII, nothing to escape.
            line += key
            line += "\":"
            if value.utf8.count > Self.longestCopiedValue {
                writeText(line)
                writeText(value)
                line = ""
            } else {
                line += value
            }
        }
        line += "}\n"
        writeText(line)
    }

    /// The longest value ``writeFields(_:)`` copies into its line: 256 KB.
    static let longestCopiedValue = 256 << 10

    /// A property list as `-convert json` writes it (on one line unless `readable`).
    ///
    /// - Throws: ``PropertyListPrinter/OutputLimitExceeded`` when the text would pass
    ///   `limit` bytes; ``KeyedArchiveError`` as the JSON writer throws.
    static func json(_ value: PropertyList, readable: Bool, limit: Int) throws -> String {
        do {
            return String(
                decoding: try value.jsonData(
                    options: PropertyListJSONOptions(prettyPrinted: readable, maximumOutputBytes: limit)),
                as: UTF8.self)
        } catch let error as KeyedArchiveError
            where error.code == .limitExceeded && error.description.contains("would be longer than")
        {
            // The output limit, not the nesting one (`limitExceeded` too).
            throw PropertyListPrinter.OutputLimitExceeded(limit: limit)
        }
    }

    /// `text` as a JSON string, as the library's JSON writer escapes it.
    static func jsonString(_ text: String) -> String {
        // Text without a control character, `"` or `\` is written as it is (as the writer
        // does): quoted here without setting up the writer (a sweep quotes many per line).
        var text = text
        let plain = text.withUTF8 { bytes in !bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } }
        if plain { return "\"" + text + "\"" }
        guard let data = try? PropertyList.string(text).jsonData() else { return "\"\"" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The output of a sweep, gathered into writes of about ``capacity`` bytes instead of one
/// write per line.
final class OutputLines {
    /// How many bytes are gathered before they are written: 64 KB.
    static let capacity = 64 << 10

    private var bytes: [UInt8] = []
    private let write: (Data) -> Void

    /// Lines that go to `write`.
    init(_ write: @escaping (Data) -> Void) {
        self.write = write
        bytes.reserveCapacity(Self.capacity + 4096)
    }

    /// Writes what was gathered.
    func flush() {
        guard !bytes.isEmpty else { return }
        write(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends `text`; a long one is written on its own, after what was gathered.
    func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if utf8.count > Tool.longestCopiedValue {
                flush()
                write(Data(buffer: utf8))
            } else {
                bytes.append(contentsOf: utf8)
                if bytes.count >= Self.capacity { flush() }
            }
        }
    }

    /// Appends the line `{"key":value,…}` (keys are the tool's own names: plain ASCII).
    func append(_ fields: [(String, String)]) {
        if fields.allSatisfy({ $0.1.utf8.count <= Tool.longestCopiedValue }) {
            // The whole line in one access to the buffer (each access to a class's stored
            // property is checked for exclusivity: three a field cost a tenth of the line).
            Self.appendLine(fields, to: &bytes)
            if bytes.count >= Self.capacity { flush() }
            return
        }
        for (index, (key, value)) in fields.enumerated() {
            Self.appendKey(index: index, key: key, to: &bytes)
            append(value)
        }
        bytes.append(0x7D)
        bytes.append(0x0A)
        if bytes.count >= Self.capacity { flush() }
    }

    /// Appends `{"key":` for the first field (`index` 0), `,"key":` for the others.
    private static func appendKey(index: Int, key: String, to bytes: inout [UInt8]) {
        bytes.append(index == 0 ? 0x7B : 0x2C)
        bytes.append(0x22)
        var key = key
        key.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(0x22)
        bytes.append(0x3A)
    }

    private static func appendLine(_ fields: [(String, String)], to bytes: inout [UInt8]) {
        for (index, (key, value)) in fields.enumerated() {
            appendKey(index: index, key: key, to: &bytes)
            var value = value
            value.withUTF8 { bytes.append(contentsOf: $0) }
        }
        bytes.append(0x7D)
        bytes.append(0x0A)
    }
}
