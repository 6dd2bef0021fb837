import KeyedArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ToolEnvironment {
    /// The real process's standard input and files, with what the tool writes to standard
    /// output and standard error handed to `output` and `error` instead (the hardening
    /// probe counts the one and keeps the other for its report).
    ///
    /// - Parameters:
    ///   - output: Receives each piece of standard output.
    ///   - error: Receives each message for standard error.
    /// - Returns: The environment.
    package static func process(
        output: @escaping (Data) -> Void, error: @escaping (String) -> Void
    ) -> ToolEnvironment {
        var environment = ToolEnvironment.process
        environment.writeOutput = output
        environment.writeError = error
        return environment
    }
}
