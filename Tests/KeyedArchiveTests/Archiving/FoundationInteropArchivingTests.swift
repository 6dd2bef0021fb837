import Foundation
import KeyedArchive
import Testing

// Foundation-side peer. Top-level and an NSObject subclass, as Foundation on Linux needs;
// its archived name is Foundation's default, `KeyedArchiveTests.FoundationPeer`.
final class FoundationPeer: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String
    var count: Int
    var ratio: Double
    var tags: [String]
    var when: Date
    var identifier: UUID
    var link: URL
    var scores: [Int: String]
    var friend: FoundationPeer?
    var sameFriend: FoundationPeer?

    init(name: String, friend: FoundationPeer? = nil) {
        self.name = name
        count = -42
        ratio = 0.25
        tags = ["small", "harmless", "small"]
        when = Date(timeIntervalSinceReferenceDate: 86_400.5)
        identifier = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        link = URL(string: "https://www.example.com/potato?bug=1") ?? URL(fileURLWithPath: "/")
        scores = [1: "one", 2: "two"]
        self.friend = friend
        sameFriend = friend
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(count, forKey: "count")
        coder.encode(ratio, forKey: "ratio")
        coder.encode(tags, forKey: "tags")
        coder.encode(when, forKey: "when")
        coder.encode(identifier, forKey: "identifier")
        coder.encode(link, forKey: "link")
        coder.encode(scores as NSDictionary, forKey: "scores")
        coder.encode(friend, forKey: "friend")
        coder.encode(sameFriend, forKey: "sameFriend")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") as String?,
            let tags = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "tags") as? [String],
            let when = coder.decodeObject(of: NSDate.self, forKey: "when") as Date?,
            let identifier = coder.decodeObject(of: NSUUID.self, forKey: "identifier") as UUID?,
            let link = coder.decodeObject(of: NSURL.self, forKey: "link") as URL?,
            let scores = coder.decodeObject(
                of: [NSDictionary.self, NSNumber.self, NSString.self], forKey: "scores")
                as? [Int: String]
        else { return nil }
        self.name = name
        count = coder.decodeInteger(forKey: "count")
        ratio = coder.decodeDouble(forKey: "ratio")
        self.tags = tags
        self.when = when
        self.identifier = identifier
        self.link = link
        self.scores = scores
        friend = coder.decodeObject(of: FoundationPeer.self, forKey: "friend")
        sameFriend = coder.decodeObject(of: FoundationPeer.self, forKey: "sameFriend")
    }
}

/// Our side of the same class.
final class ArchivePeer: SecureKeyedCoding {
    static var archivedClassName: String { "KeyedArchiveTests.FoundationPeer" }
    var name: String
    var count: Int
    var ratio: Double
    var tags: [String]
    var when: Date
    var identifier: UUID
    var link: URL
    var scores: [Int: String]
    var friend: ArchivePeer?
    var sameFriend: ArchivePeer?

    init(name: String, friend: ArchivePeer? = nil) {
        self.name = name
        count = -42
        ratio = 0.25
        tags = ["small", "harmless", "small"]
        when = Date(timeIntervalSinceReferenceDate: 86_400.5)
        identifier = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        link = URL(string: "https://www.example.com/potato?bug=1") ?? URL(fileURLWithPath: "/")
        scores = [1: "one", 2: "two"]
        self.friend = friend
        sameFriend = friend
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(count, forKey: "count")
        coder.encode(ratio, forKey: "ratio")
        coder.encode(tags, forKey: "tags")
        coder.encode(when, forKey: "when")
        coder.encode(identifier, forKey: "identifier")
        coder.encode(link, forKey: "link")
        coder.encode(scores, forKey: "scores")
        coder.encode(friend, forKey: "friend")
        coder.encode(sameFriend, forKey: "sameFriend")
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
        count = try coder.decodeInteger(forKey: "count")
        ratio = try coder.decodeDouble(forKey: "ratio")
        tags = try coder.decodeArrayOfObjects(ofClass: String.self, forKey: "tags") ?? []
        when = try coder.decodeObject(of: Date.self, forKey: "when") ?? Date()
        identifier = try coder.decodeObject(of: UUID.self, forKey: "identifier") ?? UUID()
        link = try coder.decodeObject(of: URL.self, forKey: "link") ?? URL(fileURLWithPath: "/")
        scores =
            try coder.decodeDictionary(
                withKeysOfClass: Int.self, objectsOfClass: String.self, forKey: "scores") ?? [:]
        friend = try coder.decodeObject(of: ArchivePeer.self, forKey: "friend")
        sameFriend = try coder.decodeObject(of: ArchivePeer.self, forKey: "sameFriend")
    }
}

