import Foundation

exit(Tool.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: .process))
