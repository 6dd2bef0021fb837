// A helper process for the hardening tests (HardeningTests.swift), which run it as a child:
//
//   hardening-probe write-loop FILE   rewrites FILE durably, forever, until killed; each
//                                     version is a complete keyed archive (see below).
//   hardening-probe stack KILOBYTES   runs every decoding path at the default limits on a
//                                     thread with a KILOBYTES stack (StackProbe.swift).
//   hardening-probe corpus NAME       runs one input of the hostile corpus and reports its
//                                     input, output and peak memory (CorpusProbe.swift).
//   hardening-probe write-corpus DIR  writes every input of the hostile corpus to DIR/NAME
//                                     (for Tests/HostileMatrix/hostile-matrix.py).
//   hardening-probe durable-write FILE TEXT
//                                     writes the string TEXT to FILE as a property list with
//                                     DurableFileWriter, once; run under a chosen umask by the tests.
//   hardening-probe memory MEGABYTES  caps the process's data size at its current size plus
//                                     MEGABYTES, then feeds small hostile inputs that claim
//                                     huge sizes to every reader; a reader that reserved
//                                     memory for the claims would die allocating it.
//
// It exits 0 and prints one line per case when every input gave a value or an error.
import Foundation
import KeyedArchive
import TestSupport

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(
        Data(
            "usage: hardening-probe write-loop FILE | durable-write FILE TEXT | memory MEGABYTES | stack KILOBYTES\n"
                .utf8))
    exit(2)
}

switch arguments[1] {
case "write-loop":
    writeLoop(to: URL(fileURLWithPath: arguments[2]))
case "durable-write":
    guard arguments.count == 4 else { exit(2) }
    do {
        try PropertyList.string(arguments[3]).write(to: URL(fileURLWithPath: arguments[2]))
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
case "memory":
    memoryProbe(headroomMegabytes: Int(arguments[2]) ?? 16)
case "stack":
    stackProbe(kilobytes: Int(arguments[2]) ?? 512)
case "corpus":
    corpusProbe(name: arguments[2])
case "write-corpus":
    writeCorpus(to: URL(fileURLWithPath: arguments[2], isDirectory: true))
default:
    exit(2)
}

/// Writes a line to standard output at once (unbuffered, since the parent may kill us).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

// MARK: - Durable writes

/// Version `generation` of the file: a keyed archive of a marker and many copies of it, so
/// that a torn file cannot decode and a decoded one can be checked for consistency.
func durableContents(_ generation: Int) -> [String] {
    [String(generation)]
        + Array(repeating: "generation \(generation) " + String(repeating: "x", count: 64), count: 4000)
}

func writeLoop(to url: URL) -> Never {
    var generation = 1
    while true {
        do {
            try KeyedArchiver.archive(durableContents(generation), to: url)
        } catch {
            FileHandle.standardError.write(Data("write failed: \(error)\n".utf8))
            exit(1)
        }
        say(String(generation))
        generation += 1
    }
}

// MARK: - Memory

/// The process's data size (`VmData`, which `RLIMIT_DATA` caps) in bytes.
func dataSize() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmData:") {
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return kilobytes * 1024
    }
    return 0
}

/// Whether AddressSanitizer is in the process: its allocator maps memory its own way, so
/// the cap would fail for reasons that have nothing to do with the readers.
func addressSanitizerIsPresent() -> Bool {
    dlsym(dlopen(nil, RTLD_NOW), "__asan_init") != nil
}

/// A keyed archive whose objects each reference the previous one twice (as `NS.objects`
/// and as `left` and `right`).
func archiveBomb(levels: Int, className: String) -> PropertyList {
    var objects: [PropertyList] = [
        "$null", ["$classname": .string(className), "$classes": [.string(className), "NSObject"]],
        ["$class": .uid(1), "NS.objects": []],
    ]
    for level in 0..<levels {
        let previous = PropertyList.uid(UInt64(2 + level))
        objects.append([
            "$class": .uid(1), "NS.objects": [previous, previous], "left": previous, "right": previous,
        ])
    }
    return [
        "$archiver": "NSKeyedArchiver", "$version": 100_000,
        "$top": ["root": .uid(UInt64(objects.count - 1))], "$objects": .array(objects),
    ]
}

