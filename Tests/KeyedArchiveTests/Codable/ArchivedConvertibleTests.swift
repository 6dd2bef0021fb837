import Foundation
import KeyedArchive
import Testing

/// Stands in for a struct from another module: it conforms only through the extension.
struct SurveyPoint: Equatable {
    var latitude: Double
    var longitude: Double
    var label: String
    var tags: [String]
}

extension SurveyPoint: SecureKeyedCoding {
    func encode(with coder: KeyedArchiver) {
        coder.encode(latitude, forKey: "lat")
        coder.encode(longitude, forKey: "lon")
        coder.encode(label, forKey: "label")
        coder.encode(tags, forKey: "tags")
    }

    init(coder: KeyedUnarchiver) throws {
        self.init(
            latitude: try coder.decodeDouble(forKey: "lat"), longitude: try coder.decodeDouble(forKey: "lon"),
            label: try coder.decodeObject(of: String.self, forKey: "label") ?? "",
            tags: try coder.decodeArrayOfObjects(ofClass: String.self, forKey: "tags") ?? [])
    }
}

/// A value that opts out of secure coding.
struct UnvettedPoint: SecureKeyedCoding, Equatable {
    static var supportsSecureCoding: Bool { false }
    var x: Int
    func encode(with coder: KeyedArchiver) { coder.encode(x, forKey: "x") }
    init(x: Int) { self.x = x }
    init(coder: KeyedUnarchiver) throws { x = try coder.decodeInteger(forKey: "x") }
}

/// Foundation's side of `ArchivedConvertible<SurveyPoint>`, mapped to its class name.
final class SurveyPointNS: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let latitude: Double
    let longitude: Double
    let label: String
    let tags: [String]

    init(latitude: Double, longitude: Double, label: String, tags: [String]) {
        self.latitude = latitude
        self.longitude = longitude
        self.label = label
        self.tags = tags
    }

    func encode(with coder: NSCoder) {
        coder.encode(latitude, forKey: "lat")
        coder.encode(longitude, forKey: "lon")
        coder.encode(label as NSString, forKey: "label")
        coder.encode(tags as NSArray, forKey: "tags")
    }

    init?(coder: NSCoder) {
        latitude = coder.decodeDouble(forKey: "lat")
        longitude = coder.decodeDouble(forKey: "lon")
        label = coder.decodeObject(of: NSString.self, forKey: "label") as String? ?? ""
        tags = (coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "tags") as? [String]) ?? []
    }
}

/// A value that adopts only KeyedCoding, with a class name of its own.
struct PlainPoint: KeyedCoding, Equatable {
    static var archivedClassName: String { "Legacy.PlainPoint" }
    var x: Int
    func encode(with coder: KeyedArchiver) { coder.encode(x, forKey: "x") }
    init(x: Int) { self.x = x }
    init(coder: KeyedUnarchiver) throws { x = try coder.decodeInteger(forKey: "x") }
}

/// Conforms through the deprecated name, as code written for the earlier release does.
@available(*, deprecated)
struct EarlierPoint: KeyedCodingConvertible, Equatable {
    var x: Int
    func encode(with coder: KeyedArchiver) { coder.encode(x, forKey: "x") }
    init(x: Int) { self.x = x }
    init(coder: KeyedUnarchiver) throws { x = try coder.decodeInteger(forKey: "x") }
}

