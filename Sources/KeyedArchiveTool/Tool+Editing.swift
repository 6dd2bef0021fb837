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

/// `-extract`, `-type`, `-insert`, `-replace`, `-remove` and `-create`: `plutil`'s key-path
/// commands.
extension Tool {
    /// The value at `keyPath` in `file`, checked against `-expect`.
    static func value(
        at keyPath: PropertyListKeyPath, in file: InputFile, expecting expected: PropertyListTypeName?
    ) throws(ToolFailure) -> PropertyList {
        guard let value = keyPath.value(in: file.value) else {
            throw ToolFailure(
                "Could not extract value, error: No value at that key path or invalid key path: \(keyPath)")
        }
        let type = PropertyListTypeName(of: value)
        if let expected, expected != type {
            throw ToolFailure(
                "Value at [\(keyPath)] expected to be \(expected.rawValue) but is \(type.rawValue)")
        }
        return value
    }

    /// `-extract KEYPATH FORMAT`: `raw` prints the value and a newline (to `-o` if given,
    /// without the newline); the other
    /// formats write it as a property list of its own to `-o`, or, as `plutil` does, in
    /// place of the file (standard input's goes to standard output).
    func extract(
        _ keyPath: PropertyListKeyPath, as format: ExtractFormat, from file: InputFile,
        _ invocation: Invocation
    ) throws(ToolFailure) {
        let limit = Self.outputLimit(forInputLength: file.byteCount)
        var source = file
        if invocation.resolvesArchive {
            source.value = try Self.resolvedValue(at: keyPath, in: file, limit: limit)
        }
        let value =
            invocation.resolvesArchive
            ? try Self.value(
                at: PropertyListKeyPath(components: []), in: source, expecting: invocation.expectedType)
            : try Self.value(at: keyPath, in: source, expecting: invocation.expectedType)
        let encoded: Data
        switch format {
        case .raw:
            var text = try Self.rawText(value, limit: limit)
            let destination = invocation.outputPath ?? "-"
            // As plutil: a newline ends the value on standard output, not in a file.
            if !invocation.omitsFinalNewline && destination == "-" { text += "\n" }
            encoded = Data(text.utf8)
            try deliver(encoded, to: destination, for: file.name)
            return
        case .xml1:
            encoded = try Self.encode(value, as: .xml1, readable: false, limit: limit)
        case .binary1:
            encoded = try Self.encode(value, as: .binary1, readable: false, limit: limit)
        case .json:
            encoded = try Self.encode(value, as: .json, readable: invocation.readableJSON, limit: limit)
            if (invocation.outputPath ?? file.name) == "-" {
                try deliver(encoded + Self.newline, to: "-", for: file.name); return
            }
        }
        try deliver(encoded, to: invocation.outputPath ?? file.name, for: file.name)
    }

    /// `--resolve`: the value at `keyPath` of the keyed archive `file`, as a plain property list.
    static func resolvedValue(at keyPath: PropertyListKeyPath, in file: InputFile, limit: Int)
        throws(ToolFailure)
        -> PropertyList
    {
        let graph: ArchivedObjectGraph
        do {
            graph = try KeyedUnarchiver.objectGraph(from: file.value)
        } catch let error as KeyedArchiveError {
            throw ToolFailure("not a readable keyed archive: \(error.description)")
        } catch {
            throw ToolFailure("not a readable keyed archive: \(error)")
        }
        guard let value = graph.value(atKeyPath: keyPath.components) else {
            throw ToolFailure(
                "Could not extract value, error: No value at that key path or invalid key path: \(keyPath)")
        }
        // One value per 16 output bytes: a value is at least that long in any format.
        var resolver = ArchiveValueResolver(graph: graph, budget: max(1, limit / 16))
        do {
            return try resolver.propertyList(for: value)
        } catch {
            throw ToolFailure(error.message)
        }
    }

    /// What `-extract … raw` prints, without the final newline: strings as they are,
    /// numbers in decimal (reals as `%f`, as `plutil`), Booleans `true`/`false`, dates in
    /// ISO 8601 UTC, data in base64, a dictionary's keys one per line (sorted), an array's
    /// count, a UID's number.
    static func rawText(_ value: PropertyList, limit: Int) throws(ToolFailure) -> String {
        let text: String
        switch value {
        case .string(let string): text = string
        case .integer(let integer): text = integer.description
        case .real(let real): text = fixedPointText(real)
        case .bool(let flag): text = flag ? "true" : "false"
        case .date: text = value.description
        case .data(let data): text = data.base64EncodedString()
        case .array(let elements): text = "\(elements.count)"
        case .dictionary(let dictionary): text = dictionary.sortedByKey.map(\.key).joined(separator: "\n")
        case .uid(let uid): text = "\(uid)"
        }
        guard text.utf8.count <= limit else { throw ToolFailure(outputTooLarge(limit)) }
        return text
    }

