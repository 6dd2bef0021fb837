import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import KeyedArchive
@testable import TypedStreamFormat

/// Hardening III: numbers near the ends of their range at every place the typedstream
/// readers turn one into an index, class chains that loop or run long, and work that stays
/// linear in the stream on every entry point.
@Suite("Typedstream hardening III")
struct TypedStreamHardeningTests {
    static let header = TypedStreamBytes.header

    /// Head bytes followed by extreme values: each one a number no table can hold, and
    /// some that overflowed `raw - firstReference` before it was checked.
    static let extremeNumbers: [[UInt8]] = [
        [0x87, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],  // Int64.max
        [0x87, 0x92, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],  // Int64.max - 109
        [0x87, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80],  // Int64.min
        [0x87, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],  // -1
        [0x82, 0xff, 0xff, 0xff, 0x7f],  // Int32.max
        [0x82, 0x00, 0x00, 0x00, 0x80],  // Int32.min
        [0x81, 0xff, 0x7f],  // Int16.max
        [0x81, 0x00, 0x80],  // Int16.min
        [0x7f],  // the largest one-byte reference
    ]

    /// Streams putting `number` where each reader turns a number into an index.
    static func streamsWithReference(_ number: [UInt8]) -> [(String, Data)] {
        let at = UInt8(ascii: "@")
        return [
            // The type encoding of the first group, a shared-string reference.
            ("group encoding", Data(header + number)),
            // An object reference.
            ("object", Data(header + [0x84, 0x01, at] + number)),
            // The class of a new object.
            ("class", Data(header + [0x84, 0x01, at, 0x84] + number)),
            // The name of a new class.
            ("class name", Data(header + [0x84, 0x01, at, 0x84, 0x84] + number)),
            // The superclass of a new class.
            ("superclass", Data(header + [0x84, 0x01, at, 0x84, 0x84, 0x84, 0x01, 0x41, 0x00] + number)),
            // A C string reference.
            ("C string", Data(header + [0x84, 0x01, UInt8(ascii: "*")] + number)),
            // An NSAttributedString whose text is a reference (the body reader's object path).
            ("attributed text", Data(attributedStringPrefix() + [0x92] + number)),
        ]
    }

    /// `@`, a new NSAttributedString < NSObject: shared strings 0 "@", 1 and 2 the names;
    /// objects 0 the string, classes 1 and 2.
    static func attributedStringPrefix() -> [UInt8] {
        header + [0x84, 0x01, UInt8(ascii: "@"), 0x84, 0x84, 0x84, 0x12] + Array("NSAttributedString".utf8)
            + [0x00, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85]
    }

    /// Every library entry point that reads a typedstream, as a name and a closure.
    static let entryPoints: [(String, @Sendable (Data) throws -> Void)] = [
        ("isTypedStream", { _ = TypedStreamUnarchiver.isTypedStream($0) }),
        ("unarchivedObject", { _ = try TypedStreamUnarchiver.unarchivedObject(from: $0) }),
        ("objectGraph", { _ = try TypedStreamUnarchiver.objectGraph(from: $0).archivedObjectGraph() }),
        ("IMessageBody", { _ = try IMessageBody(attributedBody: $0) }),
        ("general body reader", { _ = try IMessageBodyReadingPaths.generalReading($0) }),
        (
            "one-pass body reader",
            { _ = TypedStreamBodyReader.attributedString($0, maximumObjectCount: 1 << 24) }
        ),
        ("colour list", { _ = try TypedStreamColorList(typedStream: $0) }),
        ("nib", { _ = try TypedStreamNib(typedStream: $0) }),
        ("graph description", { _ = try TypedStreamUnarchiver.objectGraph(from: $0).description }),
        (
            "written back",
            { _ = try TypedStreamArchiver.archivedData(of: try TypedStreamUnarchiver.objectGraph(from: $0)) }
        ),
    ]

    /// Entry points that answer without throwing (a Boolean, or `nil` to hand over).
    static let answersWithoutThrowing: Set<String> = ["isTypedStream", "one-pass body reader"]

    @Test("a 25-byte stream with a reference of Int64.max is an error, not a trap")
    func twentyFiveBytes() {
        let data = Data(Self.header + Self.extremeNumbers[0])
        #expect(data.count == 25)
        TypedStreamHostileTests.expectError(data, .corruptData, containing: "out of range")
    }

    @Test("extreme numbers at every reference site, on every entry point")
    func extremeReferences() {
        for number in Self.extremeNumbers {
            for (site, data) in Self.streamsWithReference(number) {
                for (name, read) in Self.entryPoints {
                    do {
                        try read(data)
                    } catch is KeyedArchiveError {
                    } catch {
                        Issue.record("\(site) \(number) via \(name): not a KeyedArchiveError: \(error)")
                    }
                }
                #expect(IMessageBodyReadingPaths.disagreement(in: data) == nil)
            }
        }
    }

