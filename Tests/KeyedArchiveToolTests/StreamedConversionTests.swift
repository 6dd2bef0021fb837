import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// `-convert xml1` of a binary property list goes through the library's transcoder, not a
/// tree: these check that it writes the tree's bytes, refuses everything the tree's way
/// refuses, and that the tool's results (output, messages, status) are the tree's.
@Suite struct StreamedConversionTests {
    /// What `-convert xml1` wrote before it streamed: the value read, then written as XML
    /// with the tool's output bound.
    static func treeXML(_ data: Data, limit: Int? = nil) throws -> Data {
        try PropertyList(from: data).data(
            format: .xml,
            options: PropertyListWritingOptions(
                maximumOutputBytes: limit ?? Tool.outputLimit(forInputLength: data.count)))
    }

    static func streamedXML(_ data: Data, limit: Int? = nil) throws -> Data {
        var text = Data()
        try XMLPropertyListTranscoder.transcode(
            data, readingOptions: PropertyListReadingOptions(),
            maximumOutputBytes: limit ?? Tool.outputLimit(forInputLength: data.count)
        ) { text.append(contentsOf: $0) }
        return text
    }

    /// Every binary fixture, and every XML or OpenStep one written as binary: the binary
    /// property lists the streamed conversion reads.
    static let binaryFixtures = Fixtures.propertyLists(as: .binary, label: "binary") {
        $0.starts(with: Data("bplist00".utf8))
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func everyFixtureStreamsTheTreesBytes() throws {
        #expect(Self.binaryFixtures.count > 150, "fixtures found: \(Self.binaryFixtures.count)")
        var compared = 0
        for (name, data) in Self.binaryFixtures {
            guard let tree = try? Self.treeXML(data) else {
                #expect(throws: (any Error).self, "\(name): the tree refuses it, so must the stream") {
                    try Self.streamedXML(data)
                }
                continue
            }
            // The transcoder may refuse more (a key given twice); the tool then takes the tree's way.
            if let streamed = try? Self.streamedXML(data) {
                #expect(streamed == tree, "\(name): streamed XML differs from the tree's")
                compared += 1
            }
            let run = ToolRun(["-convert", "xml1", "-o", "-", "--", "-"], standardInput: data)
            #expect(run.status == 0, "\(name): \(run.error)")
            #expect(run.output == tree, "\(name): the tool's XML differs from the tree's")
        }
        #expect(compared > 150, "fixtures streamed: \(compared)")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func toFileIsTheTreesBytes() throws {
        guard let (name, data) = Self.binaryFixtures.max(by: { $0.data.count < $1.data.count }) else {
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(data, to: "in.plist")
        let run = ToolRun(["-convert", "xml1", "-o", directory.path("out.xml"), input])
        #expect(run.status == 0 && run.error.isEmpty, "\(name): \(run.error)")
        #expect(try directory.read("out.xml") == Self.treeXML(data), "\(name)")
        // In place: the file itself becomes its XML, nothing else is left.
        let inPlace = ToolRun(["-convert", "xml1", input])
        #expect(inPlace.status == 0)
        #expect(try directory.read("in.plist") == Self.treeXML(data))
        #expect(try directory.contents() == ["in.plist", "out.xml"])
    }

    /// Where the writer's output bound falls, the stream falls too: for limits around the
    /// document's length, both write or both refuse.
    @Test func outputBoundFallsWhereTheTreesFalls() throws {
        let value: PropertyList = [
            "items": .array(
                (0..<300).map { .string("item \($0) " + String(repeating: "x", count: $0 % 40)) }),
            "data": .data(Data((0..<3000).map { UInt8(truncatingIfNeeded: $0) })),
            "nested": ["a": [1, 2.5, true], "b": .uid(7)],
        ]
        let binary = try value.data(format: .binary)
        let length = try Self.treeXML(binary).count
        for limit in stride(from: 0, through: length + 64, by: 7) {
            let tree = try? Self.treeXML(binary, limit: limit)
            let streamed = try? Self.streamedXML(binary, limit: limit)
            #expect(
                tree == streamed, "limit \(limit): tree \(tree?.count ?? -1), stream \(streamed?.count ?? -1)"
            )
        }
    }

