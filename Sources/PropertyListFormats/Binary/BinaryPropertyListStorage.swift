import KeyedArchiveSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable table of plain values for ``BinaryPropertyListBuilder`` (its objects and
/// its references), in one `malloc` allocation that grows with `realloc`.
///
/// An array grows by allocating a buffer twice the size, copying into it and freeing the
/// old one: for a moment both are held, and whatever room the new one has beyond its
/// elements is zero-filled or waiting. `realloc` extends the allocation where it is when
/// it can (a large one by remapping its pages), so growing costs neither a copy nor a
/// second buffer, and room not yet written is never touched. ``reserve(_:)`` sizes it
/// exactly once the final count is known.
///
/// Indices out of range read `outOfRange` and writes to them are dropped, so a wrong index
/// is never a memory error (the builder checks its indices before use, and reports an
/// out-of-range reference as an error when it finishes).
///
/// A class, so that the builder's mutations reach it without copies; a builder that holds
/// one is never copied and then used twice.
final class BinaryPropertyListStorage<Element: BitwiseCopyable> {
    // Touched for every object and reference added, by one thread, never across a call
    // that could reach them again: no dynamic exclusivity checks.
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<Element>?
    @exclusivity(unchecked) private var capacity = 0
    /// The number of elements stored.
    @exclusivity(unchecked) private(set) var count = 0
    private let outOfRange: Element

    /// Creates an empty table whose reads out of range give `outOfRange`.
    init(outOfRange: Element) {
        self.outOfRange = outOfRange
    }

    deinit {
        free(base)
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        get {
            guard index >= 0, index < count, let base else { return outOfRange }
            return base[index]
        }
        set {
            guard index >= 0, index < count, let base else { return }
            base[index] = newValue
        }
    }

    /// The elements in `range`, clamped to those stored. Valid until the table next grows.
    @inline(__always)
    subscript(range: Range<Int>) -> UnsafeBufferPointer<Element> {
        let lower = min(max(range.lowerBound, 0), count)
        let upper = min(max(range.upperBound, lower), count)
        return UnsafeBufferPointer(start: base.map { $0 + lower }, count: upper - lower)
    }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow(toHold: count + 1) }
        guard let base else { return }
        base[count] = element
        count += 1
    }

    /// Appends `run`, written in place (cheaper than an array's `append(contentsOf:)`
    /// for the few elements of one object).
    @inline(__always)
    func append<Run: Collection>(_ run: Run, converting convert: (Run.Element) -> Element) {
        let end = count + run.count
        if end > capacity { grow(toHold: end) }
        guard let base else { return }
        var index = count
        for value in run where index < end {
            base[index] = convert(value)
            index += 1
        }
        count = index
    }

    func removeLast() {
        if count > 0 { count -= 1 }
    }

    /// Drops the elements from `newCount` on.
    func truncate(to newCount: Int) {
        count = min(max(newCount, 0), count)
    }

    /// Makes room for `minimumCapacity` elements in all, exactly (for a count known in
    /// advance: the next growth would otherwise double the table).
    func reserve(_ minimumCapacity: Int) {
        if minimumCapacity > capacity { resize(to: minimumCapacity) }
    }

    /// Runs `body` over the stored elements.
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Appends bytes with one copy (a string's or data's payload; an array's
    /// `append(contentsOf:)` of a raw buffer cost ~180 instructions a call, callgrind).
    @inline(__always)
    func append(bytes run: UnsafeRawBufferPointer) where Element == UInt8 {
        guard let source = run.baseAddress, !run.isEmpty else { return }
        let end = count + run.count
        if end > capacity { grow(toHold: end) }
        guard let base, end <= capacity else { return }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: run.count)
        count = end
    }

    @inline(never)
    private func grow(toHold needed: Int) {
        resize(to: max(needed, 2 * capacity, 256))
    }

    private func resize(to newCapacity: Int) {
        let bytes = newCapacity * MemoryLayout<Element>.stride
        if let moved = realloc(base, bytes) {
            base = moved.bindMemory(to: Element.self, capacity: newCapacity)
        } else {
            // As Swift's own allocation does when memory is exhausted.
            let fresh = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
            if let base { fresh.initialize(from: base, count: count) }
            free(base)
            base = fresh
        }
        capacity = newCapacity
    }
}