    /// A new object of a new class named `name` whose superclass is `superclass` (bytes: a
    /// reference or nil), within the group `@` already declared.
    static func objectOfNewClass(nameBytes: [UInt8], superclass: [UInt8]) -> [UInt8] {
        [0x84, 0x84] + nameBytes + [0x00] + superclass + [0x86]
    }

    @Test("a class that is its own superclass (a reference to a class still being read) is refused")
    func selfSuperclass() {
        // Object #0, class A #1 whose superclass is reference 0x93 = #1 itself.
        let data = Data(
            Self.header + [0x84, 0x01, UInt8(ascii: "@"), 0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x93, 0x86])
        TypedStreamHostileTests.expectError(data, .corruptData, containing: "still being read")
        // Class B #2 < class A #1 < reference to #2: a loop through two classes.
        let loop = Data(
            Self.header + [
                0x84, 0x01, UInt8(ascii: "@"), 0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x84, 0x84, 0x01, 0x42,
                0x00, 0x93, 0x86,
            ])
        TypedStreamHostileTests.expectError(loop, .corruptData, containing: "still being read")
        for (name, read) in Self.entryPoints where !Self.answersWithoutThrowing.contains(name) {
            #expect(throws: KeyedArchiveError.self, "\(name)") { try read(data) }
            #expect(throws: KeyedArchiveError.self, "\(name)") { try read(loop) }
        }
        #expect(TypedStreamBodyReader.attributedString(data, maximumObjectCount: 1 << 24) == nil)
        #expect(TypedStreamBodyReader.attributedString(loop, maximumObjectCount: 1 << 24) == nil)
    }

    @Test("class chains: 64 classes read, 65 refused")
    func chainLength() throws {
        let graph = try TypedStreamUnarchiver.objectGraph(from: Data(TypedStreamBytes.chain(length: 64)))
        guard case .object(let index)? = graph.root, let object = graph.object(at: index) else {
            Issue.record("no root object")
            return
        }
        #expect(graph.classChain(of: object).count == 64)
        #expect(graph.archivedObjectGraph().object(at: 1)?.classChain.count == 64)
        TypedStreamHostileTests.expectError(
            Data(TypedStreamBytes.chain(length: 65)), .corruptData, containing: "longer than 64")
        // An object of 60 classes holding an object of a new class whose superclass is the
        // first of them (60 long): 61, read; one of 5 new classes on top: 65, refused.
        var bytes = Array(TypedStreamBytes.chain(length: 60).dropLast(1))
        bytes += [0x92, 0x84, 0x84, 0x84, 0x01, 0x58, 0x00, 0x93, 0x86, 0x86]
        let sixtyOne = try TypedStreamUnarchiver.objectGraph(from: Data(bytes))
        #expect(sixtyOne.classChain(ofClassAt: 62).count == 61)
        var five = Array(TypedStreamBytes.chain(length: 60).dropLast(1)) + [0x92, 0x84]
        for name in "VWXYZ".utf8 { five += [0x84, 0x84, 0x01, name, 0x00] }
        five += [0x93, 0x86, 0x86]
        TypedStreamHostileTests.expectError(Data(five), .corruptData, containing: "longer than 64")
    }

    /// The work an input costs on every typedstream entry point that walks objects and
    /// their classes: names in the keyed graph's chains, characters of the description,
    /// bytes written back.
    static func work(_ data: Data) throws -> Int {
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        let keyed = graph.archivedObjectGraph()
        var names = 0
        for node in keyed.nodes {
            switch node {
            case .object(let object): names += object.classChain.count
            case .classDescription(let found): names += found.classChain.count
            default: break
            }
        }
        let written = try TypedStreamArchiver.archivedData(of: graph)
        return names + graph.description.utf8.count + written.count
    }

    @Test("work grows linearly with the input on the many-classes shape")
    func linearWork() throws {
        let small = TypedStreamBytes.manyClasses(objects: 2_000)
        let large = TypedStreamBytes.manyClasses(objects: 4_000)
        #expect(large.count < small.count * 2 + 1_000)
        let ratio = Double(try Self.work(large)) / Double(try Self.work(small))
        #expect(ratio <= 2.2, "work grew \(ratio)× for twice the input")
        // A 60 KB stream of this shape, every entry point within its bounds.
        let big = TypedStreamBytes.manyClasses(objects: 9_000)
        #expect(big.count < 64 * 1024)
        let clock = ContinuousClock()
        let elapsed = try clock.measure { _ = try Self.work(big) }
        // A debug build; HostileCorpusTests and the hostile matrix check the release tool.
        #expect(elapsed < .seconds(10), "\(elapsed)")
        for (name, read) in Self.entryPoints {
            do { try read(big) } catch is KeyedArchiveError {} catch { Issue.record("\(name): \(error)") }
        }
    }

