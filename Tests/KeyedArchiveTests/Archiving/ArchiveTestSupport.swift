import Foundation
import KeyedArchive
import Testing

// MARK: - Test types

/// A class with scalars, strings, collections and an optional reference.
final class Creature: SecureKeyedCoding, CustomStringConvertible {
    var name: String
    var legs: Int
    var weight: Double
    var tags: [String]
    var friend: Creature?

    init(name: String, legs: Int = 4, weight: Double = 1.5, tags: [String] = [], friend: Creature? = nil) {
        self.name = name
        self.legs = legs
        self.weight = weight
        self.tags = tags
        self.friend = friend
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(legs, forKey: "legs")
        coder.encode(weight, forKey: "weight")
        coder.encode(tags, forKey: "tags")
        coder.encode(friend, forKey: "friend")
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
        legs = try coder.decodeInteger(forKey: "legs")
        weight = try coder.decodeDouble(forKey: "weight")
        tags = try coder.decodeArrayOfObjects(ofClass: String.self, forKey: "tags") ?? []
        friend = try coder.decodeObject(of: Creature.self, forKey: "friend")
    }

    var description: String { "Creature(\(name))" }
}

/// A struct: no identity, de-duplicated by value.
struct Point: SecureKeyedCoding, Hashable {
    var x: Int
    var y: Int

    init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(x, forKey: "x")
        coder.encode(y, forKey: "y")
    }

    init(coder: KeyedUnarchiver) throws {
        x = try coder.decodeInteger(forKey: "x")
        y = try coder.decodeInteger(forKey: "y")
    }
}

/// A class hierarchy whose subclasses get their own archived names.
class Shape: SecureKeyedCoding {
    var label: String
    init(label: String) { self.label = label }
    func encode(with coder: KeyedArchiver) { coder.encode(label, forKey: "label") }
    required init(coder: KeyedUnarchiver) throws {
        label = try coder.decodeObject(of: String.self, forKey: "label") ?? ""
    }
}

class Circle: Shape {
    var radius: Double
    init(label: String, radius: Double) {
        self.radius = radius
        super.init(label: label)
    }
    override func encode(with coder: KeyedArchiver) {
        super.encode(with: coder)
        coder.encode(radius, forKey: "radius")
    }
    required init(coder: KeyedUnarchiver) throws {
        radius = try coder.decodeDouble(forKey: "radius")
        try super.init(coder: coder)
    }
}

final class UnitCircle: Circle {}

/// A type that does not adopt SecureKeyedCoding.
struct Insecure: KeyedCoding, Equatable {
    var value: Int
    init(value: Int) { self.value = value }
    func encode(with coder: KeyedArchiver) { coder.encode(value, forKey: "value") }
    init(coder: KeyedUnarchiver) throws { value = try coder.decodeInteger(forKey: "value") }
}

/// A type that adopts SecureKeyedCoding but opts out.
struct OptedOut: SecureKeyedCoding {
    static var supportsSecureCoding: Bool { false }
    init() {}
    func encode(with coder: KeyedArchiver) {}
    init(coder: KeyedUnarchiver) throws {}
}

/// A type with a stable archived name, independent of its Swift name.
struct Renamed: SecureKeyedCoding, Equatable {
    static var archivedClassName: String { "Legacy.Thing" }
    var text: String
    init(text: String) { self.text = text }
    func encode(with coder: KeyedArchiver) { coder.encode(text, forKey: "text") }
    init(coder: KeyedUnarchiver) throws {
        text = try coder.decodeObject(of: String.self, forKey: "text") ?? ""
    }
}

/// A folder whose items point back to it: a cycle through the back-reference mechanism.
final class Folder: SecureKeyedCoding {
    var name: String
    var items: [Item] = []

    init(name: String) { self.name = name }

    func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(items, forKey: "items")
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeObject(of: String.self, forKey: "name") ?? ""
        items = try coder.decodeArrayOfObjects(ofClass: Item.self, forKey: "items") ?? []
    }
}

