import Foundation
import KeyedArchive

/// The `scary-creatures` command line: parses arguments and runs one command against a
/// database. Output goes through the two closures so tests can capture it.
struct ScaryCreaturesCommand {
    var output: (String) -> Void
    var errorOutput: (String) -> Void
    var environment: [String: String]

    static let usage = """
        scary-creatures: the Scary Creatures database from the NSCoding tutorial, on the command line.

        USAGE: scary-creatures [--database DIR] [--format binary|xml] [COMMAND [ARGUMENTS]]

        COMMANDS:
          list                          List the creatures (the default command). On the first
                                        run, creates the tutorial's four sample creatures.
          show N                        Show creature N: title, rating, files and a preview.
          add TITLE --rating R [--image PNG]
                                        Add a creature rated R (1 to 5), with a picture from a PNG
                                        file or a generated one.
          rate N R                      Change creature N's rating to R (1 to 5).
          rename N TITLE                Change creature N's title.
          set-image N PNG               Replace creature N's picture and thumbnail.
          delete N                      Delete creature N and its folder.
          dump N                        Print creature N's Data.plist as an archived object graph.
          help [COMMAND]                Show this help, or one command's.

        OPTIONS:
          --database DIR                The folder holding PrivateDocuments. Default: the
                                        SCARY_CREATURES_DATABASE environment variable, else
                                        $XDG_DATA_HOME/ScaryCreatures (~/.local/share/ScaryCreatures).
          --format binary|xml           How Data.plist is written when saving (default binary).
          -h, --help                    Show help.

        N is the creature's number, the N of its folder PrivateDocuments/N.scarycreature.
        """

    static let commandHelp: [String: String] = [
        "list":
            "USAGE: scary-creatures list\n\nLists every creature with its number and rating. A creature whose "
            + "Data.plist cannot be read is reported on standard error and skipped; one whose rating is not "
            + "from 1 to 5 shows ????? and a warning.",
        "show":
            "USAGE: scary-creatures show N\n\nShows creature N: title, rating, folder, image sizes, and a small "
            + "text preview of its thumbnail.",
        "add":
            "USAGE: scary-creatures add TITLE --rating R [--image PNG]\n\nAdds a creature in the next free "
            + "folder. R is a number from 1 to 5. With --image, the PNG becomes the full image and a thumbnail "
            + "is made from it; without, a picture is generated from the title.",
        "rate": "USAGE: scary-creatures rate N R\n\nSets creature N's rating to R, a number from 1 to 5.",
        "rename": "USAGE: scary-creatures rename N TITLE\n\nSets creature N's title.",
        "set-image":
            "USAGE: scary-creatures set-image N PNG\n\nReplaces creature N's full image with the PNG "
            + "file and makes a new thumbnail from it.",
        "delete": "USAGE: scary-creatures delete N\n\nDeletes creature N's folder and everything in it.",
        "dump":
            "USAGE: scary-creatures dump N\n\nPrints creature N's Data.plist as an archived object graph: "
            + "class names, fields, and references resolved.",
        "help": "USAGE: scary-creatures help [COMMAND]",
    ]

    /// Exit statuses, as `sysexits.h` names them.
    enum Status {
        static let success: Int32 = 0
        static let failure: Int32 = 1
        static let usage: Int32 = 64
    }

    struct UsageError: Error {
        let message: String
        let command: String?
    }

