import Foundation
import Testing

@testable import KeyedArchive

#if canImport(Glibc)
import Glibc
@testable import KeyedArchiving
#endif

/// Durable writes: a writer killed at any moment leaves the old contents or the new.
@Suite("Hardening: durable writes")
struct DurableWriteTests {
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("durable-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// What the probe writes as version `generation` (see Tests/HardeningProbe/main.swift).
    static func isCompleteVersion(_ strings: [String]) -> Int? {
        guard let first = strings.first, let generation = Int(first), strings.count == 4001 else {
            return nil
        }
        let line = "generation \(generation) " + String(repeating: "x", count: 64)
        return strings.dropFirst().allSatisfy { $0 == line } ? generation : nil
    }

    /// Starts the probe rewriting one file in a loop and kills it with SIGKILL after a
    /// random delay, 30 times; after each kill the file must decode as one complete version,
    /// and versions never go backwards.
    @Test(.enabled(if: Hardening.probe != nil, "HardeningProbe was not built"))
    func killingTheWriterNeverLeavesATornFile() throws {
        let probe = try #require(Hardening.probe)
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("archive.bin")
        try KeyedArchiver.archive(
            ["0"] + Array(repeating: "generation 0 " + String(repeating: "x", count: 64), count: 4000),
            to: file)

        var killedWhileWriting = 0
        var lastGeneration = 0
        for round in 0..<30 {
            let process = Process()
            process.executableURL = probe
            process.arguments = ["write-loop", file.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 2_000...60_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { killedWhileWriting += 1 }
            try? pipe.fileHandleForReading.close()

            let data = try Data(contentsOf: file)
            let strings = try #require(
                try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, from: data), "round \(round)")
            let generation = try #require(Self.isCompleteVersion(strings), "round \(round): torn contents")
            // Each run starts again at generation 1, so compare only within the rule "complete".
            lastGeneration = generation
        }
        #expect(killedWhileWriting >= 25, "only \(killedWhileWriting) of 30 writers were killed")
        #expect(lastGeneration >= 0)
        // Left-over temporary files are hidden (".archive.bin.tmp-…") and never the destination.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.filter { !$0.hasPrefix(".") } == ["archive.bin"])
    }

    @Test func conveniencesWriteWholeFilesAndLeaveNoTemporaryFiles() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let archiveURL = folder.appendingPathComponent("creature.archive")
        try KeyedArchiver.archive(Creature(name: "Potato Bug", legs: 6), to: archiveURL)
        let creature = try KeyedUnarchiver.unarchivedObject(
            ofClass: Creature.self, from: Data(contentsOf: archiveURL))
        #expect(creature?.name == "Potato Bug")
        #expect(creature?.legs == 6)

