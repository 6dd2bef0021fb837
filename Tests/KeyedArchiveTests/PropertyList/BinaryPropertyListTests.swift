import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import KeyedArchiveSupport
@testable import PropertyListFormats

/// One corrupt or hostile binary property list and the error it must produce.
struct HostileBinaryCase: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let code: KeyedArchiveError.Code
    /// The byte offset the error must name, when the case pins it down.
    var offset: Int?

    var testDescription: String { name }
}

// A valid reference file: [42, "a"].
//   8: A2 01 02   array of 2 refs -> objects 1, 2
//  11: 10 2A      integer 42
//  13: 51 61      ASCII "a"
//  15: 08 0B 0D   offset table (1 byte each)
//  18: trailer    6 unused, offsetSize 1, refSize 1, count 3, top 0, table at 15
private let validObjects: [[UInt8]] = [[0xA2, 0x01, 0x02], [0x10, 0x2A], [0x51, 0x61]]

private func valid(
    top: UInt64 = 0, refSize: UInt8 = 1, offsetSize: UInt8? = nil, offsets: [UInt64]? = nil,
    objectCount: UInt64? = nil, tableOffset: UInt64? = nil, header: [UInt8] = Array("bplist00".utf8),
    betweenTableAndTrailer: [UInt8] = []
) -> [UInt8] {
    BPlist.assemble(
        validObjects, top: top, refSize: refSize, offsetSize: offsetSize, offsets: offsets,
        objectCount: objectCount, tableOffset: tableOffset, header: header,
        betweenTableAndTrailer: betweenTableAndTrailer)
}

/// A root holding the single object `object` (object 1): `[object]`.
private func wrapped(_ object: [UInt8]) -> [UInt8] {
    BPlist.assemble([[0xA1, 0x01], object])
}

/// `depth` nested one-element arrays around an empty array.
func nestedArrays(depth: Int) -> [UInt8] {
    var objects: [[UInt8]] = []
    for index in 0..<depth - 1 {
        objects.append([0xA1] + BPlist.bigEndian(UInt64(index + 1), width: 2))
    }
    objects.append([0xA0])
    return BPlist.assemble(objects, refSize: 2)
}

/// A "bomb": object i is an array referring twice to object i+1, so the tree it
/// describes has 2^count leaves while the file has `count` objects.
func sharedReferenceBomb(count: Int) -> [UInt8] {
    var objects: [[UInt8]] = []
    for index in 0..<count - 1 {
        let next = BPlist.bigEndian(UInt64(index + 1), width: 2)
        objects.append([0xA2] + next + next)
    }
    objects.append([0x10, 0x01])
    return BPlist.assemble(objects, refSize: 2)
}

extension HostileBinaryCase {
    static let trailerStart = valid().count - 32

