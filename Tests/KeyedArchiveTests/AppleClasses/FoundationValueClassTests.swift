import Foundation
import Testing

@testable import ArchivedAppleClasses
@testable import KeyedArchive

/// Index sets, index paths, ordered and counted sets, decimals, locales, time zones,
/// measurements and errors: Apple's fixtures, and Foundation on this machine both ways.
@Suite struct FoundationValueClassTests {
    static let macOS = "corelibs_macOS-10.14_"

    static func fixture<T: KeyedCoding>(_ name: String, as type: T.Type) throws -> (T, Data)? {
        guard let data = try AppleFixture.data(macOS + name + ".archive") else { return nil }
        guard let value = try KeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data) else {
            throw AppleFixture.Failure("\(name) decoded as nil")
        }
        return (value, data)
    }

    static func writesBackEqual(_ value: some KeyedCoding, _ original: Data) throws -> Bool {
        let written = try KeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        return try PropertyList(from: written) == PropertyList(from: original)
    }

    @Test(arguments: [
        ("NSIndexSet-Empty", [Range<Int>]()), ("NSIndexSet-OneRange", [0..<50]),
        ("NSIndexSet-ManyRanges", [0..<50, 100..<150, 1000..<1050, (Int.max - 50)..<Int.max]),
        ("NSMutableIndexSet-Empty", []), ("NSMutableIndexSet-OneRange", [0..<50]),
        ("NSMutableIndexSet-ManyRanges", [0..<50, 100..<150, 1000..<1050, (Int.max - 50)..<Int.max]),
    ])
    func indexSets(_ name: String, _ ranges: [Range<Int>]) throws {
        guard let (set, data) = try Self.fixture(name, as: ArchivedIndexSet.self) else { return }
        #expect(set.ranges == ranges)
        #expect(set.isMutable == name.hasPrefix("NSMutable"))
        #expect(try Self.writesBackEqual(set, data), "\(name)")
    }

    @Test func rustPlistIndexSetHas42Ranges() throws {
        guard let data = try AppleFixture.data("rustplist_binary_NSKeyedArchiver.plist") else { return }
        let archive = try PropertyList(from: data)
        let uid = try #require(AppleFixture.objects(ofClass: "NSMutableIndexSet", in: archive).first)
        let set = try AppleFixture.decode(ArchivedIndexSet.self, at: uid, in: archive)
        #expect(set.ranges.count == 42)
        #expect(set.ranges.first == 3..<5)
        #expect(set.description.hasPrefix("[3..<5, 8..<9, 12..<18"))
    }

    @Test(arguments: [
        ("NSIndexPath-Empty", [Int]()), ("NSIndexPath-OneIndex", [52]),
        ("NSIndexPath-ManyIndices", [4, 8, 15, 16, 23, 42]),
    ])
    func indexPaths(_ name: String, _ indices: [Int]) throws {
        guard let (path, data) = try Self.fixture(name, as: IndexPath.self) else { return }
        #expect(Array(path) == indices)
        #expect(try Self.writesBackEqual(path, data), "\(name)")
    }

    @Test func xcodeStateIndexPaths() throws {
        let name = "wild_Candy_UserInterfaceState.xcuserstate"
        guard let archive = try AppleFixture.propertyList(name) else { return }
        let paths = try AppleFixture.objects(ofClass: "NSIndexPath", in: archive).map {
            try AppleFixture.decode(IndexPath.self, at: $0, in: archive)
        }
        #expect(paths.contains(IndexPath(indexes: [0, 5, 0, 1])))
    }

    @Test func orderedAndCountedSets() throws {
        if let (set, data) = try Self.fixture("NSOrderedSet-Numbers", as: ArchivedOrderedSet<Int>.self) {
            #expect(set.elements == [1, 2, 3, 4, 5])
            #expect(!set.isMutable)
            #expect(try Self.writesBackEqual(set, data))
        }
        if let (set, data) = try Self.fixture("NSMutableOrderedSet-Numbers", as: ArchivedOrderedSet<Int>.self)
        {
            #expect(set.isMutable)
            #expect(try Self.writesBackEqual(set, data))
        }
        if let (set, data) = try Self.fixture(
            "NSCountedSet-NumbersAppearingSeveralTimes", as: ArchivedCountedSet<Int>.self)
        {
            #expect(set.counts == [1: 5, 2: 5, 3: 5, 4: 5, 5: 5])
            #expect(try Self.writesBackEqual(set, data))
        }
        if let (set, data) = try Self.fixture("NSCountedSet-Empty", as: ArchivedCountedSet<Int>.self) {
            #expect(set.counts.isEmpty)
            #expect(try Self.writesBackEqual(set, data))
        }
        guard let data = try AppleFixture.data("corelibs_NSKeyedUnarchiver-OrderedSetTest.plist") else {
            return
        }
        let names = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedOrderedSet<String>.self, from: data)
        #expect(names?.elements == ["valgeir", "nico", "puzzle"])
    }

    @Test(arguments: [
        ("NSMeasurement-Angle", 90.0, "NSUnitAngle", "°", 1.0),
        ("NSMeasurement-Frequency", 1400, "NSUnitFrequency", "MHz", 1e6),
        ("NSMeasurement-Length", 45, "NSUnitLength", "mi", 1609.34),
    ])
    func measurements(
        _ name: String, _ value: Double, _ className: String, _ symbol: String, _ coefficient: Double
    )
        throws
    {
        guard let (measurement, data) = try Self.fixture(name, as: ArchivedMeasurement.self) else { return }
        #expect(measurement.value == value)
        #expect(measurement.unit.className == className)
        #expect(measurement.unit.symbol == symbol)
        #expect(measurement.unit.coefficient == coefficient)
        #expect(measurement.unit.constant == 0)
        #expect(try Self.writesBackEqual(measurement, data), "\(name)")
    }

    @Test func zeroMeasurementWithAPlainUnit() throws {
        guard let (measurement, data) = try Self.fixture("NSMeasurement-Zero", as: ArchivedMeasurement.self)
        else { return }
        #expect(measurement.value == 0)
        #expect(measurement.unit.className == "NSUnit")
        #expect(measurement.unit.coefficient == nil)
        #expect(try Self.writesBackEqual(measurement, data))
    }

    @Test func localesAndTimeZonesInsideFormatters() throws {
        let name = Self.macOS + "DateIntervalFormatter-ValuesSetWithTemplate.archive"
        guard let archive = try AppleFixture.propertyList(name) else { return }
        let locales = try AppleFixture.objects(ofClass: "NSLocale", in: archive).map {
            try AppleFixture.decode(Locale.self, at: $0, in: archive)
        }
        #expect(locales.map(\.identifier).contains("ja-JP") || locales.map(\.identifier).contains("ja_JP"))
        let zones = try AppleFixture.objects(ofClass: "NSTimeZone", in: archive).map {
            try AppleFixture.decode(TimeZone.self, at: $0, in: archive)
        }
        #expect(zones.contains { $0.secondsFromGMT() == 3600 })
        #expect(zones.contains { $0.secondsFromGMT() == 0 })
    }

    @Test func nibDecimalPlaceholderIsNaN() throws {
        guard
            let archive = try AppleFixture.propertyList(
                "wild_Flycut_English.lproj_MainMenu.nib_keyedobjects.nib")
        else { return }
        let uid = try #require(AppleFixture.objects(ofClass: "NSDecimalNumberPlaceholder", in: archive).first)
        let decimal = try AppleFixture.decode(Decimal.self, at: uid, in: archive)
        #expect(decimal.isNaN)
    }

    // MARK: Foundation on this machine, both ways

    /// Foundation on Linux is no peer here: it reads `NS.mantissa` as an object where Apple
    /// stores it inline (so it reads neither Apple's archives nor ours), and its
    /// `NSDecimalNumber.encode(with:)` crashes. So: Apple's layout, and round trips.
    @Test(arguments: ["0", "123.45", "-0.001", "340282366920938463463374607431768211455", "1e-20", "-7000"])
    func decimalsRoundTripInApplesLayout(_ text: String) throws {
        let value = try #require(Decimal(string: text))
        let data = try KeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Decimal.self, from: data) == value)
        let tree = try AppleFixture.rootTree(data)
        #expect(tree["$class"] == .array(["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]))
        #expect(tree["NS.mantissa"]?.dataValue?.count == 16)
        #expect(tree["NS.mantissa.bo"] == 1)
        if text == "123.45" {
            #expect(tree["NS.exponent"] == -2)
            #expect(tree["NS.length"] == 1)
            #expect(tree["NS.mantissa"]?.dataValue?.prefix(2) == Data([0x39, 0x30]))
        }
        #expect(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: Decimal.self,
                from: KeyedArchiver.archivedData(withRootObject: Decimal.nan, requiringSecureCoding: true))?
                .isNaN == true)
    }

    @Test func indexSetsAndPathsInteroperate() throws {
        var foundationSet = IndexSet(integersIn: 0..<50)
        foundationSet.insert(integersIn: 100..<150)
        foundationSet.insert(7000)
        let theirs = try NSKeyedArchiver.archivedData(
            withRootObject: NSIndexSet(indexSet: foundationSet), requiringSecureCoding: true)
        let set = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexSet.self, from: theirs))
        #expect(set.ranges == [0..<50, 100..<150, 7000..<7001])
        for candidate in [set, ArchivedIndexSet(ranges: [5..<6]), ArchivedIndexSet()] {
            let ours = try KeyedArchiver.archivedData(withRootObject: candidate, requiringSecureCoding: true)
            let back = try #require(
                try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexSet.self, from: ours))
            #expect(Array(back as IndexSet) == candidate.ranges.flatMap { Array($0) })
        }
        let path = IndexPath(indexes: [4, 8, 15, 16, 23, 42, 300])
        let ours = try KeyedArchiver.archivedData(withRootObject: path, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexPath.self, from: ours))
        #expect(back as IndexPath == path)
        let written = try NSKeyedArchiver.archivedData(
            withRootObject: NSIndexPath(indexes: [1, 200, 3], length: 3), requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: IndexPath.self, from: written) == [1, 200, 3])
    }

    @Test func setsLocalesZonesMeasurementsAndErrorsInteroperate() throws {
        let ordered = ArchivedOrderedSet(["b", "a", "c"], isMutable: true)
        let orderedData = try KeyedArchiver.archivedData(withRootObject: ordered, requiringSecureCoding: true)
        let theirOrdered = try #require(
            try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSMutableOrderedSet.self, NSString.self], from: orderedData)
                as? NSMutableOrderedSet)
        #expect(theirOrdered.array as? [String] == ["b", "a", "c"])

        let counted = ArchivedCountedSet(["x": 3, "y": 1])
        let countedData = try KeyedArchiver.archivedData(withRootObject: counted, requiringSecureCoding: true)
        let theirCounted = try #require(
            try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSCountedSet.self, NSString.self], from: countedData)
                as? NSCountedSet)
        #expect(theirCounted.count(for: "x") == 3)
        let foundationCounted = NSCountedSet(array: ["p", "p", "q"])
        let written = try NSKeyedArchiver.archivedData(
            withRootObject: foundationCounted, requiringSecureCoding: true)
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedCountedSet<String>.self, from: written)?
                .counts == ["p": 2, "q": 1])

        let locale = Locale(identifier: "fr_CA")
        let localeData = try KeyedArchiver.archivedData(withRootObject: locale, requiringSecureCoding: true)
        #expect(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSLocale.self, from: localeData).map {
                ($0 as Locale).identifier
            } == "fr_CA")
        let theirLocale = try NSKeyedArchiver.archivedData(
            withRootObject: NSLocale(localeIdentifier: "ja_JP"), requiringSecureCoding: true)
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: Locale.self, from: theirLocale)?.identifier
                == "ja_JP")

        let zone = try #require(TimeZone(identifier: "Europe/Paris"))
        let zoneData = try KeyedArchiver.archivedData(withRootObject: zone, requiringSecureCoding: true)
        #expect(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSTimeZone.self, from: zoneData)?.name
                == "Europe/Paris")
        let theirZone = try NSKeyedArchiver.archivedData(
            withRootObject: NSTimeZone(name: "Asia/Tokyo")!, requiringSecureCoding: true)
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: TimeZone.self, from: theirZone)?.identifier
                == "Asia/Tokyo")

        let miles = NSMeasurement(doubleValue: 45, unit: UnitLength.miles)
        let theirMiles = try NSKeyedArchiver.archivedData(withRootObject: miles, requiringSecureCoding: true)
        let ours = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedMeasurement.self, from: theirMiles))
        #expect(ours.description == "45 mi")
        let back = try KeyedArchiver.archivedData(withRootObject: ours, requiringSecureCoding: true)
        let decodedMiles = try #require(
            try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSMeasurement.self, UnitLength.self], from: back) as? NSMeasurement)
        #expect(decodedMiles.doubleValue == 45)
        #expect(decodedMiles.unit.symbol == "mi")

        let error = ArchivedError(domain: "Creatures", code: 42, userInfo: ["Name": .string("Potato Bug")])
        let errorData = try KeyedArchiver.archivedData(withRootObject: error, requiringSecureCoding: true)
        let theirError = try #require(
            try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSError.self, NSDictionary.self, NSString.self], from: errorData)
                as? NSError)
        #expect(theirError.domain == "Creatures")
        #expect(theirError.code == 42)
        #expect(theirError.userInfo["Name"] as? String == "Potato Bug")
        // Foundation on Linux crashes archiving an NSError, so only our own round trip here.
        let decodedError = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedError.self, from: errorData)
        #expect(decodedError == error)
    }

    @Test func hostileIndexData() throws {
        #expect(CompactIntegers.parse(Data([0x80])) == nil)
        #expect(CompactIntegers.parse(Data(repeating: 0xFF, count: 11) + Data([1])) == nil)
        #expect(
            CompactIntegers.parse(Data([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])) == [Int.max])
        // A range count that the data does not back is an error, not an allocation.
        let bogus = PropertyList.dictionary([
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null", ["$class": .uid(2), "NSRangeCount": 1_000_000_000_000],
                ["$classname": "NSIndexSet", "$classes": ["NSIndexSet", "NSObject"]],
            ],
        ])
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(
                ofClass: ArchivedIndexSet.self, from: bogus.data(format: .binary))
        }
    }
}