func memoryProbe(headroomMegabytes: Int) -> Never {
    var cases: [(String, () throws -> Void)] = []
    let huge: [UInt64] = [1 << 20, 1 << 31, 1 << 40, 1 << 62, UInt64.max]
    for count in huge {
        for (marker, kind) in [
            (0x40, "data"), (0x50, "ascii"), (0x60, "utf16"), (0xA0, "array"), (0xD0, "dict"),
        ] {
            let input = BPlist.data(
                [BPlist.claim(UInt8(marker), count) + [UInt8](repeating: 0, count: 900)], minimumOffsetSize: 2
            )
            cases.append(("binary \(kind) claiming \(count)", { _ = try PropertyList(from: input) }))
        }
    }
    // A trailer claiming as many objects as the file has bytes, and then some.
    for objectCount: UInt64 in [1000, 1 << 32, UInt64.max] {
        let input = BPlist.data(
            [[0xA0]] + Array(repeating: [0x08], count: 400), minimumOffsetSize: 2, objectCount: objectCount)
        cases.append(
            ("binary trailer claiming \(objectCount) objects", { _ = try PropertyList(from: input) }))
    }
    // A 2 KB binary bomb: 2^400 leaves described, cut off by the value budget.
    let bomb = BPlist.data(
        BPlist.bombObjects(levels: 400, width: 2, leaf: [0x10, 1]), refSize: 2, minimumOffsetSize: 2)
    cases.append(("binary shared-reference bomb (\(bomb.count) bytes)", { _ = try PropertyList(from: bomb) }))
    // Keyed archives: a bomb of NSArrays, decoded typed, untyped and as a graph.
    for format in [PropertyListFormat.binary, .xml] {
        let name = format == .binary ? "binary" : "XML"
        let nodes = (try? archiveBomb(levels: 400, className: "ProbeNode").data(format: format)) ?? Data()
        let data = (try? archiveBomb(levels: 400, className: "NSArray").data(format: format)) ?? Data()
        cases.append(
            (
                "\(name) archive bomb typed (\(nodes.count) bytes)",
                {
                    _ = try KeyedUnarchiver.unarchivedObject(ofClass: ProbeNode.self, from: nodes)
                }
            ))
        cases.append(
            (
                "\(name) archive bomb untyped",
                {
                    let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
                    unarchiver.requiresSecureCoding = false
                    _ = try unarchiver.decodeObject(forKey: "root")
                }
            ))
        cases.append(("\(name) archive bomb graph", { _ = try KeyedUnarchiver.objectGraph(from: data) }))
    }
    // An archive whose $objects claims a huge count in a tiny file.
    let objectsClaim = BPlist.data(
        [
            [0xD2, 1, 2, 3, 4], [0x59] + Array("$archiver".utf8), [0x58] + Array("$objects".utf8),
            [0x5F, 0x10, 0x0F] + Array("NSKeyedArchiver".utf8),
            BPlist.claim(0xA0, 1 << 40) + [UInt8](repeating: 1, count: 600),
        ], minimumOffsetSize: 2)
    cases.append(
        ("archive $objects claiming 2^40", { _ = try KeyedUnarchiver(forReadingFrom: objectsClaim) }))

    // UIDs are numbers the input chooses: the binary writers' tables of shared UIDs must
    // not be sized by them (a 437-byte XML archive once cost 64 MB, a 72-byte plist 281 MB).
    for uid: UInt64 in [(1 << 24) - 1, (1 << 26) - 1, UInt64(UInt32.max)] {
        let archive = Data(
            ("<plist><dict><key>$archiver</key><string>NSKeyedArchiver</string><key>$objects</key>"
                + "<array><string>$null</string></array><key>$top</key><dict><key>root</key>"
                + "<dict><key>CF$UID</key><integer>\(uid)</integer></dict></dict>"
                + "<key>$version</key><integer>100000</integer></dict></plist>").utf8)
        cases.append(
            ("XML archive with UID \(uid) opened", { _ = try KeyedUnarchiver(forReadingFrom: archive) }))
        let plist = Data("<plist><dict><key>CF$UID</key><integer>\(uid)</integer></dict></plist>".utf8)
        cases.append(
            ("XML UID \(uid) written as binary", { _ = try PropertyList(from: plist).data(format: .binary) }))
    }

    let capped = !addressSanitizerIsPresent()
    let baseline = dataSize()
    if capped {
        let cap = rlim_t(baseline + headroomMegabytes << 20)
        var limit = rlimit(rlim_cur: cap, rlim_max: rlim_t.max)
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_DATA.rawValue)
        #else
        let resource = RLIMIT_DATA
        #endif
        if setrlimit(resource, &limit) != 0 { say("note: could not cap the data size") }
    }
    for (name, body) in cases {
        do {
            try body()
            say("value: \(name)")
        } catch let error as KeyedArchiveError {
            say("error \(error.code): \(name)")
        } catch {
            say("UNEXPECTED \(type(of: error)): \(name)")
            exit(1)
        }
    }
    let growth = max(0, dataSize() - baseline) >> 20
    say(
        "done: \(cases.count) cases, cap \(capped ? "\(headroomMegabytes) MB" : "off (AddressSanitizer)"), data grew \(growth) MB"
    )
    exit(0)
}

/// A node of the archive bomb, decoded as a class (shared instances).
final class ProbeNode: SecureKeyedCoding {
    static var archivedClassName: String { "ProbeNode" }
    var left: ProbeNode?
    var right: ProbeNode?
    func encode(with coder: KeyedArchiver) {}
    init(coder: KeyedUnarchiver) throws {
        left = try coder.decodeObject(of: ProbeNode.self, forKey: "left")
        right = try coder.decodeObject(of: ProbeNode.self, forKey: "right")
    }
}