    static let all: [HostileBinaryCase] = [
        // MARK: Length, header, trailer
        HostileBinaryCase(
            name: "shorter than header + object + offset + trailer",
            bytes: Array("bplist00".utf8) + [0x08] + [UInt8](repeating: 0, count: 20), code: .corruptData),
        HostileBinaryCase(
            name: "bad magic", bytes: valid(header: Array("xplist00".utf8)), code: .corruptData),
        HostileBinaryCase(
            name: "unknown version bplist30", bytes: valid(header: Array("bplist30".utf8)),
            code: .corruptData,
            offset: 6),
        HostileBinaryCase(
            name: "bplist15 (newer format)", bytes: valid(header: Array("bplist15".utf8)),
            code: .unsupportedFormat),
        HostileBinaryCase(
            // No offset table at all: the trailer starts at byte 15.
            name: "offset size 0", bytes: valid(offsetSize: 0), code: .corruptData, offset: 15 + 6),
        HostileBinaryCase(
            // Three 9-byte entries: the trailer starts at byte 15 + 27.
            name: "offset size 9", bytes: valid(offsetSize: 9), code: .corruptData, offset: 42 + 6),
        HostileBinaryCase(
            name: "reference size 0", bytes: valid(refSize: 0), code: .corruptData, offset: trailerStart + 7),
        HostileBinaryCase(
            name: "reference size 9", bytes: valid(refSize: 9), code: .corruptData, offset: trailerStart + 7),
        HostileBinaryCase(
            name: "object count 0", bytes: valid(objectCount: 0), code: .corruptData, offset: trailerStart + 8
        ),
        HostileBinaryCase(
            name: "object count 2^64-1", bytes: valid(objectCount: .max), code: .corruptData,
            offset: trailerStart + 8),
        HostileBinaryCase(
            name: "object count one more than the offset table holds", bytes: valid(objectCount: 4),
            code: .corruptData),
        HostileBinaryCase(
            name: "top object == object count", bytes: valid(top: 3), code: .corruptData,
            offset: trailerStart + 16),
        HostileBinaryCase(
            name: "top object 2^64-1", bytes: valid(top: .max), code: .corruptData, offset: trailerStart + 16),
        HostileBinaryCase(
            name: "offset table inside the header", bytes: valid(tableOffset: 2), code: .corruptData,
            offset: trailerStart + 24),
        HostileBinaryCase(
            name: "offset table inside the trailer", bytes: valid(tableOffset: UInt64(trailerStart + 4)),
            code: .corruptData, offset: trailerStart + 24),
        HostileBinaryCase(
            name: "offset table 2^64-1", bytes: valid(tableOffset: .max), code: .corruptData,
            offset: trailerStart + 24),
        HostileBinaryCase(
            name: "offset table starts one byte early", bytes: valid(tableOffset: 14), code: .corruptData),
        HostileBinaryCase(
            name: "garbage between offset table and trailer",
            bytes: valid(betweenTableAndTrailer: [0xAA, 0xBB]),
            code: .corruptData),
        HostileBinaryCase(
            // 256 objects: object 0 an array of the other 255 one-byte integers.
            name: "1-byte references cannot address 256 objects",
            bytes: BPlist.assemble(
                [[0xAF, 0x10, 0xFF] + (1...255).map { UInt8($0) }]
                    + (1...255).map { [0x10, UInt8($0)] }, offsetSize: 2),
            code: .corruptData),
        HostileBinaryCase(
            // A 300-byte data object pushes the offset table beyond what 1 byte can address.
            name: "1-byte offsets cannot reach the offset table at byte 311",
            bytes: BPlist.assemble(
                [[0x4F, 0x11, 0x01, 0x2C] + [UInt8](repeating: 7, count: 300)], offsetSize: 1),
            code: .corruptData),

        // MARK: Offsets and references
        HostileBinaryCase(
            name: "top object's offset inside the header", bytes: valid(offsets: [3, 11, 13]),
            code: .corruptData,
            offset: 15),
        HostileBinaryCase(
            name: "other object's offset inside the header", bytes: valid(offsets: [8, 3, 13]),
            code: .corruptData, offset: 16),
        HostileBinaryCase(
            name: "offset pointing at the offset table", bytes: valid(offsets: [8, 11, 15]),
            code: .corruptData,
            offset: 17),
        HostileBinaryCase(
            name: "offset past the end", bytes: valid(offsets: [8, 11, 0xEE]), code: .corruptData, offset: 17),
        HostileBinaryCase(
            //  8: A2 01 05   second reference is 5, but there are 3 objects
            name: "reference beyond the object count",
            bytes: BPlist.assemble([[0xA2, 0x01, 0x05], [0x10, 0x2A], [0x51, 0x61]]), code: .corruptData,
            offset: 10),
        HostileBinaryCase(
            //  8: A1 00 00 00 00 00 00 00 FF   8-byte reference 255
            name: "8-byte reference beyond the object count",
            bytes: BPlist.assemble([[0xA1, 0, 0, 0, 0, 0, 0, 0, 0xFF]], refSize: 8), code: .corruptData,
            offset: 9),

        // MARK: Markers
        HostileBinaryCase(name: "null (0x00)", bytes: wrapped([0x00]), code: .unsupportedFormat, offset: 10),
        HostileBinaryCase(name: "fill byte (0x0F)", bytes: wrapped([0x0F]), code: .corruptData, offset: 10),
        HostileBinaryCase(name: "marker 0x01", bytes: wrapped([0x01]), code: .corruptData),
        HostileBinaryCase(
            name: "marker 0x0C (URL in newer formats)", bytes: wrapped([0x0C]), code: .corruptData),
        HostileBinaryCase(name: "marker 0x70", bytes: wrapped([0x70]), code: .corruptData),
        HostileBinaryCase(name: "marker 0x90", bytes: wrapped([0x90]), code: .corruptData),
        HostileBinaryCase(name: "marker 0xB0 (ordered set)", bytes: wrapped([0xB0]), code: .corruptData),
        HostileBinaryCase(name: "marker 0xE0", bytes: wrapped([0xE0]), code: .corruptData),
        HostileBinaryCase(name: "marker 0xF0", bytes: wrapped([0xF0]), code: .corruptData),

        // MARK: Numbers and dates
        HostileBinaryCase(
            //  0x15 = integer of 2^5 = 32 bytes
            name: "integer of 32 bytes", bytes: wrapped([0x15] + [UInt8](repeating: 1, count: 32)),
            code: .corruptData, offset: 10),
        HostileBinaryCase(
            name: "integer truncated by the offset table", bytes: wrapped([0x13, 0x01, 0x02, 0x03]),
            code: .corruptData, offset: 10),
        HostileBinaryCase(name: "real of 1 byte (0x20)", bytes: wrapped([0x20, 0x01]), code: .corruptData),
        HostileBinaryCase(
            name: "real of 2 bytes (0x21)", bytes: wrapped([0x21, 0x01, 0x02]), code: .corruptData),
        HostileBinaryCase(
            name: "real of 16 bytes (0x24)", bytes: wrapped([0x24] + [UInt8](repeating: 0, count: 16)),
            code: .corruptData),
        HostileBinaryCase(
            name: "date marker 0x32", bytes: wrapped([0x32, 0, 0, 0, 0]), code: .corruptData),
        HostileBinaryCase(
            //  0x33 then the float64 bits of NaN
            name: "NaN date", bytes: wrapped([0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]), code: .corruptData,
            offset: 10),
        HostileBinaryCase(
            name: "infinite date", bytes: wrapped([0x33, 0xFF, 0xF0, 0, 0, 0, 0, 0, 0]), code: .corruptData),
        HostileBinaryCase(
            name: "UID of 9 bytes (0x88)", bytes: wrapped([0x88] + [UInt8](repeating: 1, count: 9)),
            code: .corruptData),

        // MARK: Counts
        HostileBinaryCase(
            //  4F: data, count follows; 13: 8-byte integer 2^64-1
            name: "data count 2^64-1", bytes: wrapped([0x4F, 0x13] + [UInt8](repeating: 0xFF, count: 8)),
            code: .corruptData, offset: 11),
        HostileBinaryCase(
            name: "data count Int.max in a tiny file",
            bytes: wrapped([0x4F, 0x13, 0x7F] + [UInt8](repeating: 0xFF, count: 7)), code: .corruptData,
            offset: 10),
        HostileBinaryCase(
            name: "ASCII string count 2^32-1 in a tiny file",
            bytes: wrapped([0x5F, 0x12, 0xFF, 0xFF, 0xFF, 0xFF]), code: .corruptData, offset: 10),
        HostileBinaryCase(
            //  6F 13 40 00..: 2^62 code units = 2^63 bytes
            name: "UTF-16 count whose byte count overflows",
            bytes: wrapped([0x6F, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0]), code: .corruptData, offset: 10),
        HostileBinaryCase(
            //  AF 13 20 00..: 2^61 references of 8 bytes = 2^64 bytes
            name: "array count × reference size overflows",
            bytes: BPlist.assemble([[0xAF, 0x13, 0x20, 0, 0, 0, 0, 0, 0, 0]], refSize: 8), code: .corruptData,
            offset: 8),
        HostileBinaryCase(
            name: "dictionary count 2^32-1 in a tiny file",
            bytes: wrapped([0xDF, 0x12, 0xFF, 0xFF, 0xFF, 0xFF]),
            code: .corruptData, offset: 10),
        HostileBinaryCase(
            //  5F 23 ..: the count must be an integer object, not a real
            name: "count that is not an integer",
            bytes: wrapped([0x5F, 0x23, 0x40, 0, 0, 0, 0, 0, 0, 0]), code: .corruptData, offset: 11),
        HostileBinaryCase(
            name: "count integer of 16 bytes",
            bytes: wrapped([0x5F, 0x14] + [UInt8](repeating: 0, count: 15) + [1, 0x41]), code: .corruptData),
        HostileBinaryCase(
            name: "count marker at the end of the object area", bytes: wrapped([0x5F]), code: .corruptData),

        // MARK: Strings
        HostileBinaryCase(
            //  62 00 41 00: two code units claimed, three bytes before the offset table
            name: "UTF-16 string with an odd number of bytes", bytes: wrapped([0x62, 0x00, 0x41, 0x00]),
            code: .corruptData, offset: 10),
        HostileBinaryCase(
            name: "UTF-16 lone high surrogate", bytes: wrapped([0x62, 0x00, 0x41, 0xD8, 0x3D]),
            code: .corruptData, offset: 13),
        HostileBinaryCase(
            name: "UTF-16 lone low surrogate", bytes: wrapped([0x61, 0xDE, 0x00]), code: .corruptData,
            offset: 11),
        HostileBinaryCase(
            name: "UTF-16 high surrogate before a non-surrogate",
            bytes: wrapped([0x62, 0xD8, 0x3D, 0x00, 0x41]), code: .corruptData, offset: 11),

        // MARK: Dictionaries
        HostileBinaryCase(
            //  8: D1 01 01   {object 1: object 1}; object 1 is the integer 1
            name: "integer dictionary key", bytes: BPlist.assemble([[0xD1, 0x01, 0x01], [0x10, 0x01]]),
            code: .corruptData, offset: 11),
        HostileBinaryCase(
            name: "array dictionary key", bytes: BPlist.assemble([[0xD1, 0x01, 0x02], [0xA0], [0x09]]),
            code: .corruptData),
        HostileBinaryCase(
            name: "dictionary that is its own key", bytes: BPlist.assemble([[0xD1, 0x00, 0x00]]),
            code: .corruptData),

        // MARK: Cycles, depth and expansion
        HostileBinaryCase(
            //  8: A1 00   an array whose only element is itself
            name: "array containing itself", bytes: BPlist.assemble([[0xA1, 0x00]]), code: .corruptData,
            offset: 8),
        HostileBinaryCase(
            //  8: A1 01 ; 10: A1 00   two arrays containing each other
            name: "mutual cycle of two arrays", bytes: BPlist.assemble([[0xA1, 0x01], [0xA1, 0x00]]),
            code: .corruptData, offset: 8),
        HostileBinaryCase(
            //  object 0 [1]; 1 ["k": 2]; 2 [0] — a cycle through a dictionary value
            name: "cycle through a dictionary value",
            bytes: BPlist.assemble([[0xA1, 0x01], [0xD1, 0x03, 0x02], [0xA1, 0x00], [0x51, 0x6B]]),
            code: .corruptData),
        HostileBinaryCase(
            //  a set (0xC1) containing itself
            name: "set containing itself", bytes: BPlist.assemble([[0xC1, 0x00]]), code: .corruptData),
        HostileBinaryCase(
            name: "nesting 513 deep", bytes: nestedArrays(depth: 513), code: .limitExceeded),
    ]
}

