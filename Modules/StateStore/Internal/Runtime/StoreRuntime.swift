import Synchronization

/// The machinery behind a ``RootStore``: the state, the serial queue of actions, middleware,
/// the reducer, notification of the store tree, and the effects.
@usableFromInline
final class StoreRuntime<State: Sendable, Action: Sendable>: @unchecked Sendable {
    @usableFromInline
    enum QueueItem {
        /// `completion` is `nil` when nobody holds a ``StoreTask`` for the action (an effect sent
        /// it); `lineage` then counts the action itself until its effects have started.
        case action(Action, completion: Completion?, lineage: Lineage)
        case job(@Sendable () -> Void)
    }

    @usableFromInline
    struct ActionSubscriber: ListedSubscriber {
        /// Called with the state after the action when some subscriber wants it, else `nil`.
        @usableFromInline let callback: @Sendable (Action, State?) -> Void
        /// Whether the subscriber wants the state after the next action (asked under the lock,
        /// so it must be quick and must not touch the store); `nil`: always.
        @usableFromInline let wantsState: (@Sendable () -> Bool)?

        @inlinable
        init(callback: @escaping @Sendable (Action, State?) -> Void, wantsState: (@Sendable () -> Bool)?) {
            self.callback = callback
            self.wantsState = wantsState
        }

        @inlinable
        static var gap: ActionSubscriber { ActionSubscriber(callback: { _, _ in }, wantsState: { false }) }
    }

    @usableFromInline let lock = Lock()
    /// The thread running the reducer while it runs (and holds `lock`), else 0: a send from the
    /// reducer itself must not wait for the lock its own thread holds.
    @usableFromInline let reducingThread = Atomic<UInt>(0)
    @usableFromInline let core: UnsafeMutablePointer<Core>
    /// Where `core`'s state lies, and room for the copy taken before each action.
    @usableFromInline let stateBytes: UnsafeRawPointer
    @usableFromInline let stateBefore: UnsafeMutablePointer<State>
    @usableFromInline let rootNode = StateNode<State>()
    /// `==` of the state, when it is `Equatable` and repeats are skipped: its subscribers then hear
    /// only actions that changed it, as ReSwift's subscribers of an `Equatable` state do.
    @usableFromInline let stateEquality: StateEquality<State>?
    @inlinable var skipsRepeats: Bool { stateEquality != nil }
    @usableFromInline let effects: EffectRunner<Action>
    @usableFromInline let diagnostics: Diagnostics
    /// How effects, middleware and subscriptions reach this runtime without a weak reference
    /// (which would make every retain of the runtime take the slow path).
    @usableFromInline let handle: RuntimeHandle<State, Action>

    /// The reducer a store is made with: synchronous (``Reducer``) or asynchronous (``AsyncReducer``).
    @usableFromInline
    enum ReducerKind {
        case sync(@Sendable (inout State, Action) -> Effect<Action>)
        case async(@Sendable (State, Action) async -> State)
    }

    /// The synchronous reducer; `nil` when an asynchronous one reads `asyncMailbox`.
    @usableFromInline let syncReduce: (@Sendable (inout State, Action) -> Effect<Action>)?
    /// Where actions go for the asynchronous reducer; set exactly when `syncReduce` is `nil`.
    @usableFromInline let asyncMailbox: AsyncStream<(Action, Completion)>.Continuation?
    @usableFromInline let middleware: ContiguousArray<AnyMiddleware<State, Action>>
    @usableFromInline let middlewareContext: MiddlewareContext<State, Action>

