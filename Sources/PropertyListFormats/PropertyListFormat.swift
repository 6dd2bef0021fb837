/// The encodings of a property list.
///
/// Binary and XML are read and written; OpenStep (the old-style `{ key = value; }` text
/// found in `.strings` files and Xcode projects) is read only.
public enum PropertyListFormat: String, Hashable, Sendable, CaseIterable {
    /// Apple's binary format, starting with `bplist00`.
    case binary
    /// The XML format with Apple's `plist` DTD.
    case xml
    /// The old-style text format; readable, not writable.
    case openStep

    /// Guesses the format of `bytes` from how they start.
    ///
    /// `bplist` means binary. Otherwise the first character after an optional byte-order
    /// mark (UTF-8, or UTF-16 in either byte order) and whitespace decides: `<` means XML
    /// unless what follows is hex digits and whitespace up to a `>` (`<0fbd 77>`, `<abc>`,
    /// `<>`), which is OpenStep data; anything else is OpenStep, as CoreFoundation treats
    /// it. Only the first few hundred bytes are examined.
    ///
    /// - Parameter bytes: The start of a property list.
    /// - Returns: The format the bytes appear to be in.
    public static func detect<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> PropertyListFormat {
        // Contiguous bytes (`Data`, arrays) are checked in place, in one access (each access
        // to a `Data`'s bytes costs a few exclusivity checks): `bplist`, else UTF-8 text
        // without a byte-order mark. The generic `starts(with:)` cost about 5% of reading a
        // small binary property list; copying the text's head into arrays, 4% of reading a
        // small OpenStep file.
        let inPlace = bytes.withContiguousStorageIfAvailable { head -> PropertyListFormat? in
            if head.count >= 6 && head[0] == UInt8(ascii: "b") && head[1] == UInt8(ascii: "p")
                && head[2] == UInt8(ascii: "l") && head[3] == UInt8(ascii: "i")
                && head[4] == UInt8(ascii: "s")
                && head[5] == UInt8(ascii: "t")
            {
                return .binary
            }
            guard let first = head.first, first != 0xEF, first != 0xFE, first != 0xFF,
                head.count < 2 || (head[0] != 0 && head[1] != 0)
            else { return nil }
            return textFormat(UnsafeBufferPointer(rebasing: head.prefix(examinedCharacters)))
        }
        if let format = inPlace ?? nil { return format }
        if bytes.starts(with: "bplist".utf8) { return .binary }
        return asciiPrefix(bytes).withUnsafeBufferPointer { textFormat($0) }
    }

    /// The format of a text whose first characters (as ASCII, see ``asciiPrefix(_:)``) are `text`.
    private static func textFormat(_ text: UnsafeBufferPointer<UInt8>) -> PropertyListFormat {
        var index = 0
        while index < text.count, isWhitespace(text[index]) { index += 1 }
        guard index < text.count, text[index] == UInt8(ascii: "<") else { return .openStep }
        index += 1
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ">") { return .openStep }
            guard isWhitespace(byte) || isHexDigit(byte) else { return .xml }
            index += 1
        }
        // Only hex digits and whitespace as far as we looked (or the input ended): data.
        return .openStep
    }

    /// How many characters `detect` looks at.
    private static let examinedCharacters = 256

    /// The first characters of `bytes` as ASCII, after any byte-order mark; a UTF-16
    /// code unit or byte outside ASCII becomes 0x80, which matches nothing `detect`
    /// looks for.
    private static func asciiPrefix<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        let head = Array(bytes.prefix(2 * examinedCharacters + 3))
        let utf16BigEndian: Bool?
        var start = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            return Array(head[3...].prefix(examinedCharacters))
        } else if head.starts(with: [0xFE, 0xFF]) {
            utf16BigEndian = true
            start = 2
        } else if head.starts(with: [0xFF, 0xFE]) {
            utf16BigEndian = false
            start = 2
        } else if head.count >= 2 && head[0] == 0 && head[1] == UInt8(ascii: "<") {
            utf16BigEndian = true  // UTF-16 XML without a byte-order mark
        } else if head.count >= 2 && head[0] == UInt8(ascii: "<") && head[1] == 0 {
            utf16BigEndian = false
        } else {
            utf16BigEndian = nil
        }
        guard let bigEndian = utf16BigEndian else { return Array(head.prefix(examinedCharacters)) }
        var text: [UInt8] = []
        var index = start
        while index + 1 < head.count && text.count < examinedCharacters {
            let (high, low) = bigEndian ? (head[index], head[index + 1]) : (head[index + 1], head[index])
            text.append(high == 0 && low < 0x80 ? low : 0x80)
            index += 2
        }
        return text
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }
}
