/// One step of the path from `$top` to the value being encoded or decoded.
package enum ArchiveKeyPathComponent {
    /// A key of an object (or of `$top`), as the caller spelled it (unescaped).
    case key(String)
    /// An element of an array or set, by position.
    case index(Int)
    /// The key of a dictionary entry, by position.
    case dictionaryKey(Int)
    /// The value of a dictionary entry whose key is a string.
    case dictionaryValue(String)
    /// The same, for a key that the dictionary being decoded holds at this address, valid
    /// while the component is on the path (the decode pushes and pops it around the
    /// value): pushed for every entry, it retains and releases nothing.
    case dictionaryValueWithKey(UnsafePointer<String>)
    /// The value of a dictionary entry whose key is not a string, by position.
    case dictionaryValueAt(Int)
}

/// Renders key paths such as `root.creatures[3].Title` for error locations.
enum ArchiveKeyPath {
    static func render(_ components: [ArchiveKeyPathComponent]) -> String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += DisplayText.quotedIfNeeded(key)
            case .index(let index): text += "[\(index)]"
            case .dictionaryKey(let index): text += "[key \(index)]"
            case .dictionaryValue(let key): text += "[\(DisplayText.quoted(key))]"
            case .dictionaryValueWithKey(let key): text += "[\(DisplayText.quoted(key.pointee))]"
            case .dictionaryValueAt(let index): text += "[value \(index)]"
            }
        }
        return text.isEmpty ? "$top" : text
    }
}

/// User keys that begin with `$` get one more `$`, so they never collide with the
/// format's own keys (`$class`, `$0`, …).
@inline(__always)
package func archiveEscapedKey(_ key: String) -> String {
    key.utf8.first == UInt8(ascii: "$") ? "$" + key : key
}

/// The inverse of ``archiveEscapedKey(_:)`` for keys read from an archive.
@inline(__always)
package func archiveUnescapedKey(_ key: String) -> String {
    key.utf8.starts(with: "$$".utf8) ? String(key.dropFirst()) : key
}
