import Foundation
import Testing

/// Runs the built `keyed-archive` executable as a child process.
@Suite struct EndToEndTests {
    static let packageRoot: URL = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root
    }()

    /// The executable beside the test bundle (both live in `.build/<config>/`).
    ///
    /// `swift test` compiles the tool's module into the test bundle but does not relink
    /// this executable, so after a change run `swift build` first (CI does); the checks
    /// below are limited to behaviour that is not expected to change.
    static let executable: URL? = {
        var candidates: [URL] = []
        if let bundle = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var folder = bundle.deletingLastPathComponent()
            // On Apple platforms the test binary sits inside `X.xctest/Contents/MacOS/`.
            while folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS"
                || folder.lastPathComponent == "Contents"
            {
                folder.deleteLastPathComponent()
            }
            candidates.append(folder.appendingPathComponent("keyed-archive"))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/keyed-archive"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    static let skipNote: Comment =
        "the keyed-archive executable was not found beside the tests: run `swift build` first"

    struct Result {
        var status: Int32
        var output: Data
        var error: String
    }

    static func launch(_ arguments: [String], input: Data = Data()) throws -> Result {
        let executable: URL = try #require(Self.executable)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let standardInput = Pipe()
        let standardOutput = Pipe()
        let standardError = Pipe()
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        standardInput.fileHandleForWriting.write(input)
        try standardInput.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a full pipe cannot stall the child.
        let output = standardOutput.fileHandleForReading.readDataToEndOfFile()
        let error = standardError.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: output, error: String(decoding: error, as: UTF8.self))
    }

    @Test(.enabled(if: executable != nil, skipNote))
    func helpAndUsage() throws {
        let help = try Self.launch(["-help"])
        #expect(help.status == 0)
        #expect(String(decoding: help.output, as: UTF8.self).hasPrefix("usage: keyed-archive"))
        let none = try Self.launch([])
        #expect(none.status == 64)
        #expect(none.output.isEmpty)
        #expect(none.error.hasPrefix("usage: keyed-archive"))
    }

    @Test(.enabled(if: executable != nil, skipNote))
    func pipeThrough() throws {
        let run = try Self.launch(["-convert", "binary1", "-o", "-", "-"], input: Data(Samples.xmlText.utf8))
        #expect(run.error.isEmpty)
        #expect(run.status == 0)
        #expect(run.output.starts(with: Data("bplist00".utf8)))
        let lint = try Self.launch(["-lint", "-", "/nonexistent/file.plist"], input: run.output)
        #expect(lint.status == 1)
        #expect(String(decoding: lint.output, as: UTF8.self) == "-: OK\n")
        #expect(lint.error == "/nonexistent/file.plist: No such file or directory\n")
    }
}
