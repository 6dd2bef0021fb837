import Foundation
import KeyedArchive
import TestSupport
import Testing

/// Every shared fixture, replayed through the property-list layer: valid files must read
/// to what Python's plistlib read (`*.expected.json`) and survive re-writing in both
/// formats; malformed files must be refused with a located `KeyedArchiveError`, or at
/// least not crash.
@Suite(.enabled(if: Fixtures.isAvailable, "\(Fixtures.skipNote)"))
struct FixtureConformanceTests {
    /// The valid property lists: plain ones and Apple-made keyed archives (read here as
    /// property lists only).
    static let validEntries = Fixtures.entries("plists") + Fixtures.entries("apple-keyed-archives")

    static func malformedEntries(expecting expectation: String) -> [Fixtures.Entry] {
        Fixtures.entries("malformed").filter { $0.expect == expectation }
    }

    /// Note `plists/sfoundation_Generic_XML_Properties_Binary_bplist0x.plist`: its header
    /// is patched to `bplist0x` (Apple accepts any `bplist0?`), plistlib refuses it, so its
    /// expectation is the unpatched file's value — which is exactly what we must read.
    @Test(arguments: validEntries)
    func readsAsExpected(_ entry: Fixtures.Entry) throws {
        let expected = try #require(
            try Fixtures.expectedValue(entry), "\(entry.file): no expectation")
        let value: PropertyList
        do {
            value = try PropertyList(from: Fixtures.data(entry))
        } catch {
            Issue.record("\(entry.file): failed to read: \(error)")
            return
        }
        // plistlib's dates are rounded to the microsecond.
        let difference = PropertyListComparison.firstDifference(
            expected: expected, actual: value, dateTolerance: 1e-6)
        #expect(difference == nil, "\(entry.file): \(difference ?? "")")
    }

    @Test(arguments: validEntries)
    func survivesBinaryRoundTrip(_ entry: Fixtures.Entry) throws {
        try checkRoundTrip(entry, format: .binary)
    }

    @Test(arguments: validEntries)
    func survivesXMLRoundTrip(_ entry: Fixtures.Entry) throws {
        try checkRoundTrip(entry, format: .xml)
    }

    /// Reads the fixture, writes it in `format`, reads that back: the value must be
    /// unchanged, except that XML keeps whole seconds of dates.
    private func checkRoundTrip(_ entry: Fixtures.Entry, format: PropertyListFormat) throws {
        let original: PropertyList
        do {
            original = try PropertyList(from: Fixtures.data(entry))
        } catch {
            Issue.record("\(entry.file): failed to read (see readsAsExpected): \(error)")
            return
        }
        let encoded: Data
        do {
            encoded = try original.data(format: format)
        } catch let error as KeyedArchiveError
            where error.code == .invalidValue && original.containsIntegerWiderThan64Bits
        {
            // Integers beyond UInt64 (goplist_int128.bplist) are outside what Apple's
            // writers produce; a writer may refuse them, saying so.
            #expect(!error.description.isEmpty)
            return
        } catch {
            Issue.record("\(entry.file): writing \(format) failed: \(error)")
            return
        }
        #expect(
            PropertyListFormat.detect(encoded) == format,
            "\(entry.file): written \(format) is detected as other")
        let reread: PropertyList
        do {
            reread = try PropertyList(from: encoded, format: format)
        } catch {
            Issue.record("\(entry.file): reading back our \(format) failed: \(error)")
            return
        }
        let expected = format == .xml ? original.withDatesFlooredToSeconds : original
        let difference = PropertyListComparison.firstDifference(expected: expected, actual: reread)
        #expect(difference == nil, "\(entry.file): \(format) round trip: \(difference ?? "")")
    }

    /// `reject`: must throw a `KeyedArchiveError` that says what is wrong and where.
    @Test(.timeLimit(.minutes(1)), arguments: malformedEntries(expecting: "reject"))
    func rejectsMalformed(_ entry: Fixtures.Entry) throws {
        let data = try Fixtures.data(entry)
        do {
            let value = try PropertyList(from: data)
            Issue.record(
                "\(entry.file): accepted, but must be rejected; read \(PropertyListComparison.abbreviated(value))"
            )
        } catch let error as KeyedArchiveError {
            #expect(!error.message.isEmpty, "\(entry.file): error has an empty message")
            #expect(!error.description.isEmpty, "\(entry.file): error has an empty description")
            #expect(error.location != nil, "\(entry.file): error has no location: \(error)")
        } catch {
            Issue.record("\(entry.file): threw \(type(of: error)), not KeyedArchiveError: \(error)")
        }
    }

    /// `reject-or-decode`: hostile or ambiguous input where Apple may accept it; either
    /// outcome is fine, as long as it terminates without a crash and a refusal is our error
    /// type with a location.
    @Test(.timeLimit(.minutes(1)), arguments: malformedEntries(expecting: "reject-or-decode"))
    func terminatesOnHostile(_ entry: Fixtures.Entry) throws {
        let data = try Fixtures.data(entry)
        do {
            _ = try PropertyList(from: data)
        } catch let error as KeyedArchiveError {
            #expect(!error.message.isEmpty, "\(entry.file): error has an empty message")
            #expect(error.location != nil, "\(entry.file): error has no location: \(error)")
        } catch {
            Issue.record("\(entry.file): threw \(type(of: error)), not KeyedArchiveError: \(error)")
        }
    }

    /// `plist-ok-archive-bad`: the property-list layer must read these; the keyed-archive
    /// layer's refusal is tested with the unarchiver.
    @Test(arguments: malformedEntries(expecting: "plist-ok-archive-bad"))
    func readsPlistOfBadArchive(_ entry: Fixtures.Entry) throws {
        let expected = try #require(
            try Fixtures.expectedValue(entry), "\(entry.file): no expectation")
        let value: PropertyList
        do {
            value = try PropertyList(from: Fixtures.data(entry))
        } catch {
            Issue.record("\(entry.file): failed to read: \(error)")
            return
        }
        let difference = PropertyListComparison.firstDifference(
            expected: expected, actual: value, dateTolerance: 1e-6)
        #expect(difference == nil, "\(entry.file): \(difference ?? "")")
    }

    /// Guards against the suite silently testing nothing (e.g. a renamed category).
    @Test func manifestHasEveryCategory() {
        #expect(Self.validEntries.count >= 130, "valid fixtures: \(Self.validEntries.count)")
        #expect(Self.malformedEntries(expecting: "reject").count >= 100)
        #expect(!Self.malformedEntries(expecting: "reject-or-decode").isEmpty)
        #expect(!Self.malformedEntries(expecting: "plist-ok-archive-bad").isEmpty)
    }
}
