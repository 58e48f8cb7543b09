import AppHost
import Console
import Foundation
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

/// The REPL: a console session on a terminal (or on piped input), on an ``AppHost``.
final class Shell: @unchecked Sendable {
    let session: ConsoleSession
    let terminal: Terminal

    private init(session: ConsoleSession, terminal: Terminal) {
        self.session = session
        self.terminal = terminal
    }

    /// Opens the database (if any) through the host, which restores the last session from its
    /// journal, and prints where everything is.
    static func start(databasePath: String?, loginStyle: ConsoleLoginStyle, readOnly: Bool, history: HistoryLimits, terminal: Terminal) async throws -> Shell {
        let session: ConsoleSession
        if databasePath == nil, !terminal.isInteractive {
            // Piped scripts in memory run on the test clock (deterministic, `advance` works); at
            // a terminal time is real, since nobody would move the clock for a debounced search.
            session = try await ConsoleSession.scripted(loginStyle: loginStyle, history: history)
        } else {
            let host = try await AppHost(storage: databasePath.map { .database(path: $0) } ?? .inMemory(),
                                         loginStyle: loginStyle, options: { var options = AppHost.Options(history: history); options.readOnly = readOnly; return options }())
            session = ConsoleSession(host: host, waitsForEffects: !terminal.isInteractive)
            // Piped into a database, a line waits for real work (a password hash, a busy disk
            // shared with other processes) rather than give up on it after the scripts' 5 s.
            session.defaultTimeout = .seconds(60)
        }
        let host = session.host
        if terminal.isInteractive {
            if let databasePath {
                terminal.printAbove("appcore: database \(databasePath)\(readOnly ? " (read-only)" : ""); restored \(host.restoredActions) actions (type help)")
            } else {
                terminal.printAbove("appcore: in memory, nothing is kept (type help)")
            }
        }
        return Shell(session: session, terminal: terminal)
    }

    func run(historyPath: String?) async {
        if terminal.isInteractive, let resumed = session.resumedChanges {
            terminal.printAbove(resumed)
        }
        if terminal.isInteractive {
            await runInteractive(historyPath: historyPath)
        } else {
            await runPiped()
        }
        do {
            try await session.host.close()
        } catch {
            FileHandle.standardError.write(Data("appcore-repl: \(error)\n".utf8))
        }
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
        // What effects change after the prompt came back is printed as it happens.
        let printer = Task { [terminal, session] in
            for await _ in session.host.changes() {
                if let changes = session.takeScreenChanges() { terminal.printAbove(changes) }
            }
        }
        // Only the spinner's animation runs on a timer.
        let spinner = Task { [terminal, session] in
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var frame = 0
            while !Task.isCancelled {
                if session.isBusy {
                    terminal.setStatus(terminal.colour(frames[frame % frames.count], "36") + " ")
                    frame += 1
                } else {
                    terminal.setStatus("")
                }
                try? await Task.sleep(for: .milliseconds(80))
            }
        }
        terminal.enterRawMode()
        defer {
            terminal.restore()
            printer.cancel()
            spinner.cancel()
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
        case .rejected(let message), .failed(let message), .error(let message):
            let text = terminal.colour("error: \(message)", "31")
            return result.output.isEmpty ? text : result.output + "\n" + text
        }
    }
}
