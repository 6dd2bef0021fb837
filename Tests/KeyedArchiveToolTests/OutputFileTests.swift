import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `-convert` writes files: through the library's `DurableFileWriter` (flushed, renamed into
/// place, the folder flushed), with the modes `open(2)` users expect and `DurableFileWriter`'s
/// symbolic link policy.
@Suite struct OutputFileTests {
    /// The built `keyed-archive` binary beside the test bundle, if it was built.
    static var executable: URL? {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [
            folder, folder.deletingLastPathComponent(),
            folder.deletingLastPathComponent().deletingLastPathComponent(),
        ] {
            let url = candidate.appendingPathComponent("keyed-archive")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// The permission bits of `path` itself, set-ID and sticky bits included.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Runs the real tool in a shell that first sets `umask` (process-wide, so it is not
    /// changed in this process, where tests run in parallel).
    static func runTool(_ arguments: [String], umask: mode_t) throws -> (status: Int32, error: String) {
        let executable = try #require(Self.executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments =
            ["-c", #"umask "$1" && shift && exec "$@""#, "sh", String(umask, radix: 8), executable.path]
            + arguments
        let pipe = Pipe()
        process.standardError = pipe
        try process.run()
        let error = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: error, as: UTF8.self))
    }

    /// New files written by `-o` and `-e` get 0666 less the umask; a file converted in
    /// place keeps its mode whatever the umask.
    @Test(.enabled(if: executable != nil, "keyed-archive was not built"))
    func newFilesHonourTheUmask() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(Samples.xmlText, to: "in.plist")
        #expect(chmod(input, 0o644) == 0)

        let toPath = try Self.runTool(
            ["-convert", "binary1", "-o", directory.path("out.bplist"), input], umask: 0o077)
        #expect(toPath.status == 0, "\(toPath.error)")
        #expect(Self.mode(directory.path("out.bplist")) == 0o600)

        let beside = try Self.runTool(["-convert", "json", "-e", "json", input], umask: 0o027)
        #expect(beside.status == 0, "\(beside.error)")
        #expect(Self.mode(directory.path("in.json")) == 0o640)

        let inPlace = try Self.runTool(["-convert", "binary1", input], umask: 0o077)
        #expect(inPlace.status == 0, "\(inPlace.error)")
        #expect(Self.mode(input) == 0o644)
        #expect(PropertyListFormat.detect(try directory.read("in.plist")) == .binary)
        #expect(try directory.contents() == ["in.json", "in.plist", "out.bplist"])
    }

