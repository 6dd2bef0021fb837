import Foundation
import KeyedArchive
import TestSupport

/// Runs CPython's `plistlib` as a peer. Values cross the process boundary as JSON in the
/// convention of the fixtures' `*.expected.json` (UID → `{"CF$UID": n}`, data →
/// `{"data": base64}`, date → `{"date": ISO-8601}`, NaN/±infinity → `{"real": …}`), with
/// one extension: dates may carry microseconds (`2001-01-01T00:00:00.015625Z`).
///
/// Each call handles a whole batch in one `python3` process.
enum PythonPlistlib {
    /// Whether `python3` with `plistlib` can be run here.
    static let isAvailable: Bool = {
        (try? run(arguments: ["-c", "import plistlib, json, base64"], input: nil)) != nil
    }()

    static let skipNote = "python3 with plistlib is not available: plistlib differential tests skipped"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// plistlib reads each encoded property list; each result is the decoded value, or
    /// the message of the exception plistlib raised.
    static func read(_ documents: [Data]) throws -> [Result<PropertyList, Failure>] {
        let input = "[" + documents.map { "\"\($0.base64EncodedString())\"" }.joined(separator: ",") + "]"
        return try outcomes(try run(arguments: ["-c", script, "read", "-"], input: Data(input.utf8)))
    }

    /// plistlib writes each value in `format`; each result is the encoded bytes, or the
    /// message of the exception plistlib raised.
    static func write(_ values: [PropertyList], format: PropertyListFormat) throws -> [Result<Data, Failure>]
    {
        var input = "["
        for (index, value) in values.enumerated() {
            if index > 0 { input += "," }
            try appendJSON(value, to: &input)
        }
        input += "]"
        let formatName = format == .binary ? "binary" : "xml"
        let results = try outcomes(
            try run(arguments: ["-c", script, "write", formatName, "-"], input: Data(input.utf8)))
        return results.map { result in
            result.flatMap { value in
                guard case .string(let base64) = value, let data = Data(base64Encoded: base64) else {
                    return .failure(
                        Failure(description: "plistlib bridge returned \(value) instead of base64"))
                }
                return .success(data)
            }
        }
    }

    /// plistlib alone writes each value in `format` and reads it back: a check of the
    /// generator and the bridge that does not involve our engines.
    static func roundTrip(_ values: [PropertyList], format: PropertyListFormat) throws -> [Result<
        PropertyList, Failure
    >] {
        var input = "["
        for (index, value) in values.enumerated() {
            if index > 0 { input += "," }
            try appendJSON(value, to: &input)
        }
        input += "]"
        let formatName = format == .binary ? "binary" : "xml"
        return try outcomes(
            try run(arguments: ["-c", script, "roundtrip", formatName, "-"], input: Data(input.utf8)))
    }

    // MARK: JSON

