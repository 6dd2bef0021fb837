import Foundation
import KeyedArchive
import Testing

@Suite struct PropertyListValueTests {
    @Test func integerRangeIsExact() {
        let big = PropertyListInteger(UInt64.max)
        #expect(big.int64Value == nil)
        #expect(big.uint64Value == UInt64.max)
        #expect(big.description == "18446744073709551615")
        #expect(PropertyListInteger(Int64.min).description == "-9223372036854775808")
        #expect(
            PropertyListInteger(high: 0x0102_0304_0506_0708, low: 0x090a_0b0c_0d0e_0f10).description
                == "1339673755198158349044581307228491536")
        #expect(
            PropertyListInteger(decimal: "1339673755198158349044581307228491536")
                == PropertyListInteger(high: 0x0102_0304_0506_0708, low: 0x090a_0b0c_0d0e_0f10))
        #expect(
            PropertyListInteger(decimal: "-170141183460469231731687303715884105728")?.description
                == "-170141183460469231731687303715884105728")
        #expect(PropertyListInteger(decimal: "170141183460469231731687303715884105728") == nil)
        #expect(PropertyListInteger(decimal: "-1") == PropertyListInteger(-1))
        #expect(PropertyListInteger(decimal: "12a") == nil)
        #expect(PropertyListInteger(-1) < PropertyListInteger(UInt64.max))
    }

    @Test func dictionaryEqualityIgnoresOrderAndLastDuplicateWins() {
        let a: PropertyList = ["x": 1, "y": "two"]
        let b: PropertyList = ["y": "two", "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        let duplicated = PropertyListDictionary([("k", 1), ("k", 2)])
        #expect(duplicated.count == 1)
        #expect(duplicated["k"] == 2)
    }

    @Test func nanEqualsItself() {
        let value: PropertyList = [.real(.nan)]
        #expect(value == value)
    }

    @Test func descriptionIsReadable() {
        let value: PropertyList = ["Title": "Potato Bug", "Tags": ["a"], "ID": .uid(3)]
        #expect(value.description == #"{"Title": "Potato Bug", "Tags": ["a"], "ID": UID(3)}"#)
    }
}

@Suite struct PropertyListDictionaryTests {
    @Test func insertReplaceAndRemoveKeepOrder() {
        var dictionary = PropertyListDictionary()
        dictionary["a"] = 1
        dictionary["b"] = 2
        dictionary["c"] = 3
        dictionary["a"] = 10
        #expect(dictionary.keys == ["a", "b", "c"])
        #expect(dictionary["a"] == 10)
        dictionary["b"] = nil
        #expect(dictionary.keys == ["a", "c"])
        #expect(dictionary["c"] == 3)
        #expect(dictionary.removeValue(forKey: "a") == 10)
        #expect(dictionary.removeValue(forKey: "zzz") == nil)
        dictionary["d"] = 4
        #expect(dictionary.keys == ["c", "d"])
        #expect(dictionary["d"] == 4)
        #expect(dictionary.values == [3, 4])
    }

    @Test(arguments: [3, 8, 9, 40])
    func lookupsStayCorrectAcrossSizes(count: Int) {
        var dictionary = PropertyListDictionary()
        for index in 0..<count { dictionary["k\(index)"] = .integer(PropertyListInteger(index)) }
        dictionary["k0"] = "replaced"
        #expect(dictionary.count == count)
        #expect(dictionary["k0"] == "replaced")
        for index in 1..<count { #expect(dictionary["k\(index)"]?.intValue == index) }
        dictionary["k1"] = nil
        #expect(dictionary["k1"] == nil)
        #expect(dictionary.count == count - 1)
        for index in 2..<count { #expect(dictionary["k\(index)"]?.intValue == index) }
        dictionary["new"] = true
        #expect(dictionary.keys.last == "new")
        #expect(dictionary["new"] == true)
        #expect(dictionary == PropertyListDictionary(zip(dictionary.keys, dictionary.values).reversed()))
    }

    /// A dictionary of more keys than are searched linearly, read from text and from
    /// binary: long and non-ASCII keys are found, and a repeated key keeps its first
    /// position and its last value.
    @Test func readDictionariesOfManyKeysFindEveryKeyAndKeepTheLastDuplicate() throws {
        let names = (0..<12).map { "key-\($0)-" + String(repeating: "é", count: $0) }
        let entries = names.enumerated().map { "\"\($1)\" = v\($0);" }.joined(separator: " ")
        let value = try PropertyList(from: Data("{ \(entries) \"\(names[3])\" = last; }".utf8))
        #expect(value.dictionaryValue?.keys == names)
        #expect(value[names[3]] == "last")
        for (index, name) in names.enumerated() where index != 3 {
            #expect(value[name]?.stringValue == "v\(index)")
        }
        #expect(value["key-3-"] == nil)
        let back = try PropertyList(
            from: value.data(format: .binary, options: PropertyListWritingOptions(sortsKeys: false)))
        #expect(back.dictionaryValue?.keys == names)
        #expect(back == value)
        for name in names { #expect(back[name] == value[name]) }
    }

    /// Past eight keys, ASCII keys are found by their bytes; a key that is not ASCII but
    /// canonically equivalent to one (U+212A KELVIN SIGN and `K`) is still the same key.
    @Test func canonicallyEquivalentKeysMatchPastTheLinearSize() {
        var dictionary = PropertyListDictionary()
        for index in 0..<12 { dictionary["key\(index)"] = .integer(PropertyListInteger(index)) }
        dictionary["K"] = "ascii"
        #expect(dictionary["\u{212A}"] == "ascii")
        dictionary["\u{212A}"] = "kelvin"
        #expect(dictionary.count == 13)
        #expect(dictionary["K"] == "kelvin")
        dictionary["e\u{301}"] = "decomposed"
        #expect(dictionary["\u{E9}"] == "decomposed")
        for index in 0..<12 { #expect(dictionary["key\(index)"]?.intValue == index) }
    }
}
