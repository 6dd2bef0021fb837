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

/// Destinations that are not regular files — `/dev/null`, a FIFO, a terminal, any
/// character device — written in place, as the shell's `>` writes them.
///
/// The durable writer makes a temporary file beside the destination and renames it over
/// it, which for such a destination would either fail or, run as root, replace the device
/// with a regular file. So when the destination (after symbolic links) exists and is
/// neither a regular file nor a folder, it is opened for writing without `O_CREAT` or
/// `O_TRUNC` and the bytes are written to it as they are made: no temporary file, no rename,
/// no flush (a device or a pipe has nothing to flush to the disk). A FIFO with no reader
/// waits for one, as `> fifo` does. A folder is still refused by the durable writer.
enum InPlaceDestination {
    private static let fileTypeMask: mode_t = 0o170000
    private static let directoryType: mode_t = 0o040000
    private static let regularType: mode_t = 0o100000

    /// Whether `path` names (through symbolic links) something that exists and is neither a
    /// regular file nor a folder.
    static func isSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & fileTypeMask
        return type != regularType && type != directoryType
    }

    /// Opens `path` for writing in place and hands `produce` a function that writes to it.
    ///
    /// - Throws: What `produce` threw, or ``FileSystemError`` naming the file
    ///   (`cannot write /dev/full: No space left on device`).
    static func write(
        toPath path: String, _ produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path) }
        var isOpen = true
        defer { if isOpen { _ = close(descriptor) } }
        try produce { bytes throws(FileSystemError) in
            guard var next = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let written = posixWrite(descriptor, next, left)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw failure(path) }
                next += written
                left -= written
            }
        }
        isOpen = false
        guard close(descriptor) == 0 || errno == EINTR else { throw failure(path) }
    }

    private static func failure(_ path: String) -> FileSystemError {
        FileSystemError(message: "cannot write \(path): \(String(cString: strerror(errno)))")
    }
}

/// `write(2)`, under a name no member shadows.
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
