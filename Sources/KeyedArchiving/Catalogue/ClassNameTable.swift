/// Catalogued classes by name: an open-addressing hash table over the names' UTF-8 bytes,
/// built once, looked up from a `String` or from bytes still in the input (the typedstream
/// readers), without building a string.
///
/// The hash is ``ByteHash`` with a fixed seed: nothing an input holds is ever inserted, so
/// no input can lengthen a probe; the table is at most a quarter full, and a probe compares
/// bytes only where the full hash matched.
package struct ClassNameTable: Sendable {
    private static let seed: UInt64 = 0x6B65_7965_642D_6361

    /// Per slot, the member's index plus one (0 for an empty slot).
    private let slots: [UInt16]
    /// Per slot, the full hash of the member there.
    private let hashes: [Int]
    private let members: [CataloguedClass]
    /// The members' names, one after another; member `i` is `text[offsets[i]..<offsets[i + 1]]`.
    private let text: [UInt8]
    private let offsets: [Int]

    /// A table of `classes`.
    package init(_ classes: [CataloguedClass]) {
        var capacity = 8
        while capacity < classes.count * 4 { capacity *= 2 }
        var slots = [UInt16](repeating: 0, count: capacity)
        var hashes = [Int](repeating: 0, count: capacity)
        var text: [UInt8] = []
        var offsets = [0]
        for (index, member) in classes.enumerated() {
            var name = member.name
            let hash = name.withUTF8 { ByteHash.hash(UnsafeRawBufferPointer($0), seed: Self.seed) }
            text += name.utf8
            offsets.append(text.count)
            let slot = LinearProbing.emptySlot(hash: hash, capacity: capacity) { slots[$0] == 0 }
            slots[slot] = UInt16(index + 1)
            hashes[slot] = hash
        }
        self.slots = slots
        self.hashes = hashes
        self.members = classes
        self.text = text
        self.offsets = offsets
    }

    /// The class named by the UTF-8 bytes `name`, if the table has it.
    package func lookup(_ name: UnsafeRawBufferPointer) -> CataloguedClass? {
        let hash = ByteHash.hash(name, seed: Self.seed)
        let (slot, found) = LinearProbing.probe(
            hash: hash, capacity: slots.count, isEmpty: { slots[$0] == 0 },
            matches: { hashes[$0] == hash && matches(Int(slots[$0]) - 1, name) })
        return found ? members[Int(slots[slot]) - 1] : nil
    }

    /// The class named `name`, if the table has it.
    package func lookup(_ name: String) -> CataloguedClass? {
        var name = name
        return name.withUTF8 { lookup(UnsafeRawBufferPointer($0)) }
    }

    private func matches(_ member: Int, _ name: UnsafeRawBufferPointer) -> Bool {
        let start = offsets[member]
        guard offsets[member + 1] - start == name.count else { return false }
        return text.withUnsafeBytes { stored in
            UnsafeRawBufferPointer(rebasing: stored[start..<start + name.count]).elementsEqual(name)
        }
    }
}
