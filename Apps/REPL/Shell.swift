import AppHost
import Console
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The REPL: a console session on a terminal (or on piped input), on an ``AppHost``.
final class Shell: @unchecked Sendable {
    let session: ConsoleSession
    let terminal: Terminal
    /// Standard input's lines, when they are piped rather than typed.
    let input: InputLines
    /// Where the line history is kept (set only at a terminal), the editor's lines, and how many
    /// of them were in the file already or are saved: read by a signal's handler too, so kept
    /// apart from the line editor.
    private let history = Mutex<(file: HistoryFile?, lines: [String], saved: Int)>((nil, [], 0))
    /// Guards the line editor, which a thread of its own uses while it waits for a line.
    private let editorLock = NSLock()
    /// Standard output, each answer written whole or not at all.
    private let output = StandardOutput()

    private init(session: ConsoleSession, terminal: Terminal, input: InputLines?) {
        self.session = session
        self.terminal = terminal
        self.input = input ?? InputLines()
    }

    /// Opens the database (if any) through the host, which restores the last session from its
    /// journal, and prints where everything is.
    static func start(
        databasePath: String?, loginStyle: ConsoleLoginStyle?, readOnly: Bool, durability: Durability, history: HistoryLimits, terminal: Terminal,
        input: InputLines?
    ) async throws -> Shell {
        let session: ConsoleSession
        if databasePath == nil, !terminal.isInteractive {
            // Piped scripts in memory run on the test clock (deterministic, `advance` works); at
            // a terminal time is real, since nobody would move the clock for a debounced search.
            session = try await ConsoleSession.scripted(loginStyle: loginStyle ?? .finiteStates, history: history)
        } else {
            // Piped, given up when the input ends and a stuck database keeps it from opening.
            let host = try await ShellOpening.host(whileReading: input) {
                try await AppHost(
                    storage: databasePath.map { .database(path: $0) } ?? .inMemory(),
                    loginStyle: loginStyle,
                    options: {
                        // The console's `fail` works at the REPL too.
                        var options = AppHost.Options(history: history, durability: durability, readOnly: readOnly, injectsFailures: true)
                        // At a terminal, trouble with kept data shows above the line being edited.
                        if terminal.isInteractive { options.warnings = { terminal.printAbove(terminal.colour("warning: " + TerminalText.visible($0), "33")) } }
                        return options
                    }())
            }
            session = ConsoleSession(host: host, waitsForEffects: !terminal.isInteractive, defaultTimeout: ConsoleSession.liveTimeout)
        }
        let host = session.host
        if terminal.isInteractive {
            if let databasePath {
                terminal.printAbove(
                    "appcore: database \(databasePath)\(readOnly ? " (read-only)" : ""); restored \(host.restoredActions) actions; login style \(host.loginStyle) (type help)"
                )
            } else {
                terminal.printAbove("appcore: in memory, nothing is kept (type help)")
            }
        }
        return Shell(session: session, terminal: terminal, input: input)
    }

    /// Runs until the user quits or input ends, then ends as ``end(status:)`` does.
    func run(historyPath: String?) async -> Never {
        // Only what a person types at a terminal is history: piped input neither reads nor writes it.
        if terminal.isInteractive { history.withLock { $0.file = historyPath.map(HistoryFile.init) } }
        if terminal.isInteractive, let resumed = session.resumedChanges {
            terminal.printAbove(resumed)
        }
        if terminal.isInteractive {
            await runInteractive()
        } else {
            await runPiped()
        }
        if let lost = session.host.storageLost { FileHandle.standardError.write(Data("appcore-repl: \(lost)\n".utf8)) }
        await end(status: session.host.storageLost == nil ? 0 : 1)
    }

    /// Ends the way quitting does, from the shell or from a signal's handler: the terminal
    /// restored, the history saved, the running line finished and the host closed (journal
    /// written, database closed); then exits with `status`, or 2 saying why closing failed.
    func end(status: Int32) async -> Never {
        terminal.restore()
        saveHistory()
        do {
            try await session.end()
        } catch {
            FileHandle.standardError.write(Data("appcore-repl: \(error)\n".utf8))
            ProcessExit.exit(2)
        }
        ProcessExit.exit(status)
    }

    /// Piped input: no prompt, no colour, each command waits for its effects, and each answer
    /// is written as soon as it is known (a driver reads it line by line).
    private func runPiped() async {
        // Read on a thread of their own: a blocking read must not hold a thread tasks share.
        for await bytes in input {
            let line = String(decoding: bytes, as: UTF8.self)
            let result = await session.execute(line)
            let text = describe(result) + "\n"
            // A reader that went away (`| head -1`) ends the shell as SIGPIPE would, cleanly; any
            // other failure to write is said once, and the shell ends with 1.
            if !output.write(text) {
                if let failure = output.failure, failure != .readerGone {
                    FileHandle.standardError.write(Data("appcore-repl: \(failure)\n".utf8))
                }
                await end(status: output.failure == .readerGone ? 128 + SIGPIPE : 1)
            }
            if result.quits { break }
        }
    }

    /// Adds the lines typed since the last save to the history file (once, however many ways
    /// the shell ends).
    private func saveHistory() {
        let (file, typed) = history.withLock { history in
            defer { history.saved = history.lines.count }
            return (history.file, Array(history.lines.dropFirst(history.saved)))
        }
        // Passwords never reach the file (lines that do not read are left out too).
        file?.append(typed.filter(ParsedLine.mayBeKept))
    }

    private func runInteractive() async {
        let history = self.history.withLock { $0.file }?.lines() ?? []
        self.history.withLock { $0 = ($0.file, history, history.count) }
        let session = session
        let editor = LineEditor(terminal: terminal, history: history) { session.completions(for: $0) }
        // What effects change after the prompt came back is printed as it happens, and the
        // prompt follows who is signed in (a sign-in ends after its command returned).
        terminal.setCommandPrompt(commandPrompt())
        let printer = Task { [self, terminal, session] in
            for await _ in session.host.changes() {
                if let changes = session.takeScreenChanges() { terminal.printAbove(changes) }
                terminal.setCommandPrompt(commandPrompt())
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
            switch await read(editor) {
            case .line(var line):
                if line.trimmingCharacters(in: .whitespaces) == "login.password" {
                    // Asked for on its own line, the password is never echoed.
                    guard case .line(let password) = await read(editor, prompt: "password: ", secret: true) else { continue }
                    line = ParsedLine.line("login.password", arguments: [password])
                }
                let lines = editorLock.withLock { editor.history }
                self.history.withLock { $0.lines = lines }
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
    }

    /// The prompt of a command line: who is signed in, or `appcore` while nobody is.
    private func commandPrompt() -> String {
        (session.signedInUsername.map { terminal.colour($0, "32") } ?? terminal.colour("appcore", "2")) + "> "
    }

    /// The editor's next line, read on a thread of its own: waiting at the prompt must not hold
    /// one of the threads tasks share (effects, and the handling of a signal, run on them).
    /// Without `prompt`, the command prompt is shown.
    private func read(_ editor: LineEditor, prompt: String? = nil, secret: Bool = false) async -> EditorEvent {
        // The editor is used by one thread at a time: each line's thread, then this task, take
        // its lock in turn (which also orders their use for the Thread Sanitizer).
        nonisolated(unsafe) let editor = editor
        return await withCheckedContinuation { continuation in
            Thread { [editorLock] in
                let event = editorLock.withLock { editor.readLine(prompt: prompt, secret: secret) }
                continuation.resume(returning: event)
            }.start()
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