@Suite("Binary property list: hostile input")
struct BinaryPropertyListHostileTests {
    @Test(arguments: HostileBinaryCase.all)
    func rejects(_ hostile: HostileBinaryCase) throws {
        let error = #expect(throws: KeyedArchiveError.self) { try BPlist.read(hostile.bytes) }
        #expect(error?.code == hostile.code, "\(hostile.name): \(String(describing: error))")
        if let offset = hostile.offset {
            #expect(error?.location == .byteOffset(offset), "\(hostile.name): \(String(describing: error))")
        }
    }

    @Test func errorMessagesSayWhatAndWhere() throws {
        let bytes = wrapped([0xAF, 0x12, 0xFF, 0xFF, 0xFF, 0xFF])
        let error = #expect(throws: KeyedArchiveError.self) { try BPlist.read(bytes) }
        #expect(
            error?.description
                == "byte 10: object 1: array count 4294967295 needs 4294967295 bytes of references but only 0 remain"
        )
    }

    @Test func reportsTheOffsetOfALoneSurrogate() throws {
        let error = #expect(throws: KeyedArchiveError.self) {
            try BPlist.read(wrapped([0x61, 0xDE, 0x00]))
        }
        #expect(error?.message.contains("lone surrogate 0xde00") == true, "\(String(describing: error))")
    }

    @Test func nesting512DeepIsAccepted() throws {
        var value = try BPlist.read(nestedArrays(depth: 512))
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            guard let first = elements.first else { break }
            value = first
        }
        #expect(depth == 512)
    }

    @Test func depthLimitComesFromOptions() throws {
        var options = PropertyListReadingOptions()
        options.maximumDepth = 3
        #expect(throws: Never.self) { try BPlist.read(nestedArrays(depth: 3), options: options) }
        let error = #expect(throws: KeyedArchiveError.self) {
            try BPlist.read(nestedArrays(depth: 4), options: options)
        }
        #expect(error?.code == .limitExceeded)
        // Object 3 (the fourth array) is the one that goes too deep: 8 + 3 * 3 bytes in.
        #expect(error?.location == .byteOffset(17))
    }

    @Test func deepNestingDoesNotUseTheStack() throws {
        // Far deeper than any call stack would survive if the reader recursed.
        var options = PropertyListReadingOptions()
        options.maximumDepth = .max
        let value = try BPlist.read(nestedArrays(depth: 3_000), options: options)
        #expect(value.arrayValue?.count == 1)
    }

    @Test func sharedReferenceBombFailsFastWithLimitExceeded() throws {
        // 60 objects describe 2^59 leaves; the budget stops it after about a million values.
        let bytes = sharedReferenceBomb(count: 60)
        let start = ContinuousClock.now
        let error = #expect(throws: KeyedArchiveError.self) { try BPlist.read(bytes) }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .limitExceeded)
        #expect(elapsed < .seconds(10), "took \(elapsed)")
    }

    @Test func smallSharedTreesStayWithinTheBudget() throws {
        // 2^10 leaves: well within the default budget, and every shared subtree is built.
        let value = try BPlist.read(sharedReferenceBomb(count: 11))
        var leaves = 0
        var pending = [value]
        while let next = pending.popLast() {
            if case .array(let elements) = next { pending += elements } else { leaves += 1 }
        }
        #expect(leaves == 1024)
    }

    @Test func budgetCountsSharedReferencesEachTime() throws {
        var options = PropertyListReadingOptions()
        options.baseValueAllowance = 100
        options.maximumExpansionFactor = 0
        // 2^7 leaves + 127 arrays = 255 values > 100.
        let error = #expect(throws: KeyedArchiveError.self) {
            try BPlist.read(sharedReferenceBomb(count: 8), options: options)
        }
        #expect(error?.code == .limitExceeded)
    }
}

