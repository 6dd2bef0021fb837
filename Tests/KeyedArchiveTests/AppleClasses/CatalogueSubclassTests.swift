import Foundation
import Testing

@testable import KeyedArchive

/// An object whose class the catalogue does not know but whose `$classes` names one it
/// does (AppKit's `NSTextStorage` < `NSMutableAttributedString`) is read as that ancestor —
/// under secure coding only where the caller asked for the ancestor's type.
@Suite("Subclasses of catalogued classes")
struct CatalogueSubclassTests {
    /// A type whose initializer must never run: it records that it did.
    final class Spy: SecureKeyedCoding, @unchecked Sendable {
        nonisolated(unsafe) static var constructed = 0
        static var supportsSecureCoding: Bool { true }
        static var archivedClassName: String { "Spy" }
        init() {}
        func encode(with coder: KeyedArchiver) {}
        init(coder: KeyedUnarchiver) throws { Self.constructed += 1 }
    }

    /// An archive whose root is an attributed string "text storage" of class `chain[0]`
    /// with the `$classes` `chain`.
    static func attributedString(classChain chain: [String]) throws -> Data {
        let data = try KeyedArchiver.archivedData(
            withRootObject: ArchivedAttributedString("text storage"), requiringSecureCoding: true)
        let plist = try PropertyList(from: data)
        var objects = try #require(plist["$objects"]?.arrayValue)
        for index in objects.indices where objects[index]["$classname"]?.stringValue != nil {
            if objects[index]["$classname"]?.stringValue?.hasSuffix("AttributedString") == true {
                objects[index] = ArchiveTest.classDescription(chain[0], chain)
            }
        }
        var top = try #require(plist.dictionaryValue)
        top["$objects"] = .array(objects)
        return try PropertyList.dictionary(top).data(format: .binary)
    }

    @Test("an NSTextStorage decodes as an attributed string when the caller asks for one")
    func textStorage() throws {
        let data = try Self.attributedString(classChain: [
            "NSTextStorage", "NSMutableAttributedString", "NSAttributedString", "NSObject",
        ])
        let value = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data)
        #expect(value?.string == "text storage")
        // Untyped secure decoding without the type named: refused, not guessed.
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [Spy.self], from: data)
        }
        // The graph's summary reads it too, keeping the subclass's name.
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        guard case .reference(let uid)? = graph.root else {
            Issue.record("no root reference")
            return
        }
        let summary = try #require(graph.summary(ofObjectAt: uid))
        #expect(summary.className == "NSTextStorage")
        #expect(summary.text.contains("text storage"))
    }

    @Test("an unknown subclass of a class the caller did not allow is refused before anything is built")
    func evilArray() throws {
        // ["Evil", "NSArray"] holding one Spy: the caller allows attributed strings and Spy,
        // not arrays.
        let plist = ArchiveTest.archivePlist(
            objects: [
                "$null",
                ["$class": .uid(2), "NS.objects": [.uid(3)]],
                ArchiveTest.classDescription("Evil", ["Evil", "NSArray", "NSObject"]),
                ["$class": .uid(4)],
                ArchiveTest.classDescription("Spy"),
            ], top: ["root": .uid(1)])
        let data = try plist.data(format: .binary)
        Spy.constructed = 0
        let error = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(
                ofClasses: [ArchivedAttributedString.self, Spy.self], from: data)
        }
        #expect(error?.code == .classNotAllowed, "\(String(describing: error))")
        #expect(Spy.constructed == 0)
        let typed = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data)
        }
        #expect(typed?.code == .classNotAllowed, "\(String(describing: typed))")
        #expect(Spy.constructed == 0)
        // An app's subclass of NSAttributedString claiming the catalogue's class is read as
        // an attributed string only where one was asked for.
        let fake = try Self.attributedString(classChain: ["Evil", "NSAttributedString", "NSObject"])
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: Spy.self, from: fake)
        }
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: fake) != nil)
    }

    @Test("the NSTextStorage in a real nib is summarized as an attributed string")
    func flycutNib() throws {
        let name = "wild_Flycut_English.lproj_MainMenu.nib_keyedobjects.nib"
        guard let data = try AppleFixture.data(name) else { return }
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        let storages = graph.nodes.indices.filter { graph.object(at: $0)?.className == "NSTextStorage" }
        #expect(!storages.isEmpty)
        for uid in storages {
            let summary = try #require(graph.summary(ofObjectAt: uid), "NSTextStorage #\(uid)")
            #expect(summary.className == "NSTextStorage")
        }
    }

    @Test("a counted set whose counts add up past Int.max is an error, not a trap")
    func countedSetOverflow() throws {
        let plist = ArchiveTest.archivePlist(
            objects: [
                "$null",
                [
                    "$class": .uid(3), "NS.objects": [.uid(2), .uid(2)],
                    "NS.count0": .integer(PropertyListInteger(Int64.max)),
                    "NS.count1": .integer(PropertyListInteger(Int64.max)),
                ],
                "a",
                ArchiveTest.classDescription(
                    "NSCountedSet", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"]),
            ], top: ["root": .uid(1)])
        let data = try plist.data(format: .binary)
        let error = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedCountedSet<String>.self, from: data)
        }
        #expect(error?.code == .invalidArchive, "\(String(describing: error))")
        #expect(error?.message.contains("Int.max") == true)
    }
}
