import Foundation
import TestSupport
import Testing

@testable import KeyedArchive
@testable import KeyedArchiving
@testable import TypedStreamFormat

/// The one class catalogue, against what Apple writes and what every reader and writer
/// consults.
@Suite struct ClassCatalogueTests {
    @Test func chainsAreApples() {
        #expect(CataloguedClass.countedSet.chain == ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"])
        #expect(
            CataloguedClass.mutableDictionary.chain == ["NSMutableDictionary", "NSDictionary", "NSObject"])
        #expect(CataloguedClass.mutableArray.chain == ["NSMutableArray", "NSArray", "NSObject"])
        #expect(CataloguedClass.string.chain == ["NSString", "NSObject"])
        #expect(CataloguedClass.number.chain == ["NSNumber", "NSValue", "NSObject"])
        #expect(
            CataloguedClass.mutableAttributedString.chain == [
                "NSMutableAttributedString", "NSAttributedString", "NSObject",
            ])
        #expect(
            CataloguedClass.decimalNumber.chain == ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"])
        #expect(CataloguedClass.httpURLResponse.chain == ["NSHTTPURLResponse", "NSURLResponse", "NSObject"])
        #expect(
            ClassCatalogue.chain(forName: "NSMutableParagraphStyle") == [
                "NSMutableParagraphStyle", "NSParagraphStyle", "NSObject",
            ])
        #expect(ClassCatalogue.chain(forName: "Creature") == ["Creature", "NSObject"])
    }

    @Test func everyNameIsFoundOnceAndEveryChainEnds() {
        var names: Set<String> = []
        for catalogued in CataloguedClass.allCases {
            #expect(names.insert(catalogued.name).inserted, "\(catalogued) is listed twice")
            #expect(CataloguedClass(name: catalogued.name) == catalogued)
            // The walk up the rows ends (no cycle) well before the readers' bound.
            #expect(catalogued.chain.count < 10, "\(catalogued)")
            #expect(catalogued.chain.last == ClassCatalogue.rootClassName)
            #expect(catalogued.typedStreamChain.map(\.name) == catalogued.chain)
            if catalogued.isMutable { #expect(catalogued.superclass != nil, "\(catalogued)") }
            if let superclass = catalogued.superclass {
                // The classes keyed archives are built from derive from none of Apple's
                // others (NSDecimalNumber derives from NSNumber, not the other way).
                if catalogued.kind.isFoundation { #expect(superclass.kind.isFoundation, "\(catalogued)") }
                // A mutable variant holds what its immutable class holds, but a counted set
                // counts its elements: a kind of its own.
                if catalogued.isMutable, catalogued != .countedSet {
                    #expect(superclass.kind == catalogued.kind, "\(catalogued)")
                }
            }
        }
        #expect(CataloguedClass(name: "Creature") == nil)
        #expect(CataloguedClass(name: "NSObject") == nil)
        #expect(CataloguedClass(name: "") == nil)
        #expect(CataloguedClass(appleClassNamed: "NSColor") == .color)
        #expect(CataloguedClass(appleClassNamed: "NSString") == nil)
    }

    @Test func nameTablesLookUpBytes() {
        let table = ClassNameTable([.string, .mutableString, .url])
        for (name, expected) in [
            ("NSString", CataloguedClass.string), ("NSMutableString", .mutableString), ("NSURL", .url),
        ] {
            let bytes = Array(name.utf8)
            #expect(bytes.withUnsafeBytes { table.lookup($0) } == expected)
            #expect(table.lookup(name) == expected)
        }
        for name in ["NSStrinG", "NSNumber", "NSURLs", "", "N"] {
            #expect(table.lookup(name) == nil, "\(name)")
        }
    }

    @Test func everyMutableVariantHasTheKindOfItsSuperclass() {
        for catalogued in CataloguedClass.allCases where catalogued.kind.isFoundation {
            if let superclass = catalogued.superclass, catalogued != .number {
                #expect(catalogued.isMutable, "\(catalogued)")
                if catalogued != .countedSet { #expect(superclass.kind == catalogued.kind) }
            }
        }
    }

    @Test func readersAgreeOnEachClass() {
        // NSCountedSet was a set to the unarchiver and "other" to the Codable reader.
        for catalogued in CataloguedClass.allCases {
            let untyped = CataloguedClass.untypedKind(catalogued.name)
            let codable = CodableArchiveReader.ClassKind(catalogued)
            if untyped?.isCollection == true {
                #expect(codable == .collection || codable == .dictionary, "\(catalogued)")
            }
            if codable == .collection || codable == .dictionary {
                #expect(untyped?.isCollection == true, "\(catalogued)")
            }
            if !catalogued.kind.isFoundation {
                #expect(untyped == nil, "\(catalogued)")
                #expect(codable == .other, "\(catalogued)")
            }
        }
        #expect(CodableArchiveReader.ClassKind(.countedSet) == .collection)
        #expect(CataloguedClass.untypedKind("NSCountedSet") == .countedSet)
    }

    @Test func standardTypesAcceptTheirClassesWithTheirOwnNameFirst() {
        #expect(
            [String].acceptedClassNames == [
                "NSArray", "NSMutableArray", "NSOrderedSet", "NSMutableOrderedSet",
            ])
        #expect(
            Set<String>.acceptedClassNames == [
                "NSSet", "NSMutableSet", "NSCountedSet", "NSOrderedSet", "NSMutableOrderedSet",
            ])
        #expect(String.acceptedClassNames == ["NSString", "NSMutableString"])
        #expect([String: Int].acceptedClassNames == ["NSDictionary", "NSMutableDictionary"])
        #expect(Int.acceptedClassNames == ["NSNumber"])
        #expect(Data.acceptedClassNames.first == Data.archivedClassName)
    }

    @Test func typedStreamsReadAndWriteTheClassesWithAVersion() {
        #expect(
            TypedStreamUnarchiver.standardClassNames == [
                "NSString", "NSMutableString", "NSNumber", "NSValue", "NSData", "NSMutableData", "NSDate",
                "NSURL", "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSDictionary",
                "NSMutableDictionary", "NSNull", "NSAttributedString", "NSMutableAttributedString", "NSColor",
                "NSFont", "NSParagraphStyle", "NSMutableParagraphStyle",
            ])
        #expect(CataloguedClass.number.typedStreamChain.map(\.name) == ["NSNumber", "NSValue", "NSObject"])
        #expect(CataloguedClass.mutableString.typedStreamChain.map(\.version) == [1, 1, 0])
        #expect(CataloguedClass.font.typedStreamChain.map(\.version) == [30, 0])
    }

    /// Every `$classes` Apple wrote in the fixtures for a class of the catalogue is the
    /// catalogue's chain (chains not ending in `NSObject` were written by other tools).
    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
    func chainsAreWhatAppleWroteInTheFixtures() throws {
        var checked: Set<String> = []
        for entry in Fixtures.entries("apple-keyed-archives") + Fixtures.entries("plists") {
            guard let plist = try? Fixtures.expectedValue(entry),
                let objects = plist["$objects"]?.arrayValue
            else { continue }
            for object in objects {
                guard let name = object["$classname"]?.stringValue,
                    let classes = object["$classes"]?.arrayValue?.compactMap(\.stringValue),
                    classes.last == "NSObject", let catalogued = CataloguedClass(name: name)
                else { continue }
                #expect(catalogued.chain == classes, "\(name) in \(entry)")
                checked.insert(name)
            }
        }
        // NSDecimalNumberPlaceholder < NSDecimalNumber < NSNumber < NSValue among them.
        #expect(checked.contains("NSDecimalNumberPlaceholder"))
        #expect(checked.count >= 40, "\(checked.sorted())")
    }

    /// Every chain of class records Apple's `NSArchiver` wrote in the typedstream fixtures
    /// for a class the typedstreams read and write has the catalogue's names and versions
    /// (a paragraph style's versions vary with its layout).
    @Test(.enabled(if: Fixtures.isAvailable, Comment(rawValue: Fixtures.skipNote)))
    func typedStreamChainsAreWhatAppleWroteInTheFixtures() throws {
        let folder = Fixtures.root.appendingPathComponent("typedstream")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".typedstream") }
        var checked: Set<String> = []
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            guard let graph = try? TypedStreamUnarchiver.objectGraph(from: data) else { continue }
            for index in graph.nodes.indices {
                guard let found = graph.class(at: index), let catalogued = CataloguedClass(name: found.name),
                    catalogued.typedStreamVersion != nil, catalogued.kind != .paragraphStyle
                else { continue }
                let chain = graph.classChain(ofClassAt: index)
                #expect(chain.map(\.name) == catalogued.chain, "\(found.name) in \(file)")
                #expect(
                    chain.map(\.version) == catalogued.typedStreamChain.map(\.version),
                    "\(found.name) in \(file)")
                checked.insert(found.name)
            }
        }
        #expect(checked.isSuperset(of: ["NSString", "NSMutableString", "NSNumber", "NSDictionary"]))
    }
}
