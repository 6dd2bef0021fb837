import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

/// The limits of Documentation/Security.md, each at its default and just past it.
@Suite("Hardening: limits")
struct LimitTests {
    // MARK: Nesting depth

    static func nested(_ format: PropertyListFormat, depth: Int) -> Data {
        switch format {
        case .binary: return Hardening.binaryNesting(depth: depth)
        case .xml:
            return Data(
                ("<plist>" + String(repeating: "<array>", count: depth)
                    + String(repeating: "</array>", count: depth)
                    + "</plist>").utf8)
        case .openStep:
            return Data((String(repeating: "(", count: depth) + String(repeating: ")", count: depth)).utf8)
        }
    }

    @Test(arguments: PropertyListFormat.allCases)
    func everyReaderAcceptsTheDefaultDepthAndRefusesOneMore(_ format: PropertyListFormat) throws {
        #expect(PropertyListReadingOptions().maximumDepth == 512)
        _ = try PropertyList(from: Self.nested(format, depth: 512), format: format)
        let error = #expect(throws: KeyedArchiveError.self, "\(format)") {
            try PropertyList(from: Self.nested(format, depth: 513), format: format)
        }
        #expect(error?.code == .limitExceeded, "\(format)")
        // Far deeper input (50,000 levels) fails the same way, without exhausting the stack.
        let deep = #expect(throws: KeyedArchiveError.self) {
            try PropertyList(from: Self.nested(format, depth: 50_000), format: format)
        }
        #expect(deep?.code == .limitExceeded, "\(format)")
    }

    @Test func unarchiverRefusesObjectsNestedDeeperThanItsLimit() throws {
        #expect(KeyedUnarchivingOptions().maximumDepth == 512)
        // 2,000 NSArrays, each holding the previous one: 2,000 nested init(coder:) calls.
        var objects: [PropertyList] = [
            "$null", ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]],
        ]
        for level in 0..<2000 {
            let child: [PropertyList] = level == 0 ? [] : [.uid(UInt64(objects.count - 1))]
            objects.append(["$class": .uid(1), "NS.objects": .array(child)])
        }
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000,
            "$top": ["root": .uid(UInt64(objects.count - 1))], "$objects": .array(objects),
        ]
        let data = try archive.data(format: .binary)
        let error = #expect(throws: KeyedArchiveError.self) {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            _ = try unarchiver.decodeObject(forKey: "root")
        }
        #expect(error?.code == .limitExceeded)
    }

    // MARK: Number of objects

    @Test func unarchiverRefusesMoreObjectsThanItsLimitWhenOpening() throws {
        #expect(KeyedUnarchivingOptions().maximumObjectCount == 1 << 24)
        let objects: [PropertyList] = ["$null"] + (0..<1000).map { .string("s\($0)") }
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(1)],
            "$objects": .array(objects),
        ]
        var options = KeyedUnarchivingOptions()
        options.maximumObjectCount = 1000
        for format in [PropertyListFormat.binary, .xml] {
            let data = try archive.data(format: format)
            let error = #expect(throws: KeyedArchiveError.self, "\(format)") {
                try KeyedUnarchiver(forReadingFrom: data, options: options)
            }
            #expect(error?.code == .limitExceeded, "\(format)")
            options.maximumObjectCount = 1001
            #expect(throws: Never.self) { try KeyedUnarchiver(forReadingFrom: data, options: options) }
            options.maximumObjectCount = 1000
        }
    }

    @Test func valueBudgetIsProportionalToTheInput() {
        let options = PropertyListReadingOptions()
        #expect(options.valueLimit(forInputLength: 0) == 1 << 20)
        #expect(options.valueLimit(forInputLength: 1000) == (1 << 20) + 64_000)
        #expect(options.valueLimit(forInputLength: .max) == .max)
    }

    // MARK: Bytes materialised

    /// A child process caps its data size (RLIMIT_DATA) at 8 MB above what it uses, then
    /// reads small inputs claiming counts up to 2^64 (data, strings, arrays, dictionaries,
    /// the trailer's object count, an archive's `$objects`), bombs, and XML UIDs up to
    /// 2^32 rewritten as binary: a reader or writer that reserved memory for a claim, or
    /// built a bomb out, would die allocating.
    @Test(.enabled(if: Hardening.probe != nil, "HardeningProbe was not built"))
    func smallInputsCannotMakeTheReadersReserveMegabytes() throws {
        let (status, output) = try Hardening.runProbe(["memory", "8"])
        #expect(status == 0, "the probe died: \(output.suffix(2000))")
        #expect(output.contains("done: 42 cases"), "\(output.suffix(2000))")
        #expect(!output.contains("UNEXPECTED"))
    }

    // MARK: Shared-reference bombs

    @Test func binaryBombWithinTheBudgetBuildsEachObjectOnce() throws {
        // 60 levels: 2^60 leaves described by a 300-byte file. With an unlimited budget it
        // reads at once, because a shared subtree is built once and then reused.
        var options = PropertyListReadingOptions()
        options.baseValueAllowance = .max
        let bomb = Hardening.binaryBomb(levels: 60)
        var value = PropertyList.array([])
        let elapsed = try Hardening.seconds { value = try PropertyList(from: bomb, options: options) }
        #expect(elapsed < 1, "took \(elapsed) s")
        // Walk one path down (comparing or printing the whole value would take 2^60 steps).
        var level = value
        var levels = 1
        while case .array(let pair) = level, pair.count == 2 {
            level = pair[1]
            levels += 1
        }
        #expect(levels == 60)
        #expect(level == 1)
    }

    @Test func binaryBombBeyondTheBudgetFailsQuicklyInConstantMemory() throws {
        // 400 levels (about 3 KB): the budget (1,048,576 + 64 per byte) stops it after a few
        // dozen levels of reuse, instead of after building a million values.
        let bomb = Hardening.binaryBomb(levels: 400)
        var options = PropertyListReadingOptions()
        options.maximumDepth = 10_000
        var error: KeyedArchiveError?
        let elapsed = Hardening.seconds {
            error = #expect(throws: KeyedArchiveError.self) { try PropertyList(from: bomb, options: options) }
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("expands to more than") == true, "\(String(describing: error))")
        #expect(elapsed < 0.5, "took \(elapsed) s")
    }

    @Test func budgetStillCountsReusedSubtreesInFull() throws {
        // 2^7 leaves + 127 arrays = 255 values: over a budget of 254, within one of 255.
        var options = PropertyListReadingOptions(maximumExpansionFactor: 0, baseValueAllowance: 254)
        let bomb = Hardening.binaryBomb(levels: 8)
        let error = #expect(throws: KeyedArchiveError.self) { try PropertyList(from: bomb, options: options) }
        #expect(error?.code == .limitExceeded)
        options.baseValueAllowance = 255
        #expect(throws: Never.self) { try PropertyList(from: bomb, options: options) }
    }

    @Test func depthLimitCountsReusedSubtreesWhereTheyLand() throws {
        // Object 0 holds a 3-level chain twice (so its value is kept), then object 1, which
        // holds the chain again: reused one level deeper than it was built, 1 + 1 + 3 = 5.
        let chain: [[UInt8]] = [[0xA1, 0, 3], [0xA1, 0, 4], [0xA0]]
        let data = BPlist.data(
            [[0xA3, 0, 2, 0, 2, 0, 1], [0xA1, 0, 2]] + chain, refSize: 2, minimumOffsetSize: 2)
        _ = try PropertyList(from: data, options: PropertyListReadingOptions(maximumDepth: 5))
        let error = #expect(throws: KeyedArchiveError.self) {
            try PropertyList(from: data, options: PropertyListReadingOptions(maximumDepth: 4))
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test func sharedStringsAreBuiltOnce() throws {
        // A 1 KB string referenced 20,000 times (40 KB of references): 20 MB if copied.
        let text = [0x5F, 0x11, 0x04, 0x00] + [UInt8](repeating: 0x61, count: 1024)
        let count = 20_000
        let array =
            [0xAF, 0x11] + BPlist.bigEndian(UInt64(count), width: 2)
            + (0..<count).flatMap { _ in BPlist.bigEndian(1, width: 2) }
        let value = try PropertyList(from: BPlist.data([array, text], refSize: 2, minimumOffsetSize: 2))
        guard case .array(let elements) = value else {
            Issue.record("expected an array")
            return
        }
        #expect(elements.count == count)
        #expect(elements.allSatisfy { $0.stringValue?.utf8.count == 1024 })
    }

    @Test func objectGraphOfAnArchiveBombIsLinear() throws {
        for format in [PropertyListFormat.binary, .xml] {
            let data = try Hardening.archiveBomb(levels: 5000).data(format: format)
            var graph: ArchivedObjectGraph?
            let elapsed = try Hardening.seconds { graph = try KeyedUnarchiver.objectGraph(from: data) }
            #expect(graph?.nodes.count == 5003, "\(format)")
            #expect(graph?.referenceCount(of: 100) == 4, "\(format)")  // NS.objects twice, left, right
            #expect(elapsed < 5, "\(format): took \(elapsed) s")
        }
    }

    @Test func untypedDecodeOfAnArchiveBombIsLinear() throws {
        // 400 levels (within the depth limit): each NSArray decodes once and is shared.
        for format in [PropertyListFormat.binary, .xml] {
            let data = try Hardening.archiveBomb(levels: 400).data(format: format)
            let elapsed = try Hardening.seconds {
                let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
                unarchiver.requiresSecureCoding = false
                let root = try unarchiver.decodeObject(forKey: "root") as? [Any]
                #expect(root?.count == 2, "\(format)")
            }
            #expect(elapsed < 5, "\(format): took \(elapsed) s")
        }
    }

    @Test func oneValueBudgetForEachOperationOverAnArchive() throws {
        // 64 entries of $objects each reach one 2^19-leaf bomb (a few hundred bytes in
        // all). Each entry alone is within the budget (1,048,576 + 64 per byte); a budget
        // per entry let the graph build 33 million values (4.5 GB). One budget for the
        // whole graph, and for a whole untyped decode, stops it.
        let data = BPlist.archiveOfPlainBombs(entries: 64, levels: 20)
        #expect(data.count < 1000)
        let error = #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver.objectGraph(from: data) }
        #expect(error?.code == .limitExceeded, "\(String(describing: error))")
        // The same through an unarchiver (as a generic decode builds it).
        var options = KeyedUnarchivingOptions()
        options.decodesUnknownClassesGenerically = true
        let generic = try KeyedUnarchiver(forReadingFrom: data, options: options)
        #expect(throws: KeyedArchiveError.self) { try generic.objectGraph() }
        // Two entries fit in one budget.
        let small = BPlist.archiveOfPlainBombs(entries: 2, levels: 19)
        #expect(throws: Never.self) { try KeyedUnarchiver.objectGraph(from: small) }
    }

    // MARK: Stack

    /// Every decoding path, and the encoders, at the default limits on threads with a
    /// 512 KB stack (Apple's secondary threads) and a 128 KB one (musl's): each gives a
    /// value or `limitExceeded`, never a stack overflow. In a child process, so that an
    /// overflow is reported instead of ending the test run.
    @Test(
        .enabled(if: Hardening.probe != nil, "HardeningProbe was not built"),
        arguments: [512, 128])
    func everyPathFinishesOrThrowsOnASmallStack(kilobytes: Int) throws {
        let (status, output) = try Hardening.runProbe(["stack", String(kilobytes)])
        #expect(status == 0, "the probe died: \(output.suffix(2000))")
        #expect(output.contains("done: 15 cases on \(kilobytes) KB threads"), "\(output.suffix(2000))")
        let outcomes = output.split(separator: "\n").filter {
            !$0.hasPrefix("inputs") && !$0.hasPrefix("done")
        }
        #expect(outcomes.count == 15, "\(output)")
        for line in outcomes {
            #expect(line.hasPrefix("value: ") || line.hasPrefix("error limitExceeded"), "\(line)")
        }
    }

    @Test func theArchiverHasADepthLimit() throws {
        final class Link: SecureKeyedCoding {
            static var archivedClassName: String { "Link" }
            var next: Link?
            init(next: Link?) { self.next = next }
            func encode(with coder: KeyedArchiver) { coder.encode(next, forKey: "next") }
            init(coder: KeyedUnarchiver) throws {
                next = try coder.decodeObject(of: Link.self, forKey: "next")
            }
        }
        var chain = Link(next: nil)
        for _ in 1..<40 { chain = Link(next: chain) }
        let archiver = KeyedArchiver()
        archiver.maximumDepth = 30
        archiver.encode(chain, forKey: KeyedArchiver.rootObjectKey)
        let error = #expect(throws: KeyedArchiveError.self) { try archiver.finishedData() }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message == "objects are nested deeper than the limit of 30")
        // Within the limit it archives, and reads back.
        let shallow = KeyedArchiver()
        shallow.maximumDepth = 40
        shallow.encode(chain, forKey: KeyedArchiver.rootObjectKey)
        let data = try shallow.finishedData()
        var decoded = try KeyedUnarchiver.unarchivedObject(ofClass: Link.self, from: data)
        var length = 0
        while let link = decoded {
            length += 1
            decoded = link.next
        }
        #expect(length == 40)
        #expect(KeyedArchiver().maximumDepth == 512)
    }
}
