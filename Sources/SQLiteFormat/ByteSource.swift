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

/// Bytes read by position: a file opened read-only (read with `pread`, never mapped, so a
/// file that shrinks while it is read gives an error, not a signal) or data in memory.
final class ByteSource {
    private enum Storage {
        case file(Int32)
        case memory(Data)
    }

    private let storage: Storage
    /// The size in bytes when opened.
    let count: Int
    /// Which file this is, for errors.
    let file: SQLiteError.File

    init(data: Data, file: SQLiteError.File) {
        storage = .memory(data)
        count = data.count
        self.file = file
    }

    /// Opens `path` read-only; nil when it does not exist (a missing `-wal` or `-journal`).
    ///
    /// - Throws: ``SQLiteError/Code/io`` when it exists but cannot be opened or is not a
    ///   regular file.
    init?(path: String, file: SQLiteError.File, missingIsNil: Bool) throws(SQLiteError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if missingIsNil && code == ENOENT { return nil }
            throw SQLiteError(.io, "cannot open \(path): \(String(cString: strerror(code)))", file: file)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw SQLiteError(.io, "cannot read \(path): \(String(cString: strerror(code)))", file: file)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw SQLiteError(.io, "\(path) is not a regular file", file: file)
        }
        storage = .file(descriptor)
        count = Int(status.st_size)
        self.file = file
    }

    deinit {
        if case .file(let descriptor) = storage { close(descriptor) }
    }

    /// Reads `length` bytes at `offset` into `buffer` (resized to `length`).
    ///
    /// - Throws: ``SQLiteError/Code/truncated`` when the source ends first.
    func read(_ length: Int, at offset: Int, into buffer: inout [UInt8], page: UInt32? = nil)
        throws(SQLiteError)
    {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw SQLiteError(
                .truncated, "the file ends at byte \(count), before \(length) bytes at byte \(offset)",
                file: file,
                page: page)
        }
        if buffer.count != length { buffer = [UInt8](repeating: 0, count: length) }
        switch storage {
        case .memory(let data):
            let start = data.startIndex + offset
            buffer.withUnsafeMutableBytes { target in
                data.copyBytes(to: target.bindMemory(to: UInt8.self), from: start..<start + length)
            }
        case .file(let descriptor):
            var done = 0
            var failure: Int32 = 0
            buffer.withUnsafeMutableBytes { target in
                guard let base = target.baseAddress else { return }
                while done < length {
                    let got = pread(descriptor, base + done, length - done, off_t(offset + done))
                    if got > 0 {
                        done += got
                    } else if got < 0 && errno == EINTR {
                        continue
                    } else {
                        failure = got < 0 ? errno : 0
                        return
                    }
                }
            }
            if done < length {
                let reason = failure == 0 ? "the file ended" : String(cString: strerror(failure))
                throw SQLiteError(
                    .truncated, "cannot read \(length) bytes at byte \(offset): \(reason)", file: file,
                    page: page)
            }
        }
    }

    /// ``read(_:at:into:page:)`` into a new array.
    func read(_ length: Int, at offset: Int, page: UInt32? = nil) throws(SQLiteError) -> [UInt8] {
        var buffer: [UInt8] = []
        try read(length, at: offset, into: &buffer, page: page)
        return buffer
    }
}
