#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A check that the XML reader's ways through a document agree, for the fuzzer.
///
/// The reader has a quick and a general reading and two builders (see
/// ``XMLValueBuilder``); every combination must give the same value or the same error.
/// Not part of the supported API: imported with `@_spi(Fuzzing)`.
@_spi(Fuzzing)
public enum XMLReadingPaths {
    /// What reading `data` gave where the readings differ, or `nil` when they all agree.
    ///
    /// - Parameter data: Any bytes.
    /// - Returns: A description of the first disagreement.
    public static func disagreement(in data: Data) -> String? {
        let options = PropertyListReadingOptions()
        let general = Outcome { try XMLPropertyListReader.read(data, options: options, quickly: false) }
        let readings: [(String, () throws -> PropertyList)] = [
            ("quick tree", { try XMLPropertyListReader.read(data, options: options, quickly: true) }),
            (
                "quick binary",
                {
                    try PropertyList(
                        from: XMLPropertyListReader.binaryPropertyList(data, options: options, quickly: true),
                        format: .binary)
                }
            ),
            (
                "general binary",
                {
                    try PropertyList(
                        from: XMLPropertyListReader.binaryPropertyList(
                            data, options: options, quickly: false),
                        format: .binary)
                }
            ),
        ]
        for (name, reading) in readings {
            let other = Outcome(reading)
            if other != general {
                return
                    "general tree: \(general.description.prefix(300))\n\(name): \(other.description.prefix(300))"
            }
        }
        return nil
    }

    /// A value (compared as values, NaN equal to NaN) or an error (compared by message).
    private enum Outcome: Equatable {
        case value(PropertyList)
        case error(String)

        init(_ body: () throws -> PropertyList) {
            do {
                self = .value(try body())
            } catch {
                self = .error(String(describing: error))
            }
        }

        var description: String {
            switch self {
            case .value(let value): return "value \(value)"
            case .error(let message): return "error \(message)"
            }
        }
    }
}
