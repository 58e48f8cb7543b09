import AppHost
import Console
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// appcore-batch: runs scripts of the console language and reports; see `appcore-batch --help`.

let commandLine = ShellCommandLine<BatchOptions>(
    tool: "appcore-batch",
    synopsis: [
        "[options] <script>...",
        "[options] -          (a script on standard input, answered line by line)",
        "--replay-journal --db PATH",
        "--explore [--depth N] [--login-style S] [--json]",
    ],
    options: [
        .flag("--json", "JSON Lines: one object per command, then {\"summary\":{\"failed\":F,\"passed\":P}}") { $0.json = true },
        .flag("--no-wait", "do not wait for each command's effects (waited for up to 5 s, 60 s with --env live)") { $0.wait = false },
        .environment("the database --db names, or clients in memory on a test clock (the default)"),
    ] + ShellOption.shared + ShellOption.history + [
        .durability { $0.durability = $1 },
        .flag("--replay-journal", "print the state the journal of --db restores to") { $0.replayJournal = true },
        .value("--jobs", "N", "run up to N scripts at once (default 1)", needs: "a positive number") { options, value in
            guard let jobs = Int(value), jobs > 0 else { return false }
            options.jobs = jobs
            return true
        },
        .flag("--quiet", "print only failures and the summary") { $0.quiet = true },
        .value(
            "--shard", "K/N", "run the K-th of N parts of the scripts (sorted by path, dealt in turn)",
            needs: "K/N with 1 ≤ K ≤ N, like 2/4"
        ) { options, value in
            let parts = value.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else { return false }
            options.shard = (parts[0], parts[1])
            return true
        },
        .flag("--list", "print the scripts that would run (after --shard), and run none") { $0.list = true },
        .flag("--fail-fast", "stop at the first failed line; start no script after it") { $0.failFast = true },
        .value(
            "--timeout", "DURATION", "fail a script still running after DURATION (like 30s or 2m)",
            needs: "a duration like 500ms, 30s or 2m, of at most a day"
        ) { options, value in
            guard case .success(let timeout) = DurationText.parse(value), timeout > .zero else { return false }
            options.timeout = timeout
            return true
        },
        .value("--junit", "FILE", "also write a JUnit XML report to FILE", needs: "a file") { options, value in
            options.junit = value
            return !value.isEmpty
        },
        .flag("--explore", "explore every sequence of intents from the signed-out app, in memory, with client failures, checking the app's invariants") {
            $0.explore = true
        },
        .value("--depth", "N", "how many intents --explore goes deep (default 6)", needs: "a number from 1 to 12") { options, value in
            guard let depth = Int(value), (1...12).contains(depth) else { return false }
            options.exploreDepth = depth
            return true
        },
    ],
    notes: ["Exits 0 when every script passed, 1 when one failed, 2 on bad usage or a database that cannot be opened or closed."],
    takesFiles: true
)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("appcore-batch: \(message)\n".utf8))
    ProcessExit.exit(2)
}

let options = commandLine.settings(from: CommandLine.arguments.dropFirst(), into: BatchOptions()) { options, script in
    options.scripts.append(script)
    return nil
}

if options.explore {
    guard options.scripts.isEmpty else { fail("--explore runs no scripts; leave out \(options.scripts.joined(separator: " "))") }
    ProcessExit.exit(await explore(depth: options.exploreDepth ?? 6, loginStyle: options.loginStyle ?? .finiteStates, json: options.json))
}
if options.exploreDepth != nil { fail("--depth goes with --explore") }

let batch = Batch(options: options)
/// Ends the run as quitting does: the running lines finish, every session's database is
/// closed; then exits with `status`, or 2 saying what could not be closed.
@Sendable func end(_ runner: ScriptRunner, status: Int32) async -> Never {
    let failures = await runner.end()
    standardOutput.flush() // answers held to go with the next, once no line runs after them
    for failure in failures { FileHandle.standardError.write(Data("appcore-batch: \(failure)\n".utf8)) }
    ProcessExit.exit(failures.isEmpty ? status : 2)
}
// SIGTERM, SIGINT and SIGHUP end the run with 128 + the signal; a reader that went away with 141.
TerminationSignals.catching { signal in Task { await end(batch.runner, status: 128 + signal) } }
/// How a run whose output failed ends: 141 when the reader went away (as SIGPIPE would), else 1.
func status(after failure: StandardOutput.Failure) -> Int32 {
    failure == .readerGone ? 128 + SIGPIPE : 1
}
// Output that cannot be written (a full disk) is said once, and the run ends with 1.
standardOutput.onFailure = { failure in
    if failure != .readerGone { FileHandle.standardError.write(Data("appcore-batch: \(failure)\n".utf8)) }
    Task { await end(batch.runner, status: status(after: failure)) }
}
do {
    let finished = try await batch.run()
    // The script may finish before the failure's own ending runs: the failure decides still.
    ProcessExit.exit(standardOutput.failure.map(status(after:)) ?? finished)
} catch {
    fail("\(error)")
}
