#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
import WinSDK
#endif

/// The process-wide class-name tables behind ``KeyedArchiver/setClassName(_:for:)-swift.type.method``
/// and ``KeyedUnarchiver/setClass(_:forClassName:)-swift.type.method``.
///
/// Archivers and unarchivers consult it once per class they meet, so the lock is not
/// on any per-object path.
final class ArchiveClassRegistry: @unchecked Sendable {
    static let shared = ArchiveClassRegistry()

    private let lock = ArchiveLock()
    /// Archived names by type, for writing.
    private var namesByType: [ObjectIdentifier: String] = [:]
    /// Types by archived name, for reading.
    private var typesByName: [String: any KeyedCoding.Type] = [:]

    func setClassName(_ name: String?, for type: any KeyedCoding.Type) {
        lock.withLock { namesByType[ObjectIdentifier(type)] = name }
    }

    func className(for type: any KeyedCoding.Type) -> String? {
        lock.withLock { namesByType[ObjectIdentifier(type)] }
    }

    func setClass(_ type: (any KeyedCoding.Type)?, forClassName name: String) {
        lock.withLock { typesByName[name] = type }
    }

    func type(forClassName name: String) -> (any KeyedCoding.Type)? {
        lock.withLock { typesByName[name] }
    }
}

/// A minimal mutual-exclusion lock that works with or without full Foundation.
final class ArchiveLock: @unchecked Sendable {
    #if canImport(Darwin)
    private let mutex: UnsafeMutablePointer<os_unfair_lock> = {
        let pointer = UnsafeMutablePointer<os_unfair_lock>.allocate(capacity: 1)
        pointer.initialize(to: os_unfair_lock())
        return pointer
    }()

    deinit { mutex.deallocate() }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        os_unfair_lock_lock(mutex)
        defer { os_unfair_lock_unlock(mutex) }
        return try body()
    }
    #elseif canImport(ucrt)
    private let mutex: UnsafeMutablePointer<SRWLOCK> = {
        let pointer = UnsafeMutablePointer<SRWLOCK>.allocate(capacity: 1)
        InitializeSRWLock(pointer)
        return pointer
    }()

    deinit { mutex.deallocate() }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        AcquireSRWLockExclusive(mutex)
        defer { ReleaseSRWLockExclusive(mutex) }
        return try body()
    }
    #else
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let pointer = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(pointer, nil)
        return pointer
    }()

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
    #endif
}
