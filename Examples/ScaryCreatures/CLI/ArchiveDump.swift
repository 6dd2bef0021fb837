import Foundation
import KeyedArchive

/// Renders an archive for `dump`.
enum ArchiveDump {
    static func render(_ bytes: Data) throws -> String {
        let value = try PropertyList(from: bytes)
        return String(decoding: try value.jsonData(), as: UTF8.self)
    }
}