        let plistURL = folder.appendingPathComponent("settings.plist")
        let settings: PropertyList = ["Volume": 11, "Name": "Potato"]
        try settings.write(to: plistURL, format: .xml)
        #expect(try PropertyList(from: Data(contentsOf: plistURL)) == settings)
        try PropertyList.string("replaced").write(to: plistURL)
        #expect(try PropertyList(from: Data(contentsOf: plistURL)) == "replaced")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "creature.archive", "settings.plist",
            ])
    }

    /// A configured archiver writes its archive with `write(to:)`; an archiver that met
    /// an error throws it and leaves the file as it was.
    @Test func anArchiverWritesItsArchiveDurably() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("two.archive")
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = .xml
        archiver.encode("Potato Bug", forKey: "title")
        archiver.encode(4, forKey: "rating")
        try archiver.write(to: url)
        let written = try Data(contentsOf: url)
        #expect(written.starts(with: Data("<?xml".utf8)))
        let unarchiver = try KeyedUnarchiver(forReadingFrom: written)
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "title") == "Potato Bug")
        #expect(try unarchiver.decodeInteger(forKey: "rating") == 4)

        let failing = KeyedArchiver(requiringSecureCoding: true)
        failing.failWithError(KeyedArchiveError(.invalidValue, "refused"))
        let error = #expect(throws: KeyedArchiveError.self) { try failing.write(to: url) }
        #expect(error?.message == "refused")
        #expect(try Data(contentsOf: url) == written, "the file is untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["two.archive"])
    }

    @Test func aWriteThatCannotHappenThrowsAndLeavesTheFile() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file.plist")
        let error = #expect(throws: KeyedArchiveError.self) {
            try PropertyList.string("x").write(to: missing)
        }
        #expect(error?.code == .fileOperationFailed)
        #expect(error?.message.contains(missing.deletingLastPathComponent().path) == true)
        // An encoding failure happens before the file is touched.
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("kept.archive")
        try KeyedArchiver.archive("kept", to: url)
        #expect(throws: KeyedArchiveError.self) { try KeyedArchiver.archive(Insecure(value: 1), to: url) }
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: String.self, from: Data(contentsOf: url)) == "kept")
    }

    // MARK: - Permissions, symbolic links and flushes

    /// The permission bits of `path` itself (a link is not followed), set-ID and sticky
    /// bits included.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Runs the probe's `durable-write FILE TEXT` in a shell that first sets `umask`: the
    /// umask is process-wide, so changing it in this process would race with other tests.
    static func durableWriteInChild(_ file: URL, _ text: String, umask: mode_t) throws -> Int32 {
        let probe = try #require(Hardening.probe)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", #"umask "$1" && shift && exec "$@""#, "sh", String(umask, radix: 8), probe.path,
            "durable-write", file.path, text,
        ]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A new file gets 0666 less the umask, as `open(2)` would give it; it was 0644 always,
    /// so world-readable under `umask 077`.
    @Test(
        .enabled(if: Hardening.probe != nil, "HardeningProbe was not built"),
        arguments: [(mode_t(0o077), mode_t(0o600)), (0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
    func aNewFileGetsTheModeTheUmaskAllows(umask: mode_t, expected: mode_t) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("new.plist")
        #expect(try Self.durableWriteInChild(file, "secret", umask: umask) == 0)
        #expect(Self.mode(file.path) == expected, "umask \(String(umask, radix: 8))")
        #expect(try PropertyList(from: Data(contentsOf: file)) == "secret")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["new.plist"])
    }

    /// A replaced file keeps its permission bits whatever the umask.
    @Test(.enabled(if: Hardening.probe != nil, "HardeningProbe was not built"))
    func aReplacedFileKeepsItsModeUnderAStrictUmask() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("shared.plist")
        try PropertyList.string("old").write(to: file)
        #expect(chmod(file.path, 0o664) == 0)
        #expect(try Self.durableWriteInChild(file, "new", umask: 0o077) == 0)
        #expect(Self.mode(file.path) == 0o664)
        #expect(try PropertyList(from: Data(contentsOf: file)) == "new")
    }

    /// Replacing a file keeps `mode & 0777`: a rewritten file must not inherit the
    /// set-user-ID, set-group-ID or sticky bit of the file it replaces.
    @Test(arguments: [
        (mode_t(0o4755), mode_t(0o755)), (0o2755, 0o755), (0o1644, 0o644), (0o6711, 0o711), (0o7777, 0o777),
        (0o600, 0o600), (0o444, 0o444), (0o000, 0o000),
    ])
    func replacingAFileKeepsItsPermissionBitsOnly(original: mode_t, expected: mode_t) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tool")
        try Data("old".utf8).write(to: file)
        #expect(chmod(file.path, original) == 0)
        try #require(Self.mode(file.path) == original, "the file system did not keep the set-ID bits")
        try DurableFileWriter.write(Data("new".utf8), to: file)
        #expect(Self.mode(file.path) == expected, "was \(String(original, radix: 8))")
        #expect(try Data(contentsOf: file) == Data("new".utf8))
    }

    /// The symbolic link policy: the link's final target is replaced, through a temporary
    /// file in the target's folder, and the link is kept.
    @Test func aSymbolicLinkIsKeptAndItsTargetReplaced() throws {
        let root = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let links = root.appendingPathComponent("links")
        let targets = root.appendingPathComponent("targets")
        for folder in [links, targets] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let target = targets.appendingPathComponent("real.plist")
        try PropertyList.string("old").write(to: target)
        #expect(chmod(target.path, 0o640) == 0)
        // links/first -> links/second -> ../targets/real.plist
        let first = links.appendingPathComponent("first.plist")
        let second = links.appendingPathComponent("second.plist")
        try FileManager.default.createSymbolicLink(
            atPath: second.path, withDestinationPath: "../targets/real.plist")
        try FileManager.default.createSymbolicLink(atPath: first.path, withDestinationPath: "second.plist")

        try PropertyList.string("through two links").write(to: first)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: first.path) == "second.plist")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: second.path) == "../targets/real.plist")
        #expect(try PropertyList(from: Data(contentsOf: target)) == "through two links")
        #expect(Self.mode(target.path) == 0o640, "the target keeps its mode, not the link's")
        // No temporary file was made, or left, beside the links.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: links.path).sorted() == [
                "first.plist", "second.plist",
            ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: targets.path) == ["real.plist"])
    }

    @Test func aSymbolicLinkThatPointsNowhereIsAnError() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("dangling.plist")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "missing.plist")
        let error = #expect(throws: KeyedArchiveError.self) { try PropertyList.string("x").write(to: link) }
        #expect(error?.code == .fileOperationFailed)
        #expect(
            error?.message
                == "cannot write \(link.path): cannot resolve the symbolic link: No such file or directory")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "missing.plist")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["dangling.plist"])
    }

    /// A destination that is not a regular file is refused, not replaced.
    @Test func aFolderALinkToAFolderOrAFIFOIsRefused() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subfolder = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: true)
        let link = folder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "sub")
        let fifo = folder.appendingPathComponent("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let cases = [
            (subfolder, "cannot write \(subfolder.path): Is a directory"),
            (link, "cannot write \(link.path) (a symbolic link to \(subfolder.path)): Is a directory"),
            (fifo, "cannot write \(fifo.path): not a regular file"),
        ]
        for (url, message) in cases {
            let error = #expect(throws: KeyedArchiveError.self) {
                try DurableFileWriter.write(Data("x".utf8), to: url)
            }
            #expect(error?.message == message)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "fifo", "link", "sub",
            ])
    }

    /// A failed flush of the temporary file: the destination is untouched, the temporary
    /// file removed, and the error names the file and the reason.
    @Test func aFailedFileFlushIsReported() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("kept.plist")
        try DurableFileWriter.write(Data("old".utf8), to: file)
        var flushed: [DurableFileWriter.FlushTarget] = []
        let error = #expect(throws: KeyedArchiveError.self) {
            try DurableFileWriter.write(Data("new".utf8), to: file) { _, target in
                flushed.append(target)
                errno = EIO
                return -1
            }
        }
        #expect(flushed == [.file])
        #expect(error?.code == .fileOperationFailed)
        #expect(error?.message == "cannot flush \(file.path): Input/output error")
        #expect(try Data(contentsOf: file) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["kept.plist"])
    }

    /// A failed flush of the folder after the rename was ignored; it is reported, saying
    /// the new contents are in place but might not survive a crash.
    @Test func aFailedFolderFlushIsReported() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("replaced.plist")
        try DurableFileWriter.write(Data("old".utf8), to: file)
        var flushed: [DurableFileWriter.FlushTarget] = []
        let error = #expect(throws: KeyedArchiveError.self) {
            try DurableFileWriter.write(Data("new".utf8), to: file) { descriptor, target in
                flushed.append(target)
                guard target == .folder else { return fsync(descriptor) }
                errno = EIO
                return -1
            }
        }
        #expect(flushed == [.file, .folder])
        #expect(error?.code == .fileOperationFailed)
        #expect(
            error?.message
                == "cannot flush the folder \(folder.path) after replacing \(file.path) "
                + "(the new contents are in place but might not survive a crash): Input/output error")
        #expect(try Data(contentsOf: file) == Data("new".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["replaced.plist"])
    }

    /// Both flushes happen on every write, the folder's after the file's.
    @Test func everyWriteFlushesTheFileAndThenTheFolder() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var flushed: [DurableFileWriter.FlushTarget] = []
        try DurableFileWriter.write(Data("x".utf8), to: folder.appendingPathComponent("a")) {
            descriptor, target in
            flushed.append(target)
            return fsync(descriptor)
        }
        #expect(flushed == [.file, .folder])
    }

    /// A name near NAME_MAX (255 bytes) still gets a temporary name that fits.
    @Test func aLongFileNameStillFitsItsTemporaryName() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = String(repeating: "é", count: 120) + ".plist"  // 246 bytes
        let file = folder.appendingPathComponent(name)
        try PropertyList.string("long").write(to: file)
        #expect(try PropertyList(from: Data(contentsOf: file)) == "long")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [name])
    }

    /// A replaced file keeps its extended attributes (where the file system has `user.*`
    /// ones) and, when the writer may set them (as root), its owner and group.
    @Test func aReplacedFileKeepsItsOwnerGroupAndExtendedAttributes() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("kept.plist")
        try Data("old".utf8).write(to: file)
        let name = "user.keyed-archive.kept"
        let value = Array("value\u{0}with a NUL".utf8)
        let hasAttributes =
            value.withUnsafeBytes { setAttribute(file.path, name, $0.baseAddress, $0.count, 0) } == 0
        let isRoot = geteuid() == 0
        if isRoot { #expect(chown(file.path, 4_321, 8_765) == 0) }

        try DurableFileWriter.write(Data("new".utf8), to: file)
        #expect(try Data(contentsOf: file) == Data("new".utf8))
        if hasAttributes {
            var read = [UInt8](repeating: 0, count: 64)
            let count = read.withUnsafeMutableBytes {
                getAttribute(file.path, name, $0.baseAddress, $0.count)
            }
            #expect(count >= 0 ? Array(read.prefix(count)) == value : false, "the attribute was not copied")
        }
        var info = stat()
        #expect(stat(file.path, &info) == 0)
        if isRoot {
            #expect(info.st_uid == 4_321)
            #expect(info.st_gid == 8_765)
        } else {
            #expect(info.st_uid == geteuid())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["kept.plist"])
    }
}

#if canImport(Glibc)
// `<sys/xattr.h>`, which Glibc's module leaves out.
@_silgen_name("setxattr")
private func setAttribute(
    _ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int,
    _ flags: Int32
) -> Int32

@_silgen_name("getxattr")
private func getAttribute(
    _ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
) -> Int
#elseif canImport(Darwin)
private func setAttribute(
    _ path: String, _ name: String, _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32
) -> Int32 {
    setxattr(path, name, value, size, 0, flags)
}

private func getAttribute(_ path: String, _ name: String, _ value: UnsafeMutableRawPointer?, _ size: Int)
    -> Int
{
    getxattr(path, name, value, size, 0, 0)
}
#endif
