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

/// The one composition root every front end uses.
public final class AppHost: Sendable {
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
    /// Arms failures of client endpoints (`fail notes.create` in the console).
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
    /// Set once the database file was deleted or replaced at its path while open: nothing more can
    /// be kept, and a front end says so and ends.
    public var storageLost: DatabaseError? { opened.database?.lostFile }
    /// The screens that changed when the app resumed from the journal (a session that lost its
    /// token ends); empty in memory or on a fresh database.
    public var resumed: [Screen] { resumedScreens.withLock { $0 } }

    private let opened: OpenedStorage
    /// Whether a database was opened only to look (``Options/readOnly``): every intent is refused.
    private let isReadOnly: Bool
    private static let readOnlyRefusal = DatabaseError(.openedReadOnly, operation: "perform", message: "").reason
    private let recording: Locked<StoreSubscription?>
    private let runner: IntentRunner
    private let resumedScreens = Locked<[Screen]>([])
    /// The closing ``close(timeout:)`` started, which later calls wait for.
    private let closing = Locked<Task<Result<Void, AppHostError>, Never>?>(nil)
    private let screenCache: ScreenCache
    private let timeTravel: TimeTravel
    /// Listens for notes written by other writers (another process on the same database) and
    /// tells the app, which loads what changed; stopped on closing.
    private let externalWrites: Task<Void, Never>
    private let timeInput: TimeInput

    /// Opens `storage` and starts the app, signed out.
    public init(storage: Storage, loginStyle requestedStyle: LoginStyle? = nil, options: Options = Options()) async throws(AppHostError) {
        self.storage = storage
        testClock = options.testClock
        let failures = FailureInjector()
        self.failures = failures
        injectsFailures = options.injectsFailures
        let opened = try OpenedStorage.open(storage, requestedStyle: requestedStyle, options: options, failures: failures)
        let (environment, journal, initialState, replayed) = (opened.environment, opened.journal, opened.initialState, opened.replayed)
        self.opened = opened
        isReadOnly = options.readOnly && opened.database != nil
        self.environment = environment
        restoredActions = replayed
        loginStyle = initialState.loginStyle
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
        let recording = Locked(options.journal == .restoreAndRecord ? journal.map { $0.record(store) { $0.carriesSecret } } : nil)
        self.recording = recording
        let screenCache = screenCache
        let timeInput = TimeInput(store: store, now: environment.now)
        self.timeInput = timeInput
        runner = IntentRunner(
            store: store, testClock: options.testClock, journal: journal, isRecording: { recording.withLock { $0 != nil } },
            screens: { screenCache.screens }, clockMoved: { [isReadOnly] in if !isReadOnly { timeInput.clockMoved() } })
        externalWrites = Task { [notes = environment.notes] in
            for await _ in notes.externalWrites() {
                // Only a signed-in user has notes to update; the notice is journaled like any action.
                guard store.currentState.isSignedIn else { continue }
                store.send(.notes(.externalChangesNoticed))
            }
        }
        if journal != nil || (options.readOnly && options.journal == .restoreAndRecord) {
            // A session restored without its token (tokens are never saved) ends now.
            let outcome = await perform(actions: [.session(.restored)])
            resumedScreens.withLock { $0 = outcome.changed }
        }
        if options.testClock == nil && !isReadOnly { timeInput.followRealTime() }
    }

    // MARK: - Intents

    /// Runs `intent` and returns once everything it set in motion has finished.
    @discardableResult
    nonisolated(nonsending) public func perform(_ intent: Intent, timeout: Duration = .seconds(10), since earlier: Screens? = nil) async -> IntentOutcome {
        let before = earlier ?? screens
        if isReadOnly {
            // Every intent changes what the journal would keep, which it does not here.
            let now = screens
            return IntentOutcome(status: .rejected(reason: Self.readOnlyRefusal), changed: now.changed(since: before), screens: now)
        }
        switch intent.actions(in: { store.currentState }) {
        case .failure(let refusal):
            let now = screens
            return IntentOutcome(status: .rejected(reason: refusal.reason), changed: now.changed(since: before), screens: now)
        case .success(let actions):
            let based = earlier.map { shown in actions.map { $0.based(on: shown) } } ?? actions
            return await runner.perform(actions: based, timeout: timeout, before: before)
        }
    }

    /// Sends `actions` in order and waits as ``perform(_:timeout:since:)`` does.
    @discardableResult
    nonisolated(nonsending) public func perform(
        actions: [AppFeature.Action], timeout: Duration = .seconds(10),
        since earlier: Screens? = nil
    ) async -> IntentOutcome {
        await runner.perform(actions: actions, timeout: timeout, before: earlier ?? screens)
    }

    /// Cancels the work of every intent still being performed.
    @discardableResult
    public func cancelRunningIntents() -> Int { runner.cancelRunningIntents() }

    // MARK: - Waiting

    /// Waits until no effect runs — moving the test clock on while every effect sleeps on it.
    @discardableResult
    public func waitForEffects(timeout: Duration = .seconds(10)) async -> Bool {
        await runner.waitForEffects(timeout: timeout)
    }

    /// Moves the test clock by `duration`, then waits until the effects it woke finished or sleep
    /// again (the clock does not move further); `false` if they still ran after `timeout`.
    @discardableResult
    public func advanceClock(by duration: Duration, timeout: Duration = .seconds(10)) async throws(AppHostError) -> Bool {
        try await runner.advanceClock(by: duration, timeout: timeout)
    }

    /// The actions whose effects are still running, rendered on one line each, oldest first.
    public var runningEffects: [String] {
        store.runningEffects.map { ValueRenderer.oneLine($0, presentation: .app) }
    }

    // MARK: - Time travel

    /// Goes back one action (its effects are not undone, nor re-run later).
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

    /// The screens now, then after each change, in a new stream per call.
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

    /// Lets running work finish, stops the app, writes the rest of the journal and closes the
    /// database, all within `timeout`.
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
        timeInput.stop()
    }

    private func closeOnce(timeout: Duration) async throws(AppHostError) {
        let deadline = ContinuousClock.now + timeout
        externalWrites.cancel()
        timeInput.stop()
        await store.waitForEffects(timeout: timeout / 2)
        store.shutDown()
        recording.withLock { subscription in
            subscription?.cancel()
            subscription = nil
        }
        timeline?.stopRecording()
        try await opened.close(finalState: store.currentState, within: max(ContinuousClock.now.duration(to: deadline), .milliseconds(500)))
    }
}

extension AppFeature.Action {
    /// The action with an edit or a delete based on the version of the note `shown` lists, so a
    /// version stored since makes the change a conflict.
    fileprivate func based(on shown: Screens) -> Self {
        switch self {
        case .notes(.edited(let id, let text, nil)):
            guard let version = shown.notes.rows.note(id)?.version else { return self }
            return .notes(.edited(id, text, basedOn: version))
        case .notes(.deleteTapped(let id, nil)):
            guard let version = shown.notes.rows.note(id)?.version else { return self }
            return .notes(.deleteTapped(id, basedOn: version))
        default:
            return self
        }
    }
}
