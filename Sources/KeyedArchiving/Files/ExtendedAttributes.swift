#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's extended attributes (`user.*`, ACLs, security labels, `com.apple.*`), copied by
/// ``DurableFileWriter`` from the file it replaces to the new file before the rename, so
/// that replacing a file does not strip them.
enum ExtendedAttributes {
    /// Copies every extended attribute of the file at `path` (not following a symbolic link)
    /// to the open file `descriptor`.
    ///
    /// An attribute this process may not read or set (`trusted.*` or `security.*` without
    /// the privilege, say), one removed meanwhile, and file systems without extended
    /// attributes are passed over: the new file keeps what the process can give it.
    ///
    /// - Parameters:
    ///   - path: The file replaced.
    ///   - descriptor: The new file, open for writing.
    ///   - shown: The destination as messages name it.
    /// - Throws: ``KeyedArchiveError`` with code `fileOperationFailed`, naming the attribute,
    ///   the file and the system's reason, when one cannot be read or set for another reason
    ///   (no space left, a quota, an I/O error).
    static func copy(from path: String, to descriptor: Int32, shown: String) throws(KeyedArchiveError) {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        guard let names = try names(of: path, shown: shown) else { return }
        for name in names {
            guard let value = try value(of: name, at: path, shown: shown) else { continue }
            let result = value.withUnsafeBytes { bytes in
                systemSetAttribute(descriptor, name, bytes.baseAddress, bytes.count)
            }
            let code = errno
            if result != 0 && !isPassedOver(code) {
                throw failure(code, "cannot copy the extended attribute \(text(name)) of \(shown)")
            }
        }
        #endif
    }

    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    /// Errors that mean this attribute cannot be had here, not that something went wrong.
    private static func isPassedOver(_ code: Int32) -> Bool {
        #if canImport(Darwin)
        return code == EPERM || code == EACCES || code == ENOTSUP || code == EOPNOTSUPP || code == ENOATTR
        #else
        return code == EPERM || code == EACCES || code == EOPNOTSUPP || code == ENODATA
        #endif
    }

    /// A name as messages show it (names are bytes; they are not always UTF-8).
    private static func text(_ name: [CChar]) -> String {
        String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names of the attributes of `path`, each as its bytes and a terminating NUL, or
    /// `nil` when it has none it can tell.
    private static func names(of path: String, shown: String) throws(KeyedArchiveError) -> [[CChar]]? {
        // The list may grow between asking its size and reading it: ask again (ERANGE).
        for _ in 0..<8 {
            let size = systemListAttributes(path, nil, 0)
            if size < 0 {
                let code = errno
                if isPassedOver(code) || code == ENOENT { return nil }
                throw failure(code, "cannot list the extended attributes of \(shown)")
            }
            if size == 0 { return [] }
            var buffer = [CChar](repeating: 0, count: size)
            let count = buffer.withUnsafeMutableBufferPointer {
                systemListAttributes(path, $0.baseAddress, size)
            }
            if count < 0 {
                let code = errno
                if code == ERANGE { continue }
                if isPassedOver(code) || code == ENOENT { return nil }
                throw failure(code, "cannot list the extended attributes of \(shown)")
            }
            // Names, each ended by a NUL byte.
            return buffer.prefix(count).split(separator: 0).map { Array($0) + [0] }
        }
        throw failure(ERANGE, "cannot list the extended attributes of \(shown) (they kept changing)")
    }

    /// The value of the attribute `name` of `path`, or `nil` when it cannot be had here.
    private static func value(of name: [CChar], at path: String, shown: String) throws(KeyedArchiveError)
        -> [UInt8]?
    {
        for _ in 0..<8 {
            let size = systemGetAttribute(path, name, nil, 0)
            if size < 0 {
                let code = errno
                if isPassedOver(code) || code == ENOENT { return nil }
                throw failure(code, "cannot read the extended attribute \(text(name)) of \(shown)")
            }
            var value = [UInt8](repeating: 0, count: size)
            let count = value.withUnsafeMutableBytes { systemGetAttribute(path, name, $0.baseAddress, size) }
            if count < 0 {
                let code = errno
                if code == ERANGE { continue }
                if isPassedOver(code) || code == ENOENT { return nil }
                throw failure(code, "cannot read the extended attribute \(text(name)) of \(shown)")
            }
            return Array(value.prefix(count))
        }
        throw failure(
            ERANGE, "cannot read the extended attribute \(text(name)) of \(shown) (it kept changing)")
    }

    private static func failure(_ code: Int32, _ what: String) -> KeyedArchiveError {
        KeyedArchiveError(.fileOperationFailed, "\(what): \(String(cString: strerror(code)))")
    }
    #endif
}

#if canImport(Darwin)
private func systemListAttributes(_ path: String, _ list: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int {
    listxattr(path, list, size, XATTR_NOFOLLOW)
}

private func systemGetAttribute(
    _ path: String, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
) -> Int {
    getxattr(path, name, value, size, 0, XATTR_NOFOLLOW)
}

private func systemSetAttribute(
    _ descriptor: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int
) -> Int32 {
    fsetxattr(descriptor, name, value, size, 0, 0)
}
#elseif canImport(Glibc) || canImport(Musl)
// glibc's and musl's `<sys/xattr.h>`, which the C library module leaves out (as
// `pthread_getattr_np` in StackHeadroom.swift): pointers and integers only.

/// `llistxattr(2)`: the attribute names of a path, not following a symbolic link.
@_silgen_name("llistxattr")
private func systemListAttributes(
    _ path: UnsafePointer<CChar>, _ list: UnsafeMutablePointer<CChar>?, _ size: Int
)
    -> Int

/// `lgetxattr(2)`: one attribute's value, not following a symbolic link.
@_silgen_name("lgetxattr")
private func systemGetAttribute(
    _ path: UnsafePointer<CChar>, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
) -> Int

/// `fsetxattr(2)` with no flags: creates or replaces one attribute of an open file.
@_silgen_name("fsetxattr")
private func systemSetAttribute(
    _ descriptor: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32
) -> Int32

private func systemSetAttribute(
    _ descriptor: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int
) -> Int32 {
    systemSetAttribute(descriptor, name, value, size, 0)
}
#endif
