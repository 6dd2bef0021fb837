import Foundation
import KeyedArchive
import Testing

/// Foundation classes in typedstreams decode into the Swift values keyed archives give.
@Suite("Typedstream standard values")
struct TypedStreamValueTests {
    static func root(_ name: String) throws -> Any? {
        try TypedStreamUnarchiver.unarchivedObject(from: try TypedStreamFixtureTests.data(name))
    }

    static var available: Bool { TypedStreamFixtureTests.names.contains("crabstep_foundation_NSArray") }

    @Test("arrays, numbers per C type, strings", .enabled(if: available))
    func arrays() throws {
        let array = try #require(try Self.root("crabstep_foundation_NSArray") as? [Any])
        #expect(array.count == 3)
        #expect(array[0] as? String == "a")
        #expect(array[1] as? Int64 == 1)
        #expect(array[2] as? String == "b")
        let nested = try #require(try Self.root("crabstep_foundation_NestedStrings") as? [Any])
        #expect(nested.compactMap { $0 as? String } == ["imm", "mut"])
        let withNull = try #require(try Self.root("crabstep_foundation_NSArrayWithNull") as? [Any])
        #expect(withNull[1] is ArchivedNull)
        #expect((try Self.root("crabstep_foundation_NSArrayEmpty") as? [Any])?.isEmpty == true)
    }

    @Test("numbers keep their C type", .enabled(if: available))
    func numbers() throws {
        #expect(try Self.root("crabstep_foundation_NumberInt") as? Int32 == 42)
        #expect(try Self.root("crabstep_foundation_NumberDouble") as? Double == 100.5)
        #expect(try Self.root("crabstep_foundation_NumberFloat") as? Float == 3.5)
        #expect(try Self.root("crabstep_foundation_NumberBool") as? Int8 == 1)
        // Head tag 0x87: an 8-byte integer, which pytypedstream cannot read.
        #expect(try Self.root("crabstep_foundation_NumberInt64") as? Int64 == -9_000_000_000)
        let data = try TypedStreamFixtureTests.data("crabstep_foundation_NumberInt")
        #expect(try TypedStreamUnarchiver.unarchivedObject(ofClass: Int.self, from: data) == 42)
        #expect(try TypedStreamUnarchiver.unarchivedObject(ofClass: Double.self, from: data) == 42)
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamUnarchiver.unarchivedObject(
                ofClass: UInt8.self,
                from: try TypedStreamFixtureTests.data(
                    "crabstep_foundation_NumberInt64"))
        }
        #expect(
            try TypedStreamUnarchiver.unarchivedObject(
                ofClass: Bool.self,
                from: try TypedStreamFixtureTests.data(
                    "crabstep_foundation_NumberBool")) == true)
    }

    @Test("dictionaries, sets, data, dates, URLs", .enabled(if: available))
    func others() throws {
        let dictionary = try #require(try Self.root("crabstep_foundation_NSDictionary") as? [String: Any])
        #expect(dictionary["k2"] as? String == "v")
        #expect(dictionary["k1"] as? Int64 == 1)
        let set = try #require(try Self.root("crabstep_foundation_NSSet") as? Set<AnyHashable>)
        #expect(set == ["s1", "s2"])
        #expect(
            try Self.root("crabstep_foundation_NSData") as? Data
                == Data([0xde, 0xad, 0xbe, 0xef, 0x00, 0x7f]))
        #expect(
            try Self.root("crabstep_foundation_NSMutableData") as? Data == Data([0xde, 0xad, 0xbe, 0xef]))
        #expect(
            try Self.root("crabstep_foundation_NSDate") as? Date
                == Date(timeIntervalSinceReferenceDate: 21_692_800))
        let url = try #require(try Self.root("crabstep_foundation_NSURLRelative") as? URL)
        #expect(url.absoluteString == "https://example.com/dir/page.html")
        #expect(url.relativeString == "page.html")
        #expect(try Self.root("crabstep_foundation_NSMutableString") as? String != nil)
    }

    @Test("unknown classes decode as an inspectable graph with class versions", .enabled(if: available))
    func generic() throws {
        let data = try TypedStreamFixtureTests.data("crabstep_HugeWithRefs")
        let root = try #require(try TypedStreamUnarchiver.unarchivedObject(from: data) as? [Any])
        let inner = try #require(root.first as? [Any])
        #expect(inner.count == 35)
        let withROI = try #require(inner[6] as? [Any])
        let roi = try #require(withROI.first as? TypedStreamGraph)
        guard case .object(let index)? = roi.root, let object = roi.object(at: index) else {
            Issue.record("the ROI is not an object")
            return
        }
        #expect(roi.classChain(of: object).map(\.name) == ["ROI", "NSObject"])
        #expect(roi.classChain(of: object).map(\.version) == [11, 0])
        #expect(object.groups.first?.encoding == "@")
        var options = TypedStreamUnarchivingOptions()
        options.decodesUnknownClassesGenerically = false
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamUnarchiver.unarchivedObject(from: data, options: options)
        }
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
        #expect(unarchiver.version(forClassName: "ROI") == 11)
        #expect(unarchiver.systemVersion == 1000)
    }

    /// A user type read from a typedstream: fields in order, unnamed.
    struct ROIPoint: TypedStreamDecodable {
        static var typedStreamClassName: String { "MyPoint" }
        let text: String
        init(typedStreamCoder coder: TypedStreamUnarchiver) throws {
            #expect(coder.currentClassChain.map(\.name) == ["MyPoint", "NSObject"])
            text = try coder.decodeObject(of: String.self) ?? ""
        }
    }

    /// The ROI of OsiriX (class version 11): a points array first, then its other values.
    struct ROI: TypedStreamDecodable {
        static var typedStreamClassName: String { "ROI" }
        let points: [ROIPoint]
        let rest: Int
        init(typedStreamCoder coder: TypedStreamUnarchiver) throws {
            #expect(coder.version(forClassName: "ROI") == 11)
            let array = try coder.decodeObject(of: [Any].self) ?? []
            points = array.compactMap { $0 as? ROIPoint }
            var count = 0
            while !coder.isAtEnd {
                _ = try coder.decodeNextGroup()
                count += 1
            }
            rest = count
        }
    }

    @Test(
        "a user type reads its fields in order; allowed classes are checked while reading",
        .enabled(if: available))
    func userType() throws {
        let data = try TypedStreamFixtureTests.data("crabstep_HugeWithRefs")
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
        unarchiver.setClass(ROIPoint.self, forClassName: "MyPoint")
        unarchiver.setClass(ROI.self, forClassName: "ROI")
        let root = try #require(try unarchiver.decodeObject() as? [Any])
        let inner = try #require(root.first as? [Any])
        let roi = try #require((inner[6] as? [Any])?.first as? ROI)
        #expect(roi.points.count == 14)
        #expect(roi.points.first?.text == "{294.275, 313.361}")
        #expect(roi.rest > 20)
        do {
            _ = try TypedStreamUnarchiver.unarchivedObject(ofClasses: [ROIPoint.self], from: data)
            Issue.record("ROI was allowed")
        } catch let error as KeyedArchiveError {
            #expect(error.code == .classNotAllowed)
            #expect(error.message.contains("ROI"))
            guard case .byteOffset = error.location else {
                Issue.record("no byte offset: \(error)")
                return
            }
        }
        let allowed = try TypedStreamUnarchiver.unarchivedObject(
            ofClasses: [ROIPoint.self, ROI.self], from: data)
        #expect(((allowed as? [Any])?.first as? [Any])?.count == 35)
    }
}