    /// Runs the command line and returns the process's exit status.
    func run(_ arguments: [String]) -> Int32 {
        do {
            var remaining: [String] = []
            var databasePath: String?
            var format = PropertyListFormat.binary
            var wantsHelp = false
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                switch argument {
                case "--database":
                    guard index + 1 < arguments.count else {
                        throw UsageError(message: "--database needs a folder", command: nil)
                    }
                    databasePath = arguments[index + 1]
                    index += 1
                case "--format":
                    guard index + 1 < arguments.count else {
                        throw UsageError(message: "--format needs binary or xml", command: nil)
                    }
                    switch arguments[index + 1] {
                    case "binary": format = .binary
                    case "xml": format = .xml
                    default:
                        throw UsageError(
                            message: "unknown format '\(arguments[index + 1])'; use binary or xml",
                            command: nil)
                    }
                    index += 1
                case "-h", "--help":
                    wantsHelp = true
                default:
                    remaining.append(argument)
                }
                index += 1
            }
            let command = remaining.first ?? "list"
            let commandArguments = Array(remaining.dropFirst())
            if wantsHelp || command == "help" {
                let topic = command == "help" ? commandArguments.first : (remaining.isEmpty ? nil : command)
                if let topic {
                    guard let text = Self.commandHelp[topic] else {
                        throw UsageError(message: "no command '\(topic)'", command: nil)
                    }
                    output(text)
                } else {
                    output(Self.usage)
                }
                return Status.success
            }
            let root =
                databasePath.map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? ScaryCreatureDatabase.defaultRoot(environment: environment)
            let database = ScaryCreatureDatabase(root: root)
            var session = Session(
                database: database, format: format, output: output, errorOutput: errorOutput)
            try session.perform(command, commandArguments)
            return Status.success
        } catch let error as UsageError {
            errorOutput("scary-creatures: \(error.message)")
            if let command = error.command, let help = Self.commandHelp[command] {
                errorOutput(help)
            } else {
                errorOutput("Run 'scary-creatures help' for usage.")
            }
            return Status.usage
        } catch {
            errorOutput("scary-creatures: \(error)")
            return Status.failure
        }
    }
}

/// One command run against one database.
struct Session {
    let database: ScaryCreatureDatabase
    let format: PropertyListFormat
    let output: (String) -> Void
    let errorOutput: (String) -> Void

    mutating func perform(_ command: String, _ arguments: [String]) throws {
        switch command {
        case "list":
            try expect(arguments, count: 0, command)
            try list()
        case "show":
            try expect(arguments, count: 1, command)
            try show(try doc(arguments[0], command))
        case "add":
            try add(arguments)
        case "rate":
            try expect(arguments, count: 2, command)
            let doc = try doc(arguments[0], command)
            let rating = try parseRating(arguments[1], command)
            try doc.data().rating = rating
            try save(doc, images: false)
            output("Rated \(Terminal.safe(try doc.data().title)) \(Stars.text(rating)).")
        case "rename":
            try expect(arguments, count: 2, command)
            let doc = try doc(arguments[0], command)
            let title = try parseTitle(arguments[1], command)
            let old = try doc.data().title
            try doc.data().title = title
            try save(doc, images: false)
            output("Renamed \(Terminal.safe(old)) to \(Terminal.safe(title)).")
        case "set-image":
            try expect(arguments, count: 2, command)
            let doc = try doc(arguments[0], command)
            doc.setFullImage(try readImage(arguments[1]))
            try save(doc, images: true)
            output("Updated the picture of \(Terminal.safe(try doc.data().title)).")
        case "delete":
            try expect(arguments, count: 1, command)
            let doc = try doc(arguments[0], command)
            let title = (try? doc.data().title) ?? "creature \(arguments[0])"
            try doc.deleteDoc()
            output("Deleted \(Terminal.safe(title)).")
        case "dump":
            try expect(arguments, count: 1, command)
            try dump(try doc(arguments[0], command))
        default:
            throw ScaryCreaturesCommand.UsageError(message: "unknown command '\(command)'", command: nil)
        }
    }

    private func expect(_ arguments: [String], count: Int, _ command: String) throws {
        guard arguments.count == count else {
            let what =
                arguments.count < count ? "missing arguments" : "unexpected argument '\(arguments[count])'"
            throw ScaryCreaturesCommand.UsageError(message: "\(command): \(what)", command: command)
        }
    }

