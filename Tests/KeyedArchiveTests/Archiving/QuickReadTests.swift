import Foundation
import KeyedArchive
import Testing

/// Inside an `init(coder:)` the unarchiver reads fields that are plain scalars or references
/// without the general path (in place from a binary archive, or from a parsed XML
/// dictionary), and returns objects it already decoded as the type asked without resolving
/// their class again. These tests check that the shortcuts give exactly what the general
/// path gives (decodes at the top level always take it): the same values, and the same
/// errors with the same messages and key paths.
@Suite("Quick reads of fields")
struct QuickReadTests {
    /// The values every probe object holds, one per key.
    static func encodeValues(_ coder: KeyedArchiver) {
        coder.encode(Int64(1) << 40, forKey: "big")
        coder.encode(-5, forKey: "negative")
        coder.encode(7, forKey: "small")
        coder.encode(Int64.min, forKey: "min")
        coder.encode(UInt64.max, forKey: "unsigned")  // a referenced 16-byte integer
        coder.encode(0, forKey: "zero")
        coder.encode(1, forKey: "one")
        coder.encode(2, forKey: "two")
        coder.encode(2.5, forKey: "real")
        coder.encode(0.1, forKey: "inexact")
        coder.encode(Float(1.5), forKey: "single")
        coder.encode(1e300, forKey: "huge")
        coder.encode(Double.infinity, forKey: "infinity")
        coder.encode(Int64(1) << 60 + 1, forKey: "wide")  // no Double holds it exactly
        coder.encode(true, forKey: "flag")
        coder.encode("text", forKey: "string")
        coder.encode("a string longer than fifteen bytes", forKey: "longString")
        coder.encode(Date(timeIntervalSinceReferenceDate: 12.5), forKey: "date")
        coder.encode(nil, forKey: "nothing")
        coder.encode(3, forKey: "$dollar")  // escaped as "$$dollar"
    }

    static let keys = [
        "big", "negative", "small", "min", "unsigned", "zero", "one", "two", "real", "inexact", "single",
        "huge", "infinity", "wide", "flag", "string", "longString", "date", "nothing", "$dollar", "absent",
    ]

    static let operations = [
        "bool", "integer", "int32", "int64", "float", "double", "string", "date", "strings",
    ]

    /// An object that runs one decoding operation (its `op` field) on one key and keeps
    /// what it got.
    struct Probe: SecureKeyedCoding {
        static var archivedClassName: String { "Probe" }
        var operation: String
        var key: String
        var result = ""

        init(operation: String, key: String) {
            self.operation = operation
            self.key = key
        }

        func encode(with coder: KeyedArchiver) {
            coder.encode(operation, forKey: "op")
            coder.encode(key, forKey: "key")
            QuickReadTests.encodeValues(coder)
        }

        init(coder: KeyedUnarchiver) throws {
            operation = try coder.decodeObject(of: String.self, forKey: "op") ?? ""
            key = try coder.decodeObject(of: String.self, forKey: "key") ?? ""
            result = try Self.run(operation, key: key, coder)
        }

        static func run(_ operation: String, key: String, _ coder: KeyedUnarchiver) throws -> String {
            switch operation {
            case "bool": return "\(try coder.decodeBool(forKey: key))"
            case "integer": return "\(try coder.decodeInteger(forKey: key))"
            case "int32": return "\(try coder.decodeInt32(forKey: key))"
            case "int64": return "\(try coder.decodeInt64(forKey: key))"
            case "float": return "\(try coder.decodeFloat(forKey: key))"
            case "double": return "\(try coder.decodeDouble(forKey: key))"
            case "string":
                return "\(String(describing: try coder.decodeObject(of: String.self, forKey: key)))"
            case "date": return "\(String(describing: try coder.decodeObject(of: Date.self, forKey: key)))"
            default:
                return
                    "\(String(describing: try coder.decodeArrayOfObjects(ofClass: String.self, forKey: key)))"
            }
        }
    }

    /// What decoding a probe gives: its result, or the error's code, message and location.
    static func outcome(_ operation: String, key: String, format: PropertyListFormat) throws -> String {
        let archiver = KeyedArchiver()
        archiver.outputFormat = format
        archiver.encode(Probe(operation: operation, key: key), forKey: KeyedArchiver.rootObjectKey)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        unarchiver.setClass(Probe.self, forClassName: "Probe")
        do {
            let probe = try unarchiver.decodeObject(of: Probe.self, forKey: KeyedArchiver.rootObjectKey)
            return "value \(probe?.result ?? "nil")"
        } catch let error as KeyedArchiveError {
            return "error \(error.code) \(error.message) at \(String(describing: error.location))"
        }
    }

    /// What the same operation gives on the same values stored in `$top`: decodes there are
    /// top-level operations, which always take the general path. The location is given as
    /// it reads inside the probe object.
    static func topLevelOutcome(_ operation: String, key: String, format: PropertyListFormat) throws -> String
    {
        let archiver = KeyedArchiver()
        archiver.outputFormat = format
        encodeValues(archiver)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        do {
            return "value \(try Probe.run(operation, key: key, unarchiver))"
        } catch let error as KeyedArchiveError {
            var location = error.location
            if case .keyPath(let path)? = location { location = .keyPath("root." + path) }
            return "error \(error.code) \(error.message) at \(String(describing: location))"
        }
    }

