import Foundation
import KeyedArchive
import Testing

// Extends FoundationInteropArchivingTests (FoundationPeer/ArchivePeer: strings, Int,
// Double, arrays, dates, UUIDs, URLs, number-keyed dictionaries, shared references) with
// the rest of the value kinds, nil, `$` keys, sets, string-keyed dictionaries and class
// hierarchies, both directions, binary and XML. Foundation-side classes are top-level
// NSObject subclasses (Foundation on Linux writes `KeyedArchiveTests.ClassName` and aborts
// on nested classes); names are mapped with `setClass(_:forClassName:)` on the reading side.
// Only archives Foundation can read are given to it: it aborts on any decoding failure.

final class InteropSinkNS: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var flag = true
    var off = false
    var int = Int.min
    var int32 = Int32.max
    var int64 = Int64.min + 1
    var float: Float = 1.5
    var double = -2.25e-300
    var byte = NSNumber(value: UInt8(200))
    var short = NSNumber(value: Int16(-300))
    var unsigned = NSNumber(value: UInt32.max)
    var bytes = Data([0, 1, 2, 0xFF])
    var blob = Data(repeating: 0xAB, count: 40)
    var text = "Grüße, 🐛 \u{0}"
    var missing: String?
    var dollar = "dollar"
    var set: Set<String> = ["a", "b", "c"]
    var names: [String: Int] = ["one": 1, "two": 2]
    var child: InteropLeafNS?
    var sameChild: InteropLeafNS?

    override init() {}

    func encode(with coder: NSCoder) {
        coder.encode(flag, forKey: "flag")
        coder.encode(off, forKey: "off")
        coder.encode(int, forKey: "int")
        coder.encode(int32, forKey: "int32")
        coder.encode(int64, forKey: "int64")
        coder.encode(float, forKey: "float")
        coder.encode(double, forKey: "double")
        coder.encode(byte, forKey: "byte")
        coder.encode(short, forKey: "short")
        coder.encode(unsigned, forKey: "unsigned")
        bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) {
                coder.encodeBytes(base, length: buffer.count, forKey: "bytes")
            }
        }
        coder.encode(blob, forKey: "blob")
        coder.encode(text, forKey: "text")
        coder.encode(missing, forKey: "missing")
        coder.encode(dollar, forKey: "$dollar")
        coder.encode(NSSet(set: set), forKey: "set")
        coder.encode(names as NSDictionary, forKey: "names")
        coder.encode(child, forKey: "child")
        coder.encode(sameChild, forKey: "sameChild")
    }

    init?(coder: NSCoder) {
        flag = coder.decodeBool(forKey: "flag")
        off = coder.decodeBool(forKey: "off")
        int = coder.decodeInteger(forKey: "int")
        int32 = coder.decodeInt32(forKey: "int32")
        int64 = coder.decodeInt64(forKey: "int64")
        float = coder.decodeFloat(forKey: "float")
        double = coder.decodeDouble(forKey: "double")
        guard let byte = coder.decodeObject(of: NSNumber.self, forKey: "byte"),
            let short = coder.decodeObject(of: NSNumber.self, forKey: "short"),
            let unsigned = coder.decodeObject(of: NSNumber.self, forKey: "unsigned"),
            let blob = coder.decodeObject(of: NSData.self, forKey: "blob") as Data?,
            let text = coder.decodeObject(of: NSString.self, forKey: "text") as String?,
            let dollar = coder.decodeObject(of: NSString.self, forKey: "$dollar") as String?,
            let set = coder.decodeObject(of: [NSSet.self, NSString.self], forKey: "set") as? Set<String>,
            let names = coder.decodeObject(
                of: [NSDictionary.self, NSString.self, NSNumber.self], forKey: "names")
                as? [String: Int]
        else { return nil }
        // corelibs has no decodeBytes(forKey:returnedLength:); this is its replacement.
        bytes =
            coder.withDecodedUnsafeBufferPointer(forKey: "bytes") { buffer in buffer.map { Data($0) } }
            ?? Data()
        self.byte = byte
        self.short = short
        self.unsigned = unsigned
        self.blob = blob
        self.text = text
        missing = coder.decodeObject(of: NSString.self, forKey: "missing") as String?
        self.dollar = dollar
        self.set = set
        self.names = names
        child =
            coder.decodeObject(of: [InteropLeafNS.self, InteropBranchNS.self], forKey: "child")
            as? InteropLeafNS
        sameChild =
            coder.decodeObject(of: [InteropLeafNS.self, InteropBranchNS.self], forKey: "sameChild")
            as? InteropLeafNS
    }
}

/// A base class and a subclass, Foundation side.
class InteropLeafNS: NSObject, NSSecureCoding {
    class var supportsSecureCoding: Bool { true }
    var label: String
    init(label: String) { self.label = label }
    func encode(with coder: NSCoder) { coder.encode(label, forKey: "label") }
    required init?(coder: NSCoder) {
        label = coder.decodeObject(of: NSString.self, forKey: "label") as String? ?? ""
    }
}