    private func doc(_ text: String, _ command: String) throws -> ScaryCreatureDoc {
        guard let number = Int(text), number > 0 else {
            throw ScaryCreaturesCommand.UsageError(
                message: "\(command): '\(text)' is not a creature number", command: command)
        }
        guard let doc = try database.doc(number: number) else {
            throw ScaryCreatureError("there is no creature \(number); run 'scary-creatures list' to see them")
        }
        doc.format = format
        return doc
    }

    private func parseRating(_ text: String, _ command: String) throws -> Float {
        guard let rating = Float(text), rating.isFinite, ScaryCreatureData.validRatings.contains(rating)
        else {
            throw ScaryCreaturesCommand.UsageError(
                message: "\(command): rating '\(text)' must be a number from 1 to 5", command: command)
        }
        return rating
    }

    private func parseTitle(_ text: String, _ command: String) throws -> String {
        let title = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else {
            throw ScaryCreaturesCommand.UsageError(
                message: "\(command): the title is empty", command: command)
        }
        return title
    }

    private func readImage(_ path: String) throws -> RGBAImage {
        guard
            let bytes = try BoundedFile.contents(
                of: URL(fileURLWithPath: path), limit: PNGDecoder.maximumFileBytes)
        else { throw ScaryCreatureError("cannot read \(path): no such file") }
        do {
            return try PNGDecoder.decode([UInt8](bytes))
        } catch let error as PNGError {
            throw ScaryCreatureError("\(path): \(error.description)")
        }
    }

    private func save(_ doc: ScaryCreatureDoc, images: Bool) throws {
        try doc.saveData(in: database)
        if images { try doc.saveImages(in: database) }
    }

    // MARK: Commands

    private func list() throws {
        let firstRun = !FileManager.default.fileExists(
            atPath: database.root.appendingPathComponent("PrivateDocuments").path)
        if firstRun {
            for sample in ScaryCreatureDatabase.samples {
                let doc = ScaryCreatureDoc(
                    title: sample.title, rating: sample.rating,
                    fullImage: CreatureArt.image(for: sample.title))
                doc.format = format
                try save(doc, images: true)
            }
            output("Created the sample creatures in \(try database.privateDocumentsDirectory().path)")
        }
        let docs = try database.loadScaryCreatureDocs()
        if docs.isEmpty {
            output("No creatures yet. Add one with: scary-creatures add \"Wolf Spider\" --rating 5")
            return
        }
        output("  #  Rating  Title")
        for doc in docs {
            do {
                let data = try doc.data()
                let number = String(doc.number ?? 0)
                output(
                    String(repeating: " ", count: max(0, 3 - number.count)) + number + "  "
                        + Stars.text(data.rating) + "   " + Terminal.safe(data.title))
                if let problem = data.ratingProblem {
                    errorOutput(
                        "warning: creature \(number) has an invalid \(problem); "
                            + "set it with 'scary-creatures rate \(number) R'")
                }
            } catch {
                errorOutput("warning: skipped \(doc.docPath?.lastPathComponent ?? "a creature"): \(error)")
            }
        }
    }

    private func show(_ doc: ScaryCreatureDoc) throws {
        let data = try doc.data()
        output(Terminal.safe(data.title))
        if let problem = data.ratingProblem {
            let number = doc.number.map(String.init) ?? "N"
            output(
                "  rating:  \(Stars.text(data.rating)) (invalid: \(problem); "
                    + "set it with 'scary-creatures rate \(number) R')")
        } else {
            output("  rating:  \(Stars.text(data.rating)) (\(data.rating))")
        }
        output("  folder:  \(doc.docPath?.path ?? "-")")
        var preview: RGBAImage?
        for (name, read) in [("full image", doc.fullImagePNG), ("thumbnail", doc.thumbImagePNG)] {
            let bytes: [UInt8]
            do {
                guard let found = try read() else {
                    output("  \(name): none")
                    continue
                }
                bytes = found
            } catch {
                output("  \(name): unreadable: \(error)")
                continue
            }
            do {
                let image = try PNGDecoder.decode(bytes)
                output("  \(name): \(image.width)×\(image.height), \(bytes.count) bytes")
                if name == "thumbnail" { preview = image }
            } catch {
                output("  \(name): unreadable PNG, \(bytes.count) bytes: \(error)")
            }
        }
        if let preview { output(TextPreview.render(preview, columns: 32)) }
    }

