import Foundation
import KeyedArchive
import Testing

final class Part: Codable {
    var name: String
    var weight: Double
    init(name: String, weight: Double) {
        self.name = name
        self.weight = weight
    }
}

struct Assembly: Codable {
    var parts: [Part]
    var favourite: Part
    var byName: [String: Part]
    var optionalPart: Part?
    var labels: [String?]
}

final class Node: Codable {
    var value: Int
    var children: [Node] = []
    init(value: Int) { self.value = value }
}

@Suite("KeyedArchiveEncoder and KeyedArchiveDecoder")
struct KeyedArchiveEncoderTests {
    static func assembly() -> Assembly {
        let parts = (0..<3).map { Part(name: "part \($0)", weight: Double($0) + 0.5) }
        return Assembly(
            parts: parts, favourite: parts[1], byName: ["first": parts[0], "last": parts[2]],
            optionalPart: parts[0],
            labels: ["a", nil, "c"])
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func sharedInstancesStayShared(format: PropertyListFormat) throws {
        var encoder = KeyedArchiveEncoder()
        encoder.outputFormat = format
        let data = try encoder.encode(Self.assembly())
        #expect(PropertyListFormat.detect(data) == format)
        let decoded = try KeyedArchiveDecoder().decode(Assembly.self, from: data)
        #expect(decoded.parts.map(\.name) == ["part 0", "part 1", "part 2"])
        #expect(decoded.favourite === decoded.parts[1])
        #expect(decoded.byName["first"] === decoded.parts[0])
        #expect(decoded.byName["last"] === decoded.parts[2])
        #expect(decoded.optionalPart === decoded.parts[0])
        #expect(decoded.labels == ["a", nil, "c"])

        // Each Part is stored once.
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        let partObjects = graph.nodes.filter {
            if case .object(let object) = $0 { return object.className == String(reflecting: Part.self) }
            return false
        }
        #expect(partObjects.count == 3, "\(graph)")
    }

    @Test func sharedSubtreesOfClassesDecodeOnce() throws {
        let leaf = Node(value: 1)
        let root = Node(value: 0)
        root.children = [leaf, leaf, Node(value: 2)]
        root.children[2].children = [leaf]
        let decoded = try KeyedArchiveDecoder().decode(Node.self, from: KeyedArchiveEncoder().encode(root))
        #expect(decoded.children[0] === decoded.children[1])
        #expect(decoded.children[2].children[0] === decoded.children[0])
    }

    @Test func classNamesCanBeChosen() throws {
        var encoder = KeyedArchiveEncoder()
        encoder.classNameForType = { $0 == Part.self ? "Part" : nil }
        let data = try encoder.encode(Self.assembly())
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        let names = Set(
            graph.nodes.compactMap { node -> String? in
                if case .object(let object) = node { return object.className }
                return nil
            })
        #expect(names.contains("Part"))
        #expect(names.contains(String(reflecting: Assembly.self)))
        #expect(names.contains("NSDictionary"))
        #expect(names.contains("NSArray"))
        #expect(names.contains("NSNull"))
    }

    @Test func foundationParsesTheArchive() throws {
        let data = try KeyedArchiveEncoder().encode(Self.assembly())
        // Foundation on Linux aborts on unknown classes, so check it parses the archive as a
        // property list with Apple's keyed-archive header.
        let plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        let root = try #require(plist as? [String: Any])
        #expect(root["$archiver"] as? String == "NSKeyedArchiver")
        #expect((root["$objects"] as? [Any])?.first as? String == "$null")
    }

    @Test func cyclesAreRefused() throws {
        let node = Node(value: 0)
        node.children = [node]
        #expect {
            _ = try KeyedArchiveEncoder().encode(node)
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error,
                let underlying = context.underlyingError as? KeyedArchiveError
            else { return false }
            return underlying.code == .unresolvableCycle
                && underlying.location == .keyPath("root.children[0]")
        }
        node.children = []
    }

    @Test func hostileCycleFailsClearly() throws {
        // root is a Node whose children array contains root itself.
        let name = String(reflecting: Node.self)
        let plist: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(2), "value": 1, "children": .uid(3)],
                ["$classname": .string(name), "$classes": [.string(name), "NSObject"]],
                ["$class": .uid(4), "NS.objects": [.uid(1)]],
                ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]],
            ],
        ]
        let data = try plist.data(format: .binary)
        #expect {
            _ = try KeyedArchiveDecoder().decode(Node.self, from: data)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error,
                let underlying = context.underlyingError as? KeyedArchiveError
            else { return false }
            return underlying.code == .unresolvableCycle
        }
    }

    @Test func corruptBytesAreDecodingErrors() {
        #expect(throws: DecodingError.self) {
            _ = try KeyedArchiveDecoder().decode(Int.self, from: Data("bplist00garbage".utf8))
        }
    }

    @Test func typeMismatchCarriesKeyPath() throws {
        let data = try KeyedArchiveEncoder().encode(Self.assembly())
        struct Wrong: Decodable { var parts: [Int] }
        do {
            _ = try KeyedArchiveDecoder().decode(Wrong.self, from: data)
            Issue.record("decoded parts as integers")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect((context.underlyingError as? KeyedArchiveError)?.location == .keyPath("root.parts[0]"))
        }
    }

    /// Keys read in another order than written, missing keys, and a dictionary large
    /// enough to be searched by hash: the lookup shortcuts must not change results.
    struct Reversed: Codable, Equatable {
        var first: Int
        var second: String
        var third: Double
        var table: [String: Int]

        enum CodingKeys: String, CodingKey { case first, second, third, table, absent }

        init(first: Int, second: String, third: Double, table: [String: Int]) {
            self.first = first
            self.second = second
            self.third = third
            self.table = table
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(first, forKey: .first)
            try container.encode(second, forKey: .second)
            try container.encode(third, forKey: .third)
            try container.encode(table, forKey: .table)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            table = try container.decode([String: Int].self, forKey: .table)
            third = try container.decode(Double.self, forKey: .third)
            #expect(try container.decodeIfPresent(Int.self, forKey: .absent) == nil)
            second = try container.decode(String.self, forKey: .second)
            first = try container.decode(Int.self, forKey: .first)
        }
    }

    @Test func keysInAnyOrderAndLargeDictionaries() throws {
        let table = Dictionary(uniqueKeysWithValues: (0..<40).map { ("key\($0)", $0 * 3) })
        let values = [
            Reversed(first: 7, second: "x", third: 2.5, table: table),
            Reversed(first: 8, second: "y", third: -1, table: ["only": 5]),
        ]
        let data = try KeyedArchiveEncoder().encode(values)
        #expect(try KeyedArchiveDecoder().decode([Reversed].self, from: data) == values)

        let archiver = KeyedArchiver()
        try archiver.encodeEncodable(values, forKey: "values")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        #expect(try unarchiver.decodeDecodable([Reversed].self, forKey: "values") == values)
    }

    @Test func errorCodingPathIsBuiltFromTheLinks() throws {
        let data = try KeyedArchiveEncoder().encode(Self.assembly())
        struct Wrong: Decodable { var parts: [Int] }
        do {
            _ = try KeyedArchiveDecoder().decode(Wrong.self, from: data)
            Issue.record("decoded parts as integers")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["parts", "Index 0"])
            #expect(context.codingPath.last?.intValue == 0)
        }
    }
}
