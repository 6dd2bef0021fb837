#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Placeholder until the engine lands (this session); replaced wholesale.
enum XMLPropertyListWriter {
    static func write(_ value: PropertyList, options: PropertyListWritingOptions) throws -> Data {
        throw KeyedArchiveError(.unsupportedFormat, "XMLPropertyListWriter is not implemented yet")
    }
}
