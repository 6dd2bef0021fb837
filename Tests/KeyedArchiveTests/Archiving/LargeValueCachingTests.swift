import Foundation
import Testing

@testable import KeyedArchive
@testable import KeyedArchiving

/// A value too large to sit inline in an `Any` (four words), decoded from a chain of
/// objects each referring twice to the previous one.
struct LargeBombValue: SecureKeyedCoding {
    nonisolated(unsafe) static var initCount = 0
    static var archivedClassName: String { "LargeBomb" }
    var words: (Int, Int, Int, Int) = (1, 2, 3, 4)
    var depth = 0
    func encode(with coder: KeyedArchiver) {}
    init(coder: KeyedUnarchiver) throws {
        LargeBombValue.initCount += 1
        let left = try coder.decodeObject(of: LargeBombValue.self, forKey: "left")
        let right = try coder.decodeObject(of: LargeBombValue.self, forKey: "right")
        depth = max(left?.depth ?? -1, right?.depth ?? -1) + 1
    }
}

/// Large values are cached from their second decode on (most objects are referenced once,
/// and caching boxes them); decoding stays linear: each object is decoded at most twice.
@Suite("Large value caching", .serialized)
struct LargeValueCachingTests {
    @Test func sharedLargeValuesDecodeAtMostTwice() throws {
        #expect(MemoryLayout<LargeBombValue>.size > MemoryLayout<(Int, Int, Int)>.size)
        let levels = 40
        let plist = ArchivePropertyTests.bomb(levels: levels, className: "LargeBomb")
        LargeBombValue.initCount = 0
        let root = try #require(
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: LargeBombValue.self, forKey: "root"))
        #expect(root.depth == levels - 1)
        #expect(LargeBombValue.initCount <= 2 * levels)
        #expect(LargeBombValue.initCount >= levels)
    }

    @Test func largeValuesReadOnceAreNotKept() throws {
        let text = ArchivedAttributedString(
            "Hello", attributes: ["NSFont": .font(ArchivedFont(name: "Menlo", size: 11))])
        let single = try PropertyList(
            from: KeyedArchiver.archivedData(withRootObject: [text], requiringSecureCoding: true))
        guard case .dictionary(var archive) = single, case .array(var objects)? = archive["$objects"],
            let rootUID = single["$top"]?["root"]?.uidValue,
            case .dictionary(var array) = objects[Int(rootUID)],
            let uid = array["NS.objects"]?.arrayValue?.first?.uidValue
        else { throw AppleFixture.Failure("unexpected archive") }
        for count in [1, 2] {
            // The array refers `count` times to the one string object.
            array["NS.objects"] = .array(Array(repeating: .uid(uid), count: count))
            objects[Int(rootUID)] = .dictionary(array)
            archive["$objects"] = .array(objects)
            let unarchiver = try KeyedUnarchiver(propertyList: .dictionary(archive))
            let read = try #require(
                try unarchiver.decodeObject(
                    of: [ArchivedAttributedString].self, forKey: KeyedArchiver.rootObjectKey))
            #expect(read == Array(repeating: text, count: count))
            // Read once: not kept; read twice: kept from the second read.
            #expect(unarchiver.decoded.contains(Int(uid)) == (count == 2))
        }
    }
}
