import Foundation
import KeyedArchive
import TestSupport
import Testing

/// A node of a generated object graph: a DAG of shared children, plus back-references to
/// the root (a cycle through every node that has one).
final class GraphNode: SecureKeyedCoding {
    let id: Int
    var label: String
    var weight: Double
    var point: Point
    var children: [GraphNode] = []
    var favourite: GraphNode?
    weak var root: GraphNode?

    init(id: Int, label: String, weight: Double, point: Point) {
        self.id = id
        self.label = label
        self.weight = weight
        self.point = point
    }

    func encode(with coder: KeyedArchiver) {
        coder.encode(id, forKey: "id")
        coder.encode(label, forKey: "label")
        coder.encode(weight, forKey: "weight")
        coder.encode(point, forKey: "point")
        coder.encode(children, forKey: "children")
        coder.encode(favourite, forKey: "favourite")
        coder.encodeConditionalObject(root, forKey: "root")
    }

    init(coder: KeyedUnarchiver) throws {
        id = try coder.decodeInteger(forKey: "id")
        label = try coder.decodeObject(of: String.self, forKey: "label") ?? ""
        weight = try coder.decodeDouble(forKey: "weight")
        point = try coder.decodeObject(of: Point.self, forKey: "point") ?? Point(x: 0, y: 0)
        children = try coder.decodeArrayOfObjects(ofClass: GraphNode.self, forKey: "children") ?? []
        favourite = try coder.decodeObject(of: GraphNode.self, forKey: "favourite")
        try coder.decodeBackReference(of: GraphNode.self, forKey: "root") { [weak self] root in
            self?.root = root
        }
    }
}

/// A node of the reference bomb: each level refers to the previous one twice.
final class BombNode: SecureKeyedCoding {
    nonisolated(unsafe) static var initCount = 0
    var left: BombNode?
    var right: BombNode?
    func encode(with coder: KeyedArchiver) {}
    init(coder: KeyedUnarchiver) throws {
        BombNode.initCount += 1
        left = try coder.decodeObject(of: BombNode.self, forKey: "left")
        right = try coder.decodeObject(of: BombNode.self, forKey: "right")
    }
}

/// The same bomb decoded as values, which have no identity but are cached too.
struct BombValue: SecureKeyedCoding {
    nonisolated(unsafe) static var initCount = 0
    var children: [BombValue]
    func encode(with coder: KeyedArchiver) {}
    init(coder: KeyedUnarchiver) throws {
        BombValue.initCount += 1
        children = []
        if let left = try coder.decodeObject(of: BombValue.self, forKey: "left") { children.append(left) }
        if let right = try coder.decodeObject(of: BombValue.self, forKey: "right") { children.append(right) }
    }
}

/// Two value types read from the same objects; each decodes the previous level as both.
struct BombLeft: SecureKeyedCoding {
    nonisolated(unsafe) static var initCount = 0
    static var archivedClassName: String { "Bomb" }
    func encode(with coder: KeyedArchiver) {}
    init(coder: KeyedUnarchiver) throws {
        BombLeft.initCount += 1
        _ = try coder.decodeObject(of: BombLeft.self, forKey: "left")
        _ = try coder.decodeObject(of: BombRight.self, forKey: "right")
    }
}

struct BombRight: SecureKeyedCoding {
    static var archivedClassName: String { "Bomb" }
    func encode(with coder: KeyedArchiver) {}
    init(coder: KeyedUnarchiver) throws {
        BombLeft.initCount += 1
        _ = try coder.decodeObject(of: BombLeft.self, forKey: "left")
        _ = try coder.decodeObject(of: BombRight.self, forKey: "right")
    }
}

