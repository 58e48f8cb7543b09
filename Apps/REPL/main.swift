import AppHost
import Console
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// appcore-repl: the console language on a terminal; see `appcore-repl --help`.

/// What the command line asked for.
struct REPLOptions: HistorySettings {
    var databasePath: String?
    var readOnly = false
    var loginStyle: ConsoleLoginStyle?
    var history = HistoryLimits()
    /// `--in-memory`: no database, no history file.
    var inMemory = false
    /// `--env live` (the default) or `--env memory`: the database's clients, or in-memory ones.
    var live = true
    /// `--durability`: what an answer survives.
    var durability = Durability.processCrash
}

let commandLine = ShellCommandLine<REPLOptions>(
    tool: "appcore-repl",
    synopsis: ["[--db PATH | --in-memory] [options]"],
    options: ShellOption.shared + ShellOption.history + [
        .flag("--in-memory", "no database: nothing is kept after quitting") { $0.inMemory = true },
        .environment("the database's live clients (the default), or in memory (as --in-memory)"),
        .durability { $0.durability = $1 },
    ],
    notes: [
        "Without --db the database is appcore.sqlite in the user's data directory.",
        "Type help for the commands. Ctrl-C cancels running effects, Ctrl-D quits.",
    ]
)

func exitWithUsage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("appcore-repl: \(message)\n".utf8))
    ProcessExit.exit(2)
}

let options = commandLine.settings(from: CommandLine.arguments.dropFirst(), into: REPLOptions())

let terminal = Terminal()
// The line history lives in the data folder; without one (no home), it is not kept.
let dataDirectory = options.inMemory ? nil : try? DataDirectory.path()
let shell: Shell
do {
    shell = try await Shell.start(
        databasePath: options.inMemory || !options.live ? nil : try (options.databasePath ?? DataDirectory.defaultDatabase),
        loginStyle: options.loginStyle,
        readOnly: options.readOnly,
        durability: options.durability,
        history: options.history,
        terminal: terminal,
        input: terminal.isInteractive ? nil : InputLines()
    )
} catch {
    exitWithUsage("\(error)")
}
// SIGTERM, SIGHUP (the terminal closed) and SIGINT from outside end the REPL as quitting does;
// at the prompt Ctrl-C is a key that cancels running effects.
TerminationSignals.catching { signal in Task { await shell.end(status: 128 + signal) } }
await shell.run(historyPath: options.inMemory ? nil : dataDirectory.map { $0 + "/history" })
