import AppHost
import Foundation

/// One command-line option of a shell.
public struct ShellOption<Settings>: Sendable {
    /// `--db`.
    public let name: String
    /// What the value is called in the usage text (`PATH`), or `nil` for a flag.
    public let placeholder: String?
    /// What the option does, for the usage text.
    public let summary: String
    /// Sets the option's value; returns what a value must be when it refuses one.
    let apply: @Sendable (inout Settings, String) -> String?

    /// A flag: `set` runs when it is given.
    public static func flag(_ name: String, _ summary: String, _ set: @escaping @Sendable (inout Settings) -> Void) -> ShellOption {
        ShellOption(name: name, placeholder: nil, summary: summary) { settings, _ in
            set(&settings)
            return nil
        }
    }

    /// An option with a value.
    public static func value(
        _ name: String, _ placeholder: String, _ summary: String, needs: String,
        _ set: @escaping @Sendable (inout Settings, String) -> Bool
    ) -> ShellOption {
        ShellOption(name: name, placeholder: placeholder, summary: summary) { settings, value in
            set(&settings, value) ? nil : needs
        }
    }
}

/// The settings every shell has, which ``ShellOption/shared`` sets.
public protocol ShellSettings: Sendable {
    /// `--db PATH`: the database.
    var databasePath: String? { get set }
    /// `--read-only`: open the database only to look.
    var readOnly: Bool { get set }
    /// `--login-style`: which login feature drives the sign-in screen.
    var loginStyle: ConsoleLoginStyle? { get set }
    /// `--env live|memory`: the database's live clients, or in-memory ones.
    var live: Bool { get set }
}

/// The settings of a shell that offers undo, redo and jump, which ``ShellOption/history`` sets.
public protocol HistorySettings: ShellSettings {
    /// `--history-entries`, `--history-mib`: what undo, redo and jump keep.
    var history: HistoryLimits { get set }
}

extension ShellOption where Settings: ShellSettings {
    /// The options every shell takes, spelt, explained and checked the same way in each.
    public static var shared: [ShellOption] {
        [
            .value("--db", "PATH", "the database", needs: "a path") { settings, path in
                settings.databasePath = path
                return !path.isEmpty
            },
            .flag("--read-only", "open the database only to look: nothing in it is changed") { $0.readOnly = true },
            .value(
                "--login-style", "fsm|adhoc|middleware", "which login feature drives the sign-in screen (default: the database's, else fsm)",
                needs: "fsm, adhoc or middleware"
            ) { settings, value in
                guard let style = ConsoleLoginStyle(rawValue: value) else { return false }
                settings.loginStyle = style
                return true
            },
        ]
    }

    /// `--durability crash|power-loss`: what a commit survives (`AppHost.Options.durability`).
    public static func durability(_ set: @escaping @Sendable (inout Settings, Durability) -> Void) -> ShellOption {
        .value(
            "--durability", "crash|power-loss",
            "what an answer survives: the process killed (default), or a power loss too (a disk flush per commit)",
            needs: "crash or power-loss"
        ) { settings, value in
            switch value {
            case "crash": set(&settings, .processCrash)
            case "power-loss": set(&settings, .powerLoss)
            default: return false
            }
            return true
        }
    }

    /// `--env live|memory`, explained by `summary` (each shell has its own default).
    public static func environment(_ summary: String) -> ShellOption {
        .value("--env", "live|memory", summary, needs: "live or memory") { settings, value in
            guard ["live", "memory"].contains(value) else { return false }
            settings.live = value == "live"
            return true
        }
    }
}

/// A shell's command line.
public struct ShellCommandLine<Settings>: Sendable {
    /// What the arguments asked for.
    public enum Reading {
        /// Run with these settings.
        case run(Settings)
        /// Print ``ShellCommandLine/usage`` and stop (`--help`, `-h`).
        case help
        /// Print the tool's name and `AppCoreVersion` and stop (`--version`).
        case version
        /// Print ``ShellCommandLine/completionScript(for:)`` and stop (`--generate-completion-script SHELL`).
        case completionScript(CompletionShell)
        /// The arguments are wrong; the message says how, ready to print after the tool's name.
        case usageError(String)
    }