@Suite("Archive properties", .serialized)
struct ArchivePropertyTests {
    static func generateGraph(seed: UInt64) -> [GraphNode] {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 1...60, using: &random)
        let labels = ["a", "b", "c", "ünï", "$x", ""]
        let nodes = (0..<count).map { id in
            GraphNode(
                id: id, label: labels.randomElement(using: &random) ?? "",
                weight: Double(Int.random(in: -3...3, using: &random)) / 2,
                point: Point(x: Int.random(in: 0...2, using: &random), y: 0))
        }
        for (index, node) in nodes.enumerated() where index + 1 < count {
            // Children point forward only (a DAG), and are often shared.
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                node.children.append(nodes[Int.random(in: (index + 1)..<count, using: &random)])
            }
            if Bool.random(using: &random) {
                node.favourite = nodes[Int.random(in: (index + 1)..<count, using: &random)]
            }
        }
        for node in nodes.dropFirst() where Bool.random(using: &random) { node.root = nodes[0] }
        return nodes
    }

    /// Every node reachable from `root`, by id.
    static func reachable(from root: GraphNode) -> [Int: GraphNode] {
        var found: [Int: GraphNode] = [:]
        var stack = [root]
        while let node = stack.popLast() {
            guard found[node.id] == nil else { continue }
            found[node.id] = node
            stack += node.children
            if let favourite = node.favourite { stack.append(favourite) }
        }
        return found
    }

    @Test(arguments: 0..<60)
    func generatedGraphsRoundTripWithSharingIntact(seed: Int) throws {
        let nodes = Self.generateGraph(seed: UInt64(seed))
        let (archiver, plist) = ArchiveTest.archive(nodes[0])
        #expect(archiver.error == nil)
        let decodedRoot = try #require(
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: GraphNode.self, forKey: "root"))
        let original = Self.reachable(from: nodes[0])
        let decoded = Self.reachable(from: decodedRoot)
        #expect(Set(original.keys) == Set(decoded.keys), "seed \(seed)")
        // Each node is stored exactly once.
        #expect(ArchiveTest.objects(plist).filter { $0["id"] != nil }.count == original.count, "seed \(seed)")
        for (id, node) in original {
            let copy = try #require(decoded[id], "seed \(seed) node \(id)")
            #expect(copy.label == node.label && copy.weight == node.weight && copy.point == node.point)
            #expect(copy.children.map(\.id) == node.children.map(\.id), "seed \(seed) node \(id)")
            // Shared references decode as the same instance.
            for (child, originalChild) in zip(copy.children, node.children) {
                #expect(child === decoded[originalChild.id], "seed \(seed) node \(id)")
            }
            #expect(copy.favourite === node.favourite.flatMap { decoded[$0.id] }, "seed \(seed) node \(id)")
            // Back-references to the root were assigned before the decode returned.
            #expect((copy.root === decodedRoot) == (node.root != nil), "seed \(seed) node \(id)")
        }
    }

    /// `levels` objects, each referring to the previous one under `left` and `right`.
    static func bomb(levels: Int, className: String) -> PropertyList {
        var objects: [PropertyList] = ["$null", ArchiveTest.classDescription(className)]
        for level in 0..<levels {
            if level == 0 {
                objects.append(["$class": .uid(1)])
            } else {
                let previous = PropertyList.uid(UInt64(objects.count - 1))
                objects.append(["$class": .uid(1), "left": previous, "right": previous])
            }
        }
        return ArchiveTest.archivePlist(objects: objects, top: ["root": .uid(UInt64(objects.count - 1))])
    }

    @Test func referenceBombDecodesEachObjectOnce() throws {
        let plist = Self.bomb(levels: 24, className: "KeyedArchiveTests.BombNode")
        BombNode.initCount = 0
        let root = try #require(
            try KeyedUnarchiver(propertyList: plist).decodeObject(of: BombNode.self, forKey: "root"))
        #expect(BombNode.initCount == 24)
        #expect(root.left === root.right)

        let values = Self.bomb(levels: 24, className: "KeyedArchiveTests.BombValue")
        BombValue.initCount = 0
        _ = try KeyedUnarchiver(propertyList: values).decodeObject(of: BombValue.self, forKey: "root")
        #expect(BombValue.initCount == 24)

        // Values are cached per type: asking for two types decodes each object twice, not 2^n times.
        let mixed = Self.bomb(levels: 24, className: "Bomb")
        BombLeft.initCount = 0
        _ = try KeyedUnarchiver(propertyList: mixed).decodeObject(of: BombLeft.self, forKey: "root")
        #expect(BombLeft.initCount <= 2 * 24)
    }

    @Test func deepReferenceBombDecodesInLinearTime() throws {
        // 480 levels, 2^480 paths: only caching per object makes this finish.
        let plist = Self.bomb(levels: 480, className: "NSArray")
        var objects = ArchiveTest.objects(plist)
        for index in objects.indices.dropFirst(2) {
            guard var object = objects[index].dictionaryValue else { continue }
            let children = [object["left"], object["right"]].compactMap { $0 }
            object["left"] = nil
            object["right"] = nil
            object["NS.objects"] = .array(children)
            objects[index] = .dictionary(object)
        }
        let arrays = ArchiveTest.archivePlist(
            objects: objects, top: try #require(plist["$top"]?.dictionaryValue))
        let start = ContinuousClock.now
        let decoded = try KeyedUnarchiver(propertyList: arrays).decodeObject(of: [], forKey: "root")
        #expect(decoded is [Any])
        let graph = try KeyedUnarchiver.objectGraph(from: arrays)
        #expect(graph.referenceCount(of: 2) == 2)
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