    /// Inlinable, so that the runtime's closures call the send specialised for the app's types.
    @inlinable
    init(
        initialState: State,
        reducer: ReducerKind,
        middleware: [AnyMiddleware<State, Action>],
        diagnostics: Diagnostics,
        observation: ObservationDelivery = .reducingThread,
        skippingRepeats: Bool = true
    ) {
        stateEquality = skippingRepeats ? StateEquality<State>() : nil
        let handle = RuntimeHandle<State, Action>()
        self.handle = handle
        // Sound: `core` is owned by the runtime alone (initialised here, freed in `deinit`) and
        // read or written only with `lock` held.
        core = .allocate(capacity: 1)
        core.initialize(to: Core(state: initialState))
        // Sound: `core` is allocated here and freed in `deinit`, so the state's address is fixed.
        stateBytes = withUnsafeMutablePointer(to: &core.pointee.state) { UnsafeRawPointer($0) }
        stateBefore = .allocate(capacity: 1)
        self.middleware = ContiguousArray(middleware)
        self.diagnostics = diagnostics
        effects = EffectRunner(
            deliver: { handle.runtime?.send($0, from: .effect($1)) },
            diagnostics: diagnostics
        )
        middlewareContext = MiddlewareContext(
            readState: { handle.runtime?.currentState },
            send: { handle.runtime?.send($0, from: .store) }
        )
        switch reducer {
        case .sync(let reduce):
            syncReduce = reduce
            asyncMailbox = nil
        case .async(let reduce):
            let (mailbox, continuation) = AsyncStream.makeStream(of: (Action, Completion).self)
            syncReduce = nil
            asyncMailbox = continuation
            // One task reduces strictly in order: the next action waits for the previous state.
            Task {
                for await (action, completion) in mailbox {
                    guard let runtime = handle.runtime else {
                        completion.resolve()
                        continue
                    }
                    let next = await reduce(runtime.currentState, action)
                    runtime.commit(next, after: action, completion: completion)
                }
            }
        }
        if case .mainActor = observation { rootNode.presenter = MainActorPresenter(treeLock: lock) }
        handle.connect(self)
    }

    deinit {
        effects.shutDown()
        asyncMailbox?.finish()
        core.deinitialize(count: 1)
        core.deallocate()
        stateBefore.deallocate()
    }

    // MARK: - Reading

    @inlinable
    var currentState: State {
        lock.lock()
        defer { lock.unlock() }
        return core.pointee.state
    }

    // MARK: - Sending

    /// Runs `action` through the middleware from `middlewareIndex` on, then reduces it now if
    /// the store is idle or queues it behind the action in progress.
    @inlinable
    @discardableResult
    func send(_ action: Action, startingAt middlewareIndex: Int = 0, from origin: SendOrigin) -> StoreTask {
        // Before middleware (which may read the state) and before the lock: both would wait for
        // the lock a reducer's thread holds.
        if isReducingOnThisThread { return sendFromReducer(action) }
        var action = action
        var index = middlewareIndex
        while index < middleware.count {
            switch middleware[index].handle(action, context: middlewareContext) {
            case .next(let next):
                action = next
                index += 1
            case .stop:
                return StoreTask()
            case .deferred(let operation):
                return resumeLater(operation, origin: action, atMiddleware: index + 1, lineage: origin.lineage)
            }
        }
        return reduceOrEnqueue(action, from: origin)
    }

    /// Reduces `action` at once if the store is idle, otherwise queues it.
    @inlinable
    func reduceOrEnqueue(_ action: Action, from origin: SendOrigin) -> StoreTask {
        lock.lock()
        guard core.pointee.mode.isIdle, let reduce = syncReduce else {
            lock.unlock()
            return enqueue(action, from: origin)
        }
        let keepsBytes = rememberBytesBefore()
        reducingThread.store(ThreadIdentity.current.raw, ordering: .relaxed)
        let effect = reduce(&core.pointee.state, action)
        reducingThread.store(0, ordering: .relaxed)
        // Kept bytes mean observers (and the copy is let go by the notification).
        let isObserved = keepsBytes || rootNode.isObserved || !core.pointee.actionSubscribers.isEmpty
        if !isObserved && core.pointee.queue.isEmpty {
            if effect.isNone {
                lock.unlock()
                return StoreTask()
            }
            // The whole effect is task-less work and nothing is queued or owed: it starts here,
            // without being kept, unless another start is under way.
            if case .run(let run) = effect.operation, let work = run.immediate {
                lock.unlock()
                return startAtOnce(work, of: run, effect: effect, action: action, from: origin)
            }
        }
        core.pointee.mode.startDraining()
        // An action without effects, with nothing queued behind it, is a whole burst: what it
        // owes scoped stores is settled under this lock and delivered with the rest.
        unlockAndNotify(
            after: action, isObserved: isObserved, bytesKept: keepsBytes,
            settles: effect.isNone && core.pointee.queue.isEmpty)
        let task: StoreTask
        if effect.isNone {
            task = StoreTask()
        } else {
            let lineage = origin.lineage ?? Lineage(canceller: effects)
            // Made only when the effect keeps a task for later, which the returned task waits for.
            var completion: Completion?
            effects.start(effect, origin: action, lineage: lineage, collector: &completion, collectsTasks: origin.usesTask)
            completion?.resolve()
            task = origin.usesTask ? StoreTask(completion, lineage: lineage) : StoreTask()
        }
        drain()
        return task
    }