final class InteropBranchNS: InteropLeafNS {
    var depth = 0
    override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(depth, forKey: "depth")
    }
    required init?(coder: NSCoder) {
        depth = coder.decodeInteger(forKey: "depth")
        super.init(coder: coder)
    }
    init(label: String, depth: Int) {
        self.depth = depth
        super.init(label: label)
    }
}

/// Our side of InteropSinkNS.
final class InteropSink: SecureKeyedCoding {
    var flag = true
    var off = false
    var int = Int.min
    var int32 = Int32.max
    var int64 = Int64.min + 1
    var float: Float = 1.5
    var double = -2.25e-300
    var byte: UInt8 = 200
    var short: Int16 = -300
    var unsigned: UInt32 = .max
    var bytes = Data([0, 1, 2, 0xFF])
    var blob = Data(repeating: 0xAB, count: 40)
    var text = "Grüße, 🐛 \u{0}"
    var missing: String?
    var dollar = "dollar"
    var set: Set<String> = ["a", "b", "c"]
    var names: [String: Int] = ["one": 1, "two": 2]
    var child: InteropLeaf?
    var sameChild: InteropLeaf?

    init() {}

    func encode(with coder: KeyedArchiver) {
        coder.encode(flag, forKey: "flag")
        coder.encode(off, forKey: "off")
        coder.encode(int, forKey: "int")
        coder.encode(int32, forKey: "int32")
        coder.encode(int64, forKey: "int64")
        coder.encode(float, forKey: "float")
        coder.encode(double, forKey: "double")
        coder.encode(byte, forKey: "byte")
        coder.encode(short, forKey: "short")
        coder.encode(unsigned, forKey: "unsigned")
        coder.encodeBytes(bytes, forKey: "bytes")
        coder.encode(blob, forKey: "blob")
        coder.encode(text, forKey: "text")
        coder.encode(missing, forKey: "missing")
        coder.encode(dollar, forKey: "$dollar")
        coder.encode(set, forKey: "set")
        coder.encode(names, forKey: "names")
        coder.encode(child, forKey: "child")
        coder.encode(sameChild, forKey: "sameChild")
    }

    init(coder: KeyedUnarchiver) throws {
        flag = try coder.decodeBool(forKey: "flag")
        off = try coder.decodeBool(forKey: "off")
        int = try coder.decodeInteger(forKey: "int")
        int32 = try coder.decodeInt32(forKey: "int32")
        int64 = try coder.decodeInt64(forKey: "int64")
        float = try coder.decodeFloat(forKey: "float")
        double = try coder.decodeDouble(forKey: "double")
        byte = try coder.decodeObject(of: UInt8.self, forKey: "byte") ?? 0
        short = try coder.decodeObject(of: Int16.self, forKey: "short") ?? 0
        unsigned = try coder.decodeObject(of: UInt32.self, forKey: "unsigned") ?? 0
        bytes = try coder.decodeBytes(forKey: "bytes") ?? Data()
        blob = try coder.decodeObject(of: Data.self, forKey: "blob") ?? Data()
        text = try coder.decodeObject(of: String.self, forKey: "text") ?? ""
        missing = try coder.decodeObject(of: String.self, forKey: "missing")
        dollar = try coder.decodeObject(of: String.self, forKey: "$dollar") ?? ""
        set = try coder.decodeObject(of: Set<String>.self, forKey: "set") ?? []
        names =
            try coder.decodeDictionary(
                withKeysOfClass: String.self, objectsOfClass: Int.self, forKey: "names") ?? [:]
        child =
            try coder.decodeObject(of: [InteropLeaf.self, InteropBranch.self], forKey: "child")
            as? InteropLeaf
        sameChild =
            try coder.decodeObject(of: [InteropLeaf.self, InteropBranch.self], forKey: "sameChild")
            as? InteropLeaf
    }
}

class InteropLeaf: SecureKeyedCoding {
    var label: String
    init(label: String) { self.label = label }
    func encode(with coder: KeyedArchiver) { coder.encode(label, forKey: "label") }
    required init(coder: KeyedUnarchiver) throws {
        label = try coder.decodeObject(of: String.self, forKey: "label") ?? ""
    }
}

final class InteropBranch: InteropLeaf {
    var depth = 0
    init(label: String, depth: Int) {
        self.depth = depth
        super.init(label: label)
    }
    override func encode(with coder: KeyedArchiver) {
        super.encode(with: coder)
        coder.encode(depth, forKey: "depth")
    }
    required init(coder: KeyedUnarchiver) throws {
        depth = try coder.decodeInteger(forKey: "depth")
        try super.init(coder: coder)
    }
}

