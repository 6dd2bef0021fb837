import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// `decode` and `-lint` on typedstreams (`NSArchiver`), detected by their header.
@Suite struct TypedStreamToolTests {
    static func stream() throws -> Data {
        try TypedStreamArchiver.archivedData(withRootObject: ["a", Int32(7), ["k": "v"]] as [Any])
    }

    @Test func decodePrintsTheGraphLikeAKeyedArchive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Self.stream(), to: "value.typedstream")
        let run = ToolRun(["decode", path])
        #expect(run.status == 0)
        #expect(run.error.isEmpty)
        #expect(
            run.outputText == """
                root: NSArray #1
                  $0: 3
                  $1: NSString #4
                    $0: "a"
                  $2: NSNumber #6
                    $0: "i"
                    $1: 7
                  $3: NSDictionary #10
                    $0: 1
                    $1: NSString #12
                      $0: "k"
                    $2: NSString #13
                      $0: "v"

                """)
    }

    @Test func decodeJSON() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Self.stream(), to: "value.typedstream")
        let run = ToolRun(["decode", "--json", path])
        #expect(run.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
        let root = try #require(json["root"] as? [String: Any])
        #expect(root["$class"] as? String == "NSArray")
        #expect((root["$$1"] as? [String: Any])?["$$0"] as? String == "a")
    }

    @Test func lintChecksTypedStreams() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = try Self.stream()
        let good = try directory.write(data, to: "good.typedstream")
        let trailing = try directory.write(data + Data([0xff, 0xfe]), to: "trailing.typedstream")
        let bad = try directory.write(data.prefix(data.count - 3), to: "bad.typedstream")
        let run = ToolRun(["-lint", good, trailing, bad])
        #expect(run.status == 1)
        #expect(
            run.outputLines == [
                "\(good): OK (typedstream)",
                "\(trailing): OK (typedstream; ignored 2 bytes after the last value)",
            ])
        #expect(run.errorLines.count == 1)
        #expect(run.errorLines.first?.hasPrefix("\(bad): byte ") == true)
    }

    @Test func printAndConvertRefuseTypedStreams() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Self.stream(), to: "value.typedstream")
        for arguments in [["-p", path], ["-convert", "xml1", "-o", "-", path]] {
            let run = ToolRun(arguments)
            #expect(run.status == 1)
            #expect(run.error.contains("typedstream"))
        }
    }
}
