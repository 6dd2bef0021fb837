#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Placeholder until the engine lands (this session); replaced wholesale.
enum OpenStepPropertyListReader {
    static func read(_ data: Data, options: PropertyListReadingOptions) throws -> PropertyList {
        throw KeyedArchiveError(.unsupportedFormat, "OpenStepPropertyListReader is not implemented yet")
    }
}
