/// A stack of object numbers (builder objects or UIDs) whose top part belongs to the
/// object or collection being encoded; popping a whole part only moves the count.
///
/// `Array.removeSubrange` costs a generic range replacement each time; the archiver pops
/// a part for every object it encodes.
@usableFromInline package struct ObjectNumberStack {
    @usableFromInline var storage: [Int] = []
    /// The number of elements in use.
    @usableFromInline package internal(set) var count = 0

    @inlinable package init() {}

    @inline(__always)
    @inlinable package mutating func append(_ value: Int) {
        if count < storage.count {
            storage[count] = value
        } else {
            storage.append(value)
        }
        count += 1
    }

    /// The elements from `start` to the top.
    @inline(__always)
    @inlinable package func suffix(from start: Int) -> ArraySlice<Int> {
        storage[start..<count]
    }

    /// Pops every element from `start` up.
    @inline(__always)
    @inlinable package mutating func removeSuffix(from start: Int) {
        count = min(count, max(0, start))
    }

    @inlinable package subscript(index: Int) -> Int {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    @inlinable package var indices: Range<Int> { 0..<count }
}
