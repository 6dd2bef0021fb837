#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A check that the two readers of an iMessage body agree, for the fuzzer and the tests.
///
/// ``IMessageBody/init(attributedBody:options:)`` reads the common shape of a body in one
/// pass (`TypedStreamBodyReader`) and hands everything else to the general
/// ``TypedStreamUnarchiver``. Wherever the one-pass reader answers, the general reader must
/// give the same attributed string; where it gives up, the general reader decides.
/// Not part of the supported API: imported with `@_spi(Fuzzing)`.
@_spi(Fuzzing)
public enum IMessageBodyReadingPaths {
    /// What the readers gave where they differ, or `nil` when they agree (or the one-pass
    /// reader gave up).
    ///
    /// - Parameter data: Any bytes.
    /// - Returns: A description of the disagreement.
    public static func disagreement(in data: Data) -> String? {
        let options = TypedStreamUnarchivingOptions()
        guard
            let quick = TypedStreamBodyReader.attributedString(
                data, maximumObjectCount: options.maximumObjectCount)
        else { return nil }
        do {
            let general = try generalReading(data, options: options)
            guard general == quick else {
                return "one pass: \(String(describing: quick).prefix(300))\n"
                    + "general: \(String(describing: general).prefix(300))"
            }
            return nil
        } catch {
            return "one pass: \(String(describing: quick).prefix(300))\ngeneral threw: \(error)"
        }
    }

    /// The body as the general reader reads it, never the one-pass reader.
    ///
    /// - Parameters:
    ///   - data: The body, a typedstream.
    ///   - options: Limits for reading it.
    /// - Returns: The attributed string.
    /// - Throws: ``KeyedArchiveError``, as ``IMessageBody/init(attributedBody:options:)``.
    public static func generalReading(
        _ data: Data, options: TypedStreamUnarchivingOptions = TypedStreamUnarchivingOptions()
    ) throws -> ArchivedAttributedString {
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data, options: options)
        guard let string = try unarchiver.decodeObject(of: ArchivedAttributedString.self) else {
            throw KeyedArchiveError(.typeMismatch, "the message body is nil", at: .keyPath("root"))
        }
        return string
    }
}
