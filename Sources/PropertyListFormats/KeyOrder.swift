/// The order writers put a dictionary's keys in when they sort: by Unicode scalar values,
/// which is UTF-8 byte order (as plistlib and Cocoa's writers sort; `String.<` would compare
/// canonical equivalents instead).
///
/// Sorting the keys of every dictionary was a third of the time of writing a small
/// document, most of it in comparing `String`s through their UTF-8 views. Here each key's
/// first 16 UTF-8 bytes are read once, as two big-endian words (zero-padded), so that most
/// comparisons are two integer compares; keys whose first 16 bytes are equal are compared
/// in full. Keys already in order (a document read and written back) cost one pass.
enum KeyOrder {
    /// The first 16 UTF-8 bytes of a key, as two big-endian words, zero-padded.
    struct Prefix: Equatable {
        var high: UInt64
        var low: UInt64

        @inline(__always)
        static func < (lhs: Prefix, rhs: Prefix) -> Bool {
            lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
        }
    }

    /// The positions of `keys` in sorted order, or an empty array when they are in order
    /// already (strictly increasing, or equal neighbours: a caller that must refuse a
    /// repeated key checks for it itself).
    ///
    /// - Complexity: O(*n*) for keys in order; O(*n* log *n*) otherwise (O(*n*²) insertion
    ///   for up to 16 keys, which is faster there).
    static func sortedPositions(_ keys: [String]) -> [Int] {
        let count = keys.count
        guard count > 1 else { return [] }
        return withUnsafeTemporaryAllocation(of: Prefix.self, capacity: count) { prefixes in
            for index in 0..<count { prefixes[index] = prefix(keys[index]) }
            // In order already: one pass, two integer compares per neighbour.
            var inOrder = true
            for index in 1..<count where !isOrdered(keys, prefixes, index - 1, index) {
                inOrder = false
                break
            }
            if inOrder { return [] }
            var order = Array(0..<count)
            if count <= 16 {
                // Insertion sort: stable, and no comparator closure for the few keys of most
                // dictionaries.
                for step in 1..<count {
                    let moving = order[step]
                    var slot = step
                    while slot > 0, precedes(keys, prefixes, moving, order[slot - 1]) {
                        order[slot] = order[slot - 1]
                        slot -= 1
                    }
                    order[slot] = moving
                }
            } else {
                order.sort { precedes(keys, prefixes, $0, $1) }
            }
            return order
        }
    }

    /// Whether the key at `first` sorts before or equal to the key at `second`.
    @inline(__always)
    private static func isOrdered(
        _ keys: [String], _ prefixes: UnsafeMutableBufferPointer<Prefix>, _ first: Int, _ second: Int
    ) -> Bool {
        let a = prefixes[first]
        let b = prefixes[second]
        if a != b { return a < b }
        return !precedes(keys[second], keys[first])
    }

    /// Whether the key at `first` sorts strictly before the key at `second`.
    @inline(__always)
    private static func precedes(
        _ keys: [String], _ prefixes: UnsafeMutableBufferPointer<Prefix>, _ first: Int, _ second: Int
    ) -> Bool {
        let a = prefixes[first]
        let b = prefixes[second]
        if a != b { return a < b }
        return precedes(keys[first], keys[second])
    }

    /// The first 16 UTF-8 bytes of `key`, big-endian, zero-padded: a key whose prefix is
    /// smaller sorts first; equal prefixes say nothing (`"ab"` and `"ab\0"` share one).
    @inline(__always)
    static func prefix(_ key: String) -> Prefix {
        if let prefix = key.utf8.withContiguousStorageIfAvailable({ prefix(of: UnsafeRawBufferPointer($0)) })
        {
            return prefix
        }
        return Array(key.utf8.prefix(16)).withUnsafeBytes { prefix(of: $0) }
    }

    /// Two word loads for 16 bytes or more; a copy into zeroed words for fewer.
    @inline(__always)
    private static func prefix(of bytes: UnsafeRawBufferPointer) -> Prefix {
        guard let base = bytes.baseAddress else { return Prefix(high: 0, low: 0) }
        var words: (UInt64, UInt64) = (0, 0)
        if bytes.count >= 16 {
            words = (
                base.loadUnaligned(as: UInt64.self), base.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            )
        } else {
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
        }
        // In memory the first byte comes first: as a big-endian number it is the highest.
        return Prefix(high: UInt64(bigEndian: words.0), low: UInt64(bigEndian: words.1))
    }

    /// Orders strings by Unicode scalar values (UTF-8 byte order).
    static func precedes(_ first: String, _ second: String) -> Bool {
        let fast = first.utf8.withContiguousStorageIfAvailable { a in
            second.utf8.withContiguousStorageIfAvailable { b in
                let count = Swift.min(a.count, b.count)
                var index = 0
                while index < count {
                    if a[index] != b[index] { return a[index] < b[index] }
                    index += 1
                }
                return a.count < b.count
            }
        }
        if let fast, let result = fast { return result }
        return first.utf8.lexicographicallyPrecedes(second.utf8)
    }
}