    @Test(arguments: [(mode_t(0o4755), mode_t(0o755)), (0o2775, 0o775), (0o1644, 0o644)])
    func inPlaceConversionDropsSetIDAndStickyBits(original: mode_t, expected: mode_t) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        #expect(chmod(path, original) == 0)
        try #require(Self.mode(path) == original, "the file system did not keep the set-ID bits")
        let run = ToolRun(["-convert", "binary1", path])
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.mode(path) == expected)
    }

    /// A link into another folder: the target is replaced in its own folder, the link is
    /// kept, and neither folder is left with a temporary file.
    @Test func aLinkIntoAnotherFolderIsKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for name in ["links", "targets"] {
            try FileManager.default.createDirectory(
                atPath: directory.path(name), withIntermediateDirectories: true)
        }
        let target = try directory.write(Samples.xmlText, to: "targets/real.plist")
        #expect(chmod(target, 0o600) == 0)
        let link = directory.path("links/link.plist")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../targets/real.plist")
        let outputTarget = try directory.write(Data(), to: "targets/out.plist")
        let outputLink = directory.path("links/out.plist")
        try FileManager.default.createSymbolicLink(atPath: outputLink, withDestinationPath: outputTarget)

        let inPlace = ToolRun(["-convert", "binary1", link])
        #expect(inPlace.status == 0, "\(inPlace.error)")
        let toLink = ToolRun(["-convert", "xml1", "-o", outputLink, link])
        #expect(toLink.status == 0, "\(toLink.error)")

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../targets/real.plist")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: outputLink) == outputTarget)
        #expect(PropertyListFormat.detect(try directory.read("targets/real.plist")) == .binary)
        #expect(Self.mode(target) == 0o600)
        #expect(try PropertyList(from: directory.read("targets/out.plist")) == Samples.xmlValue)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path("links")).sorted() == [
                "link.plist", "out.plist",
            ])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path("targets")).sorted() == [
                "out.plist", "real.plist",
            ])
    }

    @Test func aDanglingLinkIsReportedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(Samples.xmlText, to: "in.plist")
        let link = directory.path("dangling.plist")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "nowhere.plist")
        let run = ToolRun(["-convert", "binary1", "-o", link, input])
        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "\(input): cannot write \(link): cannot resolve the symbolic link: No such file or directory"
            ])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "nowhere.plist")
        #expect(try directory.contents() == ["dangling.plist", "in.plist"])
    }

    /// A relative destination is named as it was given.
    @Test func messagesNameTheFileAsGiven() throws {
        let run = ToolRun(
            ["-convert", "binary1", "-o", "no-such-folder-\(UUID().uuidString)/out.plist", "-"],
            standardInput: Data(Samples.xmlText.utf8))
        #expect(run.status == 1)
        #expect(run.errorLines.count == 1)
        #expect(run.error.hasPrefix("-: cannot write no-such-folder-"), "\(run.error)")
        #expect(run.error.hasSuffix("/out.plist: No such file or directory\n"), "\(run.error)")
    }

    // MARK: - What an edit keeps of the file it replaces

    /// An edit keeps the file's permission bits, whatever the umask.
    @Test func anEditKeepsThePermissionBits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        #expect(chmod(path, 0o640) == 0)
        let run = ToolRun(["-insert", "Moths", "-integer", "4", path])
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.mode(path) == 0o640)
    }

    /// As root, an edit keeps the owner and group of another user's file (a user cannot give
    /// a file away, so the test needs root).
    @Test(
        .enabled(if: geteuid() == 0, "not running as root: a file can only be given to another user by root"))
    func anEditKeepsTheOwnerAndGroup() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        #expect(chown(path, 12_345, 23_456) == 0)
        #expect(chmod(path, 0o604) == 0)
        for command in [
            ["-insert", "Moths", "-integer", "4"], ["-convert", "binary1"], ["-remove", "Moths"],
        ] {
            let run = ToolRun(command + [path])
            #expect(run.status == 0, "\(command): \(run.error)")
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_uid == 12_345, "\(command)")
            #expect(info.st_gid == 23_456, "\(command)")
            #expect(info.st_mode & 0o7777 == 0o604, "\(command)")
        }
        #expect(PropertyListFormat.detect(try directory.read("a.plist")) == .binary)
        #expect(try directory.contents() == ["a.plist"])
    }

    /// Whether this file system keeps `user.*` extended attributes (tmpfs before Linux 6.6
    /// and some containers' overlays do not).
    static let keepsUserAttributes: Bool = {
        guard let directory = try? TemporaryDirectory() else { return false }
        defer { directory.remove() }
        guard let path = try? directory.write("probe", to: "probe") else { return false }
        return ExtendedAttribute.set(path, "user.keyed-archive.probe", Array("1".utf8))
    }()

    /// An edit, and a conversion in place, keep the file's extended attributes.
    @Test(.enabled(if: keepsUserAttributes, "this file system refuses user.* extended attributes"))
    func anEditKeepsExtendedAttributes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        let attributes: [(String, [UInt8])] = [
            ("user.keyed-archive.origin", Array("https://example.com/a.plist".utf8)),
            ("user.keyed-archive.empty", []),
            ("user.keyed-archive.binary", [0, 1, 2, 0xFF, 0]),
        ]
        for (name, value) in attributes { #expect(ExtendedAttribute.set(path, name, value), "\(name)") }
        for command in [
            ["-insert", "Moths", "-integer", "4"], ["-convert", "binary1"],
            ["-replace", "Moths", "-bool", "NO"],
        ] {
            let run = ToolRun(command + [path])
            #expect(run.status == 0, "\(command): \(run.error)")
            for (name, value) in attributes {
                #expect(ExtendedAttribute.get(path, name) == value, "\(command): \(name)")
            }
        }
        #expect(try PropertyList(from: directory.read("a.plist"))["Moths"] == false)
    }

    /// An edit of a file with other hard links is done, with a warning: the links keep the
    /// old contents, since the file is replaced by a new one.
    @Test func anEditWarnsOfOtherHardLinks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        let unlinked = ToolRun(["-insert", "Moths", "-integer", "4", path])
        #expect(unlinked.status == 0)
        #expect(unlinked.error.isEmpty, "no links, no warning: \(unlinked.error)")

        #expect(link(path, directory.path("b.plist")) == 0)
        #expect(link(path, directory.path("c.plist")) == 0)
        let before = try directory.read("a.plist")
        let run = ToolRun(["-insert", "Wings", "-integer", "2", path])
        #expect(run.status == 0)
        #expect(
            run.errorLines == [
                "\(path): warning: \(path) had 2 other hard links, which keep the old contents: "
                    + "the file was replaced by a new one, not rewritten in place"
            ])
        #expect(try PropertyList(from: directory.read("a.plist"))["Wings"] == 2)
        #expect(try directory.read("b.plist") == before)

        // Now b.plist and c.plist are linked to each other only: one other link.
        let converted = ToolRun(["-convert", "binary1", directory.path("b.plist")])
        #expect(converted.status == 0)
        #expect(
            converted.errorLines == [
                "\(directory.path("b.plist")): warning: \(directory.path("b.plist")) had 1 other hard link, "
                    + "which keeps the old contents: the file was replaced by a new one, not rewritten in place"
            ])
        #expect(try directory.read("c.plist") == before)
    }
}

/// Extended attributes for the tests, through the C library (Glibc's module leaves out
/// `<sys/xattr.h>`, as `ExtendedAttributes.swift` in the library explains).
enum ExtendedAttribute {
    /// Sets `name` on the file `path`; `false` if the file system refuses.
    static func set(_ path: String, _ name: String, _ value: [UInt8]) -> Bool {
        value.withUnsafeBytes { bytes in
            #if canImport(Darwin)
            return setxattr(path, name, bytes.baseAddress, bytes.count, 0, 0) == 0
            #else
            return testSetAttribute(path, name, bytes.baseAddress, bytes.count, 0) == 0
            #endif
        }
    }

    /// The value of `name` on the file `path`, or `nil`.
    static func get(_ path: String, _ name: String) -> [UInt8]? {
        var value = [UInt8](repeating: 0, count: 4096)
        let count = value.withUnsafeMutableBytes { bytes in
            #if canImport(Darwin)
            return getxattr(path, name, bytes.baseAddress, bytes.count, 0, 0)
            #else
            return testGetAttribute(path, name, bytes.baseAddress, bytes.count)
            #endif
        }
        return count < 0 ? nil : Array(value.prefix(count))
    }
}

#if !canImport(Darwin)
@_silgen_name("setxattr")
private func testSetAttribute(
    _ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int,
    _ flags: Int32
) -> Int32

@_silgen_name("getxattr")
private func testGetAttribute(
    _ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
) -> Int
#endif