@Suite("ArchivedConvertible")
struct ArchivedConvertibleTests {
    static let point = SurveyPoint(
        latitude: 48.137, longitude: 11.575, label: "Marienplatz", tags: ["a", "b"])

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func roundTrips(format: PropertyListFormat) throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(ArchivedConvertible(Self.point), forKey: "root")
        archiver.encode([ArchivedConvertible(Self.point), ArchivedConvertible(Self.point)], forKey: "pair")
        let data = try archiver.finishedData()

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(
            try unarchiver.decodeObject(of: ArchivedConvertible<SurveyPoint>.self, forKey: "root")?.value
                == Self.point)
        let pair = try unarchiver.decodeArrayOfObjects(
            ofClass: ArchivedConvertible<SurveyPoint>.self, forKey: "pair")
        #expect(pair?.map(\.value) == [Self.point, Self.point])
    }

    @Test func layoutIsTheValuesFieldsUnderTheChosenName() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.setClassName("SurveyPoint", for: ArchivedConvertible<SurveyPoint>.self)
        archiver.encode(ArchivedConvertible(Self.point), forKey: "root")
        let data = try archiver.finishedData()

        let graph = try KeyedUnarchiver.objectGraph(from: data)
        guard case .reference(let uid)? = graph.root, let object = graph.object(at: uid) else {
            Issue.record("no root object: \(graph)")
            return
        }
        #expect(object.className == "SurveyPoint")
        #expect(object.classChain == ["SurveyPoint", "NSObject"])
        #expect(Set(object.fields.map(\.key)) == ["lat", "lon", "label", "tags"])
        #expect(object.fields.first { $0.key == "lat" }?.value == .real(48.137))

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(ArchivedConvertible<SurveyPoint>.self, forClassName: "SurveyPoint")
        #expect(
            try unarchiver.decodeObject(of: ArchivedConvertible<SurveyPoint>.self, forKey: "root")?.value
                == Self.point)
    }

    @Test func defaultNameIsTheWrappedTypeName() {
        #expect(ArchivedConvertible<SurveyPoint>.archivedClassName == "KeyedArchiveTests.SurveyPoint")
        #expect(ArchivedConvertible<SurveyPoint>.supportsSecureCoding)
        #expect(!ArchivedConvertible<UnvettedPoint>.supportsSecureCoding)
        #expect(ArchivedConvertible<PlainPoint>.archivedClassName == "Legacy.PlainPoint")
        #expect(!ArchivedConvertible<PlainPoint>.supportsSecureCoding, "KeyedCoding alone is not secure")
    }

    /// A conformance written with the deprecated `KeyedCodingConvertible` is a
    /// `SecureKeyedCoding` one: the wrapper is secure and writes what the value writes.
    @available(*, deprecated)
    @Test func earlierNameStillWorks() throws {
        #expect(ArchivedConvertible<EarlierPoint>.supportsSecureCoding)
        #expect(ArchivedConvertible<EarlierPoint>.archivedClassName == "KeyedArchiveTests.EarlierPoint")
        let wrapped = try KeyedArchiver.archivedData(
            withRootObject: ArchivedConvertible(EarlierPoint(x: 3)), requiringSecureCoding: true)
        let direct = try KeyedArchiver.archivedData(
            withRootObject: EarlierPoint(x: 3), requiringSecureCoding: true)
        #expect(wrapped == direct)
        #expect(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: ArchivedConvertible<EarlierPoint>.self, from: direct)?.value.x == 3)
    }

    @Test func secureDecodeRefusesAnUnlistedName() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.setClassName("SurveyPoint", for: ArchivedConvertible<SurveyPoint>.self)
        archiver.encode(ArchivedConvertible(Self.point), forKey: "root")
        let data = try archiver.finishedData()

        // The name is not mapped to ArchivedConvertible<SurveyPoint> here, so it is not allowed.
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect {
            _ = try unarchiver.decodeObject(of: ArchivedConvertible<SurveyPoint>.self, forKey: "root")
        } throws: { error in
            let code = (error as? KeyedArchiveError)?.code
            return code == .classNotAllowed || code == .classNotFound
        }
        // Nor is a class the caller did not list.
        let other = try KeyedUnarchiver(forReadingFrom: data)
        other.setClass(ArchivedConvertible<SurveyPoint>.self, forClassName: "SurveyPoint")
        #expect {
            _ = try other.decodeObject(of: String.self, forKey: "root")
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .classNotAllowed
        }
    }

    @Test func secureCodingRefusesAValueThatOptsOut() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: false)
        archiver.encode(ArchivedConvertible(UnvettedPoint(x: 7)), forKey: "root")
        let data = try archiver.finishedData()

        let secure = try KeyedUnarchiver(forReadingFrom: data)
        #expect(throws: KeyedArchiveError.self) {
            _ = try secure.decodeObject(of: ArchivedConvertible<UnvettedPoint>.self, forKey: "root")
        }
        let insecure = try KeyedUnarchiver(forReadingFrom: data)
        insecure.requiresSecureCoding = false
        #expect(
            try insecure.decodeObject(of: ArchivedConvertible<UnvettedPoint>.self, forKey: "root")?.value.x
                == 7)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func foundationReadsIt(format: PropertyListFormat) throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.setClassName("SurveyPoint", for: ArchivedConvertible<SurveyPoint>.self)
        archiver.encode(ArchivedConvertible(Self.point), forKey: NSKeyedArchiveRootObjectKey)
        let data = try archiver.finishedData()

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        unarchiver.setClass(SurveyPointNS.self, forClassName: "SurveyPoint")
        let decoded = try #require(
            unarchiver.decodeObject(of: SurveyPointNS.self, forKey: NSKeyedArchiveRootObjectKey))
        #expect(decoded.latitude == Self.point.latitude && decoded.longitude == Self.point.longitude)
        #expect(decoded.label == Self.point.label && decoded.tags == Self.point.tags)
        unarchiver.finishDecoding()
    }

    @Test func readsFoundationsArchive() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        let point = Self.point
        archiver.encode(
            SurveyPointNS(
                latitude: point.latitude, longitude: point.longitude, label: point.label, tags: point.tags),
            forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()

        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.setClass(
            ArchivedConvertible<SurveyPoint>.self, forClassName: NSStringFromClass(SurveyPointNS.self))
        #expect(
            try unarchiver.decodeObject(
                of: ArchivedConvertible<SurveyPoint>.self, forKey: KeyedArchiver.rootObjectKey)?
                .value == point)
    }
}