    /// The reader's value budget counts as the stream counts: for budgets around the
    /// number of values (shared objects counted each time), both read or both refuse.
    @Test func valueBudgetFallsWhereTheReadersFalls() throws {
        // 0: [1, 1, 2], 1: {a: 3, b: 3}, 2: "s", 3: [2, 2]
        let data = BPlist.data(
            [
                [0xA3] + BPlist.reference(1) + BPlist.reference(1) + BPlist.reference(2),
                [0xD2] + BPlist.reference(4) + BPlist.reference(5) + BPlist.reference(3)
                    + BPlist.reference(3),
                [0x51, UInt8(ascii: "s")], [0xA2] + BPlist.reference(2) + BPlist.reference(2),
                [0x51, UInt8(ascii: "a")], [0x51, UInt8(ascii: "b")],
            ], refSize: 2, offsetSize: 2)
        var outcomes: Set<Bool> = []
        for allowance in 0...40 {
            let options = PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: allowance)
            let read = (try? PropertyList(from: data, options: options)) != nil
            var text = Data()
            let streamed =
                (try? XMLPropertyListTranscoder.transcode(
                    data, readingOptions: options, maximumOutputBytes: .max
                ) {
                    text.append(contentsOf: $0)
                }) != nil
            #expect(read == streamed, "allowance \(allowance)")
            outcomes.insert(read)
        }
        #expect(outcomes == [true, false], "the allowances cross the file's count of values")
    }

    // MARK: - Hostile input: the stream refuses, the tool answers as the tree's way does

    /// Runs `-convert xml1` on `data` and checks the result is the tree's: its XML, or its
    /// failure message and status.
    static func expectTreesResult(_ data: Data, _ label: String) {
        let run = ToolRun(["-convert", "xml1", "-o", "-", "--", "-"], standardInput: data)
        let message: String
        do {
            let value = try PropertyList(from: data)
            do {
                let tree = try treeXML(data)
                #expect(run.status == 0, "\(label): \(run.error)")
                #expect(run.output == tree, "\(label)")
                #expect(try PropertyList(from: tree) == value, "\(label)")
                return
            } catch let error as KeyedArchiveError {
                message = "cannot write as xml1: \(error.description)"
            }
        } catch let error as KeyedArchiveError {
            message = error.description
        } catch {
            Issue.record("\(label): \(error)")
            return
        }
        #expect(run.status == 1, "\(label)")
        #expect(run.output.isEmpty, "\(label): nothing written when the conversion fails")
        #expect(run.errorLines == ["-: \(message)"], "\(label)")
    }

    @Test func nestingPastTheReadersLimit() throws {
        for depth in [511, 512, 513, 600] {
            let data = BPlist.data(
                (0..<depth).map { $0 == depth - 1 ? [0xA0] : [0xA1] + BPlist.reference($0 + 1) }, refSize: 2,
                offsetSize: 2)
            let readable = (try? PropertyList(from: data)) != nil
            #expect(readable == (depth <= 512), "depth \(depth)")
            if !readable {
                #expect(throws: KeyedArchiveError.self, "depth \(depth)") { try Self.streamedXML(data) }
            }
            Self.expectTreesResult(data, "depth \(depth)")
        }
    }

    @Test func arrayContainingItself() throws {
        let data = BPlist.data(
            [[0xA2] + BPlist.reference(1) + BPlist.reference(0), [0x10, 1]], refSize: 2, offsetSize: 2)
        #expect(throws: KeyedArchiveError.self) { try Self.streamedXML(data) }
        Self.expectTreesResult(data, "cycle")
    }

    /// Object i is an array holding object i+1 twice: 2^40 values from 80 bytes.
    @Test func sharedObjectBomb() throws {
        let levels = 40
        let data = BPlist.data(
            (0..<levels).map { level in
                level == levels - 1
                    ? [0x10, 1] : [0xA2] + BPlist.reference(level + 1) + BPlist.reference(level + 1)
            }, refSize: 2, offsetSize: 2)
        #expect(throws: KeyedArchiveError.self) { try Self.streamedXML(data) }
        Self.expectTreesResult(data, "bomb")
    }

    /// A key given twice keeps its last value (reading's rule); the stream leaves such a
    /// dictionary to the tree, even when the overwritten value is malformed.
    @Test func keyGivenTwice() throws {
        // 0: {k: 2, k: 3}, 1: "k", 2: 1, 3: 2
        let duplicate = BPlist.data(
            [
                [0xD2] + BPlist.reference(1) + BPlist.reference(1) + BPlist.reference(2)
                    + BPlist.reference(3),
                [0x51, UInt8(ascii: "k")], [0x10, 1], [0x10, 2],
            ], refSize: 2, offsetSize: 2)
        #expect(throws: KeyedArchiveError.self) { try Self.streamedXML(duplicate) }
        #expect(try PropertyList(from: duplicate) == ["k": 2])
        Self.expectTreesResult(duplicate, "key given twice")
        // The overwritten value is a date that is not a number: reading refuses the file.
        let badOverwritten = BPlist.data(
            [
                [0xD2] + BPlist.reference(1) + BPlist.reference(1) + BPlist.reference(2)
                    + BPlist.reference(3),
                [0x51, UInt8(ascii: "k")], [0x33] + Array(repeating: 0xFF, count: 8), [0x10, 2],
            ], refSize: 2, offsetSize: 2)
        Self.expectTreesResult(badOverwritten, "malformed overwritten value")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func malformedFixturesAnswerAsTheTreesWay() throws {
        var binary = 0
        for entry in Fixtures.malformed {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: entry.path)),
                data.starts(with: Data("bplist00".utf8))
            else { continue }
            binary += 1
            if (try? Self.treeXML(data)) == nil {
                #expect(throws: (any Error).self, "\(entry)") { try Self.streamedXML(data) }
            }
            Self.expectTreesResult(data, entry.file)
        }
        #expect(binary > 10, "binary malformed fixtures: \(binary)")
    }
}

