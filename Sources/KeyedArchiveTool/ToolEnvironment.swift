import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The outside world as the tool sees it: standard streams and files.
///
/// `main.swift` passes ``process``; tests pass closures that capture what is written.
struct ToolEnvironment {
    /// Reads all of standard input (called at most once per `-` argument).
    var readStandardInput: () -> Data
    /// Writes bytes to standard output.
    var writeOutput: (Data) -> Void
    /// Writes text to standard error.
    var writeError: (String) -> Void
    /// Reads and writes files.
    var fileSystem: any ToolFileSystem

    /// The real process: its standard streams and the local file system.
    static var process: ToolEnvironment {
        ToolEnvironment(
            readStandardInput: { FileHandle.standardInput.readDataToEndOfFile() },
            writeOutput: { FileHandle.standardOutput.write($0) },
            writeError: { FileHandle.standardError.write(Data($0.utf8)) },
            fileSystem: LocalFileSystem())
    }
}

/// A file operation that failed; `message` says why, in words such as
/// `No such file or directory`.
struct FileSystemError: Error, Equatable {
    var message: String
}

/// File access, replaceable in tests.
protocol ToolFileSystem {
    /// Reads a whole file.
    ///
    /// - Parameter path: The file to read.
    /// - Returns: Its bytes.
    /// - Throws: ``FileSystemError`` if the file is missing, a directory, or unreadable.
    func contentsOfFile(atPath path: String) throws(FileSystemError) -> Data

    /// Replaces (or creates) a file so that readers see either the old or the new
    /// contents, never a partial file.
    ///
    /// - Parameters:
    ///   - data: The new contents.
    ///   - path: The file to write.
    /// - Throws: ``FileSystemError`` if the file cannot be written.
    func writeAtomically(_ data: Data, toPath path: String) throws(FileSystemError)
}

/// The local file system through POSIX calls, for exact error messages (`strerror`)
/// and control over permissions when replacing a file.
struct LocalFileSystem: ToolFileSystem {
    private static let fileTypeMask: mode_t = 0o170000
    private static let directoryType: mode_t = 0o040000
    private static let symbolicLinkType: mode_t = 0o120000

    func contentsOfFile(atPath path: String) throws(FileSystemError) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.lastError() }
        defer { _ = close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Self.lastError() }
        if info.st_mode & Self.fileTypeMask == Self.directoryType {
            throw FileSystemError(message: "Is a directory")
        }
        var bytes: [UInt8] = []
        // The size is a hint only: the file may change, and pipes report 0.
        if info.st_size > 0 && info.st_size < Int64(Int32.max) { bytes.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress, buffer.count)
            }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.lastError()
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return Data(bytes)
    }

    func writeAtomically(_ data: Data, toPath path: String) throws(FileSystemError) {
        // Replace what a symbolic link points to, not the link itself.
        var target = path
        var info = stat()
        if lstat(path, &info) == 0 && info.st_mode & Self.fileTypeMask == Self.symbolicLinkType {
            target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        }
        var mode: mode_t = 0o666
        var keepsMode = false
        if stat(target, &info) == 0 {
            if info.st_mode & Self.fileTypeMask == Self.directoryType {
                throw FileSystemError(message: "Is a directory")
            }
            mode = info.st_mode & 0o7777
            keepsMode = true
        }

        let url = URL(fileURLWithPath: target)
        let folder = url.deletingLastPathComponent().path
        let temporary =
            folder + "/." + url.lastPathComponent + ".keyed-archive-"
            + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw Self.lastError() }
        var failure: FileSystemError?
        // The umask applies to a new file; an existing file keeps its exact mode.
        if keepsMode && fchmod(descriptor, mode) != 0 { failure = Self.lastError() }
        if failure == nil { failure = Self.writeAll(data, to: descriptor) }
        if close(descriptor) != 0 && failure == nil { failure = Self.lastError() }
        if failure == nil && rename(temporary, target) != 0 { failure = Self.lastError() }
        if let failure {
            _ = unlink(temporary)
            throw failure
        }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) -> FileSystemError? {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> FileSystemError? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return lastError()
                }
                if written == 0 { return FileSystemError(message: "no space written") }
                offset += written
            }
            return nil
        }
    }

    private static func lastError() -> FileSystemError {
        FileSystemError(message: String(cString: strerror(errno)))
    }
}
