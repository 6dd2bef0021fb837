import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Edits of one file by several `keyed-archive` processes at once: each read–modify–write
/// holds the file's lock (`FileEditLock`), so none is lost.
@Suite struct ConcurrentEditTests {
    static let processes = 4
    static let editsPerProcess = 50
    static let rounds = 20

    /// Runs the built tool with `arguments`, its standard error going to `errorFile`.
    static func start(_ executable: URL, _ arguments: [String], errorFile: URL) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// 4 processes each append 50 values to one file's array, one edit per argument (the
    /// file named 50 times), all at once; 200 values must be there, 50 of each process.
    /// Repeated 20 times, in binary and XML alternately.
    @Test(.enabled(if: EndToEndTests.executable != nil, EndToEndTests.skipNote))
    func concurrentInsertsLoseNothing() throws {
        let executable = try #require(EndToEndTests.executable)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let start = ContinuousClock.now
        for round in 0..<Self.rounds {
            let name = "shared-\(round).plist"
            let empty: PropertyList = ["items": []]
            let path = try directory.write(try empty.data(format: round % 2 == 0 ? .binary : .xml), to: name)
            var running: [(process: Process, errors: URL)] = []
            for writer in 0..<Self.processes {
                let errors = directory.url.appendingPathComponent("errors-\(round)-\(writer).txt")
                let arguments =
                    ["-insert", "items", "-string", "writer \(writer)", "-append"]
                    + Array(repeating: path, count: Self.editsPerProcess)
                running.append((try Self.start(executable, arguments, errorFile: errors), errors))
            }
            for (process, errors) in running {
                process.waitUntilExit()
                let text = try String(contentsOf: errors, encoding: .utf8)
                #expect(process.terminationStatus == 0, "round \(round): \(text.prefix(500))")
                #expect(text.isEmpty, "round \(round): \(text.prefix(500))")
            }
            let items = try PropertyList(from: directory.read(name))["items"]?.arrayValue ?? []
            #expect(items.count == Self.processes * Self.editsPerProcess, "round \(round)")
            for writer in 0..<Self.processes {
                let count = items.filter { $0 == .string("writer \(writer)") }.count
                #expect(count == Self.editsPerProcess, "round \(round), writer \(writer)")
            }
            // Nothing is left behind: no temporary file, no lock file.
            let files = try directory.contents().filter { !$0.hasPrefix("errors-") }
            #expect(files == (0...round).map { "shared-\($0).plist" }.sorted(), "round \(round)")
        }
        let elapsed = ContinuousClock.now - start
        print(
            "ConcurrentEditTests: \(Self.rounds) rounds of \(Self.processes) × \(Self.editsPerProcess) edits in \(elapsed)"
        )
    }

    /// The lock itself: a second lock on the same file waits until the first is released;
    /// when the file was replaced meanwhile (as the durable writer replaces it), the waiter
    /// ends up holding the new file, the one the path names, not the old one.
    @Test func aLockWaitsForTheHolderAndFollowsAReplacement() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Samples.xmlText, to: "a.plist")
        let first = try FileEditLock.lock(path)

        let acquired = DispatchSemaphore(value: 0)
        let checked = DispatchSemaphore(value: 0)
        let waiter = Thread {
            let second = try? FileEditLock.lock(path)
            acquired.signal()
            checked.wait()
            second?.release()
        }
        waiter.start()
        #expect(acquired.wait(timeout: .now() + 0.3) == .timedOut, "the second lock did not wait")
        let replacement = try directory.write(Samples.xmlText, to: ".a.plist.tmp")
        #expect(rename(replacement, path) == 0)
        first.release()
        #expect(acquired.wait(timeout: .now() + 10) == .success, "the waiter never got the lock")

        // The waiter holds the file now at the path: a lock on it cannot be had.
        let descriptor = open(path, O_RDONLY)
        defer { _ = close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) != 0, "the waiter locked the replaced file")
        checked.signal()
        // Once it lets go, the lock is free.
        var result: Int32 = -1
        for _ in 0..<100 where result != 0 {
            result = flock(descriptor, LOCK_EX | LOCK_NB)
            if result != 0 { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(result == 0)
    }

    /// No lock is taken on what is not a regular file, and a missing file is left for the
    /// reading to report.
    @Test func nothingIsLockedButRegularFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A FIFO with no writer: opening it to lock would wait forever.
        let fifo = directory.path("f.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        _ = try FileEditLock.lock(fifo)
        _ = try FileEditLock.lock(directory.path("missing.plist"))
        _ = try FileEditLock.lock(directory.url.path)
        let run = ToolRun(["-insert", "k", "-string", "v", directory.path("missing.plist")])
        #expect(run.errorLines == ["\(directory.path("missing.plist")): No such file or directory"])
    }
}
