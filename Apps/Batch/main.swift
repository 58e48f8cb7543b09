import AppHost
import Console
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// appcore-batch: runs scripts of the console language and reports; see `appcore-batch --help`.

let usage = """
    usage: appcore-batch [options] <script>...
           appcore-batch [options] -          (a script on standard input, answered line by line)
           appcore-batch --replay-journal --db PATH
           appcore-batch --explore [--depth N] [--login-style S] [--json]
      --json               JSON Lines: one object per command, then {"summary":{"failed":F,"passed":P}}
      --no-wait            do not wait for each command's effects
      --env memory|live    clients in memory on a test clock (default) or on a database
      --db PATH            the database for --env live and --replay-journal
      --read-only          open the database only to look: nothing in it is changed
      --jobs N             run up to N scripts at once (default 1)
      --login-style fsm|adhoc|middleware
      --quiet              print only failures and the summary
      --shard K/N          run the K-th of N parts of the scripts (sorted by path, dealt in turn)
      --list               print the scripts that would run (after --shard), and run none
      --fail-fast          stop at the first failed line; start no script after it
      --timeout DURATION   fail a script still running after DURATION (like 30s or 2m)
      --junit FILE         also write a JUnit XML report to FILE
      --history-entries N  most actions undo, redo and jump keep (default 10000)
      --history-mib N      most memory they keep, estimated, in MiB (default 64)
      --explore            explore every sequence of intents from the signed-out app, in memory,
                           with client failures, checking the app's invariants; prints a summary
                           or a script that breaks one
      --depth N            how many intents --explore goes deep (default 6)
    Exits 0 when every script passed, 1 when one failed, 2 on bad usage.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("appcore-batch: \(message)\n".utf8))
    exit(2)
}

var options = BatchOptions()
var exploreDepth: Int?
var exploring = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--json": options.json = true
    case "--no-wait": options.wait = false
    case "--quiet": options.quiet = true
    case "--replay-journal": options.replayJournal = true
    case "--env":
        guard let value = arguments.next(), ["memory", "live"].contains(value) else { fail("--env needs memory or live") }
        options.live = value == "live"
    case "--db":
        guard let value = arguments.next() else { fail("--db needs a path") }
        options.database = value
    case "--jobs":
        guard let value = arguments.next(), let jobs = Int(value), jobs > 0 else { fail("--jobs needs a positive number") }
        options.jobs = jobs
    case "--login-style":
        guard let value = arguments.next(), let style = ConsoleLoginStyle(rawValue: value) else { fail("--login-style needs fsm, adhoc or middleware") }
        options.loginStyle = style
    case "--history-entries":
        guard let value = arguments.next(), let entries = Int(value), entries >= 2 else { fail("--history-entries needs a number of 2 or more") }
        options.history.entries = entries
    case "--history-mib":
        guard let value = arguments.next(), let mebibytes = Int(value), mebibytes >= 1, mebibytes < 1 << 40 else { fail("--history-mib needs a positive number") }
        options.history.bytes = mebibytes << 20
    case "--explore": exploring = true
    case "--depth":
        guard let value = arguments.next(), let depth = Int(value), (1...12).contains(depth) else { fail("--depth needs a number from 1 to 12") }
        exploreDepth = depth
    case "--list": options.list = true
    case "--read-only": options.readOnly = true
    case "--fail-fast": options.failFast = true
    case "--shard":
        guard let value = arguments.next() else { fail("--shard needs K/N, like 2/4") }
        let parts = value.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else { fail("--shard needs K/N with 1 ≤ K ≤ N, like 2/4 (got \(value))") }
        options.shard = (parts[0], parts[1])
    case "--timeout":
        guard let value = arguments.next(), case .success(let timeout) = DurationText.parse(value), timeout > .zero else {
            fail("--timeout needs a duration like 500ms, 30s or 2m, of at most a day")
        }
        options.timeout = timeout
    case "--junit":
        guard let value = arguments.next() else { fail("--junit needs a file") }
        options.junit = value
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        if argument.hasPrefix("-"), argument != "-" { fail("unknown option \(argument) (try --help)") }
        options.scripts.append(argument)
    }
}

if exploring {
    guard options.scripts.isEmpty else { fail("--explore runs no scripts; leave out \(options.scripts.joined(separator: " "))") }
    exit(await explore(depth: exploreDepth ?? 6, loginStyle: options.loginStyle, json: options.json))
}
if exploreDepth != nil { fail("--depth goes with --explore") }

let batch = Batch(options: options)
/// Ends the run as quitting does: the running lines finish, every session's database is
/// closed; then exits with `status`, or 2 saying what could not be closed.
@Sendable func end(_ runner: ScriptRunner, status: Int32) async -> Never {
    let failures = await runner.end()
    for failure in failures { FileHandle.standardError.write(Data("appcore-batch: \(failure)\n".utf8)) }
    exit(failures.isEmpty ? status : 2)
}
// SIGTERM, SIGINT and SIGHUP end the run with 128 + the signal; a reader that went away with 141.
TerminationSignals.catching { signal in Task { await end(batch.runner, status: 128 + signal) } }
standardOutput.onBrokenPipe = { Task { await end(batch.runner, status: 128 + SIGPIPE) } }
do {
    exit(try await batch.run())
} catch {
    fail("\(error)")
}
