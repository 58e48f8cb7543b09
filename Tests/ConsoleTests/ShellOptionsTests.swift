import AppHost
import Console
import Testing

/// The shells' command lines come from one table each, with the options they share written once.
@Suite("Shell options")
struct ShellOptionsTests {
    struct Settings: HistorySettings {
        var databasePath: String?
        var readOnly = false
        var loginStyle: ConsoleLoginStyle?
        var history = HistoryLimits()
        var live = false
        var verbose = false
        var files: [String] = []
    }

    let commandLine = ShellCommandLine<Settings>(
        tool: "tool", synopsis: ["[options] <file>..."],
        options: ShellOption.shared + ShellOption.history + [.flag("--verbose", "say more") { $0.verbose = true }],
        notes: ["Exits 0."]
    )

    func read(_ arguments: [String]) -> ShellCommandLine<Settings>.Reading {
        commandLine.read(arguments, into: Settings()) { settings, file in
            settings.files.append(file)
            return nil
        }
    }

    @Test func sharedAndOwnOptionsSetTheSettings() throws {
        guard
            case .run(let settings) = read([
                "--db", "app.sqlite", "--read-only", "--login-style", "middleware",
                "--history-entries", "50", "--history-mib", "2", "--verbose", "a", "b",
            ])
        else {
            Issue.record("the arguments were refused")
            return
        }
        #expect(settings.databasePath == "app.sqlite" && settings.readOnly && settings.loginStyle == .middleware && settings.verbose)
        #expect(settings.history.entries == 50 && settings.history.bytes == 2 << 20)
        #expect(settings.files == ["a", "b"])
    }

    @Test func wrongArgumentsSayWhatIsWrong() {
        let refused: [([String], String)] = [
            (["--history-entries", "1"], "--history-entries needs a number of 2 or more (got 1)"),
            (["--login-style", "sideways"], "--login-style needs fsm, adhoc or middleware (got sideways)"),
            (["--db"], "--db needs PATH"),
            (["--frobnicate"], "unknown option --frobnicate (try --help)"),
        ]
        for (arguments, message) in refused {
            guard case .usageError(let said) = read(arguments) else {
                Issue.record("\(arguments) was accepted")
                continue
            }
            #expect(said == message)
        }
        if case .help = read(["a", "--help"]) {} else { Issue.record("--help did not ask for the usage") }
    }

    @Test func theUsageListsEveryOptionFromTheTable() {
        let usage = commandLine.usage
        #expect(usage.hasPrefix("usage: tool [options] <file>...\n"))
        for option in commandLine.options { #expect(usage.contains("  " + option.name), "\(option.name)") }
        #expect(usage.contains("--login-style fsm|adhoc|middleware  which login feature drives the sign-in screen"))
        #expect(usage.hasSuffix("\nExits 0."))
    }
}
