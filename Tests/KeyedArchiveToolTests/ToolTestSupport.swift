import Foundation
import KeyedArchive
import TestSupport
import Testing

@testable import KeyedArchiveTool

/// Runs the tool in-process with captured streams.
final class ToolRun {
    let status: Int32
    let output: Data
    let error: String

    var outputText: String { String(decoding: output, as: UTF8.self) }
    var errorLines: [String] {
        error.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
    var outputLines: [String] { outputText.split(separator: "\n").map(String.init) }

    /// - Parameter maximumInputBytes: The most the tool reads from one input (lowered so
    ///   that tests of the limit stay small).
    init(
        _ arguments: [String], standardInput: Data = Data(),
        fileSystem: any ToolFileSystem = LocalFileSystem(),
        maximumInputBytes: Int = BoundedInput.maximumBytes
    ) {
        final class Capture {
            var output = Data()
            var error = ""
            var input: Data?
        }
        let capture = Capture()
        capture.input = standardInput
        let environment = ToolEnvironment(
            readStandardInput: { _ in
                // Like a real stream: a second read finds it exhausted. All of it is handed
                // over, whatever the limit: the tool itself must refuse more.
                let data = capture.input ?? Data()
                capture.input = nil
                return data
            },
            writeOutput: { capture.output.append($0) },
            writeError: { capture.error += $0 },
            fileSystem: fileSystem,
            maximumInputBytes: maximumInputBytes)
        status = Tool.run(arguments: arguments, environment: environment)
        output = capture.output
        error = capture.error
    }
}

/// A fresh directory under the system's temporary folder, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("KeyedArchiveToolTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ data: Data, to name: String) throws -> String {
        let path = path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try write(Data(text.utf8), to: name)
    }

    func read(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path(name)))
    }

    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Sample inputs.
enum Samples {
    static let xmlText = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>name</key>
        \t<string>Potato Bug</string>
        \t<key>legs</key>
        \t<integer>6</integer>
        </dict>
        </plist>

        """

    static let xmlValue: PropertyList = ["name": "Potato Bug", "legs": 6]

    /// A keyed archive as NSKeyedArchiver lays it out: an object graph joined by UIDs,
    /// which `plutil` on Linux refuses ("Dictionaries are required to have string keys").
    static let keyedArchive: PropertyList = [
        "$archiver": "NSKeyedArchiver",
        "$version": 100_000,
        "$top": ["root": .uid(1)],
        "$objects": [
            "$null",
            ["$class": .uid(3), "NS.objects": [.uid(2)]],
            "Potato Bug",
            ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]],
        ],
    ]

    /// Bytes no reader accepts: an unterminated OpenStep dictionary.
    static let garbage = Data("{ \"unterminated\" = (1, 2".utf8)

    /// A binary header followed by junk.
    static let brokenBinary = Data(
        "bplist00".utf8 + [0xFF, 0x00, 0x13, 0x37] + [UInt8](repeating: 0, count: 8))
}

/// The shared fixtures (TestSupport's ``Fixtures``) as the tool's tests use them.
extension Fixtures {
    /// What a test skipped for want of the fixtures says.
    static let skipComment = Comment(rawValue: skipNote)

    /// Every property-list fixture (of `plists/` and `apple-keyed-archives/`) as `format`:
    /// the ones already in it (`isInFormat`) as they are, the others that read as the tree
    /// writes them (named `… as <label>`).
    static func propertyLists(
        as format: PropertyListFormat, label: String, isInFormat: (Data) -> Bool
    ) -> [(name: String, data: Data)] {
        guard isAvailable else { return [] }
        var found: [(name: String, data: Data)] = []
        for folder in ["plists", "apple-keyed-archives"] {
            let url = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            for name in names.sorted() where !name.hasSuffix(".json") && !name.hasSuffix(".md") {
                guard let data = try? Data(contentsOf: url.appendingPathComponent(name)) else { continue }
                if isInFormat(data) {
                    found.append(("\(folder)/\(name)", data))
                } else if let value = try? PropertyList(from: data),
                    let written = try? value.data(format: format)
                {
                    found.append(("\(folder)/\(name) as \(label)", written))
                }
            }
        }
        return found
    }

    /// The `malformed/` entries of the manifest with what each must do.
    static let malformed = entries("malformed").filter { $0.expect != nil }
}