@Suite("Binary property list: accepted shapes")
struct BinaryPropertyListShapeTests {
    @Test func headerBplist0xIsAccepted() throws {
        #expect(try BPlist.read(valid(header: Array("bplist0x".utf8))) == [42, "a"])
    }

    /// CoreFoundation checks only `bplist0` (`__CFBinaryPlistGetTopLevelInfo`: "SnowLeopard
    /// will parse bplist0? where ? is any one character"), and swift-foundation tests that
    /// a `bplist0x` file reads (rdar://5877417): so does every eighth byte here.
    @Test func everyBplist0VersionIsAccepted() throws {
        for version in UInt8.min...UInt8.max {
            let header = Array("bplist0".utf8) + [version]
            #expect(try BPlist.read(valid(header: header)) == [42, "a"], "bplist0 + 0x\(hexByte(version))")
        }
        #expect(try BPlist.read(valid(header: Array("bplist0z".utf8))) == [42, "a"])
    }

    @Test(arguments: ["bplist1z", "bplist10", "bplist2z", "bplistzz", "bplist\u{0}0"])
    func otherVersionsAreRefused(_ header: String) {
        let error = #expect(throws: KeyedArchiveError.self) {
            try BPlist.read(valid(header: Array(header.utf8)))
        }
        #expect(error?.code == (header.hasPrefix("bplist1") ? .unsupportedFormat : .corruptData))
        #expect(error?.location == .byteOffset(6))
    }

    /// The trailer is the file's last 32 bytes and the offset table ends where it starts,
    /// as CoreFoundation requires: nothing can follow the trailer.
    @Test func bytesAfterTheTrailerAreRefused() {
        let error = #expect(throws: KeyedArchiveError.self) { try BPlist.read(valid() + [0]) }
        #expect(error?.code == .corruptData)
    }

    /// As CoreFoundation, objects are found only through the offset table: bytes no entry
    /// points at are never read, and two entries may share bytes.
    @Test func unreferencedAndOverlappingObjectsAreAccepted() throws {
        // Junk between the objects.
        let gap = BPlist.assemble([[0xA2, 0x01, 0x02, 0xFF, 0xFF], [0x10, 0x2A], [0x51, 0x61]])
        #expect(try BPlist.read(gap) == [42, "a"])
        // Objects 1 and 2 at the same offset.
        let shared = BPlist.assemble(
            [[0xA2, 0x01, 0x02], [0x10, 0x2A]], offsets: [8, 11, 11], objectCount: 3)
        #expect(try BPlist.read(shared) == [42, 42])
        // Object 2 inside object 1: the string "\u{10}*" holds the integer 42.
        let inside = BPlist.assemble(
            [[0xA2, 0x01, 0x02], [0x52, 0x10, 0x2A]], offsets: [8, 11, 12], objectCount: 3)
        #expect(try BPlist.read(inside) == ["\u{10}*", 42])
    }

    @Test func junkInTheUnusedTrailerBytesIsIgnored() throws {
        let bytes = BPlist.assemble(validObjects, unusedTrailerBytes: [1, 2, 3, 4, 5, 6])
        #expect(try BPlist.read(bytes) == [42, "a"])
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func everyOffsetAndReferenceSizeFrom1To8(size: Int) throws {
        // [42, "a"] with `size`-byte references and offsets.
        let references = [UInt8(0xA2)] + BPlist.bigEndian(1, width: size) + BPlist.bigEndian(2, width: size)
        let bytes = BPlist.assemble(
            [references, [0x10, 0x2A], [0x51, 0x61]], refSize: UInt8(size), offsetSize: UInt8(size))
        #expect(try BPlist.read(bytes) == [42, "a"])
    }

    @Test func integersOfEveryWidth() throws {
        let objects: [[UInt8]] = [
            [0xA6, 1, 2, 3, 4, 5, 6],
            [0x10, 0xFF],  // 255: 1 byte, unsigned
            [0x11, 0xFF, 0xFF],  // 65535
            [0x12, 0xFF, 0xFF, 0xFF, 0xFF],  // 4294967295
            [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE],  // -2: 8 bytes, signed
            [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // UInt64.max
            // 16 bytes, full 128-bit signed: 0x0102…0F10
            [0x14, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
        ]
        let value = try BPlist.read(BPlist.assemble(objects))
        #expect(
            value == [
                255, 65535, 4_294_967_295, -2, .integer(PropertyListInteger(UInt64.max)),
                .integer(PropertyListInteger(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10)),
            ])
        #expect(value[5]?.integerValue?.description == "1339673755198158349044581307228491536")
    }

    @Test func negative128BitInteger() throws {
        let value = try BPlist.read(
            wrapped([0x14, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE] + [UInt8](repeating: 0, count: 8)))
        #expect(value[0]?.integerValue == PropertyListInteger(high: -2, low: 0))
        #expect(value[0]?.integerValue?.description == "-36893488147419103232")
    }

    @Test func realsOfFourAndEightBytes() throws {
        let float: Float = 3.25
        let double = 2.718281828
        let bytes = BPlist.assemble([
            [0xA2, 1, 2],
            [0x22] + BPlist.bigEndian(UInt64(float.bitPattern), width: 4),
            [0x23] + BPlist.bigEndian(double.bitPattern, width: 8),
        ])
        #expect(try BPlist.read(bytes) == [.real(3.25), .real(double)])
    }

    @Test func asciiStringWithHighBytesReadsAsLatin1() throws {
        // 53: ASCII string of 3 bytes "M", 0xE4, 0xFF, which CoreFoundation reads as Latin-1.
        #expect(try BPlist.read(wrapped([0x53, 0x4D, 0xE4, 0xFF])) == ["Mäÿ"])
    }

    @Test func utf16SurrogatePairs() throws {
        // "a😀é" = 0061 D83D DE00 00E9
        #expect(try BPlist.read(wrapped([0x64, 0x00, 0x61, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0xE9])) == ["a😀é"])
    }

    /// The UTF-16 reader, unit by unit against the expected text, on random strings mixing
    /// ASCII runs of every length with 2-, 3- and 4-byte characters, and with a lone
    /// surrogate put in at a random place (fixed seed, so a failure repeats).
    @Test func utf16StringsOfMixedTextMatchUnitByUnit() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        let pieces: [String] = ["a", "Zq", "0123", "hello, ", "é", "ß", "Ж", "説明", "€", "😀", "𝄞", "<&>", " "]
        func object(_ units: [UInt16]) -> [UInt8] {
            let header: [UInt8] =
                units.count < 15
                ? [0x60 | UInt8(units.count)]
                : [0x6F, 0x11] + BPlist.bigEndian(UInt64(units.count), width: 2)
            return header + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }
        for _ in 0..<1500 {
            let text = (0..<(1 + next(24))).map { _ in pieces[next(pieces.count)] }.joined()
            var units = Array(text.utf16)
            // At least one unit outside ASCII, as a writer stores such a string.
            if units.allSatisfy({ $0 < 0x80 }) { units.insert(0xE9, at: next(units.count + 1)) }
            let expected = String(decoding: units, as: UTF16.self)
            #expect(try BPlist.read(wrapped(object(units))) == [.string(expected)])
            // A lone surrogate anywhere is refused, at its offset.
            let lone: UInt16 = next(2) == 0 ? 0xD83D : 0xDE00
            var broken = units
            let position = next(units.count + 1)
            broken.insert(lone, at: position)
            if lone == 0xD83D, position < units.count, units[position] & 0xFC00 == 0xDC00 { continue }
            if lone == 0xDE00, position > 0, units[position - 1] & 0xFC00 == 0xD800 { continue }
            #expect(throws: KeyedArchiveError.self) { try BPlist.read(wrapped(object(broken))) }
        }
        // Strings are built from the transcoded bytes without validating them again: their
        // ASCII flag must say what the units say (ASCII-only UTF-16 is legal, if unusual).
        for text in ["plain ASCII text, longer than fifteen bytes", "non-ASCII text: é, 説明 and 😀"] {
            let read = try BPlist.read(wrapped(object(Array(text.utf16))))
            #expect(read == [.string(text)])
            if KnownASCII.isAvailable, case .string(let value)? = read.arrayValue?.first {
                #expect(KnownASCII.flag(value) == text.utf8.allSatisfy { $0 < 0x80 }, "\(text)")
            }
        }
    }

    @Test func longCountsUseAnIntegerObject() throws {
        let text = String(repeating: "x", count: 20)
        #expect(try BPlist.read(wrapped([0x5F, 0x10, 20] + Array(text.utf8))) == [.string(text)])
        // A 2-byte count holding a small number is fine too.
        #expect(try BPlist.read(wrapped([0x5F, 0x11, 0, 2, 0x68, 0x69])) == ["hi"])
    }

    @Test func uidsOfOneToEightBytes() throws {
        let objects: [[UInt8]] = [
            [0xA4, 1, 2, 3, 4], [0x80, 0x07], [0x81, 0x01, 0x00], [0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x87, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        ]
        #expect(
            try BPlist.read(BPlist.assemble(objects)) == [.uid(7), .uid(256), .uid(1 << 40 - 1), .uid(.max)])
    }

    @Test func setsReadAsArrays() throws {
        #expect(try BPlist.read(BPlist.assemble([[0xC2, 1, 2], [0x09], [0x08]])) == [true, false])
    }

    @Test func duplicateKeysLastWins() throws {
        // {"k": 1, "k": 2} with the key stored once.
        let bytes = BPlist.assemble([[0xD2, 1, 1, 2, 3], [0x51, 0x6B], [0x10, 1], [0x10, 2]])
        let value = try BPlist.read(bytes)
        #expect(value.dictionaryValue?.count == 1)
        #expect(value["k"] == 2)
    }

    @Test func sharedObjectsAreReadEachTimeTheyAreReferenced() throws {
        // [s, s, [s]] with one string object.
        let bytes = BPlist.assemble([[0xA3, 1, 1, 2], [0x52, 0x68, 0x69], [0xA1, 1]])
        #expect(try BPlist.read(bytes) == ["hi", "hi", ["hi"]])
    }

    @Test func hugeFiniteDatesAreAccepted() throws {
        let value = try BPlist.read(wrapped([0x33] + BPlist.bigEndian(Double(1e300).bitPattern, width: 8)))
        #expect(value[0]?.dateValue?.timeIntervalSinceReferenceDate == 1e300)
    }

    @Test func scalarRoot() throws {
        #expect(try BPlist.read(BPlist.assemble([[0x09]])) == true)
    }
}

