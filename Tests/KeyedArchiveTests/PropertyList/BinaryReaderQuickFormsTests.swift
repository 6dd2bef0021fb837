import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

/// The binary reader's quick forms: references and offsets read with one load and a
/// shift, short ASCII strings built in the string's inline form, short strings referenced
/// again built again rather than kept, and the open containers' stack on the call stack.
@Suite("Binary property list: quick forms")
struct BinaryReaderQuickFormsTests {
    /// Every length from empty to past the inline limit, with the string as the last object,
    /// so that its bytes end right before the offset table (the 16 bytes the inline form
    /// loads run into the table and the trailer).
    @Test(arguments: 0...40)
    func asciiStringsOfEveryLengthReadAsTheStandardLibraryBuildsThem(length: Int) throws {
        let characters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ./-_".utf8)
        let bytes = (0..<length).map { characters[($0 * 7 + length) % characters.count] }
        let expected = String(decoding: bytes, as: UTF8.self)
        let file = BPlist.assemble([[0xA1, 1], BPlist.header(0x50, count: length) + bytes])
        let value = try BPlist.read(file)
        #expect(value == [.string(expected)])
        let text = try #require(value[0]?.stringValue)
        #expect(Array(text.utf8) == bytes)
        #expect(text.count == length)
        #expect(text.hashValue == expected.hashValue)
        #expect(text + "!" == expected + "!")
        // As a key too: through the reading context's table when it is there.
        let dictionary = BPlist.assemble([[0xD1, 1, 2], BPlist.header(0x50, count: length) + bytes, [0x09]])
        if length > 0 {
            #expect(try BPlist.read(dictionary)[expected] == true)
        }
    }

    /// An ASCII string object holding a byte of 0x80 or more reads as Latin-1, whatever its
    /// length and wherever the byte is.
    @Test(arguments: [1, 2, 7, 8, 9, 14, 15, 16, 17, 31])
    func latin1BytesInShortAndLongStrings(length: Int) throws {
        for position in 0..<length {
            var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
            bytes[position] = 0xE9
            let expected = String(bytes.map { Character(Unicode.Scalar($0)) })
            let file = BPlist.assemble([[0xA1, 1], BPlist.header(0x50, count: length) + bytes])
            #expect(try BPlist.read(file) == [.string(expected)], "é at \(position) of \(length)")
        }
    }

    /// A short string and a long one, each one object referenced many times: every
    /// reference reads the same text; the budget counts each reference.
    @Test func shortAndLongStringsReferencedAgain() throws {
        let long = String(repeating: "long string ", count: 3)
        var references: [UInt8] = []
        for index in 0..<20 { references.append(index % 2 == 0 ? 1 : 2) }
        let file = BPlist.assemble([
            [0xAF, 0x10, 20] + references, BPlist.ascii("short"), BPlist.ascii(long),
        ])
        let value = try BPlist.read(file)
        let expected = PropertyList.array((0..<20).map { $0 % 2 == 0 ? "short" : .string(long) })
        #expect(value == expected)
        #expect(throws: KeyedArchiveError.self) {
            _ = try BPlist.read(
                file, options: PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: 20))
        }
        #expect(
            try BPlist.read(
                file, options: PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: 21))
                == expected)
    }

    /// References and offsets of each width, followed by other non-zero references: the
    /// bytes the single load takes past the width must not leak into the value.
    @Test(arguments: [1, 2, 3, 4, 8])
    func wideReferencesAndOffsetsUseEveryByte(width: Int) throws {
        // The array refers to its last object, one in the middle and the first after it.
        let count = width == 1 ? 255 : 300
        var objects: [[UInt8]] = [[]]
        for index in 1..<count { objects.append([0x10, UInt8(truncatingIfNeeded: index)]) }
        let last = UInt64(count - 1)
        let middle = UInt64(count / 2)
        objects[0] = [0xA3] + [last, middle, 1].flatMap { BPlist.bigEndian($0, width: width) }
        let file = BPlist.assemble(objects, refSize: UInt8(width), offsetSize: UInt8(max(width, 2)))
        let value = try BPlist.read(file)
        #expect(
            value == [
                .integer(PropertyListInteger(Int(UInt8(truncatingIfNeeded: count - 1)))),
                .integer(PropertyListInteger(Int(UInt8(truncatingIfNeeded: count / 2)))), 1,
            ])
        // A reference one past the last object is refused, whatever the width.
        var bad = file
        let position = 8 + 1 + (width - 1)
        bad.replaceSubrange(
            (position - width + 1)...position, with: BPlist.bigEndian(UInt64(count), width: width))
        #expect(throws: KeyedArchiveError.self) { _ = try BPlist.read(bad) }
    }

    /// Containers nested past the 16 levels the open-container stack starts with on the
    /// call stack, read whole and refused by the depth limit midway (which must release
    /// what the stack moved to the heap).
    @Test(arguments: [15, 16, 17, 40, 200])
    func nestingAroundTheLentSpace(depth: Int) throws {
        let value = try PropertyList(from: Data(nestedArrays(depth: depth)), format: .binary)
        var level = 0
        var current: PropertyList? = value
        while let array = current?.arrayValue {
            level += 1
            current = array.first
        }
        #expect(level == depth)
        if depth > 2 {
            #expect(throws: KeyedArchiveError.self) {
                _ = try PropertyList(
                    from: Data(nestedArrays(depth: depth)), format: .binary,
                    options: PropertyListReadingOptions(maximumDepth: depth - 1))
            }
        }
    }
}
