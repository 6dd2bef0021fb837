import Foundation

let command = ScaryCreaturesCommand(
    output: { print($0) },
    errorOutput: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
    environment: ProcessInfo.processInfo.environment)
exit(command.run(Array(CommandLine.arguments.dropFirst())))
