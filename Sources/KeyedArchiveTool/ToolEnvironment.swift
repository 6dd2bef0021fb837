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

/// The outside world as the tool sees it: standard streams and files.
///
/// The `keyed-archive` executable (`Sources/KeyedArchiveCommand/main.swift`) passes ``process``; tests pass closures that capture what is written.
package struct ToolEnvironment {
    /// Reads all of standard input, at most `largest` bytes (called at most once per `-`
    /// argument); the tool refuses more than `largest` whatever this returns.
    ///
    /// - Throws: ``FileSystemError`` when standard input holds more or cannot be read.
    var readStandardInput: (_ largest: Int) throws(FileSystemError) -> Data
    /// Writes bytes to standard output.
    var writeOutput: (Data) -> Void
    /// Writes text to standard error.
    var writeError: (String) -> Void
    /// Reads and writes files.
    var fileSystem: any ToolFileSystem
    /// The most bytes read from one input (a file, a device, a FIFO, standard input):
    /// ``BoundedInput/maximumBytes``, lowered by tests so that they stay small.
    var maximumInputBytes = BoundedInput.maximumBytes

    /// The real process: its standard streams and the local file system.
    package static var process: ToolEnvironment {
        ToolEnvironment(
            readStandardInput: { largest throws(FileSystemError) in
                try BoundedInput.read(STDIN_FILENO, largest: largest, naming: "standard input")
            },
            writeOutput: { data in data.withUnsafeBytes { StandardStream.writeAll($0, to: STDOUT_FILENO) } },
            writeError: { text in
                var text = text
                text.withUTF8 { StandardStream.writeAll(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
            },
            fileSystem: LocalFileSystem())
    }
}

/// The standard output streams through POSIX calls: FoundationEssentials has no `FileHandle`,
/// and importing all of Foundation for it triples the tool's start-up time. (Standard input
/// is read through ``BoundedInput``.)
enum StandardStream {
    /// Writes all of `bytes` to `descriptor`, resuming after partial writes and interruptions;
    /// stops at the first other error (a closed pipe, a full disk), as there is no one to tell.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = write(descriptor, next, left)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            next += written
            left -= written
        }
    }
}

/// A file operation that failed. `message` says why, in words such as
/// `No such file or directory`; a failed write's message also names the file
/// (`cannot write out.plist: Permission denied`).
struct FileSystemError: Error, Equatable {
    var message: String
}

/// File access, replaceable in tests.
protocol ToolFileSystem {
    /// Reads a whole file — a regular file, a device, a FIFO — of at most `largest` bytes.
    ///
    /// - Parameters:
    ///   - path: The file to read.
    ///   - largest: The most bytes accepted (the tool also refuses more, whatever this returns).
    /// - Returns: Its bytes.
    /// - Throws: ``FileSystemError`` if the file is missing, a directory, unreadable, or
    ///   larger than `largest` (``BoundedInput/tooLargeMessage(_:largest:)``).
    func contentsOfFile(atPath path: String, largest: Int) throws(FileSystemError) -> Data

    /// Replaces (or creates) a file so that readers see either the old or the new
    /// contents, never a partial file, and a crash after it returns loses neither.
    ///
    /// - Parameters:
    ///   - data: The new contents.
    ///   - path: The file to write.
    /// - Throws: ``FileSystemError`` whose message names the file and says why, such as
    ///   `cannot write out.plist: No such file or directory`.
    func writeAtomically(_ data: Data, toPath path: String) throws(FileSystemError)

    /// Replaces (or creates) a file as ``writeAtomically(_:toPath:)`` does, with the bytes
    /// `produce` hands to its `write` function as it makes them. If `produce` throws, the
    /// file is untouched and its error is rethrown as it is.
    ///
    /// - Throws: What `produce` threw, or ``FileSystemError`` as ``writeAtomically(_:toPath:)``.
    func writeAtomically(
        toPath path: String, _ produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws

    /// The files `decode --jsonl` reads for `path`: the path itself, or for a folder every
    /// regular file below it, depth first and sorted, symbolic links not followed.
    ///
    /// - Throws: ``FileSystemError`` if the folder cannot be listed.
    func filesForSweep(_ path: String) throws(FileSystemError) -> [String]

    /// Takes an exclusive advisory lock for a read–modify–write of the file at `path`, held
    /// until the lock is released: another `keyed-archive` editing the same file waits.
    ///
    /// - Returns: The lock (one that holds nothing when `path` names no regular file).
    /// - Throws: ``FileSystemError`` naming the file when the lock cannot be taken.
    func lockForEditing(_ path: String) throws(FileSystemError) -> FileEditLock

    /// How many hard links other than `path` the file it names has (following symbolic
    /// links, as the writer does): 0 for none, or for no file.
    func otherHardLinks(ofFile path: String) -> Int
}

extension ToolFileSystem {
    /// Collects what `produce` writes and writes it in one piece: for file systems that
    /// cannot write a file in pieces.
    func writeAtomically(
        toPath path: String, _ produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        var data = Data()
        try produce { data.append(contentsOf: $0) }
        try writeAtomically(data, toPath: path)
    }

