#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a binary property list (`bplist00`) into a ``PropertyList``.
///
/// A thin entry over ``BinaryPropertyListTrailer`` validation and
/// ``BinaryPropertyListScanner``, which the keyed unarchiver also uses for random access
/// to single objects: `read` materializes the top object as the scanner materializes any
/// object.
enum BinaryPropertyListReader {
    /// Decodes a whole binary property list.
    ///
    /// - Throws: `corruptData` (with the byte offset) for malformed input, plist-level
    ///   cycles, NaN or infinite dates, lone UTF-16 surrogates and non-string dictionary
    ///   keys; `limitExceeded` when nesting or the value budget is exceeded;
    ///   `unsupportedFormat` for null objects and `bplist1x` files.
    static func read(_ data: Data, options: PropertyListReadingOptions) throws -> PropertyList {
        // Over the caller's bytes, without copying them.
        try data.withUnsafeBytes { bytes in
            let trailer = try BinaryPropertyListTrailer(validating: bytes)
            let context = BinaryPropertyListReadingContext.borrow()
            defer { if let context { BinaryPropertyListReadingContext.giveBack(context) } }
            var remaining = options.valueLimit(forInputLength: bytes.count)
            return try BinaryPropertyListScanner(bytes: bytes, trailer: trailer).materialize(
                trailer.topObject, maximumDepth: options.maximumDepth, remaining: &remaining,
                budget: remaining,
                context: context)
        }
    }
}
