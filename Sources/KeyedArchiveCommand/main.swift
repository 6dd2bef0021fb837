// The `keyed-archive` executable: everything it does is in the KeyedArchiveTool module
// (Sources/KeyedArchiveTool), which the tests import; this file only hands it the process.
import KeyedArchiveTool

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

exit(Tool.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: .process))
