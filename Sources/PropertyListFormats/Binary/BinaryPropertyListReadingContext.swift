import KeyedArchiveSupport

/// What reading one binary property list into a tree leaves behind for reading the next:
/// the value and key stacks of ``BinaryPropertyListScanner``'s materializer, a table of
/// short ASCII key strings (``KeyTable``) and the key lists of recent dictionaries
/// (``KeyLists``).
///
/// Documents of one kind (settings, bundles' `Info.plist`s, archives) repeat the same
/// dictionaries' keys, within a document and from one to the next. Making those keys into
/// strings, checking them for repeats, allocating a keys array (and past eight keys a
/// position table) per dictionary and the stacks per document were more than a third of
/// the instructions of reading 1,000 small documents (callgrind: 103.0 M for two reads of
/// the peers benchmark's `small/` inputs, 71.2 M with the context, 35.5 M a read once warm).
///
/// One context is kept for the whole process, lent to one reader at a time (``borrow()``
/// and ``giveBack(_:)``, under a lock taken twice per document); a reader that finds it lent
/// works without one, as before. What it keeps is bounded: 1,024 key strings of at most
/// ``KeyTable/maximumLength`` bytes, 64 key lists of at most ``KeyLists/maximumCount``
/// keys, and stacks that grew past ``keptStackCapacity`` elements are shrunk when the
/// context is given back.
package final class BinaryPropertyListReadingContext: @unchecked Sendable {
    let values = Stack<PropertyList>(capacity: 64)
    let keys = Stack<String>(capacity: 64)
    /// The shared keys of the open dictionaries that have them, innermost last (see
    /// ``KeyLists/popPending()``).
    private let sharedKeys = Stack<KeyLists.Match>(capacity: 16)
    /// Lent by value to the reader (no reference counting per key); the context owns its
    /// storage, so the table is valid while the context is alive.
    let keyTable = KeyTable()
    /// The key lists of recent dictionaries; owned like ``keyTable``.
    let keyLists: KeyLists

    /// Stacks that grew past this many elements are shrunk when given back.
    static let keptStackCapacity = 4096

    private static let lock = ArchiveLock()
    nonisolated(unsafe) private static var spare: BinaryPropertyListReadingContext? =
        BinaryPropertyListReadingContext()

    init() {
        keyLists = KeyLists(pending: sharedKeys)
    }

    deinit {
        keyTable.deallocate()
        keyLists.deallocate()
    }

    /// The process's context, or `nil` while another reader has it.
    static func borrow() -> BinaryPropertyListReadingContext? {
        lock.withLock {
            let context = spare
            spare = nil
            return context
        }
    }

    /// Returns a context taken with ``borrow()``, emptied (and its stacks shrunk if they
    /// grew large), for the next reader.
    static func giveBack(_ context: BinaryPropertyListReadingContext) {
        context.empty()
        lock.withLock { spare = context }
    }

    /// Empties the stacks (a reader that threw leaves values on them) and shrinks those
    /// that grew past ``keptStackCapacity``.
    func empty() {
        values.removeAll(from: 0)
        keys.removeAll(from: 0)
        sharedKeys.removeAll(from: 0)
        values.shrink(above: Self.keptStackCapacity, to: 64)
        keys.shrink(above: Self.keptStackCapacity, to: 64)
        sharedKeys.shrink(above: Self.keptStackCapacity, to: 16)
    }

    /// A direct-mapped table from the bytes of a short ASCII string object (at most
    /// ``maximumLength`` bytes) to its `String`: a hit costs a hash of four words and a
    /// comparison, not the allocation (for more than 15 bytes) and UTF-8 validation of a new
    /// string. A slot holds the last string stored in it, so colliding keys (even chosen
    /// ones) cost a miss each, never a search.
    struct KeyTable {
        /// Keys longer than this are not kept.
        static let maximumLength = 32
        /// 1,024 slots (56 KB): with 256, a large document of varied dictionaries (5,000
        /// distinct keys in the peers benchmark's number-heavy shape) missed more of its keys,
        /// each miss a new string (callgrind, 5 MB: numbers −1.9%, nested −1.2%, strings
        /// −0.8%; filling the larger table, once per process, ~20,000 instructions).
        private static let slotBits = 10
        private struct Slot {
            var first: UInt64 = 0
            var second: UInt64 = 0
            var third: UInt64 = 0
            var fourth: UInt64 = 0
            /// The number of bytes, or -1 for an empty slot.
            var count = -1
            var text = ""
        }
        private let slots: UnsafeMutablePointer<Slot>

        init() {
            slots = .allocate(capacity: 1 << Self.slotBits)
            slots.initialize(repeating: Slot(), count: 1 << Self.slotBits)
        }

        /// Frees the storage; the owning context's deinit calls it.
        func deallocate() {
            slots.deinitialize(count: 1 << Self.slotBits)
            slots.deallocate()
        }

        /// The string of the `count` bytes (1 to ``maximumLength``) at `bytes`, which may be
        /// read up to ``maximumLength`` bytes on (they must be readable memory), made by
        /// `make` unless the table holds it.
        @inline(__always)
        func text(at bytes: UnsafeRawPointer, count: Int, make: () throws -> String) rethrows -> String {
            let key = RawKey(bytes, count: count)
            let (first, second, third, fourth) = (key.first, key.second, key.third, key.fourth)
            var mixed = (first ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15
            mixed = (mixed ^ second ^ third &* 0xBF58_476D_1CE4_E5B9) &* 0x94D0_49BB_1331_11EB
            mixed ^= fourth
            mixed ^= mixed >> 29
            let slot =
                slots
                + Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - Self.slotBits))
            if slot.pointee.count == count, slot.pointee.first == first, slot.pointee.second == second,
                slot.pointee.third == third, slot.pointee.fourth == fourth
            {
                return slot.pointee.text
            }
            let text = try make()
            slot.pointee = Slot(
                first: first, second: second, third: third, fourth: fourth, count: count, text: text)
            return text
        }
    }

    /// The keys (and their position table) of recently read dictionaries, for
    /// dictionaries with the same keys in the same order: the objects of one kind in a
    /// document, and the same kind of document read again. Such a dictionary is recognized
    /// before its entries are read, by the bytes of its key objects (short ASCII strings),
    /// and then shares the stored `keys` array and position table (copy on write): its keys
    /// are neither made into strings nor checked for repeats (they were found distinct when
    /// the list was stored). A list is found by a hash of its count and first keys and then
    /// compared key by key, so a collision costs a comparison, never a wrong match; a slot
    /// holds the last list stored in it.
    struct KeyLists {
        /// Lists of more keys than this are not kept.
        static let maximumCount = 64
        private static let slotBits = 6
        /// How many keys, from the first, choose the slot.
        private static let hashedKeys = 4
        private struct Entry {
            var keys: [String] = []
            var positions = KeyPositionTable()
            var raw: [RawKey] = []
        }
        private let entries: UnsafeMutablePointer<Entry>
        /// Dictionaries read since the last match (see ``remember(_:count:_:)``).
        private let missesSinceMatch: UnsafeMutablePointer<Int>
        /// After this many dictionaries without a match, only one in ``coldSampling`` is
        /// remembered.
        private static let coldAfter = 64
        private static let coldSampling = 16
        /// The matches of the dictionaries being read, innermost last: ``match(count:_:)``
        /// pushes one, the reader pops it when the dictionary ends. The owning context
        /// keeps the stack alive; reached unmanaged here, since retaining and releasing it
        /// around every push and pop cost more than a tenth of a small document's time.
        private let pending: Unmanaged<Stack<Match>>

        /// Keys and position table shared with an earlier dictionary.
        struct Match {
            let keys: [String]
            let positions: KeyPositionTable

            /// A dictionary of these keys and `values` (as many), moving the keys in.
            consuming func dictionary(values: consuming [PropertyList]) -> PropertyListDictionary {
                PropertyListDictionary(distinctKeys: keys, positions: positions, values: values)
            }
        }

        init(pending: Stack<Match>) {
            self.pending = Unmanaged.passUnretained(pending)
            entries = .allocate(capacity: 1 << Self.slotBits)
            entries.initialize(repeating: Entry(), count: 1 << Self.slotBits)
            missesSinceMatch = .allocate(capacity: 1)
            missesSinceMatch.initialize(to: 0)
        }

        /// Frees the storage; the owning context's deinit calls it.
        func deallocate() {
            entries.deinitialize(count: 1 << Self.slotBits)
            entries.deallocate()
            missesSinceMatch.deallocate()
        }

        /// The entry for a list of `count` keys, chosen by the first ones (`nil` if one of
        /// those is not a short ASCII string).
        @inline(__always)
        private func entry(count: Int, _ rawKey: (Int) -> RawKey?) -> UnsafeMutablePointer<Entry>? {
            var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
            for index in 0..<Swift.min(count, Self.hashedKeys) {
                guard let key = rawKey(index) else { return nil }
                hash = (hash ^ key.first ^ key.second &* 0xBF58_476D_1CE4_E5B9) &* 0x94D0_49BB_1331_11EB
                hash = (hash ^ key.third ^ key.fourth &* 0xBF58_476D_1CE4_E5B9) &* 0x9E37_79B9_7F4A_7C15
            }
            return entries + Int(truncatingIfNeeded: hash >> UInt64(64 - Self.slotBits))
        }

        /// Pushes the stored list of `count` keys whose `rawKey(i)` equal those of the
        /// dictionary being read onto the pending matches, if there is one, and returns
        /// whether there was.
        @inline(__always)
        func match(count: Int, _ rawKey: (Int) -> RawKey?) -> Bool {
            guard count > 0, count <= Self.maximumCount, let entry = entry(count: count, rawKey),
                entry.pointee.raw.count == count
            else { return false }
            let equal = entry.pointee.raw.withUnsafeBufferPointer { raw in
                for index in 0..<count {
                    guard let key = rawKey(index), key == raw[index] else { return false }
                }
                return true
            }
            if equal {
                missesSinceMatch.pointee = 0
                pending._withUnsafeGuaranteedRef {
                    $0.push(Match(keys: entry.pointee.keys, positions: entry.pointee.positions))
                }
            }
            return equal
        }

        /// The number of pending matches.
        @inline(__always)
        var pendingCount: Int { pending._withUnsafeGuaranteedRef { $0.count } }

        /// Takes the innermost pending match.
        @inline(__always)
        func popPending() -> Match? { pending._withUnsafeGuaranteedRef { $0.popLast() } }

        /// Drops the pending matches from `start` on (those of a reader that threw).
        func removePending(from start: Int) { pending._withUnsafeGuaranteedRef { $0.removeAll(from: start) } }

        /// Keeps the keys of `dictionary`, read from `count` keys whose bytes are
        /// `rawKey(i)`, if none was repeated (the dictionary has them all), all are short
        /// ASCII strings and they are few enough.
        ///
        /// Documents whose dictionaries do not repeat their keys (no match in the last
        /// ``coldAfter`` dictionaries) have one in ``coldSampling`` remembered: remembering
        /// reads every key's bytes and allocates, which was 7% of reading a large document
        /// of such dictionaries, and the sample finds the lists again once they repeat.
        func remember(_ dictionary: PropertyListDictionary, count: Int, _ rawKey: (Int) -> RawKey?) {
            let misses = missesSinceMatch.pointee &+ 1
            missesSinceMatch.pointee = misses
            if misses > Self.coldAfter, misses % Self.coldSampling != 0 { return }
            guard count > 0, count <= Self.maximumCount, dictionary.count == count,
                let entry = entry(count: count, rawKey)
            else { return }
            var raw: [RawKey] = []
            raw.reserveCapacity(count)
            for index in 0..<count {
                guard let key = rawKey(index) else { return }
                raw.append(key)
            }
            entry.pointee = Entry(keys: dictionary.keys, positions: dictionary.positionTable, raw: raw)
        }
    }

    /// The bytes of a short ASCII string object (1 to ``KeyTable/maximumLength`` bytes),
    /// zero-padded to four little-endian words, and their number.
    struct RawKey: Equatable {
        var first: UInt64
        var second: UInt64
        var third: UInt64
        var fourth: UInt64
        var count: Int

        /// The `count` bytes at `bytes`, which may be read up to 32 bytes on.
        @inline(__always)
        init(_ bytes: UnsafeRawPointer, count: Int) {
            first = Self.word(bytes, 0, count: count)
            second = Self.word(bytes, 1, count: count)
            third = Self.word(bytes, 2, count: count)
            fourth = Self.word(bytes, 3, count: count)
            self.count = count
        }

        /// The word of bytes `8 * index ..< 8 * index + 8` of the `count` at `bytes`, as
        /// little-endian, with the bytes past `count` zeroed.
        @inline(__always)
        static func word(_ bytes: UnsafeRawPointer, _ index: Int, count: Int) -> UInt64 {
            let valid = count - 8 * index
            if valid <= 0 { return 0 }
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self))
            return valid >= 8 ? word : word & ((1 &<< UInt64(8 * valid)) &- 1)
        }
    }
}
