import AppEnvironment
import Persistence
import Reducers
import StateStore

extension AppHost {
    /// Where the app's data lives.
    public enum Storage: Sendable, Equatable {
        /// In-memory clients (nothing is kept after the host goes away), each call delayed by
        /// `latency` on the host's clock.
        case inMemory(latency: Duration = .zero)
        /// A SQLite database at `path` (created if missing): the live clients, and the action
        /// journal restored on opening and recorded until ``AppHost/close(timeout:)``. Several processes
        /// may open one database: each records its own journal stream, and a start restores the
        /// stream written most recently.
        case database(path: String)
    }

    /// What front ends other than a plain app need: scripts, tests and tools.
    public struct Options: Sendable {
        /// A clock that moves only when told to, for deterministic runs: the clients, the
        /// debounce and the dates of in-memory storage follow it, and ``AppHost/perform(_:timeout:since:)``
        /// moves it on whenever every running effect is asleep on it. `nil` (the default): real time.
        public var testClock: ManualClock?
        /// What a database host does with the action journal: restore it and record from there
        /// (the default), only restore it (to look at a database without changing it), or
        /// neither (a fresh app on the database's clients, so several hosts can share one
        /// database, as the batch runner's scripts do).
        public var journal: JournalUse
        /// What undo, redo and jump keep; `nil` keeps no history.
        public var history: HistoryLimits?
        /// Where runtime diagnostics go besides the outcomes they belong to; by default nowhere.
        public var diagnostics: Diagnostics
        /// The live clients' settings (password hashing, sign-in throttling).
        public var live: LiveConfiguration
        /// What an answer survives on a database (SQLite's `synchronous`): an outcome comes
        /// after the commit of its intent's journal records and rows, which by default
        /// (`Durability.processCrash`) survives the process being killed at once, and with
        /// `Durability.powerLoss` a power loss too, at the cost of a disk flush per commit.
        public var durability: Durability
        /// Whether a database is opened for reading only (`--read-only`): to look at a file that
        /// may not be changed. The journal is restored, not recorded, so every intent (the
        /// counter and the sign-in form too, whose changes the journal would keep) is rejected
        /// saying so, and the app goes on; the screens show the state the journal left.
        public var readOnly: Bool
        /// Where the host reports trouble with kept data as it happens, one line each: the
        /// journal failing to be written (once per episode) and writing again, damaged journal
        /// records or notes skipped on reading. By default standard error, prefixed `appcore: `.
        public var warnings: @Sendable (String) -> Void
        /// Whether ``AppHost/failures`` can make client calls fail (the console's `fail`): the
        /// clients are wrapped to ask it first. Off by default, so an app's clients are called
        /// directly; scripts, the shells and tests turn it on.
        public var injectsFailures: Bool
        /// Where the view models (and the store) tell Observation of changes: on the main actor
        /// for a SwiftUI or other main-actor interface, whose observed values then change there
        /// only, once per settled burst; by default where the change was made.
        public var observation: ObservationDelivery
        /// The state to start from instead of a fresh app's (a database host's journal, when
        /// it holds anything, wins).
        public var initialState: AppFeature.State?
        /// Clients to use instead of in-memory storage's own: tests that carry a signed-in
        /// state from one host to another.
        package var clients: AppEnvironment?
        /// Runs on a database host's connection once it is open, before anything is restored:
        /// tests that limit the file (`PRAGMA max_page_count`) to act out a full disk.
        package var preparingDatabase: (@Sendable (Connection) throws(DatabaseError) -> Void)?

        /// Options; by default real time, the journal on, 10,000 history entries, commits that
        /// survive the process being killed, warnings on standard error (prefixed `appcore: `).
        public init(
            testClock: ManualClock? = nil,
            journal: JournalUse = .restoreAndRecord,
            history: HistoryLimits? = HistoryLimits(),
            diagnostics: Diagnostics = Diagnostics { _ in },
            live: LiveConfiguration = LiveConfiguration(),
            durability: Durability = .processCrash,
            readOnly: Bool = false,
            injectsFailures: Bool = false,
            observation: ObservationDelivery = .reducingThread,
            initialState: AppFeature.State? = nil,
            warnings: @escaping @Sendable (String) -> Void = { StandardStream.error.write("appcore: \(TerminalText.visible($0))\n") }
        ) {
            self.testClock = testClock
            self.journal = journal
            self.history = history
            self.diagnostics = diagnostics
            self.live = live
            self.durability = durability
            self.readOnly = readOnly
            self.injectsFailures = injectsFailures
            self.observation = observation
            self.initialState = initialState
            self.warnings = warnings
        }
    }

    /// What a database host does with the action journal (``Options/journal``).
    public enum JournalUse: Sendable, Equatable {
        /// Restore it on opening, then record every action.
        case restoreAndRecord
        /// Restore it on opening; record nothing, and send nothing on resuming.
        case restoreOnly
        /// Neither: the app starts fresh (or from ``Options/initialState``).
        case off
    }
}
