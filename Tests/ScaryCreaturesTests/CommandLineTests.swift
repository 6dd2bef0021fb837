import Foundation
import KeyedArchive
import Testing

@testable import scary_creatures

/// Runs the command line as a user would, capturing what it prints.
final class CommandRunner {
    let root: URL
    private(set) var output: [String] = []
    private(set) var errors: [String] = []

    init(root: URL) {
        self.root = root
    }

    @discardableResult
    func run(_ arguments: String...) -> Int32 {
        run(arguments: arguments)
    }

    @discardableResult
    func run(arguments: [String]) -> Int32 {
        output = []
        errors = []
        let command = ScaryCreaturesCommand(
            output: { [unowned self] in self.output.append($0) },
            errorOutput: { [unowned self] in self.errors.append($0) },
            environment: ["SCARY_CREATURES_DATABASE": root.path])
        return command.run(arguments)
    }

    var printed: String { output.joined(separator: "\n") }
    var complained: String { errors.joined(separator: "\n") }
}

@Suite struct CommandLineTests {
    @Test func aNewUsersSession() throws {
        let temporary = try TemporaryDatabase()
        let cli = CommandRunner(root: temporary.root)

        // First run: no arguments lists, creating the tutorial's samples.
        #expect(cli.run() == 0)
        #expect(cli.printed.contains("Created the sample creatures"))
        for title in ["Potato Bug", "House Centipede", "Wolf Spider", "Lady Bug"] {
            #expect(cli.printed.contains(title))
        }
        #expect(try temporary.numbers() == [1, 2, 3, 4])

        // A second run does not create them again.
        #expect(cli.run("list") == 0)
        #expect(!cli.printed.contains("Created"))

        #expect(cli.run("add", "Giant Weta", "--rating", "4") == 0)
        #expect(cli.printed.contains("creature 5"))
        #expect(cli.run("rate", "5", "2") == 0)
        #expect(cli.run("rename", "5", "Tree Weta") == 0)
        #expect(cli.run("show", "5") == 0)
        #expect(cli.printed.contains("Tree Weta"))
        #expect(cli.printed.contains("★★☆☆☆"))
        #expect(cli.run("delete", "1") == 0)
        #expect(cli.printed.contains("Deleted Potato Bug"))

        // "Restart": a new process state reads everything back from disk.
        let restarted = CommandRunner(root: temporary.root)
        #expect(restarted.run("list") == 0)
        #expect(!restarted.printed.contains("Potato Bug"))
        #expect(restarted.printed.contains("Tree Weta"))
        #expect(restarted.errors.isEmpty)
    }

    @Test func addsAPictureFromAPNGFile() throws {
        let temporary = try TemporaryDatabase()
        let cli = CommandRunner(root: temporary.root)
        let picture = temporary.root.appendingPathComponent("picture.png")
        let image = RGBAImage(width: 300, height: 150, fill: RGBA(200, 10, 10))
        try Data(PNGEncoder.encode(image)).write(to: picture)

        #expect(cli.run("add", "Red Mite", "--rating", "3", "--image", picture.path) == 0)
        let folder = temporary.root.appendingPathComponent("PrivateDocuments/1.scarycreature")
        let full = try PNGDecoder.decode(
            [UInt8](Data(contentsOf: folder.appendingPathComponent("fullImage.png"))))
        let thumb = try PNGDecoder.decode(
            [UInt8](Data(contentsOf: folder.appendingPathComponent("thumbImage.png"))))
        #expect(full == image)
        #expect(thumb.width == 64 && thumb.height == 32)
        #expect(thumb[10, 10] == RGBA(200, 10, 10))

        let green = temporary.root.appendingPathComponent("green.png")
        try Data(PNGEncoder.encode(RGBAImage(width: 20, height: 20, fill: RGBA(0, 200, 0)))).write(to: green)
        #expect(cli.run("set-image", "1", green.path) == 0)
        let replaced = try PNGDecoder.decode(
            [UInt8](Data(contentsOf: folder.appendingPathComponent("fullImage.png"))))
        #expect(replaced[0, 0] == RGBA(0, 200, 0))
    }

    @Test(arguments: [
        (["show"], Int32(64), "missing arguments"),
        (["show", "x"], 64, "not a creature number"),
        (["show", "99"], 1, "no creature 99"),
        (["rate", "1", "9"], 64, "from 1 to 5"),
        (["rate", "1", "nan"], 64, "from 1 to 5"),
        (["add", "Bug"], 64, "missing --rating"),
        (["add", "--rating", "3"], 64, "missing TITLE"),
        (["add", "Bug", "--rating", "3", "--image", "/nonexistent.png"], 1, "cannot read"),
        (["frobnicate"], 64, "unknown command"),
        (["--format", "json"], 64, "unknown format"),
        (["rename", "1", "  "], 64, "title is empty"),
    ])
    func badInputGetsAClearMessageAndAnErrorStatus(arguments: [String], status: Int32, message: String) throws
    {
        let temporary = try TemporaryDatabase()
        let cli = CommandRunner(root: temporary.root)
        cli.run("list")
        #expect(cli.run(arguments: arguments) == status, "\(arguments)")
        #expect(cli.complained.contains(message), "\(arguments): \(cli.complained)")
    }

    @Test func anImageThatIsNotAPNGIsRefused() throws {
        let temporary = try TemporaryDatabase()
        let cli = CommandRunner(root: temporary.root)
        let bogus = temporary.root.appendingPathComponent("bogus.png")
        try Data("not a png".utf8).write(to: bogus)
        #expect(cli.run("add", "Bug", "--rating", "3", "--image", bogus.path) == 1)
        #expect(cli.complained.contains("not a PNG"))
    }

    @Test func oneUnreadableCreatureIsReportedAndSkipped() throws {
        let temporary = try TemporaryDatabase()
        let cli = CommandRunner(root: temporary.root)
        cli.run()
        let broken = temporary.root.appendingPathComponent("PrivateDocuments/2.scarycreature/Data.plist")
        try Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xFF]).write(to: broken)
        #expect(cli.run("list") == 0)
        #expect(cli.printed.contains("Potato Bug"))
        #expect(cli.printed.contains("Lady Bug"))
        #expect(!cli.printed.contains("House Centipede"))
        #expect(cli.complained.contains("2.scarycreature"))
    }

    @Test func xmlFormatWritesXML() throws {
        let temporary = try TemporaryDatabase()
        let cli = CommandRunner(root: temporary.root)
        #expect(cli.run("--format", "xml", "add", "Moth", "--rating", "2") == 0)
        let bytes = try Data(
            contentsOf: temporary.root.appendingPathComponent("PrivateDocuments/1.scarycreature/Data.plist"))
        #expect(String(decoding: bytes.prefix(5), as: UTF8.self) == "<?xml")
        #expect(cli.run("dump", "1") == 0)
        #expect(cli.printed.contains("ScaryCreatures.ScaryCreatureData"))
        #expect(cli.printed.contains("Moth"))
    }

    @Test func helpForEveryCommand() throws {
        let temporary = try TemporaryDatabase()
        let cli = CommandRunner(root: temporary.root)
        #expect(cli.run("--help") == 0)
        #expect(cli.printed.contains("USAGE: scary-creatures"))
        for command in ["list", "show", "add", "rate", "rename", "set-image", "delete", "dump"] {
            #expect(cli.run("help", command) == 0)
            #expect(cli.printed.contains("USAGE: scary-creatures \(command)"), "\(command)")
            #expect(cli.run(command, "--help") == 0)
            #expect(cli.printed.contains("USAGE: scary-creatures \(command)"), "\(command) --help")
        }
    }
}
