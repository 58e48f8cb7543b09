import AppEnvironment
import AppHost
import Foundation
import Models
import Reducers
import StateStore
import ViewModels

/// The line language at work on an `AppHost`.
public final class ConsoleSession: Sendable {
    /// What a line did.
    public struct Result: Sendable, Equatable {
        /// How the line ended.
        public enum Status: Sendable, Equatable {
            /// It did what it says (a blank line or comment counts as ok).
            case ok
            /// The app refused the action, or an `expect` failed; the message says why.
            case rejected(String)
            /// The command ran and a client call it made failed (not saved, wrong password,
            /// network, full disk); the message says what.
            case failed(String)
            /// The line could not be run (bad command, bad argument, unknown id, timeout).
            case error(String)
        }

        /// How the line ended.
        public var status: Status
        /// What to print.
        public var output: String
        /// The screens whose content changed, in `Screen.allCases` order.
        public var changed: [Screen]
        /// Whether the session ends after the line.
        public var quits = false
        /// The screens as the line left them, when it read them anyway.
        var screens: ConsoleScreens?
        /// The line as it may be shown (a secret argument redacted); `nil` when it could not be
        /// read, and so may be shown only through `ParsedLine.displayable(_:)`.
        var shownLine: String?

        /// Whether the line succeeded, counting `!
        public var succeeded: Bool {
            if case .ok = status { return true }
            return false
        }

        init(status: Status, output: String = "", changed: [Screen] = [], screens: ConsoleScreens? = nil) {
            self.status = status
            self.output = output
            self.changed = changed
            self.screens = screens
        }
    }

    /// The longest line the console runs, in bytes (1 MiB, as `InputLines` reads by default).
    public static let maximumLineLength = InputLines.defaultMaximumLineLength

    static let tooLong = "the line is longer than \(maximumLineLength) bytes, the most a line may have; it was not run"

    /// The app the session drives.
    public let host: AppHost
    /// Whether a feature command waits for the work it set in motion (scripts), or returns at
    /// once and lets a shell show later changes (an interactive REPL).
    public let waitsForEffects: Bool
    /// How long a command, and `wait` by default, waits.
    public let defaultTimeout: Duration
    /// How long a shell's line waits for its work on the live clients.
    public static let liveTimeout: Duration = .seconds(60)

    let noteIDs: NoteIDs
    let recording = Locked<Recording?>(nil)
    /// The screens as last shown, for ``takeScreenChanges()``, and whether a line is running
    /// (background changes are then the line's to report); one lock for both.
    let display = Locked<(shown: ConsoleScreens?, isExecuting: Bool, isEnding: Bool)>((nil, false, false))

    /// A session on `host`, whose commands wait up to `defaultTimeout` for their work when
    /// `waitsForEffects`.
    public init(host: AppHost, waitsForEffects: Bool = true, defaultTimeout: Duration = .seconds(5)) {
        self.host = host
        self.waitsForEffects = waitsForEffects
        self.defaultTimeout = defaultTimeout
        noteIDs = NoteIDs(store: host.store)
        display.withLock { $0.shown = ConsoleScreens(host.screens, noteIDs: noteIDs) }
    }

    /// A session for scripts.
    public static func scripted(
        loginStyle: LoginStyle = .finiteStates,
        history: HistoryLimits = HistoryLimits(),
        waitsForEffects: Bool = true
    ) async throws(AppHostError) -> ConsoleSession {
        let host = try await AppHost(
            storage: .inMemory(), loginStyle: loginStyle,
            options: {
                var options = AppHost.Options(testClock: ManualClock(), history: history)
                options.injectsFailures = true
                return options
            }())
        return ConsoleSession(host: host, waitsForEffects: waitsForEffects)
    }

    /// The app's store.
    public var store: RootStore<AppFeature.State, AppFeature.Action> { host.store }

    // MARK: - Running lines

    /// Runs one line of the language, where it is called from (no hop to another executor).
    nonisolated(nonsending) public func execute(_ line: String) async -> Result {
        var result = await runLine(line)
        if let lost = host.storageLost {
            // Nothing more can be kept: the session ends rather than acknowledge lines it loses.
            result.quits = true
            if result.succeeded { result.status = .failed(lost.reason) }
        }
        result.output = TerminalText.visible(result.output)
        switch result.status {
        case .ok: break
        case .rejected(let message): result.status = .rejected(TerminalText.visible(message))
        case .failed(let message): result.status = .failed(TerminalText.visible(message))
        case .error(let message): result.status = .error(TerminalText.visible(message))
        }
        return result
    }

