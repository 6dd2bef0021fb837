/// The one stack of the package: the readers' finished values and keys, their open
/// containers, and the archiver's field and element object numbers.
///
/// Its storage is either lent by the owner (``init(lending:)``: space on the call stack,
/// from `withUnsafeTemporaryAllocation`, so that a small document allocates nothing for
/// it) or on the heap (``init(capacity:)``), as ``IndexBits`` and ``BorrowedIndexBits``
/// are for bits; lent storage moves to the heap when it is outgrown. The heap storage grows
/// geometrically with what was pushed, which the readers' value budgets and depth limits
/// bound.
///
/// A container ends by moving its children out in one go (``popArray(from:)``,
/// ``pop(from:_:)``), so building it costs no reference counting per
/// child. Indices below ``count`` are initialized. Positions passed in (`start`) are
/// never input: they are counts the owner took earlier, so a bad one is a bug of ours,
/// checked by an `assert`; release builds still keep every access inside the stack.
///
/// A class, so that a reader's stacks can be kept in a context from one document to the
/// next and reached without copying. An owner of lent storage calls ``releaseAll()``
/// before that storage goes away (also when it throws).
@usableFromInline package final class Stack<Element> {
    // Touched for every value read; no access spans a call that could reach the stack
    // again, so Swift's dynamic exclusivity checks on class properties would only cost
    // time (XML reader: see Documentation/Internals.md, "Unsafe code").
    @exclusivity(unchecked) @usableFromInline var base: UnsafeMutablePointer<Element>?
    @exclusivity(unchecked) @usableFromInline var storedCapacity: Int
    @exclusivity(unchecked) @usableFromInline var storedCount = 0
    @usableFromInline var isOnHeap: Bool

    // Read through these from other modules: there a direct read of an
    // `@exclusivity(unchecked)` stored property is checked after all (a call to
    // `swift_beginAccess` per read; 1.9 million of them reading a 5 MB XML file).
    /// The number of elements the storage has room for.
    @inlinable package var capacity: Int { storedCapacity }
    /// The number of elements on the stack.
    @inlinable package var count: Int { storedCount }
    /// Whether the stack has no elements.
    @inlinable package var isEmpty: Bool { storedCount == 0 }

    /// A stack on the heap, with room for `capacity` elements to start with.
    @inlinable package init(capacity: Int = 64) {
        storedCapacity = max(capacity, 1)
        base = UnsafeMutablePointer<Element>.allocate(capacity: storedCapacity)
        isOnHeap = true
    }

    /// A stack in `space` (uninitialized memory that outlives the stack's use, or until
    /// ``releaseAll()``); it moves to the heap if it outgrows the space.
    @inlinable package init(lending space: UnsafeMutableBufferPointer<Element>) {
        base = space.baseAddress
        storedCapacity = space.baseAddress == nil ? 0 : space.count
        isOnHeap = false
    }

    deinit {
        base?.deinitialize(count: storedCount)
        if isOnHeap { base?.deallocate() }
    }

    @inline(__always)
    @inlinable package func push(_ element: consuming Element) {
        if storedCount == storedCapacity { grow() }
        guard let base else { return }
        (base + storedCount).initialize(to: element)
        storedCount += 1
    }

    @inline(never)
    @inlinable func grow() {
        let newCapacity = Swift.max(16, storedCapacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let base {
            newBase.moveInitialize(from: base, count: storedCount)
            if isOnHeap { base.deallocate() }
        }
        base = newBase
        storedCapacity = newCapacity
        isOnHeap = true
    }

    /// Whether `start` is a position from which the elements to the top can be taken:
    /// `0...count`. Asserted: positions are counts the owner took earlier.
    @inline(__always)
    @inlinable func isValidStart(_ start: Int) -> Bool {
        let valid = start >= 0 && start <= storedCount
        assert(valid, "stack position \(start) outside 0...\(storedCount)")
        return valid
    }

    /// The element at `index`, or `nil` if there is none.
    @inlinable package subscript(index: Int) -> Element? {
        guard index >= 0, index < storedCount, let base else { return nil }
        return base[index]
    }

    /// The top element, or `nil` if the stack is empty.
    @inlinable package var last: Element? { self[storedCount - 1] }

    /// The elements from `start` to the top, lent in place: valid until the stack next
    /// changes.
    @inlinable package func elements(from start: Int) -> UnsafeBufferPointer<Element> {
        guard isValidStart(start), start < storedCount, let base else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(start: base + start, count: storedCount - start)
    }

    /// The elements from `start` to the top, lent in place for changing: valid until the
    /// stack next changes.
    @inlinable package func mutableElements(from start: Int) -> UnsafeMutableBufferPointer<Element> {
        guard isValidStart(start), start < storedCount, let base else {
            return UnsafeMutableBufferPointer(start: nil, count: 0)
        }
        return UnsafeMutableBufferPointer(start: base + start, count: storedCount - start)
    }

    /// Drops the elements from `start` to the top.
    @inlinable package func removeAll(from start: Int) {
        guard isValidStart(start), start < storedCount, let base else { return }
        (base + start).deinitialize(count: storedCount - start)
        storedCount = start
    }

    /// When the stack is empty and its storage has room for more than `limit` elements,
    /// replaces the storage with heap storage for `capacity`: for stacks kept from one use
    /// to the next, which should not hold on to what one large use needed.
    @inlinable package func shrink(above limit: Int, to capacity: Int) {
        guard storedCount == 0, storedCapacity > limit else { return }
        if isOnHeap { base?.deallocate() }
        storedCapacity = max(capacity, 1)
        base = UnsafeMutablePointer<Element>.allocate(capacity: storedCapacity)
        isOnHeap = true
    }

    /// Moves the top element out, or returns `nil` if the stack is empty.
    @inlinable package func popLast() -> Element? {
        guard storedCount > 0, let base else { return nil }
        storedCount -= 1
        return (base + storedCount).move()
    }

    /// Moves the elements from `start` to the top out, in order, as an array.
    ///
    /// Not inlined: inlined into the binary reader's loop, its appends were no longer
    /// inlined themselves (callgrind: a call per element).
    @inline(never)
    @inlinable package func popArray(from start: Int) -> [Element] {
        guard isValidStart(start), start < storedCount, let base else { return [] }
        let end = storedCount
        // Shrink first: the moved-out slots are never touched again.
        storedCount = start
        return (base + start).moveElements(count: end - start)
    }

    /// Moves the elements from `start` to the top out, in order, handing each to `consume`
    /// with its position counted from `start`.
    @inlinable package func pop(from start: Int, _ consume: (Int, consuming Element) -> Void) {
        guard isValidStart(start), start < storedCount, let base else { return }
        let end = storedCount
        // Shrink first: whatever `consume` does, the moved-out slots are never touched again.
        storedCount = start
        for index in start..<end { consume(index - start, (base + index).move()) }
    }

    /// Destroys every element and gives back any heap storage; the stack is then empty
    /// and, if pushed to again, starts on the heap. Calling it again does nothing. The
    /// owner of lent storage calls it before that storage goes away.
    @inlinable package func releaseAll() {
        if let base {
            base.deinitialize(count: storedCount)
            if isOnHeap { base.deallocate() }
        }
        base = nil
        storedCapacity = 0
        storedCount = 0
        isOnHeap = false
    }
}

extension UnsafeMutablePointer {
    /// Moves `count` initialized elements out, from this one on, into a new array (the
    /// memory is left uninitialized): the stack's `popArray`.
    ///
    /// Reserve and append: `Array(unsafeUninitializedCapacity:)` and
    /// `Array(repeating:count:)` allocate through an unspecialized path that looks the
    /// storage class up at run time (measured: ~700 instructions an array, more than moving
    /// a small array's elements), and `Array(UnsafeMutableBufferPointer)` copies and then
    /// releases each element (+15% for a small binary property list).
    @inline(__always)
    @inlinable package func moveElements(count: Int) -> [Pointee] {
        var result: [Pointee] = []
        result.reserveCapacity(count)
        for index in 0..<count { result.append((self + index).move()) }
        return result
    }
}
