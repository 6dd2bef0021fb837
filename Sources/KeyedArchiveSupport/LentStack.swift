/// A stack that starts in space its owner lends (on the call stack, from
/// `withUnsafeTemporaryAllocation`) and moves to the heap only when it outgrows it.
///
/// The OpenStep reader's stacks of values and of open containers: a small file never
/// allocates for them, where a class with its own buffer cost two allocations and two
/// releases a stack and file. Indices below ``count`` are initialized; every access
/// checks its index against ``count``. The heap storage grows geometrically with what
/// was pushed, which the reader's value budget and depth limit bound. The owner calls
/// ``releaseAll()`` before the lent space goes away (also when parsing throws).
@usableFromInline package struct LentStack<Element> {
    @usableFromInline var base: UnsafeMutablePointer<Element>?
    @usableFromInline var capacity: Int
    @usableFromInline var isOnHeap = false
    /// The number of elements on the stack.
    @usableFromInline package internal(set) var count = 0

    /// A stack in `space` (uninitialized memory that outlives the stack's use).
    @inlinable package init(space: UnsafeMutableBufferPointer<Element>) {
        base = space.baseAddress
        capacity = space.baseAddress == nil ? 0 : space.count
    }

    @inlinable package var isEmpty: Bool { count == 0 }

    @inline(__always)
    @inlinable package mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        guard let base else { return }
        (base + count).initialize(to: consume element)
        count += 1
    }

    @inline(never)
    @inlinable mutating func grow() {
        let newCapacity = Swift.max(16, capacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let base {
            newBase.moveInitialize(from: base, count: count)
            if isOnHeap { base.deallocate() }
        }
        base = newBase
        capacity = newCapacity
        isOnHeap = true
    }

    /// The element at `index`, or `nil` if there is none.
    @inlinable package subscript(index: Int) -> Element? {
        guard index >= 0, index < count, let base else { return nil }
        return base[index]
    }

    /// The top element, or `nil` if the stack is empty.
    @inlinable package var last: Element? { self[count - 1] }

    /// Removes and returns the top element, or `nil` if the stack is empty.
    @inlinable package mutating func popLast() -> Element? {
        guard count > 0, let base else { return nil }
        count -= 1
        return (base + count).move()
    }

    /// Moves the elements from `start` to the top out, in order, as an array.
    @inlinable package mutating func popArray(from start: Int) -> [Element] {
        guard start >= 0, start < count, let base else { return [] }
        let end = count
        // Shrink first: the moved-out slots are never touched again.
        count = start
        return (base + start).moveElements(count: end - start)
    }

    /// Lends the elements from `start` to the top to `body`, which must move every one of
    /// them out, then pops them.
    @inlinable package mutating func popMoving<Result>(
        from start: Int, _ body: (UnsafeMutableBufferPointer<Element>) -> Result
    )
        -> Result
    {
        guard start >= 0, start < count, let base else {
            return body(UnsafeMutableBufferPointer(start: nil, count: 0))
        }
        let end = count
        // Shrink first: whatever `body` does, the lent slots are never touched again.
        count = start
        return body(UnsafeMutableBufferPointer(start: base + start, count: end - start))
    }

    /// Destroys every element and gives back any heap storage; the stack is then empty
    /// and, if pushed to again, starts on the heap. Calling it again does nothing.
    @inlinable package mutating func releaseAll() {
        if let base {
            base.deinitialize(count: count)
            if isOnHeap { base.deallocate() }
        }
        base = nil
        capacity = 0
        count = 0
        isOnHeap = false
    }
}
