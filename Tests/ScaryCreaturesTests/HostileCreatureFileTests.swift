import Foundation
import KeyedArchive
import Testing

@testable import scary_creatures

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `Data.plist` as the app's secure version does, but with any rating a file could
/// hold (or none).
final class AnyRatingData: KeyedCoding {
    static var archivedClassName: String { "ScaryCreatures.ScaryCreatureData" }
    let title: String
    let rating: Double?

    init(title: String, rating: Double?) {
        self.title = title
        self.rating = rating
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(title, forKey: "Title")
        if let rating { coder.encodeObject(rating, forKey: "Rating") }
    }

    init(coder: KeyedUnarchiver) throws {
        title = try coder.decodeObject(of: String.self, forKey: "Title") ?? ""
        rating = try coder.decodeObject(of: Double.self, forKey: "Rating")
    }
}

extension TemporaryDatabase {
    /// The folder of creature `number`.
    func folder(_ number: Int) -> URL {
        root.appendingPathComponent("PrivateDocuments/\(number).scarycreature", isDirectory: true)
    }

    /// Replaces creature `number`'s `Data.plist` with an archive of `object`.
    func replaceData(of number: Int, with object: any KeyedCoding) throws {
        let bytes = try KeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        try bytes.write(to: folder(number).appendingPathComponent("Data.plist"))
    }
}

/// The example treats its files as untrusted: what a creature's folder holds can make a
/// command fail with a message, never crash it or make it read without bound.
@Suite struct HostileCreatureFileTests {
    /// `Int(rating.rounded())` trapped on these; now they show as invalid with a warning,
    /// and `rate` repairs the creature.
    @Test(arguments: [
        Double.nan, .infinity, -.infinity, 1e300, -1e300, 0, -3, 5.6, 1e-30,
        Double(Float.greatestFiniteMagnitude) * 2,
    ])
    func anInvalidRatingShowsAsInvalidAndCanBeRepaired(rating: Double) throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Wolf Spider", rating: 5)
        try temporary.replaceData(of: 1, with: AnyRatingData(title: "Wolf Spider", rating: rating))
        let cli = CommandRunner(root: temporary.root)

        #expect(cli.run("list") == 0, "rating \(rating)")
        #expect(cli.printed.contains("\(Stars.invalid)   Wolf Spider"), "rating \(rating): \(cli.printed)")
        #expect(cli.complained.contains("creature 1 has an invalid rating"), "rating \(rating)")
        #expect(cli.complained.contains("scary-creatures rate 1 R"), "rating \(rating)")

        #expect(cli.run("show", "1") == 0, "rating \(rating)")
        #expect(cli.printed.contains("rating:  \(Stars.invalid) (invalid: rating"), "rating \(rating)")
        #expect(cli.printed.contains("is not a number from 1 to 5"), "rating \(rating)")