    @Test(arguments: operations)
    func nestedDecodesMatchTheGeneralPath(_ operation: String) throws {
        for key in Self.keys {
            let general = try Self.topLevelOutcome(operation, key: key, format: .binary)
            #expect(
                try Self.topLevelOutcome(operation, key: key, format: .xml) == general,
                "\(operation) of \(key)")
            #expect(
                try Self.outcome(operation, key: key, format: .binary) == general, "\(operation) of \(key)")
            #expect(try Self.outcome(operation, key: key, format: .xml) == general, "\(operation) of \(key)")
        }
    }

    @Test func quickReadsGiveTheValuesWritten() throws {
        #expect(try Self.outcome("integer", key: "negative", format: .binary) == "value -5")
        #expect(try Self.outcome("int64", key: "min", format: .binary) == "value \(Int64.min)")
        #expect(try Self.outcome("float", key: "single", format: .binary) == "value 1.5")
        #expect(try Self.outcome("double", key: "small", format: .binary) == "value 7.0")
        #expect(try Self.outcome("bool", key: "one", format: .binary) == "value true")
        #expect(try Self.outcome("integer", key: "$dollar", format: .binary) == "value 3")
        #expect(try Self.outcome("integer", key: "absent", format: .binary) == "value 0")
        #expect(try Self.outcome("string", key: "nothing", format: .binary) == "value nil")
        let outOfRange = try Self.outcome("int32", key: "big", format: .binary)
        #expect(outOfRange.hasPrefix("error valueOutOfRange"), "\(outOfRange)")
        #expect(outOfRange.hasSuffix("at Optional(root.big)"), "\(outOfRange)")
        let huge = try Self.outcome("float", key: "huge", format: .binary)
        #expect(huge.hasPrefix("error valueOutOfRange"), "\(huge)")
    }

    /// An object with the keys `$x` and `$$x` (stored as `$$x` and `$$$x`), read in turn by
    /// the quick path and by the general one, whose key caches must not confuse the two.
    struct DollarKeys: SecureKeyedCoding, Equatable {
        static var archivedClassName: String { "DollarKeys" }
        var reads: [Int] = []

        init() {}

        func encode(with coder: KeyedArchiver) {
            coder.encode(1, forKey: "$x")
            coder.encode(2, forKey: "$$x")
        }

        init(coder: KeyedUnarchiver) throws {
            for _ in 0..<2 {
                reads.append(try coder.decodeInteger(forKey: "$$x"))
                reads.append(try coder.decodeObject(of: [Int.self], forKey: "$x") as? Int ?? -1)
                reads.append(try coder.decodeInteger(forKey: "$x"))
                reads.append(try coder.decodeObject(of: [Int.self], forKey: "$$x") as? Int ?? -1)
            }
        }
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func escapedKeysAreNotConfused(_ format: PropertyListFormat) throws {
        let archiver = KeyedArchiver()
        archiver.outputFormat = format
        archiver.encode(DollarKeys(), forKey: "object")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        unarchiver.setClass(DollarKeys.self, forClassName: "DollarKeys")
        let object = try unarchiver.decodeObject(of: DollarKeys.self, forKey: "object")
        #expect(object?.reads == [2, 1, 1, 2, 2, 1, 1, 2])
    }

    /// A type that does not adopt secure coding.
    final class Loose: KeyedCoding {
        static var archivedClassName: String { "Loose" }
        let value: Int
        init(value: Int) { self.value = value }
        func encode(with coder: KeyedArchiver) { coder.encode(value, forKey: "value") }
        init(coder: KeyedUnarchiver) throws { value = try coder.decodeInteger(forKey: "value") }
    }

    @Test func anObjectDecodedBeforeIsCheckedAgainWhenTheRulesChange() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: false)
        archiver.encode(Loose(value: 4), forKey: "loose")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        unarchiver.setClass(Loose.self, forClassName: "Loose")
        unarchiver.requiresSecureCoding = false
        let first = try unarchiver.decodeObject(of: Loose.self, forKey: "loose")
        #expect(first?.value == 4)
        #expect(try unarchiver.decodeObject(of: Loose.self, forKey: "loose") === first)
        unarchiver.requiresSecureCoding = true
        let refused = ArchiveTest.error { try unarchiver.decodeObject(of: Loose.self, forKey: "loose") }
        #expect(refused?.code == .classNotAllowed)
    }

    /// A long string is kept once it has been read twice, so that an archive referencing it
    /// many times holds at most two copies.
    @Test func aLongStringReadRepeatedlyIsShared() throws {
        let text = "a string longer than fifteen bytes"
        let archiver = KeyedArchiver()
        archiver.encode([text, text, text, text], forKey: "texts")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.finishedData())
        let texts = try #require(try unarchiver.decodeArrayOfObjects(ofClass: String.self, forKey: "texts"))
        #expect(texts == [text, text, text, text])
        func storage(_ string: String) -> UnsafeRawPointer? {
            string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
        #expect(storage(texts[1]) != nil)
        #expect(storage(texts[1]) == storage(texts[2]))
        #expect(storage(texts[2]) == storage(texts[3]))
    }
}
