#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedArchiver {
    /// Archives `object` under the root key and writes the archive to `url` durably: a
    /// crash or power loss at any moment leaves the file with its old contents or the new,
    /// never a torn mixture.
    ///
    /// ```swift
    /// try KeyedArchiver.archive(creature, to: URL(fileURLWithPath: "Creature.archive"))
    /// let back = try KeyedUnarchiver.unarchivedObject(
    ///     ofClass: Creature.self, from: Data(contentsOf: URL(fileURLWithPath: "Creature.archive")))
    /// ```
    ///
    /// - Parameters:
    ///   - object: The root object.
    ///   - url: A file URL whose folder exists; a symbolic link's target is replaced and the
    ///     link kept (see ``write(to:)``).
    ///   - requiringSecureCoding: Whether every object must support secure coding.
    ///   - format: `.binary` (the default) or `.xml`.
    /// - Throws: ``KeyedArchiveError``: the errors of
    ///   ``archivedData(withRootObject:requiringSecureCoding:format:)``, or
    ///   `fileOperationFailed` when the file cannot be written (it is then untouched) or
    ///   the folder cannot be flushed after the file was replaced.
    public static func archive(
        _ object: any KeyedCoding, to url: URL, requiringSecureCoding: Bool = true,
        format: PropertyListFormat = .binary
    ) throws {
        let data = try archivedData(
            withRootObject: object, requiringSecureCoding: requiringSecureCoding, format: format)
        try DurableFileWriter.write(data, to: url)
    }

    /// Finishes encoding and writes the archive to `url` durably: for an archiver
    /// configured beyond what ``archive(_:to:requiringSecureCoding:format:)`` takes (class
    /// names, several top-level keys, ``outputFormat``).
    ///
    /// ```swift
    /// let archiver = KeyedArchiver(requiringSecureCoding: true)
    /// archiver.encode("Potato Bug", forKey: "title")
    /// archiver.encode(4, forKey: "rating")
    /// try archiver.write(to: URL(fileURLWithPath: "Creature.archive"))
    /// ```
    ///
    /// The bytes go to a hidden temporary file in the destination's folder, which is
    /// flushed to the disk and renamed over the destination (an atomic step on POSIX file
    /// systems); then the folder itself is flushed so that the rename survives a crash. A
    /// crash or power loss at any moment leaves the file with its old contents or the new,
    /// never a torn mixture. A new file gets `0666` less the umask; a replaced one keeps its
    /// permission bits (not set-user-ID, set-group-ID or sticky), its owner and group where
    /// the process may set them, and its extended attributes. If `url` is a symbolic
    /// link, the file it finally points to is replaced and the link kept. A destination that
    /// is not a regular file is refused.
    ///
    /// - Parameter url: A file URL whose folder exists.
    /// - Throws: ``KeyedArchiveError``: what ``finishedData()`` throws (the file is then
    ///   untouched), or `fileOperationFailed` naming the path and the system's reason when
    ///   the file cannot be written (it is then untouched) or the folder cannot be flushed
    ///   after the file was replaced.
    public func write(to url: URL) throws {
        try DurableFileWriter.write(finishedData(), to: url)
    }
}

extension PropertyList {
    /// Encodes the property list and writes it to `url` durably: a crash or power loss at
    /// any moment leaves the file with its old contents or the new (see
    /// ``KeyedArchiver/write(to:)``).
    ///
    /// ```swift
    /// let settings: PropertyList = ["Volume": 11]
    /// try settings.write(to: URL(fileURLWithPath: "Settings.plist"), format: .xml)
    /// ```
    ///
    /// - Parameters:
    ///   - url: A file URL whose folder exists; a symbolic link's target is replaced and the
    ///     link kept.
    ///   - format: `.binary` (the default) or `.xml`.
    ///   - options: Writing choices such as key sorting.
    /// XML is written to the file in pieces as it is made, so only a piece of its text is
    /// held in memory at a time.
    ///
    /// - Throws: ``KeyedArchiveError``: the errors of ``data(format:options:)``, or
    ///   `fileOperationFailed` when the file cannot be written (it is then untouched) or
    ///   the folder cannot be flushed after the file was replaced.
    public func write(
        to url: URL, format: PropertyListFormat = .binary,
        options: PropertyListWritingOptions = PropertyListWritingOptions()
    ) throws {
        // XML goes to the file in pieces as it is written (`write(format:options:to:)`).
        try DurableFileWriter.write(to: url) { write in
            try self.write(format: format, options: options, to: write)
        }
    }
}

/// The earlier public home of durable writes, a general file utility: write archives with
/// ``KeyedArchiver/archive(_:to:requiringSecureCoding:format:)`` or
/// ``KeyedArchiver/write(to:)``, and property lists with
/// ``PropertyList/write(to:format:options:)``, which write the same way.
@available(
    *, deprecated,
    message:
        "write archives with KeyedArchiver.archive(_:to:) or archiver.write(to:), property lists with PropertyList.write(to:)"
)
public enum DurableFile {
    /// Replaces the file at `url` with `data`, atomically and durably, as
    /// ``KeyedArchiver/write(to:)`` does.
    ///
    /// - Parameters:
    ///   - data: The new contents.
    ///   - url: A file URL whose folder exists.
    /// - Throws: ``KeyedArchiveError`` with code `fileOperationFailed` when a step fails.
    public static func write(_ data: Data, to url: URL) throws {
        try DurableFileWriter.write(data, to: url)
    }
}
