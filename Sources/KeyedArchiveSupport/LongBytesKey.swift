#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Bytes as a dictionary key, hashed by their length and their first and last 32 bytes:
/// a long string met at every one of thousands of references is looked up without
/// hashing all of it each time (which cost what copying it did). Equal keys compare every
/// byte, so colliding keys cost a comparison, never a wrong answer.
package struct LongBytesKey: Hashable {
    package let bytes: Data

    package init(_ bytes: Data) { self.bytes = bytes }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.prefix(32).withUnsafeBytes { hasher.combine(bytes: $0) }
        bytes.suffix(32).withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    package static func == (lhs: LongBytesKey, rhs: LongBytesKey) -> Bool { lhs.bytes == rhs.bytes }
}