    func filesForSweep(_ path: String) throws(FileSystemError) -> [String] { [path] }

    func lockForEditing(_ path: String) throws(FileSystemError) -> FileEditLock { FileEditLock() }

    func otherHardLinks(ofFile path: String) -> Int { 0 }
}

/// The local file system: reads through POSIX calls, for exact error messages
/// (`strerror`); writes through the library's `DurableFileWriter`.
struct LocalFileSystem: ToolFileSystem {
    private static let fileTypeMask: mode_t = 0o170000
    private static let directoryType: mode_t = 0o040000
    private static let regularType: mode_t = 0o100000

    func contentsOfFile(atPath path: String, largest: Int) throws(FileSystemError) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.lastError() }
        defer { _ = close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Self.lastError() }
        if info.st_mode & Self.fileTypeMask == Self.directoryType {
            throw FileSystemError(message: "Is a directory")
        }
        return try BoundedInput.read(descriptor, largest: largest, naming: "file")
    }

    func filesForSweep(_ path: String) throws(FileSystemError) -> [String] {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & Self.fileTypeMask == Self.directoryType else {
            return [path]
        }
        var files: [String] = []
        var folders = [path]
        while let folder = folders.popLast() {
            let names = try Self.names(inFolder: folder)
            var subfolders: [String] = []
            for name in names {
                let child = folder.hasSuffix("/") ? folder + name : folder + "/" + name
                var info = stat()
                guard lstat(child, &info) == 0 else { continue }
                switch info.st_mode & Self.fileTypeMask {
                case Self.directoryType: subfolders.append(child)
                case Self.regularType: files.append(child)
                default: break  // links, devices, sockets, FIFOs: not read
                }
            }
            folders.append(contentsOf: subfolders.reversed())
        }
        return files
    }

    /// The names in `folder` (without `.` and `..`), sorted.
    private static func names(inFolder folder: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(folder) else {
            throw FileSystemError(message: "cannot list \(folder): \(String(cString: strerror(errno)))")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    func lockForEditing(_ path: String) throws(FileSystemError) -> FileEditLock {
        try FileEditLock.lock(path)
    }

    func otherHardLinks(ofFile path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & Self.fileTypeMask == Self.regularType else { return 0 }
        return max(0, Int(clamping: info.st_nlink) - 1)
    }

    /// Writes through the library's `DurableFileWriter`: flushed to the disk, renamed into
    /// place, the folder flushed; a symbolic link's final target is replaced and the link
    /// kept; a new file gets `0666` less the umask, a replaced one its permission bits,
    /// owner and group (where the process may set them) and extended attributes.
    func writeAtomically(_ data: Data, toPath path: String) throws(FileSystemError) {
        if InPlaceDestination.isSpecialFile(path) {
            do {
                return try InPlaceDestination.write(toPath: path) { write in try data.withUnsafeBytes(write) }
            } catch let error as FileSystemError {
                throw error
            } catch {
                throw FileSystemError(message: "cannot write \(path): \(error)")
            }
        }
        do {
            try DurableFileWriter.write(data, to: URL(fileURLWithPath: path))
        } catch let error as KeyedArchiveError {
            throw FileSystemError(message: error.message)
        } catch {
            throw FileSystemError(message: "cannot write \(path): \(error)")
        }
    }

    /// Writes through the library's ``DurableFileWriter`` in pieces, as they are made: the whole
    /// contents are never held in memory, and a failure leaves the file untouched.
    func writeAtomically(
        toPath path: String, _ produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        /// What `produce` threw, carried through ``DurableFileWriter`` unchanged.
        struct ProducerError: Error { var error: any Error }
        // `/dev/null`, a FIFO, a terminal: written in place (no temporary file, no rename).
        if InPlaceDestination.isSpecialFile(path) {
            return try InPlaceDestination.write(toPath: path, produce)
        }
        do {
            try withoutActuallyEscaping(produce) { produce in
                try DurableFileWriter.write(to: URL(fileURLWithPath: path)) { write in
                    do {
                        try produce(write)
                    } catch {
                        throw ProducerError(error: error)
                    }
                }
            }
        } catch let error as ProducerError {
            throw error.error
        } catch let error as KeyedArchiveError {
            throw FileSystemError(message: error.message)
        }
    }

    private static func lastError() -> FileSystemError {
        FileSystemError(message: String(cString: strerror(errno)))
    }
}
