import AppEnvironment
import Foundation
import Models
import Persistence
import Reducers
import StateStore
import ViewModels

/// How much time-travel history a host keeps (``AppHost/Options/history``): by default 10,000
/// actions and an estimated 64 MiB, the oldest dropped first.
public typealias HistoryLimits = Timeline<AppFeature.State, AppFeature.Action>.Limits

/// The one composition root every front end uses: it opens the storage, builds the app's store
/// and view models, runs intents until their work has settled, and closes everything again.
///
/// ```swift
/// let host = try await AppHost(storage: .inMemory(latency: .milliseconds(40)), loginStyle: .finiteStates)
/// let outcome = await host.perform(.addNote(text: "milk"))
/// if case .rejected(let reason) = outcome.status { print(reason) } // "You are not signed in. Sign in first."
/// print(outcome.screens.notes.count)
/// try await host.close()
/// ```
///
/// Read screens after ``perform(_:timeout:since:)`` returns (or from ``changes(bufferingPolicy:)``), never right after
/// sending an action yourself: in memory most work finishes inside `send`, on a database or
/// with latency it does not, and a screen read too early is stale.
public final class AppHost: Sendable {
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
        public var durability: Durability = .processCrash
        /// Whether a database is opened for reading only (`--read-only`): to look at a file that
        /// may not be changed. The journal is restored, not recorded; anything that would write
        /// fails with a clear error, and the app goes on.
        public var readOnly: Bool = false
        /// Where the host reports trouble with kept data as it happens, one line each: the
        /// journal failing to be written (once per episode) and writing again, damaged journal
        /// records or notes skipped on reading. By default standard error, prefixed `appcore: `.
        public var warnings: @Sendable (String) -> Void = { StandardStream.error.write("appcore: \(TerminalText.visible($0))\n") }
        /// Whether ``AppHost/failures`` can make client calls fail (the console's `fail`): the
        /// clients are wrapped to ask it first. Off by default, so an app's clients are called
        /// directly; scripts, the shells and tests turn it on.
        public var injectsFailures = false
        /// Where the view models (and the store) tell Observation of changes: on the main actor
        /// for a SwiftUI or other main-actor interface, whose observed values then change there
        /// only, once per settled burst; by default where the change was made.
        public var observation: ObservationDelivery = .reducingThread
        /// The state to start from instead of a fresh app's (a database host's journal, when
        /// it holds anything, wins).
        public var initialState: AppFeature.State?
        /// Clients to use instead of in-memory storage's own: tests that carry a signed-in
        /// state from one host to another.
        package var clients: AppEnvironment?
        /// Runs on a database host's connection once it is open, before anything is restored:
        /// tests that limit the file (`PRAGMA max_page_count`) to act out a full disk.
        package var preparingDatabase: (@Sendable (Connection) throws(DatabaseError) -> Void)?

