import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import PropertyListFormats

/// The XML reader has one scanner and two ways through it, and two builders:
///
/// - the quick reading of values laid out as writers lay them out, which gives up on
///   anything else, and the general reading, which alone decides errors;
/// - a ``PropertyList`` tree, and a binary property list written as the document is read
///   (how the keyed unarchiver opens XML archives).
///
/// Every combination must accept the same documents with the same value and refuse the
/// same documents with the same error.
@Suite struct XMLReadingPathsTests {
    /// What reading a document gave: its value, or its error's description.
    enum Outcome: Equatable, CustomStringConvertible {
        case value(PropertyList)
        case error(String)

        var description: String {
            switch self {
            case .value(let value): return "value \(value)"
            case .error(let message): return "error \(message)"
            }
        }
    }

    static func outcome(_ body: () throws -> PropertyList) -> Outcome {
        do {
            return .value(try body())
        } catch {
            return .error(String(describing: error))
        }
    }

    /// Checks that the four readings of `bytes` agree, and returns the outcome.
    @discardableResult
    static func expectAgreement(
        _ bytes: Data, options: PropertyListReadingOptions = PropertyListReadingOptions(), _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Outcome {
        let general = outcome { try XMLPropertyListReader.read(bytes, options: options, quickly: false) }
        let quick = outcome { try XMLPropertyListReader.read(bytes, options: options, quickly: true) }
        #expect(
            quick == general, "\(name): quick and general tree readings differ",
            sourceLocation: sourceLocation)
        for quickly in [false, true] {
            let binary = outcome {
                let converted = try XMLPropertyListReader.binaryPropertyList(
                    bytes, options: options, quickly: quickly)
                return try PropertyList(from: converted, format: .binary)
            }
            #expect(
                binary == general, "\(name): the binary rewriting (quickly: \(quickly)) differs",
                sourceLocation: sourceLocation)
        }
        return general
    }

    @Test(arguments: 0..<24)
    func generatedDocumentsReadAlike(_ seed: Int) throws {
        var generator = ValueGenerator(seed: UInt64(seed) &+ 5000)
        let value = generator.value(depth: 0)
        for sortsKeys in [true, false] {
            let data = try value.data(format: .xml, options: PropertyListWritingOptions(sortsKeys: sortsKeys))
            #expect(Self.expectAgreement(data, "seed \(seed)") == .value(value))
        }
    }

    @Test(arguments: 0..<6)
    func mutatedDocumentsReadAlike(_ seed: Int) throws {
        var generator = ValueGenerator(seed: UInt64(seed) &+ 7000)
        let original = [UInt8](try generator.value(depth: 0).data(format: .xml))
        var outcomes = (values: 0, errors: 0)
        for trial in 0..<100 {
            let bytes = XMLPropertyListMutationTests.mutated(original, &generator)
            switch Self.expectAgreement(Data(bytes), "seed \(seed) trial \(trial)") {
            case .value: outcomes.values += 1
            case .error: outcomes.errors += 1
            }
        }
        #expect(outcomes.values > 0 && outcomes.errors > 0)
    }

    /// Forms at the edges of the quick reading: each is read quickly or handed to the
    /// general reading, and must come out the same either way.
    @Test(
        arguments: [
            "<dict><key>a</key><string>x &amp; y</string></dict>",
            "<dict><key>a&lt;</key><string>x</string></dict>",
            "<dict><key>a</key><!-- c --><string>x</string></dict>",
            "<dict ><key>a</key><string>x</string></dict >",
            "<dict><key>a</key><string>x</string ></dict>",
            "<dict><key>a</key><string>x</string><key>a</key><integer>2</integer></dict>",
            "<dict><key>CF$UID</key><integer>3</integer><key>CF$UID</key><integer>4</integer></dict>",
            "<dict><key>CF$UID</key><integer>3</integer><key>CF$UID</key><string>4</string></dict>",
            "<dict><key>CF$UID</key><integer>-3</integer></dict>",
            "<dict><key>CF$UID</key><integer>99999999999999999999</integer></dict>",
            "<dict><key>CF$UID</key><integer>1</integer><key>b</key><true/></dict>",
            "<array><dict><key>CF$UID</key><integer>7</integer></dict><dict/><array/><string/></array>",
            "<array><true></true><false/><key/></array>",
            "<array><real>nan</real><real>-0.0</real><real>1e400</real><integer>-170141183460469231731687303715884105728</integer></array>",
            "<array><date>2001-01-01T00:00:00Z</date><date> 1999-12-31T23:59:59Z </date><date>bad</date></array>",
            "<array><data>AAEC</data><data>\n\tAAEC\n</data><data>A=A</data></array>",
            "<array><string>é世😀</string><string><![CDATA[<x>]]></string><string>&#x1F600;</string></array>",
            "<dict><key></key><string>empty key</string><key/><string>empty again</string></dict>",
            "<dict><key>same</key><string>1</string><key>same</key><string>2</string><key>same</key><string>3</string></dict>",
            "<array><integer>1</integer>",
            "<array><string>unterminated",
            "<dict><key>a</key></dict>",
            "<dict><string>a</string></dict>",
            "<array></dict>",
        ])
    func edgeFormsReadAlike(_ body: String) {
        for document in [
            "<plist version=\"1.0\">\(body)</plist>",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n\(body)\n</plist>\n", body,
        ] {
            Self.expectAgreement(Data(document.utf8), body)
        }
    }

    @Test func limitsAreReachedAlike() throws {
        let nested = String(repeating: "<array>", count: 20) + String(repeating: "</array>", count: 20)
        let uids =
            "<array>" + String(repeating: "<dict><key>CF$UID</key><integer>1</integer></dict>", count: 50)
            + "</array>"
        for depth in [1, 2, 19, 20, 21] {
            var options = PropertyListReadingOptions()
            options.maximumDepth = depth
            Self.expectAgreement(Data(nested.utf8), options: options, "depth \(depth)")
            Self.expectAgreement(Data(uids.utf8), options: options, "UIDs at depth \(depth)")
        }
        for budget in [0, 1, 50, 100, 101, 102] {
            var options = PropertyListReadingOptions()
            options.baseValueAllowance = budget
            options.maximumExpansionFactor = 0
            Self.expectAgreement(Data(uids.utf8), options: options, "budget \(budget)")
        }
    }

    @Test func largeCountsAndWideValuesReadAlike() throws {
        // Counts past 15, 255 and 65,535 take extended headers in the binary rewriting; UIDs
        // and integers take every width; non-ASCII strings become UTF-16.
        var elements = (0..<70_000).map {
            "<dict><key>CF$UID</key><integer>\($0 * 977 % 70_001)</integer></dict>"
        }
        elements.append("<string>" + String(repeating: "long text ", count: 7_000) + "</string>")
        elements.append("<string>" + String(repeating: "é世😀", count: 5_000) + "</string>")
        elements.append("<integer>18446744073709551615</integer><integer>-9223372036854775808</integer>")
        elements.append("<dict><key>CF$UID</key><integer>4294967296</integer></dict>")
        let entries = (0..<300).map { "<key>k\($0)</key><integer>\($0 * 1_000_003)</integer>" }.joined()
        elements.append("<dict>\(entries)</dict>")
        let document = "<plist version=\"1.0\"><array>\(elements.joined(separator: "\n"))</array></plist>"
        guard case .value(.array(let read)) = Self.expectAgreement(Data(document.utf8), "large counts") else {
            Issue.record("the large document did not read")
            return
        }
        #expect(read.count == 70_006)
    }

    /// The quick reading checks UTF-8 as it reads (text it passes over, then the prolog and
    /// the end tag after it), the general reading once it has read: an invalid byte
    /// anywhere up to the end of the root element, or up to where the reading failed, must
    /// be the error reported, before any other; after the root element, nothing is checked.
    /// (A NUL is read as written in text, and refused elsewhere.)
    @Test(
        arguments: [
            [0xFF], [0xC3], [0xC3, 0xA9], [0xE4, 0xB8, 0x96], [0xED, 0xA0, 0x80], [0x00], [0x41, 0x00],
        ]
            as [[UInt8]])
    func bytesAnywhereReadAlike(_ inserted: [UInt8]) throws {
        let documents = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- c --><plist version=\"1.0\"><dict><key>k</key>"
                + "<string>text</string><key>n</key><array><integer>1</integer><real>2.5</real>"
                + "<date>2001-01-01T00:00:00Z</date><data>AAEC</data><dict><key>CF$UID</key><integer>3</integer>"
                + "</dict></array></dict></plist>\n<!-- end -->\n",
            // With a structural error after (and before) the insertion points.
            "<plist><array><string>abc</string><string>def</string></array><oops/></plist>",
        ]
        for document in documents {
            let bytes = Array(document.utf8)
            for position in 0...bytes.count {
                var changed = bytes
                changed.insert(contentsOf: inserted, at: position)
                Self.expectAgreement(Data(changed), "\(inserted) at \(position)")
            }
        }
    }

    @Test func documentsEndingAnywhereReadAlike() throws {
        // Every prefix of a small archive-like document: end tags near the end of the
        // input are where the quick reading's word loads stop.
        let document =
            "<plist version=\"1.0\"><dict><key>$objects</key><array><string>$null</string><dict><key>$class</key>"
            + "<dict><key>CF$UID</key><integer>2</integer></dict><key>w</key><real>1.5</real></dict>"
            + "<dict><key>$classname</key><string>C</string></dict></array></dict></plist>"
        let bytes = Array(document.utf8)
        for end in 0...bytes.count {
            Self.expectAgreement(Data(bytes[..<end]), "prefix of \(end) bytes")
        }
    }
}
