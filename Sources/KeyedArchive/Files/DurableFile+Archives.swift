#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedArchiver {
    /// Archives `object` under the root key and writes the archive to `url` durably: a
    /// crash or power loss at any moment leaves the file with its old contents or the new,
    /// never a torn mixture (see ``DurableFile``).
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
    ///     link kept (see ``DurableFile``).
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
        try DurableFile.write(data, to: url)
    }
}

extension PropertyList {
    /// Encodes the property list and writes it to `url` durably: a crash or power loss at
    /// any moment leaves the file with its old contents or the new (see ``DurableFile``).
    ///
    /// ```swift
    /// let settings: PropertyList = ["Volume": 11]
    /// try settings.write(to: URL(fileURLWithPath: "Settings.plist"), format: .xml)
    /// ```
    ///
    /// - Parameters:
    ///   - url: A file URL whose folder exists; a symbolic link's target is replaced and the
    ///     link kept (see ``DurableFile``).
    ///   - format: `.binary` (the default) or `.xml`.
    ///   - options: Writing choices such as key sorting.
    /// - Throws: ``KeyedArchiveError``: the errors of ``data(format:options:)``, or
    ///   `fileOperationFailed` when the file cannot be written (it is then untouched) or
    ///   the folder cannot be flushed after the file was replaced.
    public func write(
        to url: URL, format: PropertyListFormat = .binary,
        options: PropertyListWritingOptions = PropertyListWritingOptions()
    ) throws {
        try DurableFile.write(data(format: format, options: options), to: url)
    }
}
