import KeyedArchiveSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of an XML property list being written, and the formatting of its text.
///
/// Both XML writers (``XMLPropertyListEmitter`` for a ``PropertyList`` value and
/// ``XMLPropertyListTranscoder`` for a binary property list) write through this buffer, so
/// escaping and number formatting exist once. The bytes live in one allocation written
/// through a pointer: each piece costs one capacity check and a copy, and ``finish()``
/// hands the allocation to `Data` without copying it. The allocation is `malloc`'s and
/// grows with `realloc`, which moves a large buffer by remapping its pages: a long
/// document is neither copied as it grows nor written into fresh pages at each doubling.
struct XMLOutputBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    private(set) var count = 0

    /// Creates an empty buffer with room for `capacity` bytes before it first grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 256)
        base = Self.allocate(self.capacity)
    }

    deinit {
        free(base)
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
        guard let memory = malloc(capacity) else {
            // As Swift's own allocation does when memory is exhausted.
            return .allocate(capacity: capacity)
        }
        return memory.assumingMemoryBound(to: UInt8.self)
    }

    /// The bytes written, as `Data` that takes over the allocation.
    consuming func finish() -> Data {
        let base = self.base
        let count = self.count
        discard self
        return Data(
            bytesNoCopy: base, count: count,
            deallocator: .free)
    }

    /// Hands the bytes written so far to `output` and empties the buffer, keeping its
    /// allocation for what follows.
    mutating func drain(into output: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard count > 0 else { return }
        try output(UnsafeRawBufferPointer(start: base, count: count))
        count = 0
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if capacity - count < extra { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        var newCapacity = capacity * 2
        while newCapacity - count < extra { newCapacity *= 2 }
        if let moved = realloc(base, newCapacity) {
            base = moved.assumingMemoryBound(to: UInt8.self)
        } else {
            let newBase = Self.allocate(newCapacity)
            newBase.initialize(from: base, count: count)
            free(base)
            base = newBase
        }
        capacity = newCapacity
    }

    // MARK: - Raw bytes

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let length = bytes.count
        reserve(length)
        let destination = base + count
        if length <= 16 {
            Self.copyShort(from: source, to: destination, count: length)
        } else {
            destination.initialize(from: source, count: length)
        }
        count += length
    }

    /// Copies up to 16 bytes with two overlapping loads and stores, which costs less than
    /// a call to `memcpy` for the short pieces that make up most of the text.
    @inline(__always)
    private static func copyShort(
        from source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int
    ) {
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(destination)
        if count >= 8 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
        } else {
            for index in 0..<count { destination[index] = source[index] }
        }
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends the UTF-8 of `string` as it is.
    mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    /// Appends `depth` tabs.
    @inline(__always)
    mutating func indent(_ depth: Int) {
        // Up to eight tabs are one store; the bytes past `depth` are overwritten next.
        reserve(max(depth, 8))
        if depth <= 8 {
            UnsafeMutableRawPointer(base + count).storeBytes(
                of: 0x0909_0909_0909_0909 as UInt64, as: UInt64.self)
        } else {
            (base + count).initialize(repeating: 0x09, count: depth)
        }
        count += max(depth, 0)
    }

    /// Appends the XML declaration, `DOCTYPE` and `<plist>` lines that open every document.
    mutating func appendDocumentStart() {
        append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        append("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" ")
        append("\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
        append("<plist version=\"1.0\">\n")
    }

    // MARK: - Escaped text

    /// Bytes below 64 that must not be written literally, one bit each: C0 controls except
    /// tab and line feed (bits 0–31 but 9 and 10: `0xFFFF_F9FF`), and `&`, `<`, `>` (bits
    /// 38, 60, 62). A constant, not a `static let` computed once: that was a `swift_once`
    /// check on every escaped byte looked at (1.4% of writing string-heavy XML).
    @inline(__always)
    static var escapedBytes: UInt64 { 0x5000_0040_FFFF_F9FF }

    /// Whether ``appendEscaped(_:)`` writes `byte` as an entity or character reference.
    @inline(__always)
    static func isEscaped(_ byte: UInt8) -> Bool { byte < 64 && escapedBytes >> UInt64(byte) & 1 != 0 }

    /// Appends UTF-8 text with `&`, `<` and `>` escaped as entities and the C0 controls
    /// other than tab and line feed (carriage return included) as decimal character
    /// references.
    ///
    /// Eight bytes are checked at a time: a word holding no control character, `&`, `<`
    /// or `>` is copied as it is, which is what almost all text is.
    mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        let count = bytes.count
        let raw = UnsafeRawPointer(start)
        let ones = ByteWord.ones
        var runStart = 0
        var position = 0
        while position < count {
            if count - position >= 8 {
                // The next eight bytes, the first in the lowest byte of the word.
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                // Bytes below 0x20; bytes equal to `&`; bytes equal to `<` or `>` (which
                // differ only in bit 1). The lowest flag of each test is exact (a borrow
                // only flags bytes above a match), so the lowest of all three is the first
                // candidate.
                let controls = (word &- ones &* 0x20) & ~word & ByteWord.highBits
                let matches =
                    controls | ByteWord.firstZeroByteFlags(word ^ ByteWord.repeating(UInt8(ascii: "&")))
                    | ByteWord.firstZeroByteFlags(
                        (word | ones &* 0x02) ^ ByteWord.repeating(UInt8(ascii: ">")))
                if matches == 0 {
                    position += 8
                    continue
                }
                // Straight to the candidate (a tab or line feed is one, and is not escaped).
                position += ByteWord.firstOffset(of: matches)
            } else {
                // The last seven bytes or fewer: to the next one to escape, one by one.
                while position < count, !Self.isEscaped(start[position]) { position += 1 }
                if position == count { break }
            }
            // The candidate found above: escaped if it is one to escape.
            let byte = start[position]
            if Self.isEscaped(byte) {
                append(UnsafeBufferPointer(start: start + runStart, count: position - runStart))
                appendEscape(byte)
                runStart = position + 1
            }
            position += 1
        }
        append(UnsafeBufferPointer(start: start + runStart, count: count - runStart))
    }

    private mutating func appendEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "&"): append("&amp;")
        case UInt8(ascii: "<"): append("&lt;")
        case UInt8(ascii: ">"): append("&gt;")
        default:
            append("&#")
            appendDecimal(UInt64(byte))
            append(UInt8(ascii: ";"))
        }
    }

    /// Appends `string` escaped as ``appendEscaped(_:)-(UnsafeBufferPointer<UInt8>)`` does.
    mutating func appendEscaped(_ string: String) {
        // In place where the bytes are contiguous (native and small strings), without the
        // copy and reference counting of `withUTF8`.
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) != nil { return }
        var string = string
        string.withUTF8 { appendEscaped($0) }
    }

    // MARK: - Numbers

    /// Appends the decimal digits of `value` (see ``RealText/writeDecimal(_:to:)``).
    @inline(__always)
    mutating func appendDecimal(_ value: UInt64) {
        reserve(20)
        count += RealText.writeDecimal(value, to: base + count)
    }

    /// Appends an integer in decimal, with a `-` when negative.
    mutating func appendInteger(_ number: PropertyListInteger) {
        if let signed = number.int64Value {
            if signed < 0 { append(UInt8(ascii: "-")) }
            appendDecimal(signed.magnitude)
        } else if let unsigned = number.uint64Value {
            appendDecimal(unsigned)
        } else {
            appendString(number.description)
        }
    }

    /// Appends a real in the shortest form that reads back exactly, as `Double.description`
    /// writes it but without a trailing `.0`; NaN and the infinities as `nan`, `inf` and
    /// `-inf` (see ``RealText``).
    mutating func appendReal(_ number: Double) {
        reserve(RealText.maximumLength)
        count += RealText.write(number, keepsPointZero: false, to: base + count)
    }

    // MARK: - Data

    /// Appends the base64 of `bytes` in lines of `charactersPerLine` characters, each
    /// preceded by `indentation` tabs and followed by a newline.
    mutating func appendBase64Lines(
        of bytes: UnsafeRawBufferPointer, charactersPerLine: Int, indentation: Int
    ) {
        reserve(
            PropertyListBase64.linesLength(
                of: bytes.count, charactersPerLine: charactersPerLine, indentation: indentation))
        count += PropertyListBase64.writeLines(
            of: bytes, charactersPerLine: charactersPerLine, indentation: indentation, to: base + count)
    }
}
