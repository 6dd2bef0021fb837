import Foundation
import KeyedArchive

/// Property-list parsing and writing, ours (`PropertyList(from:)`, `PropertyList.data(format:)`)
/// against Foundation's `PropertyListSerialization`, on three workloads in binary and XML.
///
/// Both sides parse the same bytes (written by our writer, since Foundation on Linux
/// cannot create the UIDs of the keyed-archive workload). Foundation writes the object
/// graph it parsed from those bytes, its native representation of the same value.
enum PropertyListBenchmarks: BenchmarkGroup {
    static let name = "plist"

    /// The speed-ups we aim for (Foundation's time / ours).
    static func target(operation: String, format: String) -> Double {
        switch (operation, format) {
        case ("parse", "binary"): return 10
        case ("write", "binary"): return 5
        case ("parse", "xml"): return 5
        default: return 3
        }
    }

    static func benchmarks(size: BenchmarkSize) -> [Benchmark] {
        let workloads: [(name: String, value: Lazy<PropertyList>)] = [
            (
                size == .full ? "keyed-archive-10k" : "keyed-archive-500",
                Lazy { Workloads.keyedArchive(objects: size == .full ? 10_000 : 500) }
            ),
            (
                size == .full ? "mixed-100k" : "mixed-5k",
                Lazy { Workloads.mixedIntegersAndStrings(values: size == .full ? 100_000 : 5_000) }
            ),
            (
                size == .full ? "blobs-200x64KB" : "blobs-10x64KB",
                Lazy { Workloads.blobs(count: size == .full ? 200 : 10, bytes: 64 * 1024) }
            ),
        ]
        var benchmarks: [Benchmark] = []
        for workload in workloads {
            for format in [PropertyListFormat.binary, .xml] {
                let encoded = Lazy { try workload.value.get().data(format: format) }
                let formatName = format == .binary ? "binary" : "xml"
                benchmarks.append(
                    Benchmark(
                        workload: workload.name, operation: "parse", format: formatName,
                        target: target(operation: "parse", format: formatName),
                        prepare: {
                            let bytes = try encoded.get()
                            let value = try workload.value.get()
                            return PreparedBenchmark(
                                ours: {
                                    let parsed = try PropertyList(from: bytes)
                                    blackHole(parsed.arrayValue?.count ?? parsed.dictionaryValue?.count ?? 0)
                                    return bytes.count
                                },
                                baseline: {
                                    let parsed = try PropertyListSerialization.propertyList(
                                        from: bytes, options: [], format: nil)
                                    blackHole(parsed as AnyObject)
                                    return bytes.count
                                },
                                inputBytes: bytes.count,
                                verify: {
                                    guard let parsed = try? PropertyList(from: bytes) else {
                                        return "ours fails to parse"
                                    }
                                    return parsed == value ? nil : "ours parses a different value"
                                })
                        }))
                benchmarks.append(
                    Benchmark(
                        workload: workload.name, operation: "write", format: formatName,
                        target: target(operation: "write", format: formatName),
                        prepare: {
                            let value = try workload.value.get()
                            // Foundation's own graph for the same value: what it parses from our
                            // output (it holds `_NSKeyedArchiverUID`s, which it cannot make otherwise).
                            let graph = try PropertyListSerialization.propertyList(
                                from: try encoded.get(), options: [], format: nil)
                            let foundationFormat: PropertyListSerialization.PropertyListFormat =
                                format == .binary ? .binary : .xml
                            return PreparedBenchmark(
                                ours: { try value.data(format: format).count },
                                baseline: {
                                    try PropertyListSerialization.data(
                                        fromPropertyList: graph, format: foundationFormat, options: 0
                                    ).count
                                },
                                verify: {
                                    guard let data = try? value.data(format: format),
                                        let reread = try? PropertyList(from: data)
                                    else { return "ours fails to write or re-read" }
                                    return reread == value
                                        ? nil : "ours writes a value it re-reads differently"
                                })
                        }))
            }
        }
        return benchmarks
    }
}

/// Deterministic inputs (a fixed-seed generator), identical in the parent process and in
/// the memory-measuring children.
enum Workloads {
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static let names = [
        "Potato Bug", "Ladybird", "Stag Beetle", "Firefly", "Dragonfly", "Mantis", "Cicada", "Weevil",
        "Hornet",
        "Water Strider", "Grasshopper", "Cockchafer", "Silverfish", "Lacewing", "Mayfly", "Caddisfly",
    ]

