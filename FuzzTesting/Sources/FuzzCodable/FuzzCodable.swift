import Foundation
import FuzzSupport
@_spi(Fuzzing) import KeyedArchive

/// libFuzzer entry point: the Codable bridge. `KeyedArchiveDecoder` and `decodeDecodable`
/// on a realistic model, each read in place (from the bytes) and through a property-list
/// tree: both readings must give equal values, or both fail.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCodable(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    // The tree, when the bytes read as a property list at all; a lazy in-place reading
    // may succeed where reading everything fails (damage nothing asks for).
    let tree = try? PropertyList(from: data)

    // KeyedArchiveDecoder: classes shared by reference, structs, collections.
    let inPlaceNode = outcome("KeyedArchiveDecoder") {
        try KeyedArchiveDecoder().decode(FuzzNode.self, from: data)
    }
    if let tree {
        let treeNode = outcome("KeyedArchiveDecoder (tree)") {
            try KeyedArchiveDecoder().decode(FuzzNode.self, fromPropertyList: tree)
        }
        compare(inPlaceNode, treeNode, "KeyedArchiveDecoder") { FuzzNode.fingerprint($0) }
    }

    // decodeDecodable: Foundation's layout, under the root key of an NSKeyedArchiver archive.
    let inPlaceRecord = outcome("decodeDecodable") {
        try KeyedUnarchiver(forReadingFrom: data).decodeDecodable(FuzzRecord.self, forKey: "root")
    }
    if let tree {
        let treeRecord = outcome("decodeDecodable (tree)") {
            try KeyedUnarchiver(propertyList: tree).decodeDecodable(FuzzRecord.self, forKey: "root")
        }
        compare(inPlaceRecord, treeRecord, "decodeDecodable") { String(describing: $0) }
    }
    return 0
}

/// A decode's value, or `nil` when it threw an accepted error (a `DecodingError` whose
/// underlying error, if any, is the package's, or the package's error itself).
private func outcome<T>(_ context: String, _ body: () throws -> T?) -> T?? {
    do {
        return .some(try body())
    } catch let error as DecodingError {
        let underlying: (any Error)?
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            underlying = context.underlyingError
        @unknown default:
            underlying = nil
        }
        if let underlying { FuzzInput.requirePackageError(underlying, context) }
        return nil
    } catch {
        FuzzInput.requirePackageError(error, context)
        return nil
    }
}

/// Stops the fuzzer when one reading gave a value and the other a different value, or
/// failed. A failure of the tree reading alone for a limit is accepted: it materializes
/// what the in-place reading never reads.
private func compare<T>(_ inPlace: T??, _ tree: T??, _ context: String, _ describe: (T) -> String) {
    switch (inPlace, tree) {
    case (nil, nil): return
    case (let value??, let other??):
        let (a, b) = (describe(value), describe(other))
        if a != b { FuzzInput.fail("\(context): in place \(a.prefix(2000)) but tree \(b.prefix(2000))") }
    case (.some(nil), .some(nil)): return
    case (.some, nil):
        FuzzInput.fail("\(context): the in-place reading gave a value, the tree reading failed")
    case (nil, .some):
        FuzzInput.fail("\(context): the tree reading gave a value, the in-place reading failed")
    default:
        FuzzInput.fail("\(context): one reading gave nil, the other a value")
    }
}
