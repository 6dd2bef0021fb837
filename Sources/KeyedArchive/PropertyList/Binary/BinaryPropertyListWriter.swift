#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Placeholder until the engine lands (this session); replaced wholesale.
enum BinaryPropertyListWriter {
    static func write(_ value: PropertyList, options: PropertyListWritingOptions) throws -> Data {
        throw KeyedArchiveError(.unsupportedFormat, "BinaryPropertyListWriter is not implemented yet")
    }
}