    @Test("an iMessage body whose attribute values are objects of many unknown classes")
    func bodyWithUnknownClasses() throws {
        let small = try TypedStreamBytes.bodyWithUnknownClasses(count: 1_000)
        let large = try TypedStreamBytes.bodyWithUnknownClasses(count: 2_000)
        #expect(large.count < 64 * 1024, "\(large.count) bytes")
        let body = try IMessageBody(attributedBody: large)
        #expect(body.text == "ab")
        let attributes = try #require(body.runs.first?.attributes)
        #expect(attributes.count == 2_000)
        guard case .object(let graph)? = attributes["k7"] else {
            Issue.record("k7 is \(String(describing: attributes["k7"]))")
            return
        }
        guard case .reference(let uid)? = graph.root, let root = graph.object(at: uid) else {
            Issue.record("k7's graph has no root object")
            return
        }
        #expect(root.className == "V7")
        #expect(root.classChain.count == 64)
        // Work: names in every object's chain across the bridged graph, twice the input.
        let ratio = Double(try Self.work(large)) / Double(try Self.work(small))
        #expect(ratio <= 2.2, "work grew \(ratio)× for twice the input")
    }

    /// Work on every entry point that renders what a stream holds: the description, the
    /// stream written back, the keyed graph's outline; and the memory the graph holds in
    /// strings (distinct storage only).
    static func renderingWork(_ data: Data) throws -> Int {
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        let keyed = graph.archivedObjectGraph()
        var stringBytes = 0
        for node in keyed.nodes {
            if case .value(.string(let text)) = node { stringBytes += text.utf8.count }
        }
        return graph.description.utf8.count + (try TypedStreamArchiver.archivedData(of: graph)).count
            + keyed.outline().utf8.count + stringBytes
    }

    @Test(
        "a long string referenced from many places costs work linear in the stream",
        arguments: ["*", "%", ":"])
    func sharedStringReferences(type: String) throws {
        let kind = Character(type)
        let small = try Self.renderingWork(TypedStreamBytes.sharedStringReferences(type: kind, count: 10_000))
        let large = try Self.renderingWork(TypedStreamBytes.sharedStringReferences(type: kind, count: 20_000))
        let ratio = Double(large) / Double(small)
        #expect(ratio <= 2.2, "work grew \(ratio)× for twice the references")
        // 20,000 references to 30 KB would be 600 MB if each were a copy.
        #expect(large < 20 << 20, "\(large) bytes rendered")
        let graph = try TypedStreamUnarchiver.objectGraph(
            from: TypedStreamBytes.sharedStringReferences(type: kind, count: 100))
        let keyed = graph.archivedObjectGraph()
        // Every element refers to the one node holding the text.
        guard case .array(let elements)? = keyed.root else {
            Issue.record("root is \(String(describing: keyed.root))")
            return
        }
        #expect(Set(elements).count == 1)
        guard case .reference(let uid)? = elements.first, case .value(.string(let text))? = keyed[uid] else {
            Issue.record("elements are \(String(describing: elements.first))")
            return
        }
        #expect(text.utf8.count == 30_000)
        // Written back, the stream reads as the same graph.
        let written = try TypedStreamArchiver.archivedData(of: graph)
        #expect(try TypedStreamUnarchiver.objectGraph(from: written).root == graph.root)
    }

    @Test("the one-pass and general body readers agree on mutated bodies")
    func bodyReadersAgree() throws {
        var generator = SeededGenerator(seed: 27)
        var bases: [Data] = []
        let url = try #require(URL(string: "https://swift.org/a"))
        for string in [
            ArchivedAttributedString("plain"),
            ArchivedAttributedString(
                "a b c",
                runs: [
                    .init(range: 0..<3, attributes: ["n": .integer(-70_000), "u": .url(url)]),
                    .init(range: 3..<5, attributes: ["s": .string("x"), "d": .data(Data([1, 2]))]),
                ]),
        ] {
            bases.append(try TypedStreamArchiver.archivedData(withRootObject: string))
        }
        var runs = 0
        for base in bases {
            #expect(IMessageBodyReadingPaths.disagreement(in: base) == nil)
            for _ in 0..<3_000 {
                var mutated = Array(base)
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let offset = Int.random(in: 13..<mutated.count, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: mutated[offset] = UInt8.random(in: 0...255, using: &generator)
                    case 1:
                        mutated[offset] =
                            [0x7f, 0x80, 0x81, 0x82, 0x84, 0x85, 0x86, 0x87, 0x92, 0xff].randomElement(
                                using: &generator) ?? 0
                    case 2:
                        mutated.insert(
                            contentsOf: Self.extremeNumbers.randomElement(using: &generator) ?? [], at: offset
                        )
                    default: mutated.remove(at: offset)
                    }
                    if mutated.count <= 13 { break }
                }
                let data = Data(mutated)
                if let disagreement = IMessageBodyReadingPaths.disagreement(in: data) {
                    Issue.record("\(disagreement)\n\(data.map { String(format: "%02x", $0) }.joined())")
                    return
                }
                runs += 1
            }
        }
        #expect(runs == 6_000)
    }
}
