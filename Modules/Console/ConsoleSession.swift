import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import ViewModels

/// The line language at work: one app store, its view models and timeline, and the meta
/// commands, behind `execute(_:)`. Both shells are thin wrappers around a session.
///
/// ```swift
/// let session = ConsoleSession(environment: .memory(), loginStyle: .finiteStates)
/// let result = await session.execute("counter.increment")
/// print(result.output)            // counter: count 1, can decrement
/// ```
public final class ConsoleSession: @unchecked Sendable {
    /// What a line did.
    public struct Result: Sendable, Equatable {
        /// How the line ended.
        public enum Status: Sendable, Equatable {
            /// It did what it says (a blank line or comment counts as ok).
            case ok
            /// The app refused the action, or an `expect` failed; the message says why.
            case rejected(String)
            /// The line could not be run (bad command, bad argument, unknown id, timeout).
            case error(String)
        }

        /// How the line ended.
        public var status: Status
        /// What to print.
        public var output: String
        /// The screens whose content changed, by name.
        public var changed: [String]
        /// Whether the line asks to leave.
        public var quits = false
        /// The screens as the line left them, when it read them anyway.
        var screens: Screens?

        /// Whether the line succeeded, counting `! ` lines that were rejected as success.
        public var succeeded: Bool {
            if case .ok = status { return true }
            return false
        }
    }

    /// What the session runs on.
    public let environment: ConsoleEnvironment
    /// The app's store.
    public let store: RootStore<AppFeature.State, AppFeature.Action>
    /// Whether a feature command waits for the effects it started (scripts), or returns at once.
    public var waitsForEffects: Bool
    /// How long `wait` waits by default.
    public var defaultTimeout: Duration = .seconds(5)

    let timeline: Timeline<AppFeature.State, AppFeature.Action>
    let diagnostics = DiagnosticLog()
    let login: LoginViewModel
    let session: SessionViewModel
    let profile: ProfileViewModel
    let notes: NotesViewModel
    let counter: CounterViewModel
    let noteIDs: NoteIDs
    var recording: Recording?
    /// The screens as last shown, for ``takeScreenChanges()``.
    let shown = Locked<Screens?>(nil)
    /// The handles of commands whose effects may still run, for ``cancelEffects()``.
    let inFlight = Locked<[StoreTask]>([])

    /// A fresh app on `environment`, starting from `initialState` (a restored one, or a new app
    /// with `loginStyle`), whose `history` (undo, redo, jump) keeps within `historyLimits`: by
    /// default 10,000 actions and an estimated 64 MiB, the oldest dropped first.
    public init(
        environment: ConsoleEnvironment,
        loginStyle: LoginStyle = .finiteStates,
        initialState: AppFeature.State? = nil,
        waitsForEffects: Bool = true,
        historyLimits: HistoryLimits = HistoryLimits()
    ) {
        self.environment = environment
        self.waitsForEffects = waitsForEffects
        let diagnostics = diagnostics
        let app = environment.app
        store = RootStore(
            initialState: initialState ?? AppFeature.State(loginStyle: loginStyle),
            reducer: AppFeature(environment: app),
            diagnostics: Diagnostics { diagnostics.append($0) }
        ) {
            AppFeature.loginMiddleware(app)
        }
        timeline = Timeline(recording: store, limits: historyLimits, footprint: .app)
        login = LoginViewModel(appStore: store)
        session = SessionViewModel(appStore: store)
        profile = ProfileViewModel(appStore: store)
        notes = NotesViewModel(appStore: store)
        counter = CounterViewModel(appStore: store)
        noteIDs = NoteIDs(store: store)
    }

    // MARK: - Running lines

    /// Runs one line of the language.
    public func execute(_ line: String) async -> Result {
        let parsed: ParsedLine
        do {
            guard let read = try ParsedLine.parse(line) else { return Result(status: .ok, output: "", changed: []) }
            parsed = read
        } catch {
            if line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("! ") {
                return Result(status: .ok, output: "refused as expected: \(error.message)", changed: [])
            }
            return Result(status: .error(error.message), output: "", changed: [])
        }
        recording?.record(line, parsed)
        var result = await run(parsed)
        let screens = result.screens ?? Screens(self)
        shown.withLock { $0 = screens }
        if parsed.expectsRejection {
            switch result.status {
            case .rejected(let message):
                result.status = .ok
                result.output = (result.output.isEmpty ? "" : result.output + "\n") + "rejected as expected: \(message)"
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

    private func run(_ line: ParsedLine) async -> Result {
        do {
            if let action = try action(for: line) {
                return await send(action)
            }
            return try await meta(line)
        } catch let error as LineError {
            return Result(status: .error(error.message), output: "", changed: [])
        } catch {
            return Result(status: .error("\(error)"), output: "", changed: [])
        }
    }

    /// Sends `action`, waits for its effects if the session does, and reports what changed.
    func send(_ action: AppFeature.Action) async -> Result {
        let before = shown.withLock { $0 } ?? Screens(self)
        _ = diagnostics.drain()
        let task = store.send(action)
        if waitsForEffects {
            if let timeout = await settle(within: defaultTimeout) {
                return Result(status: .error(timeout), output: "", changed: [])
            }
        } else {
            inFlight.withLock { $0.append(task) }
        }
        let rejections = diagnostics.drain().filter { $0.kind == .invalidTransition || $0.kind == .missingChild }
        let after = Screens(self)
        let (changed, output) = after.changes(since: before)
        var result = Result(status: .ok, output: output, changed: changed, screens: after)
        if let first = rejections.first {
            result.status = .rejected("rejected: " + (first.reason ?? Self.plain(first.message)))
        }
        return result
    }

    /// Waits until no effect runs, moving the manual clock past every sleeper meanwhile;
    /// returns a message naming what still runs after `timeout`.
    func settle(within timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !store.hasRunningEffects { return nil }
            if let clock = environment.manualClock, clock.sleeperCount > 0 {
                await clock.run()
                continue
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        let running = store.runningEffects.map { ValueRenderer.oneLine($0) }
        return running.isEmpty ? nil : "timed out after \(timeout) waiting for the effects of \(running.joined(separator: ", "))"
    }

    /// Screen `name` (or `all`) rendered as text, long lists cut to their first page.
    public func render(screen name: String) -> String {
        Screens(self).render(name)
    }

    /// A diagnostic's message without the type prefixes of the rendered values.
    static func plain(_ message: String) -> String {
        message.replacingOccurrences(of: "AppFeature.Action.", with: "")
    }
}
