import Foundation
import Testing

@testable import KeyedArchive

/// Foundation's `NSKeyedArchiver` on this machine reads the attributed strings we write,
/// and we read the ones it writes.
@Suite struct AttributedStringInteropTests {
    @Test func weReadFoundationsAttributedStrings() throws {
        let source = NSMutableAttributedString(string: "Hello, world")
        source.addAttributes(
            [NSAttributedString.Key("Name"): "bold", NSAttributedString.Key("Weight"): NSNumber(value: 7)],
            range: NSRange(location: 0, length: 5))
        source.addAttribute(
            NSAttributedString.Key("NSLink"), value: NSURL(string: "https://swift.org")!,
            range: NSRange(location: 7, length: 5))
        let data = try NSKeyedArchiver.archivedData(withRootObject: source, requiringSecureCoding: false)
        let text = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data))
        #expect(text.string == "Hello, world")
        #expect(text.isMutable)
        let bold = try #require(text.runs.first)
        #expect(bold.range == 0..<5)
        #expect(bold.attributes["Name"] == .string("bold"))
        #expect(bold.attributes["Weight"] == .integer(7))
        let link = try #require(text.runs.last)
        #expect(link.range == 7..<12)
        #expect(link.attributes["NSLink"] == .url(URL(string: "https://swift.org")!))
    }

    @Test(arguments: [false, true])
    func foundationReadsOurAttributedStrings(_ isMutable: Bool) throws {
        let text = ArchivedAttributedString(
            "0123456789",
            runs: [
                .init(range: 0..<2, attributes: [:]),
                .init(range: 2..<6, attributes: ["Font": .string("Times"), "Size": .integer(456)]),
                .init(range: 6..<10, attributes: ["Link": .url(URL(string: "https://swift.org")!)]),
            ], isMutable: isMutable)
        let data = try KeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: true)
        let classes: [AnyClass] = [
            NSAttributedString.self, NSMutableAttributedString.self, NSString.self, NSNumber.self, NSURL.self,
            NSDictionary.self, NSArray.self,
        ]
        let decoded = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data) as? NSAttributedString)
        #expect(decoded.string == "0123456789")
        #expect((decoded is NSMutableAttributedString) == isMutable)
        var range = NSRange(location: 0, length: 0)
        let middle = decoded.attributes(at: 3, effectiveRange: &range)
        #expect(range == NSRange(location: 2, length: 4))
        #expect(middle[NSAttributedString.Key("Font")] as? String == "Times")
        #expect((middle[NSAttributedString.Key("Size")] as? NSNumber)?.intValue == 456)
        let last = decoded.attributes(at: 8, effectiveRange: &range)
        #expect(range == NSRange(location: 6, length: 4))
        #expect((last[NSAttributedString.Key("Link")] as? URL)?.absoluteString == "https://swift.org")
        #expect(decoded.attributes(at: 0, effectiveRange: nil).isEmpty)
    }

    @Test func foundationReadsASingleRunString() throws {
        let text = ArchivedAttributedString("Succeeded", attributes: ["Name": .string("value")])
        // Written in the run-length form: Foundation on Linux reads no other.
        let data = try KeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: true)
        let decoded = try #require(
            try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSAttributedString.self, NSString.self, NSDictionary.self], from: data)
                as? NSAttributedString)
        var range = NSRange(location: 0, length: 0)
        let attributes = decoded.attributes(at: 0, effectiveRange: &range)
        #expect(range == NSRange(location: 0, length: 9))
        #expect(attributes[NSAttributedString.Key("Name")] as? String == "value")
    }
}

/// Conversion to and from Foundation's `AttributedString`.
@Suite struct AttributedStringConversionTests {
    @Test func linksBecomeFoundationLinksAndTheRestIsKept() throws {
        let font = ArchivedAttributeValue.font(ArchivedFont(name: "Menlo", size: 11))
        let text = ArchivedAttributedString(
            "a 🌍 link",
            runs: [
                .init(range: 0..<5, attributes: ["NSFont": font]),
                .init(
                    range: 5..<9,
                    attributes: ["NSLink": .url(URL(string: "https://swift.org")!), "NSFont": font]),
            ])
        let converted = text.attributedString
        let runs = Array(converted.runs)
        #expect(runs.count == 2)
        #expect(String(converted[runs[1].range].characters) == "link")
        #expect(runs[1].link == URL(string: "https://swift.org"))
        #expect(runs[0][ArchivedAttributedString.OtherAttributes.self]?["NSFont"] == font)
        let back = ArchivedAttributedString(converted)
        #expect(back == text)
    }

    @Test func corelibsFixtureSurvivesTheRoundTrip() throws {
        guard let data = try AppleFixture.data("corelibs_macOS-10.14_NSAttributedString.archive") else {
            return
        }
        let text = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data))
        let back = ArchivedAttributedString(text.attributedString)
        #expect(back.string == text.string)
        #expect(back.runs == text.runs)
    }
}