@Suite("Archiving interoperability with Foundation")
struct FoundationInteropArchivingTests {
    @Test(arguments: [PropertyListFormat.xml, .binary])
    func foundationReadsOurArchives(format: PropertyListFormat) throws {
        let root = ArchivePeer(name: "root", friend: ArchivePeer(name: "friend"))
        let data = try KeyedArchiver.archivedData(
            withRootObject: root, requiringSecureCoding: true, format: format)
        let decoded = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: FoundationPeer.self, from: data))
        #expect(decoded.name == "root")
        #expect(decoded.count == -42)
        #expect(decoded.ratio == 0.25)
        #expect(decoded.tags == ["small", "harmless", "small"])
        #expect(decoded.when == Date(timeIntervalSinceReferenceDate: 86_400.5))
        #expect(decoded.identifier == root.identifier)
        #expect(decoded.link == root.link)
        #expect(decoded.scores == [1: "one", 2: "two"])
        #expect(decoded.friend?.name == "friend")
        #expect(decoded.friend === decoded.sameFriend)
    }

    @Test(arguments: [PropertyListFormat.xml, .binary])
    func weReadFoundationsArchives(format: PropertyListFormat) throws {
        let root = FoundationPeer(name: "root", friend: FoundationPeer(name: "friend"))
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format == .xml ? .xml : .binary
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let decoded = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivePeer.self, from: archiver.encodedData))
        #expect(decoded.name == "root")
        #expect(decoded.count == -42)
        #expect(decoded.ratio == 0.25)
        #expect(decoded.tags == ["small", "harmless", "small"])
        #expect(decoded.when == Date(timeIntervalSinceReferenceDate: 86_400.5))
        #expect(decoded.identifier == root.identifier)
        #expect(decoded.link == root.link)
        #expect(decoded.scores == [1: "one", 2: "two"])
        #expect(decoded.friend?.name == "friend")
        #expect(decoded.friend === decoded.sameFriend)
    }

    @Test func weReadFoundationsStandardCollections() throws {
        let value: NSDictionary = [
            "array": NSMutableArray(array: ["a", 1, 2.5, true]),
            "set": NSSet(array: [1, 2, 3]),
            "ordered": NSOrderedSet(array: ["x", "y"]),
            "null": NSNull(),
            "data": NSMutableData(data: Data([1, 2, 3])),
            "string": NSMutableString(string: "mutable"),
        ]
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .xml
        archiver.encode(value, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.encodedData)
        let decoded = try #require(try unarchiver.decodeObject(of: [], forKey: "root") as? [String: Any])
        let array = try #require(decoded["array"] as? [Any])
        #expect(array.count == 4)
        #expect(array[0] as? String == "a")
        #expect(decoded["set"] as? Set<AnyHashable> == [1, 2, 3])
        #expect((decoded["ordered"] as? [Any])?.compactMap { $0 as? String } == ["x", "y"])
        #expect(decoded["null"] is ArchivedNull)
        #expect(decoded["data"] as? Data == Data([1, 2, 3]))
        #expect(decoded["string"] as? String == "mutable")
    }
}
