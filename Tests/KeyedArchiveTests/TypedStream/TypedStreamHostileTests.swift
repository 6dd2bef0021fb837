import Foundation
import KeyedArchive
import TestSupport
import Testing

/// Hostile typedstreams, built byte by byte: each gives a ``KeyedArchiveError`` saying
/// what and where, in bounded time and memory.
@Suite("Typedstream hostile input")
struct TypedStreamHostileTests {
    /// `streamtyped`, streamer version 4, system version 1000.
    static let header = TypedStreamBytes.header

    /// A group `@` holding a new NSArray (class NSArray v0 < NSObject v0) with count
    /// `count` (group `i`), then `body`. Shared strings: 0 "@", 1 "NSArray", 2 "NSObject",
    /// 3 "i"; objects: 0 the array, 1 class NSArray, 2 class NSObject.
    static func array(count: [UInt8], body: [UInt8]) -> Data {
        var bytes = header + [0x84, 0x01, UInt8(ascii: "@"), 0x84, 0x84, 0x84, 0x07] + Array("NSArray".utf8)
        bytes += [0x00, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85]
        bytes += [0x84, 0x01, UInt8(ascii: "i")] + count + body
        return Data(bytes)
    }

    static func expectError(
        _ data: Data, _ code: KeyedArchiveError.Code, containing text: String? = nil,
        options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try TypedStreamUnarchiver.unarchivedObject(from: data, options: options)
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch let error as KeyedArchiveError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            if let text { #expect(error.message.contains(text), "\(error)", sourceLocation: sourceLocation) }
            #expect(error.location != nil, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a KeyedArchiveError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a well-formed array of one nil-free string decodes (the shape the others break)")
    func baseline() throws {
        // "@", new NSString v1 < NSObject (reference 0x94 = class #2), "+" "a", end; end.
        let body: [UInt8] =
            [0x92, 0x84, 0x84, 0x84, 0x08] + Array("NSString".utf8) + [0x01, 0x94]
            + [0x84, 0x01, UInt8(ascii: "+"), 0x01, UInt8(ascii: "a"), 0x86, 0x86]
        let value = try TypedStreamUnarchiver.unarchivedObject(from: Self.array(count: [0x01], body: body))
        #expect(value as? [String] == ["a"])
    }

    @Test("headers of other formats and versions")
    func headers() {
        Self.expectError(Data(), .corruptData)
        Self.expectError(Data("bplist00".utf8), .unsupportedFormat)
        Self.expectError(
            Data([0x04, 0x0b] + Array("streamtypex".utf8) + [0x00]), .corruptData, containing: "signature")
        Self.expectError(Data([0x04, 0x05]), .corruptData)
        Self.expectError(Data(Self.header), .invalidArchive, containing: "no values")
        #expect(!TypedStreamUnarchiver.isTypedStream(Data("bplist00".utf8)))
    }

    @Test("every truncation of a stream fails cleanly")
    func truncations() {
        let body: [UInt8] =
            [0x92, 0x84, 0x84, 0x84, 0x08] + Array("NSString".utf8) + [0x01, 0x94]
            + [0x84, 0x01, UInt8(ascii: "+"), 0x01, UInt8(ascii: "a"), 0x86, 0x86]
        let whole = Self.array(count: [0x01], body: body)
        for length in 0..<whole.count {
            #expect(throws: KeyedArchiveError.self, "length \(length)") {
                try TypedStreamUnarchiver.unarchivedObject(from: whole.prefix(length))
            }
        }
    }

    @Test("a count beyond the values present is refused before anything is reserved")
    func hugeCount() {
        // Count 0x7fffffff (tag 0x82), no members.
        Self.expectError(
            Self.array(count: [0x82, 0xff, 0xff, 0xff, 0x7f], body: [0x86]), .invalidArchive,
            containing: "claims")
        // A string claiming 4 GB.
        var bytes = Self.header + [0x84, 0x01, UInt8(ascii: "+"), 0x82, 0xff, 0xff, 0xff, 0xff]
        Self.expectError(Data(bytes), .corruptData, containing: "runs past the end")
        // An array type of two billion integers in a few bytes.
        bytes = Self.header + [0x84, 0x0c] + Array("[2000000000i]".utf8.prefix(12)) + [0x01]
        Self.expectError(Data(bytes), .corruptData)
        bytes = Self.header + [0x84, 0x0d] + Array("[2000000000i]".utf8) + [0x01, 0x02]
        Self.expectError(Data(bytes), .limitExceeded, containing: "expansion")
    }

    @Test("arrays of empty structures are bounded by the expansion budget")
    func emptyStructures() {
        let encoding = Array("[1000000{e=}]".utf8)
        let bytes = Self.header + [0x84, UInt8(encoding.count)] + encoding
        var options = TypedStreamUnarchivingOptions()
        options.baseValueAllowance = 1000
        Self.expectError(Data(bytes), .limitExceeded, containing: "expansion", options: options)
    }

    @Test("nesting deeper than the limit")
    func deepNesting() {
        // Each level: "@" (0x92), a new NSArray (class 0x93, "i" 0x95), count 1.
        var body: [UInt8] = [0x92]
        for _ in 0..<2000 { body += [0x84, 0x93, 0x95, 0x01, 0x92] }
        body += [0x85] + [UInt8](repeating: 0x86, count: 2001)
        Self.expectError(Self.array(count: [0x01], body: body), .limitExceeded, containing: "deeper")
        var options = TypedStreamUnarchivingOptions()
        options.maximumDepth = 10_000
        // With a higher limit the stack check still stops it, or it decodes: no crash.
        #expect(throws: KeyedArchiveError.self) {
            try TypedStreamUnarchiver.unarchivedObject(
                from: Self.array(count: [0x01], body: body), options: options)
        }
    }

    @Test("references out of range or to the wrong kind")
    func references() {
        // "@" then a reference to object 40.
        Self.expectError(
            Self.array(count: [0x01], body: [0x92, 0x92 + 40, 0x86]), .corruptData, containing: "out of range"
        )
        // An object reference to class #1.
        Self.expectError(
            Self.array(count: [0x01], body: [0x92, 0x93, 0x86]), .corruptData, containing: "class")
        // A shared-string reference past the table.
        Self.expectError(
            Self.array(count: [0x01], body: [0x92 + 30, 0x86]), .corruptData, containing: "shared string")
    }

    @Test("an array containing itself is a cycle, not a crash")
    func cycle() throws {
        let data = Self.array(count: [0x01], body: [0x92, 0x92, 0x86])
        Self.expectError(data, .unresolvableCycle)
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        #expect(graph.object(at: 0)?.values.last == .object(0))
    }

    @Test("unions, unknown types and bad BOOLs")
    func types() {
        var bytes = Self.header + [0x84, 0x06] + Array("(u=if)".utf8) + [0x01]
        Self.expectError(Data(bytes), .corruptData, containing: "union")
        bytes = Self.header + [0x84, 0x01, UInt8(ascii: "x"), 0x01]
        Self.expectError(Data(bytes), .corruptData, containing: "unknown type")
        bytes = Self.header + [0x84, 0x01, UInt8(ascii: "B"), 0x07]
        Self.expectError(Data(bytes), .corruptData, containing: "BOOL")
    }

    @Test("the object-count limit")
    func objectCount() {
        var options = TypedStreamUnarchivingOptions()
        options.maximumObjectCount = 2
        Self.expectError(
            Self.array(count: [0x00], body: [0x86]), .limitExceeded, containing: "objects", options: options)
    }
}
