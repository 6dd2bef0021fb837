import Foundation
import KeyedArchive

/// Helpers shared by the hardening suites.
enum Hardening {
    /// The `HardeningProbe` helper executable beside the test bundle, if it was built.
    static var probe: URL? {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [
            folder, folder.deletingLastPathComponent(),
            folder.deletingLastPathComponent().deletingLastPathComponent(),
        ] {
            let url = candidate.appendingPathComponent("HardeningProbe")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// Runs the probe to completion and returns its exit status and output.
    static func runProbe(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let probe else { return (-1, "HardeningProbe was not built") }
        let process = Process()
        process.executableURL = probe
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// A binary property list: `bplist00`, the objects, a 2-byte offset table and a trailer.
    static func bplist(_ objects: [[UInt8]], refSize: Int = 2, top: Int = 0) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        let offsetSize = table < 1 << 16 ? 2 : 4
        for offset in offsets { bytes += bigEndian(UInt64(offset), width: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        bytes += bigEndian(UInt64(objects.count), width: 8)
        bytes += bigEndian(UInt64(top), width: 8)
        bytes += bigEndian(UInt64(table), width: 8)
        return Data(bytes)
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
    }

    /// A binary "bomb": object i is an array holding object i+1 twice; the last is an integer.
    static func binaryBomb(levels: Int) -> Data {
        bplist(
            (0..<levels).map { level in
                if level == levels - 1 { return [0x10, 1] }
                let next = bigEndian(UInt64(level + 1), width: 2)
                return [0xA2] + next + next
            })
    }

    /// `depth` nested one-element arrays around an empty array, in binary.
    static func binaryNesting(depth: Int) -> Data {
        bplist(
            (0..<depth).map { level in
                level == depth - 1 ? [0xA0] : [0xA1] + bigEndian(UInt64(level + 1), width: 2)
            })
    }

    /// A keyed archive whose objects each reference the previous one twice, as
    /// `NS.objects` of an `NSArray` (or `className`) and as `left` and `right`.
    static func archiveBomb(levels: Int, className: String = "NSArray") -> PropertyList {
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

    /// A binary keyed archive whose `$objects` holds `entries` distinct plain arrays, each
    /// holding the top of one shared `levels`-deep binary bomb (2^(levels-1) leaves): small,
    /// but each entry alone expands to hundreds of thousands of values. `$top.root` is
    /// `$objects[1]`.
    static func archiveOfPlainBombs(entries: Int, levels: Int) -> Data {
        func ascii(_ text: String) -> [UInt8] { [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }
        func ref(_ index: Int) -> [UInt8] { bigEndian(UInt64(index), width: 2) }
        let firstEntry = 12
        let bombTop = firstEntry + entries
        var objects: [[UInt8]] = [
            [0xD4] + [1, 2, 3, 4, 5, 6, 7, 8].flatMap(ref),  // 0: the archive dictionary
            ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),
            [0x5F, 0x10, 0x0F] + Array("NSKeyedArchiver".utf8), [0x12, 0x00, 0x01, 0x86, 0xA0],
            [0xD1] + ref(9) + ref(10),  // 7: $top = {root: UID 1}
            [0xAF, 0x10, UInt8(entries + 1)] + ref(11) + (0..<entries).flatMap { ref(firstEntry + $0) },
            ascii("root"), [0x80, 0x01], ascii("$null"),
        ]
        objects += Array(repeating: [0xA1] + ref(bombTop), count: entries)
        for level in 0..<levels {
            objects.append(
                level == levels - 1
                    ? [0x10, 7] : [0xA2] + ref(bombTop + level + 1) + ref(bombTop + level + 1))
        }
        return bplist(objects)
    }

    /// Seconds taken by `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
