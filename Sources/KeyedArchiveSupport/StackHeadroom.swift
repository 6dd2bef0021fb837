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
// `@usableFromInline`: without it the `@inlinable` members below are not serialized, and
// other modules call `uncheckedDepth` out of line for every object decoded.
@usableFromInline package enum StackHeadroom {
    /// The stack that must remain free for one more level and for unwinding with an error.
    @inlinable package static var reserve: Int { 64 * 1024 }

    /// How deep a path may nest before it starts asking: shallow nesting, the common case,
    /// pays nothing. Inlinable: asked for every object decoded, from other modules
    /// (a call each, out of line: callgrind, `idiomatic/…`).
    @inlinable package static var uncheckedDepth: Int { 4 }

    /// Whether less than ``reserve`` bytes of stack remain on the current thread; `false`
    /// when the thread's stack cannot be found out. Under AddressSanitizer, whose "fake
    /// stack" may hold this frame's locals on the heap, the frame's real address is asked for.
    ///
    /// - Complexity: O(1); the first call on a thread asks the system for its stack.
    @inline(never)
    package static func isLow() -> Bool {
        guard let stack = bounds() else { return false }
        var marker: UInt8 = 0
        var here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        if here < stack.low || here >= stack.high, let real = realFrameAddress(of: here) { here = real }
        guard here >= stack.low, here < stack.high else { return false }
        return here - stack.low < UInt(reserve)
    }

    /// Under AddressSanitizer, which may keep a frame's locals in a "fake stack" on the heap,
    /// the address on the real stack of the frame holding `address`; `nil` otherwise.
    private static func realFrameAddress(of address: UInt) -> UInt? {
        guard let sanitizer = addressSanitizer, let fakeStack = sanitizer.currentFakeStack() else {
            return nil
        }
        let real = sanitizer.realFrame(fakeStack, UnsafeMutableRawPointer(bitPattern: address), nil, nil)
        return real.map { UInt(bitPattern: $0) }
    }

    private typealias CurrentFakeStack = @convention(c) () -> UnsafeMutableRawPointer?
    private typealias RealFrame =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> UnsafeMutableRawPointer?

    /// AddressSanitizer's fake-stack queries, when it is in the process.
    private static let addressSanitizer: (currentFakeStack: CurrentFakeStack, realFrame: RealFrame)? = {
        let process = dlopen(nil, RTLD_NOW)
        guard let current = dlsym(process, "__asan_get_current_fake_stack"),
            let lookup = dlsym(process, "__asan_addr_is_in_fake_stack")
        else { return nil }
        return (unsafeBitCast(current, to: CurrentFakeStack.self), unsafeBitCast(lookup, to: RealFrame.self))
    }()

    /// The current thread's stack, cached per thread (two keys: its lowest usable address
    /// and its end).
    private static func bounds() -> (low: UInt, high: UInt)? {
        guard let keys = threadKeys else { return systemBounds() }
        if let cachedLow = pthread_getspecific(keys.low) {
            let low = UInt(bitPattern: cachedLow)
            guard low != unknown, let cachedHigh = pthread_getspecific(keys.high) else { return nil }
            return (low, UInt(bitPattern: cachedHigh))
        }
        let found = systemBounds()
        _ = pthread_setspecific(keys.low, UnsafeRawPointer(bitPattern: found?.low ?? unknown))
        _ = pthread_setspecific(keys.high, UnsafeRawPointer(bitPattern: found?.high ?? unknown))
        return found
    }

    /// What the per-thread cache holds when the stack could not be found out.
    private static let unknown: UInt = 1

    private static let threadKeys: (low: pthread_key_t, high: pthread_key_t)? = {
        var low = pthread_key_t()
        var high = pthread_key_t()
        guard pthread_key_create(&low, nil) == 0, pthread_key_create(&high, nil) == 0 else { return nil }
        return (low, high)
    }()

    private static func systemBounds() -> (low: UInt, high: UInt)? {
        guard let stack = systemStack(), stack.size > 0 else { return nil }
        let (high, overflow) = stack.low.addingReportingOverflow(stack.size)
        return overflow ? nil : (stack.low, high)
    }

    /// The error message for nesting stopped at `depth` levels by the stack left.
    package static func message(depth: Int) -> String {
        "nesting stopped at \(depth) levels: less than \(reserve / 1024) KB of this thread's stack is left "
            + "(run on a thread with a larger stack, or lower maximumDepth)"
    }

    /// The thread's stack as the system reports it: its lowest address and its size.
    private static func systemStack() -> (low: UInt, size: UInt)? {
        #if canImport(Darwin)
        let thread = pthread_self()
        let top = UInt(bitPattern: pthread_get_stackaddr_np(thread))
        let size = UInt(pthread_get_stacksize_np(thread))
        return top > size ? (top - size, size) : nil
        #elseif canImport(Glibc) || canImport(Musl)
        var attributes = pthread_attr_t()
        guard threadAttributes(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var address: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address, size > 0 else {
            return nil
        }
        return (UInt(bitPattern: address), UInt(size))
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
