import Foundation
import Testing

@testable import ArchivedAppleClasses
@testable import KeyedArchive

/// Affine transforms, date and name components, text-checking results and formatters:
/// Apple's fixtures, and Foundation on this machine both ways where it has the class.
@Suite struct MoreAppleClassTests {
    static let macOS = "corelibs_macOS-10.14_"

    /// Object 1 (the root) of a fixture decoded as a `T`, with the fixture's tree.
    static func fixture<T: KeyedCoding>(_ name: String, as type: T.Type) throws -> (T, PropertyList)? {
        guard let data = try AppleFixture.data(macOS + name + ".archive") else { return nil }
        guard let value = try KeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data) else {
            throw AppleFixture.Failure("\(name) decoded as nil")
        }
        let archive = try PropertyList(from: data)
        guard let root = archive["$top"]?["root"]?.uidValue else { throw AppleFixture.Failure("no root") }
        return (value, AppleFixture.tree(of: Int(root), in: archive))
    }

    /// Whether `value` writes the same object tree (objects, fields, class chains) as `tree`.
    static func writesBack(_ value: some KeyedCoding, as tree: PropertyList) throws -> Bool {
        let written = try KeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        return try AppleFixture.rootTree(written) == tree
    }

    static func archive(_ value: some KeyedCoding) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
    }

    // MARK: NSAffineTransform

    @Test(arguments: [
        (ArchivedAffineTransform(m11: 1, m12: 0.5, m21: -0.5, m22: 1, tX: 3, tY: 4), 24, nil as UInt8?),
        (ArchivedAffineTransform(m11: 2, m12: 0, m21: 0, m22: 3, tX: 5, tY: 6), 16, nil),
        (ArchivedAffineTransform(m11: 2, m12: 0, m21: 0, m22: 3, tX: 0, tY: 0), 9, 2),
        (ArchivedAffineTransform(m11: 1, m12: 0, m21: 0, m22: 1, tX: 7, tY: -8), 9, 1),
    ])
    func affineTransformForms(_ transform: ArchivedAffineTransform, _ length: Int, _ tag: UInt8?) throws {
        let data = try Self.archive(transform)
        let object = try #require(PropertyList(from: data)["$objects"]?.arrayValue?[1])
        let bytes = try #require(object["NSTransformStruct"]?.dataValue)
        #expect(bytes.count == length)
        if let tag { #expect(bytes.first == tag) }
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAffineTransform.self, from: data)
                == transform)
    }

    @Test func affineTransformBytesAreBigEndianFloats() throws {
        let scale = ArchivedAffineTransform(m11: 2, m12: 0, m21: 0, m22: 3, tX: 0, tY: 0)
        #expect(scale.transformStruct == [2, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0])
        #expect(ArchivedAffineTransform.identity.transformStruct == nil)
        let data = try Self.archive(ArchivedAffineTransform.identity)
        let object = try #require(PropertyList(from: data)["$objects"]?.arrayValue?[1])
        #expect(object["NSTransformStruct"] == nil)
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAffineTransform.self, from: data)
                == .identity)
        #expect(scale.description == "[2 0 0 3 0 0]")
    }

    @Test func affineTransformRejectsOtherLengths() throws {
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["NSTransformStruct": .data(Data([3, 1, 2, 3, 4, 5, 6, 7, 8])), "$class": .uid(2)],
                ["$classname": "NSAffineTransform", "$classes": ["NSAffineTransform", "NSObject"]],
            ],
        ]
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: ArchivedAffineTransform.self, from: archive.data(format: .binary))
        }
    }

    @Test func affineTransformFromFoundation() throws {
        // swift-corelibs-foundation writes its own form (six reals under `$0`) and reads
        // only that one, so only this direction is checked.
        let transform = NSAffineTransform()
        transform.scaleX(by: 2, yBy: 3)
        transform.translateX(by: 5, yBy: 7)
        let data = try NSKeyedArchiver.archivedData(withRootObject: transform, requiringSecureCoding: true)
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAffineTransform.self, from: data))
        let expected = transform.transformStruct
        #expect(read.m11 == Double(expected.m11) && read.m22 == Double(expected.m22))
        #expect(read.tX == Double(expected.tX) && read.tY == Double(expected.tY))
        #expect(read.m12 == 0 && read.m21 == 0)
    }

    // MARK: NSDateComponents

    @Test func dateComponentsInAppleLayout() throws {
        var components = ArchivedDateComponents()
        components[.year] = 2024
        components[.month] = 2
        components[.day] = 29
        components[.nanosecond] = 5
        let data = try Self.archive(components)
        let object = try #require(PropertyList(from: data)["$objects"]?.arrayValue?[1])
        #expect(object["NS.year"] == 2024)
        #expect(object["NS.nanosec"] == 5)
        #expect(object["NS.hour"] == nil)
        #expect(object["NS.leapMonth"] == 0)
        #expect(object["NS.calendar"] == .uid(0))
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedDateComponents.self, from: data))
        #expect(read == components)
        #expect(read[.day] == 29 && read[.hour] == nil)
        #expect(read.description == "day 29, month 2, nanosecond 5, year 2024")
    }

    @Test func dateComponentsBothWaysWithFoundation() throws {
        var theirs = DateComponents()
        theirs.year = 2024
        theirs.month = 2
        theirs.day = 29
        theirs.timeZone = TimeZone(identifier: "Europe/Paris")
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: theirs as NSDateComponents, requiringSecureCoding: true)
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedDateComponents.self, from: data))
        // Foundation on Linux writes undefined components as Int.max: read as undefined.
        #expect(read[.year] == 2024 && read[.month] == 2 && read[.day] == 29)
        #expect(read[.hour] == nil && read[.era] == nil)
        #expect(read.timeZone?.identifier == "Europe/Paris")
        #expect(read.calendarIdentifier == nil && read.fields["NS.calendar"] == .null)
        #expect(read.fields["NS.isLeapMonth"] == .bool(false) && !read.isLeapMonth)
        #expect(read.dateComponents.year == 2024 && read.dateComponents.hour == nil)
        #expect(try Self.writesBack(read, as: AppleFixture.tree(of: 1, in: PropertyList(from: data))))

        let ours = ArchivedDateComponents(theirs)
        let written = try Self.archive(ours)
        let back = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSDateComponents.self, from: written))
        #expect(back.year == 2024 && back.month == 2 && back.day == 29)
        #expect(back.timeZone?.identifier == "Europe/Paris")
        // Apple's layout leaves undefined components out; Foundation on Linux reads them as 0.
        #expect(back.hour == 0)
    }

    // MARK: NSPersonNameComponents

    @Test func personNameBothWaysWithFoundation() throws {
        var name = ArchivedPersonNameComponents()
        name[.givenName] = "Ada"
        name[.familyName] = "Lovelace"
        name[.nickname] = "Enchantress"
        let written = try Self.archive(name)
        let object = try #require(PropertyList(from: written)["$objects"]?.arrayValue?[1])
        #expect(object["NS.middleName"] == .uid(0))
        let back = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersonNameComponents.self, from: written))
        #expect(back.givenName == "Ada" && back.familyName == "Lovelace" && back.nickname == "Enchantress")
        #expect(back.middleName == nil)

        var theirs = PersonNameComponents()
        theirs.namePrefix = "Dr."
        theirs.givenName = "Grace"
        theirs.familyName = "Hopper"
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: theirs as NSPersonNameComponents, requiringSecureCoding: true)
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPersonNameComponents.self, from: data))
        #expect(read[.givenName] == "Grace" && read[.familyName] == "Hopper" && read[.middleName] == nil)
        #expect(read.description == "Dr. Grace Hopper")
        #expect(try Self.writesBack(read, as: AppleFixture.tree(of: 1, in: PropertyList(from: data))))
    }

    @Test func personNamePhoneticRepresentation() throws {
        var phonetic = ArchivedPersonNameComponents()
        phonetic[.givenName] = "エイダ"
        var name = ArchivedPersonNameComponents()
        name[.givenName] = "Ada"
        name.phoneticRepresentation = phonetic
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: ArchivedPersonNameComponents.self, from: Self.archive(name)))
        #expect(read.phoneticRepresentation?[.givenName] == "エイダ")
        #expect(read.phoneticRepresentation == phonetic)
        #expect(read[.givenName] == "Ada")
    }

    // MARK: NSTextCheckingResult

    @Test(arguments: [
        ("SimpleRegex", "NSSimpleRegularExpressionCheckingResult", "aaa", 0..<3, [0..<3]),
        (
            "ExtendedRegex", "NSExtendedRegularExpressionCheckingResult", "a(a(a(a(a(a)))))", 0..<6,
            [0..<6, 1..<6, 2..<6, 3..<6, 4..<6, 5..<6]
        ),
        (
            "ComplexRegex", "NSComplexRegularExpressionCheckingResult", "a(a(a(a(a(a(a(a(a))))))))", 0..<9,
            [0..<9, 1..<9, 2..<9, 3..<9, 4..<9, 5..<9, 6..<9, 7..<9, 8..<9]
        ),
    ])
    func textCheckingResults(
        _ name: String, _ className: String, _ pattern: String, _ range: Range<Int>, _ ranges: [Range<Int>]
    ) throws {
        guard
            let (result, tree) = try Self.fixture(
                "NSTextCheckingResult-" + name, as: ArchivedTextCheckingResult.self)
        else { return }
        #expect(result.className == className)
        #expect(result.pattern == pattern)
        #expect(result.options == 0)
        #expect(result.range == range)
        #expect(result.ranges == ranges)
        #expect(try Self.writesBack(result, as: tree), "\(name)")
    }

    @Test func newTextCheckingResult() throws {
        let match = ArchivedTextCheckingResult(range: 1..<4, pattern: "a(b)c", ranges: [1..<4, 2..<3])
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: ArchivedTextCheckingResult.self, from: Self.archive(match)))
        #expect(read.className == "NSExtendedRegularExpressionCheckingResult")
        #expect(read.range == 1..<4 && read.pattern == "a(b)c" && read.ranges == [1..<4, 2..<3])
        #expect(read.description == "/a(b)c/ 1..<4 [1..<4, 2..<3]")
    }

    @Test func textCheckingResultToFoundation() throws {
        // Foundation on Linux reads text-checking results without secure coding only.
        guard
            let (result, _) = try Self.fixture(
                "NSTextCheckingResult-ExtendedRegex", as: ArchivedTextCheckingResult.self)
        else { return }
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Self.archive(result))
        unarchiver.requiresSecureCoding = false
        let read = try #require(
            unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSTextCheckingResult)
        #expect(read.range == NSRange(location: 0, length: 6))
        #expect(read.numberOfRanges == 6)
        #expect(read.range(at: 5) == NSRange(location: 5, length: 1))
        #expect(read.regularExpression?.pattern == "a(a(a(a(a(a)))))")
    }

    @Test func textCheckingResultFromFoundation() throws {
        // Foundation on Linux archives a match (without secure coding).
        let expression = try NSRegularExpression(pattern: "a(b)c")
        let match = try #require(expression.firstMatch(in: "xabc", range: NSRange(location: 0, length: 4)))
        let data = try NSKeyedArchiver.archivedData(withRootObject: match, requiringSecureCoding: false)
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedTextCheckingResult.self, from: data))
        #expect(read.range == 1..<4)
        #expect(read.pattern == "a(b)c")
        #expect(read.ranges == [1..<4, 2..<3])
    }

    // MARK: Formatters

    @Test func byteCountFormatters() throws {
        if let (all, tree) = try Self.fixture("ByteCountFormatter-AllFieldsSet", as: ArchivedFormatter.self) {
            #expect(all.className == "NSByteCountFormatter")
            #expect(all.allowedUnits == 3 && all.countStyle == 2)
            #expect(all.fields["NSZeroPad"] == .bool(true) && all.fields["NSNoAdaptive"] == .bool(true))
            #expect(all.fields["NSFormattingContext"] == .integer(4))
            #expect(try Self.writesBack(all, as: tree))
        }
        if let (plain, tree) = try Self.fixture("ByteCountFormatter-Default", as: ArchivedFormatter.self) {
            #expect(plain.fields.isEmpty)
            #expect(plain.allowedUnits == 0 && plain.countStyle == 0)
            #expect(plain.description == "NSByteCountFormatter units 0, count style 0")
            #expect(try Self.writesBack(plain, as: tree))
        }
    }

    @Test(arguments: [
        ("Default", 1, 1, nil as String?, "", "GMT"),
        ("ValuesSetWithTemplate", 1, 1, "dd mm yyyy HH:MM", "ja-JP", "GMT+0100"),
        ("ValuesSetWithoutTemplate", 3, 0, nil, "ja-JP", "GMT+0100"),
    ])
    func dateIntervalFormatters(
        _ name: String, _ dateStyle: Int, _ timeStyle: Int, _ template: String?, _ locale: String,
        _ zone: String
    ) throws {
        guard
            let (formatter, tree) = try Self.fixture(
                "DateIntervalFormatter-" + name, as: ArchivedFormatter.self)
        else { return }
        #expect(formatter.className == "NSDateIntervalFormatter")
        #expect(formatter.dateStyle == dateStyle && formatter.timeStyle == timeStyle)
        #expect(formatter.dateTemplate == template)
        #expect(formatter.locale?.identifier == locale)
        #expect(formatter.fields["NS.timeZone"]?.objectString("NS.name") == zone)
        #expect(formatter.fields["NS.calendar"]?.objectString("NS.identifier") == "gregorian")
        #expect(try Self.writesBack(formatter, as: tree), "\(name)")
    }

    @Test(arguments: [("Default", 1907), ("OptionsSet", 1366)])
    func iso8601Formatters(_ name: String, _ options: Int) throws {
        guard
            let (formatter, tree) = try Self.fixture(
                "ISO8601DateFormatter-" + name, as: ArchivedFormatter.self)
        else { return }
        #expect(formatter.className == "NSISO8601DateFormatter")
        #expect(formatter.formatOptions == options)
        #expect(formatter.timeZone?.identifier == "GMT")
        #expect(formatter.description == "NSISO8601DateFormatter options \(options), time zone GMT")
        #expect(try Self.writesBack(formatter, as: tree))
        // Foundation on this machine reads what we write back.
        let back = try #require(
            try NSKeyedUnarchiver.unarchivedObject(
                ofClass: ISO8601DateFormatter.self, from: Self.archive(formatter)))
        #expect(back.formatOptions.rawValue == UInt(options))
        #expect(back.timeZone.secondsFromGMT() == 0)
    }

    @Test func iso8601FormatterFromFoundation() throws {
        let theirs = ISO8601DateFormatter()
        theirs.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let data = try NSKeyedArchiver.archivedData(withRootObject: theirs, requiringSecureCoding: true)
        let read = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedFormatter.self, from: data))
        #expect(read.formatOptions == Int(theirs.formatOptions.rawValue))
        #expect(read.timeZone?.secondsFromGMT() == 0)
    }

    // MARK: The readable view

    @Test func summaries() throws {
        guard let data = try AppleFixture.data(Self.macOS + "NSTextCheckingResult-SimpleRegex.archive") else {
            return
        }
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        let summary = try #require(graph.summary(ofObjectAt: 1))
        #expect(summary.text == "/aaa/ 0..<3 [0..<3]")
        #expect(graph.outline(summarizingKnownClasses: true).contains("/aaa/ 0..<3 [0..<3]"))
        #expect(!graph.outline(summarizingKnownClasses: false).contains("/aaa/"))
        if let formatter = try AppleFixture.data(
            Self.macOS + "DateIntervalFormatter-ValuesSetWithTemplate.archive")
        {
            #expect(
                try KeyedUnarchiver.objectGraph(from: formatter).summary(ofObjectAt: 1)?.text
                    == "date style 1, time style 1, template \"dd mm yyyy HH:MM\", locale ja-JP, time zone GMT+0100"
            )
        }

        let transform = try KeyedUnarchiver.objectGraph(
            from: Self.archive(ArchivedAffineTransform(m11: 2, m12: 0, m21: 0, m22: 3, tX: 0, tY: 0)))
        #expect(transform.summary(ofObjectAt: 1)?.text == "[2 0 0 3 0 0]")
        var name = ArchivedPersonNameComponents()
        name[.givenName] = "Ada"
        #expect(
            try KeyedUnarchiver.objectGraph(from: Self.archive(name)).summary(ofObjectAt: 1)?.text == "Ada")
    }
}