final class Item: SecureKeyedCoding {
    var title: String
    weak var parent: Folder?
    /// Set when `parent` was assigned, to check assignments ran before the decode returned.
    var parentAssigned = false

    init(title: String, parent: Folder) {
        self.title = title
        self.parent = parent
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(title, forKey: "title")
        coder.encodeConditionalObject(parent, forKey: "parent")
    }

    init(coder: KeyedUnarchiver) throws {
        title = try coder.decodeObject(of: String.self, forKey: "title") ?? ""
        try coder.decodeBackReference(of: Folder.self, forKey: "parent") { [weak self] folder in
            self?.parent = folder
            self?.parentAssigned = true
        }
    }
}

/// The same shape as Item, but decoding the parent naively: a cycle that must fail.
final class NaiveItem: SecureKeyedCoding {
    static var archivedClassName: String { "KeyedArchiveTests.Item" }
    var title: String
    var parent: NaiveFolder?

    func encode(with coder: KeyedArchiver) {}

    init(coder: KeyedUnarchiver) throws {
        title = try coder.decodeObject(of: String.self, forKey: "title") ?? ""
        parent = try coder.decodeObject(of: NaiveFolder.self, forKey: "parent")
    }
}

final class NaiveFolder: SecureKeyedCoding {
    static var archivedClassName: String { "KeyedArchiveTests.Folder" }
    var items: [NaiveItem]

    func encode(with coder: KeyedArchiver) {}

    init(coder: KeyedUnarchiver) throws {
        items = try coder.decodeArrayOfObjects(ofClass: NaiveItem.self, forKey: "items") ?? []
    }
}

// MARK: - Helpers

enum ArchiveTest {
    /// Archives `object` under `root` and returns the archive as a property list, without
    /// going through bytes (so these tests do not depend on the plist writers).
    static func archive(
        _ object: any KeyedCoding, secure: Bool = true, configure: (KeyedArchiver) -> Void = { _ in }
    ) -> (archiver: KeyedArchiver, plist: PropertyList) {
        let archiver = KeyedArchiver(requiringSecureCoding: secure)
        configure(archiver)
        archiver.encode(object, forKey: KeyedArchiver.rootObjectKey)
        return (archiver, archiver.encodedPropertyList)
    }

    /// Archives and decodes back `object` as a `T`.
    static func roundTrip<T: KeyedCoding>(_ object: T, secure: Bool = true) throws -> T? {
        let (archiver, plist) = archive(object, secure: secure)
        if let error = archiver.error { throw error }
        let unarchiver = try KeyedUnarchiver(propertyList: plist)
        unarchiver.requiresSecureCoding = secure
        return try unarchiver.decodeObject(of: T.self, forKey: KeyedArchiver.rootObjectKey)
    }

    static func objects(_ plist: PropertyList) -> [PropertyList] {
        plist["$objects"]?.arrayValue ?? []
    }

    static func rootUID(_ plist: PropertyList) -> Int? {
        plist["$top"]?["root"]?.uidValue.map { Int($0) }
    }

    static func rootObject(_ plist: PropertyList) -> PropertyListDictionary? {
        guard let uid = rootUID(plist) else { return nil }
        let objects = objects(plist)
        return objects.indices.contains(uid) ? objects[uid].dictionaryValue : nil
    }

    /// Builds a keyed-archive property list from `$objects` entries and a root UID.
    static func archivePlist(objects: [PropertyList], top: PropertyListDictionary) -> PropertyList {
        [
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": .dictionary(top),
            "$objects": .array(objects),
        ]
    }

    static func classDescription(_ name: String, _ chain: [String]? = nil) -> PropertyList {
        ["$classname": .string(name), "$classes": .array((chain ?? [name, "NSObject"]).map { .string($0) })]
    }

    /// The error thrown by `body`, which must throw a KeyedArchiveError.
    static func error<R>(_ body: () throws -> R) -> KeyedArchiveError? {
        do {
            _ = try body()
            return nil
        } catch let error as KeyedArchiveError {
            return error
        } catch {
            Issue.record("expected KeyedArchiveError, got \(error)")
            return nil
        }
    }
}