@Suite("Binary property list: mutations")
struct BinaryPropertyListMutationTests {
    /// Valid inputs to damage: generated values of every type and size class.
    static func seeds() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for seed in 0..<6 {
            var random = SeededGenerator(seed: UInt64(seed) &+ 1000)
            seeds.append([UInt8](try GeneratedPlist.value(&random, depth: 4).data(format: .binary)))
        }
        seeds.append(sharedReferenceBomb(count: 12))
        seeds.append(nestedArrays(depth: 40))
        return seeds
    }

    /// Damaged input gives a value or a `KeyedArchiveError`, never a trap, through both the
    /// whole-file reader and the scanner's random access to single objects.
    @Test(arguments: 0..<8)
    func damagedInputNeverTraps(seedIndex: Int) throws {
        let original = try Self.seeds()[seedIndex]
        var random = SeededGenerator(seed: UInt64(seedIndex) &* 7919)
        for _ in 0..<300 {
            var bytes = original
            switch random.next() % 4 {
            case 0:  // flip a few bytes anywhere
                for _ in 0..<(1 + random.next() % 4) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            case 1:  // damage the trailer
                bytes[bytes.count - 1 - Int(random.next() % 32)] = UInt8(truncatingIfNeeded: random.next())
            case 2:  // truncate
                bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
            default:  // damage one marker byte in the object area
                let position = 8 + Int(random.next() % UInt64(max(1, bytes.count - 40)))
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            }
            do {
                _ = try BPlist.read(bytes)
            } catch let error as KeyedArchiveError {
                #expect(error.location != nil, "\(error)")
            }
            _ = try? BPlist.scan(Data(bytes)) { scanner in
                for index in 0..<min(scanner.trailer.objectCount, 64) {
                    _ = try? scanner.object(index)
                    _ = try? scanner.value(at: index)
                    _ = try? scanner.references(of: index)
                    _ = try? scanner.string(at: index)
                    _ = try? scanner.valueReference(forKey: "k", inDictionaryAt: index)
                }
            }
        }
    }
}
