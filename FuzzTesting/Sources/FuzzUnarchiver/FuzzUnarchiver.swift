import Foundation
import FuzzSupport
import KeyedArchive

/// libFuzzer entry point: the secure unarchiver with a realistic allowed set (the standard
/// types plus `FuzzCreature` and `FuzzPoint`), then the same bytes through the typed,
/// untyped and generic decoding paths.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUnarchiver(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    let before = FuzzInsecure.constructed

    // 1. The one-call secure decode users write. FuzzInsecure is named but does not
    //    support secure coding: it must be refused before construction.
    do {
        _ = try KeyedUnarchiver.unarchivedObject(
            ofClasses: [FuzzCreature.self, FuzzPoint.self, FuzzInsecure.self], from: data)
    } catch {
        FuzzInput.requirePackageError(error, "unarchivedObject(ofClasses:)")
    }
    if FuzzInsecure.constructed != before {
        FuzzInput.fail("a secure decode constructed a type that does not support secure coding")
    }

    // 2. One unarchiver, several decodes (each failure must leave it usable).
    let unarchiver: KeyedUnarchiver
    do {
        unarchiver = try KeyedUnarchiver(forReadingFrom: data)
    } catch {
        FuzzInput.requirePackageError(error, "KeyedUnarchiver(forReadingFrom:)")
        return 0
    }
    let root = KeyedArchiver.rootObjectKey
    attempt("decodeObject(of: FuzzCreature)") {
        _ = try unarchiver.decodeObject(of: FuzzCreature.self, forKey: root)
    }
    attempt("decodeArrayOfObjects") {
        _ = try unarchiver.decodeArrayOfObjects(ofClass: FuzzPoint.self, forKey: root)
    }
    attempt("decodeDictionary") {
        _ = try unarchiver.decodeDictionary(
            withKeysOfClass: String.self, objectsOfClass: FuzzCreature.self, forKey: root)
    }
    attempt("scalars") {
        _ = try unarchiver.decodeInt32(forKey: root)
        _ = try unarchiver.decodeDouble(forKey: root)
        _ = try unarchiver.decodeBytes(forKey: root)
    }
    if FuzzInsecure.constructed != before {
        FuzzInput.fail("a secure decode constructed a type that does not support secure coding")
    }

    // 3. Insecure, untyped decoding with unknown classes as generic graphs.
    unarchiver.requiresSecureCoding = false
    unarchiver.options.decodesUnknownClassesGenerically = true
    attempt("decodeObject(forKey:)") { _ = try unarchiver.decodeObject(forKey: root) }
    attempt("objectGraph") { _ = try unarchiver.objectGraph().description.utf8.count }
    return 0
}

/// Runs one decode, accepting a value or a ``KeyedArchiveError``.
private func attempt(_ context: String, _ body: () throws -> Void) {
    do {
        try body()
    } catch {
        FuzzInput.requirePackageError(error, context)
    }
}