    /// Our value as JSON in the fixture convention. Reals always carry a `.` or an
    /// exponent (Swift's shortest round-trip description) so that Python reads a float.
    static func appendJSON(_ value: PropertyList, to text: inout String) throws {
        switch value {
        case .string(let string): appendJSONString(string, to: &text)
        case .integer(let integer): text += integer.description
        case .real(let real):
            if real.isNaN {
                text += #"{"real":"nan"}"#
            } else if real.isInfinite {
                text += real < 0 ? #"{"real":"-inf"}"# : #"{"real":"inf"}"#
            } else {
                text += real.description
            }
        case .bool(let bool): text += bool ? "true" : "false"
        case .date(let date):
            text += #"{"date":""#
            text += try isoText(date.timeIntervalSinceReferenceDate)
            text += #""}"#
        case .data(let data): text += #"{"data":""# + data.base64EncodedString() + #""}"#
        case .uid(let uid): text += #"{"CF$UID":\#(uid)}"#
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                try appendJSON(element, to: &text)
            }
            text += "]"
        case .dictionary(let dictionary):
            text += "{"
            for (index, (key, element)) in dictionary.enumerated() {
                if index > 0 { text += "," }
                appendJSONString(key, to: &text)
                text += ":"
                try appendJSON(element, to: &text)
            }
            text += "}"
        }
    }

    private static func appendJSONString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`; only whole microseconds can be expressed, which
    /// is what the generator's plistlib profiles produce.
    static func isoText(_ seconds: Double) throws -> String {
        let totalMicroseconds = (seconds * 1_000_000).rounded()
        guard totalMicroseconds / 1_000_000 == seconds, abs(seconds) < 1e12 else {
            throw Failure(description: "date \(seconds) is not a whole number of microseconds")
        }
        let micro = Int64(totalMicroseconds)
        var whole = micro / 1_000_000
        var fraction = micro % 1_000_000
        if fraction < 0 {
            fraction += 1_000_000
            whole -= 1
        }
        let secondsSince1970 = whole + 978_307_200
        var days = secondsSince1970 / 86_400
        var secondOfDay = secondsSince1970 % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        // Civil from days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
        text +=
            "\(padded(secondOfDay / 3600, 2)):\(padded(secondOfDay % 3600 / 60, 2)):\(padded(secondOfDay % 60, 2))"
        if fraction != 0 { text += "." + padded(fraction, 6) }
        return text + "Z"
    }

    /// The script's output is a JSON array of `{"ok": value}` or `{"error": message}`.
    private static func outcomes(_ output: Data) throws -> [Result<PropertyList, Failure>] {
        var parser = ExpectedJSONParser(text: Array(output))
        guard case .array(let items) = try parser.parseDocument() else {
            throw Failure(description: "plistlib bridge did not return an array")
        }
        return items.map { item in
            if let value = item["ok"] { return .success(value.withFractionalDatesResolved) }
            return .failure(
                Failure(description: item["error"]?.stringValue ?? "malformed bridge output \(item)"))
        }
    }

    // MARK: Process

    private static func run(arguments: [String], input: Data?) throws -> Data {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("keyedarchive-plistlib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("in.json")
        let outputURL = directory.appendingPathComponent("out.json")
        try (input ?? Data()).write(to: inputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Files rather than pipes: no risk of a deadlock on large batches or long tracebacks.
        process.arguments = ["python3"] + arguments.map { $0 == "-" ? inputURL.path : $0 } + [outputURL.path]
        let errorURL = directory.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer { try? errors.close() }
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errorText = String(decoding: (try? Data(contentsOf: errorURL)) ?? Data(), as: UTF8.self)
            throw Failure(description: "python3 exited with \(process.terminationStatus): \(errorText)")
        }
        return (try? Data(contentsOf: outputURL)) ?? Data()
    }

    /// `python3 -c SCRIPT read IN OUT` / `python3 -c SCRIPT write|roundtrip binary|xml IN OUT`.
    private static let script = #"""
        import base64, datetime, json, math, plistlib, sys

        def to_json(v):
            if isinstance(v, bool):
                return v
            if isinstance(v, int):
                return v
            if isinstance(v, float):
                if math.isnan(v):
                    return {"real": "nan"}
                if math.isinf(v):
                    return {"real": "inf" if v > 0 else "-inf"}
                return v
            if isinstance(v, str):
                return v
            if isinstance(v, (bytes, bytearray)):
                return {"data": base64.b64encode(v).decode("ascii")}
            if isinstance(v, datetime.datetime):
                return {"date": v.replace(tzinfo=None).isoformat() + "Z"}
            if isinstance(v, plistlib.UID):
                return {"CF$UID": v.data}
            if isinstance(v, list):
                return [to_json(x) for x in v]
            if isinstance(v, dict):
                return {k: to_json(x) for k, x in v.items()}
            raise TypeError("unexpected %r" % type(v))

        def from_json(v, xml):
            if isinstance(v, dict):
                if len(v) == 1:
                    (k, x), = v.items()
                    if k == "CF$UID" and isinstance(x, int):
                        return {"CF$UID": x} if xml else plistlib.UID(x)
                    if k == "data" and isinstance(x, str):
                        return base64.b64decode(x)
                    if k == "date" and isinstance(x, str):
                        return datetime.datetime.fromisoformat(x[:-1])
                    if k == "real" and isinstance(x, str):
                        return float(x)
                return {k: from_json(x, xml) for k, x in v.items()}
            if isinstance(v, list):
                return [from_json(x, xml) for x in v]
            return v

        def main():
            mode = sys.argv[1]
            if mode == "read":
                source, target = sys.argv[2], sys.argv[3]
            else:
                fmt, source, target = sys.argv[2], sys.argv[3], sys.argv[4]
            with open(source, "rb") as f:
                items = json.loads(f.read().decode("utf-8"))
            results = []
            for item in items:
                try:
                    if mode == "read":
                        results.append({"ok": to_json(plistlib.loads(base64.b64decode(item)))})
                    elif mode == "roundtrip":
                        xml = fmt == "xml"
                        data = plistlib.dumps(from_json(item, xml),
                                              fmt=plistlib.FMT_XML if xml else plistlib.FMT_BINARY)
                        results.append({"ok": to_json(plistlib.loads(data))})
                    else:
                        xml = fmt == "xml"
                        data = plistlib.dumps(from_json(item, xml),
                                              fmt=plistlib.FMT_XML if xml else plistlib.FMT_BINARY)
                        results.append({"ok": base64.b64encode(data).decode("ascii")})
                except Exception as e:
                    results.append({"error": "%s: %s" % (type(e).__name__, e)})
            with open(target, "w") as f:
                json.dump(results, f, ensure_ascii=True, allow_nan=False)

        main()
        """#
}
