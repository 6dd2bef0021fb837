import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import KeyedArchiveSupport
@testable import PropertyListFormats

/// The bespoke containers of Sources/KeyedArchive/Support, each against a plain Swift model.
@Suite("Support containers")
struct ContainerTests {
    @Test func stackPushesPopsAndLendsInOrder() {
        let stack = Stack<String>(capacity: 1)
        for index in 0..<100 { stack.push("v\(index)") }
        #expect(stack.count == 100)
        #expect(stack[99] == "v99" && stack[100] == nil && stack[-1] == nil && stack.last == "v99")
        #expect(Array(stack.elements(from: 97)) == ["v97", "v98", "v99"])
        #expect(stack.popArray(from: 98) == ["v98", "v99"])
        #expect(stack.count == 98)
        var popped: [(Int, String)] = []
        stack.pop(from: 95) { popped.append(($0, $1)) }
        #expect(popped.map(\.0) == [0, 1, 2] && popped.map(\.1) == ["v95", "v96", "v97"])
        #expect(stack.popLast() == "v94" && stack.count == 94)
        // Starting at the top takes nothing.
        #expect(stack.popArray(from: 94).isEmpty && stack.elements(from: 94).isEmpty)
        stack.removeAll(from: 94)
        #expect(stack.count == 94)
        stack.removeAll(from: 10)
        #expect(stack.count == 10 && stack[9] == "v9")
        stack.releaseAll()
        #expect(stack.isEmpty && stack.popLast() == nil)
        stack.push("again")
        #expect(stack.count == 1 && stack.last == "again")
    }

    @Test func stackOfNumbersChangesInPlace() {
        let stack = Stack<Int>(capacity: 4)
        for value in 0..<10 { stack.push(value) }
        #expect(Array(stack.elements(from: 7)) == [7, 8, 9])
        stack.removeAll(from: 5)
        #expect(stack.count == 5)
        stack.push(42)
        #expect(Array(stack.elements(from: 0)) == [0, 1, 2, 3, 4, 42])
        let lent = stack.mutableElements(from: 4)
        for index in lent.indices { lent[index] *= 2 }
        #expect(Array(stack.elements(from: 0)) == [0, 1, 2, 3, 8, 84])
    }

    /// Lent storage is used in place until it is outgrown, then the stack moves to the heap
    /// with its elements; ``Stack/releaseAll()`` empties it before the space goes away.
    @Test(arguments: [0, 3, 4, 40])
    func stackMovesFromLentSpaceToTheHeap(pushes: Int) {
        withUnsafeTemporaryAllocation(of: String.self, capacity: 4) { space in
            let stack = Stack(lending: space)
            defer { stack.releaseAll() }
            for index in 0..<pushes { stack.push("e\(index)") }
            #expect(stack.count == pushes)
            #expect(stack.isOnHeap == (pushes > 4))
            if pushes <= 4 { #expect(stack.capacity == 4) }
            #expect(stack.popArray(from: 0) == (0..<pushes).map { "e\($0)" })
        }
    }

    @Test(arguments: [0, 1, 63, 64, 65, 1000])
    func indexBitsAgreeWithASet(bound: Int) {
        var bits = IndexBits(bound: bound)
        var model = Set<Int>()
        var random = SeededGenerator(seed: UInt64(bound) + 7)
        for _ in 0..<2000 {
            let index = Int(random.next() % UInt64(bound + 20)) - 10
            let inBounds = index >= 0 && index < bound
            if random.next() % 3 == 0 || !inBounds {
                // Out of bounds, only lookups and removals: an insertion there asserts.
                bits.remove(index)
                model.remove(index)
            } else {
                let present = bits.insert(index)
                #expect(present == model.contains(index))
                model.insert(index)
            }
            #expect(bits.contains(index) == model.contains(index))
        }
        for index in -5..<(bound + 5) { #expect(bits.contains(index) == model.contains(index)) }
    }

    @Test func objectSetSwitchesToBitsPastItsList() {
        var set = ObjectSet(objectCount: 10_000)
        for object in stride(from: 0, to: 200, by: 3) {
            let present = set.insertReportingPresence(object)
            #expect(!present)
        }
        for object in stride(from: 0, to: 200, by: 3) {
            let present = set.insertReportingPresence(object)
            #expect(present)
        }
        let one = set.insertReportingPresence(1)
        #expect(!one)
    }

    @Test func objectPathIsAStackWithMembership() {
        var path = ObjectPath(objectCount: 1000)
        for object in 0..<100 {
            path.insert(object * 7)
            #expect(path.contains(object * 7))
        }
        #expect(path.count == 100 && !path.contains(1))
        for object in (0..<100).reversed() {
            path.remove(object * 7)
            #expect(!path.contains(object * 7))
        }
        #expect(path.count == 0)
    }

    @Test func objectIndexSetInsertsAndRemoves() {
        let set = ObjectIndexSet(objectCount: 130)
        set.insert(129)
        set.insert(0)
        set.remove(500)  // beyond the bound: a removal of nothing (an insertion there asserts)
        #expect(set.contains(129) && set.contains(0) && !set.contains(500) && !set.contains(-1))
        set.remove(129)
        #expect(!set.contains(129) && set.contains(0))
    }

    @Test func byteHashIsSeededAndNeverZero() {
        let seed = ByteHash.randomSeed()
        let texts = ["", "a", "ab", String(repeating: "x", count: 100)]
        for text in texts {
            var copy = text
            let first = copy.withUTF8 { ByteHash.hash(UnsafeRawBufferPointer($0), seed: seed) }
            let second = copy.withUTF8 { ByteHash.hash(UnsafeRawBufferPointer($0), seed: seed) }
            #expect(first == second && first != 0)
        }
        #expect(
            ByteHash.hash([1, 2, 3], [4], seed: seed)
                == ByteHash.hash([1, 2, 3] as [Int64], [4] as [Int64], seed: seed))
        #expect(
            [1, 2].withUnsafeBytes { a in [1, 2].withUnsafeBytes { b in ByteHash.equal(a, b) } })
    }

