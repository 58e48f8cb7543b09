import Persistence
import Reducers
import StateStore

/// Runs a host's intents until their work has settled: sends their actions, waits on events,
/// commits their journal records, and decides each outcome.
final class IntentRunner: Sendable {
    let store: RootStore<AppFeature.State, AppFeature.Action>
    let testClock: ManualClock?
    private let journal: Journal<AppFeature.State, AppFeature.Action>?
    /// Whether the journal still records (not once closing began).
    private let isRecording: @Sendable () -> Bool
    private let screens: @Sendable () -> Screens
    /// Tells the app the time after the test clock moved (``TimeInput/clockMoved()``).
    private let clockMoved: @Sendable () -> Void
    /// The unsettled work of the intents being performed, for ``cancelRunningIntents()``.
    private let performing = Locked<(nextKey: UInt64, tasks: [UInt64: [StoreTask]])>((0, [:]))

    init(
        store: RootStore<AppFeature.State, AppFeature.Action>, testClock: ManualClock?,
        journal: Journal<AppFeature.State, AppFeature.Action>?, isRecording: @escaping @Sendable () -> Bool,
        screens: @escaping @Sendable () -> Screens, clockMoved: @escaping @Sendable () -> Void
    ) {
        self.store = store
        self.testClock = testClock
        self.journal = journal
        self.isRecording = isRecording
        self.screens = screens
        self.clockMoved = clockMoved
    }

    /// Sends `actions` in order and returns once their work settled (or `timeout` passed) and is
    /// committed, measuring what changed against `before`.
    nonisolated(nonsending) func perform(actions: [AppFeature.Action], timeout: Duration, before: Screens) async -> IntentOutcome {
        // Read only with a journal, whose commit gets what is left of the timeout: in memory
        // nothing below needs the time (settling is given the timeout itself).
        let started = journal != nil ? ContinuousClock.now : nil
        let tasks = actions.map { store.send($0) }
        let unsettled = tasks.filter { !$0.isSettled }
        var settled = unsettled.isEmpty
        var committed: Result<Int, DatabaseError>?
        if !settled {
            let key = performing.withLock { performing in
                defer { performing.nextKey += 1 }
                performing.tasks[performing.nextKey] = unsettled
                return performing.nextKey
            }
            if timeout > .zero {
                if let journal, isRecording(), testClock == nil {
                    committed = await settledAndCommitted(unsettled, in: journal, timeout: timeout)
                    // Settled, though the commit may not have ended in time (it is waited for below).
                    settled = unsettled.allSatisfy(\.isSettled)
                } else {
                    settled = await settle(unsettled, timeout: timeout)
                }
            }
            performing.withLock { $0.tasks[key] = nil }
        }
        // An answer is never ahead of its journal records: every action reduced so far is
        // committed first, within what is left of the intent's time (a second at least), so a
        // database that does not answer costs an intent its timeout, not twice that.
        let unkept =
            if let committed { Self.unkept(committed) } else {
                await commitJournal(within: max(timeout - (started.map { $0.duration(to: .now) } ?? .zero), .seconds(1)))
            }
        let after = screens()
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

    /// Commits the journal records of every action reduced so far; `nil`, or why not.
    nonisolated(nonsending) private func commitJournal(within timeout: Duration) async -> String? {
        guard let journal, isRecording() else { return nil }
        do {
            try await journal.commit(timeout: timeout)
            return nil
        } catch {
            return Self.unkept(.failure(error))
        }
    }

    /// Why a commit left the intent's records unkept, in the user's terms; `nil` when it kept them.
    private static func unkept(_ commit: Result<Int, DatabaseError>) -> String? {
        guard case .failure(let error) = commit else { return nil }
        return "it is not kept yet: the journal could not be written (\(error.reason)); writing is retried, but quitting now would lose it"
    }

    /// Waits once for `tasks`' work to settle and for the commit of every action reduced by then;
    /// the commit runs where the work settles, so this task is woken once.
    nonisolated(nonsending) private func settledAndCommitted(
        _ tasks: [StoreTask], in journal: Journal<AppFeature.State, AppFeature.Action>, timeout: Duration
    ) async -> Result<Int, DatabaseError>? {
        let wait = Locked<(left: Int, committed: Result<Int, DatabaseError>?, waiter: CheckedContinuation<Void, Never>?)>((tasks.count, nil, nil))
        for task in tasks {
            task.whenSettled {
                guard
                    wait.withLock({ wait -> Bool in
                        wait.left -= 1
                        return wait.left == 0
                    })
                else { return }
                journal.commit { result in
                    wait.withLock { wait -> CheckedContinuation<Void, Never>? in
                        wait.committed = result
                        defer { wait.waiter = nil }
                        return wait.waiter
                    }?.resume()
                }
            }
        }
        await suspendAsWaiter(timeout: timeout) { waiter in
            wait.withLock { wait -> Bool in
                guard wait.committed == nil else { return false }
                wait.waiter = waiter
                return true
            }
        } remove: {
            wait.withLock { wait in
                defer { wait.waiter = nil }
                return wait.waiter
            }
        }
        return wait.withLock { $0.committed }
    }

    /// Cancels every intent still being performed; returns how many effects were running.
    func cancelRunningIntents() -> Int {
        let running = store.runningEffectCount
        let tasks = performing.withLock { $0.tasks.values.flatMap { $0 } }
        tasks.forEach { $0.cancel() }
        return running
    }

    /// Waits until no effect runs or `timeout` passed (moving the test clock while all sleep).
    func waitForEffects(timeout: Duration) async -> Bool {
        await settle(timeout: timeout, movingClock: true) { [store] in !store.hasRunningEffects }
    }

    /// Moves the test clock, then waits for the effects it woke; `false` if they ran on too long.
    func advanceClock(by duration: Duration, timeout: Duration) async throws(AppHostError) -> Bool {
        guard let testClock else {
            throw AppHostError("the clock cannot be moved: this host runs on real time (it was opened without a test clock)")
        }
        await testClock.advance(by: duration)
        clockMoved()
        return await settle(timeout: timeout, movingClock: false) { [store] in !store.hasRunningEffects }
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

    /// Waits until `isDone`, every running effect sleeps on the test clock (which `movingClock`
    /// moves on), `timeout` passes or the calling task is cancelled.
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
                    clockMoved()
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
}
