import KeyedArchive

/// What one command line asks the tool to do, after parsing and validation.
///
/// The spelling follows Apple's `plutil`: a command option (`-lint`, `-p`, `-convert FMT`,
/// `-help`) followed by other options and files, in any order, with `--` ending options.
struct Invocation: Equatable {
    /// The action to perform on every file.
    ///
    /// Adding a command is one case here (with its ``spelling``), one spelling in
    /// ``Invocation/parse(_:)`` (an option `case`, or a `case` in ``wordCommand(_:)``), any
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
        /// `textconv FILE…`: text made for line diffs (a git `textconv` driver).
        case textconv
        /// `diff A B`: the differences between two files by key path.
        case diff
        /// `-extract KEYPATH FORMAT`: write the value at the key path as a property list of
        /// its own, or print it (`raw`).
        case extract(PropertyListKeyPath, ExtractFormat)
        /// `-type KEYPATH`: print the type of the value at the key path.
        case type(PropertyListKeyPath)
        /// `-insert KEYPATH -TYPE VALUE`: add a value (`-append` adds it to an array).
        case insert(PropertyListKeyPath, PropertyList)
        /// `-replace KEYPATH -TYPE VALUE`: set a value.
        case replace(PropertyListKeyPath, PropertyList)
        /// `-remove KEYPATH`: remove a value.
        case remove(PropertyListKeyPath)
        /// `-create FORMAT`: write an empty dictionary to each file.
        case create(ConversionFormat)
        /// Summarize each SQLite database: its tables, the columns holding archives, counts
        /// by format and top-level class (`sqlite DB`).
        case sqlite

        /// The spelling used on the command line, for messages.
        var spelling: String {
            switch self {
            case .lint: return "-lint"
            case .print: return "-p"
            case .convert: return "-convert"
            case .decode: return "decode"
            case .help: return "-help"
            case .textconv: return "textconv"
            case .diff: return "diff"
            case .extract: return "-extract"
            case .type: return "-type"
            case .insert: return "-insert"
            case .replace: return "-replace"
            case .remove: return "-remove"
            case .create: return "-create"
            case .sqlite: return "sqlite"
            }
        }

        /// Whether the command rewrites its files (or writes to `-o`).
        var edits: Bool {
            switch self {
            case .insert, .replace, .remove: return true
            default: return false
            }
        }