        /// Options; by default real time, the journal on, 10,000 history entries.
        public init(
            testClock: ManualClock? = nil,
            journal: JournalUse = .restoreAndRecord,
            history: HistoryLimits? = HistoryLimits(),
            diagnostics: Diagnostics = Diagnostics { _ in },
            live: LiveConfiguration = LiveConfiguration(),
            initialState: AppFeature.State? = nil
        ) {
            self.initialState = initialState
            self.testClock = testClock
            self.journal = journal
            self.history = history
            self.diagnostics = diagnostics
            self.live = live
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

    /// Where the data lives.
    public let storage: Storage
    /// The app's store, for front ends that render with Observation or need actions.
    public let store: RootStore<AppFeature.State, AppFeature.Action>
    /// The sign-in screen.
    public let login: LoginViewModel
    /// Who is signed in.
    public let session: SessionViewModel
    /// The profile and posts.
    public let profile: ProfileViewModel
    /// The notes.
    public let notes: NotesViewModel
    /// The counter.
    public let counter: CounterViewModel
    /// The clients the app runs on, with ``failures`` installed when ``Options/injectsFailures``.
    public let environment: AppEnvironment
    /// Arms failures of client endpoints (`fail notes.create` in the console); they happen
    /// only when ``Options/injectsFailures`` was set (see ``injectsFailures``).
    public let failures: FailureInjector
    /// Whether the failures armed in ``failures`` happen.
    public let injectsFailures: Bool
    /// The test clock, when ``Options/testClock`` gave one.
    public let testClock: ManualClock?
    /// Undo, redo and jump; `nil` when ``Options/history`` is `nil`.
    public let timeline: Timeline<AppFeature.State, AppFeature.Action>?
    /// How many journaled actions opening replayed (0 in memory).
    public let restoredActions: Int
    /// The login style the sign-in screen runs (see ``init(storage:loginStyle:options:)`` for
    /// which one a database host picks).
    public let loginStyle: LoginStyle
    /// The screens that changed when the app resumed from the journal (a session that lost its
    /// token ends); empty in memory or on a fresh database.
    public var resumed: [Screen] { resumedScreens.withLock { $0 } }

    private let database: Database?
    private typealias AppJournal = Journal<AppFeature.State, AppFeature.Action>
    private let journal: AppJournal?
    private let recording: Locked<StoreSubscription?>
    /// The unsettled work of the intents being performed, by a key per perform, for
    /// ``cancelRunningIntents()``.
    private let performing = Locked<(nextKey: UInt64, tasks: [UInt64: [StoreTask]])>((0, [:]))
    private let resumedScreens = Locked<[Screen]>([])
    /// The closing ``close(timeout:)`` started, which later calls wait for.
    private let closing = Locked<Task<Result<Void, AppHostError>, Never>?>(nil)
    private let screenCache: ScreenCache
    private let timeTravel: TimeTravel
    /// Listens for notes written by other writers (another process on the same database) and
    /// tells the app, which loads what changed; stopped on closing.
    private let externalWrites: Task<Void, Never>

    /// Opens `storage` and starts the app, signed out — or, on a database, where the journal
    /// left it. Returns once resuming has settled.
    ///
    /// The sign-in screen runs `loginStyle` when one is given, whatever the journal's was: its
    /// form then starts empty in that style (a restart empties it anyway, keeping only the
    /// username of a session that ended), and the host warns that the style changed
    /// (``Options/warnings``). With none, the journal's style goes on, or
    /// ``Options/initialState``'s, else `LoginStyle.finiteStates`. ``loginStyle`` says which runs.
    public init(storage: Storage, loginStyle requestedStyle: LoginStyle? = nil, options: Options = Options()) async throws(AppHostError) {
        self.storage = storage
        testClock = options.testClock
        let clock: any Clock<Duration> = options.testClock ?? ContinuousClock()
        let failures = FailureInjector()
        self.failures = failures
        injectsFailures = options.injectsFailures
        let injecting = { (environment: AppEnvironment) in options.injectsFailures ? environment.injectingFailures(failures) : environment }
        var initialState = options.initialState ?? AppFeature.State(loginStyle: requestedStyle ?? .finiteStates)
        var replayed = 0
        switch storage {
        case .inMemory(let latency):
            let base =
                options.clients
                ?? (options.testClock == nil ? AppEnvironment.inMemory(clock: clock, start: Date()) : AppEnvironment.inMemory(clock: clock))
            environment = injecting(latency > .zero ? base.withLatency(latency) : base)
            database = nil
            journal = nil
        case .database(let path):
            do {
                let database = try AppSchema.open(path, readOnly: options.readOnly, durability: options.durability)
                if let preparingDatabase = options.preparingDatabase { try database.read(preparingDatabase) }
                environment = injecting(AppEnvironment.live(database: database, configuration: options.live, clock: clock, warnings: options.warnings))
                let report = Self.reportingJournal(to: options.warnings)
                if options.journal != .off {
                    let restored = try AppJournal.restoreLatest(in: database, from: initialState, using: AppFeature(environment: environment), report: report)
                    // A journal of a fresh app says nothing about the login style; the caller's stands.
                    if restored.replayed > 0 || restored.state != AppFeature.State() {
                        initialState = restored.state
                        let journalStyle = restored.state.login.style
                        if let requestedStyle, requestedStyle != journalStyle {
                            options.warnings("the journal's sign-in ran the \(journalStyle) login style; it runs \(requestedStyle) now, as asked")
                            initialState.login = Login.State(style: requestedStyle)
                        }
                    }
                    replayed = restored.replayed
                }
                // Only looking (or no journal): nothing is recorded, and no stream is touched.
                journal =
                    options.journal == .restoreAndRecord && !options.readOnly
                    ? try AppJournal.startOwnStream(in: database, from: initialState, report: report) : nil
                self.database = database
            } catch {
                throw AppHostError(error)
            }
        }
        restoredActions = replayed
        loginStyle = initialState.login.style
        let environment = environment
        let store = RootStore(
            initialState: initialState, reducer: AppFeature(environment: environment), diagnostics: options.diagnostics,
            observation: options.observation
        ) {
            AppFeature.loginMiddleware(environment)
        }
        self.store = store
        timeline = options.history.map { Timeline(recording: store, limits: $0, footprint: .app) }
        login = LoginViewModel(appStore: store)
        session = SessionViewModel(appStore: store)
        profile = ProfileViewModel(appStore: store)
        notes = NotesViewModel(appStore: store)
        counter = CounterViewModel(appStore: store)
        screenCache = ScreenCache(login: login, session: session, profile: profile, notes: notes, counter: counter)
        timeTravel = TimeTravel(store: store, timeline: timeline, journal: journal)
        recording = Locked(options.journal == .restoreAndRecord ? journal.map { $0.record(store) { $0.carriesSecret } } : nil)
        externalWrites = Task { [notes = environment.notes] in
            for await _ in notes.externalWrites() {
                // Only a signed-in user has notes to update; the notice is journaled like any action.
                guard store.currentState.user != nil else { continue }
                store.send(.notes(.externalChangesNoticed))
            }
        }
        if journal != nil || (options.readOnly && options.journal == .restoreAndRecord) {
            // A session restored without its token (tokens are never saved) ends now.
            let outcome = await perform(actions: [.session(.restored)])
            resumedScreens.withLock { $0 = outcome.changed }
        }
    }

    // MARK: - Intents

    /// Runs `intent` and returns once everything it set in motion has finished — its effects,
    /// the actions they sent back, their effects, and so on — or once `timeout` passed.
    ///
    /// On a database the outcome comes after the commit that keeps the journal records of the
    /// intent's actions (shared with every action pending), so what it reports survives the
    /// process being killed next; an intent whose records could not be written ends `.failed`.
    ///
    /// Intents may be performed concurrently from several tasks; each outcome covers its own
    /// intent's work and rejections only. It runs where it is called from (on the main actor
    /// for a UI), with no hop to another executor; the effects run on the store's.
    ///
    /// - Parameters:
    ///   - intent: What the user did.
    ///   - timeout: How long to wait for the intent's work (real time).
    ///   - earlier: The screens the outcome's ``IntentOutcome/changed`` is measured against: by
    ///     default the screens just before the intent; a front end that shows screens can pass
    ///     the ones it shows, and redraw exactly what `changed` lists.
    @discardableResult
    nonisolated(nonsending) public func perform(_ intent: Intent, timeout: Duration = .seconds(10), since earlier: Screens? = nil) async -> IntentOutcome {
        let before = earlier ?? screens
        switch intent.actions(in: { store.currentState }) {
        case .failure(let refusal):
            let now = screens
            return IntentOutcome(status: .rejected(reason: refusal.reason), changed: now.changed(since: before), screens: now)
        case .success(let actions):
            return await perform(actions: actions, timeout: timeout, before: before)
        }
    }

    /// Sends `actions` in order and waits as ``perform(_:timeout:since:)`` does: for front ends
    /// with actions of their own beyond ``Intent``. `earlier` is what the outcome's
    /// ``IntentOutcome/changed`` is measured against, as there.
    @discardableResult
    nonisolated(nonsending) public func perform(
        actions: [AppFeature.Action], timeout: Duration = .seconds(10),
        since earlier: Screens? = nil
    ) async -> IntentOutcome {
        await perform(actions: actions, timeout: timeout, before: earlier ?? screens)
    }

    nonisolated(nonsending) private func perform(actions: [AppFeature.Action], timeout: Duration, before: Screens) async -> IntentOutcome {
        let deadline = ContinuousClock.now + timeout
        let tasks = actions.map { store.send($0) }
        let unsettled = tasks.filter { !$0.isSettled }
        var settled = unsettled.isEmpty
        if !settled {
            let key = performing.withLock { performing in
                defer { performing.nextKey += 1 }
                performing.tasks[performing.nextKey] = unsettled
                return performing.nextKey
            }
            if timeout > .zero { settled = await settle(unsettled, timeout: timeout) }
            performing.withLock { $0.tasks[key] = nil }
        }
        // An answer is never ahead of its journal records: every action reduced so far is
        // committed first, within what is left of the intent's time (a second at least), so a
        // database that does not answer costs an intent its timeout, not twice that.
        let unkept = await commitJournal(within: max(ContinuousClock.now.duration(to: deadline), .seconds(1)))
        let after = screens
        let status: IntentOutcome.Status
        if let decided = IntentOutcome.Status(deciding: tasks.lazy.flatMap(\.diagnostics)) {
            status = decided
        } else if !settled {
            let running = tasks.flatMap { store.runningEffects(startedBy: $0) }.map { ValueRenderer.oneLine($0, presentation: .app) }
            // No effect yet: the intent's actions still wait behind others to be reduced.
            status = .timedOut(running: running.isEmpty ? actions.map { ValueRenderer.oneLine($0, presentation: .app) + " (not reduced yet)" } : running)
        } else if let unkept {
            status = .failed(reason: unkept)
        } else {
            status = .completed
        }
        return IntentOutcome(status: status, changed: after.changed(since: before), screens: after)
    }

    /// Commits the journal records of every action reduced so far (sharing the commit with
    /// every other waiter); `nil` when they are durable (or nothing is journaled), else why not,
    /// in the user's terms.
    nonisolated(nonsending) private func commitJournal(within timeout: Duration) async -> String? {
        guard let journal, recording.withLock({ $0 != nil }) else { return nil }
        do {
            try await journal.commit(timeout: timeout)
            return nil
        } catch {
            return "it is not kept yet: the journal could not be written (\(error.reason)); writing is retried, but quitting now would lose it"
        }
    }

    /// Cancels the work of every intent still being performed; returns how many effects were
    /// running.
    @discardableResult
    public func cancelRunningIntents() -> Int {
        let running = store.runningEffectCount
        let tasks = performing.withLock { $0.tasks.values.flatMap { $0 } }
        tasks.forEach { $0.cancel() }
        return running
    }

    // MARK: - Waiting

    /// Waits until no effect runs — moving the test clock on while every effect sleeps on it —
    /// or `timeout` passed; returns whether the app became idle (``runningEffects`` names what
    /// still runs).
    @discardableResult
    public func waitForEffects(timeout: Duration = .seconds(10)) async -> Bool {
        await settle(timeout: timeout, movingClock: true) { [store] in !store.hasRunningEffects }
    }

    /// Moves the test clock by `duration`, then waits until the effects it woke finished or sleep
    /// again (the clock does not move further); `false` if they still ran after `timeout`.
    @discardableResult
    public func advanceClock(by duration: Duration, timeout: Duration = .seconds(10)) async throws(AppHostError) -> Bool {
        guard let testClock else {
            throw AppHostError("the clock cannot be moved: this host runs on real time (it was opened without a test clock)")
        }
        await testClock.advance(by: duration)
        return await settle(timeout: timeout, movingClock: false) { [store] in !store.hasRunningEffects }
    }

    /// The actions whose effects are still running, rendered on one line each, oldest first.
    public var runningEffects: [String] {
        store.runningEffects.map { ValueRenderer.oneLine($0, presentation: .app) }
    }

    /// Waits for `tasks`' work, moving the test clock when everything sleeps on it.
    nonisolated(nonsending) private func settle(_ tasks: [StoreTask], timeout: Duration) async -> Bool {
        guard testClock != nil else {
            let deadline = ContinuousClock.now + timeout
            for task in tasks {
                guard await task.settle(timeout: max(.zero, ContinuousClock.now.duration(to: deadline))) else { return false }
            }
            return true
        }
        return await settle(timeout: timeout, movingClock: true, awaiting: tasks) { tasks.allSatisfy(\.isSettled) }
    }

    /// Waits until `isDone`, or until every running effect sleeps on the test clock — then moves
    /// the clock on (`movingClock`) or returns — or until `timeout`, or until the calling task is
    /// cancelled. Wakes on events only: an effect ending, a task starting to sleep on the clock,
    /// one of `tasks` settling.
    private func settle(timeout: Duration, movingClock: Bool, awaiting tasks: [StoreTask] = [], until isDone: @escaping @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        let effects = store.effectActivity
        while !Task.isCancelled {
            let effectsVersion = effects.version
            let sleepsVersion = testClock?.sleeps.version ?? 0
            if isDone() { return true }
            if let testClock {
                let sleepers = testClock.sleeperCount
                if sleepers > 0, store.runningEffectCount <= sleepers {
                    guard movingClock else { return true }
                    await testClock.run()
                    continue
                }
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let clock = testClock
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await effects.wait(after: effectsVersion) }
                if let clock { group.addTask { await clock.sleeps.wait(after: sleepsVersion) } }
                for task in tasks where !task.isSettled {
                    group.addTask { await task.settle(timeout: remaining) }
                }
                group.addTask { try? await Task.sleep(for: remaining) }
                await group.next()
                group.cancelAll()
            }
        }
        return false
    }

