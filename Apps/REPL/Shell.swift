import Console
import Foundation
import Persistence
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the REPL keeps its database and history: `$XDG_DATA_HOME/appcore`, or
/// `~/.local/share/appcore`.
enum DataDirectory {
    static func path() -> String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"] ?? ((environment["HOME"] ?? NSTemporaryDirectory()) + "/.local/share")
        let path = base + "/appcore"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }
}

/// The REPL: a console session on a terminal (or on piped input), with the journal behind it.
final class Shell: @unchecked Sendable {
    let session: ConsoleSession
    let terminal: Terminal
    let journal: Journal<AppState, AppAction>?
    let recording: AnyObject?

    private init(session: ConsoleSession, terminal: Terminal, journal: Journal<AppState, AppAction>?, recording: AnyObject?) {
        self.session = session
        self.terminal = terminal
        self.journal = journal
        self.recording = recording
    }

    /// Opens the database (if any), restores the last session from its journal, and prints
    /// where everything is.
    static func start(databasePath: String?, live: Bool, loginStyle: ConsoleLoginStyle, history: HistoryLimits, terminal: Terminal) throws -> Shell {
        guard let databasePath else {
            let session = ConsoleSession(environment: memoryEnvironment(interactive: terminal.isInteractive), loginStyle: loginStyle,
                                         waitsForEffects: !terminal.isInteractive, historyLimits: history)
            if terminal.isInteractive { terminal.printAbove("appcore: in memory, nothing is kept (type help)") }
            return Shell(session: session, terminal: terminal, journal: nil, recording: nil)
        }
        let database = try Database(path: databasePath, migrations: AppSchema.migrations)
        let environment = live
            ? ConsoleEnvironment(name: "live", base: .live(database: database), manualClock: nil)
            : memoryEnvironment(interactive: terminal.isInteractive)
        let journal = try Journal<AppState, AppAction>(database: database)
        var (state, replayed) = try journal.restore(from: AppState(loginStyle: loginStyle), using: App(environment: environment.app))
        if replayed == 0 && state == AppState() { state = AppState(loginStyle: loginStyle) }
        let session = ConsoleSession(environment: environment, loginStyle: loginStyle, initialState: state,
                                     waitsForEffects: !terminal.isInteractive, historyLimits: history)
        let recording = journal.record(session.store) { $0.carriesSecret }
        if terminal.isInteractive {
            terminal.printAbove("appcore: database \(databasePath) (\(environment.name) clients); restored \(replayed) actions (type help)")
        }
        return Shell(session: session, terminal: terminal, journal: journal, recording: recording)
    }

    /// In-memory clients: on the manual clock for piped scripts (deterministic, `advance` works),
    /// on real time at a terminal, where nobody would move the clock for a debounced search.
    private static func memoryEnvironment(interactive: Bool) -> ConsoleEnvironment {
        interactive
            ? ConsoleEnvironment(name: "memory", base: .inMemory(clock: ContinuousClock(), start: Date()), manualClock: nil)
            : .memory()
    }

    func run(historyPath: String?) async {
        if journal != nil, let ended = await session.resumeAfterRestart(), terminal.isInteractive {
            terminal.printAbove(ended)
        }
        if terminal.isInteractive {
            await runInteractive(historyPath: historyPath)
        } else {
            await runPiped()
        }
        try? journal?.close()
    }

    /// Piped input: no prompt, no colour, each command waits for its effects.
    private func runPiped() async {
        while let line = readLine(strippingNewline: true) {
            let result = await session.execute(line)
            print(describe(result))
            if result.quits { break }
        }
    }

    private func runInteractive(historyPath: String?) async {
        let history = historyPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }?
            .split(separator: "\n").map(String.init) ?? []
        let session = session
        let editor = LineEditor(terminal: terminal, history: history) { session.completions(for: $0) }
        let watcher = Task { [terminal, session] in
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var frame = 0
            while !Task.isCancelled {
                if session.isBusy {
                    terminal.setStatus(terminal.colour(frames[frame % frames.count], "36") + " ")
                    frame += 1
                } else {
                    terminal.setStatus("")
                    if let changes = session.takeScreenChanges() { terminal.printAbove(changes) }
                }
                try? await Task.sleep(for: .milliseconds(80))
            }
        }
        terminal.enterRawMode()
        defer {
            terminal.restore()
            watcher.cancel()
        }
        loop: while true {
            let user = session.signedInUsername
            let prompt = user.map { terminal.colour($0, "32") } ?? terminal.colour("appcore", "2")
            switch editor.readLine(prompt: prompt + "> ") {
            case .line(var line):
                if line.trimmingCharacters(in: .whitespaces) == "login.password" {
                    // Asked for on its own line, the password is never echoed.
                    guard case .line(let password) = editor.readLine(prompt: "password: ", secret: true) else { continue }
                    line = ParsedLine.line("login.password", arguments: [password])
                }
                let result = await session.execute(line)
                let text = describe(result)
                if !text.isEmpty { terminal.printAbove(text) }
                if result.quits { break loop }
            case .interrupt:
                let cancelled = session.cancelEffects()
                terminal.printAbove(cancelled > 0 ? "cancelled \(cancelled) running effect\(cancelled == 1 ? "" : "s")" : "(Ctrl-D quits)")
            case .endOfInput:
                break loop
            }
        }
        if let historyPath {
            // Passwords never reach the file (lines that do not read are left out too).
            let kept = editor.history.filter(ParsedLine.mayBeKept).suffix(1_000).joined(separator: "\n") + "\n"
            _ = FileManager.default.createFile(atPath: historyPath, contents: Data(kept.utf8), attributes: [.posixPermissions: 0o600])
        }
    }

    private func describe(_ result: ConsoleSession.Result) -> String {
        switch result.status {
        case .ok:
            return result.output
        case .rejected(let message), .error(let message):
            let text = terminal.colour("error: \(message)", "31")
            return result.output.isEmpty ? text : result.output + "\n" + text
        }
    }
}
