import Foundation
import KeyedArchive
import TestSupport
import Testing

/// bpylist2's test class.
final class CrapFoo: SecureKeyedCoding {
    static var archivedClassName: String { "crap.Foo" }
    var title: String?
    var recursive: CrapFoo?

    func encode(with coder: KeyedArchiver) {
        coder.encode(title, forKey: "title")
        coder.encode(recursive, forKey: "recursive")
    }

    init(coder: KeyedUnarchiver) throws {
        title = try coder.decodeObject(of: String.self, forKey: "title")
        recursive = try coder.decodeObject(of: CrapFoo.self, forKey: "recursive")
    }
}

/// Fixture tests read each archive through its `*.expected.json` property-list value
/// (the plist layer is tested elsewhere), and through its bytes when the readers can.
@Suite("Archive fixtures", .enabled(if: Fixtures.isAvailable, "\(Fixtures.skipNote)"))
struct ArchiveFixtureTests {
    static func archive(_ name: String) throws -> PropertyList {
        let entry = try #require(Fixtures.manifest.first { $0.name == name }, "fixture \(name) is missing")
        return try #require(try Fixtures.expectedValue(entry), "fixture \(name) has no expected value")
    }

    static func unarchiver(_ name: String) throws -> KeyedUnarchiver {
        try KeyedUnarchiver(propertyList: archive(name))
    }

