/// A stack that hands its top elements out by moving them, so that building a container
/// from its children costs no reference counting per child: the one stack of the readers.
///
/// The XML reader and the binary reader's materializer push every finished value here and,
/// when a container ends, move its children out in one go. Indices below ``count`` are
/// initialized; every access checks its index against ``count``. Its storage grows
/// geometrically with what was pushed, which the readers' value budget bounds.
@usableFromInline package final class MovingStack<Element> {
    // Touched for every value read; no access spans a call that could reach the stack
    // again, so Swift's dynamic exclusivity checks on class properties would only cost time.
    @exclusivity(unchecked) @usableFromInline var base: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) @usableFromInline var storedCapacity: Int
    @exclusivity(unchecked) @usableFromInline var storedCount = 0

    // Read through these from other modules: there a direct read of an
    // `@exclusivity(unchecked)` stored property is checked after all (a call to
    // `swift_beginAccess` per read; 1.9 million of them reading a 5 MB XML file).
    /// The number of elements the storage has room for.
    @inlinable package var capacity: Int { storedCapacity }
    /// The number of elements on the stack.
    @inlinable package var count: Int { storedCount }

    @inlinable package init(capacity: Int = 64) {
        storedCapacity = max(capacity, 1)
        base = UnsafeMutablePointer<Element>.allocate(capacity: storedCapacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    @inlinable package func push(_ element: consuming Element) {
        if count == capacity {
            let newCapacity = capacity * 2
            let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
            base = newBase
            storedCapacity = newCapacity
        }
        (base + count).initialize(to: element)
        storedCount += 1
    }

    /// The elements from `start` to the top (none when `start` is past it), lent in place:
    /// valid until the stack next changes.
    @inlinable package func elements(from start: Int) -> UnsafeBufferPointer<Element> {
        guard start >= 0, start < count else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: base + start, count: count - start)
    }

    /// Drops the elements from `start` to the top.
    @inlinable package func removeAll(from start: Int) {
        guard start >= 0, start < count else { return }
        (base + start).deinitialize(count: count - start)
        storedCount = start
    }

    /// The element at `index`, or `nil` if there is none.
    @inlinable package subscript(index: Int) -> Element? {
        guard index >= 0, index < count else { return nil }
        return base[index]
    }

    /// When the stack is empty and its storage has room for more than `limit` elements,
    /// replaces the storage with room for `capacity`: for stacks kept from one use to the
    /// next, which should not hold on to what one large use needed.
    @inlinable package func shrink(above limit: Int, to capacity: Int) {
        guard count == 0, self.capacity > limit else { return }
        base.deallocate()
        storedCapacity = max(capacity, 1)
        base = UnsafeMutablePointer<Element>.allocate(capacity: self.capacity)
    }

    /// Moves the top element out, or returns `nil` if the stack is empty.
    @inlinable package func popLast() -> Element? {
        guard count > 0 else { return nil }
        storedCount -= 1
        return (base + count).move()
    }

    /// Moves the elements from `start` to the top out, in order, as an array.
    ///
    /// Not inlined: inlined into the binary reader's loop, its appends were no longer
    /// inlined themselves (callgrind: a call per element).
    @inline(never)
    @inlinable package func popArray(from start: Int) -> [Element] {
        guard start >= 0, start < count else { return [] }
        let end = count
        // Shrink first: the moved-out slots are never touched again.
        storedCount = start
        return (base + start).moveElements(count: end - start)
    }

    /// Moves the elements from `start` to the top out, in order, handing each to `consume`
    /// with its position counted from `start`.
    @inlinable package func pop(from start: Int, _ consume: (Int, consuming Element) -> Void) {
        guard start >= 0, start < count else { return }
        let end = count
        // Shrink first: whatever `consume` does, the moved-out slots are never touched again.
        storedCount = start
        for index in start..<end { consume(index - start, (base + index).move()) }
    }

    /// Lends the elements from `start` to the top to `body`, which must move each of them
    /// out (``Moving/moveElement(at:)``) or discard it (``Moving/discard(from:)``), then
    /// pops them: for building a dictionary from a key stack and a value stack in step.
    @inlinable package func moveOut<Result>(from start: Int, _ body: (Moving) throws -> Result) rethrows
        -> Result
    {
        let moved = start >= 0 && start < count ? count - start : 0
        let first = base + (count - moved)
        // Shrink first: whatever `body` does, the lent slots are never touched again.
        storedCount -= moved
        return try body(Moving(start: first, count: moved))
    }

    /// Elements lent by ``moveOut(from:_:)``.
    @usableFromInline package struct Moving {
        @usableFromInline let start: UnsafeMutablePointer<Element>
        @usableFromInline let count: Int

        @inlinable init(start: UnsafeMutablePointer<Element>, count: Int) {
            self.start = start
            self.count = count
        }

        /// Moves the element at `index` (below ``count``, each index once) out.
        @inlinable func moveElement(at index: Int) -> Element {
            assert(index >= 0 && index < count, "lent element \(index) of \(count)")
            return (start + index).move()
        }

        /// Destroys the elements from `index` on, for callers that moved fewer than all.
        @inlinable func discard(from index: Int) {
            if index >= 0, index < count { (start + index).deinitialize(count: count - index) }
        }
    }
}

extension UnsafeMutablePointer {
    /// Moves `count` initialized elements out, from this one on, into a new array (the
    /// memory is left uninitialized): the stacks' `popArray`.
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
