/// The store an app builds once: it owns the state, the reducer, the middleware and the effects.
public final class RootStore<State: Sendable, Action: Sendable>: Store<State, Action>, @unchecked Sendable {

    /// Creates a store that reduces with `reducer`; with `skipsRepeats` false, the subscribers of
    /// an `Equatable` state hear every action, as ReSwift's with `automaticallySkipsRepeats: false`.
    @inlinable
    public convenience init<R: Reducer>(
        initialState: State,
        reducer: R,
        diagnostics: Diagnostics = .standardError,
        observation: ObservationDelivery = .reducingThread,
        skipsRepeats: Bool = true,
        @MiddlewareBuilder<State, Action> middleware: () -> MiddlewarePipeline<State, Action> = { MiddlewarePipeline() }
    ) where R.State == State, R.Action == Action {
        self.init(
            runtime: StoreRuntime(
                initialState: initialState,
                reducer: .sync { reducer.reduce(into: &$0, action: $1) },
                middleware: middleware().middleware,
                diagnostics: diagnostics,
                observation: observation,
                skippingRepeats: skipsRepeats
            ))
    }

    /// Creates a store whose reducer is asynchronous (``AsyncReducer``); `skipsRepeats` as for a
    /// synchronous reducer.
    public convenience init<R: AsyncReducer>(
        initialState: State,
        asyncReducer reducer: R,
        diagnostics: Diagnostics = .standardError,
        observation: ObservationDelivery = .reducingThread,
        skipsRepeats: Bool = true,
        @MiddlewareBuilder<State, Action> middleware: () -> MiddlewarePipeline<State, Action> = { MiddlewarePipeline() }
    ) where R.State == State, R.Action == Action {
        self.init(
            runtime: StoreRuntime(
                initialState: initialState,
                reducer: .async { await reducer.reduce($0, $1) },
                middleware: middleware().middleware,
                diagnostics: diagnostics,
                observation: observation,
                skippingRepeats: skipsRepeats
            ))
    }

    private let root: StoreRuntime<State, Action>

    @usableFromInline
    init(runtime: StoreRuntime<State, Action>) {
        root = runtime
        super.init(
            lock: runtime.lock,
            node: runtime.rootNode,
            runtime: runtime,
            // Sound: called with the runtime's lock held, which guards `core`.
            readWhileLocked: { runtime.core.pointee.state },
            send: { runtime.send($0, from: .caller) },
            schedule: runtime.schedule,
            diagnostics: runtime.diagnostics,
            detach: nil
        )
    }

    deinit {
        // Effects and subscriptions reach the runtime through its handle; cutting it ends the
        // cycle, and shutting down cancels what is still running.
        root.shutDown()
        root.handle.disconnect()
    }

    // MARK: - Following actions

    /// Calls `onReduce` after each action is reduced, with the action (as the reducer saw it,
    /// after middleware) and the resulting state, until the subscription is cancelled.
    public func observeActions(_ onReduce: @escaping @Sendable (_ action: Action, _ state: State) -> Void) -> StoreSubscription {
        root.observeActions(onReduce)
    }

    /// ``observeActions(_:)`` for a subscriber that needs the state now and then: it gets it after
    /// an action when `wantsState` (asked under the store's lock) said so, else `nil`.
    @usableFromInline
    func observeActions(wantsState: @escaping @Sendable () -> Bool, _ onReduce: @escaping @Sendable (Action, State?) -> Void) -> StoreSubscription {
        root.observeActions(wantsState: wantsState, onReduce)
    }

    func restore(_ state: State) {
        root.restore(state)
    }

    /// Reduces an action on a state with this store's reducer and drops the effects it returns,
    /// as a timeline recomputes a past state; `nil` for an asynchronous reducer.
    @usableFromInline
    var replayer: (@Sendable (Action, State) -> State)? {
        guard let reduce = root.syncReduce else { return nil }
        return { action, state in
            var state = state
            _ = reduce(&state, action)
            return state
        }
    }

    // MARK: - Effects and lifetime

    /// The actions whose effects are still running, oldest first.
    public var runningEffects: [Action] {
        root.effects.runningOrigins
    }

    /// Whether any effect is running: ``runningEffects`` without building the list.
    public var hasRunningEffects: Bool {
        !root.effects.isIdle
    }

    /// The actions whose effects, started by the work `task` set in motion (see
    /// ``StoreTask/settle(timeout:)``), are still running, oldest first.
    public func runningEffects(startedBy task: StoreTask) -> [Action] {
        guard let lineage = task.lineage else { return [] }
        return root.effects.runningOrigins(in: lineage)
    }

    /// Waits until no effect is running.
    public func waitForEffects() async {
        await root.effects.waitUntilIdle()
    }

    /// Waits until no effect is running, or until `timeout` passed.
    @discardableResult
    public func waitForEffects(timeout: Duration) async -> Bool {
        if root.effects.isIdle { return true }
        return await root.effects.waitUntilIdle(timeout: timeout)
    }

    package var runningEffectCount: Int {
        root.effects.runningCount
    }

    package var effectActivity: ChangeSignal {
        root.effects.activity
    }

    /// Cancels every running effect and stops accepting actions.
    public func shutDown() {
        root.shutDown()
    }

    /// Whether ``shutDown()`` was called.
    public var isShutDown: Bool {
        root.hasShutDown
    }
}

/// Where a store tree tells Observation (`withObservationTracking`, SwiftUI) that state changed.
public enum ObservationDelivery: Sendable {
    /// On the thread that reduced the burst, at once: for readers that may run anywhere.
    case reducingThread
    /// On the main actor.
    case mainActor
}
