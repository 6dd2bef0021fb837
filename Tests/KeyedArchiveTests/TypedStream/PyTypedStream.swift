import Foundation

/// Runs pytypedstream (`pip install pytypedstream`), an independent typedstream reader, as
/// a peer: it reads streams we write, and a Python expression given by the test extracts
/// what to compare. Tests skip, saying so, when it is not installed.
enum PyTypedStream {
    /// Whether `python3` can import pytypedstream here.
    static let isAvailable: Bool = {
        (try? run(script: "import typedstream", input: Data())) != nil
    }()

    static let skipNote = "pytypedstream is not installed (pip install pytypedstream): peer checks skipped"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// pytypedstream reads each stream; `expression` is evaluated with `groups` (the
    /// top-level groups, `Unarchiver.decode_all()`), `root` (the first group's first value)
    /// and the module `typedstream` in scope, and its result comes back as JSON text
    /// (`json.dumps`, `default=str`), or `error: …` when pytypedstream raised.
    static func evaluate(_ streams: [Data], _ expression: String) throws -> [String] {
        let script = """
            import sys, json, base64, typedstream
            from typedstream import archiving
            expression = sys.argv[1]
            out = []
            for line in sys.stdin.read().split():
                data = base64.b64decode(line)
                try:
                    with archiving.Unarchiver.from_data(data) as unarchiver:
                        groups = unarchiver.decode_all()
                    first = groups[0]
                    root = first.value if isinstance(first, archiving.TypedValue) else first.values[0]
                    out.append(json.dumps(eval(expression), default=str, sort_keys=True))
                except Exception as error:
                    out.append("error: " + type(error).__name__ + ": " + str(error).replace("\\n", " "))
            print("\\n".join(out))
            """
        let input = Data(streams.map { $0.base64EncodedString() }.joined(separator: "\n").utf8)
        let output = try run(script: script, arguments: [expression], input: input)
        let lines = String(decoding: output, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map(String.init)
        return Array(lines.prefix(streams.count))
    }

    private static func run(script: String, arguments: [String] = [], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "python3 exited with status \(process.terminationStatus)")
        }
        return output
    }
}