    /// `real` as C's `%f` writes it (six decimals, `nan`, `inf`), as `String(format:)` did.
    static func fixedPointText(_ real: Double) -> String {
        withVaList([real]) { arguments in
            // The longest `%f` of a double is 317 bytes (a sign, 309 digits, a point and six).
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 400) { buffer in
                guard let base = buffer.baseAddress, vsnprintf(base, buffer.count, "%f", arguments) > 0 else {
                    return "\(real)"
                }
                return String(cString: base)
            }
        }
    }

    /// `value` in a property-list format, bounded by `limit`.
    static func encode(_ value: PropertyList, as format: ConversionFormat, readable: Bool, limit: Int)
        throws(ToolFailure) -> Data
    {
        do {
            return try encodeOrThrow(value, as: format, readable: readable, limit: limit)
        } catch {
            throw encodingFailure(error, format)
        }
    }

    /// What ``encode(_:as:readable:limit:)`` says of an error of ``encodeOrThrow(_:as:readable:limit:)``.
    static func encodingFailure(_ error: any Error, _ format: ConversionFormat) -> ToolFailure {
        switch error {
        case let error as ToolFailure: return error
        case let error as KeyedArchiveError:
            return ToolFailure("cannot write as \(format.rawValue): \(error.description)")
        default: return ToolFailure("cannot write as \(format.rawValue): \(error)")
        }
    }

    /// ``encode(_:as:readable:limit:)`` with the writers' errors as they are
    /// (``KeyedArchiveError``, or ``ToolFailure`` for literal source).
    static func encodeOrThrow(_ value: PropertyList, as format: ConversionFormat, readable: Bool, limit: Int)
        throws -> Data
    {
        switch format {
        case .xml1:
            return try value.data(
                format: .xml, options: PropertyListWritingOptions(maximumOutputBytes: limit))
        case .binary1:
            return try value.data(format: .binary)
        case .json:
            return try value.jsonData(
                options: PropertyListJSONOptions(
                    prettyPrinted: readable, sortsKeys: false, maximumOutputBytes: limit))
        case .swift, .objc:
            do {
                return try LiteralSourceWriter.render(
                    value, language: format == .swift ? .swift : .objc, fileName: "-", limit: limit)
            } catch {
                throw ToolFailure(error.message)
            }
        case .keyed, .typedstream:
            // Only -convert takes them, which converts the file itself (convertArchive).
            throw ToolFailure("a property list cannot be written as \(format.rawValue)")
        }
    }

    /// `-insert`, `-replace`, `-remove`: edits the file and writes it back in its own format
    /// (to `-o` if given; standard input's result goes to standard output). The write is
    /// durable and all-or-nothing: a failed edit or write leaves the file as it was.
    ///
    /// A result the readers would refuse is refused before anything is written: nested
    /// deeper than ``PropertyListReadingOptions/maximumDepth`` (512; two edits each within it
    /// can nest a value twice as deep), or larger than ``ToolEnvironment/maximumInputBytes``
    /// (the most the tool reads). Otherwise an edit could leave a file that no command,
    /// `-remove` included, opens again.
    func edit(
        _ file: InputFile, _ keyPath: PropertyListKeyPath, _ edit: PropertyListKeyPath.Edit,
        _ invocation: Invocation
    ) throws(ToolFailure) {
        var value = file.value
        if invocation.resolvesArchive || keyPath.crossesData(in: value) {
            // Through the object graph, or into an archive stored in a data value: the
            // library's editor, which copies shared objects on write.
            do {
                value = try KeyedArchiveEditor.applying(
                    edit.libraryEdit, atKeyPath: keyPath.components, to: value,
                    resolvingArchive: invocation.resolvesArchive,
                    sharedObjects: invocation.editsSharedObjects ? .editInPlace : .copyOnWrite)
            } catch {
                throw ToolFailure(error.description)
            }
        } else {
            do {
                try keyPath.apply(edit, to: &value)
            } catch {
                throw ToolFailure(error.message)
            }
        }
        let deepest = PropertyListReadingOptions().maximumDepth
        let depth = Self.nestingDepth(of: value)
        if depth > deepest {
            throw ToolFailure(
                "the edit would nest values \(depth) levels deep at key path \(keyPath), more than the "
                    + "\(deepest) that property-list readers accept; nothing was written")
        }
        let format: ConversionFormat
        switch file.format {
        case _ where file.isJSON: format = .json
        case .binary: format = .binary1
        case .xml: format = .xml1
        case .openStep:
            throw ToolFailure(
                "an OpenStep property list cannot be written back; convert it first (-convert xml1 or binary1)"
            )
        }
        // The result must be readable again: no larger than the most the tool reads.
        let largest = environment.maximumInputBytes
        let tooLarge = ToolFailure(
            "the edited file would be larger than \(largest) bytes, the most keyed-archive reads "
                + "from one input; nothing was written")
        let encoded: Data
        do {
            encoded = try Self.encodeOrThrow(value, as: format, readable: false, limit: largest)
        } catch let error as KeyedArchiveError where error.code == .limitExceeded {
            // The XML and JSON writers stop at the limit.
            throw tooLarge
        } catch {
            throw Self.encodingFailure(error, format)
        }
        guard encoded.count <= largest else { throw tooLarge }
        try deliver(encoded, to: invocation.outputPath ?? file.name, for: file.name)
    }

    /// The depth of the deepest array or dictionary in `value`, as the readers count it (a
    /// top-level container is at depth 1; 0 for a value that is no container).
    ///
    /// - Complexity: O(*n*) for the *n* values of `value`, iteratively (no recursion).
    static func nestingDepth(of value: PropertyList) -> Int {
        var deepest = 0
        var pending: [(value: PropertyList, depth: Int)] = [(value, 1)]
        while let (next, depth) = pending.popLast() {
            switch next {
            case .array(let elements):
                deepest = max(deepest, depth)
                for element in elements { pending.append((element, depth + 1)) }
            case .dictionary(let dictionary):
                deepest = max(deepest, depth)
                for entry in dictionary { pending.append((entry.value, depth + 1)) }
            default:
                continue
            }
        }
        return deepest
    }

    /// `-create FORMAT`: each file becomes an empty dictionary in `format` (`-` prints it).
    func create(_ format: ConversionFormat, _ invocation: Invocation) -> Int32 {
        var status = ExitStatus.success
        for name in invocation.files {
            do throws(ToolFailure) {
                // Locked, so that an edit in progress is not silently undone.
                let lock = try lockForEditing(name, invocation.command)
                defer { lock.release() }
                let encoded = try Self.encode(
                    .dictionary(PropertyListDictionary()), as: format, readable: false, limit: 1 << 20)
                try deliver(
                    format == .json && name == "-" ? encoded + Self.newline : encoded, to: name, for: name)
            } catch {
                environment.writeError("\(name): \(error.message)\n")
                status = ExitStatus.failure
            }
        }
        return status
    }

    /// Writes `data` to standard output (`-`) or durably to the file `destination`, for the
    /// input `name` (which warnings name).
    func deliver(_ data: Data, to destination: String, for name: String) throws(ToolFailure) {
        if destination == "-" {
            environment.writeOutput(data)
            return
        }
        try writeFile(destination, for: name) { () throws(FileSystemError) in
            try environment.fileSystem.writeAtomically(data, toPath: destination)
        }
    }

    /// Replaces the file `destination` through `write`, and then warns, on a line of standard
    /// error naming the input `name`, if the file had other hard links: the durable writer
    /// renames a new file into place, so those links keep the old contents.
    func writeFile<E: Error>(_ destination: String, for name: String, _ write: () throws(E) -> Void)
        throws(ToolFailure)
    {
        let otherLinks = environment.fileSystem.otherHardLinks(ofFile: destination)
        do {
            try write()
        } catch let error as FileSystemError {
            throw ToolFailure(error.message)
        } catch {
            throw ToolFailure("cannot write \(destination): \(error)")
        }
        warnOfHardLinks(otherLinks, destination, for: name)
    }

    /// The warning, naming the input `name`, that the file `destination`, just replaced,
    /// had `otherLinks` other hard links (none: no warning).
    func warnOfHardLinks(_ otherLinks: Int, _ destination: String, for name: String) {
        guard otherLinks > 0 else { return }
        let links =
            otherLinks == 1 ? "1 other hard link, which keeps" : "\(otherLinks) other hard links, which keep"
        environment.writeError(
            "\(name): warning: \(destination) had \(links) the old contents: "
                + "the file was replaced by a new one, not rewritten in place\n")
    }
}
