import Foundation
import SQLiteFormat
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A database over 1 GiB, crossing the lock-byte page, read within 64 MB. Opt-in (it writes
/// 1.1 GB and takes a minute): `SQLITE_FORMAT_LARGE_TEST=1 swift test --filter LargeDatabase`.
@Suite("Large database")
struct LargeDatabaseTests {
    static var enabled: Bool { ProcessInfo.processInfo.environment["SQLITE_FORMAT_LARGE_TEST"] == "1" }

    static func peakResidentBytes() -> Int {
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)
        #else
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
        #endif
    }

    @Test("every BLOB of a 1.1 GB database, in bounded memory", .enabled(if: enabled))
    func largeDatabase() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteFormatLarge.sqlite")
            .path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Scripts/make_large_database.py"
        ).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expected = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        try #require(expected.count == 2, "the script said: \(text)")

        let before = Self.peakResidentBytes()
        let database = try SQLiteDatabase(path: path)
        #expect(database.header.pageCount * database.header.pageSize > 1 << 30)
        var count = 0
        var total = 0
        var lastPage: UInt32 = 0
        try database.forEachBlob { blob in
            count += 1
            total += blob.data.count
            lastPage = max(lastPage, blob.page)
        }
        let grown = Self.peakResidentBytes() - before
        #expect(count == expected[0])
        #expect(total == expected[1])
        #expect(Int(lastPage) * database.header.pageSize > 1 << 30, "no BLOB past the lock-byte page")
        #expect(grown < 64 << 20, "peak memory grew by \(grown >> 20) MB")
        print("large database: \(count) BLOBs, \(total) bytes, peak memory +\(grown >> 20) MB")
    }
}