    // MARK: - Time travel

    /// Goes back one action (its effects are not undone, nor re-run later); `false` when there
    /// is nothing to undo or no history. The journal keeps the state travelled to, so a restart
    /// resumes where the user left off.
    @discardableResult
    public func undo() -> Bool { timeTravel.undo() }

    /// Goes forward one action undone; `false` when there is nothing to redo or no history.
    @discardableResult
    public func redo() -> Bool { timeTravel.redo() }

    /// Goes to the state after history entry `index` (see ``timeline``); the journal keeps it.
    public func jump(to index: Int) throws(Timeline<AppFeature.State, AppFeature.Action>.JumpError) {
        try timeTravel.jump(to: index)
    }

    // MARK: - Screens

    /// The screens now.
    public var screens: Screens { screenCache.screens }

    /// The screens now, then after each change, in a new stream per call: a front end that
    /// draws from it misses nothing between reading the screens and subscribing. A reader that
    /// falls behind gets the latest screens rather than every one in between (`bufferingPolicy`).
    public func changes(bufferingPolicy: AsyncStream<Screens>.Continuation.BufferingPolicy = .bufferingNewest(1)) -> AsyncStream<Screens> {
        AsyncStream(bufferingPolicy: bufferingPolicy) { continuation in
            let last = Locked<Screens?>(nil)
            // The store hands an observer its state when it subscribes, then after each change.
            let subscription = store.observe { state in
                let screens = Screens(state)
                let isNew = last.withLock { last -> Bool in
                    defer { last = screens }
                    return last.map { $0 != screens } ?? true
                }
                if isNew { continuation.yield(screens) }
            }
            continuation.onTermination = { _ in subscription.cancel() }
        }
    }

