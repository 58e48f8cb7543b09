import AppHost
import Console
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// appcore-repl: the console language on a terminal; see `appcore-repl --help`.

let usage = """
    usage: appcore-repl [--db PATH | --in-memory] [--env live|memory] [--login-style fsm|adhoc|middleware]
                        [--history-entries N] [--history-mib N]
      --db PATH            the database (default: appcore.sqlite in the user's data directory)
      --in-memory          no database: nothing is kept after quitting
      --read-only          open the database only to look: nothing in it is changed
      --env live|memory    the database's live clients (default), or in memory (as --in-memory)
      --login-style        which login feature drives the sign-in screen (default fsm)
      --history-entries N  most actions undo, redo and jump keep (default 10000)
      --history-mib N      most memory they keep, estimated, in MiB (default 64)
    Type help for the commands. Ctrl-C cancels running effects, Ctrl-D quits.
    """

func exitWithUsage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("appcore-repl: \(message)\n".utf8))
    exit(2)
}

var databasePath: String?
var inMemory = false
var readOnly = false
var live = true
var loginStyle = ConsoleLoginStyle.finiteStates
var history = HistoryLimits()
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--db":
        guard let path = arguments.next() else { exitWithUsage("--db needs a path") }
        databasePath = path
    case "--in-memory": inMemory = true
    case "--read-only": readOnly = true
    case "--env":
        guard let value = arguments.next(), ["live", "memory"].contains(value) else { exitWithUsage("--env needs live or memory") }
        live = value == "live"
    case "--login-style":
        guard let value = arguments.next(), let style = ConsoleLoginStyle(rawValue: value) else {
            exitWithUsage("--login-style needs fsm, adhoc or middleware")
        }
        loginStyle = style
    case "--history-entries":
        guard let value = arguments.next(), let entries = Int(value), entries >= 2 else { exitWithUsage("--history-entries needs a number of 2 or more") }
        history.entries = entries
    case "--history-mib":
        guard let value = arguments.next(), let mebibytes = Int(value), mebibytes >= 1, mebibytes < 1 << 40 else { exitWithUsage("--history-mib needs a positive number") }
        history.bytes = mebibytes << 20
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
    shell = try await Shell.start(
        databasePath: inMemory || !live ? nil : (databasePath ?? dataDirectory + "/appcore.sqlite"),
        loginStyle: loginStyle,
        readOnly: readOnly,
        history: history,
        terminal: terminal
    )
} catch {
    exitWithUsage("\(error)")
}
// SIGTERM, SIGHUP (the terminal closed) and SIGINT from outside end the REPL as quitting does;
// at the prompt Ctrl-C is a key that cancels running effects.
TerminationSignals.catching { signal in Task { await shell.end(status: 128 + signal) } }
await shell.run(historyPath: inMemory ? nil : dataDirectory + "/history")
