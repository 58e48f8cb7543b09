/// The handle `send` returns: await it until every effect the action started has finished, or
/// cancel those effects.
///
/// ```swift
/// await store.send(.queryChanged("milk")).finish() // the search's effects are done
/// let search = store.send(.queryChanged("oat"))
/// search.cancel() // stop the search it started
/// ```
///
/// An action that started no effect returns a handle that is already finished, at no cost. If
/// the action was queued behind others, the handle covers the effects it starts once reduced.
///
/// `finish()` covers the effects the action itself started, not the actions those effects send
/// back nor *their* effects: a sign-in whose response triggers loading the notes finishes before
/// the notes are loaded. To wait for all of that — what a front end needs before it reads the
/// screens — use ``settle(timeout:)``.
public struct StoreTask: Sendable {
    /// What the action started, when it was queued and is reduced later.
    @usableFromInline let completion: Completion?
    /// What the action started, when it was reduced at once (the usual case: no lock needed).
    @usableFromInline let tasks: [Task<Void, Never>]
    /// Everything the action set in motion, when it set anything in motion.
    @usableFromInline let lineage: Lineage?

    @inlinable
    init(_ completion: Completion? = nil, lineage: Lineage? = nil) {
        self.completion = completion
        self.tasks = []
        self.lineage = lineage
    }

    @inlinable
    init(tasks: [Task<Void, Never>], lineage: Lineage? = nil) {
        completion = nil
        self.tasks = tasks
        self.lineage = lineage
    }

    /// Whether there is anything to finish or cancel.
    private var isEmpty: Bool { completion == nil && tasks.isEmpty }

    /// One handle for several sends: finishing waits for all of them, cancelling cancels all.
    public init(combining tasks: [StoreTask]) {
        let children = tasks.filter { !$0.isEmpty }
        guard children.count > 1 else {
            self = StoreTask(completion: children.first?.completion, tasks: children.first?.tasks ?? [])
            return
        }
        let all = Task {
            await withTaskCancellationHandler {
                for child in children { await child.finish() }
            } onCancel: {
                for child in children { child.cancel() }
            }
        }
        self.init(tasks: [all])
    }

    private init(completion: Completion?, tasks: [Task<Void, Never>]) {
        self.completion = completion
        self.tasks = tasks
        self.lineage = nil
    }

    /// Waits until the action has been reduced and every effect it started has finished.
    ///
    /// Cancelling the task that waits cancels the work, as ``cancel()`` does: SwiftUI's
    /// `.task { await store.send(.onAppear).finish() }` stops what the view started when it goes.
    public func finish() async {
        await withTaskCancellationHandler {
            for task in tasks { await task.value }
            await completion?.finish()
        } onCancel: {
            cancel()
        }
    }

    /// Cancels what the action set in motion: the effects it started (or will start, if it is
    /// still queued), and those of every action they sent back, however deep, running or yet
    /// to start. What they send from now on is dropped.
    public func cancel() {
        lineage?.cancel()
        tasks.forEach { $0.cancel() }
        completion?.cancel()
    }

    /// Waits until the action has been reduced (it may have been queued behind others), without
    /// waiting for its effects.
    package func reduced() async {
        await completion?.waitUntilResolved()
    }

    /// Waits until the work the action set in motion has settled: it was reduced, its effects
    /// finished, and so did every action they sent back and every effect of those, however
    /// deep; returns `false` if `timeout` passed first (the work goes on; ``RootStore/runningEffects(startedBy:)``
    /// names what still runs). Effects of other sends are not waited for.
    ///
    /// ```swift
    /// let signIn = store.send(.login(.signInTapped))
    /// guard await signIn.settle(timeout: .seconds(10)) else { return } // notes loaded too
    /// ```
    @discardableResult
    nonisolated(nonsending) public func settle(timeout: Duration = .seconds(10)) async -> Bool {
        guard let lineage, !lineage.isSettled else { return true }
        return await lineage.waitUntilSettled(timeout: timeout)
    }

    /// Runs `action` once the work the action set in motion has settled (see
    /// ``settle(timeout:)``): now if it has, else on the thread where it settles, right as it
    /// does — for what must happen before anyone waiting hears of it (a commit of its records).
    package func whenSettled(_ action: @escaping @Sendable () -> Void) {
        guard let lineage else { return action() }
        lineage.whenSettled(action)
    }

    /// Whether the work the action set in motion has settled (see ``settle(timeout:)``).
    public var isSettled: Bool {
        lineage?.isSettled ?? true
    }

    /// The diagnostics that work raised so far — an ``Diagnostic/Kind/invalidTransition`` says
    /// the action, or one its effects sent, was rejected — in the order they were raised.
    /// Diagnostics of other sends are not included.
    public var diagnostics: [Diagnostic] {
        lineage?.diagnostics ?? []
    }
}

/// The tasks one action's effects started, complete once the action was reduced and every
/// effect it kept for later (``EffectRunner/startPending()``) has started.
@usableFromInline
final class Completion: Sendable {
    private struct State {
        var tasks: [Task<Void, Never>] = []
        /// Effects counted for this action that have not started yet.
        var unstarted = 0
        /// Whether the action was reduced (no more effects will be counted).
        var isReduced = false
        var isResolved = false
        var isCancelled = false
        var waiters: [CheckedContinuation<Void, Never>] = []

        /// Whether the action is now resolved: reduced, every counted effect started.
        mutating func resolvesNow() -> Bool {
            guard isReduced, unstarted == 0, !isResolved else { return false }
            isResolved = true
            return true
        }
    }

    private let state = Locked(State())
    /// The work this action belongs to; it counts this action until it is resolved.
    private let lineage: Lineage?

    @usableFromInline
    init(lineage: Lineage?) {
        self.lineage = lineage
        lineage?.enter()
    }

    /// Counts an effect of this action whose start was deferred.
    @usableFromInline
    func expectStart() {
        state.withLock { $0.unstarted += 1 }
    }

    /// An effect counted by ``expectStart()`` started (its task, if it has one) or was dropped.
    @usableFromInline
    func started(_ task: Task<Void, Never>?) {
        let (resolves, cancelled) = state.withLock { state in
            if let task { state.tasks.append(task) }
            state.unstarted -= 1
            return (state.resolvesNow(), state.isCancelled)
        }
        if cancelled { task?.cancel() }
        if resolves { announceResolved() }
    }

    /// The action was reduced; the completion resolves once the effects it kept for later
    /// have started too.
    @usableFromInline
    func resolve() {
        let resolves = state.withLock { state in
            state.isReduced = true
            return state.resolvesNow()
        }
        if resolves { announceResolved() }
    }

    private func announceResolved() {
        let waiters = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
        lineage?.leave()
    }

    func cancel() {
        let tasks = state.withLock { state in
            state.isCancelled = true
            return state.tasks
        }
        tasks.forEach { $0.cancel() }
    }

    func waitUntilResolved() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resolved = state.withLock { state in
                if !state.isResolved { state.waiters.append(continuation) }
                return state.isResolved
            }
            if resolved { continuation.resume() }
        }
    }

    func finish() async {
        await waitUntilResolved()
        let tasks = state.withLock { $0.tasks }
        for task in tasks { await task.value }
    }
}
