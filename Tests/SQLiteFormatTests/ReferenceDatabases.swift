import Foundation
import SQLiteFormat

/// The databases of `Scripts/make_databases.py`, made once per test process in a
/// temporary folder, with Python's `sqlite3` as the reference for their rows.
enum ReferenceDatabases {
    /// The scenarios the script makes, in its order (`super_journal` makes two).
    static let names = [
        "rollback-512", "rollback-1024", "rollback-4096", "rollback-8192", "rollback-65536",
        "autovacuum-full",
        "autovacuum-incremental", "utf16le", "utf16be", "wal", "wal-uncommitted", "hot-journal",
        "wal-big-endian", "super-journal-gone", "super-journal-present", "reserved-32",
        "reserved-8",
    ]

    /// The folder holding one folder per scenario; made on first use.
    static let folder: Result<String, ScriptFailure> = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "SQLiteFormatTests-\(ProcessInfo.processInfo.processIdentifier)"
        ).path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Scripts/make_databases.py"
        ).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, folder]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            return .failure(ScriptFailure(message: "cannot run python3: \(error)"))
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(ScriptFailure(message: "make_databases.py failed:\n\(text)"))
        }
        return .success(folder)
    }()

    struct ScriptFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The folder of scenario `name`.
    static func path(_ name: String) throws -> String {
        try folder.get() + "/" + name
    }

    /// The lines of a scenario's text file (empty when it does not exist).
    static func lines(_ name: String, _ file: String) throws -> [String] {
        let url = URL(fileURLWithPath: try path(name) + "/" + file)
        guard let data = try? Data(contentsOf: url) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// A value as the script writes it.
    static func encode(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "n"
        case .integer(let number): return "i:\(number)"
        case .real(let number):
            let bits = String(number.bitPattern, radix: 16)
            return "r:" + String(repeating: "0", count: 16 - bits.count) + bits
        case .text(let text): return "t:" + hex(Array(text.utf8))
        case .blob(let data): return "b:" + hex(Array(data))
        }
    }

    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        func value(_ digit: UInt8) -> UInt8 { digit >= 0x61 ? digit - 0x61 + 10 : digit - 0x30 }
        return stride(from: 0, to: digits.count - 1, by: 2).map {
            value(digits[$0]) << 4 | value(digits[$0 + 1])
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Every row of every table of `database`, as the script writes them, sorted.
    static func rows(of database: SQLiteDatabase) throws -> [String] {
        var lines: [String] = []
        for table in database.tables {
            try database.forEachRow(in: table) { row in
                let rowid = row.rowid.map(String.init) ?? "-"
                // Virtual generated columns are not stored: the script leaves them out too.
                let stored = zip(table.columns, row.values).filter { !$0.0.isVirtual }.map { encode($0.1) }
                lines.append(([table.name, rowid] + stored).joined(separator: "\t"))
            }
        }
        return lines.sorted()
    }

    /// The first difference between two sorted line lists, for a failure message.
    static func firstDifference(_ found: [String], _ expected: [String]) -> String {
        let extra = Set(found).subtracting(expected).sorted()
        let missing = Set(expected).subtracting(found).sorted()
        func clip(_ line: String?) -> String { line.map { String($0.prefix(300)) } ?? "none" }
        return
            "\(found.count) rows read, \(expected.count) expected; \(extra.count) unexpected, e.g. \(clip(extra.first)); "
            + "\(missing.count) missing, e.g. \(clip(missing.first))"
    }
}
