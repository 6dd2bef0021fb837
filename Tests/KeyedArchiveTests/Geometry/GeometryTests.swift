import Foundation
import KeyedArchive
import TestSupport
import Testing

@Suite("NSValue geometry")
struct GeometryTests {
    static func fixture(_ name: String) throws -> KeyedUnarchiver {
        let entry = try #require(Fixtures.manifest.first { $0.name == name }, "fixture \(name) is missing")
        // Through the bytes (XML), as an application would read it.
        return try KeyedUnarchiver(forReadingFrom: Fixtures.data(entry))
    }

    static func foundationValue(_ data: Data) throws -> NSValue? {
        try NSKeyedUnarchiver.unarchivedObject(ofClass: NSValue.self, from: data)
    }

    @Test(.enabled(if: Fixtures.isAvailable, "\(Fixtures.skipNote)"))
    func rangeFixture() throws {
        let name = "corelibs_NSKeyedUnarchiver-RangeTest.plist"
        let range = try Self.fixture(name).decodeObject(of: ArchivedRange.self, forKey: "root")
        #expect(range == ArchivedRange(location: 97345, length: 98345), "\(name)")
        #expect(range?.range == 97345..<(97345 + 98345), "\(name)")
        let data = try KeyedArchiver.archivedData(
            withRootObject: try #require(range), requiringSecureCoding: true)
        let foundation = try #require(try Self.foundationValue(data), "\(name) re-encoded")
        #expect(foundation.rangeValue == NSRange(location: 97345, length: 98345), "\(name) re-encoded")
    }

    @Test(.enabled(if: Fixtures.isAvailable, "\(Fixtures.skipNote)"))
    func rectFixture() throws {
        let name = "corelibs_NSKeyedUnarchiver-RectTest.plist"
        let rect = try Self.fixture(name).decodeObject(of: ArchivedRect.self, forKey: "root")
        #expect(rect == ArchivedRect(x: 400, y: 300, width: 200, height: 300), "\(name)")
        let data = try KeyedArchiver.archivedData(
            withRootObject: try #require(rect), requiringSecureCoding: true)
        // Apple's text form, byte for byte.
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        #expect(graph.nodes.contains(.value(.string("{{400, 300}, {200, 300}}"))), "\(name): \(graph)")
        let foundation = try #require(try Self.foundationValue(data), "\(name) re-encoded")
        #expect(foundation.rectValue == NSRect(x: 400, y: 300, width: 200, height: 300), "\(name) re-encoded")
    }

    @Test(.enabled(if: Fixtures.isAvailable, "\(Fixtures.skipNote)"))
    func edgeInsetsFixture() throws {
        let name = "corelibs_NSKeyedUnarchiver-EdgeInsetsTest.plist"
        let insets = try Self.fixture(name).decodeObject(of: ArchivedEdgeInsets.self, forKey: "root")
        #expect(insets == ArchivedEdgeInsets(top: 1, left: 2, bottom: 3, right: 4), "\(name)")
        let data = try KeyedArchiver.archivedData(
            withRootObject: try #require(insets), requiringSecureCoding: true)
        let foundation = try #require(try Self.foundationValue(data), "\(name) re-encoded")
        let value = foundation.edgeInsetsValue
        #expect(
            [value.top, value.left, value.bottom, value.right] == [1, 2, 3, 4], "\(name) re-encoded")
    }

    @Test func foundationReadsPointsAndSizes() throws {
        let point = ArchivedPoint(x: 1.5, y: -2)
        let size = ArchivedSize(width: 0.1, height: 1e20)
        let pointValue = try #require(
            try Self.foundationValue(
                KeyedArchiver.archivedData(withRootObject: point, requiringSecureCoding: true)))
        #expect(pointValue.pointValue == NSPoint(x: 1.5, y: -2))
        let sizeValue = try #require(
            try Self.foundationValue(
                KeyedArchiver.archivedData(withRootObject: size, requiringSecureCoding: true)))
        #expect(sizeValue.sizeValue == NSSize(width: 0.1, height: 1e20))
    }

    @Test func readsFoundationsArchives() throws {
        let values: [NSValue] = [
            NSValue(point: NSPoint(x: 1.5, y: 2)), NSValue(size: NSSize(width: 3, height: 0.1)),
            NSValue(rect: NSRect(x: 4, y: 5, width: 6, height: 7.25)),
            NSValue(range: NSRange(location: 5, length: 7)),
            NSValue(edgeInsets: NSEdgeInsets(top: 1, left: 2, bottom: 3, right: 4)),
        ]
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        for (index, value) in values.enumerated() { archiver.encode(value, forKey: "v\(index)") }
        archiver.finishEncoding()
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(
            try unarchiver.decodeObject(of: ArchivedPoint.self, forKey: "v0") == ArchivedPoint(x: 1.5, y: 2))
        #expect(
            try unarchiver.decodeObject(of: ArchivedSize.self, forKey: "v1")
                == ArchivedSize(width: 3, height: 0.1))
        #expect(
            try unarchiver.decodeObject(of: ArchivedRect.self, forKey: "v2")
                == ArchivedRect(x: 4, y: 5, width: 6, height: 7.25))
        #expect(try unarchiver.decodeObject(of: ArchivedRange.self, forKey: "v3")?.range == 5..<12)
        #expect(
            try unarchiver.decodeObject(of: ArchivedEdgeInsets.self, forKey: "v4")
                == ArchivedEdgeInsets(top: 1, left: 2, bottom: 3, right: 4))
    }

    @Test func wrongKindIsTypeMismatch() throws {
        let data = try KeyedArchiver.archivedData(
            withRootObject: ArchivedPoint(x: 1, y: 2), requiringSecureCoding: true)
        #expect {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedRect.self, from: data)
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .typeMismatch
        }
    }

    @Test func malformedTextIsInvalidArchive() throws {
        let plist: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(3), "NS.special": 3, "NS.rectval": .uid(2)], "{{1, 2}, {3}}",
                ["$classname": "NSValue", "$classes": ["NSValue", "NSObject"]],
            ],
        ]
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        #expect {
            _ = try unarchiver.decodeObject(of: ArchivedRect.self, forKey: "root")
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .invalidArchive
        }
    }

    @Test func rangeConversions() {
        #expect(Range(ArchivedRange(3..<10)) == 3..<10)
        #expect(ArchivedRange(location: 0, length: -1).range == nil)
        #expect(ArchivedRange(location: Int.max, length: 1).range == nil)
    }
}