    private func add(_ arguments: [String]) throws {
        var title: String?
        var rating: Float?
        var imagePath: String?
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--rating", "--image":
                guard index + 1 < arguments.count else {
                    throw ScaryCreaturesCommand.UsageError(
                        message: "add: \(arguments[index]) needs a value", command: "add")
                }
                if arguments[index] == "--rating" {
                    rating = try parseRating(arguments[index + 1], "add")
                } else {
                    imagePath = arguments[index + 1]
                }
                index += 2
            default:
                guard title == nil else {
                    throw ScaryCreaturesCommand.UsageError(
                        message: "add: unexpected argument '\(arguments[index])'", command: "add")
                }
                title = try parseTitle(arguments[index], "add")
                index += 1
            }
        }
        guard let title else {
            throw ScaryCreaturesCommand.UsageError(message: "add: missing TITLE", command: "add")
        }
        guard let rating else {
            throw ScaryCreaturesCommand.UsageError(message: "add: missing --rating R", command: "add")
        }
        let image = try imagePath.map(readImage) ?? CreatureArt.image(for: title)
        let doc = ScaryCreatureDoc(title: title, rating: rating, fullImage: image)
        doc.format = format
        try save(doc, images: true)
        output("Added \(title) as creature \(doc.number ?? 0).")
    }

    private func dump(_ doc: ScaryCreatureDoc) throws {
        guard let url = doc.docPath?.appendingPathComponent(ScaryCreatureDoc.Files.data) else { return }
        guard let bytes = try BoundedFile.contents(of: url, limit: ScaryCreatureDoc.maximumDataFileBytes)
        else {
            throw ScaryCreatureError("cannot read \(url.path): no such file")
        }
        output(try ArchiveDump.render(bytes))
    }
}

/// A rating as five stars.
enum Stars {
    /// What an invalid rating shows instead of stars.
    static let invalid = "?????"

    /// `★★★☆☆` for 3, rounded to whole stars; ``invalid`` for a rating the app could not
    /// have given (outside 1 to 5, infinite or NaN), which a file can hold.
    static func text(_ rating: Float) -> String {
        // Checked before converting: Int(_:) traps on NaN, infinities and huge values.
        guard rating.isFinite, ScaryCreatureData.validRatings.contains(rating) else { return invalid }
        let filled = Int(rating.rounded())
        return String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled)
    }
}

/// Text from a file, made safe to print: a title read from `Data.plist` could otherwise
/// carry escape sequences that rewrite the terminal's screen or title.
enum Terminal {
    /// `text` with every control character written as an escape such as `\u{1B}`.
    static func safe(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// An image as text, darker pixels as denser characters, two rows of pixels per line
/// (terminal cells are about twice as tall as wide).
enum TextPreview {
    static func render(_ image: RGBAImage, columns: Int) -> String {
        let ramp = Array(" .:-=+*#%@")
        let scaled = image.scaled(toFit: columns)
        var lines: [String] = []
        var y = 0
        while y < scaled.height {
            var line = "  "
            for x in 0..<scaled.width {
                var luminance = 0.0
                var rows = 0.0
                for row in y..<min(y + 2, scaled.height) {
                    let pixel = scaled[x, row]
                    let alpha = Double(pixel.alpha) / 255
                    let value =
                        (0.299 * Double(pixel.red) + 0.587 * Double(pixel.green) + 0.114 * Double(pixel.blue))
                    luminance += (value * alpha + 255 * (1 - alpha)) / 255
                    rows += 1
                }
                let darkness = 1 - luminance / rows
                line.append(ramp[max(0, min(ramp.count - 1, Int(darkness * Double(ramp.count))))])
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}
