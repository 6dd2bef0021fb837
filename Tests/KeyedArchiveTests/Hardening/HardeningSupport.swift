import Foundation
import KeyedArchive
import TestSupport

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

    /// A binary "bomb": object i is an array holding object i+1 twice; the last is an integer.
    static func binaryBomb(levels: Int) -> Data {
        BPlist.data(
            BPlist.bombObjects(levels: levels, width: 2, leaf: [0x10, 1]), refSize: 2, minimumOffsetSize: 2)
    }

    /// `depth` nested one-element arrays around an empty array, in binary.
    static func binaryNesting(depth: Int) -> Data {
        BPlist.data(
            (0..<depth).map { level in
                level == depth - 1 ? [0xA0] : [0xA1] + BPlist.reference(level + 1)
            }, refSize: 2, minimumOffsetSize: 2)
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

    /// Seconds taken by `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
