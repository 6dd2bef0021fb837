import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `keyed-archive` command-line tool, callable from tests with a fake environment.
///
/// ```swift
/// let status = Tool.run(arguments: ["-lint", "a.plist"], environment: .process)
/// ```
package struct Tool {
    /// Exit statuses: `plutil`'s 0 and 1, and `sysexits.h`'s `EX_USAGE` for a bad command line.
    enum ExitStatus {
        static let success: Int32 = 0
        static let failure: Int32 = 1
        static let usage: Int32 = 64
    }

    let environment: ToolEnvironment
    /// Where a sweep's lines are gathered (`decode --jsonl`), so that they are written in
    /// large pieces; nil elsewhere.
    var lines: OutputLines? = nil

    /// Runs one command line.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - environment: The streams and file system to use.
    /// - Returns: The exit status: 0 when every file succeeded, 1 when any failed, 64 for
    ///   a usage error.
    package static func run(arguments: [String], environment: ToolEnvironment) -> Int32 {
        let tool = Tool(environment: environment)
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(arguments)
        } catch {
            if arguments.isEmpty {
                environment.writeError(Usage.text)
            } else {
                environment.writeError("keyed-archive: \(error.message)\n\(Usage.synopsis)")
            }
            return ExitStatus.usage
        }
        return tool.perform(invocation)
    }

    /// Carries out a parsed command line.
    ///
    /// - Parameter invocation: What to do.
    /// - Returns: The exit status.
    func perform(_ invocation: Invocation) -> Int32 {
        switch invocation.command {
        case .help:
            environment.writeOutput(Data(Usage.help(for: invocation.helpTopic).utf8))
            return ExitStatus.success
        case .lint:
            return forEachFile(invocation) { file in
                if !invocation.silent {
                    let verdict = file.typedStream.map(Self.lintVerdict) ?? Self.lintVerdict(file.report)
                    environment.writeOutput(Data("\(file.name): \(verdict)\n".utf8))
                }
            }
        case .print:
            return forEachFile(invocation, streamed: { _, data in streamedPrint(data) }) {
                file throws(ToolFailure) in
                try Self.requirePropertyList(file)
                let limit = Self.outputLimit(forInputLength: file.byteCount)
                do {
                    try PropertyListPrinter.render(file.value, limit: limit) {
                        environment.writeOutput(Data($0.utf8))
                    }
                } catch {
                    throw ToolFailure(Self.outputTooLarge(limit))
                }
            }
        case .convert(let format):
            let streamed: ((String, Data) -> Bool)? =
                format == .xml1 || format == .binary1 || format == .json
                ? { name, data in streamedConversion(name, data, to: format, invocation) } : nil
            return forEachFile(invocation, streamed: streamed) { file throws(ToolFailure) in
                if format.isArchiveFormat { return try convertArchive(file, to: format, invocation) }
                try Self.requirePropertyList(file)
                try convert(file, to: format, invocation)
            }
        case .decode:
            if invocation.jsonLines { return sweep(invocation) }
            return forEachFile(invocation) { file throws(ToolFailure) in
                try decode(file, invocation)
            }
        case .extract(let keyPath, let format):
            return forEachFile(invocation) { file throws(ToolFailure) in
                try Self.requirePropertyList(file)
                try extract(keyPath, as: format, from: file, invocation)
            }
        case .type(let keyPath):
            return forEachFile(invocation) { file throws(ToolFailure) in
                try Self.requirePropertyList(file)
                var source = file
                var path = keyPath
                if invocation.resolvesArchive {
                    let limit = Self.outputLimit(forInputLength: file.byteCount)
                    source.value = try Self.resolvedValue(at: keyPath, in: file, limit: limit)
                    path = PropertyListKeyPath(components: [])
                }
                let value = try Self.value(at: path, in: source, expecting: invocation.expectedType)
                environment.writeOutput(Data("\(PropertyListTypeName(of: value).rawValue)\n".utf8))
            }
        case .insert(let keyPath, let value):
            return forEachFile(invocation) { file throws(ToolFailure) in
                try Self.requirePropertyList(file)
                try edit(file, keyPath, invocation.appends ? .append(value) : .insert(value), invocation)
            }
        case .replace(let keyPath, let value):
            return forEachFile(invocation) { file throws(ToolFailure) in
                try Self.requirePropertyList(file)
                try edit(file, keyPath, .replace(value), invocation)
            }
        case .remove(let keyPath):
            return forEachFile(invocation) { file throws(ToolFailure) in
                try Self.requirePropertyList(file)
                try edit(file, keyPath, .remove, invocation)
            }
        case .create(let format):
            return create(format, invocation)
        case .textconv:
            return textconv(invocation)
        case .diff:
            return diff(invocation)
        case .sqlite:
            return summarizeDatabases(invocation)
        }
    }

    // MARK: - Files

    /// Why one file failed, in words that follow `FILE: ` on standard error.
    struct ToolFailure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// A file read and parsed.
    struct InputFile {
        /// The name given on the command line (`-` for standard input).
        let name: String
        var value: PropertyList
        /// What the reading passed over (see ``PropertyListReadingReport``).
        let report: PropertyListReadingReport
        /// The size of the file in bytes, which bounds what is written for it.
        let byteCount: Int
        /// The format the file is in, which edits keep.
        var format: PropertyListFormat = .xml
        /// The file read as a typedstream (`NSArchiver`), when it has that header; `value`
        /// is then an empty string.
        var typedStream: TypedStreamGraph? = nil
        /// The bytes of a typedstream file (`nil` for any other file), which `decode` reads
        /// again as an attributed string when its root is one.
        var typedStreamData: Data? = nil
        /// Whether the file is JSON (read as `plutil` reads it), which edits keep.
        var isJSON = false
    }

    /// Whether `data` starts (after white space and a UTF-8 byte-order mark) with `{` or
    /// `[`, as a JSON object or array does.
    static func looksLikeJSON(_ data: Data) -> Bool {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Refuses a typedstream where a property list is needed.
    static func requirePropertyList(_ file: InputFile) throws(ToolFailure) {
        if file.typedStream != nil {
            throw ToolFailure("a typedstream (NSArchiver), not a property list: use decode to print it")
        }
    }

    /// What `-lint` says of a typedstream that reads: `OK (typedstream)`, and the bytes
    /// after its last value if any.
    static func lintVerdict(_ graph: TypedStreamGraph) -> String {
        let trailing = graph.trailingData.count
        guard trailing > 0 else { return "OK (typedstream)" }
        return
            "OK (typedstream; ignored \(trailing == 1 ? "1 byte" : "\(trailing) bytes") after the last value)"
    }

    /// The most bytes written for one input of `length` bytes: 64 per input byte, and at
    /// least 64 MB. A small file can describe far more (a binary property list's shared
    /// objects, printed at every reference and every depth); output past this is refused
    /// instead of filling the disk or the memory.
    static func outputLimit(forInputLength length: Int) -> Int {
        let (scaled, overflow) = length.multipliedReportingOverflow(by: 64)
        return overflow ? .max : max(64 << 20, scaled)
    }

    static func outputTooLarge(_ limit: Int) -> String {
        "the output would be larger than \(limit) bytes (64 times the input, at least 64 MB); "
            + "the file describes far more than it holds"
    }

    /// Reads and parses every file, hands each to `action`, and reports each failure on
    /// one line naming the file. Later files are processed after a failure.
    ///
    /// `streamed`, when given, is offered each file's bytes first; when it returns `true` the
    /// file is done and neither parsed nor handed to `action`.
    private func forEachFile(
        _ invocation: Invocation, streamed: ((String, Data) -> Bool)? = nil,
        _ action: (InputFile) throws(ToolFailure) -> Void
    )
        -> Int32
    {
        var status = ExitStatus.success
        for name in invocation.files {
            do throws(ToolFailure) {
                // A command that may write the file back holds its lock from before the
                // reading to after the writing (see `FileEditLock`).
                let lock = try lockForEditing(name, invocation.command)
                defer { lock.release() }
                let data = try readInput(name)
                if let streamed, streamed(name, data) { continue }
                var report = PropertyListReadingReport()
                let (value, byteCount, format, typedStream, isJSON) = try readPropertyList(
                    name, data, report: &report)
                try action(
                    InputFile(
                        name: name, value: value, report: report, byteCount: byteCount, format: format,
                        typedStream: typedStream, typedStreamData: typedStream == nil ? nil : data,
                        isJSON: isJSON))
            } catch {
                environment.writeError("\(name): \(error.message)\n")
                status = ExitStatus.failure
            }
        }
        return status
    }

    /// What `-lint` says of a file that reads: `OK`, then what the reading ignored, as
    /// `OK (ignored 1234 bytes after </plist> at line 9)`.
    static func lintVerdict(_ report: PropertyListReadingReport) -> String {
        guard let ignored = report.ignoredTrailingContent else { return "OK" }
        let bytes = ignored.byteCount == 1 ? "1 byte" : "\(ignored.byteCount) bytes"
        let place: String
        if case .text(let line, _) = ignored.location {
            place = "line \(line)"
        } else {
            place = "\(ignored.location)"
        }
        return "OK (ignored \(bytes) after \(ignored.after) at \(place))"
    }

    /// The bytes of `name` (`-`: standard input), which must not be empty: the one way the
    /// tool reads its inputs, at most ``ToolEnvironment/maximumInputBytes`` of each (a file,
    /// a device, a FIFO, standard input), refused at one byte more.
    func readInput(_ name: String) throws(ToolFailure) -> Data {
        let largest = environment.maximumInputBytes
        let what = name == "-" ? "standard input" : "file"
        let data: Data
        do {
            data =
                name == "-"
                ? try environment.readStandardInput(largest)
                : try environment.fileSystem.contentsOfFile(atPath: name, largest: largest)
        } catch {
            throw ToolFailure(error.message)
        }
        // Whatever the environment returned, no more than the maximum goes further.
        guard data.count <= largest else {
            throw ToolFailure(BoundedInput.tooLargeMessage(what, largest: largest))
        }
        if data.isEmpty { throw ToolFailure("\(what) is empty") }
        return data
    }

    /// The lock `command` holds on the file `name` while it reads and writes it: an exclusive
    /// one for a command that may write the file it read (`-insert`, `-replace`, `-remove`,
    /// `-convert`, `-extract`, `-create`; whether it does depends on `-o` and `-e`), none
    /// otherwise or for standard input.
    func lockForEditing(_ name: String, _ command: Invocation.Command) throws(ToolFailure) -> FileEditLock {
        guard command.writesFiles, name != "-" else { return FileEditLock() }
        do {
            return try environment.fileSystem.lockForEditing(name)
        } catch {
            throw ToolFailure(error.message)
        }
    }

    private func readPropertyList(
        _ name: String, _ data: Data, report: inout PropertyListReadingReport
    ) throws(ToolFailure) -> (
        value: PropertyList, byteCount: Int, format: PropertyListFormat, typedStream: TypedStreamGraph?,
        isJSON: Bool
    ) {
        do {
            if TypedStreamUnarchiver.isTypedStream(data) {
                return (
                    .string(""), data.count, .binary, try TypedStreamUnarchiver.objectGraph(from: data), false
                )
            }
            return (
                try PropertyList(from: data, report: &report), data.count, PropertyListFormat.detect(data),
                nil, false
            )
        } catch let error as KeyedArchiveError {
            // As Apple's plutil does, a file that is no property list may be JSON: an object or
            // an array (the OpenStep reader, which also starts at `{` or `(`, tried first).
            if Self.looksLikeJSON(data) {
                do throws(JSONValueReader.Failure) {
                    var text = data[...]
                    if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
                    let value = try JSONValueReader.read(String(decoding: text, as: UTF8.self))
                    return (value, data.count, .openStep, nil, true)
                } catch let jsonError {
                    // Which reading's complaint helps depends on what the file was meant to be.
                    guard name.lowercased().hasSuffix(".json") else { throw ToolFailure(error.description) }
                    throw ToolFailure("\(error.description); as JSON: \(jsonError.message)")
                }
            }
            throw ToolFailure(error.description)
        } catch {
            throw ToolFailure(String(describing: error))
        }
    }

    // MARK: - Decoding

    /// Prints a keyed archive as an object graph: indented text, or JSON with `--json`.
    /// With several files, each text rendering is preceded by `==> FILE <==`.
    ///
    /// With `--expand`, a property list that is not a keyed archive (a Terminal profile, a
    /// web archive) is shown too, with the archives its data values hold expanded
    /// (``decodeExpanded(_:_:expansion:limit:)``).
    private func decode(_ file: InputFile, _ invocation: Invocation) throws(ToolFailure) {
        let value = file.value
        let name = file.name
        let limit = Self.outputLimit(forInputLength: file.byteCount)
        let header = invocation.files.count > 1 && !invocation.json ? "==> \(name) <==\n" : ""
        let expansion =
            invocation.expands
            ? ArchiveGraphJSON.Expansion(
                recovering: invocation.recovers, level: 0,
                budget: NestedArchive.Budget(forInputLength: file.byteCount), summarizing: !invocation.raw
            )
            : nil
        var rendered: String
        do {
            if let expansion, file.typedStream == nil, !Self.isKeyedArchive(value) {
                rendered = try decodeExpanded(value, invocation, expansion: expansion, limit: limit)
            } else {
                rendered = try decodeGraph(file, invocation, expansion: expansion, limit: limit)
            }
        } catch let error as ToolFailure {
            throw error
        } catch is PropertyListPrinter.OutputLimitExceeded {
            throw ToolFailure(Self.outputTooLarge(limit))
        } catch let error as KeyedArchiveError {
            throw ToolFailure("not a readable keyed archive: \(error.description)")
        } catch let error as ArchiveValueResolver.Failure {
            throw ToolFailure(error.message)
        } catch {
            throw ToolFailure("not a readable keyed archive: \(error)")
        }
        guard header.utf8.count + rendered.utf8.count <= limit else {
            throw ToolFailure(Self.outputTooLarge(limit))
        }
        writeText(header)
        writeText(rendered)
    }

    /// Whether `value` is a keyed archive's top-level dictionary (it has `$objects`).
    static func isKeyedArchive(_ value: PropertyList) -> Bool {
        guard case .dictionary(let dictionary) = value else { return false }
        return dictionary["$objects"] != nil
    }

    /// The object graph of a keyed archive or typedstream `file` as `decode` prints it.
    private func decodeGraph(
        _ file: InputFile, _ invocation: Invocation, expansion: ArchiveGraphJSON.Expansion?, limit: Int
    ) throws -> String {
        // An attributed string (an iMessage body) as its text and runs, unless --raw.
        if !invocation.raw, let data = file.typedStreamData,
            invocation.graphPath == nil || invocation.graphPath?.text == "root",
            let body = Self.attributedBody(data)
        {
            let label = invocation.graphPath?.text
            if invocation.json {
                return try Self.attributedBodyJSON(
                    body, label: label, compact: false, limit: limit, expansion: expansion)
            }
            var outline = Self.attributedBodyOutline(body, label: label)
            if let expansion {
                outline += try Self.expandedOutlines(
                    of: Self.dataValues(of: body), expansion: expansion, limit: limit - outline.utf8.count)
            }
            return outline
        }
        var graph =
            try file.typedStream?.archivedObjectGraph()
            ?? KeyedUnarchiver.objectGraph(
                from: file.value, options: KeyedUnarchivingOptions(recoversFromDamage: invocation.recovers))
        var label: String?
        if let path = invocation.graphPath {
            guard let found = graph.value(atKeyPath: path.components) else {
                throw ToolFailure("no value at key path \(path) of the object graph")
            }
            graph = graph.subgraph(at: found)
            label = path.text
        }
        // Known classes as people think of them, unless --raw asks for every field.
        let summarizing = !invocation.raw
        var rendered: String
        if invocation.json {
            rendered = try ArchiveGraphJSON.render(
                graph, rootLabel: label, expansion: expansion, summarizing: summarizing, limit: limit)
        } else {
            // An archive with nothing encoded is valid but prints no line: say so.
            if graph.topLevel.isEmpty {
                rendered = "(empty archive: $top has no keys)\n"
            } else {
                guard
                    let outline = graph.outline(
                        summarizingKnownClasses: summarizing, linePrefix: "", maximumBytes: limit)
                else { throw PropertyListPrinter.OutputLimitExceeded(limit: limit) }
                rendered = outline
            }
            if let label, rendered.hasPrefix("root") { rendered = label + rendered.dropFirst(4) }
            if let expansion {
                rendered += try Self.expandedOutlines(
                    of: NestedArchive.dataValues(in: graph, rootLabel: label), expansion: expansion,
                    limit: limit - rendered.utf8.count)
            }
        }
        for problem in graph.problems {
            environment.writeError("\(file.name): problem: \(problem.description)\n")
        }
        return rendered
    }

    /// `decode --expand` of a property list that is not a keyed archive: the value at
    /// `--path` (or the whole), as `-p` prints it followed by its data values' archives as
    /// `KEYPATH ⇒ keyed archive (N bytes):` and their outlines, or with `--json` as
    /// `decode --jsonl --expand` gives it (each such data value
    /// `{"$expanded": kind, "$value": …}`), indented.
    private func decodeExpanded(
        _ value: PropertyList, _ invocation: Invocation, expansion: ArchiveGraphJSON.Expansion, limit: Int
    ) throws -> String {
        var selected = value
        var label: String?
        if let path = invocation.graphPath {
            guard let found = path.value(in: value) else {
                throw ToolFailure("no value at key path \(path) of the property list")
            }
            selected = found
            label = path.text
        }
        if invocation.json {
            var expander = NestedArchive.PlainExpander(
                recovering: invocation.recovers, budget: expansion.budget)
            return try Self.json(try expander.expanded(selected, level: 0), readable: true, limit: limit)
                + "\n"
        }
        var text = ""
        try PropertyListPrinter.render(selected, limit: limit) { text += $0 }
        text += try Self.expandedOutlines(
            of: NestedArchive.dataValues(in: selected, rootLabel: label), expansion: expansion,
            limit: limit - text.utf8.count)
        return text
    }

    // MARK: - Converting

    /// Writes `file` in `format` to the destination (`-o`, `-e` or the file itself), as the
    /// text is made: standard output receives it in pieces, and a file is replaced through
    /// the durable writer, untouched if writing fails.
    private func convert(_ file: InputFile, to format: ConversionFormat, _ invocation: Invocation)
        throws(ToolFailure)
    {
        let value = file.value
        let name = file.name
        let limit = Self.outputLimit(forInputLength: file.byteCount)
        let destination = try Self.destination(of: name, as: format, invocation)
        // `-header`: a header beside the source, which the source imports (not for standard output).
        let headerPath =
            invocation.writesHeader && destination != "-"
            ? Self.path(destination, replacingExtensionWith: "h") : nil
        let headerName = headerPath.map { String($0.split(separator: "/").last ?? Substring($0)) }

        // The file system reports its own failures as `FileSystemError` and passes the
        // writer's through unchanged, so a `KeyedArchiveError` below is always the writer's.
        func produce(_ write: (UnsafeRawBufferPointer) throws -> Void) throws {
            switch format {
            case .xml1:
                try value.write(
                    format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: limit),
                    to: write)
            case .binary1: try value.write(format: .binary, to: write)
            case .swift, .objc:
                let source = try LiteralSourceWriter.render(
                    value, language: format == .swift ? .swift : .objc, fileName: name, limit: limit,
                    headerName: headerName)
                try source.withUnsafeBytes { try write($0) }
            case .keyed, .typedstream:
                // Converted by convertArchive, never from the property list.
                throw ToolFailure("a property list cannot be written as \(format.rawValue)")
            case .json:
                try value.writeJSON(
                    options: PropertyListJSONOptions(
                        prettyPrinted: invocation.readableJSON, sortsKeys: false,
                        maximumOutputBytes: limit),
                    to: write)
            }
        }
        do {
            if destination == "-" {
                try produce { environment.writeOutput(Data($0)) }
                // JSON on standard output ends its line, as every filter's text does.
                if format == .json { environment.writeOutput(Self.newline) }
            } else {
                let otherLinks = environment.fileSystem.otherHardLinks(ofFile: destination)
                try environment.fileSystem.writeAtomically(toPath: destination, produce)
                warnOfHardLinks(otherLinks, destination, for: name)
                if let headerPath {
                    try environment.fileSystem.writeAtomically(
                        LiteralSourceWriter.header(value, fileName: name), toPath: headerPath)
                }
            }
        } catch let error as KeyedArchiveError {
            throw ToolFailure("cannot write as \(format.rawValue): \(error.description)")
        } catch let error as LiteralSourceWriter.Failure {
            throw ToolFailure(error.message)
        } catch let error as FileSystemError {
            // The message names the file: `cannot write out.plist: Permission denied`.
            throw ToolFailure(error.message)
        } catch {
            throw ToolFailure("cannot write as \(format.rawValue): \(error)")
        }
    }

    /// Where `-convert` writes the conversion of `name`: `-o`, the name with `-e`'s
    /// extension (or a literal source's), or the file itself; `-` is standard output.
    static func destination(of name: String, as format: ConversionFormat, _ invocation: Invocation)
        throws(ToolFailure) -> String
    {
        if let outputPath = invocation.outputPath { return outputPath }
        guard let outputExtension = invocation.outputExtension ?? format.sourceExtension else { return name }
        if name == "-" && invocation.outputExtension == nil { return "-" }
        guard name != "-" else { throw ToolFailure("-e cannot name a file for standard input; use -o") }
        return path(name, replacingExtensionWith: outputExtension)
    }

    /// `-convert` without the tree, through the library's one dispatcher for a pair of
    /// formats (`PropertyListStreamedConversion.convert`): `xml1` and `json` of a binary
    /// property list are written straight from its objects, text formats through the
    /// one-pass compact form the unarchiver opens XML archives with (or, for `json`, as
    /// they are read), which takes a fraction of the time and memory of reading the value
    /// and writing it. The
    /// bytes are the same; so that everything else is too, any failure (a malformed file, a
    /// limit, a key given twice, a write that fails) returns `false`, and the file then goes
    /// the tree's way, which says what is wrong as it always has. Standard output receives
    /// the text only once it is complete, since the tree's way may follow; a file is
    /// replaced through the durable writer, which leaves it untouched when converting throws.
    ///
    /// - Returns: Whether the file was converted.
    private func streamedConversion(
        _ name: String, _ data: Data, to format: ConversionFormat, _ invocation: Invocation
    ) -> Bool {
        let input: PropertyListStreamedConversion.Input
        if data.starts(with: Self.binaryMagic) {
            input = .binary
        } else {
            switch PropertyListFormat.detect(data) {
            case .xml: input = .xml
            case .binary: return false
            case .openStep: input = Self.isJSONNotOpenStep(data) ? .json : .openStep
            }
        }
        let limit = Self.outputLimit(forInputLength: data.count)
        let output: PropertyListStreamedConversion.Output
        switch format {
        case .xml1: output = .xml
        case .binary1: output = .binary
        case .json:
            output = .json(
                PropertyListJSONOptions(
                    prettyPrinted: invocation.readableJSON, sortsKeys: false, maximumOutputBytes: limit))
        case .swift, .objc, .keyed, .typedstream: return false
        }
        guard let destination = try? Self.destination(of: name, as: format, invocation) else { return false }
        func produce(_ write: (UnsafeRawBufferPointer) throws -> Void) throws {
            try PropertyListStreamedConversion.convert(
                data, from: input, to: output, maximumOutputBytes: limit, to: write)
        }
        do {
            if destination == "-" {
                var text = Data()
                try produce { text.append(contentsOf: $0) }
                if format == .json { text.append(Self.newline) }
                environment.writeOutput(text)
            } else {
                let otherLinks = environment.fileSystem.otherHardLinks(ofFile: destination)
                try environment.fileSystem.writeAtomically(toPath: destination, produce)
                warnOfHardLinks(otherLinks, destination, for: name)
            }
            return true
        } catch {
            return false
        }
    }

    /// `-p` without the tree: the printer formats the events of the library's walk over the
    /// objects of a binary property list, or over the compact binary form of an XML or JSON
    /// one. As for ``streamedConversion(_:_:to:_:)``, any
    /// failure returns `false` and the file goes the tree's way, which says what is wrong as
    /// it always has; so the text is written only once complete.
    ///
    /// - Returns: Whether the file was printed.
    private func streamedPrint(_ data: Data) -> Bool {
        let isBinary = data.starts(with: Self.binaryMagic)
        let detected = isBinary ? .binary : PropertyListFormat.detect(data)
        let isJSON = detected != .binary && detected != .xml && Self.isJSONNotOpenStep(data)
        // OpenStep is printed from the tree: its walk through the compact form measured 6%
        // slower (the text printed is most of the time; strings would be made twice).
        guard isBinary || isJSON || detected == .xml else { return false }
        var pieces: [String] = []
        var formatter = PropertyListPrinter.Formatter(
            limit: Self.outputLimit(forInputLength: data.count), output: { pieces.append($0) })
        do {
            if isBinary {
                // A file without shared containers gives at most two events per reference
                // (its value and, for a container, its end); far more means objects reached
                // again and again (a "bomb"), which the tree's way measures before printing
                // (``PrintedSize``) instead of printing up to the limit.
                let eventLimit = 2 * data.count + 1024
                var events = 0
                try BinaryPropertyListWalk.walk(data, options: PropertyListReadingOptions()) { event in
                    events += 1
                    guard events <= eventLimit else { throw SharedObjectsRepeated() }
                    try formatter.consume(event)
                }
            } else if detected == .xml {
                try PropertyListStreamedConversion.walk(xml: data) { try formatter.consume($0) }
            } else {
                try PropertyListStreamedConversion.walk(json: data) { try formatter.consume($0) }
            }
            try formatter.finish()
        } catch {
            return false
        }
        for piece in pieces { environment.writeOutput(Data(piece.utf8)) }
        return true
    }

    private static let binaryMagic = Array("bplist00".utf8)

    /// Why ``streamedPrint(_:)`` left a binary file to the tree's way.
    private struct SharedObjectsRepeated: Error {}

    /// Writes `text` to standard output in pieces of at most a megabyte, so that a large
    /// rendering is not copied whole once more on its way out.
    func writeText(_ text: String) {
        if let lines {
            lines.append(text)
            return
        }
        var text = text
        // The bytes copied from the string's own storage, not one by one.
        text.withUTF8 { bytes in
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + (1 << 20))
                environment.writeOutput(Data(buffer: UnsafeBufferPointer(rebasing: bytes[start..<end])))
                start = end
            }
        }
    }

    /// Whether `data` is to be read as JSON, as ``readPropertyList(_:_:report:)`` decides
    /// it: it looks like JSON and is no property list. That needs reading it as OpenStep
    /// to fail, which is done only when the text opens as JSON and OpenStep cannot (an
    /// object's first key followed by `:`, or an array's `[`), where that reading fails
    /// at once.
    static func isJSONNotOpenStep(_ data: Data) -> Bool {
        guard looksLikeJSON(data) else { return false }
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        bytes = bytes.drop(while: isSpace)
        if bytes.first == UInt8(ascii: "{") {
            // `{`, a key without escapes, then `:`.
            bytes = bytes.dropFirst().drop(while: isSpace)
            guard bytes.first == UInt8(ascii: "\"") else { return false }
            bytes = bytes.dropFirst()
            guard let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }),
                data[end] == UInt8(ascii: "\"")
            else { return false }
            bytes = bytes[(end + 1)...].drop(while: isSpace)
            guard bytes.first == UInt8(ascii: ":") else { return false }
        }
        return (try? PropertyList(from: data)) == nil
    }

    /// `a/b.plist` with `xml` gives `a/b.xml`; a name without an extension gets one.
    static func path(_ path: String, replacingExtensionWith newExtension: String) -> String {
        let slash = path.lastIndex(of: "/")
        let nameStart = slash.map { path.index(after: $0) } ?? path.startIndex
        let name = path[nameStart...]
        // A leading dot starts a hidden file's name, not an extension.
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return path[..<dot] + "." + newExtension
        }
        return path + "." + newExtension
    }
}