        #expect(cli.run("rate", "1", "4") == 0, "rating \(rating)")
        #expect(cli.run("list") == 0)
        #expect(cli.printed.contains("★★★★☆   Wolf Spider"))
        #expect(cli.errors.isEmpty, "rating \(rating): \(cli.complained)")
    }

    /// The NSCoding version of the app stored the rating inline, as a float.
    @Test(arguments: [Float.nan, .infinity, -.infinity])
    func anInvalidInlineFloatRatingToo(rating: Float) throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Lady Bug")
        try temporary.replaceData(of: 1, with: LegacyScaryCreatureData(title: "Lady Bug", rating: rating))
        let cli = CommandRunner(root: temporary.root)
        #expect(cli.run("list") == 0)
        #expect(cli.printed.contains("\(Stars.invalid)   Lady Bug"))
        #expect(cli.run("show", "1") == 0)
        #expect(cli.printed.contains("invalid"))
    }

    @Test func aMissingRatingIsInvalid() throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Moth")
        try temporary.replaceData(of: 1, with: AnyRatingData(title: "Moth", rating: nil))
        let doc = try #require(try temporary.database.doc(number: 1))
        #expect(try doc.data().rating == 0)
        #expect(try doc.data().hasValidRating == false)
        #expect(try doc.data().ratingProblem == "rating 0.0 is not a number from 1 to 5")
    }

    static let starCases: [(Float, String)] = [
        (.nan, Stars.invalid), (.infinity, Stars.invalid), (-.infinity, Stars.invalid),
        (.greatestFiniteMagnitude, Stars.invalid), (-.greatestFiniteMagnitude, Stars.invalid),
        (0, Stars.invalid), (0.99, Stars.invalid), (5.01, Stars.invalid),
        (1, "★☆☆☆☆"), (2.5, "★★★☆☆"), (4.49, "★★★★☆"), (5, "★★★★★"),
    ]

    @Test(arguments: starCases)
    func starsAreTotal(rating: Float, expected: String) {
        #expect(Stars.text(rating) == expected, "rating \(rating)")
    }

    /// A `Data.plist` is read only if it is a regular file of at most 1 MiB; a 2 GiB
    /// (sparse) one is refused without being read.
    @Test func anOversizedDataFileIsRefusedUnread() throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Potato Bug")
        try temporary.add("House Centipede")
        let dataFile = temporary.folder(1).appendingPathComponent("Data.plist")
        #expect(truncate(dataFile.path, 1 << 31) == 0)
        let cli = CommandRunner(root: temporary.root)

        #expect(cli.run("show", "1") == 1)
        #expect(
            cli.complained.contains("\(dataFile.path): 2147483648 bytes is more than the limit of 1048576"))
        #expect(cli.run("dump", "1") == 1)
        #expect(cli.complained.contains("more than the limit"))
        #expect(cli.run("list") == 0)
        #expect(cli.printed.contains("House Centipede"))
        #expect(cli.complained.contains("skipped 1.scarycreature"))
    }

    /// `Data(contentsOf:)` would read `/dev/zero` forever and wait on a FIFO for a writer.
    @Test func filesThatAreNotRegularFilesAreNotRead() throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Wolf Spider")
        let folder = temporary.folder(1)
        let thumbnail = folder.appendingPathComponent("thumbImage.png")
        let full = folder.appendingPathComponent("fullImage.png")
        try FileManager.default.removeItem(at: thumbnail)
        try FileManager.default.removeItem(at: full)
        try FileManager.default.createSymbolicLink(atPath: thumbnail.path, withDestinationPath: "/dev/zero")
        #expect(mkfifo(full.path, 0o600) == 0)
        let cli = CommandRunner(root: temporary.root)

        #expect(cli.run("show", "1") == 0)
        #expect(cli.printed.contains("full image: unreadable: cannot read \(full.path): not a regular file"))
        #expect(
            cli.printed.contains("thumbnail: unreadable: cannot read \(thumbnail.path): not a regular file"))

        let dataFile = folder.appendingPathComponent("Data.plist")
        try FileManager.default.removeItem(at: dataFile)
        #expect(mkfifo(dataFile.path, 0o600) == 0)
        #expect(cli.run("show", "1") == 1)
        #expect(cli.complained.contains("not a regular file"))
        #expect(cli.run("add", "Moth", "--rating", "2", "--image", full.path) == 1)
        #expect(cli.complained.contains("cannot read \(full.path): not a regular file"))
    }

    /// `highest + 1` trapped when a folder carried the largest number.
    @Test func aFolderNumberedIntMaxDoesNotCrashAdd() throws {
        let temporary = try TemporaryDatabase()
        let cli = CommandRunner(root: temporary.root)
        #expect(cli.run("list") == 0)
        try FileManager.default.createDirectory(
            at: temporary.folder(Int.max), withIntermediateDirectories: true)
        #expect(cli.run("add", "Giant Weta", "--rating", "4") == 1)
        #expect(cli.complained.contains("no creature number is left after \(Int.max).scarycreature"))
        #expect(cli.run("list") == 0)
    }

    /// A title from a file is printed with its control characters escaped, so it cannot
    /// send escape sequences to the terminal.
    @Test func controlCharactersInTitlesAreEscaped() throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Bug")
        let title = "\u{1B}]0;owned\u{07}Bug\u{1B}[2J"
        try temporary.replaceData(of: 1, with: AnyRatingData(title: title, rating: 3))
        let cli = CommandRunner(root: temporary.root)
        for arguments in [["list"], ["show", "1"], ["rate", "1", "2"], ["delete", "1"]] {
            #expect(cli.run(arguments: arguments) == 0, "\(arguments)")
            #expect(!cli.printed.contains("\u{1B}"), "\(arguments)")
            #expect(cli.printed.contains(#"\u{1B}]0;owned\u{7}Bug\u{1B}[2J"#), "\(arguments): \(cli.printed)")
        }
    }
}
