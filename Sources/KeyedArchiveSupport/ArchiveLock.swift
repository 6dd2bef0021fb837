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

/// A minimal mutual-exclusion lock that works with or without full Foundation.
@usableFromInline package final class ArchiveLock: @unchecked Sendable {
    package init() {}

    #if canImport(Darwin)
    @usableFromInline let mutex: UnsafeMutablePointer<os_unfair_lock> = {
        let pointer = UnsafeMutablePointer<os_unfair_lock>.allocate(capacity: 1)
        pointer.initialize(to: os_unfair_lock())
        return pointer
    }()

    deinit { mutex.deallocate() }

    @inlinable package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        os_unfair_lock_lock(mutex)
        defer { os_unfair_lock_unlock(mutex) }
        return try body()
    }
    #elseif canImport(ucrt)
    @usableFromInline let mutex: UnsafeMutablePointer<SRWLOCK> = {
        let pointer = UnsafeMutablePointer<SRWLOCK>.allocate(capacity: 1)
        InitializeSRWLock(pointer)
        return pointer
    }()

    deinit { mutex.deallocate() }

    @inlinable package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        AcquireSRWLockExclusive(mutex)
        defer { ReleaseSRWLockExclusive(mutex) }
        return try body()
    }
    #else
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let pointer = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(pointer, nil)
        return pointer
    }()

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
    #endif
}
