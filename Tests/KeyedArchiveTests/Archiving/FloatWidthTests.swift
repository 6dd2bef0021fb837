import Foundation
import KeyedArchive
import Testing

/// Foundation writes a `Float` as a 4-byte real (marker 0x22), inline or as an `NSNumber`,
/// where a `Double` takes 8 bytes. The archiver writes the same widths. (The order of the
/// objects differs from Foundation on Linux, whose binary writer orders them its own way,
/// so the archives are compared as property lists.)
final class FloatWidthNS: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let value: Float

    init(value: Float) { self.value = value }

    func encode(with coder: NSCoder) {
        coder.encode(value, forKey: "inline")
        coder.encode(NSNumber(value: value), forKey: "object")
        coder.encode(Double(value), forKey: "double")
    }

    init?(coder: NSCoder) {
        value = coder.decodeFloat(forKey: "inline")
    }
}

struct FloatWidth: SecureKeyedCoding, Equatable {
    static var archivedClassName: String { "KeyedArchiveTests.FloatWidthNS" }
    var value: Float

    init(value: Float) { self.value = value }

    func encode(with coder: KeyedArchiver) {
        coder.encode(value, forKey: "inline")
        coder.encodeObject(value, forKey: "object")
        coder.encode(Double(value), forKey: "double")
    }

    init(coder: KeyedUnarchiver) throws {
        value = try coder.decodeFloat(forKey: "inline")
        let object = try coder.decodeObject(of: Float.self, forKey: "object")
        let double = try coder.decodeDouble(forKey: "double")
        guard object == value, double == Double(value) else {
            throw KeyedArchiveError(.invalidValue, "the three forms disagree")
        }
    }
}

@Suite struct FloatWidthTests {
    @Test(arguments: [
        Float(1.5), 0.1, -0.0, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity,
    ])
    func aFloatIsWrittenAsFoundationWritesIt(_ value: Float) throws {
        let ours = try KeyedArchiver.archivedData(
            withRootObject: FloatWidth(value: value), requiringSecureCoding: true)
        let theirs = try NSKeyedArchiver.archivedData(
            withRootObject: FloatWidthNS(value: value), requiringSecureCoding: true)
        #expect(try PropertyList(from: ours) == PropertyList(from: theirs))
        // One 4-byte real (the inline value and the number object are the same scalar,
        // written once), and the Double in 8 bytes; Foundation writes the 4-byte real twice.
        if value.isFinite {
            #expect(ours.count(of: Self.float(value)) == 1)
            #expect(theirs.count(of: Self.float(value)) == 2)
            #expect(ours.count(of: Self.double(Double(value))) == 1)
        } else {
            // CoreFoundation writes non-finite numbers as 8-byte reals.
            #expect(ours.count(of: Self.float(value)) == 0)
            #expect(theirs.count(of: Self.float(value)) == 0)
        }
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: FloatWidth.self, from: theirs)
                == FloatWidth(value: value))
        let read = try NSKeyedUnarchiver.unarchivedObject(ofClass: FloatWidthNS.self, from: ours)
        #expect(read?.value.bitPattern == value.bitPattern)
    }

    @Test func aFloatAtTheTopLevelIsAFourByteNumber() throws {
        let ours = try KeyedArchiver.archivedData(withRootObject: Float(0.1), requiringSecureCoding: true)
        let theirs = try NSKeyedArchiver.archivedData(
            withRootObject: NSNumber(value: Float(0.1)), requiringSecureCoding: true)
        #expect(try PropertyList(from: ours) == PropertyList(from: theirs))
        #expect(ours.count(of: Self.float(0.1)) == 1)
        #expect(ours.count(of: Self.double(Double(Float(0.1)))) == 0)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Float.self, from: ours) == 0.1)
    }

    static func float(_ value: Float) -> [UInt8] {
        [0x22] + (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (24 - 8 * $0)) }
    }

    static func double(_ value: Double) -> [UInt8] {
        [0x23] + (0..<8).map { UInt8(truncatingIfNeeded: value.bitPattern >> (56 - 8 * $0)) }
    }
}

extension Data {
    /// How many times `pattern` occurs.
    fileprivate func count(of pattern: [UInt8]) -> Int {
        guard pattern.count <= count else { return 0 }
        let bytes = [UInt8](self)
        return (0...(bytes.count - pattern.count)).filter {
            Array(bytes[$0..<($0 + pattern.count)]) == pattern
        }.count
    }
}
