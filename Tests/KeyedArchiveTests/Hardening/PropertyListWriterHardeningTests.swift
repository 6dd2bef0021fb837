import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import KeyedArchive
@testable import PropertyListFormats

/// A UID is a number the input chooses: the binary writers remember small UIDs' objects in
/// a table indexed by value, which must never be sized by that number.
@Suite("Hardening: tables indexed by UID values")
struct UIDTableTests {
    /// An XML keyed archive whose root is the UID `uid` (480 bytes for 16,777,215).
    static func archive(rootUID uid: UInt64) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>$archiver</key>
            \t<string>NSKeyedArchiver</string>
            \t<key>$objects</key>
            \t<array>
            \t\t<string>$null</string>
            \t</array>
            \t<key>$top</key>
            \t<dict>
            \t\t<key>root</key>
            \t\t<dict>
            \t\t\t<key>CF$UID</key>
            \t\t\t<integer>\(uid)</integer>
            \t\t</dict>
            \t</dict>
            \t<key>$version</key>
            \t<integer>100000</integer>
            </dict>
            </plist>

            """.utf8)
    }

    static let edgeValues: [UInt64] = [
        0, 255, 1023, 1024, 4095, 4096, 1 << 16, (1 << 24) - 1, 1 << 24, (1 << 26) - 1, 1 << 26,
        UInt64(UInt32.max), 1 << 32, UInt64.max,
    ]

    @Test func theStreamRemembersOnlyUIDsBelowItsLimit() throws {
        let stream = BinaryPropertyListStream(expectedBytes: 64, expectedObjects: 4, sharedUIDLimit: 1024)
        let huge = stream.addUID(16_777_215)
        #expect(stream.uidTableCount == 0, "a UID beyond the limit made the table grow")
        #expect(stream.addUID(16_777_215) != huge, "beyond the limit, a UID is written each time")
        let small = stream.addUID(1000)
        #expect(stream.addUID(1000) == small)
        #expect(stream.uidTableCount <= 1024)
        let data = try stream.finish(topObject: huge)
        #expect(try PropertyList(from: data, format: .binary) == .uid(16_777_215))
    }

    @Test func aTinyXMLArchiveWithAHugeUIDIsRewrittenAsIs() throws {
        let data = Self.archive(rootUID: 16_777_215)
        #expect(data.count < 500)
        let rewritten = try XMLPropertyListReader.binaryPropertyList(
            data, options: PropertyListReadingOptions())
        let value = try PropertyList(from: rewritten, format: .binary)
        #expect(value["$top"]?["root"] == .uid(16_777_215))
        #expect(value == (try PropertyList(from: data)))
        // The rewriting is about as long as the archive's values, not the UID's value.
        #expect(rewritten.count < 400)
    }

    @Test(arguments: edgeValues)
    func everyUIDReadsAndWritesAlike(_ uid: UInt64) throws {
        let data = Self.archive(rootUID: uid)
        guard case .value(let value) = XMLReadingPathsTests.expectAgreement(data, "UID \(uid)") else {
            Issue.record("UID \(uid) did not read")
            return
        }
        #expect(value["$top"]?["root"] == .uid(uid))
        // What `keyed-archive -convert binary1` does.
        let binary = try value.data(format: .binary)
        #expect(try PropertyList(from: binary, format: .binary) == value)
    }

    @Test func theBuilderRemembersUIDsInProportionToItsObjects() throws {
        var builder = BinaryPropertyListBuilder()
        let uid = builder.addUID((1 << 26) - 1)
        #expect(builder.uidTableCount == 0, "a UID of 2^26 - 1 made an empty builder's table grow")
        #expect(builder.addUID((1 << 26) - 1) == uid, "a large UID is still stored once")
        _ = builder.addUID(4000)
        #expect(builder.uidTableCount <= 4096)
        let data = try builder.finish(topObject: uid)
        #expect(data.count < 64)
        #expect(try PropertyList(from: data, format: .binary) == .uid((1 << 26) - 1))
    }

    /// A UID added while beyond the table's reach, then again once the table has grown
    /// past it, is the same object; so is one added within reach after that.
    @Test func aUIDIsStoredOnceWhicheverWayItWasAddedFirst() throws {
        var builder = BinaryPropertyListBuilder()
        let early = builder.addUID(10_000)
        let strings = (0..<3_000).map { builder.addString("s\($0)") }
        #expect(builder.addUID(10_000) == early)
        let small = builder.addUID(7)
        #expect(builder.addUID(7) == small)
        let array = builder.addArray(strings + [early, small])
        let value = try PropertyList(from: builder.finish(topObject: array), format: .binary)
        #expect(value.arrayValue?.suffix(2) == [.uid(10_000), .uid(7)])
    }

    @Test func archivesStillShareTheirUIDs() throws {
        // 500 references to 5 objects: both writers store each UID once (6 objects with
        // the array).
        let uids = (0..<500).map { "<dict><key>CF$UID</key><integer>\($0 % 5)</integer></dict>" }
        let data = Data("<plist><array>\(uids.joined())</array></plist>".utf8)
        let rewritten = try XMLPropertyListReader.binaryPropertyList(
            data, options: PropertyListReadingOptions())
        let written = try PropertyList(from: data).data(format: .binary)
        for binary in [rewritten, written] {
            let trailer = try binary.withUnsafeBytes { try BinaryPropertyListTrailer(validating: $0) }
            #expect(trailer.objectCount == 6)
        }
    }
}

/// A writer whose output cannot grow stops at once and says so when it finishes: it
/// never retries, and never spins doubling a capacity of zero.
@Suite("Hardening: a binary writer out of memory")
struct BinaryWriterOutOfMemoryTests {
    /// Writes 2,000 strings and an array of them; returns the array's object.
    static func fill(_ stream: BinaryPropertyListStream) -> Int {
        var objects: [UInt32] = []
        for index in 0..<2_000 {
            var text = "string number \(index)"
            objects.append(UInt32(text.withUTF8 { stream.addString(utf8: $0) }))
        }
        return objects.withUnsafeBufferPointer { stream.addArray($0) }
    }

    @Test(.timeLimit(.minutes(1)))
    func growingPastTheMaximumLengthStops() {
        let stream = BinaryPropertyListStream(
            expectedBytes: 64, expectedObjects: 4, sharedUIDLimit: 16, maximumLength: 1_000)
        let top = Self.fill(stream)
        let error = #expect(throws: KeyedArchiveError.self) { try stream.finish(topObject: top) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("out of memory") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("at most 1000") == true, "\(error?.message ?? "")")
    }

    @Test(.timeLimit(.minutes(1)))
    func aFailedReallocationStops() {
        let calls = Counter()
        let stream = BinaryPropertyListStream(
            expectedBytes: 64, expectedObjects: 4, sharedUIDLimit: 16,
            reallocate: { pointer, size in
                calls.value += 1
                // The first allocation succeeds, every growth fails.
                return calls.value == 1 ? realloc(pointer, size) : nil
            })
        let top = Self.fill(stream)
        #expect(calls.value == 2, "the writer tried to grow again after it failed")
        let error = #expect(throws: KeyedArchiveError.self) { try stream.finish(topObject: top) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("out of memory") == true, "\(error?.message ?? "")")
    }

    @Test(.timeLimit(.minutes(1)))
    func aFailedFirstAllocationStops() {
        let stream = BinaryPropertyListStream(
            expectedBytes: 64, expectedObjects: 4, sharedUIDLimit: 16, reallocate: { _, _ in nil })
        let top = Self.fill(stream)
        let error = #expect(throws: KeyedArchiveError.self) { try stream.finish(topObject: top) }
        #expect(error?.code == .limitExceeded)
    }

    @Test func withinTheMaximumLengthTheWriterWorks() throws {
        let stream = BinaryPropertyListStream(
            expectedBytes: 64, expectedObjects: 4, sharedUIDLimit: 16, maximumLength: 1 << 20)
        let top = Self.fill(stream)
        let value = try PropertyList(from: stream.finish(topObject: top), format: .binary)
        #expect(value.arrayValue?.count == 2_000)
        #expect(value[1999] == "string number 1999")
    }

    final class Counter: @unchecked Sendable {
        var value = 0
    }
}

/// Whether `<dict>` is a UID is decided by its keys' text, the same way on every path:
/// every key `CF$UID` (duplicates merge, the last value wins) and the last value an
/// integer. The binary rewriting used to compare key objects from a small table that
/// forgets keys, so a dictionary with many keys between two `CF$UID` keys read as a UID
/// on one path and as a dictionary on another.
@Suite("Hardening: CF$UID decided by key text")
struct UIDKeyTextTests {
    /// `count` distinct keys with integer values.
    static func keys(_ count: Int, prefix: String = "k") -> String {
        (0..<count).map { "<key>\(prefix)\($0)</key><integer>\($0)</integer>" }.joined()
    }

    static let many = keys(400)
    static let longKeys = keys(200, prefix: "a key longer than sixteen bytes ")

    static let shapes: [(String, PropertyList?)] = [
        ("<dict><key>CF$UID</key><dict>\(many)</dict><key>CF$UID</key><integer>1</integer></dict>", .uid(1)),
        (
            "<dict><key>CF$UID</key><integer>2</integer><key>CF$UID</key><dict>\(many)</dict>"
                + "<key>CF$UID</key><integer>3</integer></dict>", .uid(3)
        ),
        (
            "<dict><key>CF$UID</key><dict>\(longKeys)</dict><key>CF$UID</key><integer>4</integer></dict>",
            .uid(4)
        ),
        ("<array><dict>\(many)</dict><dict><key>CF$UID</key><integer>5</integer></dict></array>", nil),
        (
            "<array><dict>\(many)</dict><dict><key>CF$UID</key><integer>6</integer>"
                + "<key>CF$UID</key><integer>7</integer></dict></array>", nil
        ),
        ("<dict>\(many)<key>CF$UID</key><integer>8</integer></dict>", nil),
        ("<dict><key>CF$UID</key><integer>9</integer><key>CF$UID</key><dict>\(many)</dict></dict>", nil),
        ("<dict><key>CF$UID</key><dict>\(many)</dict><key>CF$UID</key><string>10</string></dict>", nil),
        ("<dict><key>CF$UID</key><dict>\(many)</dict><key>CF$UID</key><integer>-1</integer></dict>", nil),
        (
            "<dict><key>CF$UID</key><dict>\(many)</dict><key>CF$UID</key> <!-- c --> <integer>11</integer></dict>",
            .uid(11)
        ),
        ("<dict><key>CF$UID</key><dict>\(many)</dict><key>CF$UID </key><integer>12</integer></dict>", nil),
    ]

    @Test(arguments: shapes.indices)
    func everyReadingDecidesAlike(_ index: Int) throws {
        let (body, expected) = Self.shapes[index]
        for document in [body, "<plist version=\"1.0\">\n\(body)\n</plist>\n"] {
            let data = Data(document.utf8)
            let outcome = XMLReadingPathsTests.expectAgreement(data, "shape \(index)")
            #expect(XMLReadingPaths.disagreement(in: data) == nil, "shape \(index)")
            if let expected {
                #expect(outcome == .value(expected), "shape \(index)")
            }
        }
    }

    /// What `KeyedUnarchiver(forReadingFrom:)` reads (the binary rewriting) and what
    /// `PropertyList(from:)` reads are the same value.
    @Test func theRewritingAnArchiveReadsIsTheTree() throws {
        let data =
            Data(
                "<plist><dict><key>$top</key><dict><key>root</key><dict><key>CF$UID</key><dict>\(Self.many)</dict>"
                    .utf8) + Data("<key>CF$UID</key><integer>1</integer></dict></dict></dict></plist>".utf8)
        let tree = try PropertyList(from: data)
        #expect(tree["$top"]?["root"] == .uid(1))
        let rewritten = try XMLPropertyListReader.binaryPropertyList(
            data, options: PropertyListReadingOptions())
        #expect(try PropertyList(from: rewritten, format: .binary) == tree)
    }

    /// Dictionaries of up to 600 keys, `CF$UID` among them at random places with integer
    /// and other values: the readings agree whatever the table of recent keys forgot.
    @Test(arguments: 0..<12)
    func randomDictionariesWithManyKeysReadAlike(_ seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed))
        var entries: [String] = []
        let count = 60 + Int(random.next() % 540)
        for index in 0..<count {
            let key = random.next() % 7 == 0 ? "CF$UID" : "key \(random.next() % 1000) \(index % 3)"
            let value: String
            switch random.next() % 4 {
            case 0: value = "<string>\(index)</string>"
            case 1: value = "<dict><key>CF$UID</key><integer>\(index)</integer></dict>"
            default: value = "<integer>\(random.next() % 100)</integer>"
            }
            entries.append("<key>\(key)</key>\(value)")
        }
        // Sometimes only `CF$UID` keys, with many others in a nested dictionary between.
        let document: String
        if seed % 3 == 0 {
            document =
                "<dict><key>CF$UID</key><dict>\(entries.joined())</dict><key>CF$UID</key><integer>\(seed)</integer></dict>"
        } else {
            document = "<dict>\(entries.joined())</dict>"
        }
        XMLReadingPathsTests.expectAgreement(Data(document.utf8), "seed \(seed)")
    }
}
