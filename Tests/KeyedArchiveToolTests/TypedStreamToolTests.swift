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

    @Test func convertKeyedWritesTheKeyedArchiveInPlaceAndBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Self.stream(), to: "value.archive")
        let run = ToolRun(["-convert", "keyed", path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.isEmpty)
        let keyed = try directory.read("value.archive")
        #expect(keyed.starts(with: Array("bplist00".utf8)))
        let unarchiver = try KeyedUnarchiver(forReadingFrom: keyed)
        unarchiver.requiresSecureCoding = false
        let root = try #require(try unarchiver.decodeObject(forKey: "root") as? [Any])
        #expect(root.count == 3)
        #expect(root[0] as? String == "a")
        #expect(root[1] as? Int == 7)
        #expect((root[2] as? [String: Any])?["k"] as? String == "v")
        // Apple's NSArray and NSDictionary fields, not the generic $0, $1.
        let objects = try #require(
            try PropertyList(from: keyed)["$objects"].flatMap { value -> [PropertyList]? in
                if case .array(let items) = value { return items }
                return nil
            })
        let keys = objects.flatMap { item -> [String] in
            if case .dictionary(let fields) = item { return Array(fields.keys) }
            return []
        }
        #expect(keys.contains("NS.objects") && keys.contains("NS.keys"))
        #expect(!keys.contains("$0"))

        // A keyed archive asked to be keyed is written as it is; back to a typedstream with -e.
        #expect(ToolRun(["-convert", "keyed", path]).status == 0)
        let rewritten = try directory.read("value.archive")
        #expect(rewritten.starts(with: Array("bplist00".utf8)))
        func rootText(_ data: Data) throws -> String {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            return String(describing: try unarchiver.decodeObject(forKey: "root"))
        }
        #expect(try rootText(rewritten) == (try rootText(keyed)))
        let back = ToolRun(["-convert", "typedstream", "-e", "typedstream", path])
        #expect(back.status == 0, "\(back.error)")
        let stream = try directory.read("value.typedstream")
        #expect(TypedStreamUnarchiver.isTypedStream(stream))
        let value = try #require(try TypedStreamUnarchiver.unarchivedObject(from: stream) as? [Any])
        #expect(value[0] as? String == "a")
        #expect((value[2] as? [String: Any])?["k"] as? String == "v")
    }

    @Test func convertKeyedToStandardOutputAndRefusals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(try Self.stream(), to: "value.typedstream")
        let out = ToolRun(["-convert", "keyed", "-o", "-", path])
        #expect(out.status == 0)
        #expect(try KeyedUnarchiver.objectGraph(from: out.output).root != nil)
        #expect(try directory.read("value.typedstream") == (try Self.stream()))

        // A class without a keyed form: refused, named, the file untouched.
        let graph = TypedStreamGraph(
            nodes: [
                .object(
                    .init(
                        classIndex: 1, className: "Marker",
                        groups: [.init(encoding: "i", values: [.integer(7)])])),
                .class(.init(name: "Marker", version: 2, superclassIndex: 2)),
                .class(.init(name: "NSObject", version: 0, superclassIndex: nil)),
            ],
            contents: [.init(encoding: "@", values: [.object(0)])])
        let marker = try TypedStreamArchiver.archivedData(of: graph)
        let markerPath = try directory.write(marker, to: "marker.typedstream")
        let refused = ToolRun(["-convert", "keyed", markerPath])
        #expect(refused.status == 1)
        #expect(
            refused.error
                == "\(markerPath): cannot convert to keyed: root: object #0 (Marker): class Marker < NSObject has no keyed form\n"
        )
        #expect(try directory.read("marker.typedstream") == marker)

        // A property list that is no archive.
        let plainValue: PropertyList = ["a": 1]
        let plist = try directory.write(try plainValue.data(format: .xml), to: "plain.plist")
        let plain = ToolRun(["-convert", "typedstream", plist])
        #expect(plain.status == 1)
        #expect(plain.error.contains("neither a typedstream (NSArchiver) nor a keyed archive"))
    }
}
