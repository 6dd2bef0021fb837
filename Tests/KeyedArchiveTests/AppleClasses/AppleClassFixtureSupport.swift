import Foundation
import KeyedArchive
import TestSupport
import Testing

/// Helpers for reading one object of an Apple-made fixture as a typed value and comparing
/// what we write back with what Apple wrote.
enum AppleFixture {
    static let folder = "apple-keyed-archives"

    /// The bytes of `apple-keyed-archives/<name>`, or `nil` when the fixtures are absent.
    static func data(_ name: String) throws -> Data? {
        guard Fixtures.isAvailable else { return nil }
        return try Data(contentsOf: Fixtures.root.appendingPathComponent("\(folder)/\(name)"))
    }

    /// The archive's property list.
    static func propertyList(_ name: String) throws -> PropertyList? {
        guard let data = try data(name) else { return nil }
        return try PropertyList(from: data)
    }

    /// The indices of the objects of class `className` in the archive.
    static func objects(ofClass className: String, in archive: PropertyList) -> [Int] {
        guard let objects = archive["$objects"]?.arrayValue else { return [] }
        return objects.indices.filter { index in
            guard let classUID = objects[index]["$class"]?.uidValue, Int(classUID) < objects.count else {
                return false
            }
            return objects[Int(classUID)]["$classname"]?.stringValue == className
        }
    }

    /// The archive with `$top` = `{root: uid}`, so that any object can be decoded as the root.
    static func rerooted(_ archive: PropertyList, at uid: Int) throws -> Data {
        guard case .dictionary(var dictionary) = archive else { throw Failure("not a dictionary") }
        dictionary["$top"] = .dictionary(["root": .uid(UInt64(uid))])
        return try PropertyList.dictionary(dictionary).data(format: .binary)
    }

    /// Object `uid` of `archive` decoded as a `T`.
    static func decode<T: KeyedCoding>(_ type: T.Type, at uid: Int, in archive: PropertyList) throws -> T {
        let data = try rerooted(archive, at: uid)
        guard let value = try KeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data) else {
            throw Failure("object #\(uid) decoded as nil")
        }
        return value
    }

    /// The object tree rooted at `value` with every reference replaced by what it refers
    /// to and `$class` by its class chain: two archives that store the same objects,
    /// numbered or shared differently, have equal trees.
    static func tree(_ value: PropertyList, in objects: [PropertyList], depth: Int = 0) -> PropertyList {
        guard depth < 64 else { return .string("<too deep>") }
        switch value {
        case .uid(let raw):
            let uid = Int(raw)
            guard uid != 0, uid < objects.count else { return .string("$null") }
            return tree(objects[uid], in: objects, depth: depth + 1)
        case .array(let elements):
            return .array(elements.map { tree($0, in: objects, depth: depth + 1) })
        case .dictionary(let dictionary):
            var result = PropertyListDictionary()
            for (key, element) in dictionary {
                if key == "$class", let classUID = element.uidValue, Int(classUID) < objects.count {
                    result[key] = objects[Int(classUID)]["$classes"] ?? .string("?")
                } else {
                    result[key] = tree(element, in: objects, depth: depth + 1)
                }
            }
            return .dictionary(result)
        default:
            return value
        }
    }

    /// The tree of object `uid` of an archive.
    static func tree(of uid: Int, in archive: PropertyList) -> PropertyList {
        tree(.uid(UInt64(uid)), in: archive["$objects"]?.arrayValue ?? [])
    }

    /// The tree of the root of an archive we wrote.
    static func rootTree(_ data: Data) throws -> PropertyList {
        let archive = try PropertyList(from: data)
        guard let root = archive["$top"]?["root"] else { throw Failure("no root") }
        return tree(root, in: archive["$objects"]?.arrayValue ?? [])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
