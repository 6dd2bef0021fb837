import Foundation
import KeyedArchive
import Testing

@Suite("Archiving standard types")
struct StandardTypesArchivingTests {
    @Test func stringsAreStoredPlain() throws {
        let (_, plist) = ArchiveTest.archive("Potato Bug")
        let objects = ArchiveTest.objects(plist)
        #expect(objects.count == 2)
        #expect(objects[1] == "Potato Bug")
        #expect(try ArchiveTest.roundTrip("Potato Bug") == "Potato Bug")
        #expect(try ArchiveTest.roundTrip("") == "")
        #expect(try ArchiveTest.roundTrip("ünïcødé 🐛") == "ünïcødé 🐛")
        #expect(try ArchiveTest.roundTrip("$null") == "$null")
    }

    @Test func integersRoundTripAtTheirLimits() throws {
        #expect(try ArchiveTest.roundTrip(Int.min) == Int.min)
        #expect(try ArchiveTest.roundTrip(Int.max) == Int.max)
        #expect(try ArchiveTest.roundTrip(Int8.min) == Int8.min)
        #expect(try ArchiveTest.roundTrip(Int16.max) == Int16.max)
        #expect(try ArchiveTest.roundTrip(Int32.min) == Int32.min)
        #expect(try ArchiveTest.roundTrip(Int64.max) == Int64.max)
        #expect(try ArchiveTest.roundTrip(UInt.max) == UInt.max)
        #expect(try ArchiveTest.roundTrip(UInt8.max) == UInt8.max)
        #expect(try ArchiveTest.roundTrip(UInt16.max) == UInt16.max)
        #expect(try ArchiveTest.roundTrip(UInt32.max) == UInt32.max)
        #expect(try ArchiveTest.roundTrip(UInt64.max) == UInt64.max)
        let (_, plist) = ArchiveTest.archive(UInt64.max)
        #expect(ArchiveTest.objects(plist)[1] == .integer(PropertyListInteger(UInt64.max)))
    }

    @Test func floatingPointAndBooleansRoundTrip() throws {
        #expect(try ArchiveTest.roundTrip(1.5) == 1.5)
        #expect(try ArchiveTest.roundTrip(Float(0.1)) == Float(0.1))
        #expect(try ArchiveTest.roundTrip(Double.infinity) == .infinity)
        #expect(try ArchiveTest.roundTrip(Double.nan)?.isNaN == true)
        let negativeZero = try #require(try ArchiveTest.roundTrip(-0.0))
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        #expect(try ArchiveTest.roundTrip(true) == true)
        #expect(try ArchiveTest.roundTrip(false) == false)
    }