/// A growable table of plain values in chunks of fixed size, for the builder's objects:
/// growing allocates one more chunk and never moves what is stored, so it needs no
/// `realloc` to be cheap (a heap that cannot extend an allocation in place copies it, and
/// holds both copies for a moment), and at most one chunk is allocated ahead of the values.
///
/// Indices out of range read `outOfRange` and writes to them are dropped, as in
/// ``BinaryPropertyListStorage``. A class, never copied by its owner.
final class BinaryPropertyListChunks<Element: BitwiseCopyable> {
    /// 2^10 elements a chunk (24 KB of the builder's objects): small enough to go where
    /// earlier, freed allocations were (a heap that holds free pages touched before
    /// counts them in the process's memory, so reusing them costs nothing more).
    private static var chunkShift: Int { 10 }
    private static var chunkSize: Int { 1 << chunkShift }
    // As in BinaryPropertyListStorage: no dynamic exclusivity checks.
    @exclusivity(unchecked) private var chunks: [UnsafeMutablePointer<Element>] = []
    /// The number of elements stored.
    @exclusivity(unchecked) private(set) var count = 0
    private let outOfRange: Element

    /// Creates an empty table whose reads out of range give `outOfRange`.
    init(outOfRange: Element) {
        self.outOfRange = outOfRange
    }

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// Whether `index` is that of a stored element.
    @inline(__always)
    func contains(_ index: Int) -> Bool {
        index >= 0 && index < count
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        get {
            guard index >= 0, index < count else { return outOfRange }
            return chunks[index &>> Self.chunkShift][index & (Self.chunkSize - 1)]
        }
        set {
            guard index >= 0, index < count else { return }
            chunks[index &>> Self.chunkShift][index & (Self.chunkSize - 1)] = newValue
        }
    }

    @inline(__always)
    func append(_ element: Element) {
        let offset = count & (Self.chunkSize - 1)
        if offset == 0, count &>> Self.chunkShift == chunks.count {
            chunks.append(.allocate(capacity: Self.chunkSize))
        }
        (chunks[count &>> Self.chunkShift] + offset).initialize(to: element)
        count += 1
    }

    func removeLast() {
        if count > 0 { count -= 1 }
    }

    /// Runs `body` over the stored elements, a chunk at a time, in order.
    func forEachChunk(_ body: (UnsafeBufferPointer<Element>) throws -> Void) rethrows {
        var remaining = count
        for chunk in chunks where remaining > 0 {
            let length = min(remaining, Self.chunkSize)
            try body(UnsafeBufferPointer(start: chunk, count: length))
            remaining -= length
        }
    }
}

/// An open-addressing table of objects for the builder's de-duplication (object + 1 per
/// slot; 0 is an empty slot), a power of two slots in one zero-filled allocation.
///
/// A Swift array of slots cost a uniqueness check on every write and bounds checks on
/// every probe of every string a writer interns. Reads out of range give 0 (empty, which
/// ends a probe) and writes out of range are dropped, so a wrong slot is never a memory
/// error. A class, never copied by its owner.
final class BinaryPropertyListSlots {
    // As in BinaryPropertyListStorage: no dynamic exclusivity checks.
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<UInt32>?
    /// The number of slots (0, or a power of two).
    @exclusivity(unchecked) private(set) var capacity = 0

    deinit {
        base?.deallocate()
    }

    @inline(__always)
    subscript(slot: Int) -> UInt32 {
        get {
            guard slot >= 0, slot < capacity, let base else { return 0 }
            return base[slot]
        }
        set {
            guard slot >= 0, slot < capacity, let base else { return }
            base[slot] = newValue
        }
    }

    /// Moves the stored objects into a table of `newCapacity` slots (a power of two, more
    /// than twice as many as stored), each at the first empty slot from `hash(object + 1)`.
    func rehash(to newCapacity: Int, hash: (UInt32) -> Int) {
        let old = base
        let oldCapacity = capacity
        let fresh = UnsafeMutablePointer<UInt32>.allocate(capacity: newCapacity)
        fresh.initialize(repeating: 0, count: newCapacity)
        base = fresh
        capacity = newCapacity
        if let old {
            for index in 0..<oldCapacity {
                let stored = old[index]
                guard stored != 0 else { continue }
                let slot = LinearProbing.emptySlot(
                    hash: hash(stored), capacity: newCapacity, isEmpty: { fresh[$0] == 0 })
                fresh[slot] = stored
            }
            old.deallocate()
        }
    }

    /// Frees the slots; the table is empty, with no capacity.
    func removeAll() {
        base?.deallocate()
        base = nil
        capacity = 0
    }
}
