import Foundation
import KeyedArchive
import Testing

struct BridgeInner: Codable, Equatable {
    var level: Int
    var names: [String]
}

struct BridgeSample: Codable, Equatable {
    var title: String
    var count: Int
    var ratio: Double
    var enabled: Bool
    var tags: [String]
    var inner: BridgeInner
    var missing: Int?
    var when: Date
    var blob: Data
    var scores: [String: Int]
    var link: URL
    var big: UInt64
    var nested: [[Int]]

    /// Integers avoid 0 and 1: Foundation on Linux may hand back its shared `true`/`false`
    /// `NSNumber` for them (CFBoolean identity), which archives as a boolean, so a test
    /// reading Foundation's archive of this value would fail at random.
    static let example = BridgeSample(
        title: "Potato Bug", count: -42, ratio: 0.25, enabled: true, tags: ["small", "harmless", "small"],
        inner: BridgeInner(level: 3, names: []), missing: nil,
        when: Date(timeIntervalSinceReferenceDate: 86_400.5),
        blob: Data([0, 1, 2, 255]), scores: ["seven": 7, "two": 2],
        link: URL(fileURLWithPath: "/tmp/a"),
        big: UInt64.max, nested: [[5, 2], [], [3]])
}

/// `encodeEncodable` / `decodeDecodable` against Foundation on this machine.
///
/// swift-corelibs-foundation has no `encodeEncodable`; Apple's overlay implements it as
/// `encode(PropertyListEncoder().encodeToTopLevelContainer(value), forKey:)`. The peer
/// here does the same with public API: the value's `PropertyListEncoder` output parsed by
/// `PropertyListSerialization`, archived by `NSKeyedArchiver`.
@Suite("encodeEncodable and decodeDecodable")
struct EncodeEncodableTests {
    static let plistClasses: [AnyClass] = [
        NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
    ]

    static func foundationPropertyList<T: Encodable>(_ value: T) throws -> Any {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try PropertyListSerialization.propertyList(
            from: encoder.encode(value), options: [], format: nil)
    }

    @Test func foundationReadsOurEncodeEncodable() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        try archiver.encodeEncodable(BridgeSample.example, forKey: "value")
        let data = try archiver.finishedData()

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        let decoded = try #require(unarchiver.decodeObject(of: Self.plistClasses, forKey: "value"))
        let expected = try Self.foundationPropertyList(BridgeSample.example)
        #expect((decoded as? NSDictionary)?.isEqual(expected) == true, "\(decoded) != \(expected)")

        // And PropertyListDecoder rebuilds the value from what Foundation unarchived.
        let bytes = try PropertyListSerialization.data(fromPropertyList: decoded, format: .binary, options: 0)
        #expect(try PropertyListDecoder().decode(BridgeSample.self, from: bytes) == BridgeSample.example)
    }

    @Test func ourDecodeDecodableReadsFoundationArchive() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(try Self.foundationPropertyList(BridgeSample.example), forKey: "value")
        archiver.finishEncoding()
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(try unarchiver.decodeDecodable(BridgeSample.self, forKey: "value") == BridgeSample.example)
    }

    @Test func layoutIsAppleEncodeEncodable() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        try archiver.encodeEncodable(BridgeInner(level: 3, names: ["x"]), forKey: "value")
        let graph = try KeyedUnarchiver.objectGraph(from: try archiver.finishedData())
        guard case .reference(let uid)? = graph.topLevelValue(forKey: "value"),
            let object = graph.object(at: uid)
        else {
            Issue.record("value is not a reference to an object: \(graph)")
            return
        }
        #expect(object.className == "NSMutableDictionary")
        #expect(object.classChain == ["NSMutableDictionary", "NSDictionary", "NSObject"])
        #expect(Set(object.fields.map(\.key)) == ["NS.keys", "NS.objects"])
        let text = graph.description
        #expect(text.contains("NSMutableArray"), "\(text)")
    }

    @Test func roundTripsScalarsOptionalsAndNilInArrays() throws {
        let archiver = KeyedArchiver()
        try archiver.encodeEncodable(5, forKey: "five")
        try archiver.encodeEncodable([1, nil, 3] as [Int?], forKey: "holes")
        try archiver.encodeEncodable("$dollar", forKey: "$key")
        try archiver.encodeEncodable(BridgeSample.example, forKey: "sample")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        #expect(try unarchiver.decodeDecodable(Int.self, forKey: "five") == 5)
        #expect(try unarchiver.decodeDecodable([Int?].self, forKey: "holes") == [1, nil, 3])
        #expect(try unarchiver.decodeDecodable(String.self, forKey: "$key") == "$dollar")
        #expect(try unarchiver.decodeDecodable(BridgeSample.self, forKey: "sample") == BridgeSample.example)
        #expect(try unarchiver.decodeDecodable(Int.self, forKey: "absent") == nil)
    }

    @Test func typeMismatchIsDecodingErrorWithKeyPath() throws {
        let archiver = KeyedArchiver()
        try archiver.encodeEncodable(BridgeInner(level: 3, names: ["x"]), forKey: "value")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        struct Wrong: Decodable { var level: String }
        do {
            _ = try unarchiver.decodeDecodable(Wrong.self, forKey: "value")
            Issue.record("decoding a number as a string succeeded")
        } catch DecodingError.typeMismatch(_, let context) {
            let underlying = try #require(context.underlyingError as? KeyedArchiveError)
            #expect(underlying.code == .typeMismatch)
            #expect(underlying.location == .keyPath("value.level"))
        }
        struct Missing: Decodable { var other: Int }
        do {
            _ = try unarchiver.decodeDecodable(Missing.self, forKey: "value")
            Issue.record("decoding a missing key succeeded")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "other")
            #expect((context.underlyingError as? KeyedArchiveError)?.location == .keyPath("value.other"))
        }
    }

    @Test func selfContainingClassFailsInsteadOfRecursing() throws {
        final class Loop: Encodable {
            var next: Loop?
        }
        let loop = Loop()
        loop.next = loop
        let archiver = KeyedArchiver()
        do {
            try archiver.encodeEncodable(loop, forKey: "loop")
            Issue.record("a cycle was encoded")
        } catch EncodingError.invalidValue(_, let context) {
            #expect((context.underlyingError as? KeyedArchiveError)?.code == .limitExceeded)
        }
        loop.next = nil
    }

    @Test func hostileSelfReferenceTerminates() throws {
        // An NSMutableArray whose only element is itself.
        let plist: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000,
            "$top": ["value": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(2), "NS.objects": [.uid(1)]],
                ["$classname": "NSMutableArray", "$classes": ["NSMutableArray", "NSArray", "NSObject"]],
            ],
        ]
        indirect enum Nest: Decodable {
            case nest([Nest])
            init(from decoder: any Decoder) throws { self = .nest(try [Nest](from: decoder)) }
        }
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        #expect(throws: DecodingError.self) { try unarchiver.decodeDecodable(Nest.self, forKey: "value") }
    }
}
