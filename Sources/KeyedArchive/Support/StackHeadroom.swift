#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How much stack the current thread has left, for the paths that nest as deeply as their
/// input does (decoding objects inside objects, encoding a caller's object graph).
///
/// The nesting limits (512 levels by default, as CoreFoundation) bound the work, but not
/// the stack: one level of a `KeyedCoding` class costs a few kilobytes, more under a
/// sanitizer, and a secondary thread may have only 512 KB (Apple's default) or 128 KB
/// (musl's). These paths ask ``isLow()`` as they go deeper and fail with
/// `limitExceeded` while ``reserve`` bytes remain, instead of overflowing.
enum StackHeadroom {
    /// The stack that must remain free for one more level and for unwinding with an error.
    static var reserve: Int { 64 * 1024 }

    /// How deep a path may nest before it starts asking: shallow nesting, the common case,
    /// pays nothing.
    static var uncheckedDepth: Int { 4 }

    /// Whether less than ``reserve`` bytes of stack remain on the current thread; `false`
    /// when the thread's stack cannot be found out.
    ///
    /// - Complexity: O(1); the first call on a thread asks the system for its stack.
    @inline(never)
    static func isLow() -> Bool {
        guard let low = lowestAddress() else { return false }
        var marker: UInt8 = 0
        let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        return here < low || here - low < UInt(reserve)
    }

    /// The error message for nesting stopped at `depth` levels by the stack left.
    static func message(depth: Int) -> String {
        "nesting stopped at \(depth) levels: less than \(reserve / 1024) KB of this thread's stack is left "
            + "(run on a thread with a larger stack, or lower maximumDepth)"
    }

    /// The stack's lowest usable address on the current thread, cached per thread.
    private static func lowestAddress() -> UInt? {
        guard let key = threadKey else { return systemLowestAddress() }
        if let cached = pthread_getspecific(key) {
            let value = UInt(bitPattern: cached)
            return value == unknown ? nil : value
        }
        let found = systemLowestAddress()
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: found ?? unknown))
        return found
    }

    /// What the per-thread cache holds when the stack could not be found out.
    private static let unknown: UInt = 1

    private static let threadKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    private static func systemLowestAddress() -> UInt? {
        #if canImport(Darwin)
        let thread = pthread_self()
        let top = UInt(bitPattern: pthread_get_stackaddr_np(thread))
        let size = UInt(pthread_get_stacksize_np(thread))
        return top > size ? top - size : nil
        #elseif canImport(Glibc) || canImport(Musl)
        var attributes = pthread_attr_t()
        guard threadAttributes(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var address: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address, size > 0 else {
            return nil
        }
        return UInt(bitPattern: address)
        #else
        return nil
        #endif
    }
}

#if canImport(Glibc) || canImport(Musl)
/// glibc's and musl's `pthread_getattr_np`, which the C library module leaves out (it is
/// declared only with `_GNU_SOURCE`): the attributes, stack included, of a running thread.
@_silgen_name("pthread_getattr_np")
private func threadAttributes(_ thread: pthread_t, _ attributes: UnsafeMutablePointer<pthread_attr_t>)
    -> Int32
#endif
