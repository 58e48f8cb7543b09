/// The handle `send` returns.
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
    public func finish() async {
        await withTaskCancellationHandler {
            for task in tasks { await task.value }
            await completion?.finish()
        } onCancel: {
            cancel()
        }
    }

    /// Cancels what the action set in motion.
    public func cancel() {
        lineage?.cancel()
        tasks.forEach { $0.cancel() }
        completion?.cancel()
    }

    /// Waits until the action has been reduced, without waiting for its effects.
    package func reduced() async {
        await completion?.waitUntilResolved()
    }

    /// Waits until the work the action set in motion has settled.
    @discardableResult
    nonisolated(nonsending) public func settle(timeout: Duration = .seconds(10)) async -> Bool {
        guard let lineage, !lineage.isSettled else { return true }
        return await lineage.waitUntilSettled(timeout: timeout)
    }

    /// Runs `action` once the action's work has settled, before anyone waiting hears of it.
    package func whenSettled(_ action: @escaping @Sendable () -> Void) {
        guard let lineage else { return action() }
        lineage.whenSettled(action)
    }

    /// Whether the work the action set in motion has settled (see ``settle(timeout:)``).
    public var isSettled: Bool {
        lineage?.isSettled ?? true
    }

    /// The diagnostics that work raised so far.
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

    /// The action was reduced; resolves once the effects it kept for later have started too.
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
