import Foundation
import KeyedArchive
import TestSupport
import Testing

/// Generated property lists exchanged with CPython's `plistlib`, in both directions and
/// both formats, one `python3` process per direction and format.
///
/// plistlib is an independent implementation (its binary writer reproduces Cocoa's output
/// byte for byte), so agreeing with it as well as with Foundation pins down the format
/// rather than one library's habits. Dates are multiples of 1/64 s in binary (plistlib's
/// `datetime` has microsecond resolution) and whole seconds in XML; UIDs travel through
/// XML as `CF$UID` dictionaries, which plistlib treats as plain dictionaries.
@Suite(.enabled(if: PythonPlistlib.isAvailable, "\(PythonPlistlib.skipNote)"))
struct PlistlibDifferentialTests {
    static let formats: [PropertyListFormat] = [.binary, .xml]

    private static func generatedValues(_ format: PropertyListFormat) -> (GeneratorProfile, [PropertyList]) {
        var generator = PropertyListGenerator(profile: format == .binary ? .plistlibBinary : .plistlibXML)
        return (generator.profile, generator.values())
    }

    /// plistlib's binary writer stores `0.0` and `-0.0` as one object, so when plistlib
    /// writes binary the sign of zero is not compared.
    private static func firstDifference(written: PropertyList, read: PropertyList, format: PropertyListFormat)
        -> String?
    {
        guard format == .binary else {
            return PropertyListComparison.firstDifference(expected: written, actual: read)
        }
        return PropertyListComparison.firstDifference(
            expected: written.withNegativeZeroAsPositive, actual: read.withNegativeZeroAsPositive)
    }

    @Test(arguments: formats)
    func plistlibReadsWhatWeWrite(format: PropertyListFormat) throws {
        let (profile, values) = Self.generatedValues(format)
        var encoded: [Data] = []
        var writerFailures = 0
        for (index, value) in values.enumerated() {
            do {
                encoded.append(try value.data(format: format))
            } catch {
                if writerFailures < 10 {
                    Issue.record("case \(index) (\(profile)): our writer failed: \(error)")
                }
                writerFailures += 1
                encoded.append(Data())
            }
        }
        try #require(writerFailures == 0, "our writer failed on \(writerFailures) of \(values.count) values")
        let results = try PythonPlistlib.read(encoded)
        try #require(
            results.count == values.count, "plistlib returned \(results.count) of \(values.count) results")
        var failures = 0
        for (index, (value, result)) in zip(values, results).enumerated() where failures < 10 {
            let label = "case \(index) (\(profile)) \(PropertyListComparison.abbreviated(value))"
            switch result {
            case .failure(let error):
                Issue.record("\(label): plistlib cannot read our \(format): \(error)")
                failures += 1
            case .success(let read):
                if let difference = PropertyListComparison.firstDifference(expected: value, actual: read) {
                    Issue.record("\(label): plistlib read back something else: \(difference)")
                    failures += 1
                }
            }
        }
        #expect(values.count > 150)
    }

    @Test(arguments: formats)
    func weReadWhatPlistlibWrites(format: PropertyListFormat) throws {
        let (profile, values) = Self.generatedValues(format)
        let results = try PythonPlistlib.write(values, format: format)
        try #require(
            results.count == values.count, "plistlib returned \(results.count) of \(values.count) results")
        var failures = 0
        for (index, (value, result)) in zip(values, results).enumerated() where failures < 10 {
            let label = "case \(index) (\(profile)) \(PropertyListComparison.abbreviated(value))"
            switch result {
            case .failure(let error):
                Issue.record("\(label): plistlib cannot write it (generator bug?): \(error)")
                failures += 1
            case .success(let encoded):
                do {
                    let read = try PropertyList(from: encoded)
                    if let difference = Self.firstDifference(written: value, read: read, format: format) {
                        Issue.record(
                            "\(label): we read something else from plistlib's \(format): \(difference)")
                        failures += 1
                    }
                } catch {
                    Issue.record("\(label): we cannot read plistlib's \(format): \(error)")
                    failures += 1
                }
            }
        }
        #expect(values.count > 150)
    }

    /// plistlib alone: every generated value survives plistlib's writer and reader and the
    /// JSON bridge, so a failure above points at our engines, not at the test machinery.
    @Test(arguments: formats)
    func generatedValuesSurvivePlistlibAlone(format: PropertyListFormat) throws {
        let (profile, values) = Self.generatedValues(format)
        let results = try PythonPlistlib.roundTrip(values, format: format)
        try #require(results.count == values.count)
        var failures = 0
        for (index, (value, result)) in zip(values, results).enumerated() where failures < 10 {
            switch result {
            case .failure(let error):
                Issue.record("case \(index) (\(profile)): \(error)")
                failures += 1
            case .success(let read):
                if let difference = Self.firstDifference(written: value, read: read, format: format) {
                    Issue.record("case \(index) (\(profile)): \(difference)")
                    failures += 1
                }
            }
        }
    }

    /// The bridge itself, independent of our engines: values survive our JSON writer and
    /// the expected-JSON reader unchanged, dates to the microsecond.
    @Test func bridgeJSONRoundTrips() throws {
        let value: PropertyList = [
            "text": "é🎉\u{1}\"\\", "big": .integer(PropertyListInteger(UInt64.max)),
            "neg": .integer(.init(Int64.min)),
            "zero": .real(-0.0), "nan": .real(.nan), "inf": .real(-.infinity),
            "tiny": .real(.leastNonzeroMagnitude),
            "when": .date(Date(timeIntervalSinceReferenceDate: -0.015625)), "bytes": .data(Data([0, 255])),
            "ref": .uid(UInt64.max), "yes": true, "nested": [[:], []],
        ]
        var json = ""
        try PythonPlistlib.appendJSON(value, to: &json)
        var parser = ExpectedJSONParser(text: Array(json.utf8))
        let parsed = try parser.parseDocument().withFractionalDatesResolved
        #expect(PropertyListComparison.firstDifference(expected: value, actual: parsed) == nil, "\(json)")
        #expect(try PythonPlistlib.isoText(-0.015625) == "2000-12-31T23:59:59.984375Z")
        #expect(try PythonPlistlib.isoText(0) == "2001-01-01T00:00:00Z")
    }
}
