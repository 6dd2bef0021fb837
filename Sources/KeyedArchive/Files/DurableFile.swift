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

/// Writes files so that a crash or power loss leaves either the old contents or the new,
/// never a torn mixture.
///
/// ```swift
/// let creature: PropertyList = ["Title": "Potato Bug"]
/// let data = try creature.data(format: .xml)
/// try DurableFile.write(data, to: URL(fileURLWithPath: "/tmp/creature.plist"))
/// ```
///
/// The bytes go to a temporary file in the same folder, which is flushed to the disk,
/// renamed over the destination (an atomic step on POSIX file systems), and then the
/// folder itself is flushed so the rename survives a crash. An existing destination keeps
/// its permissions.
public enum DurableFile {
    /// Replaces the file at `url` with `data`, atomically and durably.
    ///
    /// - Parameters:
    ///   - data: The new contents.
    ///   - url: A file URL; its folder must exist.
    /// - Throws: ``KeyedArchiveError`` with code `fileOperationFailed`, naming the path
    ///   and the system's reason, if any step fails; the destination is then untouched and
    ///   the temporary file removed.
    public static func write(_ data: Data, to url: URL) throws {
        let path = url.path
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        var mode: mode_t = 0o644
        var existing = stat()
        if stat(path, &existing) == 0 { mode = existing.st_mode & 0o7777 }

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure("cannot create", temporary) }
        var closed = false
        defer {
            if !closed { _ = close(descriptor) }
        }
        do {
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    guard let base = buffer.baseAddress else { break }
                    let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw failure("cannot write", temporary)
                    }
                    offset += written
                }
            }
            _ = fchmod(descriptor, mode)
            guard fsync(descriptor) == 0 else { throw failure("cannot flush", temporary) }
            closed = true
            guard close(descriptor) == 0 else { throw failure("cannot close", temporary) }
            guard rename(temporary, path) == 0 else { throw failure("cannot rename into place", path) }
        } catch {
            _ = unlink(temporary)
            throw error
        }
        // Flush the folder so the new directory entry is on disk too.
        let folder = open(directory, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            _ = close(folder)
        }
    }

    private static func failure(_ what: String, _ path: String) -> KeyedArchiveError {
        let reason = String(cString: strerror(errno))
        return KeyedArchiveError(.fileOperationFailed, "\(what) \(path): \(reason)")
    }
}

/// The POSIX `write`, under a name that doesn't clash with Swift's `write` methods.
@inline(__always)
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(descriptor, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(descriptor, buffer, count)
    #else
    return Glibc.write(descriptor, buffer, count)
    #endif
}
