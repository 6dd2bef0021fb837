#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64 as property lists carry it: XML's `<data>`, where whitespace anywhere is ignored
/// when reading and lines are wrapped as CoreFoundation wraps them when writing, and the
/// JSON rendering's `{"data": …}`.
enum PropertyListBase64 {
    enum DecodeFailure: Error {
        /// A byte that is neither base64, `=` nor whitespace, at this offset.
        case invalidByte(Int)
        /// Data after `=` padding, or too much padding, at this offset.
        case misplacedPadding(Int)
        /// The characters do not add up to whole bytes.
        case truncated
    }

    /// What each byte is to the decoder: its sextet (0–63) for the base64 alphabet,
    /// ``whitespace`` for XML whitespace, ``padding`` for `=`, ``invalid`` otherwise.
    /// Every mark has a bit of `0xC0` set, so four sextets are checked with one test.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for value in 0..<64 { table[Int(alphabet.utf8Start[value])] = UInt8(value) }
        for character in [0x20, 0x0A, 0x09, 0x0D] { table[character] = whitespace }
        table[Int(UInt8(ascii: "="))] = padding
        return table
    }()
    /// The fast path's four tables, one after the other: for the character at position `k`
    /// of a group, entry `k * 256 + byte` is its sextet already shifted into place in the
    /// group's 24 bits, or `0x8000_0000` when the byte is not in the alphabet; so a group is
    /// the OR of four entries, whole when the top byte is clear.
    private static let shiftedSextets: [UInt32] = {
        var table = [UInt32](repeating: 0x8000_0000, count: 4 * 256)
        for position in 0..<4 {
            for value in 0..<64 {
                let character = Int(alphabet.utf8Start[value])
                table[position * 256 + character] = UInt32(value) << (18 - 6 * position)
            }
        }
        return table
    }()
    private static let whitespace: UInt8 = 0x40
    private static let padding: UInt8 = 0x41
    private static let invalid: UInt8 = 0xFF

    /// Decodes `bytes[range]`; padding may be omitted.
    ///
    /// Four alphabet characters in a row (nearly all of any `<data>`) are decoded together
    /// through one table lookup each; whitespace, padding and anything unexpected go one byte
    /// at a time through the general path, which resumes the fast one at the next whole
    /// group. (The tests check both against a plain reference decoder on random input.)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(DecodeFailure) -> Data
    {
        guard let input = bytes.baseAddress, !range.isEmpty,
            range.lowerBound >= 0, range.upperBound <= bytes.count
        else { return Data() }
        // Four characters make at most three bytes, so this is always enough room.
        let capacity = range.count / 4 * 3 + 3
        var failure: DecodeFailure?
        // Decoded into scratch space (on the stack when small), then copied into a `Data` of
        // the exact size: cheaper than sizing a `Data` down afterwards.
        let data = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer -> Data in
            guard let output = buffer.baseAddress else { return Data() }
            let room = buffer.count
            let written = sextets.withUnsafeBufferPointer { table -> Int in
                shiftedSextets.withUnsafeBufferPointer { shifted -> Int in
                    guard let table = table.baseAddress, let shifted = shifted.baseAddress else { return 0 }
                    var written = 0
                    var accumulator: UInt32 = 0
                    var pending = 0
                    var padding = 0
                    var index = range.lowerBound
                    let end = range.upperBound
                    while index < end {
                        if pending == 0, padding == 0 {
                            // A run of whole groups, as many as the input and the room allow
                            // (each group's three bytes are stored as four, the fourth
                            // overwritten by the next group or cut off at the end).
                            let groups = min((end - index) / 4, (room - written - 1) / 3)
                            var source = input + index
                            var target = UnsafeMutableRawPointer(output + written)
                            let last = source + max(groups, 0) * 4
                            while source < last {
                                let group =
                                    shifted[Int(source[0])] | shifted[256 + Int(source[1])]
                                    | shifted[512 + Int(source[2])] | shifted[768 + Int(source[3])]
                                guard group & 0xFF00_0000 == 0 else { break }
                                target.storeBytes(of: (group << 8).bigEndian, as: UInt32.self)
                                source += 4
                                target += 3
                            }
                            index = source - input
                            written = target - UnsafeMutableRawPointer(output)
                            guard index < end else { break }
                        }
                        let value = table[Int(input[index])]
                        if value == whitespace {
                            // A line break and indentation: skipped whole before the next run.
                            index += 1
                            while index < end, table[Int(input[index])] == whitespace { index += 1 }
                            continue
                        }
                        if value < 64 {
                            guard padding == 0 else {
                                failure = .misplacedPadding(index)
                                return 0
                            }
                            accumulator = accumulator << 6 | UInt32(value)
                            pending += 1
                            if pending == 4, written + 3 <= room {
                                output[written] = UInt8(truncatingIfNeeded: accumulator >> 16)
                                output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                                output[written + 2] = UInt8(truncatingIfNeeded: accumulator)
                                written += 3
                                accumulator = 0
                                pending = 0
                            }
                        } else if value == Self.padding {
                            padding += 1
                            guard pending >= 2, pending + padding <= 4 else {
                                failure = .misplacedPadding(index)
                                return 0
                            }
                        } else {
                            failure = .invalidByte(index)
                            return 0
                        }
                        index += 1
                    }
                    guard written + 2 <= room else { return written }
                    switch pending {
                    case 0:
                        break
                    case 2:
                        output[written] = UInt8(truncatingIfNeeded: accumulator >> 4)
                        written += 1
                    case 3:
                        output[written] = UInt8(truncatingIfNeeded: accumulator >> 10)
                        output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
                        written += 2
                    default:
                        failure = .truncated
                    }
                    return written
                }
            }
            return failure == nil ? Data(bytes: output, count: written) : Data()
        }
        if let failure { throw failure }
        return data
    }

    /// The two characters of each 12-bit value, the first in the low byte (8 KB, built on
    /// first use).
    private static let pairs: [UInt16] = {
        let characters = alphabet.utf8Start
        return (0..<4096).map { UInt16(characters[$0 >> 6]) | UInt16(characters[$0 & 0x3F]) << 8 }
    }()

    private static let alphabet: StaticString =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// The characters the base64 of `count` bytes takes, `=` padding included.
    @inline(__always)
    static func encodedLength(of count: Int) -> Int {
        (count / 3 + (count % 3 == 0 ? 0 : 1)) * 4
    }

    /// Writes the base64 of `bytes`, padded with `=`, at `destination`, which has room for
    /// ``encodedLength(of:)`` bytes, and returns that length.
    ///
    /// The one encoder: XML lines and JSON strings both write through it.
    ///
    /// Six bytes at a time while eight can be loaded: four 12-bit lookups in ``pairs`` and
    /// one 8-byte store (byte by byte through the alphabet was half of writing a
    /// data-heavy XML document, callgrind); the last groups through the alphabet.
    static func encode(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let table = alphabet.utf8Start
        let count = bytes.count
        guard count > 0, let source = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        var index = 0
        var written = 0
        if count >= 8 {
            pairs.withUnsafeBufferPointer { pairs in
                guard pairs.count == 4096, let pairs = pairs.baseAddress else { return }
                let output = UnsafeMutableRawPointer(destination)
                while index + 8 <= count {
                    let word = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                    let characters =
                        UInt64(pairs[Int(truncatingIfNeeded: word >> 52)])
                        | UInt64(pairs[Int(truncatingIfNeeded: word >> 40 & 0xFFF)]) << 16
                        | UInt64(pairs[Int(truncatingIfNeeded: word >> 28 & 0xFFF)]) << 32
                        | UInt64(pairs[Int(truncatingIfNeeded: word >> 16 & 0xFFF)]) << 48
                    output.storeBytes(of: characters.littleEndian, toByteOffset: written, as: UInt64.self)
                    index += 6
                    written += 8
                }
            }
        }
        while index + 3 <= count {
            let chunk =
                UInt32(source[index]) << 16 | UInt32(source[index + 1]) << 8 | UInt32(source[index + 2])
            destination[written] = table[Int(chunk >> 18 & 0x3F)]
            destination[written + 1] = table[Int(chunk >> 12 & 0x3F)]
            destination[written + 2] = table[Int(chunk >> 6 & 0x3F)]
            destination[written + 3] = table[Int(chunk & 0x3F)]
            index += 3
            written += 4
        }
        let remaining = count - index
        if remaining > 0 {
            let first = UInt32(source[index]) << 16
            let chunk = remaining == 2 ? first | UInt32(source[index + 1]) << 8 : first
            destination[written] = table[Int(chunk >> 18 & 0x3F)]
            destination[written + 1] = table[Int(chunk >> 12 & 0x3F)]
            destination[written + 2] = remaining == 2 ? table[Int(chunk >> 6 & 0x3F)] : UInt8(ascii: "=")
            destination[written + 3] = UInt8(ascii: "=")
            written += 4
        }
        return written
    }

    /// Appends the base64 of `bytes`, padded with `=`, to `output`.
    static func append(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        let start = output.count
        let length = encodedLength(of: bytes.count)
        guard length > 0 else { return }
        output.append(contentsOf: repeatElement(0, count: length))
        output.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            _ = encode(bytes, to: base + start)
        }
    }

    /// The bytes ``writeLines(of:charactersPerLine:indentation:to:)`` writes.
    static func linesLength(of count: Int, charactersPerLine: Int, indentation: Int) -> Int {
        let bytesPerLine = charactersPerLine / 4 * 3
        let lines = count / bytesPerLine + (count % bytesPerLine == 0 ? 0 : 1)
        return encodedLength(of: count) + lines * (indentation + 1)
    }

    /// Writes the base64 of `bytes`, `charactersPerLine` characters (a multiple of four) to
    /// a line, each line preceded by `indentation` tabs and followed by a newline, at
    /// `destination`, which has room for ``linesLength(of:charactersPerLine:indentation:)``
    /// bytes, and returns that length.
    static func writeLines(
        of bytes: UnsafeRawBufferPointer, charactersPerLine: Int, indentation: Int,
        to destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let bytesPerLine = charactersPerLine / 4 * 3
        var lineStart = 0
        var written = 0
        while lineStart < bytes.count {
            let lineEnd = min(lineStart + bytesPerLine, bytes.count)
            (destination + written).initialize(repeating: 0x09, count: indentation)
            written += indentation
            written += encode(
                UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd]), to: destination + written)
            destination[written] = 0x0A
            written += 1
            lineStart = lineEnd
        }
        return written
    }
}
