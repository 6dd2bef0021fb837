#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Inputs the OpenStep reader would otherwise misread: what falls to it is everything that
/// is neither binary nor XML, so it names the format of what it was handed before
/// complaining about its text.
///
/// - empty input says so (not an OpenStep error at line 1);
/// - a typedstream (`NSArchiver`'s `\u{4}\u{b}streamtyped` header) says it is one and
///   which API reads it (not "invalid UTF-8");
/// - text that the OpenStep reader refuses and that opens as JSON does (`{"key":` or `[`)
///   says it is JSON, with the OpenStep reader's complaint and location.
enum ForeignInput {
    /// The error for `data` when it is recognisably not a property list at all, before any
    /// reading: empty input or a typedstream; `nil` otherwise.
    static func refusal(_ data: Data) -> KeyedArchiveError? {
        if data.isEmpty {
            return KeyedArchiveError(.corruptData, "empty input: no property list (0 bytes)")
        }
        if isTypedStream(data) {
            return KeyedArchiveError(
                .unsupportedFormat,
                "the data is a typedstream (NSArchiver), not a property list or keyed archive: "
                    + "read it with TypedStreamUnarchiver")
        }
        return nil
    }

    /// The OpenStep reader's `error` restated for JSON input: `nil` when `data` does not look
    /// like JSON.
    static func jsonRefusal(_ data: Data, openStepError error: KeyedArchiveError) -> KeyedArchiveError? {
        guard looksLikeJSON(data) else { return nil }
        return KeyedArchiveError(
            .unsupportedFormat,
            "the data is JSON, not a property list (binary, XML or OpenStep); read as OpenStep: "
                + error.message,
            at: error.location)
    }

    /// `\u{3}` or `\u{4}`, `\u{b}`, then `streamtyped` or `typedstream`.
    static func isTypedStream(_ data: Data) -> Bool {
        guard data.count >= 13 else { return false }
        let head = Array(data.prefix(13))
        guard head[0] == 3 || head[0] == 4, head[1] == 11 else { return false }
        let signature = head[2...]
        return signature.elementsEqual("streamtyped".utf8) || signature.elementsEqual("typedstream".utf8)
    }

    /// After white space (and a UTF-8 byte-order mark): `[`, or `{` followed by a quoted key
    /// and `:` — what JSON opens with and OpenStep cannot.
    static func looksLikeJSON(_ data: Data) -> Bool {
        var bytes = data.prefix(4096)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        bytes = bytes.drop(while: isSpace)
        if bytes.first == UInt8(ascii: "[") { return true }
        guard bytes.first == UInt8(ascii: "{") else { return false }
        bytes = bytes.dropFirst().drop(while: isSpace)
        if bytes.first == UInt8(ascii: "}") { return false }
        guard bytes.first == UInt8(ascii: "\"") else { return false }
        bytes = bytes.dropFirst()
        while let byte = bytes.first {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: "\\") {
                bytes = bytes.dropFirst()
            } else if byte == UInt8(ascii: "\"") {
                return bytes.drop(while: isSpace).first == UInt8(ascii: ":")
            }
        }
        return false
    }
}
