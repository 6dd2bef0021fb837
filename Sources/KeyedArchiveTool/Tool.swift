import Foundation
import KeyedArchive

/// The `keyed-archive` command-line tool, callable from tests with a fake environment.
///
/// ```swift
/// let status = Tool.run(arguments: ["-lint", "a.plist"], environment: .process)
/// ```
struct Tool {
    /// Exit statuses: `plutil`'s 0 and 1, and `sysexits.h`'s `EX_USAGE` for a bad command line.
    enum ExitStatus {
        static let success: Int32 = 0
        static let failure: Int32 = 1
        static let usage: Int32 = 64
    }

    let environment: ToolEnvironment

    /// Runs one command line.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - environment: The streams and file system to use.
    /// - Returns: The exit status: 0 when every file succeeded, 1 when any failed, 64 for
    ///   a usage error.
    static func run(arguments: [String], environment: ToolEnvironment) -> Int32 {
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
            environment.writeOutput(Data(Usage.text.utf8))
            return ExitStatus.success
        case .lint:
            return forEachFile(invocation) { name, _, report in
                if !invocation.silent {
                    environment.writeOutput(Data("\(name): \(Self.lintVerdict(report))\n".utf8))
                }
            }
        case .print:
            return forEachFile(invocation) { _, value in
                environment.writeOutput(Data(PropertyListPrinter.render(value).utf8))
            }
        case .convert(let format):
            return forEachFile(invocation) { name, value throws(ToolFailure) in
                try convert(value, from: name, to: format, invocation)
            }
        case .decode:
            return forEachFile(invocation) { name, value throws(ToolFailure) in
                try decode(value, from: name, invocation)
            }
        }
    }

    // MARK: - Files

    /// Why one file failed, in words that follow `FILE: ` on standard error.
    struct ToolFailure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// Reads and parses every file, hands each value to `action`, and reports each
    /// failure on one line naming the file. Later files are processed after a failure.
    private func forEachFile(
        _ invocation: Invocation, _ action: (String, PropertyList) throws(ToolFailure) -> Void
    ) -> Int32 {
        forEachFile(invocation) { name, value, _ throws(ToolFailure) in try action(name, value) }
    }

    /// Reads and parses every file as above, handing `action` what each reading passed
    /// over as well (see ``PropertyListReadingReport``).
    private func forEachFile(
        _ invocation: Invocation,
        _ action: (String, PropertyList, PropertyListReadingReport) throws(ToolFailure) -> Void
    ) -> Int32 {
        var status = ExitStatus.success
        for name in invocation.files {
            do throws(ToolFailure) {
                var report = PropertyListReadingReport()
                let value = try readPropertyList(name, report: &report)
                try action(name, value, report)
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

    private func readPropertyList(
        _ name: String, report: inout PropertyListReadingReport
    ) throws(ToolFailure) -> PropertyList {
        let data: Data
        if name == "-" {
            data = environment.readStandardInput()
            if data.isEmpty { throw ToolFailure("standard input is empty") }
        } else {
            do {
                data = try environment.fileSystem.contentsOfFile(atPath: name)
            } catch {
                throw ToolFailure(error.message)
            }
            if data.isEmpty { throw ToolFailure("file is empty") }
        }
        do {
            return try PropertyList(from: data, report: &report)
        } catch let error as KeyedArchiveError {
            throw ToolFailure(error.description)
        } catch {
            throw ToolFailure(String(describing: error))
        }
    }

    // MARK: - Decoding

    /// Prints a keyed archive as an object graph: indented text, or JSON with `--json`.
    /// With several files, each text rendering is preceded by `==> FILE <==`.
    private func decode(_ value: PropertyList, from name: String, _ invocation: Invocation)
        throws(ToolFailure)
    {
        let rendered: Data
        do {
            let graph = try KeyedUnarchiver.objectGraph(from: value)
            if invocation.json {
                rendered = try ArchiveGraphJSON.render(graph)
            } else {
                let header = invocation.files.count > 1 ? "==> \(name) <==\n" : ""
                rendered = Data((header + graph.outline()).utf8)
            }
        } catch let error as KeyedArchiveError {
            throw ToolFailure("not a readable keyed archive: \(error.description)")
        } catch {
            throw ToolFailure("not a readable keyed archive: \(error)")
        }
        environment.writeOutput(rendered)
    }

    // MARK: - Converting

    private func convert(
        _ value: PropertyList, from name: String, to format: ConversionFormat, _ invocation: Invocation
    ) throws(ToolFailure) {
        let encoded: Data
        do {
            switch format {
            case .xml1: encoded = try value.data(format: .xml)
            case .binary1: encoded = try value.data(format: .binary)
            case .json:
                encoded = try value.jsonData(
                    options: PropertyListJSONOptions(prettyPrinted: invocation.readableJSON, sortsKeys: false)
                )
            }
        } catch let error as KeyedArchiveError {
            throw ToolFailure("cannot write as \(format.rawValue): \(error.description)")
        } catch {
            throw ToolFailure("cannot write as \(format.rawValue): \(error)")
        }

        let destination: String
        if let outputPath = invocation.outputPath {
            destination = outputPath
        } else if let outputExtension = invocation.outputExtension {
            guard name != "-" else { throw ToolFailure("-e cannot name a file for standard input; use -o") }
            destination = Self.path(name, replacingExtensionWith: outputExtension)
        } else {
            destination = name
        }
        if destination == "-" {
            environment.writeOutput(encoded)
            return
        }
        do {
            try environment.fileSystem.writeAtomically(encoded, toPath: destination)
        } catch {
            // The message names the file: `cannot write out.plist: Permission denied`.
            throw ToolFailure(error.message)
        }
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