    nonisolated(nonsending) private func runLine(_ line: String) async -> Result {
        guard line.utf8.count <= Self.maximumLineLength else { return Result(status: .error(Self.tooLong)) }
        let parsed: ParsedLine
        do {
            guard let read = try ParsedLine.parse(line) else { return Result(status: .ok) }
            parsed = read
        } catch {
            if line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("! ") {
                return Result(status: .ok, output: "refused as expected: \(error.message)")
            }
            return Result(status: .error(error.message))
        }
        let isEnding = display.withLock { display in
            if !display.isEnding { display.isExecuting = true }
            return display.isEnding
        }
        if isEnding { return Result(status: .error("the session is ending; the line was not run")) }
        recording.withLock { $0?.record(line, parsed) }
        var result: Result
        do {
            result = try await run(parsed)
        } catch {
            result = Result(status: .error(error.message))
        }
        let screens = result.screens ?? ConsoleScreens(self)
        display.withLock { $0 = (screens, false, $0.isEnding) }
        result.shownLine = parsed.carriesSecret ? parsed.redacted : line
        if parsed.expectsRejection {
            switch result.status {
            case .rejected(let message):
                result.status = .ok
                result.output = (result.output.isEmpty ? "" : result.output + "\n") + "rejected as expected: \(message)"
            case .failed(let message):
                result.status = .ok
                result.output = (result.output.isEmpty ? "" : result.output + "\n") + "failed as expected: \(message)"
            case .error(let message):
                // Bad input is refused too: `!` lines check it.
                result.status = .ok
                result.output = "refused as expected: \(message)"
            case .ok:
                result.status = .rejected("“\(parsed.spec.name)” was expected to be rejected, but it was accepted")
            }
        }
        return result
    }

    /// Ends the session the way quitting does, from any task (a signal's handler).
    public func end() async throws(AppHostError) {
        display.withLock { $0.isEnding = true }
        let clock = ContinuousClock()
        let deadline = clock.now + Self.endingTime
        // A line stuck on a database call must not keep the program from ending.
        let lineDeadline = clock.now + Self.endingTime / 3
        while display.withLock({ $0.isExecuting }), clock.now < lineDeadline {
            // Only on the way out, for a moment at most.
            try? await Task.sleep(for: .milliseconds(5))
        }
        try await host.close(timeout: max(clock.now.duration(to: deadline), .seconds(1)))
    }

    /// The longest ending takes (``end()``), so that a shell ends within 5 s of being asked,
    /// whatever its database does.
    public static let endingTime: Duration = .milliseconds(4_500)

    /// Performs `intent`, waiting for its work if the session does, and reports what changed.
    nonisolated(nonsending) func perform(_ intent: Intent) async -> Result {
        let before = display.withLock { $0.shown } ?? ConsoleScreens(self)
        let outcome = await host.perform(intent, timeout: waitsForEffects ? defaultTimeout : .zero, since: before.screens)
        let after = ConsoleScreens(outcome.screens, noteIDs: noteIDs)
        let output = after.render(outcome.changed, since: before)
        var result = Result(status: .ok, output: output, changed: outcome.changed, screens: after)
        switch outcome.status {
        case .completed:
            break
        case .rejected(let reason):
            result.status = .rejected("rejected: " + Self.plain(reason))
        case .failed(let reason):
            result.status = .failed(Self.plain(reason))
        case .timedOut(let running):
            if waitsForEffects { result.status = .error(timeoutMessage(running)) }
        }
        return result
    }

    func timeoutMessage(_ running: [String], after timeout: Duration? = nil) -> String {
        "timed out after \(timeout ?? defaultTimeout) waiting for the effects of \(running.map(Self.plain).joined(separator: ", "))"
    }

    /// Every screen rendered as text, long lists cut to their first page.
    public func renderScreens() -> String {
        TerminalText.visible(ConsoleScreens(self).renderAll())
    }

    /// A diagnostic's message without the type prefixes of the rendered values.
    static func plain(_ message: String) -> String {
        message.replacingOccurrences(of: "AppFeature.Action.", with: "")
    }
}
