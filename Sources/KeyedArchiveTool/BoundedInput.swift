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

/// The one way the tool reads an input — a file, a device, a FIFO, standard input — whole,
/// and never more than a stated number of bytes.
///
/// A regular file larger than the maximum is refused from its size, before a byte is read;
/// anything else (a pipe, `/dev/zero`, a file that grows while it is read) is read until
/// one byte more than the maximum arrives, and then refused. Memory therefore stays within
/// the maximum (plus one byte) whatever the input claims or streams.
enum BoundedInput {
    /// The most bytes the tool reads from one input: 64 MB. The tool's memory bound
    /// (Documentation/Security.md) is stated for inputs far below it; a property list of
    /// 64 MB is already beyond what any application file format or `plutil` user writes,
    /// and reading it leaves room, within the memory of a small machine, for the value it
    /// describes (the readers build at most 64 values per input byte).
    static let maximumBytes = 64 << 20

    /// The message for an input of more than `largest` bytes; `what` is `file` or
    /// `standard input`: `file is larger than 67108864 bytes (64 MB), the most keyed-archive
    /// reads from one input`.
    static func tooLargeMessage(_ what: String, largest: Int) -> String {
        let megabytes = largest >= 1 << 20 && largest % (1 << 20) == 0 ? " (\(largest >> 20) MB)" : ""
        return
            "\(what) is larger than \(largest) bytes\(megabytes), the most keyed-archive reads from one input"
    }

    /// Why reading stopped.
    enum Failure: Error, Equatable {
        /// The input holds more than the maximum.
        case tooLarge
        /// A system call failed with this `errno`.
        case system(Int32)
    }

    /// ``read(_:largest:)`` with its failures as the messages the tool prints.
    ///
    /// - Parameter what: `file` or `standard input`, for the message.
    /// - Throws: ``FileSystemError``: ``tooLargeMessage(_:largest:)``, or the system's reason
    ///   (`strerror`).
    static func read(_ descriptor: Int32, largest: Int, naming what: String) throws(FileSystemError) -> Data {
        do {
            return try read(descriptor, largest: largest)
        } catch {
            switch error {
            case .tooLarge: throw FileSystemError(message: tooLargeMessage(what, largest: largest))
            case .system(let code): throw FileSystemError(message: String(cString: strerror(code)))
            }
        }
    }

    /// Reads `descriptor` from where it stands to its end, at most `largest` bytes.
    ///
    /// - Parameters:
    ///   - descriptor: An open descriptor, read with `read(2)`; interrupted reads are resumed.
    ///   - largest: The most bytes accepted; the input fails at one byte more.
    /// - Returns: Everything read.
    /// - Throws: ``Failure/tooLarge`` when the input holds more than `largest` bytes (a
    ///   regular file's size says so before anything is read), ``Failure/system(_:)`` when
    ///   `read` fails.
    /// - Complexity: O(*n*) for *n* bytes read; the buffer grows geometrically up to
    ///   `largest + 1` bytes and never beyond.
    static func read(_ descriptor: Int32, largest: Int) throws(Failure) -> Data {
        let limit = max(0, largest)
        // One byte over the limit tells a full input from a longer one.
        let capacity = limit == .max ? limit : limit + 1
        var initial = 1 << 16
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & 0o170000 == 0o100000 {
            // A regular file says how much is left: refused at once if too much, otherwise
            // read in one call (plus the call that finds its end, or what it gained since).
            let offset = lseek(descriptor, 0, SEEK_CUR)
            let remaining = Int64(info.st_size) - max(0, Int64(offset))
            if remaining > Int64(limit) { throw .tooLarge }
            initial = Int(max(0, remaining)) + 1
        }
        var bytes = Data(count: min(initial, capacity))
        var filled = 0
        while true {
            if filled == bytes.count {
                if filled > limit { throw .tooLarge }
                // Doubling, but never past one byte over the limit: the last growth is
                // the one that proves the input too long.
                let (doubled, overflow) = bytes.count.multipliedReportingOverflow(by: 2)
                bytes.count = min(overflow ? capacity : max(doubled, 1 << 16), capacity)
            }
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return systemRead(descriptor, base + filled, buffer.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if count == 0 { break }
            filled += count
        }
        if filled > limit { throw .tooLarge }
        bytes.count = filled
        return bytes
    }
}

/// The POSIX `read`, under a name that doesn't clash with Swift's `read` methods.
@inline(__always)
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    return Musl.read(descriptor, buffer, count)
    #else
    return Glibc.read(descriptor, buffer, count)
    #endif
}