    // MARK: - Closing

    /// Lets running work finish (up to `timeout`), stops the app, stops recording, writes the
    /// rest of the journal and closes the database (its `-wal` and `-shm` files go away).
    /// Calling it again, from anywhere, waits for that closing and reports how it went.
    public func close(timeout: Duration = .seconds(5)) async throws(AppHostError) {
        // One closing, however many callers (a shell quitting and a signal's handler at once):
        // each waits for it and hears how it went.
        let closing = self.closing.withLock { closing in
            if let closing { return closing }
            let task = Task { () async -> Result<Void, AppHostError> in
                do throws(AppHostError) {
                    try await self.closeOnce(timeout: timeout)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            closing = task
            return task
        }
        try await closing.value.get()
    }

    deinit {
        externalWrites.cancel()
    }

    private func closeOnce(timeout: Duration) async throws(AppHostError) {
        externalWrites.cancel()
        await store.waitForEffects(timeout: timeout)
        store.shutDown()
        recording.withLock { subscription in
            subscription?.cancel()
            subscription = nil
        }
        timeline?.stopRecording()
        guard let database else { return }
        // On a thread of its own, and waited for a bounded time: a database call that is stuck
        // (a lock the file system never gives back) must not keep a program from ending.
        let (journal, finalState) = (journal, store.currentState)
        let closed = await Self.onOwnThread(atMost: Self.closingTimeout) { () -> Result<Void, AppHostError> in
            defer { database.close() }
            do throws(DatabaseError) {
                // Compacted to the state it ends with: a deleted note's text leaves the journal too.
                try journal?.close(finalState: finalState)
                return .success(())
            } catch {
                let unwritten = journal?.unwrittenCount ?? 0
                guard unwritten > 0 else { return .failure(AppHostError(error)) }
                return .failure(
                    AppHostError(
                        "the last \(unwritten) action\(unwritten == 1 ? "" : "s") could not be written to the journal, so a restart will not resume after \(unwritten == 1 ? "it" : "them"): \(error)"
                    ))
            }
        }
        guard let closed else {
            let unwritten = journal?.unwrittenCount ?? 0
            throw AppHostError(
                "the database did not answer within \(Self.closingTimeout) (a call to it is stuck), so it was left open"
                    + (unwritten > 0 ? ": the last \(unwritten) action\(unwritten == 1 ? "" : "s") may not be kept" : ""))
        }
        try closed.get()
    }

    /// How long closing waits for the database before it gives up on it.
    static let closingTimeout: Duration = .seconds(5)

    /// `work`'s result, run on a thread of its own; `nil` when it has not ended within `timeout`
    /// (it goes on, and its result is dropped).
    private static func onOwnThread<T: Sendable>(atMost timeout: Duration, _ work: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { continuation in
            let answered = Locked(false)
            let answer = { @Sendable (value: T?) in
                let first = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: value) }
            }
            Thread { answer(work()) }.start()
            let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { answer(nil) }
        }
    }

    /// The journal's events as lines for `warnings`.
    private static func reportingJournal(to warnings: @escaping @Sendable (String) -> Void) -> @Sendable (AppJournal.Event) -> Void {
        { event in
            switch event {
            case .writeFailed(let error, let unwritten):
                warnings(
                    "the journal cannot be written (\(error)); \(unwritten) action\(unwritten == 1 ? " waits" : "s wait") in memory and writing is retried, but quitting now would lose what it holds"
                )
            case .writeRecovered:
                warnings("the journal is written again; nothing waiting was lost")
            case .damaged(let what):
                warnings("the journal is damaged: \(what)")
            }
        }
    }
}

/// Why a host could not open or close its storage, in one line a shell can print as it is.
public struct AppHostError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message.
    public let description: String
    /// The database failure behind it, if any.
    public let database: DatabaseError?

    /// An error with `description`.
    public init(_ description: String) {
        self.description = description
        database = nil
    }

    /// The error for a database failure.
    public init(_ error: DatabaseError) {
        description = error.description
        database = error
    }
}
