import Foundation
import KeyedArchive
import Testing

@testable import scary_creatures

/// The tutorial's class as the iOS app writes it, on Foundation's side. Foundation on
/// Linux always archives it as `ScaryCreaturesTests.FoundationScaryCreatureData`, so
/// reading maps that name; writing is mapped on Foundation's decoding side, which works.
final class FoundationScaryCreatureData: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let title: String
    let rating: Float

    init(title: String, rating: Float) {
        self.title = title
        self.rating = rating
    }

    func encode(with coder: NSCoder) {
        coder.encode(title as NSString, forKey: "Title")
        coder.encode(NSNumber(value: rating), forKey: "Rating")
    }

    init?(coder: NSCoder) {
        guard let title = coder.decodeObject(of: NSString.self, forKey: "Title"),
            let rating = coder.decodeObject(of: NSNumber.self, forKey: "Rating")
        else { return nil }
        self.title = title as String
        self.rating = rating.floatValue
    }
}

@Suite(.serialized) struct FoundationInteropTests {
    @Test(arguments: [PropertyListFormat.binary, .xml])
    func foundationReadsDataPlistWrittenByTheExample(format: PropertyListFormat) throws {
        let temporary = try TemporaryDatabase()
        try temporary.add("Potato Bug", rating: 4, format: format)
        let url = temporary.root.appendingPathComponent("PrivateDocuments/1.scarycreature/Data.plist")
        let bytes = try Data(contentsOf: url)

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: bytes)
        unarchiver.setClass(
            FoundationScaryCreatureData.self, forClassName: "ScaryCreatures.ScaryCreatureData")
        unarchiver.requiresSecureCoding = true
        let decoded = unarchiver.decodeObject(
            of: FoundationScaryCreatureData.self, forKey: NSKeyedArchiveRootObjectKey)
        #expect(decoded?.title == "Potato Bug")
        #expect(decoded?.rating == 4)
    }

    @Test func exampleReadsDataPlistWrittenByFoundation() throws {
        let bytes = try NSKeyedArchiver.archivedData(
            withRootObject: FoundationScaryCreatureData(title: "House Centipede", rating: 3),
            requiringSecureCoding: true)
        let temporary = try TemporaryDatabase()
        let folder = temporary.root.appendingPathComponent("PrivateDocuments/7.scarycreature")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try bytes.write(to: folder.appendingPathComponent("Data.plist"))

        let archivedName = try #require(
            PropertyList(from: bytes)["$objects"]?.arrayValue?.compactMap { $0["$classname"]?.stringValue }
                .first)
        KeyedUnarchiver.setClass(ScaryCreatureData.self, forClassName: archivedName)
        defer { KeyedUnarchiver.setClass(nil, forClassName: archivedName) }

        let doc = try #require(try temporary.database.doc(number: 7))
        #expect(try doc.data().title == "House Centipede")
        #expect(try doc.data().rating == 3)
    }
}