/// AppKit's `NSColor` as it wrote typedstreams (colour lists, old nibs, attributes).
@Suite("Typedstream colours")
struct TypedStreamColorTests {
    /// A stream whose root is an `NSColor` of `kind` with the groups `body`.
    static func color(_ body: [UInt8]) -> Data {
        var bytes = TypedStreamHostileTests.header + [0x84, 0x01, UInt8(ascii: "@"), 0x84, 0x84, 0x84, 0x07]
        bytes += Array("NSColor".utf8) + [0x00, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85]
        return Data(bytes + body + [0x86])
    }

    @Test("RGB, white, CMYK and named colours decode as ArchivedColor")
    func colors() throws {
        // "c" 1, "ffff" 0, 0.5 (0x83 + float bits), 1, 1.
        let rgb = Self.color(
            [0x84, 0x01, UInt8(ascii: "c"), 0x01, 0x84, 0x04] + Array("ffff".utf8)
                + [0x00, 0x83, 0x00, 0x00, 0x00, 0x3f, 0x01, 0x01])
        let color = try #require(try TypedStreamUnarchiver.unarchivedObject(from: rgb) as? ArchivedColor)
        #expect(color == ArchivedColor(red: 0, green: 0.5, blue: 1, alpha: 1, space: .calibratedRGB))
        let white = Self.color(
            [0x84, 0x01, UInt8(ascii: "c"), 0x04, 0x84, 0x02] + Array("ff".utf8) + [0x00, 0x01])
        #expect(
            try TypedStreamUnarchiver.unarchivedObject(from: white) as? ArchivedColor
                == ArchivedColor(white: 0, alpha: 1, space: .deviceWhite))
        // A kind the reader does not know stays a graph.
        let other = Self.color([0x84, 0x01, UInt8(ascii: "c"), 0x09])
        #expect(try TypedStreamUnarchiver.unarchivedObject(from: other) is TypedStreamGraph)
    }
}