/// `-p` of a binary property list formats the events of the library's walk over its
/// objects, not a tree: the same text, and the tree's answer whenever the walk gives up.
@Suite struct StreamedPrintTests {
    static func walkedText(_ data: Data, options: PropertyListReadingOptions = PropertyListReadingOptions())
        throws -> String
    {
        var text = ""
        var formatter = PropertyListPrinter.Formatter(limit: .max, output: { text += $0 })
        try BinaryPropertyListWalk.walk(data, options: options) { try formatter.consume($0) }
        try formatter.finish()
        return text
    }

    /// Runs `-p` on `data` and checks the result is the tree's: its text, or its message.
    static func expectTreesResult(_ data: Data, _ label: String) {
        let run = ToolRun(["-p", "--", "-"], standardInput: data)
        do {
            let value = try PropertyList(from: data)
            #expect(run.status == 0, "\(label): \(run.error)")
            #expect(run.outputText == PropertyListPrinter.render(value), "\(label)")
        } catch let error as KeyedArchiveError {
            #expect(run.status == 1, "\(label)")
            #expect(run.output.isEmpty, "\(label)")
            #expect(run.errorLines == ["-: \(error.description)"], "\(label)")
        } catch {
            Issue.record("\(label): \(error)")
        }
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func everyFixtureWalksToTheTreesText() throws {
        var compared = 0
        for (name, data) in StreamedConversionTests.binaryFixtures {
            guard let value = try? PropertyList(from: data) else {
                #expect(throws: (any Error).self, "\(name)") { try Self.walkedText(data) }
                continue
            }
            if let walked = try? Self.walkedText(data) {
                #expect(walked == PropertyListPrinter.render(value), "\(name)")
                compared += 1
            }
            Self.expectTreesResult(data, name)
        }
        #expect(compared > 150, "fixtures walked: \(compared)")
    }

    @Test(.enabled(if: Fixtures.isAvailable, Fixtures.skipComment))
    func malformedFixtures() throws {
        for entry in Fixtures.malformed {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: entry.path)),
                data.starts(with: Data("bplist00".utf8))
            else { continue }
            if (try? PropertyList(from: data)) == nil {
                #expect(throws: (any Error).self, "\(entry)") { try Self.walkedText(data) }
            }
            Self.expectTreesResult(data, entry.file)
        }
    }

    @Test func hostileShapes() throws {
        let reference = { (index: Int) -> [UInt8] in BPlist.reference(index) }
        let bplist = { (objects: [[UInt8]], _: Int) -> Data in BPlist.data(objects, refSize: 2, offsetSize: 2)
        }
        for depth in [512, 513] {
            let data = bplist((0..<depth).map { $0 == depth - 1 ? [0xA0] : [0xA1] + reference($0 + 1) }, 0)
            if depth > 512 {
                #expect(throws: KeyedArchiveError.self, "depth \(depth)") { try Self.walkedText(data) }
            }
            Self.expectTreesResult(data, "depth \(depth)")
        }
        let cycle = bplist([[0xA2] + reference(1) + reference(0), [0x10, 1]], 0)
        #expect(throws: KeyedArchiveError.self) { try Self.walkedText(cycle) }
        Self.expectTreesResult(cycle, "cycle")
        let bomb = bplist(
            (0..<40).map { $0 == 39 ? [0x10, 1] : [0xA2] + reference($0 + 1) + reference($0 + 1) }, 0)
        #expect(throws: KeyedArchiveError.self) { try Self.walkedText(bomb) }
        Self.expectTreesResult(bomb, "bomb")
        let duplicate = bplist(
            [
                [0xD2] + reference(1) + reference(1) + reference(2) + reference(3),
                [0x51, UInt8(ascii: "k")], [0x10, 1], [0x10, 2],
            ], 0)
        #expect(throws: KeyedArchiveError.self) { try Self.walkedText(duplicate) }
        Self.expectTreesResult(duplicate, "key given twice")
    }

    @Test func valueBudgetFallsWhereTheReadersFalls() throws {
        let reference = { (index: Int) -> [UInt8] in BPlist.reference(index) }
        let data = BPlist.data(
            [
                [0xA3] + reference(1) + reference(1) + reference(2),
                [0xD2] + reference(4) + reference(5) + reference(3) + reference(3),
                [0x51, UInt8(ascii: "s")], [0xA2] + reference(2) + reference(2),
                [0x51, UInt8(ascii: "a")], [0x51, UInt8(ascii: "b")],
            ], refSize: 2, offsetSize: 2)
        var outcomes: Set<Bool> = []
        for allowance in 0...40 {
            let options = PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: allowance)
            let read = (try? PropertyList(from: data, options: options)) != nil
            #expect(read == ((try? Self.walkedText(data, options: options)) != nil), "allowance \(allowance)")
            outcomes.insert(read)
        }
        #expect(outcomes == [true, false])
    }

    /// Past the output bound, the tool answers as before: the tree's way prints up to the
    /// bound and says why it stopped.
    @Test func outputBound() throws {
        let value: PropertyList = .array((0..<2000).map { .string("value \($0)") })
        var text = ""
        var formatter = PropertyListPrinter.Formatter(limit: 1000, output: { text += $0 })
        var threw = false
        do {
            try PropertyListPrinter.events(of: value) { try formatter.consume($0) }
            try formatter.finish()
        } catch {
            threw = true
        }
        #expect(threw && text.utf8.count <= 1000)
    }
}