    /// The tool's name: `appcore-batch`.
    public let tool: String
    /// The forms of the command, after the tool's name: `[options] <script>...`.
    public let synopsis: [String]
    /// Every option.
    public let options: [ShellOption<Settings>]
    /// Lines after the options (exit codes, keys).
    public let notes: [String]
    /// Whether the words that are not options are files (the batch runner's scripts), which
    /// completion then offers.
    public let takesFiles: Bool
    /// What `--version` prints after the tool's name: AppCore's version, and whatever else the
    /// tool is versioned by (`0.1.0 (protocol 1.0)`).
    public let version: String

    /// A command line of `tool` taking `options`, and files as its other words when `takesFiles`.
    public init(
        tool: String, synopsis: [String], options: [ShellOption<Settings>], notes: [String] = [], takesFiles: Bool = false,
        version: String = AppCoreVersion.current
    ) {
        self.tool = tool
        self.synopsis = synopsis
        self.options = options
        self.notes = notes
        self.takesFiles = takesFiles
        self.version = version
    }

    /// The usage text `--help` prints: the forms, then each option with its value and summary.
    public var usage: String {
        let forms = synopsis.enumerated().map { ($0.offset == 0 ? "usage: " : "       ") + tool + " " + $0.element }
        let spelt = options.map { option in option.name + (option.placeholder.map { " " + $0 } ?? "") }
        let width = (spelt.map(\.count).max() ?? 0) + 2
        let rows = zip(spelt, options).map { "  " + $0.padding(toLength: width, withPad: " ", startingAt: 0) + $1.summary }
        let builtIns = ["  --version: print the version; --generate-completion-script bash|zsh|fish: a completion script"]
        return (forms + rows + builtIns + notes).joined(separator: "\n")
    }

    /// The settings `arguments` ask for, for a shell about to run.
    public func settings(
        from arguments: some Sequence<String>,
        into settings: Settings,
        positional: (inout Settings, String) -> String? = { _, word in "unknown argument \(word)" }
    ) -> Settings {
        switch read(arguments, into: settings, positional: positional) {
        case .run(let settings):
            return settings
        case .help:
            print(usage)
            exit(0)
        case .version:
            print("\(tool) \(version)")
            exit(0)
        case .completionScript(let shell):
            print(completionScript(for: shell), terminator: "")
            exit(0)
        case .usageError(let message):
            FileHandle.standardError.write(Data("\(tool): \(message)\n".utf8))
            exit(2)
        }
    }

    /// Reads `arguments` (without the tool's own path) over `settings`.
    public func read(
        _ arguments: some Sequence<String>,
        into settings: Settings,
        positional: (inout Settings, String) -> String? = { _, word in "unknown argument \(word)" }
    ) -> Reading {
        var settings = settings
        var words = arguments.makeIterator()
        while let word = words.next() {
            if word == "--help" || word == "-h" { return .help }
            if word == "--version" { return .version }
            if word == "--generate-completion-script" {
                let names = CompletionShell.allCases.map(\.rawValue).joined(separator: ", ")
                guard let name = words.next() else { return .usageError("--generate-completion-script needs a shell: \(names)") }
                guard let shell = CompletionShell(rawValue: name) else {
                    return .usageError("--generate-completion-script needs a shell: \(names) (got \(name))")
                }
                return .completionScript(shell)
            }
            guard let option = options.first(where: { $0.name == word }) else {
                if word.hasPrefix("-"), word != "-" { return .usageError("unknown option \(word) (try --help)") }
                if let problem = positional(&settings, word) { return .usageError(problem + " (try --help)") }
                continue
            }
            let value: String
            if let placeholder = option.placeholder {
                guard let given = words.next() else { return .usageError("\(option.name) needs \(placeholder)") }
                value = given
            } else {
                value = ""
            }
            if let needs = option.apply(&settings, value) {
                return .usageError("\(option.name) needs \(needs)" + (value.isEmpty ? "" : " (got \(value))"))
            }
        }
        return .run(settings)
    }
}

extension ShellOption where Settings: HistorySettings {
    /// `--history-entries N`, `--history-mib N`: what undo, redo and jump keep.
    public static var history: [ShellOption] {
        [
            .value("--history-entries", "N", "most actions undo, redo and jump keep (default 10000)", needs: "a number of 2 or more") { settings, value in
                guard let entries = Int(value), entries >= 2 else { return false }
                settings.history.entries = entries
                return true
            },
            .value("--history-mib", "N", "most memory they keep, estimated, in MiB (default 64)", needs: "a positive number") { settings, value in
                guard let mebibytes = Int(value), mebibytes >= 1, mebibytes < 1 << 40 else { return false }
                settings.history.bytes = mebibytes << 20
                return true
            },
        ]
    }
}
