import Foundation
import KeyedArchive
import Testing

/// Bytes and the format `PropertyListFormat.detect` must report for them.
struct DetectionCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let format: PropertyListFormat

    init(_ name: String, _ text: String, _ format: PropertyListFormat) {
        self.init(name, bytes: Array(text.utf8), format)
    }

    init(_ name: String, bytes: [UInt8], _ format: PropertyListFormat) {
        self.name = name
        self.bytes = bytes
        self.format = format
    }

    var testDescription: String { name }
}

@Suite struct FormatDetectionTests {
    static let utf8BOM: [UInt8] = [0xEF, 0xBB, 0xBF]

    static func utf16(_ text: String, bigEndian: Bool, byteOrderMark: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = byteOrderMark ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
        for unit in text.utf16 {
            let high = UInt8(unit >> 8)
            let low = UInt8(unit & 0xFF)
            bytes += bigEndian ? [high, low] : [low, high]
        }
        return bytes
    }

    static let xmlHeader =
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<plist version=\"1.0\"><true/></plist>"

    static let cases: [DetectionCase] = [
        // Binary
        DetectionCase("bplist00 header", bytes: Array("bplist00".utf8) + [0x08, 0, 0], .binary),
        DetectionCase("bplist prefix with another version", "bplist15", .binary),
        DetectionCase("just the magic", "bplist", .binary),
        DetectionCase("whitespace before bplist is not binary", " bplist00", .openStep),
        DetectionCase("truncated magic", "bplis", .openStep),

        // XML
        DetectionCase("XML declaration", xmlHeader, .xml),
        DetectionCase("XML with UTF-8 byte-order mark", bytes: utf8BOM + Array(xmlHeader.utf8), .xml),
        DetectionCase("XML after whitespace", " \n\t\r\n" + xmlHeader, .xml),
        DetectionCase("DOCTYPE first", "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"x\">", .xml),
        DetectionCase("comment first", "<!-- made by hand --><plist/>", .xml),
        DetectionCase("plist element first", "<plist version=\"1.0\"><string>x</string></plist>", .xml),
        DetectionCase("bare array element", "<array><string>a</string></array>", .xml),
        DetectionCase("bare dict element", "<dict/>", .xml),
        DetectionCase("bare data element", "<data>AAA=</data>", .xml),
        DetectionCase("bare date element", "<date>2001-01-01T00:00:00Z</date>", .xml),
        DetectionCase("bare integer element", "<integer>1</integer>", .xml),
        DetectionCase("UTF-16BE with byte-order mark", bytes: utf16(xmlHeader, bigEndian: true), .xml),
        DetectionCase("UTF-16LE with byte-order mark", bytes: utf16(xmlHeader, bigEndian: false), .xml),
        DetectionCase(
            "UTF-16LE with byte-order mark and whitespace",
            bytes: utf16("\n  " + xmlHeader, bigEndian: false),
            .xml),
        DetectionCase(
            "UTF-16BE without byte-order mark",
            bytes: utf16(xmlHeader, bigEndian: true, byteOrderMark: false),
            .xml),
        DetectionCase(
            "UTF-16LE without byte-order mark",
            bytes: utf16(xmlHeader, bigEndian: false, byteOrderMark: false),
            .xml),

        // OpenStep
        DetectionCase("dictionary", "{ a = b; }", .openStep),
        DetectionCase("array", "(a, b)", .openStep),
        DetectionCase("double-quoted string", "\"s\"", .openStep),
        DetectionCase("single-quoted string", "'s'", .openStep),
        DetectionCase("bare word", "word", .openStep),
        DetectionCase("strings file", "\"k\" = \"v\";", .openStep),
        DetectionCase("comment first", "/* <plist> */ (a)", .openStep),
        DetectionCase("data", "<0a>", .openStep),
        DetectionCase("data with spaces", "< 0a 0b >", .openStep),
        DetectionCase("data of hex letters", "<abc>", .openStep),
        DetectionCase("data of hex letters that looks like a word", "<face>", .openStep),
        DetectionCase("uppercase data", "<ABCDEF0123>", .openStep),
        DetectionCase("empty data", "<>", .openStep),
        DetectionCase("data after whitespace", "\n\t<00ff>", .openStep),
        DetectionCase(
            "data longer than the examined prefix", "<" + String(repeating: "0a", count: 1000) + ">",
            .openStep),
        DetectionCase("truncated data", "<0a", .openStep),
        DetectionCase("lone angle bracket", "<", .openStep),
        DetectionCase(
            "dictionary with UTF-8 byte-order mark", bytes: utf8BOM + Array("{a=b;}".utf8), .openStep),
        DetectionCase("dictionary in UTF-16BE", bytes: utf16("{ a = b; }", bigEndian: true), .openStep),
        DetectionCase("dictionary in UTF-16LE", bytes: utf16(" ( a )", bigEndian: false), .openStep),
        DetectionCase("data in UTF-16LE", bytes: utf16("<abc0>", bigEndian: false), .openStep),
        DetectionCase("empty input", "", .openStep),
        DetectionCase("only whitespace", " \n ", .openStep),
    ]

    @Test(arguments: cases)
    func detectsTheFormat(_ testCase: DetectionCase) {
        #expect(PropertyListFormat.detect(testCase.bytes) == testCase.format, "\(testCase.name)")
        #expect(
            PropertyListFormat.detect(Data(testCase.bytes)) == testCase.format, "\(testCase.name) as Data")
    }

    @Test func detectsInASliceWithAnOffsetStart() {
        let data = Data(Array("xxxx<array/>".utf8))
        #expect(PropertyListFormat.detect(data[4...]) == .xml)
        #expect(PropertyListFormat.detect(data[4...].dropLast(8)) == .openStep)  // just "<"
        let bytes = Array("(a)  <plist/>".utf8)
        #expect(PropertyListFormat.detect(bytes[5...]) == .xml)
        #expect(PropertyListFormat.detect(bytes[..<3]) == .openStep)
    }
}
