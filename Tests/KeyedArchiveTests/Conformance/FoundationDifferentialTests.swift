import Foundation
import KeyedArchive
import Testing

/// Generated property lists exchanged with Foundation's `PropertyListSerialization`, in
/// both directions and both formats: what we write, Foundation must read to the same
/// value; what Foundation writes, we must read to the same value.
///
/// Each direction generates only what can cross it (see `GeneratorProfile`): no UIDs from
/// Foundation (it cannot create them on Linux), UIDs up to 32 bits towards it (its UID
/// holds a `UInt32`), whole-second dates in XML. Foundation's XML writer turns `-0.0`
/// into `0.0` (FORMAT.md), so that direction expects `0.0`. `FoundationBridge` explains
/// how Foundation's `Any` values are classified.
@Suite struct FoundationDifferentialTests {
    static let formats: [PropertyListFormat] = [.binary, .xml]

    private static func foundationFormat(_ format: PropertyListFormat)
        -> PropertyListSerialization.PropertyListFormat
    {
        format == .binary ? .binary : .xml
    }

    @Test(arguments: formats)
    func foundationReadsWhatWeWrite(format: PropertyListFormat) throws {
        var generator = PropertyListGenerator(
            profile: format == .binary ? .foundationReadsBinary : .foundationReadsXML)
        let values = generator.values()
        var failures = 0
        for (index, value) in values.enumerated() where failures < 10 {
            let label = "case \(index) (\(generator.profile)) \(PropertyListComparison.abbreviated(value))"
            let encoded: Data
            do {
                encoded = try value.data(format: format)
            } catch {
                Issue.record("\(label): our writer failed: \(error)")
                failures += 1
                continue
            }
            var detected = PropertyListSerialization.PropertyListFormat.openStep
            let object: Any
            do {
                object = try PropertyListSerialization.propertyList(
                    from: encoded, options: [], format: &detected)
            } catch {
                Issue.record("\(label): Foundation cannot read our \(format): \(error)")
                failures += 1
                continue
            }
            #expect(detected == Self.foundationFormat(format), "\(label): Foundation detected \(detected)")
            let bridged = try FoundationBridge.propertyList(from: object)
            if let difference = PropertyListComparison.firstDifference(expected: value, actual: bridged) {
                Issue.record("\(label): Foundation read back something else: \(difference)")
                failures += 1
            }
        }
        #expect(values.count > 150)
    }

    @Test(arguments: formats)
    func weReadWhatFoundationWrites(format: PropertyListFormat) throws {
        var generator = PropertyListGenerator(
            profile: format == .binary ? .foundationWritesBinary : .foundationWritesXML)
        let values = generator.values()
        var failures = 0
        for (index, value) in values.enumerated() where failures < 10 {
            let label = "case \(index) (\(generator.profile)) \(PropertyListComparison.abbreviated(value))"
            let encoded: Data
            do {
                encoded = try PropertyListSerialization.data(
                    fromPropertyList: try FoundationBridge.foundationObject(from: value),
                    format: Self.foundationFormat(format), options: 0)
            } catch {
                Issue.record("\(label): Foundation cannot write it (generator bug?): \(error)")
                failures += 1
                continue
            }
            let read: PropertyList
            do {
                read = try PropertyList(from: encoded)
            } catch {
                Issue.record("\(label): we cannot read Foundation's \(format): \(error)")
                failures += 1
                continue
            }
            let expected = format == .xml ? value.withNegativeZeroAsPositive : value
            if let difference = PropertyListComparison.firstDifference(expected: expected, actual: read) {
                Issue.record("\(label): we read something else from Foundation's \(format): \(difference)")
                failures += 1
            }
        }
        #expect(values.count > 150)
    }

    /// Foundation alone: every generated value survives Foundation's own writer and reader
    /// through the bridge, so a failure above points at our engines, not at the generator
    /// or the bridge.
    @Test(arguments: formats)
    func generatedValuesSurviveFoundationAlone(format: PropertyListFormat) throws {
        var generator = PropertyListGenerator(
            profile: format == .binary ? .foundationWritesBinary : .foundationWritesXML)
        var failures = 0
        for (index, value) in generator.values().enumerated() where failures < 10 {
            let data = try PropertyListSerialization.data(
                fromPropertyList: try FoundationBridge.foundationObject(from: value),
                format: Self.foundationFormat(format), options: 0)
            let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            let expected = format == .xml ? value.withNegativeZeroAsPositive : value
            if let difference = PropertyListComparison.firstDifference(
                expected: expected, actual: try FoundationBridge.propertyList(from: object))
            {
                Issue.record("case \(index): \(difference)")
                failures += 1
            }
        }
    }

    /// The bridge must keep booleans, integers and reals apart, or the tests above could
    /// pass on confused values.
    @Test func bridgeKeepsNumberKindsApart() throws {
        let value: PropertyList = [
            true, false, 0, 1, -1, 3.0, 0.0, 1.0, .integer(PropertyListInteger(UInt64.max)), .integer(-5),
        ]
        for format in Self.formats {
            let data = try PropertyListSerialization.data(
                fromPropertyList: try FoundationBridge.foundationObject(from: value),
                format: Self.foundationFormat(format), options: 0)
            let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            let bridged = try FoundationBridge.propertyList(from: object)
            #expect(
                PropertyListComparison.firstDifference(expected: value, actual: bridged) == nil, "\(format)")
        }
    }
}
