/// A set of indices below a bound (an archive's or property list's object count), as bits:
/// the one bit set that the readers' object sets are built on.
///
/// Its words are allocated on the first insertion, so a set that stays empty (most of the
/// ones made for small reads of a large file) costs nothing; the bound comes from the
/// input's length, so the allocation is bounded by what the input can justify. Indices
/// outside `0..<bound` are never members: `contains` and `remove` accept them (a lookup
/// of anything), while `insert` asserts that its index is below the bound — the readers
/// insert only object indices they have checked against the object count (a check that
/// throws), so a bad one is our bug; release builds then insert nothing, which keeps
/// memory safe (see the unsafe-code policy in `Documentation/Internals.md`).
@usableFromInline package struct IndexBits {
    @usableFromInline var words: [UInt64] = []
    /// The indices that can be members are `0..<bound`.
    @usableFromInline package let bound: Int

    @inlinable package init(bound: Int) {
        self.bound = max(0, bound)
    }

    /// Whether `index` is a member.
    @inline(__always)
    @inlinable package func contains(_ index: Int) -> Bool {
        let word = index >> 6
        guard index >= 0, word < words.count else { return false }
        return words[word] & (1 << UInt64(index & 63)) != 0
    }

    /// Inserts `index` and returns whether it was a member already.
    @inline(__always)
    @discardableResult
    @inlinable package mutating func insert(_ index: Int) -> Bool {
        assert(index >= 0 && index < bound, "inserted \(index), outside 0..<\(bound)")
        guard index >= 0, index < bound else { return false }
        if words.isEmpty { words = [UInt64](repeating: 0, count: (bound + 63) >> 6) }
        let word = index >> 6
        let mask: UInt64 = 1 << UInt64(index & 63)
        let present = words[word] & mask != 0
        words[word] |= mask
        assert(contains(index))
        return present
    }

    /// Removes `index` if it is a member.
    @inline(__always)
    @inlinable package mutating func remove(_ index: Int) {
        let word = index >> 6
        guard index >= 0, word < words.count else { return }
        words[word] &= ~(1 << UInt64(index & 63))
        assert(!contains(index))
    }
}

/// A set of object indices: the objects already referenced while materializing.
///
/// Small walks (a class description, an object's inline array) keep a short list, so
/// materializing a few objects of a large file costs nothing per object of the file;
/// past that, ``IndexBits`` sized by the object count (which the file length bounds) makes
/// each check O(1).
@usableFromInline package struct ObjectSet {
    @usableFromInline var bits: IndexBits
    @usableFromInline var few: [Int] = []
    @usableFromInline var usesBits = false
    /// Bits in memory the caller owns (a small file's, on the stack), used instead of
    /// the others when present.
    @usableFromInline var borrowed: BorrowedIndexBits?
    @usableFromInline static let linearLimit = 32

    /// A set over bits the caller owns, valid while they are.
    @inlinable package init(borrowing borrowed: BorrowedIndexBits) {
        bits = IndexBits(bound: 0)
        self.borrowed = borrowed
    }

    @inlinable package init(objectCount: Int) {
        bits = IndexBits(bound: objectCount)
        // A small file's bits take no more than the list would (32 words at most), and
        // a check is then one load instead of a scan of up to 32 entries.
        usesBits = objectCount <= 2048
    }

    /// Inserts `object` (an index below the object count) and returns whether it was there.
    @inline(__always)
    @inlinable package mutating func insertReportingPresence(_ object: Int) -> Bool {
        if let borrowed { return borrowed.insertReportingPresence(object) }
        if !usesBits {
            if few.contains(object) { return true }
            if few.count < Self.linearLimit {
                // Room for the whole list at once: growing it step by step cost five
                // reallocations per small property list read.
                if few.isEmpty { few.reserveCapacity(min(Self.linearLimit, bits.bound)) }
                few.append(object)
                return false
            }
            usesBits = true
            for member in few { bits.insert(member) }
            few = []
        }
        return bits.insert(object)
    }

    @inlinable package mutating func insert(_ object: Int) {
        _ = insertReportingPresence(object)
    }
}

