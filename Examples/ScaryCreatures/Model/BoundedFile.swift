import Foundation

/// Reads the database's files without trusting them.
///
/// `Data(contentsOf:)` reads whatever a path leads to: a 10 GB file, or `/dev/zero` behind
/// a symbolic link, which never ends. A creature's folder can hold anything, so this
/// reader takes only regular files, checks the size before reading, and never reads more
/// than the limit even if the file grows meanwhile.
enum BoundedFile {
    /// The contents of the regular file at `url`, or `nil` if there is no file there.
    ///
    /// - Parameters:
    ///   - url: The file to read; a symbolic link is followed.
    ///   - limit: The most bytes the file may hold.
    /// - Throws: ``ScaryCreatureError`` naming the path if the file cannot be read, is not
    ///   a regular file (a folder, a device, a FIFO), or holds more than `limit` bytes.
    static func contents(of url: URL, limit: Int) throws -> Data? {
        let path = url.path
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below).
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw failure(path)
        }
        defer { _ = close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(path) }
        guard info.st_mode & fileTypeMask == regularFileType else {
            throw ScaryCreatureError("cannot read \(path): not a regular file")
        }
        guard info.st_size <= limit else {
            throw ScaryCreatureError(
                "cannot read \(path): \(info.st_size) bytes is more than the limit of \(limit)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        // Read one byte past the limit at most, to notice a file that grew.
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        guard bytes.count <= limit else {
            throw ScaryCreatureError("cannot read \(path): it grew past the limit of \(limit) bytes")
        }
        return Data(bytes)
    }

    private static func failure(_ path: String) -> ScaryCreatureError {
        ScaryCreatureError("cannot read \(path): \(String(cString: strerror(errno)))")
    }

    private static let fileTypeMask: mode_t = 0o170000
    private static let regularFileType: mode_t = 0o100000
}