    /// Starts `action`'s task-less `work` now, with the store idle; or, when another start is under
    /// way, keeps it behind what that starts.
    @inlinable
    @inline(never)
    func startAtOnce(
        _ work: @escaping @Sendable (Send<Action>) throws -> Void, of run: Effect<Action>.Run, effect: Effect<Action>, action: Action,
        from origin: SendOrigin
    ) -> StoreTask {
        let lineage = origin.lineage ?? Lineage(canceller: effects)
        if !effects.startAtOnce(work, of: run, origin: action, lineage: lineage) {
            var none: Completion?
            effects.start(effect, origin: action, lineage: lineage, collector: &none, collectsTasks: false)
            effects.startPending()
        }
        return origin.usesTask ? StoreTask(lineage: lineage) : StoreTask()
    }

    /// Whether this thread is running the reducer (and so holds the lock): asked once per send.
    @inlinable
    var isReducingOnThisThread: Bool {
        reducingThread.load(ordering: .relaxed) == ThreadIdentity.current.raw
    }

    /// A send made by the reducer while it reduces (on this thread, holding the lock).
    @usableFromInline
    func sendFromReducer(_ action: Action) -> StoreTask {
        // The lock is this thread's already, so the queue may be touched directly.
        core.pointee.queue.append(
            .job { [self] in
                diagnostics.report(
                    Diagnostic(
                        .reentrantSend,
                        "\(ValueRenderer.oneLine(action)) was sent from inside the reducer; it was queued behind the action being reduced (return .send(action) instead)"
                    ))
                send(action, from: .store)
            })
        return StoreTask()
    }

    /// The contended path: the store is busy, shut down, or reduces asynchronously.
    @inlinable
    func enqueue(_ action: Action, from origin: SendOrigin) -> StoreTask {
        lock.lock()
        if core.pointee.mode.isShutDown {
            lock.unlock()
            diagnostics.report(
                Diagnostic(
                    .sendAfterShutdown,
                    "\(ValueRenderer.oneLine(action)) was sent after the store shut down and was dropped"))
            return StoreTask()
        }
        let lineage = origin.lineage ?? Lineage(canceller: effects)
        // Not idle and not shut down: another send is draining.
        let isDraining = !core.pointee.mode.isIdle
        if isDraining, !origin.usesTask, syncReduce != nil {
            lineage.enter()
            core.pointee.queue.append(.action(action, completion: nil, lineage: lineage))
            lock.unlock()
            return StoreTask()
        }
        let completion = Completion(lineage: lineage)
        if isDraining {
            core.pointee.queue.append(.action(action, completion: completion, lineage: lineage))
            let reentrant = origin.isCaller && core.pointee.mode.drainer == ThreadIdentity.current
            lock.unlock()
            if reentrant {
                diagnostics.report(
                    Diagnostic(
                        .reentrantSend,
                        "\(ValueRenderer.oneLine(action)) was sent while the store was busy on the same thread (from an observer?); it was queued"))
            }
            return StoreTask(completion, lineage: lineage)
        }
        core.pointee.mode.startDraining()
        lock.unlock()
        reduce(action, completion: completion, lineage: lineage)
        drain()
        return StoreTask(completion, lineage: lineage)
    }

    /// Runs a deferred middleware's operation off the store, then the rest of the pipeline.
    @usableFromInline
    func resumeLater(_ operation: @escaping @Sendable () async -> Action?, origin: Action, atMiddleware index: Int, lineage: Lineage?) -> StoreTask {
        let handle = handle
        let lineage = lineage ?? Lineage(canceller: effects)
        let task = effects.track(origin: origin, lineage: lineage) {
            guard let next = await operation(), let runtime = handle.runtime else { return }
            await runtime.send(next, startingAt: index, from: .middleware(lineage)).finish()
        }
        return StoreTask(tasks: [task], lineage: lineage)
    }

    /// Runs `job` on the serial path: now if the store is idle, otherwise after what is queued.
    @usableFromInline
    func schedule(_ job: @escaping @Sendable () -> Void) {
        lock.lock()
        if core.pointee.mode.drainer != nil {
            core.pointee.queue.append(.job(job))
            lock.unlock()
            return
        }
        core.pointee.mode.startDraining()
        lock.unlock()
        job()
        drain()
    }

    /// Replaces the state without an action or effects (time travel); observers are notified.
    func restore(_ newState: State) {
        schedule { [self] in replaceState(newState, after: nil) }
    }

    /// Shuts the store down: running effects are cancelled, later sends are dropped.
    func shutDown() {
        lock.withLock { core.pointee.mode.shutDown() }
        effects.shutDown()
    }

    var hasShutDown: Bool {
        lock.withLock { core.pointee.mode.isShutDown }
    }
}
