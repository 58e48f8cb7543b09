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
      --json               JSON Lines: one object per command, then {"summary":{"failed":F,"passed":P}}
      --no-wait            do not wait for each command's effects
      --env memory|live    clients in memory on a test clock (default) or on a database
      --db PATH            the database for --env live and --replay-journal
      --jobs N             run up to N scripts at once (default 1)
      --login-style fsm|adhoc|middleware
      --quiet              print only failures and the summary
      --history-entries N  most actions undo, redo and jump keep (default 10000)
      --history-mib N      most memory they keep, estimated, in MiB (default 64)
    Exits 0 when every script passed, 1 when one failed, 2 on bad usage.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("appcore-batch: \(message)\n".utf8))
    exit(2)
}

var options = BatchOptions()
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
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        if argument.hasPrefix("-"), argument != "-" { fail("unknown option \(argument) (try --help)") }
        options.scripts.append(argument)
    }
}

do {
    exit(try await Batch(options: options).run())
} catch {
    fail("\(error)")
}
