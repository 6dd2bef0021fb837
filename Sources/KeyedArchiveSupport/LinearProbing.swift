/// The one probing rule of the package's open-addressing hash tables (``IndexTable``, the
/// archiver's identity and key tables, the binary builder's scalar and container tables).
///
/// A table has a power-of-two number of slots and a way to tell an empty slot (usually a
/// stored position plus one, 0 for empty). A key starts at its home, `hash & (capacity -
/// 1)`, and moves to the next slot, wrapping around, until it finds its match or an empty
/// slot. A table grows before it is more than half full (``needsGrowth(count:capacity:)``),
/// so a probe always ends, and on average after a slot or two.
///
/// Generic over the slot tests, which are inlined: a table's lookup compiles to the loop
/// it would write by hand.
@usableFromInline package enum LinearProbing {
    /// Whether a table of `capacity` slots holding `count` entries must grow before one
    /// more is inserted: tables stay at most half full.
    @inline(__always)
    @inlinable package static func needsGrowth(count: Int, capacity: Int) -> Bool {
        (count + 1) * 2 > capacity
    }

    /// The capacity a table grows to: twice `capacity`, and at least `minimum`.
    ///
    /// - Parameters:
    ///   - capacity: The current number of slots (0 or a power of two).
    ///   - minimum: The smallest table, a power of two.
    @inlinable package static func grownCapacity(from capacity: Int, minimum: Int) -> Int {
        assert(minimum > 0 && minimum & (minimum - 1) == 0, "a table's size is a power of two")
        assert(capacity & (capacity - 1) == 0, "a table's size is a power of two")
        return max(minimum, capacity * 2)
    }

    /// Probes from the home of `hash`: the first slot that is empty or whose entry
    /// matches, and which of the two it is.
    ///
    /// - Parameters:
    ///   - hash: The key's hash; only its low bits choose the home slot.
    ///   - capacity: The number of slots, a power of two, more than the entries stored.
    ///   - isEmpty: Whether a slot is empty.
    ///   - matches: Whether the entry of a slot that is not empty is the key's.
    /// - Returns: The slot, and `found`: `true` at a match, `false` at an empty slot (where
    ///   the key may be inserted).
    @inline(__always)
    @inlinable package static func probe(
        hash: Int, capacity: Int, isEmpty: (Int) -> Bool, matches: (Int) -> Bool
    ) -> (slot: Int, found: Bool) {
        assert(capacity > 0 && capacity & (capacity - 1) == 0, "a table's size is a power of two")
        let mask = capacity - 1
        var slot = hash & mask
        var probes = 0
        while !isEmpty(slot) {
            if matches(slot) { return (slot, true) }
            probes += 1
            assert(probes < capacity, "a full table: it must grow before it is half full")
            slot = (slot &+ 1) & mask
        }
        return (slot, false)
    }

    /// The first empty slot from the home of `hash`: where a key known to be absent goes
    /// (inserting, or rehashing into a grown table).
    @inline(__always)
    @inlinable package static func emptySlot(hash: Int, capacity: Int, isEmpty: (Int) -> Bool) -> Int {
        probe(hash: hash, capacity: capacity, isEmpty: isEmpty, matches: { _ in false }).slot
    }

    /// `count` empty slots. `[T](repeating: 0, count:)` allocates through the standard
    /// library's unspecialized path, which looks the array's storage class up at run time
    /// (about 500 instructions, measured with callgrind, as much as filling a small table);
    /// reserving room first takes the specialized one. Large tables keep the standard way,
    /// which fills them faster than appending.
    @inline(__always)
    @inlinable package static func emptySlots<T: FixedWidthInteger>(_ count: Int) -> [T] {
        guard count <= 4096 else { return [T](repeating: 0, count: count) }
        var slots: [T] = []
        slots.reserveCapacity(count)
        slots.append(contentsOf: repeatElement(0, count: count))
        return slots
    }
}
