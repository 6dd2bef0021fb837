#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Placeholder until the engine lands (this session); replaced wholesale.
enum JSONPropertyListWriter {
    static func write(_ value: PropertyList, options: PropertyListJSONOptions) throws -> Data {
        throw KeyedArchiveError(.unsupportedFormat, "JSONPropertyListWriter is not implemented yet")
    }
}
