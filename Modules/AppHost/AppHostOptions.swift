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
        /// A SQLite database at `path` (created if missing).
        case database(path: String)
    }

    /// What front ends other than a plain app need: scripts, tests and tools.
    public struct Options: Sendable {
        /// A clock that moves only when told to, for deterministic runs.
        public var testClock: ManualClock?
        /// What a database host does with the action journal.
        public var journal: JournalUse
        /// What undo, redo and jump keep; `nil` keeps no history.
        public var history: HistoryLimits?
        /// Where runtime diagnostics go besides the outcomes they belong to; by default nowhere.
        public var diagnostics: Diagnostics
        /// The live clients' settings (password hashing, sign-in throttling).
        public var live: LiveConfiguration
        /// What an answer survives on a database (SQLite's `synchronous`).
        public var durability: Durability
        /// Whether a database is opened for reading only (`--read-only`).
        public var readOnly: Bool
        /// Where the host reports trouble with kept data as it happens, one line each.
        public var warnings: @Sendable (String) -> Void
        /// Whether ``AppHost/failures`` can make client calls fail (the console's `fail`).
        public var injectsFailures: Bool
        /// Where the view models (and the store) tell Observation of changes.
        public var observation: ObservationDelivery
        /// The state to start from instead of a fresh app's (a database host's journal, when
        /// it holds anything, wins).
        public var initialState: AppFeature.State?
        /// Clients to use instead of in-memory storage's own, for tests that carry a signed-in state.
        package var clients: AppEnvironment?
        /// Runs on a database host's connection once it is open, before anything is restored:
        /// tests that limit the file (`PRAGMA max_page_count`) to act out a full disk.
        package var preparingDatabase: (@Sendable (Connection) throws(DatabaseError) -> Void)?

        /// Options.
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