@Suite("Foundation interoperability: every value kind, both directions")
struct FoundationInteropSuiteTests {
    nonisolated(unsafe) static let names: [(ours: any KeyedCoding.Type, foundation: AnyClass)] = [
        (InteropSink.self, InteropSinkNS.self), (InteropLeaf.self, InteropLeafNS.self),
        (InteropBranch.self, InteropBranchNS.self),
    ]

    static func expectDefaults(
        flag: Bool, off: Bool, int: Int, int32: Int32, int64: Int64, float: Float, double: Double,
        numbers: (Int, Int, Int), bytes: Data, blob: Data, text: String, missing: String?, dollar: String,
        set: Set<String>, names: [String: Int], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(flag && !off, sourceLocation: sourceLocation)
        #expect(int == .min && int32 == .max && int64 == .min + 1, sourceLocation: sourceLocation)
        #expect(float == 1.5 && double == -2.25e-300, sourceLocation: sourceLocation)
        #expect(numbers == (200, -300, Int(UInt32.max)), sourceLocation: sourceLocation)
        #expect(bytes == Data([0, 1, 2, 0xFF]), sourceLocation: sourceLocation)
        #expect(blob == Data(repeating: 0xAB, count: 40), sourceLocation: sourceLocation)
        #expect(text == "Grüße, 🐛 \u{0}", sourceLocation: sourceLocation)
        #expect(missing == nil, sourceLocation: sourceLocation)
        #expect(dollar == "dollar", sourceLocation: sourceLocation)
        #expect(set == ["a", "b", "c"], sourceLocation: sourceLocation)
        #expect(names == ["one": 1, "two": 2], sourceLocation: sourceLocation)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func weReadFoundation(format: PropertyListFormat) throws {
        let sink = InteropSinkNS()
        let branch = InteropBranchNS(label: "branch", depth: 3)
        sink.child = branch
        sink.sameChild = branch
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format == .xml ? .xml : .binary
        archiver.encode(sink, forKey: NSKeyedArchiveRootObjectKey)
        archiver.encode(InteropLeafNS(label: "plain"), forKey: "leaf")
        archiver.finishEncoding()

        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.encodedData)
        for pair in Self.names {
            unarchiver.setClass(pair.ours, forClassName: NSStringFromClass(pair.foundation))
        }
        let decoded = try #require(try unarchiver.decodeObject(of: InteropSink.self, forKey: "root"))
        Self.expectDefaults(
            flag: decoded.flag, off: decoded.off, int: decoded.int, int32: decoded.int32,
            int64: decoded.int64,
            float: decoded.float, double: decoded.double,
            numbers: (Int(decoded.byte), Int(decoded.short), Int(decoded.unsigned)), bytes: decoded.bytes,
            blob: decoded.blob, text: decoded.text, missing: decoded.missing, dollar: decoded.dollar,
            set: decoded.set, names: decoded.names)
        let child = try #require(decoded.child as? InteropBranch, "the subclass decodes as the subclass")
        #expect(child.label == "branch" && child.depth == 3)
        #expect(decoded.child === decoded.sameChild, "one shared instance")
        #expect(unarchiver.containsValue(forKey: "leaf"))
        let leaf = try unarchiver.decodeObject(of: InteropLeaf.self, forKey: "leaf")
        #expect(leaf?.label == "plain")
        #expect(!(leaf is InteropBranch))
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func foundationReadsOurs(format: PropertyListFormat) throws {
        let sink = InteropSink()
        let branch = InteropBranch(label: "branch", depth: 3)
        sink.child = branch
        sink.sameChild = branch
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(sink, forKey: KeyedArchiver.rootObjectKey)
        archiver.encode(InteropLeaf(label: "plain"), forKey: "leaf")
        let data = try archiver.finishedData()

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        for pair in Self.names {
            unarchiver.setClass(pair.foundation, forClassName: pair.ours.archivedClassName)
        }
        let decoded = try #require(
            unarchiver.decodeObject(of: InteropSinkNS.self, forKey: NSKeyedArchiveRootObjectKey))
        Self.expectDefaults(
            flag: decoded.flag, off: decoded.off, int: decoded.int, int32: decoded.int32,
            int64: decoded.int64,
            float: decoded.float, double: decoded.double,
            numbers: (decoded.byte.intValue, decoded.short.intValue, decoded.unsigned.intValue),
            bytes: decoded.bytes, blob: decoded.blob, text: decoded.text, missing: decoded.missing,
            dollar: decoded.dollar, set: decoded.set, names: decoded.names)
        let child = try #require(decoded.child as? InteropBranchNS, "the subclass decodes as the subclass")
        #expect(child.label == "branch" && child.depth == 3)
        #expect(decoded.child === decoded.sameChild, "one shared instance")
        let leaf = unarchiver.decodeObject(of: InteropLeafNS.self, forKey: "leaf")
        #expect(leaf?.label == "plain")
        #expect(!(leaf is InteropBranchNS))
        unarchiver.finishDecoding()
    }
}