/// The objects currently open on a path (containers being materialized, objects being
/// decoded), for cycle detection: inserted and removed in stack order.
///
/// Shallow paths are searched linearly; once the path is deep, ``IndexBits`` over all
/// objects (sized by the object count, which the file length bounds) makes each check O(1).
@usableFromInline package struct ObjectPath {
    @usableFromInline var objects: [Int] = []
    @usableFromInline var bits: IndexBits
    @usableFromInline var usesBits = false
    /// Bits in memory the caller owns (a small file's, on the stack), used instead of
    /// the others when present; ``count`` is then not kept.
    @usableFromInline var borrowed: BorrowedIndexBits?
    @usableFromInline static let linearLimit = 32

    @inlinable package init(objectCount: Int) {
        bits = IndexBits(bound: objectCount)
    }

    /// A path over bits the caller owns, valid while they are.
    @inlinable package init(borrowing borrowed: BorrowedIndexBits) {
        bits = IndexBits(bound: 0)
        self.borrowed = borrowed
    }

    /// The number of objects on the path (0 over borrowed bits).
    @inlinable package var count: Int { objects.count }

    @inline(__always)
    @inlinable package func contains(_ object: Int) -> Bool {
        if let borrowed { return borrowed.contains(object) }
        return usesBits ? bits.contains(object) : objects.contains(object)
    }

    @inline(__always)
    @inlinable package mutating func insert(_ object: Int) {
        if let borrowed {
            borrowed.insert(object)
            return
        }
        if objects.isEmpty { objects.reserveCapacity(8) }
        objects.append(object)
        if usesBits {
            bits.insert(object)
        } else if objects.count > Self.linearLimit {
            usesBits = true
            for member in objects { bits.insert(member) }
        }
    }

    /// Removes `object`, the last one inserted.
    @inline(__always)
    @inlinable package mutating func remove(_ object: Int) {
        if let borrowed {
            borrowed.remove(object)
            return
        }
        assert(objects.last == object, "removed \(object), not the last object on the path")
        _ = objects.popLast()
        if usesBits { bits.remove(object) }
    }
}

/// A set of object indices below the object count that many holders change in turn: the
/// objects whose `init(coder:)` is running.
///
/// A class over ``IndexBits``, not the struct itself: it is changed twice for every object
/// decoded, and a struct there was copied whole (copy-on-write) whenever a read of it was
/// still alive, which made every object cost a copy of the whole set.
@usableFromInline package final class ObjectIndexSet {
    @exclusivity(unchecked) @usableFromInline var bits: IndexBits

    @inlinable package init(objectCount: Int) {
        bits = IndexBits(bound: objectCount)
    }

    @inline(__always)
    @inlinable package func contains(_ index: Int) -> Bool { bits.contains(index) }

    @inline(__always)
    @inlinable package func insert(_ index: Int) { bits.insert(index) }

    @inline(__always)
    @inlinable package func remove(_ index: Int) { bits.remove(index) }
}

/// Bits for the indices `0..<bound` in memory the caller owns and has zeroed (a
/// temporary allocation on the stack, for a small property list), behind an
/// ``ObjectSet`` or an ``ObjectPath``: a small read's objects referenced and path of open
/// containers, with no allocation and no uniqueness check per access. Its methods write
/// through the pointer, so a copy changes the same bits. Valid while that memory is.
@usableFromInline package struct BorrowedIndexBits {
    @usableFromInline let words: UnsafeMutablePointer<UInt64>
    @usableFromInline let bound: Int

    /// Bits over `(bound + 63) / 64` zeroed words at `words`.
    @inlinable package init(words: UnsafeMutablePointer<UInt64>, bound: Int) {
        self.words = words
        self.bound = max(0, bound)
    }

    /// The number of words the indices `0..<bound` take.
    @inlinable package static func wordCount(bound: Int) -> Int { (max(0, bound) + 63) >> 6 }

    @inline(__always)
    @inlinable package func contains(_ object: Int) -> Bool {
        guard object >= 0, object < bound else { return false }
        return words[object >> 6] & (1 << UInt64(object & 63)) != 0
    }

    @inline(__always)
    @inlinable package func insertReportingPresence(_ object: Int) -> Bool {
        assert(object >= 0 && object < bound, "inserted \(object), outside 0..<\(bound)")
        guard object >= 0, object < bound else { return false }
        let mask: UInt64 = 1 << UInt64(object & 63)
        let word = words[object >> 6]
        words[object >> 6] = word | mask
        return word & mask != 0
    }

    @inline(__always)
    @inlinable package func insert(_ object: Int) {
        _ = insertReportingPresence(object)
    }

    @inline(__always)
    @inlinable package func remove(_ object: Int) {
        guard object >= 0, object < bound else { return }
        words[object >> 6] &= ~(1 << UInt64(object & 63))
    }
}