/// Web-archive responses (`NSHTTPURLResponse`) as Safari stores them.
@Suite struct URLResponseTests {
    @Test func webArchiveResponses() throws {
        let name =
            "wild_webarchive_fixtures_crouton.webarchive.embedded_WebSubresources__0__"
            + "WebResourceResponse.bplist"
        guard let archive = try AppleFixture.propertyList(name) else { return }
        let uid = try #require(AppleFixture.objects(ofClass: "NSHTTPURLResponse", in: archive).first)
        let response = try AppleFixture.decode(ArchivedURLResponse.self, at: uid, in: archive)
        #expect(response.isHTTP)
        #expect(response.url?.absoluteString == "https://crouton.net/crouton.png")
        #expect(response.statusCode == 200)
        #expect(response.mimeType == "image/png")
        #expect(response.headerFields["Content-Length"] == "5182")
        #expect(response.headerFields["Server"] == "Apache/2.4.25 (Debian)")
        #expect(response.fields["$0"] == .integer(8))
        #expect(response.description == "200 https://crouton.net/crouton.png image/png")
        let written = try KeyedArchiver.archivedData(withRootObject: response, requiringSecureCoding: true)
        #expect(try AppleFixture.rootTree(written) == AppleFixture.tree(of: uid, in: archive))
    }
}
