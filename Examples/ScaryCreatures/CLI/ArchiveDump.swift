import Foundation
import KeyedArchive

/// Renders an archive for `dump`: its object graph as indented text, classes named and
/// shared objects shown once (``ArchivedObjectGraph/outline()``).
enum ArchiveDump {
    static func render(_ bytes: Data) throws -> String {
        let outline = try KeyedUnarchiver.objectGraph(from: bytes).outline()
        // `output` ends each message with a newline of its own.
        return outline.hasSuffix("\n") ? String(outline.dropLast()) : outline
    }
}
