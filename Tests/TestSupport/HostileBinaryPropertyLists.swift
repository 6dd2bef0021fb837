import Foundation

/// Small binary property lists that expand to huge values ("bombs"), shared by the
/// hardening tests, the tool's tests and the hardening probe.
extension BPlist {
    /// `levels` objects from `first` on, each an array holding the next twice, the last
    /// `leaf` (2^(levels-1) leaves), with references of `width` bytes.
    public static func bombObjects(
        levels: Int, first: Int = 0, width: Int = 1, leaf: [UInt8] = [0x10, 7]
    ) -> [[UInt8]] {
        (0..<levels).map { level in
            let next = reference(first + level + 1, width: width)
            return level == levels - 1 ? leaf : [0xA2] + next + next
        }
    }

    /// `depth` nested one-element arrays around a `levels`-deep bomb, with 2-byte
    /// references.
    public static func nestedBomb(depth: Int, levels: Int) -> Data {
        let arrays = (0..<depth).map { [0xA1] + reference($0 + 1) }
        return data(
            arrays + bombObjects(levels: levels, first: depth, width: 2), refSize: 2, minimumOffsetSize: 2)
    }

    /// A binary keyed archive whose `$objects` holds `entries` distinct plain arrays, each
    /// holding the top of one shared `levels`-deep bomb (2^(levels-1) leaves): small, but
    /// each entry alone expands to hundreds of thousands of values. `$top.root` is
    /// `$objects[1]`.
    public static func archiveOfPlainBombs(entries: Int, levels: Int) -> Data {
        let ref = { (index: Int) -> [UInt8] in reference(index) }
        let firstEntry = 12
        let bombTop = firstEntry + entries
        var objects: [[UInt8]] = [
            [0xD4] + [1, 2, 3, 4, 5, 6, 7, 8].flatMap(ref),  // 0: the archive dictionary
            ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),
            ascii("NSKeyedArchiver"), [0x12, 0x00, 0x01, 0x86, 0xA0],
            [0xD1] + ref(9) + ref(10),  // 7: $top = {root: UID 1}
            [0xAF, 0x10, UInt8(entries + 1)] + ref(11) + (0..<entries).flatMap { ref(firstEntry + $0) },
            ascii("root"), [0x80, 0x01], ascii("$null"),
        ]
        objects += Array(repeating: [0xA1] + ref(bombTop), count: entries)
        objects += bombObjects(levels: levels, first: bombTop, width: 2)
        return data(objects, refSize: 2, minimumOffsetSize: 2)
    }

    /// A keyed archive whose `$objects` holds `$null` and one entry, a `levels`-deep bomb
    /// (2^(levels-1) leaves), with 1-byte references: 247 bytes for 20 levels.
    public static func plainBombEntryArchive(levels: Int) -> Data {
        let header: [[UInt8]] = [
            [0xD4, 1, 2, 3, 4, 5, 6, 7, 8],
            ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),
            ascii("NSKeyedArchiver"), [0x12, 0x00, 0x01, 0x86, 0xA0],
            [0xD1, 9, 10],  // $top = {root: UID 1}
            [0xA2, 11, 12],  // $objects = [$null, the bomb]
            ascii("root"), [0x80, 0x01], ascii("$null"),
        ]
        return data(header + bombObjects(levels: levels, first: header.count), minimumOffsetSize: 2)
    }
}
