import Foundation
import Testing

@testable import KeyedArchive

/// Every archive is read from a binary property list: binary in place, XML rewritten as
/// binary, OpenStep text and parsed values serialized as binary when opened.
@Suite struct ArchiveSourceTests {
    static func archive() throws -> (archiver: KeyedArchiver, data: Data) {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.encode(["a", "b", "a"], forKey: "names")
        archiver.encode(3.5, forKey: "real")
        archiver.encode(Date(timeIntervalSinceReferenceDate: 10), forKey: "date")
        return (archiver, try archiver.finishedData())
    }

    @Test func aParsedValueReadsAsItsBinaryForm() throws {
        let (archiver, data) = try Self.archive()
        for unarchiver in [
            try KeyedUnarchiver(forReadingFrom: data),
            try KeyedUnarchiver(propertyList: archiver.encodedPropertyList),
            try KeyedUnarchiver(propertyList: PropertyList(from: data)),
        ] {
            #expect(try unarchiver.decodeObject(of: [String].self, forKey: "names") == ["a", "b", "a"])
            #expect(try unarchiver.decodeDouble(forKey: "real") == 3.5)
            #expect(
                try unarchiver.decodeObject(of: Date.self, forKey: "date")
                    == Date(timeIntervalSinceReferenceDate: 10))
            #expect(try unarchiver.objectGraph().topLevelValue(forKey: "real") == .real(3.5))
        }
    }

    @Test func aParsedValueThatIsNoArchiveIsRefusedAsBinaryIs() throws {
        let notADictionary = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver(propertyList: ["$archiver", "NSKeyedArchiver"])
        }
        #expect(notADictionary?.code == .invalidArchive)
        #expect(notADictionary?.message == "the property list is array, not a keyed archive dictionary")

        var root = try #require(try Self.archive().archiver.encodedPropertyList.dictionaryValue)
        root["$objects"] = ["$null", .date(Date(timeIntervalSinceReferenceDate: .nan))]
        let unwritable = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver(propertyList: .dictionary(root))
        }
        #expect(unwritable?.code == .invalidValue)

        // OpenStep text holds no numbers, so `$version` is a string: refused when opened.
        let text =
            #"{ "$archiver" = NSKeyedArchiver; "$version" = 100000; "$top" = {}; "$objects" = ("$null"); }"#
        let openStep = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver(forReadingFrom: Data(text.utf8))
        }
        #expect(openStep?.code == .invalidArchive)
        #expect(openStep?.message.contains("$version") == true, "\(String(describing: openStep))")
    }
}
