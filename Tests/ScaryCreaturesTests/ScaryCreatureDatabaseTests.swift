import Foundation
import KeyedArchive
import Testing

@testable import scary_creatures

/// A fresh database folder, removed when the test ends.
final class TemporaryDatabase {
    let root: URL
    let database: ScaryCreatureDatabase

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("scary-creatures-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        database = ScaryCreatureDatabase(root: root)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    @discardableResult
    func add(_ title: String, rating: Float = 3, format: PropertyListFormat = .binary) throws
        -> ScaryCreatureDoc
    {
        let doc = ScaryCreatureDoc(
            title: title, rating: rating, fullImage: CreatureArt.image(for: title, size: 32))
        doc.format = format
        try doc.saveData(in: database)
        try doc.saveImages(in: database)
        return doc
    }

    func numbers() throws -> [Int] {
        try database.loadScaryCreatureDocs().compactMap(\.number)
    }
}

@Suite struct ScaryCreatureDatabaseTests {
    @Test func newCreaturesTakeTheHighestNumberPlusOne() throws {
        let temporary = try TemporaryDatabase()
        for title in ["A", "B", "C"] { try temporary.add(title) }
        #expect(try temporary.numbers() == [1, 2, 3])

        // Deleting a middle creature leaves a gap that is not reused…
        try temporary.database.doc(number: 2)?.deleteDoc()
        #expect(try temporary.database.nextScaryCreatureDocPath().lastPathComponent == "4.scarycreature")
        try temporary.add("D")
        #expect(try temporary.numbers() == [1, 3, 4])

        // …but deleting the highest makes its number the next one again.
        try temporary.database.doc(number: 4)?.deleteDoc()
        #expect(try temporary.database.nextScaryCreatureDocPath().lastPathComponent == "4.scarycreature")
        try temporary.database.doc(number: 3)?.deleteDoc()
        try temporary.database.doc(number: 1)?.deleteDoc()
        #expect(try temporary.database.nextScaryCreatureDocPath().lastPathComponent == "1.scarycreature")
    }

    @Test func onDiskLayoutIsTheTutorials() throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Potato Bug")
        let folder = temporary.root.appendingPathComponent("PrivateDocuments/1.scarycreature")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["Data.plist", "fullImage.png", "thumbImage.png"])
        let thumbnail = try PNGDecoder.decode(
            [UInt8](Data(contentsOf: folder.appendingPathComponent("thumbImage.png"))))
        #expect(max(thumbnail.width, thumbnail.height) <= ScaryCreatureDoc.thumbnailSize)
    }

    @Test func loadingReadsNothingUntilAsked() throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Wolf Spider", rating: 5)
        let docs = try temporary.database.loadScaryCreatureDocs()
        #expect(docs.count == 1)
        let doc = try #require(docs.first)
        #expect(!doc.isDataLoaded)
        #expect(!doc.areImagesLoaded)
        #expect(try doc.data().title == "Wolf Spider")
        #expect(doc.isDataLoaded)
        #expect(!doc.areImagesLoaded, "reading the data must not read the images")
        #expect(try doc.thumbImagePNG() != nil)
        #expect(doc.areImagesLoaded)
    }

    @Test func loadingDoesNotTouchTheFilesUntilAsked() throws {
        // Corrupt the file after listing: the document only fails when its data is read.
        let temporary = try TemporaryDatabase()
        try temporary.add("Lady Bug")
        let docs = try temporary.database.loadScaryCreatureDocs()
        let dataFile = temporary.root.appendingPathComponent("PrivateDocuments/1.scarycreature/Data.plist")
        try Data("garbage".utf8).write(to: dataFile)
        #expect(throws: ScaryCreatureError.self) { try docs[0].data() }
    }

    @Test func deleteRemovesTheFolder() throws {
        let temporary = try TemporaryDatabase()
        let doc = try temporary.add("House Centipede")
        let folder = try #require(doc.docPath)
        #expect(FileManager.default.fileExists(atPath: folder.path))
        try doc.deleteDoc()
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        #expect(try temporary.numbers().isEmpty)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func savedDataReadsBack(format: PropertyListFormat) throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Potato Bug", rating: 4, format: format)
        let folder = temporary.root.appendingPathComponent("PrivateDocuments/1.scarycreature")
        let bytes = try Data(contentsOf: folder.appendingPathComponent("Data.plist"))
        #expect(PropertyListFormat.detect(bytes) == format)
        let doc = try #require(try temporary.database.doc(number: 1))
        #expect(try doc.data().title == "Potato Bug")
        #expect(try doc.data().rating == 4)
    }
}

/// The NSCoding version of the tutorial's data class: the rating as an inline float.
final class LegacyScaryCreatureData: KeyedCoding {
    static var archivedClassName: String { "ScaryCreatures.ScaryCreatureData" }
    let title: String
    let rating: Float

    init(title: String, rating: Float) {
        self.title = title
        self.rating = rating
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(title, forKey: "Title")
        coder.encode(rating, forKey: "Rating")
    }

    init(coder: KeyedUnarchiver) throws {
        title = try coder.decodeObject(of: String.self, forKey: "Title") ?? ""
        rating = try coder.decodeFloat(forKey: "Rating")
    }
}

@Suite struct ArchiveVersionTests {
    @Test func readsTheNSCodingVersionWithAnInlineFloat() throws {
        let legacy = try KeyedArchiver.archivedData(
            withRootObject: LegacyScaryCreatureData(title: "Lady Bug", rating: 1.5),
            requiringSecureCoding: false)
        // The rating really is inline in the archive.
        let plist = try PropertyList(from: legacy)
        let object = try #require(plist["$objects"]?[1])
        #expect(object["Rating"]?.doubleValue == 1.5)

        let data = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ScaryCreatureData.self, from: legacy))
        #expect(data.title == "Lady Bug")
        #expect(data.rating == 1.5)
    }

    @Test func writesTheSecureVersionWithANumberObject() throws {
        let bytes = try KeyedArchiver.archivedData(
            withRootObject: ScaryCreatureData(title: "Wolf Spider", rating: 5), requiringSecureCoding: true)
        let plist = try PropertyList(from: bytes)
        let object = try #require(plist["$objects"]?[1])
        #expect(object["Rating"]?.uidValue != nil, "the rating must be a reference to a number object")
        let classUID = try #require(object["$class"]?.uidValue)
        let classDescription = try #require(plist["$objects"]?[Int(classUID)])
        #expect(classDescription["$classname"] == "ScaryCreatures.ScaryCreatureData")
        let data = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ScaryCreatureData.self, from: bytes))
        #expect(data.title == "Wolf Spider")
        #expect(data.rating == 5)
    }
}