    @Test func arrayTest() throws {
        let unarchiver = try Self.unarchiver("corelibs_NSKeyedUnarchiver-ArrayTest.plist")
        #expect(
            try unarchiver.decodeObject(of: [String].self, forKey: "root") == [
                "baa", "baa", "black", "sheep",
            ])
    }

    @Test func orderedSetTest() throws {
        let unarchiver = try Self.unarchiver("corelibs_NSKeyedUnarchiver-OrderedSetTest.plist")
        #expect(
            try unarchiver.decodeObject(of: [String].self, forKey: "root") == ["valgeir", "nico", "puzzle"])
    }

    @Test func uuidTest() throws {
        let unarchiver = try Self.unarchiver("corelibs_NSKeyedUnarchiver-UUIDTest.plist")
        #expect(
            try unarchiver.decodeObject(of: UUID.self, forKey: "root")
                == UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))
    }

    @Test func urlTest() throws {
        let unarchiver = try Self.unarchiver("corelibs_NSKeyedUnarchiver-URLTest.plist")
        let url = try #require(try unarchiver.decodeObject(of: URL.self, forKey: "root"))
        #expect(url.relativeString == "foo.xml")
        #expect(url.baseURL?.absoluteString == "https://www.example.com")
        #expect(url.absoluteString == "https://www.example.com/foo.xml")
    }

    @Test func complexTest() throws {
        let unarchiver = try Self.unarchiver("corelibs_NSKeyedUnarchiver-ComplexTest.plist")
        let root = try #require(try unarchiver.decodeObject(of: [], forKey: "root") as? [String: Any])
        #expect(Set(root.keys) == ["uuid", "url", "string", "array"])
        #expect(root["string"] as? String == "hello")
        #expect(root["uuid"] as? UUID == UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22"))
        let url = try #require(root["url"] as? URL)
        #expect(url.absoluteString == "https://www.swift.org/index.xml")
        let array = try #require(root["array"] as? [Any])
        #expect(array.count == 4)
        #expect(array[0] as? ArchivedNull == ArchivedNull())
        #expect(array[1] as? String == "hello")
        #expect(array[2] as? Int == 34545)
        #expect((array[3] as? [String: Any])?["key"] as? String == "val")
        // The string "hello" is one object, referenced twice.
        let graph = try unarchiver.objectGraph()
        let hello = try #require(graph.nodes.firstIndex { $0 == .value(.string("hello")) })
        #expect(graph.isShared(hello))
    }

    @Test(arguments: [
        ("corelibs_macOS-10.14_NSSet-Numbers.archive", true),
        ("corelibs_macOS-10.14_NSMutableSet-Numbers.archive", true),
        ("corelibs_macOS-10.14_NSCountedSet-NumbersAppearingOnce.archive", true),
        ("corelibs_macOS-10.14_NSCountedSet-NumbersAppearingSeveralTimes.archive", true),
        ("corelibs_macOS-10.14_NSOrderedSet-Numbers.archive", false),
        ("corelibs_macOS-10.14_NSMutableOrderedSet-Numbers.archive", false),
    ])
    func numberSets(name: String, unordered: Bool) throws {
        let unarchiver = try Self.unarchiver(name)
        #expect(try unarchiver.decodeObject(of: Set<Int>.self, forKey: "root") == [1, 2, 3, 4, 5], "\(name)")
        if !unordered {
            #expect(
                try unarchiver.decodeObject(of: [Int].self, forKey: "root") == [1, 2, 3, 4, 5], "\(name)")
        }
    }

    @Test(arguments: [
        "corelibs_macOS-10.14_NSSet-Empty.archive", "corelibs_macOS-10.14_NSMutableSet-Empty.archive",
        "corelibs_macOS-10.14_NSOrderedSet-Empty.archive",
        "corelibs_macOS-10.14_NSMutableOrderedSet-Empty.archive",
        "corelibs_macOS-10.14_NSCountedSet-Empty.archive",
    ])
    func emptySets(name: String) throws {
        #expect(try Self.unarchiver(name).decodeObject(of: Set<Int>.self, forKey: "root") == [], "\(name)")
    }

    @Test func pyObjCStringWithClassHints() throws {
        let unarchiver = try Self.unarchiver("cpython_KEYED_ARCHIVE.bplist")
        #expect(try unarchiver.decodeObject(of: String.self, forKey: "root") == "KeyArchive UID Test")
    }

    @Test func attributedStringDecodesGenerically() throws {
        var options = KeyedUnarchivingOptions()
        options.decodesUnknownClassesGenerically = true
        let entry = "corelibs_macOS-10.14_NSMutableAttributedString.archive"
        let unarchiver = try KeyedUnarchiver(propertyList: Self.archive(entry), options: options)
        let graph = try #require(try unarchiver.decodeObject(of: [], forKey: "root") as? ArchivedObjectGraph)
        let object = try #require(graph.root?.referenceValue.flatMap(graph.object(at:)))
        #expect(object.className == "NSMutableAttributedString")
        let string = try #require(object["NSString"]?.referenceValue)
        #expect(graph.object(at: string)?["NS.string"] == .string("0123456789"))
    }

    @Test func everyAppleArchiveDecodesGenerically() throws {
        var options = KeyedUnarchivingOptions()
        options.decodesUnknownClassesGenerically = true
        let entries = Fixtures.entries("apple-keyed-archives")
        #expect(entries.count >= 49)
        for entry in entries {
            let plist = try #require(try Fixtures.expectedValue(entry), "\(entry)")
            let graph = try KeyedUnarchiver.objectGraph(from: plist)
            #expect(graph.nodes.count == plist["$objects"]?.arrayValue?.count, "\(entry)")
            #expect(!graph.topLevel.isEmpty, "\(entry)")
            // Every top-level value also decodes through the untyped API.
            let unarchiver = try KeyedUnarchiver(propertyList: plist, options: options)
            for field in graph.topLevel {
                #expect(throws: Never.self, "\(entry) \(field.key)") {
                    try unarchiver.decodeObject(of: [], forKey: field.key)
                }
            }
        }
    }

    @Test func bpylistArchivesDecode() throws {
        let simple = try Self.unarchiver("bpylist2_simple_archive.plist")
        #expect(try simple.decodeObject(of: CrapFoo.self, forKey: "root")?.title == "yo")
        let recursive = try #require(
            try Self.unarchiver("bpylist2_recursive_archive.plist").decodeObject(
                of: CrapFoo.self, forKey: "root"))
        #expect(recursive.title == "hello")
        #expect(recursive.recursive?.title == "yo")
        #expect(recursive.recursive?.recursive == nil)
        let data = try Self.unarchiver("bpylist2_nsmutabledata_archive.plist")
        #expect(try data.decodeObject(of: Data.self, forKey: "root") == Data("hello".utf8))
        for name in [
            "bpylist2_complex_archive.plist", "bpylist2_dataclass_archive.plist",
            "bpylist2_date_archive.plist",
            "bpylist2_empty_archive.plist", "bpylist2_null_archive.plist",
        ] {
            #expect(throws: Never.self, "\(name)") {
                try KeyedUnarchiver.objectGraph(from: Self.archive(name))
            }
        }
    }

    @Test func malformedArchivesThrowFromTheUnarchiver() throws {
        let entries = Fixtures.entries("malformed").filter { $0.expect == "plist-ok-archive-bad" }
        #expect(entries.count == 10)
        for entry in entries {
            let plist = try #require(try Fixtures.expectedValue(entry), "\(entry)")
            // As unarchivedObject(ofClasses:from:) does: open, require a root, decode it.
            let error = ArchiveTest.error {
                let unarchiver = try KeyedUnarchiver(propertyList: plist)
                guard unarchiver.containsValue(forKey: "root") else {
                    throw KeyedArchiveError(.invalidArchive, "no root")
                }
                return try unarchiver.decodeObject(of: [CrapFoo.self], forKey: "root")
            }
            #expect(error != nil, "\(entry) must be rejected")
        }
        let circular = ArchiveTest.error {
            try KeyedUnarchiver(propertyList: Self.archive("bpylist2_circular_archive.plist"))
                .decodeObject(of: CrapFoo.self, forKey: "root")
        }
        #expect(circular?.code == .unresolvableCycle)
        #expect(circular?.location == .keyPath("root.recursive"))
    }

    @Test func archivesReadFromTheirBytesAsFromTheirExpectedValues() throws {
        let entries =
            Fixtures.entries("apple-keyed-archives")
            + Fixtures.entries("plists").filter {
                $0.name.hasPrefix("bpylist2_") && $0.name.hasSuffix("_archive.plist")
            }
        var read = 0
        for entry in entries {
            let expected = try KeyedUnarchiver.objectGraph(
                from: try #require(try Fixtures.expectedValue(entry)))
            let fromBytes: ArchivedObjectGraph
            do {
                fromBytes = try KeyedUnarchiver.objectGraph(from: Fixtures.data(entry))
            } catch let error as KeyedArchiveError
                where error.code == .unsupportedFormat && error.message.contains("not implemented")
            {
                continue  // that format's reader has not landed yet
            }
            #expect(fromBytes == expected, "\(entry)")
            read += 1
        }
        #expect(read > 0)
    }

    @Test func malformedArchivesThrowFromTheirBytes() throws {
        for entry in Fixtures.entries("malformed") where entry.expect == "plist-ok-archive-bad" {
            let data = try Fixtures.data(entry)
            do {
                _ = try KeyedUnarchiver.unarchivedObject(ofClasses: [CrapFoo.self], from: data)
                Issue.record("\(entry) must be rejected")
            } catch let error as KeyedArchiveError {
                if error.code == .unsupportedFormat && error.message.contains("not implemented") { continue }
            }
        }
    }
}
