#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Placeholder until the engine lands (this session); replaced wholesale.
enum XMLPropertyListReader {
    static func read(_ data: Data, options: PropertyListReadingOptions) throws -> PropertyList {
        throw KeyedArchiveError(.unsupportedFormat, "XMLPropertyListReader is not implemented yet")
    }
}
