import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// The worked example of Documentation/CommandLineTool.md ("Forensic reading"), on the
/// iOS-style extract in Tests/Samples/iOSExtract.
@Suite struct ForensicExampleTests {
    static let mobile: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Samples/iOSExtract/private/var/mobile").path
    }()

    static let notes =
        mobile
        + "/Containers/Data/Application/5A1B2C3D-0000-4000-8000-000000000001/Library/Notes/notes.archive"
    static let preferences =
        mobile
        + "/Containers/Data/Application/5A1B2C3D-0000-4000-8000-000000000001/Library/Preferences/com.example.Notes.plist"

    @Test func sweepFindsThreeFailures() throws {
        let run = ToolRun(["decode", "--jsonl", Self.mobile])
        #expect(run.status == 1)
        let lines = try run.outputLines.map { try JSONValueReader.read($0) }
        #expect(lines.count == 5)
        let failures = lines.filter { $0["error"] != nil }.compactMap { line -> String? in
            guard let path = line["path"]?.stringValue, let error = line["error"]?.stringValue else {
                return nil
            }
            return "\(path.dropFirst(Self.mobile.count)): \(error)"
        }
        #expect(
            failures == [
                "/Library/Caches/draft.archive: not a readable keyed archive: $objects[1].body: object reference 40 is out of range (4 objects)",
                "/Library/Caches/thumbnail.bin: line 1, column 1: invalid UTF-8 (byte 0x89)",
                "/Library/NanoRegistry/pairing.archive: not a readable keyed archive: $archiver: $archiver is \"NRKeyedArchiver\", expected \"NSKeyedArchiver\"",
            ])
    }

    @Test func sweepExpandsNestedPropertyLists() throws {
        let run = ToolRun(["decode", "--jsonl", "--expand", Self.preferences, Self.notes])
        #expect(run.status == 0)
        let lines = try run.outputLines.map { try JSONValueReader.read($0) }
        #expect(
            lines.first?["result"]?["LastState"] == [
                "$expanded": "property list", "$value": ["scroll": 0.25, "selected": 2],
            ])
        let attachment = lines.last?["result"]?["root"]?["NS.objects"]?[0]?["attachment"]?["NS.data"]
        #expect(attachment?["$value"]?["root"]?["name"] == "Garden shed")
    }

    @Test func recoverReadsTheDamagedAndTheUnusual() {
        let draft = Self.mobile + "/Library/Caches/draft.archive"
        let pairing = Self.mobile + "/Library/NanoRegistry/pairing.archive"
        let run = ToolRun(["decode", "--recover", draft, pairing])
        #expect(run.status == 0)
        #expect(
            run.outputText == """
                ==> \(draft) <==
                root: Note #1
                  body: → #40 (missing)
                  title: "Half a note"
                ==> \(pairing) <==
                device: NRDevice #1
                  name: "Ada's Watch"
                  paired: true

                """)
        #expect(
            run.errorLines == [
                "\(draft): problem: $objects[1].body: object reference 40 is out of range (4 objects)",
                "\(pairing): problem: $archiver: $archiver is \"NRKeyedArchiver\", expected \"NSKeyedArchiver\"",
            ])
    }

    @Test func expandShowsTheAttachment() {
        let run = ToolRun(["decode", "--expand", Self.notes])
        #expect(run.status == 0)
        #expect(
            run.outputText.hasSuffix(
                """
                root.0.attachment.NS\\.data ⇒ keyed archive (271 bytes):
                  root: Place #1
                    latitude: 51.5
                    longitude: -0.12
                    name: "Garden shed"

                """))
    }

    @Test func singleValues() {
        #expect(
            ToolRun(["decode", "--path", "root.0.title", Self.notes]).outputText
                == "root.0.title: \"Potato bugs\"\n")
        #expect(
            ToolRun(["-extract", "root.2.created", "raw", "--resolve", Self.notes]).outputText
                == "2024-07-03T06:45:00Z\n")
        #expect(ToolRun(["-extract", "NoteCount", "raw", Self.preferences]).outputText == "3\n")
    }
}
