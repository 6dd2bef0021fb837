import Foundation
import KeyedArchive
import Testing

@Suite("Archives as bytes")
struct ArchiveBytesTests {
    @Test(arguments: [PropertyListFormat.binary, .xml])
    func generatedGraphsRoundTripThroughBytes(format: PropertyListFormat) throws {
        for seed in 0..<10 {
            let nodes = ArchivePropertyTests.generateGraph(seed: UInt64(1000 + seed))
            let data = try KeyedArchiver.archivedData(
                withRootObject: nodes[0], requiringSecureCoding: true, format: format)
            #expect(PropertyListFormat.detect(data) == format)
            let decoded = try #require(
                try KeyedUnarchiver.unarchivedObject(ofClass: GraphNode.self, from: data))
            let original = ArchivePropertyTests.reachable(from: nodes[0])
            let copies = ArchivePropertyTests.reachable(from: decoded)
            #expect(Set(original.keys) == Set(copies.keys), "seed \(seed)")
            for (id, node) in original {
                #expect(copies[id]?.children.map(\.id) == node.children.map(\.id), "seed \(seed)")
                #expect(copies[id]?.label == node.label, "seed \(seed)")
            }
        }
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func bytesAndPropertyListAgree(format: PropertyListFormat) throws {
        let value: [String: [Point]] = ["a": [Point(x: 1, y: 2)], "b": []]
        let archiver = KeyedArchiver()
        archiver.outputFormat = format
        archiver.encode(value, forKey: "root")
        archiver.encode(Float(1.5), forKey: "float")
        let data = try archiver.finishedData()
        #expect(try PropertyList(from: data) == archiver.encodedPropertyList)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(try unarchiver.decodeObject(of: [String: [Point]].self, forKey: "root") == value)
        #expect(try unarchiver.decodeFloat(forKey: "float") == 1.5)
    }

    @Test func aKeyEncodedTwiceKeepsItsLastValue() throws {
        let archiver = KeyedArchiver()
        archiver.encode(1, forKey: "k")
        archiver.encode(2, forKey: "k")
        let data = try archiver.finishedData()
        #expect(try KeyedUnarchiver(forReadingFrom: data).decodeInteger(forKey: "k") == 2)
        #expect(
            try KeyedUnarchiver(propertyList: archiver.encodedPropertyList).decodeInteger(forKey: "k") == 2)
    }

    @Test func decodingOneKeyDoesNotReadTheRestOfABinaryArchive() throws {
        let marker = "UNREACHABLE-MARKER"  // 18 ASCII bytes: 0x5F 0x10 0x12, then the text
        let archiver = KeyedArchiver()
        archiver.encode("small value", forKey: "small")
        archiver.encode((0..<20_000).map { "element \($0)" } + [marker], forKey: "big")
        var bytes = [UInt8](try archiver.finishedData())
        let text = Array(marker.utf8)
        let start = try #require(
            (0...(bytes.count - text.count)).first { bytes[$0..<($0 + text.count)].elementsEqual(text) })
        #expect(bytes[start - 3] == 0x5F)
        bytes[start - 3] = 0x70  // a marker no object type uses
        let damaged = Data(bytes)
        #expect(throws: KeyedArchiveError.self) { try PropertyList(from: damaged) }  // a full parse fails
        let unarchiver = try KeyedUnarchiver(forReadingFrom: damaged)
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "small") == "small value")
        let error = ArchiveTest.error { try unarchiver.decodeObject(of: [String].self, forKey: "big") }
        #expect(error?.code == .corruptData)
        #expect(error.map { if case .byteOffset = $0.location { true } else { false } } == true)
        #expect(error?.message.contains("for big[20000]") == true)
    }

    @Test func foreignAndDamagedBytesThrow() throws {
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("not a plist", Data("hello".utf8)),
            ("a plain plist", try PropertyList.array(["a"]).data(format: .binary)),
            ("a plain dictionary", try PropertyList.dictionary(["a": 1]).data(format: .binary)),
            (
                "truncated",
                try KeyedArchiver.archivedData(withRootObject: "x", requiringSecureCoding: true).dropLast(5)
            ),
        ]
        for (name, data) in cases {
            #expect(throws: KeyedArchiveError.self, "\(name)") {
                try KeyedUnarchiver.unarchivedObject(ofClass: String.self, from: data)
            }
        }
    }
}
