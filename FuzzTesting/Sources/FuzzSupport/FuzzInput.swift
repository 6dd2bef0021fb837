import Foundation
import KeyedArchive

/// Shared plumbing for the libFuzzer entry points.
///
/// Every target feeds the bytes to the public API and accepts exactly two outcomes: a value
/// or a thrown ``KeyedArchiveError``. Anything else (a trap, a sanitizer report, another
/// error type, a broken invariant) stops the fuzzer with a crash artefact.
public enum FuzzInput {
    /// Copies libFuzzer's buffer into `Data`.
    ///
    /// - Parameters:
    ///   - start: The first byte, possibly `nil` when `count` is 0.
    ///   - count: The number of bytes.
    /// - Returns: The input.
    public static func data(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let start, count > 0 else { return Data() }
        return Data(bytes: start, count: count)
    }

    /// Reads `data` as a property list in `format` and exercises the result's views.
    ///
    /// - Parameters:
    ///   - data: The input.
    ///   - format: The format to read it as.
    /// - Returns: The value, or `nil` when the reader threw a ``KeyedArchiveError``.
    @discardableResult
    public static func readPropertyList(_ data: Data, format: PropertyListFormat) -> PropertyList? {
        let value: PropertyList
        do {
            value = try PropertyList(from: data, format: format)
        } catch {
            requirePackageError(error, "reading \(format)")
            return nil
        }
        // Walking the value must not trap either (descriptions, JSON view).
        _ = value.description.utf8.count
        // Strings built without validating their bytes again (`WellFormedUTF8`) must hold
        // well-formed UTF-8, as the standard library's checked path would have made them.
        requireWellFormedStrings(value)
        do {
            _ = try value.jsonData()
        } catch {
            requirePackageError(error, "JSON view")
        }
        return value
    }

    /// Stops the fuzzer when a string or dictionary key anywhere in `value` holds bytes that
    /// are not well-formed UTF-8 (walked with an explicit stack, at any depth).
    public static func requireWellFormedStrings(_ value: PropertyList) {
        func check(_ text: String) {
            if String(validating: Array(text.utf8), as: UTF8.self) == nil {
                fail("a string holds ill-formed UTF-8: \(Array(text.utf8))")
            }
        }
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .string(let text): check(text)
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let dictionary):
                for (key, element) in dictionary {
                    check(key)
                    pending.append(element)
                }
            default: break
            }
        }
    }

    /// Stops the fuzzer unless `error` is the package's error type.
    ///
    /// - Parameters:
    ///   - error: What was thrown.
    ///   - context: What was being done, for the report.
    public static func requirePackageError(_ error: any Error, _ context: String) {
        guard error is KeyedArchiveError else {
            fail("\(context) threw \(type(of: error)) instead of KeyedArchiveError: \(error)")
        }
    }

    /// Reports a broken invariant and aborts, which libFuzzer records as a crash.
    ///
    /// - Parameter message: What went wrong.
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("FUZZ INVARIANT BROKEN: \(message)\n".utf8))
        abort()
    }
}
