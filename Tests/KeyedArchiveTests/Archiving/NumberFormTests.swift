import Foundation
import KeyedArchive
import Testing

// A number can sit in an object's fields in two forms: inline (what Foundation's
// `encode(_: Double, forKey:)`, i.e. `encodeDouble`, writes) or as a reference to an
// NSNumber object in `$objects` (what `encode(NSNumber(value:), forKey:)` writes).
// Foundation on this machine reads each form only one way: `decodeDouble` of a reference
// gives 0, `decodeObject(of: NSNumber.self)` of an inline number fails ("is not a
// reference"). This package writes what Foundation writes for the same call and reads
// both forms with both kinds of method.

/// Foundation's side: writes the rating inline (`mode` 0) or as an NSNumber (`mode` 1),
/// and reads it back the way that form must be read.
final class NumberFormNS: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let inline: Bool
    var rating: Double

    init(inline: Bool, rating: Double) {
        self.inline = inline
        self.rating = rating
    }

    func encode(with coder: NSCoder) {
        coder.encode(inline, forKey: "inline")
        if inline {
            coder.encode(rating, forKey: "rating")
        } else {
            coder.encode(NSNumber(value: rating), forKey: "rating")
        }
    }

    init?(coder: NSCoder) {
        inline = coder.decodeBool(forKey: "inline")
        if inline {
            rating = coder.decodeDouble(forKey: "rating")
        } else {
            guard let number = coder.decodeObject(of: NSNumber.self, forKey: "rating") else { return nil }
            rating = number.doubleValue
        }
    }
}

/// This package's side, reading the rating with the method `reader` names.
struct NumberForm: SecureKeyedCoding {
    static var archivedClassName: String { "KeyedArchiveTests.NumberFormNS" }

    enum Reader: String, CaseIterable, Sendable {
        case decodeDouble, decodeFloat, decodeObjectAsDouble, decodeObjectAsFloat
    }

    nonisolated(unsafe) static var reader = Reader.decodeDouble

    var inline: Bool
    var rating: Double

    init(inline: Bool, rating: Double) {
        self.inline = inline
        self.rating = rating
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(inline, forKey: "inline")
        if inline {
            coder.encode(rating, forKey: "rating")
        } else {
            coder.encodeObject(rating, forKey: "rating")
        }
    }

    init(coder: KeyedUnarchiver) throws {
        inline = try coder.decodeBool(forKey: "inline")
        switch Self.reader {
        case .decodeDouble: rating = try coder.decodeDouble(forKey: "rating")
        case .decodeFloat: rating = Double(try coder.decodeFloat(forKey: "rating"))
        case .decodeObjectAsDouble: rating = try coder.decodeObject(of: Double.self, forKey: "rating") ?? -1
        case .decodeObjectAsFloat:
            rating = Double(try coder.decodeObject(of: Float.self, forKey: "rating") ?? -1)
        }
    }
}

@Suite(.serialized) struct NumberFormTests {
    /// The overloads pick what Foundation's do: a typed scalar is stored inline, a value
    /// passed to `encodeObject` (or as `any KeyedCoding`) as a reference.
    @Test func typedScalarsAreInlineAndEncodeObjectWritesAReference() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: false)
        archiver.encode(4.5, forKey: "double")
        archiver.encode(Float(4.5), forKey: "float")
        archiver.encode(7, forKey: "int")
        archiver.encode(true, forKey: "bool")
        archiver.encodeObject(4.5, forKey: "doubleObject")
        archiver.encodeObject(Float(4.5), forKey: "floatObject")
        archiver.encodeObject(7, forKey: "intObject")
        archiver.encodeObject(true, forKey: "boolObject")
        archiver.encodeObject(nil, forKey: "none")
        archiver.encode(4.5 as any KeyedCoding, forKey: "existential")
        let plist = try PropertyList(from: try archiver.finishedData())
        let top = try #require(plist["$top"])
        let objects = try #require(plist["$objects"]?.arrayValue)
        #expect(top["double"] == .real(4.5))
        #expect(top["float"] == .real(4.5))
        #expect(top["int"] == .integer(7))
        #expect(top["bool"] == .bool(true))
        for (key, expected) in [
            ("doubleObject", PropertyList.real(4.5)), ("floatObject", .real(4.5)), ("intObject", .integer(7)),
            ("boolObject", .bool(true)), ("existential", .real(4.5)),
        ] {
            let uid = try #require(top[key]?.uidValue, "\(key) must be a reference")
            #expect(objects[Int(uid)] == expected, "\(key)")
        }
        #expect(top["none"]?.uidValue == 0)
    }

    /// Every reading method reads both forms, whichever side wrote them.
    @Test(arguments: [true, false], NumberForm.Reader.allCases)
    func bothFormsReadWithEveryMethod(inline: Bool, reader: NumberForm.Reader) throws {
        NumberForm.reader = reader
        defer { NumberForm.reader = .decodeDouble }
        let fromFoundation = try NSKeyedArchiver.archivedData(
            withRootObject: NumberFormNS(inline: inline, rating: 4.5), requiringSecureCoding: true)
        let fromUs = try KeyedArchiver.archivedData(
            withRootObject: NumberForm(inline: inline, rating: 4.5), requiringSecureCoding: true)
        for (writer, data) in [("Foundation", fromFoundation), ("KeyedArchive", fromUs)] {
            let form = try PropertyList(from: data)["$objects"]?[1]?["rating"]
            #expect(
                (form?.uidValue != nil) == !inline, "\(writer) wrote the \(inline ? "inline" : "object") form"
            )
            let decoded = try #require(
                try KeyedUnarchiver.unarchivedObject(ofClass: NumberForm.self, from: data))
            #expect(decoded.rating == 4.5, "\(reader) of \(writer)'s \(inline ? "inline" : "object") form")
        }
    }

    /// Foundation reads what this package writes for the same calls.
    @Test(arguments: [true, false])
    func foundationReadsBothForms(inline: Bool) throws {
        let data = try KeyedArchiver.archivedData(
            withRootObject: NumberForm(inline: inline, rating: 2.25), requiringSecureCoding: true)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        let decoded = unarchiver.decodeObject(of: NumberFormNS.self, forKey: NSKeyedArchiveRootObjectKey)
        #expect(unarchiver.error == nil)
        #expect(decoded?.rating == 2.25)
    }

    /// The scalar methods follow a reference to a number object, and still refuse other
    /// objects and values out of range.
    @Test func scalarMethodsReadNumberObjectsStrictly() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: false)
        archiver.encodeObject(Int64.max, forKey: "big")
        archiver.encodeObject(false, forKey: "flag")
        archiver.encodeObject(12, forKey: "twelve")
        archiver.encode("text", forKey: "text")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        #expect(try unarchiver.decodeInt64(forKey: "big") == .max)
        #expect(try unarchiver.decodeBool(forKey: "flag") == false)
        #expect(try unarchiver.decodeInt32(forKey: "twelve") == 12)
        #expect(try unarchiver.decodeDouble(forKey: "twelve") == 12)
        #expect(throws: KeyedArchiveError.self) { try unarchiver.decodeInt32(forKey: "big") }
        let mismatch = #expect(throws: KeyedArchiveError.self) { try unarchiver.decodeDouble(forKey: "text") }
        #expect(mismatch?.code == .typeMismatch)
    }
}
