import Foundation
import KeyedArchive
import Testing

/// `IMessageBody`: one call from an `attributedBody` blob to the text and what its runs
/// mean, checked on Messages' own blobs (the crabstep fixtures).
@Suite("iMessage bodies")
struct IMessageBodyTests {
    static var available: Bool { TypedStreamFixtureTests.names.contains("crabstep_Mention") }

    static func body(_ name: String) throws -> IMessageBody {
        try IMessageBody(attributedBody: try TypedStreamFixtureTests.data(name))
    }

    @Test("mentions and message parts", .enabled(if: available))
    func mention() throws {
        let body = try Self.body("crabstep_Mention")
        #expect(body.text == "Test Dad ")
        #expect(body.runs.map(\.range) == [0..<5, 5..<8, 8..<9])
        #expect(body.runs[1].text == "Dad")
        #expect(body.runs[1].mention == "+15558675309")
        #expect(body.runs[0].mention == nil)
        #expect(body.runs.map(\.messagePart) == [0, 0, 0])
    }

    @Test("attachments", .enabled(if: available))
    func attachment() throws {
        let body = try Self.body("crabstep_Attachment")
        #expect(body.text.hasPrefix("\u{FFFC}This is how the notes look"))
        #expect(body.runs.first?.attachmentGUID == "at_0_2E5F12C3-E649-48AA-954D-3EA67C016BCC")
        #expect(body.runs.first?.attachmentFilename == "Messages Image(785748029).png")
        #expect(body.runs.first?.attributes["__kIMInlineMediaHeightAttributeName"] == .real(1139))
        #expect(body.runs.map(\.messagePart) == [0, 1])
    }

    @Test("links and data detection", .enabled(if: available))
    func link() throws {
        let body = try Self.body("crabstep_URL")
        #expect(body.runs.first?.link?.absoluteString == "https://github.com/ReagentX/Logria")
        #expect(body.runs.first?.isDataDetected == true)
        // The detector's result is a keyed archive inside the data.
        guard case .data(let archive)? = body.runs.first?.attributes["__kIMDataDetectedAttributeName"] else {
            Issue.record("no data-detector result")
            return
        }
        let graph = try KeyedUnarchiver.objectGraph(from: archive)
        #expect(graph.description.contains("DDScannerResult"))
    }

    @Test("text styles and effects", .enabled(if: available))
    func styles() throws {
        let styled = try Self.body("crabstep_TextStyles")
        #expect(styled.runs[0].text == "Bold")
        #expect(styled.runs[0].styles == .bold)
        #expect(styled.runs[2].text == "underline")
        #expect(styled.runs[2].styles == .underline)
        #expect(styled.runs[4].styles == .italic)
        #expect(styled.runs.contains { $0.styles == [.bold, .italic, .underline, .strikethrough] })
        let effects = try Self.body("crabstep_TextEffects")
        // Messages gives the spaces between words the effect of a neighbour: keep words.
        let named = effects.runs.compactMap { run in
            run.textEffectName.map { ($0, run.text.trimmingCharacters(in: .whitespaces)) }
        }.filter { !$0.1.isEmpty }
        #expect(named.map(\.0) == ["big", "small", "shake", "nod", "explode", "ripple", "bloom", "jitter"])
        #expect(named.map { $0.1.lowercased() } == named.map(\.0))
    }

    @Test("a blob that is not an attributed string", .enabled(if: available))
    func notAttributed() throws {
        #expect(throws: KeyedArchiveError.self) {
            try Self.body("crabstep_foundation_NSArray")
        }
    }
}
