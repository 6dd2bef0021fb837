/// The objects of the UIDs written so far, by UID value, for the builder and the stream:
/// archives refer to the same small UIDs over and over, and each is written once.
///
/// Only UIDs below a limit the writer chooses are remembered, and the table grows to the
/// largest remembered UID (by half at least, never past the limit), so its size follows
/// what the writer allows, never a UID's value alone.
@usableFromInline
struct BinaryPropertyListUIDTable {
    /// The object of UID `i` plus one at index `i`; 0 when not written yet.
    @usableFromInline var objects: [UInt32] = []

    /// How many UIDs the table has room for (for tests of its bound).
    var count: Int { objects.count }

    /// The object written for UID `value`, or `nil`.
    @inlinable @inline(__always)
    func object(of value: UInt64) -> Int? {
        guard value < UInt64(objects.count) else { return nil }
        let known = objects[Int(value)]
        return known == 0 ? nil : Int(known) - 1
    }

    /// Remembers `object` as UID `value`'s when `value` is below `limit`.
    @inline(__always)
    mutating func remember(_ object: Int, for value: UInt64, below limit: Int) {
        guard value < UInt64(max(0, limit)) else { return }
        let index = Int(value)
        if index >= objects.count {
            let grown = min(max(index + 1, objects.count + objects.count / 2), limit)
            assert(grown > index, "the table grows to hold every UID below the limit")
            objects.append(contentsOf: repeatElement(0, count: grown - objects.count))
        }
        objects[index] = UInt32(truncatingIfNeeded: object + 1)
    }
}
