import Foundation
import KeyedArchive
import TestSupport
import Testing

/// `TypedStreamArchiver` writes what `NSArchiver` writes.
@Suite("Typedstream archiver")
struct TypedStreamArchiverTests {
    static let foundation = TypedStreamFixtureTests.names.filter { $0.hasPrefix("crabstep_foundation_") }
    static let readable = TypedStreamFixtureTests.names.filter { $0 != TypedStreamFixtureTests.truncated }

    @Test("every fixture read as a graph is written back byte for byte", arguments: readable)
    func graphRoundTrip(_ name: String) throws {
        let data = try TypedStreamFixtureTests.data(name)
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        let written = try TypedStreamArchiver.archivedData(of: graph)
        #expect(written == data, "\(name): \(written.count) bytes written, \(data.count) read")
    }

    /// Fixtures whose classes and orders Swift values keep (no mutable variants, sets or
    /// dictionaries of several entries, whose order is Apple's hash order).
    static let valueIdentical = foundation.filter { name in
        ![
            "NSMutable", "NSSet", "NSDictionary", "NestedContainers", "NestedData", "NestedStrings",
            "NSArrayNested",
        ]
        .contains { name.contains($0) }
    }

    @Test(
        "the Foundation fixtures decoded to Swift values are re-written byte for byte",
        arguments: valueIdentical)
    func valueRoundTrip(_ name: String) throws {
        let data = try TypedStreamFixtureTests.data(name)
        let value = try TypedStreamUnarchiver.unarchivedObject(from: data)
        let written = try TypedStreamArchiver.archivedData(withRootObject: value)
        #expect(written == data, "\(name): \(Array(written)) vs \(Array(data))")
    }

    @Test("the value list is not empty where the fixtures are present")
    func listed() {
        #expect(Self.valueIdentical.count >= 14 || !Fixtures.isAvailable)
    }

    @Test("Swift values of every kind read back as written, in both byte orders")
    func values() throws {
        let url = try #require(URL(string: "page.html", relativeTo: URL(string: "https://example.com/dir/")))
        let root: [Any] = [
            "text é", Int8(-3), UInt8(250), Int16(-30_000), UInt16(60_000), Int32(-2_000_000_000),
            UInt32(4_000_000_000),
            Int64(-9_000_000_000), UInt64.max, Float(0.1), 2.5, -0.0, true, Data([1, 2, 3]),
            Date(timeIntervalSinceReferenceDate: 1.25), url, ArchivedNull(), ["k": "v"],
            Set<AnyHashable>(["s"]),
            ArchivedAttributedString(
                "Hi there",
                runs: [
                    .init(range: 0..<2, attributes: ["b": .integer(1)]), .init(range: 2..<8, attributes: [:]),
                ]),
        ]
        for order in [TypedStreamGraph.ByteOrder.littleEndian, .bigEndian] {
            let data = try TypedStreamArchiver.archivedData(withRootObject: root, byteOrder: order)
            #expect(try TypedStreamUnarchiver.objectGraph(from: data).byteOrder == order)
            let back = try #require(try TypedStreamUnarchiver.unarchivedObject(from: data) as? [Any])
            #expect(back.count == root.count)
            #expect(back[0] as? String == "text é")
            #expect(back[1] as? Int8 == -3)
            #expect(back[2] as? UInt8 == 250)
            #expect(back[3] as? Int16 == -30_000)
            #expect(back[4] as? UInt16 == 60_000)
            #expect(back[5] as? Int32 == -2_000_000_000)
            #expect(back[6] as? UInt32 == 4_000_000_000)
            #expect(back[7] as? Int64 == -9_000_000_000)
            #expect(back[8] as? UInt64 == UInt64.max)
            #expect(back[9] as? Float == 0.1)
            #expect(back[10] as? Double == 2.5)
            #expect((back[11] as? Double).map { $0 == 0 && $0.sign == .minus } == true)
            #expect(back[12] as? Int8 == 1)
            #expect(back[13] as? Data == Data([1, 2, 3]))
            #expect(back[14] as? Date == Date(timeIntervalSinceReferenceDate: 1.25))
            #expect((back[15] as? URL)?.absoluteString == "https://example.com/dir/page.html")
            #expect(back[16] is ArchivedNull)
            #expect((back[17] as? [String: Any])?["k"] as? String == "v")
            #expect(back[18] as? Set<AnyHashable> == ["s"])
            let attributed = try #require(back[19] as? ArchivedAttributedString)
            #expect(attributed == root[19] as? ArchivedAttributedString)
        }
    }

    @Test("values that have no typedstream form are refused")
    func refused() {
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamArchiver.archivedData(withRootObject: UUID())
        }
        let archiver = TypedStreamArchiver()
        #expect(throws: KeyedArchiveError.self) {
            try archiver.encodeValues(ofObjCTypes: "iI", [.integer(1)])
        }
    }

    @Test("groups of C values written one by one")
    func groups() throws {
        let archiver = TypedStreamArchiver()
        try archiver.encodeValues(ofObjCTypes: "iI", [.integer(-5), .unsignedInteger(70_000)])
        try archiver.encodeValues(
            ofObjCTypes: "{_NSRange=QQ}",
            [
                .structure(
                    name: "_NSRange",
                    fields: [
                        .unsignedInteger(3), .unsignedInteger(4),
                    ])
            ])
        try archiver.encodeValues(
            ofObjCTypes: "[3s]*:",
            [
                .array([.integer(1), .integer(-1), .integer(300)]), .cString(Data("abc".utf8)),
                .selector(Data("run:".utf8)),
            ])
        try archiver.encodeObject("done")
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(try unarchiver.decodeValues(ofObjCTypes: "iI") == [.integer(-5), .unsignedInteger(70_000)])
        #expect(
            try unarchiver.decodeValue(ofObjCType: "{_NSRange=QQ}")
                == .structure(name: "_NSRange", fields: [.unsignedInteger(3), .unsignedInteger(4)]))
        #expect(
            try unarchiver.decodeValues(ofObjCTypes: "[3s]*:") == [
                .array([.integer(1), .integer(-1), .integer(300)]), .cString(Data("abc".utf8)),
                .selector(Data("run:".utf8)),
            ])
        #expect(try unarchiver.decodeObject(of: String.self) == "done")
        #expect(unarchiver.isAtEnd)
    }
}
