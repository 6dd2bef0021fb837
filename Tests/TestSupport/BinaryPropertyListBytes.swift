import Foundation

/// Hand-assembled binary property lists (`bplist00`), for tests and the hardening probe:
/// valid files built from their objects' bytes, and corrupt ones with any trailer field
/// overridden.
public enum BPlist {
    /// Header `bplist00`, then `objects` back to back, an offset table, and a trailer.
    ///
    /// The offsets take the fewest bytes that hold the table's offset, and at least
    /// `minimumOffsetSize`, unless `offsetSize` says otherwise; every other trailer field
    /// may be overridden to build corrupt files.
    public static func assemble(
        _ objects: [[UInt8]], top: UInt64 = 0, refSize: UInt8 = 1, offsetSize: UInt8? = nil,
        minimumOffsetSize: UInt8 = 1, offsets: [UInt64]? = nil, objectCount: UInt64? = nil,
        tableOffset: UInt64? = nil, header: [UInt8] = Array("bplist00".utf8),
        betweenTableAndTrailer: [UInt8] = [], unusedTrailerBytes: [UInt8] = [0, 0, 0, 0, 0, 0]
    ) -> [UInt8] {
        var bytes = header
        var computedOffsets: [UInt64] = []
        for object in objects {
            computedOffsets.append(UInt64(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        let width = offsetSize ?? max(minimumOffsetSize, width(toHold: table))
        for offset in offsets ?? computedOffsets { bytes += bigEndian(offset, width: Int(width)) }
        bytes += betweenTableAndTrailer
        bytes += unusedTrailerBytes
        bytes += [width, refSize]
        bytes += bigEndian(objectCount ?? UInt64(objects.count), width: 8)
        bytes += bigEndian(top, width: 8)
        bytes += bigEndian(tableOffset ?? table, width: 8)
        return bytes
    }

    /// ``assemble(_:top:refSize:offsetSize:minimumOffsetSize:offsets:objectCount:tableOffset:header:betweenTableAndTrailer:unusedTrailerBytes:)``
    /// as `Data`, for the common fields.
    public static func data(
        _ objects: [[UInt8]], top: UInt64 = 0, refSize: UInt8 = 1, offsetSize: UInt8? = nil,
        minimumOffsetSize: UInt8 = 1, objectCount: UInt64? = nil
    ) -> Data {
        Data(
            assemble(
                objects, top: top, refSize: refSize, offsetSize: offsetSize,
                minimumOffsetSize: minimumOffsetSize,
                objectCount: objectCount))
    }

    /// The fewest bytes (1, 2, 4 or 8) that hold `value`, as the writer picks a width.
    public static func width(toHold value: UInt64) -> UInt8 {
        switch value {
        case ..<(1 << 8): return 1
        case ..<(1 << 16): return 2
        case ..<(1 << 32): return 4
        default: return 8
        }
    }

    /// `value`'s low `width` bytes, most significant first.
    public static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
    }

    /// Object reference `index` in `width` bytes (2 unless said otherwise).
    public static func reference(_ index: Int, width: Int = 2) -> [UInt8] {
        bigEndian(UInt64(index), width: width)
    }

    /// An ASCII string object.
    public static func ascii(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return header(0x50, count: bytes.count) + bytes
    }

    /// A marker with an inline count, or `0xF` and a 1-byte count integer.
    public static func header(_ marker: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [marker | UInt8(count)] : [marker | 0x0F, 0x10, UInt8(count)]
    }

    /// A marker with an extended count of 8 bytes (`0xF`, then an 8-byte integer).
    public static func claim(_ marker: UInt8, _ count: UInt64) -> [UInt8] {
        [marker | 0x0F, 0x13] + bigEndian(count, width: 8)
    }
}