    /// The padded hash of bytes equals that of the same bytes given as two words (as a small
    /// string holds them), for every length to 15; longer runs hash their whole blocks too.
    @Test func paddedHashOfBytesEqualsThatOfTheirWords() {
        let seed = ByteHash.randomSeed()
        var random = SeededGenerator(seed: 15)
        var seen: Set<Int> = []
        for count in 0...40 {
            for _ in 0..<8 {
                let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
                let hash = bytes.withUnsafeBytes { ByteHash.hashPadded($0, seed: seed) }
                #expect(hash != 0)
                seen.insert(hash)
                // In a larger buffer: only `count` bytes are read.
                let padded = (bytes + [0xAA, 0xBB]).withUnsafeBytes {
                    ByteHash.hashPadded(UnsafeRawBufferPointer(rebasing: $0[0..<count]), seed: seed)
                }
                #expect(padded == hash, "\(count) bytes")
                // The tail past the whole 16-byte blocks, as zero-filled little-endian words.
                let offset = count - count % 16
                if offset < count {
                    var expected: (UInt64, UInt64) = (0, 0)
                    withUnsafeMutableBytes(of: &expected) { $0.copyBytes(from: bytes[offset...]) }
                    let tail = bytes.withUnsafeBytes { ByteHash.paddedTail($0, from: offset) }
                    #expect(
                        tail.0 == UInt64(littleEndian: expected.0)
                            && tail.1 == UInt64(littleEndian: expected.1),
                        "\(count) bytes")
                }
                guard count <= 15 else { continue }
                var words: (UInt64, UInt64) = (0, 0)
                withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
                #expect(
                    ByteHash.hashPadded(first: words.0, second: words.1, count: count, seed: seed) == hash,
                    "\(count) bytes")
            }
        }
        // 41 lengths of 8 random runs: distinct hashes (the one empty run hashes alike).
        #expect(seen.count == 1 + 40 * 8)
    }

    @Test(arguments: [0, 100, 100_000])
    func indexTableAgreesWithADictionary(keysBelow limit: Int) {
        var table = IndexTable<String>(keysBelow: limit)
        var model: [Int: String] = [:]
        var random = SeededGenerator(seed: UInt64(limit) + 3)
        // Keys are object indices, below the limit when there is one.
        let range = UInt64(limit > 0 ? limit : 5000)
        for step in 0..<20_000 {
            let key = Int(random.next() % range)
            if random.next() % 2 == 0 {
                table.insert("\(step)", forKey: key)
                model[key] = "\(step)"
            }
            #expect(table[key] == model[key])
            #expect(table.contains(key) == (model[key] != nil))
        }
        table.removeAll()
        #expect(!table.contains(model.keys.first ?? 0))
    }

    /// A toy table on the shared probing rule: every key is found after collisions and
    /// wrap-around, absent keys end at an empty slot, and the table stays at most half full.
    @Test func linearProbingFindsEveryKeyAndStopsAtAnEmptySlot() {
        var slots = [Int](repeating: 0, count: 8)  // key + 1; 0 is empty
        var count = 0
        // All keys hash to 6 or 7: they collide and wrap around to slots 0, 1, ...
        let hash = { (key: Int) in 6 + key % 2 }
        for key in [10, 11, 12, 13] {
            #expect(!LinearProbing.needsGrowth(count: count, capacity: slots.count))
            let (slot, found) = LinearProbing.probe(
                hash: hash(key), capacity: slots.count, isEmpty: { slots[$0] == 0 },
                matches: { slots[$0] == key + 1 })
            #expect(!found)
            slots[slot] = key + 1
            count += 1
        }
        #expect(slots == [13, 14, 0, 0, 0, 0, 11, 12], "linear probing from 6 and 7, wrapping to 0")
        #expect(
            LinearProbing.needsGrowth(count: count, capacity: slots.count), "a fifth entry would pass half")
        for key in [10, 11, 12, 13] {
            let (slot, found) = LinearProbing.probe(
                hash: hash(key), capacity: slots.count, isEmpty: { slots[$0] == 0 },
                matches: { slots[$0] == key + 1 })
            #expect(found && slots[slot] == key + 1, "key \(key)")
        }
        let absent = LinearProbing.probe(
            hash: hash(14), capacity: slots.count, isEmpty: { slots[$0] == 0 }, matches: { slots[$0] == 15 })
        #expect(absent == (2, false))
        #expect(LinearProbing.emptySlot(hash: 0, capacity: slots.count) { slots[$0] == 0 } == 2)
        #expect(LinearProbing.emptySlot(hash: 8 + 3, capacity: slots.count) { slots[$0] == 0 } == 3)
        #expect(LinearProbing.grownCapacity(from: 0, minimum: 64) == 64)
        #expect(LinearProbing.grownCapacity(from: 64, minimum: 64) == 128)
    }

    /// Both one-line descriptions walk nested values with NestedDescription: the same
    /// brackets, each its own key style, through a work stack (deep values too).
    @Test func nestedDescriptionsShareOneWalk() {
        let plist: PropertyList = ["a": [1, "x", ["b": true]], "c d": []]
        #expect(plist.description == #"{"a": [1, "x", {"b": true}], "c d": []}"#)
        let value = ArchivedObjectGraph.Value.dictionary([
            ArchivedObjectGraph.Field(key: "a", value: .array([.integer(1), .reference(3)])),
            ArchivedObjectGraph.Field(key: "c d", value: .dictionary([])),
        ])
        #expect(value.description == #"{a = [1, #3]; "c d" = {}}"#)
        var deep = PropertyList.array([])
        var deepValue = ArchivedObjectGraph.Value.array([])
        for _ in 0..<3_000 {
            deep = .array([deep])
            deepValue = .array([deepValue])
        }
        #expect(deep.description.count == 2 * 3_001)
        #expect(deepValue.description.count == 2 * 3_001)
    }

    /// The builder's and the stream's table of written UIDs: found once remembered,
    /// bounded by the writer's limit, never by a UID's value.
    @Test func uidTableRemembersBelowItsLimitOnly() {
        var table = BinaryPropertyListUIDTable()
        #expect(table.object(of: 0) == nil)
        table.remember(7, for: 3, below: 100)
        #expect(table.object(of: 3) == 7 && table.object(of: 2) == nil && table.count == 4)
        table.remember(9, for: 10, below: 100)
        #expect(table.object(of: 10) == 9 && table.count == 11)
        table.remember(1, for: 99, below: 100)
        #expect(table.object(of: 99) == 1 && table.count == 100, "grown to the limit, no further")
        table.remember(2, for: 1 << 40, below: 100)
        #expect(table.object(of: 1 << 40) == nil && table.count == 100, "a UID beyond the limit is not kept")
        table.remember(5, for: 0, below: 0)
        #expect(table.object(of: 0) == nil)
    }
}
