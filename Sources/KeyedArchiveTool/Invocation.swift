/// What one command line asks the tool to do, after parsing and validation.
///
/// The spelling follows Apple's `plutil`: a command option (`-lint`, `-p`, `-convert FMT`,
/// `-help`) followed by other options and files, in any order, with `--` ending options.
struct Invocation: Equatable {
    /// The action to perform on every file.
    ///
    /// Adding a command is one case here (with its ``spelling``), one spelling in
    /// ``Invocation/parse(_:)`` (an option `case`, or an entry in ``wordCommands``), any
    /// options of its own in the same `switch` and in `validate()`, and one `case` in
    /// ``Tool/perform(_:)``.
    enum Command: Equatable {
        /// Check each file parses as a property list.
        case lint
        /// Print each file in a human-readable form.
        case print
        /// Rewrite each file in another format.
        case convert(ConversionFormat)
        /// Print each keyed archive as an object graph (`decode FILE`).
        case decode
        /// Show the usage text.
        case help

        /// The spelling used on the command line, for messages.
        var spelling: String {
            switch self {
            case .lint: return "-lint"
            case .print: return "-p"
            case .convert: return "-convert"
            case .decode: return "decode"
            case .help: return "-help"
            }
        }
    }

    var command: Command
    /// The files to process, as given; `-` means standard input.
    var files: [String] = []
    /// `-o PATH`: where `-convert` writes its single result; `-` means standard output.
    var outputPath: String?
    /// `-e EXT`: the extension `-convert` gives each result, beside its input.
    var outputExtension: String?
    /// `-r`: indent JSON for people.
    var readableJSON = false
    /// `-s`: print nothing for files that are fine.
    var silent = false
    /// `--json`: `decode` prints JSON instead of indented text.
    var json = false
    /// `--raw`: `decode` shows every object field by field, known classes included.
    var raw = false
}

/// The formats `-convert` writes, spelled as `plutil` spells them.
enum ConversionFormat: String, CaseIterable, Equatable {
    case xml1
    case binary1
    case json
}

/// A command line that cannot be carried out; the tool prints the message with the
/// usage synopsis and exits with ``Tool/ExitStatus/usage``.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    var description: String { message }

    init(_ message: String) { self.message = message }
}

extension Invocation {
    /// Commands spelled as a word (`keyed-archive verb FILE`) rather than as a `plutil`
    /// option. A word counts as a command only in first position; elsewhere it is a file.
    static let wordCommands: [String: Command] = ["decode": .decode]

    /// Parses the arguments that follow the program name.
    ///
    /// With only files and no command, the command is `-lint`, as in `plutil`.
    ///
    /// - Parameter arguments: The command-line arguments without the program name.
    /// - Returns: The validated invocation.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, conflicting
    ///   options, or no files.
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        if arguments.isEmpty { throw UsageError("no command or files given") }
        var command: Command?
        var invocation = Invocation(command: .lint)
        var remaining = arguments[...]
        if let first = remaining.first, let word = wordCommands[first] {
            command = word
            remaining.removeFirst()
        }

        func setCommand(_ new: Command) throws(UsageError) {
            if let command {
                throw UsageError("\(command.spelling) and \(new.spelling) cannot be combined")
            }
            command = new
        }
        func value(after option: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }

        while let argument = remaining.popFirst() {
            if argument == "-" || !argument.hasPrefix("-") {
                invocation.files.append(argument)
                continue
            }
            switch argument {
            case "--":
                invocation.files.append(contentsOf: remaining)
                remaining = []
            case "-lint":
                try setCommand(.lint)
            case "-p":
                try setCommand(.print)
            case "-help", "-h", "--help":
                try setCommand(.help)
            case "-convert":
                let known = ConversionFormat.allCases.map(\.rawValue).joined(separator: ", ")
                guard let name = remaining.popFirst() else {
                    throw UsageError("-convert needs a format (one of: \(known))")
                }
                guard let format = ConversionFormat(rawValue: name) else {
                    throw UsageError("unknown format '\(name)' for -convert (use one of: \(known))")
                }
                try setCommand(.convert(format))
            case "-o":
                if invocation.outputPath != nil { throw UsageError("-o given more than once") }
                invocation.outputPath = try value(after: argument)
            case "-e":
                if invocation.outputExtension != nil { throw UsageError("-e given more than once") }
                invocation.outputExtension = try value(after: argument)
            case "-r":
                invocation.readableJSON = true
            case "-s":
                invocation.silent = true
            case "--json":
                invocation.json = true
            case "--raw":
                invocation.raw = true
            default:
                throw UsageError("unknown option '\(argument)'")
            }
        }

        invocation.command = command ?? .lint
        if invocation.command == .help { return invocation }
        try invocation.validate()
        return invocation
    }

    private mutating func validate() throws(UsageError) {
        var isConvert = false
        if case .convert = command { isConvert = true }
        if !isConvert {
            for (option, given) in [
                ("-o", outputPath != nil), ("-e", outputExtension != nil), ("-r", readableJSON),
            ]
            where given {
                throw UsageError("\(option) is only valid with -convert")
            }
        }
        if json && command != .decode { throw UsageError("--json is only valid with decode") }
        if raw && command != .decode { throw UsageError("--raw is only valid with decode") }
        if files.isEmpty { throw UsageError("no files given") }
        if outputPath != nil && outputExtension != nil { throw UsageError("-o and -e cannot be combined") }
        if outputPath == "" { throw UsageError("-o needs a non-empty path") }
        if outputPath != nil && files.count > 1 {
            throw UsageError("-o takes exactly one input file (\(files.count) given)")
        }
        if var outputExtension {
            if outputExtension.hasPrefix(".") { outputExtension.removeFirst() }
            guard !outputExtension.isEmpty, !outputExtension.contains("/") else {
                throw UsageError("-e needs an extension such as 'xml' or 'plist'")
            }
            self.outputExtension = outputExtension
        }
    }
}
