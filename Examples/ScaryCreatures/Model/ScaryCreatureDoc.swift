import Foundation
import KeyedArchive

/// One creature on disk: a folder `N.scarycreature` holding `Data.plist` (the archived
/// ``ScaryCreatureData``), `thumbImage.png` and `fullImage.png`.
///
/// As in the tutorial, nothing is read when a document is created from its folder: the
/// data and the images are loaded the first time they are asked for, so listing a large
/// database reads only the small `Data.plist` files, and never the images.
final class ScaryCreatureDoc {
    enum Files {
        static let data = "Data.plist"
        static let thumbImage = "thumbImage.png"
        static let fullImage = "fullImage.png"
    }

    /// The creature's folder, or `nil` for a new creature not yet saved.
    private(set) var docPath: URL?
    /// How `Data.plist` is written.
    var format: PropertyListFormat = .binary

    private var loadedData: ScaryCreatureData?
    private var loadedThumbImage: [UInt8]?
    private var loadedFullImage: [UInt8]?

    /// Whether the data has been read from disk (or set) yet; for tests of the lazy loading.
    var isDataLoaded: Bool { loadedData != nil }
    /// Whether either image has been read from disk (or set) yet.
    var areImagesLoaded: Bool { loadedThumbImage != nil || loadedFullImage != nil }

    /// A creature that exists only in memory until ``saveData()`` is called.
    init(title: String, rating: Float, fullImage: RGBAImage?) {
        loadedData = ScaryCreatureData(title: title, rating: rating)
        if let fullImage { setFullImage(fullImage) }
    }

    /// A creature stored in `docPath`; nothing is read yet.
    init(docPath: URL) {
        self.docPath = docPath
    }

    /// The creature's number: the `N` of `N.scarycreature`.
    var number: Int? {
        docPath.flatMap { Int($0.deletingPathExtension().lastPathComponent) }
    }

    // MARK: Loading on first access

    /// The title and rating, read from `Data.plist` on first access.
    ///
    /// - Throws: If the file is missing or is not a valid archive of the creature.
    func data() throws -> ScaryCreatureData {
        if let loadedData { return loadedData }
        guard let docPath else { throw ScaryCreatureError("the creature has no folder") }
        let url = docPath.appendingPathComponent(Files.data)
        guard let bytes = try BoundedFile.contents(of: url, limit: Self.maximumDataFileBytes) else {
            throw ScaryCreatureError("cannot read \(url.path): no such file")
        }
        do {
            guard
                let data = try KeyedUnarchiver.unarchivedObject(ofClass: ScaryCreatureData.self, from: bytes)
            else { throw ScaryCreatureError("\(url.path) holds no creature") }
            loadedData = data
            return data
        } catch let error as KeyedArchiveError {
            throw ScaryCreatureError("\(url.path): \(error)")
        }
    }

    /// The PNG bytes of the thumbnail, read on first access; `nil` if there is none.
    ///
    /// - Throws: ``ScaryCreatureError`` if the file cannot be read, is not a regular file,
    ///   or is larger than ``PNGDecoder/maximumFileBytes``.
    func thumbImagePNG() throws -> [UInt8]? {
        if loadedThumbImage == nil { loadedThumbImage = try readImageFile(Files.thumbImage) }
        return loadedThumbImage
    }

    /// The PNG bytes of the full image, read on first access; `nil` if there is none.
    ///
    /// - Throws: As ``thumbImagePNG()``.
    func fullImagePNG() throws -> [UInt8]? {
        if loadedFullImage == nil { loadedFullImage = try readImageFile(Files.fullImage) }
        return loadedFullImage
    }

    private func readImageFile(_ name: String) throws -> [UInt8]? {
        guard let docPath else { return nil }
        let data = try BoundedFile.contents(
            of: docPath.appendingPathComponent(name), limit: PNGDecoder.maximumFileBytes)
        return data.map { [UInt8]($0) }
    }

    /// The most bytes a `Data.plist` may hold. A title and a rating take a few hundred; the
    /// limit keeps a file that is not what it should be from being read whole.
    static let maximumDataFileBytes = 1 << 20

    // MARK: Changing

    /// Replaces the full image and derives the thumbnail from it.
    func setFullImage(_ image: RGBAImage) {
        loadedFullImage = PNGEncoder.encode(image)
        loadedThumbImage = PNGEncoder.encode(image.scaled(toFit: ScaryCreatureDoc.thumbnailSize))
    }

    /// The longest side of a thumbnail, in pixels.
    static let thumbnailSize = 64

    // MARK: Saving, as the tutorial's methods

    /// Makes sure the creature has a folder: the next free `N.scarycreature` in
    /// `database` for a new creature.
    func createDataPath(in database: ScaryCreatureDatabase) throws {
        if docPath == nil { docPath = try database.nextScaryCreatureDocPath() }
        guard let docPath else { return }
        do {
            try FileManager.default.createDirectory(at: docPath, withIntermediateDirectories: true)
        } catch {
            throw ScaryCreatureError("cannot create \(docPath.path): \(error.localizedDescription)")
        }
    }

    /// Archives the data to `Data.plist`, atomically and durably, in the secure form.
    func saveData(in database: ScaryCreatureDatabase) throws {
        guard let loadedData else { return }
        try createDataPath(in: database)
        guard let docPath else { return }
        let bytes = try KeyedArchiver.archivedData(
            withRootObject: loadedData, requiringSecureCoding: true, format: format)
        try DurableFileWriter.write(bytes, to: docPath.appendingPathComponent(Files.data))
    }

    /// Writes the images that were set or loaded.
    func saveImages(in database: ScaryCreatureDatabase) throws {
        guard loadedFullImage != nil || loadedThumbImage != nil else { return }
        try createDataPath(in: database)
        guard let docPath else { return }
        if let loadedFullImage {
            try DurableFileWriter.write(
                Data(loadedFullImage), to: docPath.appendingPathComponent(Files.fullImage))
        }
        if let loadedThumbImage {
            try DurableFileWriter.write(
                Data(loadedThumbImage), to: docPath.appendingPathComponent(Files.thumbImage))
        }
    }

    /// Removes the creature's folder and everything in it.
    func deleteDoc() throws {
        guard let docPath else { return }
        do {
            try FileManager.default.removeItem(at: docPath)
        } catch {
            throw ScaryCreatureError("cannot delete \(docPath.path): \(error.localizedDescription)")
        }
        self.docPath = nil
    }
}

/// A problem with the database, said in one line.
struct ScaryCreatureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
