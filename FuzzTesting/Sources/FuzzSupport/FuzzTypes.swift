import Foundation
import KeyedArchive

/// A class with the usual kinds of fields: scalars, strings, collections, a reference to
/// another creature, a struct, and a back reference to its parent.
public final class FuzzCreature: SecureKeyedCoding {
    /// A stable archived name, so that seeds do not depend on the module name.
    public static var archivedClassName: String { "FuzzCreature" }

    var name: String?
    var legs = 0
    var weight = 0.0
    var scary = false
    var tags: [String]?
    var friend: FuzzCreature?
    var home: FuzzPoint?
    var scores: [String: Int]?
    var bytes: Data?
    var born: Date?
    var children: [FuzzCreature]?
    weak var parent: FuzzCreature?

    /// Creates a creature for seeds.
    ///
    /// - Parameter name: Its name.
    public init(name: String) { self.name = name }

    /// Writes the fields (used to make seeds).
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(name, forKey: "name")
        coder.encode(legs, forKey: "legs")
        coder.encode(weight, forKey: "weight")
        coder.encode(scary, forKey: "scary")
        coder.encode(tags, forKey: "tags")
        coder.encode(friend, forKey: "friend")
        coder.encode(home, forKey: "home")
        coder.encode(scores, forKey: "scores")
        coder.encode(bytes, forKey: "bytes")
        coder.encode(born, forKey: "born")
        coder.encode(children, forKey: "children")
        coder.encodeConditionalObject(parent, forKey: "parent")
    }

    /// Decodes the fields, as an application would.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: What the unarchiver throws.
    public init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeObject(of: String.self, forKey: "name")
        legs = try coder.decodeInteger(forKey: "legs")
        weight = try coder.decodeDouble(forKey: "weight")
        scary = try coder.decodeBool(forKey: "scary")
        tags = try coder.decodeArrayOfObjects(ofClass: String.self, forKey: "tags")
        friend = try coder.decodeObject(of: FuzzCreature.self, forKey: "friend")
        home = try coder.decodeObject(of: FuzzPoint.self, forKey: "home")
        scores = try coder.decodeDictionary(
            withKeysOfClass: String.self, objectsOfClass: Int.self, forKey: "scores")
        bytes = try coder.decodeBytes(forKey: "bytes") ?? coder.decodeObject(of: Data.self, forKey: "data")
        born = try coder.decodeObject(of: Date.self, forKey: "born")
        children = try coder.decodeArrayOfObjects(ofClass: FuzzCreature.self, forKey: "children")
        try coder.decodeBackReference(of: FuzzCreature.self, forKey: "parent") { [weak self] parent in
            self?.parent = parent
        }
    }
}

/// A struct with narrow scalar types (range checks) and a value of one of several classes.
public struct FuzzPoint: SecureKeyedCoding {
    /// A stable archived name.
    public static var archivedClassName: String { "FuzzPoint" }

    var x: Int32 = 0
    var y: Float = 0
    var label: Any?

    /// Creates a point for seeds.
    ///
    /// - Parameters:
    ///   - x: The x coordinate.
    ///   - y: The y coordinate.
    public init(x: Int32, y: Float) {
        self.x = x
        self.y = y
    }

    /// Writes the fields (used to make seeds).
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {
        coder.encode(x, forKey: "x")
        coder.encode(y, forKey: "y")
        coder.encode(label as? String, forKey: "label")
    }

    /// Decodes the fields, as an application would.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: What the unarchiver throws.
    public init(coder: KeyedUnarchiver) throws {
        x = try coder.decodeInt32(forKey: "x")
        y = try coder.decodeFloat(forKey: "y")
        label = try coder.decodeObject(
            of: [String.self, Int.self, [String].self, UUID.self], forKey: "label")
    }
}

/// A type that does not support secure coding: a secure decode must never construct it,
/// even when the caller names it among the allowed classes.
public struct FuzzInsecure: KeyedCoding {
    /// A stable archived name.
    public static var archivedClassName: String { "FuzzInsecure" }

    /// How many instances `init(coder:)` has built (the fuzzer is single-threaded).
    nonisolated(unsafe) public static var constructed = 0

    /// Writes the fields (used to make seeds).
    ///
    /// - Parameter coder: The archiver.
    public func encode(with coder: KeyedArchiver) {}

    /// Decodes the fields, as an application would.
    ///
    /// - Parameter coder: The unarchiver.
    /// - Throws: What the unarchiver throws.
    public init(coder: KeyedUnarchiver) throws {
        FuzzInsecure.constructed += 1
    }
}
