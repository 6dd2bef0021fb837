import Foundation
import KeyedArchive
import KeyedArchiveFoundation
import Testing

/// `KeyedArchiveFoundation`: conversions to and from full Foundation's
/// `NSAttributedString` and `PersonNameComponents`.
@Suite struct NSAttributedStringBridgeTests {
    static let sample = ArchivedAttributedString(
        "Hello, world!",
        runs: [
            .init(
                range: 0..<5,
                attributes: [
                    "NSFont": .font(ArchivedFont(name: "Helvetica-Bold", size: 12)),
                    "NSColor": .color(ArchivedColor(red: 1, green: 0, blue: 0)),
                ]),
            .init(
                range: 5..<7, attributes: ["Weight": .integer(3), "Ratio": .real(0.5), "Flag": .bool(true)]),
            .init(range: 7..<12, attributes: ["NSLink": .url(URL(fileURLWithPath: "/swift.org"))]),
            .init(range: 12..<13, attributes: ["Tags": .array([.string("a"), .string("b")])]),
        ])

    @Test func toFoundationKeepsWhatItCannotRepresent() throws {
        let foundation = Self.sample.nsAttributedString
        #expect(foundation.string == "Hello, world!")
        #expect(!(foundation is NSMutableAttributedString))
        let font = foundation.attribute(NSAttributedString.Key("NSFont"), at: 0, effectiveRange: nil)
        #expect(font as? ArchivedAttributeValue == .font(ArchivedFont(name: "Helvetica-Bold", size: 12)))
        var range = NSRange(location: 0, length: 0)
        let link = foundation.attribute(NSAttributedString.Key("NSLink"), at: 8, effectiveRange: &range)
        #expect((link as? URL)?.path == "/swift.org")
        #expect(range == NSRange(location: 7, length: 5))
        #expect(
            (foundation.attribute(NSAttributedString.Key("Weight"), at: 5, effectiveRange: nil) as? NSNumber)?
                .intValue == 3)
        #expect(
            foundation.attribute(NSAttributedString.Key("Tags"), at: 12, effectiveRange: nil) as? [String]
                == ["a", "b"])
    }

    @Test func roundTripIsLossless() throws {
        let back = try ArchivedAttributedString(Self.sample.nsAttributedString)
        #expect(back == Self.sample)
        var mutable = Self.sample
        mutable.isMutable = true
        let foundation = mutable.nsAttributedString
        #expect(foundation is NSMutableAttributedString)
        #expect(try ArchivedAttributedString(foundation) == mutable)
    }

    @Test func fromFoundationAttributes() throws {
        let text = NSMutableAttributedString(string: "abc def")
        text.addAttribute(
            NSAttributedString.Key("NSLink"), value: URL(fileURLWithPath: "/example"),
            range: NSRange(location: 0, length: 3))
        text.addAttribute(
            NSAttributedString.Key("Count"), value: NSNumber(value: 7), range: NSRange(location: 4, length: 3)
        )
        text.addAttribute(NSAttributedString.Key("Title"), value: "x", range: NSRange(location: 4, length: 3))
        let archived = try ArchivedAttributedString(text)
        #expect(archived.isMutable)
        #expect(archived.runs.count == 3)
        #expect(archived.runs[0].attributes["NSLink"] == .url(URL(fileURLWithPath: "/example")))
        #expect(archived.runs[1].range == 3..<4 && archived.runs[1].attributes.isEmpty)
        #expect(archived.runs[2].attributes == ["Count": .integer(7), "Title": .string("x")])
        // What Foundation's own unarchiver reads back from our archive.
        let data = try KeyedArchiver.archivedData(withRootObject: archived, requiringSecureCoding: true)
        let read = try #require(
            try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [
                    NSAttributedString.self, NSMutableAttributedString.self, NSURL.self, NSNumber.self,
                    NSString.self,
                ],
                from: data) as? NSAttributedString)
        #expect(read.string == "abc def")
        #expect(
            (read.attribute(NSAttributedString.Key("NSLink"), at: 1, effectiveRange: nil) as? URL)?.path
                == "/example")
    }

    @Test func unarchivableAttributeFails() {
        struct Opaque {}
        let text = NSMutableAttributedString(string: "abc")
        text.addAttribute(
            NSAttributedString.Key("Opaque"), value: Opaque(), range: NSRange(location: 0, length: 1))
        #expect(throws: KeyedArchiveError.self) { try ArchivedAttributedString(text) }
    }

    @Test func personNameComponents() throws {
        var name = PersonNameComponents()
        name.givenName = "Ada"
        name.familyName = "Lovelace"
        var phonetic = PersonNameComponents()
        phonetic.givenName = "エイダ"
        name.phoneticRepresentation = phonetic
        let archived = ArchivedPersonNameComponents(name)
        #expect(archived[.givenName] == "Ada")
        let data = try KeyedArchiver.archivedData(withRootObject: archived, requiringSecureCoding: true)
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPersonNameComponents.self, from: data))
        #expect(read.personNameComponents == name)
    }
}