    @Test func negativeAndPositiveZeroAreNotMerged() throws {
        let (_, plist) = ArchiveTest.archive([0.0, -0.0])
        let decoded = try #require(
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: [Double].self, forKey: "root"))
        #expect(decoded.map(\.sign) == [.plus, .minus])
    }

    @Test func dataDateURLAndUUIDRoundTrip() throws {
        #expect(try ArchiveTest.roundTrip(Data([0, 1, 2, 255])) == Data([0, 1, 2, 255]))
        #expect(try ArchiveTest.roundTrip(Data()) == Data())
        let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        #expect(try ArchiveTest.roundTrip(date) == date)
        let uuid = try #require(UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))
        #expect(try ArchiveTest.roundTrip(uuid) == uuid)
        let absolute = try #require(URL(string: "https://www.example.com/a?b=c#d"))
        #expect(try ArchiveTest.roundTrip(absolute) == absolute)
        let relative = try #require(
            URL(string: "foo.xml", relativeTo: URL(string: "https://www.example.com")))
        let decoded = try #require(try ArchiveTest.roundTrip(relative))
        #expect(decoded.relativeString == "foo.xml")
        #expect(decoded.baseURL?.absoluteString == "https://www.example.com")
        #expect(decoded.absoluteString == relative.absoluteString)
    }

    @Test func dateUUIDAndURLUseApplesLayouts() throws {
        let (_, datePlist) = ArchiveTest.archive(Date(timeIntervalSinceReferenceDate: 3))
        let dateObject = try #require(ArchiveTest.objects(datePlist)[1].dictionaryValue)
        #expect(dateObject["NS.time"] == .real(3))
        let uuid = UUID()
        let (_, uuidPlist) = ArchiveTest.archive(uuid)
        let uuidObject = try #require(ArchiveTest.objects(uuidPlist)[1].dictionaryValue)
        #expect(uuidObject["NS.uuidbytes"]?.dataValue?.count == 16)
        let url = try #require(URL(string: "foo", relativeTo: URL(string: "http://x.com/")))
        let (_, urlPlist) = ArchiveTest.archive(url)
        let objects = ArchiveTest.objects(urlPlist)
        let urlObject = try #require(objects[1].dictionaryValue)
        let base = try #require(urlObject["NS.base"]?.uidValue)
        let relative = try #require(urlObject["NS.relative"]?.uidValue)
        #expect(objects[Int(relative)] == "foo")
        #expect(objects[Int(base)]["NS.base"] == .uid(0))
    }

    @Test func collectionsRoundTrip() throws {
        #expect(try ArchiveTest.roundTrip(["a", "b", "a"]) == ["a", "b", "a"])
        #expect(try ArchiveTest.roundTrip([Int]()) == [])
        #expect(try ArchiveTest.roundTrip(Set([1, 2, 3])) == Set([1, 2, 3]))
        #expect(try ArchiveTest.roundTrip(["one": 1, "two": 2]) == ["one": 1, "two": 2])
        #expect(try ArchiveTest.roundTrip([1: "one", 2: "two"]) == [1: "one", 2: "two"])
        #expect(try ArchiveTest.roundTrip([[1, 2], [3]]) == [[1, 2], [3]])
        #expect(try ArchiveTest.roundTrip(["k": [Point(x: 1, y: 2)]]) == ["k": [Point(x: 1, y: 2)]])
        #expect(try ArchiveTest.roundTrip(ArchivedNull()) == ArchivedNull())
    }

    @Test func collectionsUseApplesClassDescriptions() throws {
        let (_, plist) = ArchiveTest.archive(["a": [1, 2], "b": [3]])
        let objects = ArchiveTest.objects(plist)
        let descriptions = objects.filter { $0["$classname"] != nil }
        #expect(
            Set(descriptions) == [
                ArchiveTest.classDescription("NSDictionary"), ArchiveTest.classDescription("NSArray"),
            ])
        let root = try #require(objects[1].dictionaryValue)
        #expect(root["NS.keys"]?.arrayValue?.count == 2)
        #expect(root["NS.objects"]?.arrayValue?.count == 2)
    }

    @Test func mutableAndOrderedVariantsDecode() throws {
        // NSMutableString (NS.string), NSMutableData (NS.data), NSOrderedSet (NS.object.N),
        // NSCountedSet (NS.count / NS.objectN), NSMutableDictionary.
        let plist = ArchiveTest.archivePlist(
            objects: [
                "$null",
                ["$class": .uid(2), "NS.string": "mutable"],
                ArchiveTest.classDescription("NSMutableString", ["NSMutableString", "NSString", "NSObject"]),
                ["$class": .uid(4), "NS.data": .data(Data([7, 8]))],
                ArchiveTest.classDescription("NSMutableData", ["NSMutableData", "NSData", "NSObject"]),
                ["$class": .uid(6), "NS.object.0": .uid(1), "NS.object.1": .uid(9)],
                ArchiveTest.classDescription("NSOrderedSet"),
                [
                    "$class": .uid(8), "NS.count": 2, "NS.object0": .uid(9), "NS.count0": 3,
                    "NS.object1": .uid(10), "NS.count1": 1,
                ],
                ArchiveTest.classDescription(
                    "NSCountedSet", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"]),
                "x", "y",
                ["$class": .uid(12), "NS.keys": [.uid(9)], "NS.objects": [.uid(1)]],
                ArchiveTest.classDescription(
                    "NSMutableDictionary", ["NSMutableDictionary", "NSDictionary", "NSObject"]),
            ],
            top: [
                "string": .uid(1), "data": .uid(3), "ordered": .uid(5), "counted": .uid(7),
                "dictionary": .uid(11),
            ])
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "string") == "mutable")
        #expect(try unarchiver.decodeObject(of: Data.self, forKey: "data") == Data([7, 8]))
        #expect(try unarchiver.decodeObject(of: [String].self, forKey: "ordered") == ["mutable", "x"])
        #expect(try unarchiver.decodeObject(of: Set<String>.self, forKey: "ordered") == ["mutable", "x"])
        #expect(try unarchiver.decodeObject(of: Set<String>.self, forKey: "counted") == ["x", "y"])
        #expect(
            try unarchiver.decodeObject(of: [String: String].self, forKey: "dictionary") == ["x": "mutable"])
        let untyped = try unarchiver.decodeObject(of: [], forKey: "counted") as? Set<AnyHashable>
        #expect(untyped == ["x", "y"])
    }

    @Test func untypedDecodingGivesStandardSwiftValues() throws {
        let archiver = KeyedArchiver()
        archiver.encode(["a", "b"], forKey: "array")
        archiver.encode([1: "one"], forKey: "numberKeys")
        archiver.encode(["k": 2.5], forKey: "stringKeys")
        archiver.encode(UInt64.max, forKey: "big")
        archiver.encode(ArchivedNull(), forKey: "null")
        archiver.encode(Set(["s"]), forKey: "set")
        let unarchiver = try KeyedUnarchiver(propertyList: archiver.encodedPropertyList)
        #expect(try unarchiver.decodeObject(of: [], forKey: "array") as? [Any] != nil)
        #expect(
            (try unarchiver.decodeObject(of: [], forKey: "array") as? [Any])?.compactMap { $0 as? String }
                == ["a", "b"])
        let numberKeys = try unarchiver.decodeObject(of: [], forKey: "numberKeys") as? [AnyHashable: Any]
        #expect(numberKeys?[AnyHashable(1)] as? String == "one")
        let stringKeys = try unarchiver.decodeObject(of: [], forKey: "stringKeys") as? [String: Any]
        #expect(stringKeys?["k"] as? Double == 2.5)
        #expect(try unarchiver.decodeObject(of: [], forKey: "big") as? UInt64 == UInt64.max)
        #expect(try unarchiver.decodeObject(of: [], forKey: "null") as? ArchivedNull == ArchivedNull())
        #expect(try unarchiver.decodeObject(of: [], forKey: "set") as? Set<AnyHashable> == ["s"])
    }
}