    /// What `NSKeyedArchiver` produces for an array of `objects` small model objects: each
    /// object a dictionary with a `$class` UID, a name string object, an `NSDate` object,
    /// inline integer, real, bool and date scalars, and a reference to another object;
    /// one class description per class; `$top` → root array of every object.
    static func keyedArchive(objects count: Int) -> PropertyList {
        var random = Random(state: 1)
        var objects: [PropertyList] = ["$null"]
        // Indices: 1 root array, 2 root's class, 3 model class, 4 date class, then per
        // object: model, name string, date object.
        objects.append("")  // the root array, filled in below
        objects.append(classDescription("NSArray", ["NSArray", "NSObject"]))
        objects.append(classDescription("Creature", ["Creature", "NSObject"]))
        objects.append(classDescription("NSDate", ["NSDate", "NSObject"]))
        var members: [PropertyList] = []
        members.reserveCapacity(count)
        for index in 0..<count {
            let model = UInt64(objects.count)
            members.append(.uid(model))
            var entries = PropertyListDictionary(minimumCapacity: 8)
            entries["$class"] = .uid(3)
            entries["name"] = .uid(model + 1)
            entries["created"] = .uid(model + 2)
            entries["legs"] = PropertyList(random.below(1000))
            entries["weight"] = .real(Double(random.below(1_000_000)) / 1000)
            entries["nocturnal"] = .bool(random.below(2) == 0)
            entries["seen"] = .date(Date(timeIntervalSinceReferenceDate: Double(random.below(700_000_000))))
            // A reference to an earlier object, as object graphs have (UID 0 = nil).
            entries["parent"] = .uid(index == 0 ? 0 : UInt64(5 + 3 * random.below(index)))
            objects.append(.dictionary(entries))
            objects.append(.string("\(names[index % names.count]) #\(index)"))
            objects.append(
                [
                    "$class": .uid(4),
                    "NS.time": .real(Double(random.below(700_000_000)) + 0.25),
                ])
        }
        objects[1] = ["$class": .uid(2), "NS.objects": .array(members)]
        return [
            "$archiver": "NSKeyedArchiver",
            "$version": 100_000,
            "$top": ["root": .uid(1)],
            "$objects": .array(objects),
        ]
    }

    private static func classDescription(_ name: String, _ classes: [String]) -> PropertyList {
        ["$classname": .string(name), "$classes": .array(classes.map(PropertyList.string))]
    }

    /// `values` integers and strings: an array of records (dictionaries of five values,
    /// two thirds of them integers of every width and a third strings, some repeated),
    /// holding half of them, and a flat array holding the other half.
    static func mixedIntegersAndStrings(values count: Int) -> PropertyList {
        var random = Random(state: 2)
        func integer() -> PropertyList {
            switch random.below(4) {
            case 0: return PropertyList(random.below(256))
            case 1: return PropertyList(random.below(1 << 16))
            case 2: return PropertyList(random.below(1 << 31) - (1 << 30))
            default: return .integer(PropertyListInteger(Int64(bitPattern: random.next())))
            }
        }
        func string() -> PropertyList {
            switch random.below(3) {
            case 0: return .string(names[random.below(names.count)])
            case 1: return .string("item-\(random.next() % 1_000_000)")
            default: return .string("ünïcødé \(random.below(10_000)) ✓")
            }
        }
        var records: [PropertyList] = []
        records.reserveCapacity(count / 10)
        for _ in 0..<(count / 10) {
            records.append([
                "id": integer(), "name": string(), "count": integer(), "label": string(), "rank": integer(),
            ])
        }
        var flat: [PropertyList] = []
        flat.reserveCapacity(count / 2)
        for _ in 0..<(count / 2) { flat.append(random.below(3) == 0 ? string() : integer()) }
        return ["records": .array(records), "values": .array(flat)]
    }

    /// `count` records of a name and `bytes` bytes of pseudo-random data.
    static func blobs(count: Int, bytes: Int) -> PropertyList {
        var random = Random(state: 3)
        var records: [PropertyList] = []
        for index in 0..<count {
            var blob = [UInt8](repeating: 0, count: bytes)
            for offset in stride(from: 0, to: bytes, by: 8) {
                let word = random.next()
                for byte in 0..<min(8, bytes - offset) {
                    blob[offset + byte] = UInt8(truncatingIfNeeded: word >> (8 * byte))
                }
            }
            records.append(["name": .string("blob \(index)"), "bytes": .data(Data(blob))])
        }
        return .array(records)
    }
}