        /// Whether the command may write files, the files it read among them: these take a
        /// lock on each input (``FileEditLock``).
        var writesFiles: Bool {
            switch self {
            case .insert, .replace, .remove, .convert, .extract, .create: return true
            case .lint, .print, .decode, .help, .type, .textconv, .diff, .sqlite: return false
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
    /// `--json`: `decode` and `sqlite` print JSON instead of indented text.
    var json = false
    /// `-expect TYPE`: with `-extract` and `-type`, fail unless the value has this type.
    var expectedType: PropertyListTypeName?
    /// `-n`: with `-extract … raw`, no newline after the value.
    var omitsFinalNewline = false
    /// `-append`: with `-insert`, add the value at the end of the array the key path names.
    var appends = false
    /// `--path KEYPATH`: with `decode`, show only the value at this key path of the object
    /// graph (references followed).
    var graphPath: PropertyListKeyPath?
    /// `--resolve`: with `-extract` and `-type`, read the file as a keyed archive and follow the key
    /// path through its object graph.
    var resolvesArchive = false
    /// `--shared`: with `-insert`, `-replace` and `-remove`, edit a shared object itself
    /// (every reference sees the change) instead of copying it on write.
    var editsSharedObjects = false
    /// `--recover`: with `decode`, read damaged archives as far as possible and report each
    /// problem (``KeyedUnarchivingOptions/recoversFromDamage``).
    var recovers = false
    /// `--expand`: with `decode`, decode archives found inside data values in place.
    var expands = false
    /// `--jsonl`: with `decode`, one JSON line per file (folders searched), for sweeping
    /// a file-system extract.
    var jsonLines = false
    /// `--raw`: `decode` shows every object field by field, known classes included.
    var raw = false
    /// `--columns a,b`: with `decode --jsonl` of an SQLite database, these columns of each
    /// BLOB's row are added to its line.
    var columns: [String] = []
    /// `-header`: with `-convert objc`, also write a header declaring the constant beside
    /// the source (`.h` for `.m`), as `plutil` does; not for standard output.
    var writesHeader = false
    /// With `-help`: the verb whose help is asked for (`decode --help`), or `nil` for the
    /// whole usage.
    var helpTopic: String?
}

/// The type names of `-type` and `-expect`, as `plutil` spells them.
enum PropertyListTypeName: String, CaseIterable, Equatable {
    case bool, integer, float, string, date, data, dictionary, array
    /// Not a `plutil` type: a keyed archive's `CF$UID` reference.
    case uid

    init(of value: PropertyList) {
        switch value {
        case .bool: self = .bool
        case .integer: self = .integer
        case .real: self = .float
        case .string: self = .string
        case .date: self = .date
        case .data: self = .data
        case .dictionary: self = .dictionary
        case .array: self = .array
        case .uid: self = .uid
        }
    }
}

/// The formats of `-extract`: a property list format, or `raw` (the value itself, printed).
enum ExtractFormat: String, CaseIterable, Equatable {
    case xml1
    case binary1
    case json
    case raw
}

/// The formats `-convert` writes, spelled as `plutil` spells them.
enum ConversionFormat: String, CaseIterable, Equatable {
    case xml1
    case binary1
    case json
    /// Swift literal source (`let name : [String : Any] = [...]`), written beside the input
    /// as `.swift` unless `-o` or `-e` is given.
    case swift
    /// Objective-C literal source (`NSDictionary * const name = @{...};`), written beside
    /// the input as `.m` unless `-o` or `-e` is given.
    case objc
    /// A keyed archive (`NSKeyedArchiver`, binary) of a typedstream (`NSArchiver`), each class
    /// in Apple's keyed layout (`TypedStreamConversion`); a keyed archive is rewritten as binary.
    case keyed
    /// A typedstream (`NSArchiver`) of a keyed archive, for the classes `TypedStreamArchiver`
    /// writes; a typedstream is written unchanged.
    case typedstream

    /// The property-list formats, which `-create` also writes.
    static let propertyListFormats: [ConversionFormat] = [.xml1, .binary1, .json]

    /// Whether the format is an archive format, converted between typedstreams and keyed
    /// archives rather than written from the property list.
    var isArchiveFormat: Bool { self == .keyed || self == .typedstream }

    /// The extension a literal source gets beside its input.
    var sourceExtension: String? {
        switch self {
        case .swift: return "swift"
        case .objc: return "m"
        default: return nil
        }
    }
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
    ///
    /// A `switch`, not a dictionary: a dictionary's first use costs the process more start-up
    /// time (its generic metadata and conformances looked up) than all the parsing.
    static func wordCommand(_ word: String) -> Command? {
        switch word {
        case "decode": return .decode
        case "help": return .help
        case "textconv": return .textconv
        case "diff": return .diff
        case "sqlite": return .sqlite
        default: return nil
        }
    }

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
        if let first = remaining.first, let word = wordCommand(first) {
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
                // `decode --help`: the help of the verb given first.
                if let given = command, given != .help, given.spelling == arguments.first {
                    invocation.helpTopic = given.spelling
                    command = .help
                } else {
                    try setCommand(.help)
                }
            case "-convert":
                let known = ConversionFormat.allCases.map(\.rawValue).joined(separator: ", ")
                guard let name = remaining.popFirst() else {
                    throw UsageError("-convert needs a format (one of: \(known))")
                }
                guard let format = ConversionFormat(rawValue: name) else {
                    throw UsageError("unknown format '\(name)' for -convert (use one of: \(known))")
                }
                try setCommand(.convert(format))
            case "-extract":
                let keyPath = try value(after: argument)
                let known = ExtractFormat.allCases.map(\.rawValue).joined(separator: ", ")
                guard let name = remaining.popFirst() else {
                    throw UsageError("-extract needs a key path and a format (one of: \(known))")
                }
                guard let format = ExtractFormat(rawValue: name) else {
                    throw UsageError("unknown format '\(name)' for -extract (use one of: \(known))")
                }
                try setCommand(.extract(PropertyListKeyPath(keyPath), format))
            case "-type":
                try setCommand(.type(PropertyListKeyPath(try value(after: argument))))
            case "-insert", "-replace":
                let keyPath = PropertyListKeyPath(try value(after: argument))
                let known = EditValueType.allCases.map { "-" + $0.rawValue }.joined(separator: " ")
                guard let typeOption = remaining.popFirst() else {
                    throw UsageError("\(argument) needs a key path and a type (one of: \(known))")
                }
                guard typeOption.hasPrefix("-"),
                    let type = EditValueType(rawValue: String(typeOption.dropFirst()))
                else {
                    throw UsageError("unknown type '\(typeOption)' for \(argument) (use one of: \(known))")
                }
                let text = type.takesValue ? try value(after: typeOption) : nil
                let newValue = try type.value(from: text)
                try setCommand(
                    argument == "-insert" ? .insert(keyPath, newValue) : .replace(keyPath, newValue))
            case "-remove":
                try setCommand(.remove(PropertyListKeyPath(try value(after: argument))))
            case "-create":
                let formats = ConversionFormat.propertyListFormats
                let known = formats.map(\.rawValue).joined(separator: ", ")
                guard let name = remaining.popFirst() else {
                    throw UsageError("-create needs a format (one of: \(known))")
                }
                guard let format = ConversionFormat(rawValue: name), formats.contains(format) else {
                    throw UsageError("unknown format '\(name)' for -create (use one of: \(known))")
                }
                try setCommand(.create(format))
            case "-expect":
                let name = try value(after: argument)
                guard let type = PropertyListTypeName(rawValue: name) else {
                    let known = PropertyListTypeName.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError("-expect type '\(name)' is not one of: \(known)")
                }
                invocation.expectedType = type
            case "-n":
                invocation.omitsFinalNewline = true
            case "--path":
                if invocation.graphPath != nil { throw UsageError("--path given more than once") }
                invocation.graphPath = PropertyListKeyPath(try value(after: argument))
            case "--resolve":
                invocation.resolvesArchive = true
            case "--shared":
                invocation.editsSharedObjects = true
            case "--recover":
                invocation.recovers = true
            case "--expand":
                invocation.expands = true
            case "--jsonl":
                invocation.jsonLines = true
            case "--columns":
                invocation.columns += try value(after: argument).split(separator: ",").map {
                    String($0.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
                }
            case "-append":
                invocation.appends = true
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
            case "-header":
                invocation.writesHeader = true
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
        var isExtract = false
        var isRaw = false
        var isType = false
        var isInsert = false
        switch command {
        case .convert: isConvert = true
        case .extract(_, let format):
            isExtract = true
            isRaw = format == .raw
        case .type: isType = true
        case .insert: isInsert = true
        default: break
        }
        let writesFiles = isConvert || isExtract || command.edits
        for (option, given, allowed, commands) in [
            ("-o", outputPath != nil, writesFiles, "-convert, -extract, -insert, -replace and -remove"),
            ("-e", outputExtension != nil, isConvert, "-convert"),
            ("-r", readableJSON, isConvert || isExtract, "-convert and -extract"),
        ]
        where given && !allowed {
            throw UsageError("\(option) is only valid with \(commands)")
        }
        if expectedType != nil && !(isExtract || isType) {
            throw UsageError("-expect is only valid with -extract and -type")
        }
        if omitsFinalNewline && !isRaw { throw UsageError("-n is only valid with -extract KEYPATH raw") }
        if appends && !isInsert { throw UsageError("-append is only valid with -insert") }
        if graphPath != nil && command != .decode { throw UsageError("--path is only valid with decode") }
        if resolvesArchive && !(isExtract || isType || command.edits) {
            throw UsageError("--resolve is only valid with -extract, -type, -insert, -replace and -remove")
        }
        if editsSharedObjects && !command.edits {
            throw UsageError("--shared is only valid with -insert, -replace and -remove")
        }
        if json && command != .decode && command != .diff && command != .sqlite {
            throw UsageError("--json is only valid with decode, diff and sqlite")
        }
        for (option, given) in [("--recover", recovers), ("--expand", expands), ("--jsonl", jsonLines)]
        where given && command != .decode {
            throw UsageError("\(option) is only valid with decode")
        }
        if jsonLines && (json || graphPath != nil) {
            throw UsageError("--jsonl cannot be combined with --json or --path")
        }
        if raw && command != .decode { throw UsageError("--raw is only valid with decode") }
        if !columns.isEmpty && !jsonLines { throw UsageError("--columns is only valid with decode --jsonl") }
        if writesHeader && command != .convert(.objc) {
            throw UsageError("-header is only valid with -convert objc")
        }
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
