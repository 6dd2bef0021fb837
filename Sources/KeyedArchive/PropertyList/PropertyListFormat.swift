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
    /// `bplist` means binary; `<` after optional whitespace and byte-order mark means XML;
    /// anything else is treated as OpenStep, as CoreFoundation does.
    ///
    /// - Parameter bytes: The start of a property list.
    /// - Returns: The format the bytes appear to be in.
    public static func detect<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> PropertyListFormat {
        if bytes.starts(with: "bplist".utf8) { return .binary }
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        if rest.starts(with: [0xFE, 0xFF]) || rest.starts(with: [0xFF, 0xFE]) { return .xml }
        while let byte = rest.first, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            rest = rest.dropFirst()
        }
        return rest.first == UInt8(ascii: "<") && !rest.starts(with: "<0".utf8) && !isHexDataStart(rest)
            ? .xml : .openStep
    }

    /// An OpenStep data value (`<0fbd 77>`) also starts with `<`; XML's next byte is a
    /// letter, `?` or `!`, never a hex digit or space.
    private static func isHexDataStart<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard let next = bytes.dropFirst().first else { return false }
        switch next {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: " "), UInt8(ascii: ">"),
            UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            return true
        case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            // "<a" could begin "<array>"; look for a letter beyond the hex range.
            let word = bytes.dropFirst().prefix { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            }
            return word.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }
                && word.count < 3
        default:
            return false
        }
    }
}
