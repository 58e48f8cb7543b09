import Console
import Foundation
import Persistence
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// appcore-repl: the console language on a terminal; see `appcore-repl --help`.

let usage = """
    usage: appcore-repl [--db PATH | --in-memory] [--env live|memory] [--login-style fsm|adhoc|middleware]
      --db PATH        the database (default: appcore.sqlite in the user's data directory)
      --in-memory      no database: nothing is kept after quitting
      --env            live clients on the database (default) or the in-memory ones
      --login-style    which login feature drives the sign-in screen (default fsm)
    Type help for the commands. Ctrl-C cancels running effects, Ctrl-D quits.
    """

func exitWithUsage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("appcore-repl: \(message)\n".utf8))
    exit(2)
}

var databasePath: String?
var inMemory = false
var live = true
var loginStyle = ConsoleLoginStyle.finiteStates
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--db":
        guard let path = arguments.next() else { exitWithUsage("--db needs a path") }
        databasePath = path
    case "--in-memory": inMemory = true
    case "--env":
        guard let value = arguments.next(), ["live", "memory"].contains(value) else { exitWithUsage("--env needs live or memory") }
        live = value == "live"
    case "--login-style":
        guard let value = arguments.next(), let style = ConsoleLoginStyle(rawValue: value) else {
            exitWithUsage("--login-style needs fsm, adhoc or middleware")
        }
        loginStyle = style
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        exitWithUsage("unknown argument \(argument) (try --help)")
    }
}

let terminal = Terminal()
let dataDirectory = DataDirectory.path()
let shell: Shell
do {
    shell = try Shell.start(
        databasePath: inMemory ? nil : (databasePath ?? dataDirectory + "/appcore.sqlite"),
        live: live && !inMemory,
        loginStyle: loginStyle,
        terminal: terminal
    )
} catch {
    exitWithUsage("\(error)")
}
await shell.run(historyPath: inMemory ? nil : dataDirectory + "/history")
exit(0)
