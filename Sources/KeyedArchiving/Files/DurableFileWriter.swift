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
/// The engine behind ``KeyedArchiver/archive(_:to:requiringSecureCoding:format:)``,
/// ``KeyedArchiver/write(to:)`` and ``PropertyList/write(to:format:options:)``; `package`
/// so that the tool and the example write their other files the same way.
///
/// The bytes go to a hidden temporary file in the destination's folder, which is flushed
/// to the disk, renamed over the destination (an atomic step on POSIX file systems), and
/// then the folder itself is flushed so the rename survives a crash. A failed flush is an
/// error, never ignored.
///
/// **Permissions.** A new file gets the mode `open(2)` would give it: `0666` less the
/// process's umask (so `0600` under `umask 077`). A replaced file keeps its permission
/// bits (`mode & 0777`) but never its set-user-ID, set-group-ID or sticky bits, which a
/// rewritten file must not inherit. It also keeps its owner and group where the process
/// may set them (`fchown`: a privileged process sets both, a file's owner the group among
/// its own groups; otherwise the new file is the writing user's) and its extended
/// attributes (user attributes, ACLs, labels: each the process may read and set), copied to
/// the new file before the rename. The replacement is a new file, so other hard links to
/// the old file keep the old contents.
///
/// **Symbolic links.** If the destination is a symbolic link, the file it finally points
/// to (resolved once, with `realpath(3)`) is replaced, through a temporary file in *that*
/// file's folder, and the link itself is kept. A link that points nowhere is an error.
/// After the link is resolved, every step works on the resolved folder, so a link created
/// at the destination while the write is in progress is replaced, never written through.
///
/// A destination that exists but is not a regular file (a folder, a device, a FIFO) is
/// refused. Writing needs permission to create files in the destination's folder.
package enum DurableFileWriter {
    /// Replaces the file at `url` with `data`, atomically and durably.
    ///
    /// - Parameters:
    ///   - data: The new contents.
    ///   - url: A file URL; its folder must exist. If it names a symbolic link, the link's
    ///     final target is replaced and the link kept.
    /// - Throws: ``KeyedArchiveError`` with code `fileOperationFailed`, naming the path and
    ///   the system's reason (`strerror`), if any step fails: creating, writing, setting the
    ///   permissions of, flushing or renaming the temporary file (the destination is then
    ///   untouched and the temporary file removed), or flushing the folder after the rename
    ///   (the new contents are then in place but might not survive a crash).
    package static func write(_ data: Data, to url: URL) throws {
        try write(data, to: url, flushing: flush)
    }

    /// Replaces the file at `url` with the bytes `produce` hands to its `write` function,
    /// atomically and durably, without holding the whole contents in memory: the engine of
    /// ``PropertyList/write(to:format:options:)`` and the tool's `-convert`.
    ///
    /// Each piece is written to the temporary file as soon as it is handed over (the
    /// buffer need only be valid during the call). The file is flushed and renamed over the
    /// destination only after `produce` returns; if `produce` throws, the temporary file is
    /// removed, the destination is untouched, and its error is rethrown as it is.
    ///
    /// - Parameters:
    ///   - url: A file URL; its folder must exist. If it names a symbolic link, the link's
    ///     final target is replaced and the link kept.
    ///   - produce: Writes the new contents by calling `write` any number of times.
    /// - Throws: The error `produce` threw, or ``KeyedArchiveError`` with code
    ///   `fileOperationFailed` as for ``write(_:to:)``.
    package static func write(
        to url: URL, _ produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        try write(to: url, flushing: flush, produce)
    }

    /// What a flush applies to, for the test seam of ``write(_:to:flushing:)``.
    enum FlushTarget {
        /// The temporary file holding the new contents.
        case file
        /// The folder whose entry the rename changed.
        case folder
    }

    /// ``write(_:to:)`` with the flush call replaceable, so tests can make it fail.
    ///
    /// - Parameter flush: Flushes a descriptor like `fsync`: 0 on success, or -1 with
    ///   `errno` set.
    static func write(
        _ data: Data, to url: URL, flushing flush: (_ descriptor: Int32, _ target: FlushTarget) -> Int32
    ) throws(KeyedArchiveError) {
        do {
            try write(to: url, flushing: flush) { write in try data.withUnsafeBytes(write) }
        } catch let error as KeyedArchiveError {
            throw error
        } catch {
            // Only the system calls throw here, and they throw `KeyedArchiveError`.
            throw KeyedArchiveError(.fileOperationFailed, "cannot write \(url.relativePath): \(error)")
        }
    }

    /// ``write(to:_:)`` with the flush call replaceable, so tests can make it fail.
    static func write(
        to url: URL, flushing flush: (_ descriptor: Int32, _ target: FlushTarget) -> Int32,
        _ produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        guard url.isFileURL else {
            throw KeyedArchiveError(.fileOperationFailed, "cannot write \(url): not a file URL")
        }
        // Messages name the path as the caller spelled it (relative paths stay relative).
        var shown = url.relativePath
        var path = url.path
        var info = stat()
        if lstat(path, &info) == 0 && info.st_mode & fileTypeMask == symbolicLinkType {
            guard let resolved = realpath(path, nil) else {
                throw failure("cannot write \(shown): cannot resolve the symbolic link")
            }
            path = String(cString: resolved)
            free(resolved)
            shown += " (a symbolic link to \(path))"
        }
        guard let slash = path.lastIndex(of: "/") else {
            throw KeyedArchiveError(.fileOperationFailed, "cannot write \(shown): not an absolute path")
        }
        let folderPath = slash == path.startIndex ? "/" : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else {
            throw KeyedArchiveError(.fileOperationFailed, "cannot write \(shown): not a file name")
        }

        // Every later step is relative to this descriptor: the folder cannot be swapped
        // for another (or for a link) between the checks and the rename.
        let folder = open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw failure("cannot write \(shown)") }
        defer { _ = close(folder) }

        // The permission bits, owner and group of the file being replaced, or nil for a new file.
        var keptMode: mode_t?
        var keptOwner: (user: uid_t, group: gid_t)?
        if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            switch info.st_mode & fileTypeMask {
            case regularFileType:
                keptMode = info.st_mode & 0o777
                keptOwner = (info.st_uid, info.st_gid)
            case directoryType:
                throw KeyedArchiveError(.fileOperationFailed, "cannot write \(shown): \(reason(EISDIR))")
            case symbolicLinkType:
                throw KeyedArchiveError(
                    .fileOperationFailed, "cannot write \(shown): it became a symbolic link during the write")
            default:
                throw KeyedArchiveError(.fileOperationFailed, "cannot write \(shown): not a regular file")
            }
        } else if errno != ENOENT {
            throw failure("cannot write \(shown)")
        }

        // Long names are shortened so the temporary name stays within NAME_MAX.
        let stem = String(decoding: name.utf8.prefix(128), as: UTF8.self)
        let temporary = ".\(stem).tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        // The kernel applies the umask to a new file's 0666. A replacement starts no more
        // permissive than the file it replaces and gets its exact bits before any byte is
        // written, so the new contents are never readable by more users than the old.
        let descriptor = openat(
            folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, keptMode ?? 0o666)
        guard descriptor >= 0 else { throw failure("cannot write \(shown)") }
        var isOpen = true
        defer {
            if isOpen { _ = close(descriptor) }
        }
        do {
            if let keptMode, fchmod(descriptor, keptMode) != 0 {
                throw failure("cannot set the permissions of \(shown)")
            }
            try produce { bytes throws(KeyedArchiveError) in try writeAll(bytes, to: descriptor, shown: shown)
            }
            if let keptOwner {
                // After the contents and before the attributes: writing to a file, and
                // changing its owner, clear its `security.capability` attribute.
                try keepOwner(keptOwner, of: descriptor, shown: shown)
                try ExtendedAttributes.copy(from: path, to: descriptor, shown: shown)
            }
            guard flush(descriptor, .file) == 0 else { throw failure("cannot flush \(shown)") }
            isOpen = false
            guard close(descriptor) == 0 else { throw failure("cannot close \(shown)") }
            guard renameat(folder, temporary, folder, name) == 0 else {
                throw failure("cannot rename a temporary file over \(shown)")
            }
        } catch {
            _ = unlinkat(folder, temporary, 0)
            throw error
        }
        guard flush(folder, .folder) == 0 else {
            throw failure(
                "cannot flush the folder \(folderPath) after replacing \(shown) "
                    + "(the new contents are in place but might not survive a crash)")
        }
    }

    /// Gives the new file the owner and group of the file it replaces, where this process
    /// may: a privileged process sets both; the owner can set the group to one of its own
    /// groups; otherwise (`EPERM`) the new file stays the writing user's.
    private static func keepOwner(
        _ owner: (user: uid_t, group: gid_t), of descriptor: Int32, shown: String
    ) throws(KeyedArchiveError) {
        if fchown(descriptor, owner.user, owner.group) == 0 { return }
        guard errno == EPERM else { throw failure("cannot set the owner of \(shown)") }
        // `-1` leaves the owner as it is.
        if fchown(descriptor, uid_t.max, owner.group) == 0 || errno == EPERM { return }
        throw failure("cannot set the group of \(shown)")
    }

    private static func writeAll(
        _ buffer: UnsafeRawBufferPointer, to descriptor: Int32, shown: String
    ) throws(KeyedArchiveError) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = systemWrite(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write \(shown)")
            }
            if written == 0 {
                throw KeyedArchiveError(.fileOperationFailed, "cannot write \(shown): no bytes were written")
            }
            offset += written
        }
    }

    /// Flushes a descriptor to the disk. On Apple platforms `fsync` stops at the drive's
    /// cache; `F_FULLFSYNC` goes through it where the file system supports it.
    private static func flush(_ descriptor: Int32, _ target: FlushTarget) -> Int32 {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    }

    /// An error for the failed system call that set `errno`: `"\(what): \(strerror)"`.
    private static func failure(_ what: String) -> KeyedArchiveError {
        KeyedArchiveError(.fileOperationFailed, "\(what): \(reason(errno))")
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static let fileTypeMask: mode_t = 0o170000
    private static let regularFileType: mode_t = 0o100000
    private static let directoryType: mode_t = 0o040000
    private static let symbolicLinkType: mode_t = 0o120000
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
