import Foundation
import Testing

@testable import KeyedArchive
@testable import KeyedArchiving

/// The one catalogue of Foundation classes, against what Apple writes and what every
/// reader and writer consults.
@Suite struct FoundationClassTests {
    @Test func chainsAreApples() {
        #expect(FoundationClass.countedSet.chain == ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"])
        #expect(
            FoundationClass.mutableDictionary.chain == ["NSMutableDictionary", "NSDictionary", "NSObject"])
        #expect(FoundationClass.mutableArray.chain == ["NSMutableArray", "NSArray", "NSObject"])
        #expect(FoundationClass.string.chain == ["NSString", "NSObject"])
        #expect(FoundationClass.chain(forName: "Creature") == ["Creature", "NSObject"])
    }

    @Test func everyMutableVariantHasTheKindOfItsSuperclass() {
        for foundationClass in FoundationClass.allCases {
            #expect(FoundationClass(name: foundationClass.name) == foundationClass)
            if let superclass = foundationClass.superclass {
                #expect(foundationClass.isMutable, "\(foundationClass)")
                // A counted set is a mutable set, but counts its elements: its own kind.
                if foundationClass != .countedSet { #expect(superclass.kind == foundationClass.kind) }
            }
        }
    }

    @Test func readersAgreeOnEachClass() {
        // NSCountedSet was a set to the unarchiver and "other" to the Codable reader.
        for foundationClass in FoundationClass.allCases {
            let untyped = FoundationClass.untypedKind(foundationClass.name)
            let codable = CodableArchiveReader.ClassKind(foundationClass)
            if untyped?.isCollection == true {
                #expect(codable == .collection || codable == .dictionary, "\(foundationClass)")
            }
            if codable == .collection || codable == .dictionary {
                #expect(untyped?.isCollection == true, "\(foundationClass)")
            }
        }
        #expect(CodableArchiveReader.ClassKind(.countedSet) == .collection)
        #expect(FoundationClass.untypedKind("NSCountedSet") == .countedSet)
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
}

/// The catalogue's continuation: AppKit, UIKit and further Foundation classes.
@Suite struct AppleClassCatalogueTests {
    @Test func chainsAreApples() {
        #expect(
            AppleClass.mutableAttributedString.chain == [
                "NSMutableAttributedString", "NSAttributedString", "NSObject",
            ])
        #expect(AppleClass.decimalNumber.chain == ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"])
        #expect(AppleClass.httpURLResponse.chain == ["NSHTTPURLResponse", "NSURLResponse", "NSObject"])
        #expect(
            FoundationClass.chain(forName: "NSMutableParagraphStyle") == [
                "NSMutableParagraphStyle", "NSParagraphStyle", "NSObject",
            ])
        #expect(
            FoundationClass.chain(forName: "NSCountedSet") == [
                "NSCountedSet", "NSMutableSet", "NSSet", "NSObject",
            ])
    }

    @Test func everyNameIsFoundAndNoneIsInBothCatalogues() {
        for appleClass in AppleClass.allCases {
            #expect(AppleClass(name: appleClass.name) == appleClass)
            #expect(FoundationClass(name: appleClass.name) == nil, "\(appleClass) is in both catalogues")
            if appleClass.isMutable { #expect(appleClass.superclassName != nil, "\(appleClass)") }
        }
        #expect(AppleClass(name: "Creature") == nil)
    }
}
