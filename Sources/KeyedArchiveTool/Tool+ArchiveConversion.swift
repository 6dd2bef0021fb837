import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Tool {
    /// `-convert keyed` and `-convert typedstream`: a typedstream (`NSArchiver`) as the
    /// equivalent keyed archive, or a keyed archive as a typedstream, through the library's
    /// `TypedStreamConversion`, written where `-convert` writes (`-o`, `-e`, or in place).
    ///
    /// A file already in the format asked for is written as it is (a keyed archive as a
    /// binary one), so that a folder of mixed files converts in one command; a property list
    /// that is no keyed archive is refused.
    func convertArchive(_ file: InputFile, to format: ConversionFormat, _ invocation: Invocation)
        throws(ToolFailure)
    {
        let destination = try Self.destination(of: file.name, as: format, invocation)
        let converted: Data
        do {
            switch (format, file.typedStreamData) {
            case (.keyed, let stream?):
                converted = try TypedStreamConversion.keyedArchiveData(fromTypedStream: stream)
            case (.typedstream, let stream?):
                converted = stream
            case (.keyed, nil):
                try Self.requireKeyedArchive(file, converting: format)
                converted = try file.value.data(format: .binary)
            default:
                try Self.requireKeyedArchive(file, converting: format)
                converted = try TypedStreamConversion.typedStreamData(
                    fromKeyedArchive: try file.value.data(format: .binary))
            }
        } catch let error as ToolFailure {
            throw error
        } catch let error as KeyedArchiveError {
            throw ToolFailure("cannot convert to \(format.rawValue): \(error.description)")
        } catch {
            throw ToolFailure("cannot convert to \(format.rawValue): \(error)")
        }
        let limit = Self.outputLimit(forInputLength: file.byteCount)
        guard converted.count <= limit else { throw ToolFailure(Self.outputTooLarge(limit)) }
        if destination == "-" {
            environment.writeOutput(converted)
            return
        }
        do {
            let otherLinks = environment.fileSystem.otherHardLinks(ofFile: destination)
            try environment.fileSystem.writeAtomically(converted, toPath: destination)
            warnOfHardLinks(otherLinks, destination, for: file.name)
        } catch {
            throw ToolFailure(error.message)
        }
    }

    /// Refuses a property list that is not a keyed archive where one is converted.
    private static func requireKeyedArchive(_ file: InputFile, converting format: ConversionFormat)
        throws(ToolFailure)
    {
        guard isKeyedArchive(file.value) else {
            throw ToolFailure(
                "neither a typedstream (NSArchiver) nor a keyed archive (NSKeyedArchiver): "
                    + "nothing to convert to \(format.rawValue)")
        }
    }
}
