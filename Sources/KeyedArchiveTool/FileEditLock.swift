#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock on a file, held by `keyed-archive` from before it reads the
/// file until after it has written the file back, so that edits of one file by several
/// processes at once are applied one after another and none is lost.
///
/// **Why the lock is on the file itself, checked after it is taken.** The durable writer
/// never rewrites a file: it renames a new file over the old one. A lock on the old file's
/// inode is then released onto a file no one will open again, and a process that was
/// waiting for it would read and edit stale contents. Two cures exist: lock a stable
/// sidecar file (`.name.lock`) instead, or lock the file and, once the lock is held, check
/// that the path still names the locked inode, starting again if it does not. The second
/// is used: a sidecar would be left behind in every folder the tool ever edited in (removing
/// it races with a process about to lock it), would need its own permissions and would
/// clash with a file of that name; the check costs one `stat`. A waiter woken by a rename
/// finds a new inode at the path, lets the old one go, and locks the new one.
///
/// The lock is `flock(2)`, not `fcntl(2)`'s record lock: a record lock is dropped when the
/// process closes *any* descriptor of the file, which reading it does. It binds only
/// processes that take it (other programs are not stopped) and is released when
/// ``release()`` is called or the process exits, however it exits.
final class FileEditLock {
    private var descriptor: Int32

    /// A lock that holds nothing: for an input that is no regular file (standard input, a
    /// FIFO, a device, a missing file, whose reading then reports the problem), and for
    /// file systems that need none.
    init() { descriptor = -1 }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { release() }

    /// Lets the file go (at most once; later calls do nothing).
    func release() {
        guard descriptor >= 0 else { return }
        // Closing the only descriptor of this open file releases its `flock`.
        _ = close(descriptor)
        descriptor = -1
    }

    /// How many times a lock is taken on a file that turns out to have been replaced before
    /// giving up: each retry follows another process's completed edit, so only a file
    /// replaced this often while waiting exhausts it.
    static let maximumAttempts = 10_000

    /// Locks the regular file at `path` (following symbolic links, as the writer does),
    /// waiting while another process holds it.
    ///
    /// - Returns: The lock, or one that holds nothing when `path` names no regular file.
    /// - Throws: ``FileSystemError`` naming the file when `flock` fails, or when the file was
    ///   replaced at each of ``maximumAttempts`` attempts.
    static func lock(_ path: String) throws(FileSystemError) -> FileEditLock {
        for _ in 0..<maximumAttempts {
            var named = stat()
            guard stat(path, &named) == 0, named.st_mode & fileTypeMask == regularType else {
                return FileEditLock()
            }
            // O_NONBLOCK: should the path become a FIFO meanwhile, opening it does not wait
            // for a writer (it is then found to be another file, and not locked).
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else {
                // Gone or unreadable: reading it reports why.
                return FileEditLock()
            }
            let lock = FileEditLock(descriptor: descriptor)
            var result: Int32
            repeat {
                result = flock(descriptor, LOCK_EX)
            } while result != 0 && errno == EINTR
            guard result == 0 else {
                throw FileSystemError(
                    message: "cannot lock \(path) for editing: \(String(cString: strerror(errno)))")
            }
            // The lock is ours; is the file at the path still the one locked?
            var locked = stat()
            guard fstat(descriptor, &locked) == 0 else { return FileEditLock() }
            if stat(path, &named) == 0, named.st_dev == locked.st_dev, named.st_ino == locked.st_ino {
                return lock
            }
            // Replaced while we waited: `lock` goes out of scope and is released.
            if locked.st_mode & fileTypeMask != regularType { return FileEditLock() }
        }
        throw FileSystemError(
            message: "cannot lock \(path) for editing: it was replaced \(maximumAttempts) times while waiting"
        )
    }

    private static let fileTypeMask: mode_t = 0o170000
    private static let regularType: mode_t = 0o100000
}
