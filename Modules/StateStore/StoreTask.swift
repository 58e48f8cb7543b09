/// The handle `send` returns: await it until every effect the action started has finished, or
/// cancel those effects.
///
/// ```swift
/// await store.send(.refreshTapped).finish()   // the refresh's effects are done
/// let search = store.send(.searchChanged("milk"))
/// search.cancel()                             // stop the search it started
/// ```
///
/// An action that started no effect returns a handle that is already finished, at no cost. If
/// the action was queued behind others, the handle covers the effects it starts once reduced.
public struct StoreTask: Sendable {
    @usableFromInline let completion: Completion?

    @inlinable
    init(_ completion: Completion? = nil) {
        self.completion = completion
    }

    @usableFromInline
    init(tasks: [Task<Void, Never>]) {
        completion = tasks.isEmpty ? nil : Completion(resolvedWith: tasks)
    }

    /// One handle for several sends: finishing waits for all of them, cancelling cancels all.
    public init(combining tasks: [StoreTask]) {
        let children = tasks.compactMap(\.completion)
        guard children.count > 1 else {
            self.init(children.first)
            return
        }
        let all = Task {
            await withTaskCancellationHandler {
                for child in children { await child.finish() }
            } onCancel: {
                for child in children { child.cancel() }
            }
        }
        self.init(Completion(resolvedWith: [all]))
    }

    /// Waits until the action has been reduced and every effect it started has finished.
    public func finish() async {
        await completion?.finish()
    }

    /// Cancels the effects the action started (or will start, if it is still queued).
    public func cancel() {
        completion?.cancel()
    }

    /// Waits until the action has been reduced (it may have been queued behind others), without
    /// waiting for its effects.
    package func reduced() async {
        await completion?.waitUntilResolved()
    }
}

/// The effects one action started, filled in by the store once the action was reduced.
@usableFromInline
final class Completion: Sendable {
    private struct State {
        var tasks: [Task<Void, Never>] = []
        var isResolved = false
        var isCancelled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    @usableFromInline
    init() {}

    init(resolvedWith tasks: [Task<Void, Never>]) {
        state.withLock {
            $0.tasks = tasks
            $0.isResolved = true
        }
    }

    /// Records the tasks the action started and releases anyone waiting for that.
    @usableFromInline
    func resolve(_ tasks: [Task<Void, Never>]) {
        let (waiters, cancelled) = state.withLock { state in
            state.tasks += tasks
            state.isResolved = true
            defer { state.waiters.removeAll() }
            return (state.waiters, state.isCancelled)
        }
        if cancelled { tasks.forEach { $0.cancel() } }
        waiters.forEach { $0.resume() }
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
