#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Placeholder until the engine lands (this session); replaced wholesale.
enum BinaryPropertyListReader {
    static func read(_ data: Data, options: PropertyListReadingOptions) throws -> PropertyList {
        throw KeyedArchiveError(.unsupportedFormat, "BinaryPropertyListReader is not implemented yet")
    }
}
