import Synchronization

/// The machinery behind a ``RootStore``: the state, the serial queue of actions, middleware,
/// the reducer, notification of the store tree, and the effects.
///
/// **Middleware** runs in the `send` call, on the sender's thread, before the action enters the
/// store — as Redux middleware wraps `dispatch`. Each sender's actions pass it in order.
///
/// **Serial path.** There is no dedicated thread. A send that finds the store idle claims it
/// and becomes the *drainer*: it reduces its action, notifies observers, starts the effects,
/// then keeps reducing whatever was queued meanwhile until the queue is empty. A send that
/// finds the store busy (from another thread, or re-entrantly from an observer or an effect
/// that started inline) appends to the FIFO queue and returns. So actions are reduced one at a
/// time in arrival order, each sender's order is kept, and nothing is re-entrant.
///
/// **Locking.** One lock guards the state, the queue and the whole observation tree. It is held
/// while reducing (so readers never see half an action) and never while running user code that
/// could call back into the store: middleware, observers and effects run outside it.
///
/// **Cost.** An idle store with no observers, given an action without effects, takes the lock
/// once. The hot path is `@inlinable` so that it is specialised for the app's state and action
/// types: unspecialised generic code would spend most of its time looking up type metadata.
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
    struct ActionSubscriber {
        @usableFromInline let id: UInt64
        /// Called with the state after the action when some subscriber wants it, else `nil`.
        @usableFromInline let callback: @Sendable (Action, State?) -> Void
        /// Whether the subscriber wants the state after the next action (asked under the lock,
        /// so it must be quick and must not touch the store); `nil`: always.
        @usableFromInline let wantsState: (@Sendable () -> Bool)?
    }

    /// What one change owes to whom; gathered under the lock, delivered after it.
    @usableFromInline
    struct Notification {
        /// Whether anyone is handed the state: a state subscriber, or an action subscriber that
        /// wants it. The state itself is copied out only then, by the caller.
        @usableFromInline let handsOutState: Bool
        @usableFromInline let firstSubscriber: StateNode<State>.Subscriber?
        @usableFromInline let otherSubscribers: ContiguousArray<StateNode<State>.Subscriber>
        @usableFromInline let actionSubscribers: ContiguousArray<ActionSubscriber>

        @inlinable
        init(
            handsOutState: Bool, firstSubscriber: StateNode<State>.Subscriber?,
            otherSubscribers: ContiguousArray<StateNode<State>.Subscriber>,
            actionSubscribers: ContiguousArray<ActionSubscriber>
        ) {
            self.handsOutState = handsOutState
            self.firstSubscriber = firstSubscriber
            self.otherSubscribers = otherSubscribers
            self.actionSubscribers = actionSubscribers
        }

        /// Delivers the change `action` made (`nil`: a state put in place) when nobody is
        /// handed the state (so there are no state subscribers).
        @inlinable
        @inline(__always)
        func deliver(after action: Action?) {
            if !actionSubscribers.isEmpty, let action {
                for subscriber in actionSubscribers { subscriber.callback(action, nil) }
            }
        }

        /// Delivers the change `action` made (`nil`: a state put in place), handing `state`.
        @inlinable
        @inline(__always)
        func deliver(after action: Action?, handing state: State) {
            firstSubscriber?.callback(state)
            for subscriber in otherSubscribers { subscriber.callback(state) }
            if !actionSubscribers.isEmpty, let action {
                for subscriber in actionSubscribers { subscriber.callback(action, state) }
            }
        }
    }

    /// The mutable part, guarded by `lock`. It lives behind a pointer so that the hot path pays
    /// no dynamic exclusivity checks: the lock already guarantees exclusive access.
    @usableFromInline
    struct Core {
        @usableFromInline var state: State
        @usableFromInline var queue = RingBuffer<QueueItem>()
        @usableFromInline var mode = Mode.idle
        @usableFromInline var actionSubscribers: ContiguousArray<ActionSubscriber> = []
        /// The nodes whose observers the current burst owes a notification, settled when the
        /// queue runs empty; and the list being delivered (two, so neither is reallocated).
        @usableFromInline var owed: [Delivery] = []
        @usableFromInline var settling: [Delivery] = []

        @inlinable
        init(state: State) {
            self.state = state
        }
    }

    /// Who may reduce now: everyone (idle), the drainer only, or nobody new (shut down).
    @usableFromInline
    enum Mode {
        /// Nobody reduces: the next send reduces at once, on its own thread.
        case idle
        /// `drainer` reduces and drains the queue; other sends queue behind it.
        case draining(drainer: ThreadIdentity)
        /// Sends are dropped; `drainer`, if any, still drains what was queued before.
        case shutDown(drainer: ThreadIdentity?)

        /// Whether a send may reduce at once.
        @inlinable
        var isIdle: Bool {
            if case .idle = self { return true }
            return false
        }

        /// The thread draining the queue, if one is.
        @inlinable
        var drainer: ThreadIdentity? {
            switch self {
            case .idle: nil
            case .draining(let drainer): drainer
            case .shutDown(let drainer): drainer
            }
        }

        /// Whether the store was shut down.
        @inlinable
        var isShutDown: Bool {
            if case .shutDown = self { return true }
            return false
        }

        /// This thread takes the queue (the store being idle, or shut down with nobody draining).
        @inlinable
        mutating func startDraining() {
            self = isShutDown ? .shutDown(drainer: .current) : .draining(drainer: .current)
        }

        /// The drainer found the queue empty.
        @inlinable
        mutating func stopDraining() {
            self = isShutDown ? .shutDown(drainer: nil) : .idle
        }

        /// No send reduces from now on; a drainer at work finishes the queue.
        mutating func shutDown() {
            self = .shutDown(drainer: drainer)
        }
    }

    @usableFromInline let lock = Lock()
    /// The thread running the reducer while it runs (and holds `lock`), else 0: a send from the
    /// reducer itself must not wait for the lock its own thread holds.
    @usableFromInline let reducingThread = Atomic<UInt>(0)
    @usableFromInline let core: UnsafeMutablePointer<Core>
    /// Where `core`'s state lies, and room for a raw copy of its bytes taken before each action
    /// (for the scopes' skipping of untouched parts; see `StateNode.ChildUpdate`).
    @usableFromInline let stateBytes: UnsafeRawPointer
    @usableFromInline let stateBytesBefore: UnsafeMutableRawPointer
    @usableFromInline let rootNode = StateNode<State>()
    /// Whether the state is `Equatable`: its subscribers then hear only actions that changed it,
    /// as ReSwift's subscribers of an `Equatable` state do.
    @usableFromInline let skipsRepeats = State.self is any Equatable.Type
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

    /// The synchronous reducer, run on the sending thread; `nil` when an asynchronous one reduces
    /// in order, in a task reading `asyncMailbox`. Two stored optionals rather than one enum: the
    /// enum was copied through its value witness (a runtime call) on every action.
    @usableFromInline let syncReduce: (@Sendable (inout State, Action) -> Effect<Action>)?
    /// Where actions go for the asynchronous reducer; set exactly when `syncReduce` is `nil`.
    @usableFromInline let asyncMailbox: AsyncStream<(Action, Completion)>.Continuation?
    @usableFromInline let middleware: ContiguousArray<AnyMiddleware<State, Action>>
    @usableFromInline let middlewareContext: MiddlewareContext<State, Action>

    /// Inlinable so that the closures it gives the effect runner and the middleware call the
    /// store's send specialised for the app's types.
    @inlinable
    init(
        initialState: State,
        reducer: ReducerKind,
        middleware: [AnyMiddleware<State, Action>],
        diagnostics: Diagnostics,
        observation: ObservationDelivery = .reducingThread
    ) {
        let handle = RuntimeHandle<State, Action>()
        self.handle = handle
        core = .allocate(capacity: 1)
        core.initialize(to: Core(state: initialState))
        stateBytes = withUnsafeMutablePointer(to: &core.pointee.state) { UnsafeRawPointer($0) }
        stateBytesBefore = .allocate(byteCount: MemoryLayout<State>.size, alignment: MemoryLayout<State>.alignment)
        self.middleware = ContiguousArray(middleware)
        self.diagnostics = diagnostics
        effects = EffectRunner(
            deliver: { handle.runtime?.send($0, lineage: $1, checkReentrancy: false, returnsTask: false) },
            diagnostics: diagnostics
        )
        middlewareContext = MiddlewareContext(
            readState: { handle.runtime?.currentState },
            send: { handle.runtime?.send($0, checkReentrancy: false) }
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
                        completion.resolve([])
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
        stateBytesBefore.deallocate()
    }

    // MARK: - Reading

    /// The state, read under the lock.
    @inlinable
    var currentState: State {
        lock.lock()
        defer { lock.unlock() }
        return core.pointee.state
    }

    // MARK: - Sending

    /// Runs `action` through the middleware from `middlewareIndex` on, then reduces it now if
    /// the store is idle or queues it behind the action in progress.
    ///
    /// - Parameters:
    ///   - lineage: The work this action belongs to, when an effect sends it; `nil` for a new send.
    ///   - checkReentrancy: Whether a send from the draining thread is worth a diagnostic (it is
    ///     not for effects and middleware, which are expected to send while the store works).
    ///   - returnsTask: Whether the caller uses the returned task; effects do not, and their
    ///     actions then skip what only the task needs.
    @inlinable
    @discardableResult
    func send(
        _ action: Action, startingAt middlewareIndex: Int = 0, lineage: Lineage? = nil, checkReentrancy: Bool,
        returnsTask: Bool = true
    ) -> StoreTask {
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
                return resumeLater(operation, origin: action, atMiddleware: index + 1, lineage: lineage)
            }
        }
        return reduceOrEnqueue(action, lineage: lineage, checkReentrancy: checkReentrancy, returnsTask: returnsTask)
    }

    /// Reduces `action` at once if the store is idle, otherwise queues it.
    @inlinable
    func reduceOrEnqueue(_ action: Action, lineage: Lineage?, checkReentrancy: Bool, returnsTask: Bool = true) -> StoreTask {
        lock.lock()
        guard core.pointee.mode.isIdle, let reduce = syncReduce else {
            lock.unlock()
            return enqueue(action, lineage: lineage, checkReentrancy: checkReentrancy, returnsTask: returnsTask)
        }
        let keepsBytes = rememberBytesBefore()
        reducingThread.store(ThreadIdentity.current.raw, ordering: .relaxed)
        let effect = reduce(&core.pointee.state, action)
        reducingThread.store(0, ordering: .relaxed)
        let isObserved = rootNode.isObserved || !core.pointee.actionSubscribers.isEmpty
        if !isObserved && effect.isNone && core.pointee.queue.isEmpty {
            lock.unlock()
            return StoreTask()
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
            let lineage = lineage ?? Lineage(canceller: effects)
            let tasks = effects.start(effect, origin: action, lineage: lineage, collectsTasks: returnsTask)
            task = returnsTask ? StoreTask(tasks: tasks, lineage: lineage) : StoreTask()
        }
        drain()
        return task
    }

    /// Whether this thread is running the reducer (and so holds the lock): asked once per send.
    /// A relaxed load and `pthread_self`.
    @inlinable
    var isReducingOnThisThread: Bool {
        reducingThread.load(ordering: .relaxed) == ThreadIdentity.current.raw
    }

    /// A send made by the reducer while it reduces (on this thread, holding the lock). Waiting
    /// for the lock would hang for ever; the action is queued behind the current one instead,
    /// passes the middleware then, and is reported: reducers return effects, they do not send.
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
                send(action, checkReentrancy: false)
            })
        return StoreTask()
    }

    /// The contended path: the store is busy, shut down, or reduces asynchronously. Inlinable
    /// too, since effects that send while the store works take it for every action.
    @inlinable
    func enqueue(_ action: Action, lineage: Lineage?, checkReentrancy: Bool, returnsTask: Bool = true) -> StoreTask {
        lock.lock()
        if core.pointee.mode.isShutDown {
            lock.unlock()
            diagnostics.report(
                Diagnostic(
                    .sendAfterShutdown,
                    "\(ValueRenderer.oneLine(action)) was sent after the store shut down and was dropped"))
            return StoreTask()
        }
        let lineage = lineage ?? Lineage(canceller: effects)
        // Not idle and not shut down: another send is draining.
        let isDraining = !core.pointee.mode.isIdle
        if isDraining, !returnsTask, syncReduce != nil {
            lineage.enter()
            core.pointee.queue.append(.action(action, completion: nil, lineage: lineage))
            lock.unlock()
            return StoreTask()
        }
        let completion = Completion(lineage: lineage)
        if isDraining {
            core.pointee.queue.append(.action(action, completion: completion, lineage: lineage))
            let reentrant = checkReentrancy && core.pointee.mode.drainer == ThreadIdentity.current
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

    /// Runs a deferred middleware's operation off the store; its action continues with the next
    /// middleware.
    @usableFromInline
    func resumeLater(_ operation: @escaping @Sendable () async -> Action?, origin: Action, atMiddleware index: Int, lineage: Lineage?) -> StoreTask {
        let handle = handle
        let lineage = lineage ?? Lineage(canceller: effects)
        let task = effects.track(origin: origin, lineage: lineage) {
            guard let next = await operation(), let runtime = handle.runtime else { return }
            await runtime.send(next, startingAt: index, lineage: lineage, checkReentrancy: false).finish()
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

    /// Replaces the state without reducing an action or running effects (time travel); observers
    /// are notified, action observers are not.
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

    // MARK: - Action observers

    func observeActions(_ callback: @escaping @Sendable (Action, State) -> Void) -> StoreSubscription {
        observeActions(wantsState: nil) { action, state in
            // Never `nil`: this subscriber always wants the state.
            if let state { callback(action, state) }
        }
    }

    /// Calls `callback` after each action, with the state after it when `wantsState` said so
    /// beforehand (`nil`: always), else with `nil`: copying the whole state for a subscriber
    /// that seldom needs it costs more than the rest of a notification.
    func observeActions(wantsState: (@Sendable () -> Bool)?, _ callback: @escaping @Sendable (Action, State?) -> Void) -> StoreSubscription {
        let id = StateNode<State>.nextSubscriberID()
        lock.withLock { core.pointee.actionSubscribers.append(ActionSubscriber(id: id, callback: callback, wantsState: wantsState)) }
        let handle = handle
        return StoreSubscription {
            guard let runtime = handle.runtime else { return }
            runtime.lock.withLock { runtime.core.pointee.actionSubscribers.removeAll { $0.id == id } }
        }
    }

    // MARK: - The serial path

    /// Reduces a queued action, notifies, starts its effects. Called by the drainer.
    @inlinable
    func reduce(_ action: Action, completion: Completion?, lineage: Lineage) {
        guard let reduce = syncReduce else {
            asyncMailbox?.yield((action, completion ?? Completion(lineage: nil)))
            return
        }
        lock.lock()
        let keepsBytes = rememberBytesBefore()
        reducingThread.store(ThreadIdentity.current.raw, ordering: .relaxed)
        let effect = reduce(&core.pointee.state, action)
        reducingThread.store(0, ordering: .relaxed)
        let isObserved = rootNode.isObserved || !core.pointee.actionSubscribers.isEmpty
        unlockAndNotify(after: action, isObserved: isObserved, bytesKept: keepsBytes)
        let tasks = effect.isNone ? [] : effects.start(effect, origin: action, lineage: lineage, collectsTasks: completion != nil)
        if let completion {
            completion.resolve(tasks)
        } else {
            lineage.leave()
        }
    }

    /// Applies the state an async reducer computed for `action`, on the serial path.
    @usableFromInline
    func commit(_ newState: State, after action: Action, completion: Completion) {
        schedule { [self] in
            replaceState(newState, after: action)
            completion.resolve([])
        }
    }

    /// Puts `newState` in place and notifies; action observers hear about it only when an
    /// action produced it. Called on the serial path.
    private func replaceState(_ newState: State, after action: Action?) {
        lock.lock()
        core.pointee.state = newState
        unlockAndNotify(after: action, bytesKept: false)
    }

    /// Reduces what was queued while this thread was working, until the queue is empty; then
    /// delivers what the burst owes scoped stores and Observation (and goes on if that queued
    /// more). Owed notifications are also delivered before a job (a new observer must not hear a
    /// change its first value already had) and every `settlingInterval` actions of a long
    /// burst, so a stream of sends from elsewhere cannot starve a view.
    @inlinable
    func drain() {
        var reducedWhileOwing = 0
        while true {
            lock.lock()
            let item = core.pointee.queue.popFirst()
            if !core.pointee.owed.isEmpty {
                if case .action = item, reducedWhileOwing < Self.settlingInterval {
                    reducedWhileOwing += 1
                } else {
                    reducedWhileOwing = 0
                    settleOwed()
                    guard item != nil else { continue }
                    lock.lock()
                }
            }
            guard let item else {
                core.pointee.mode.stopDraining()
                lock.unlock()
                return
            }
            lock.unlock()
            switch item {
            case .action(let action, let completion, let lineage):
                reduce(action, completion: completion, lineage: lineage)
            case .job(let job):
                job()
            }
        }
    }

    /// How many actions a burst reduces at most before its owed notifications are delivered.
    @usableFromInline static var settlingInterval: Int { 256 }

    /// Settles the owed nodes (lock held), releases the lock, and delivers what they took.
    /// Called by the drainer only, which alone touches `settling`.
    @inlinable
    func settleOwed() {
        takeOwed()
        lock.unlock()
        deliverTaken()
    }

    /// Settles the owed nodes into `settling`. Lock held; the drainer's.
    @inlinable
    func takeOwed() {
        swap(&core.pointee.owed, &core.pointee.settling)
        for delivery in core.pointee.settling { delivery.node.settle() }
    }

    /// Delivers what `takeOwed()` settled. Lock released; the drainer's.
    @inlinable
    func deliverTaken() {
        for delivery in core.pointee.settling {
            delivery.node.tellRegistrarIfOwed()
            delivery.node.deliverSettled()
        }
        core.pointee.settling.removeAll(keepingCapacity: true)
    }

    /// Copies the state's bytes aside before an action, when scoped stores will compare
    /// against them; returns whether it did. Lock held.
    @inlinable
    func rememberBytesBefore() -> Bool {
        // `isObserved` first: one load on the path of a store nobody observes.
        guard rootNode.isObserved, !rootNode.children.isEmpty || (skipsRepeats && rootNode.firstSubscriber != nil) else { return false }
        stateBytesBefore.copyMemory(from: stateBytes, byteCount: MemoryLayout<State>.size)
        return true
    }

    /// Collects what `action`'s change owes to observers, releases the lock, then delivers it.
    /// Only what is handed out is copied: the state when someone takes it, never the
    /// notification itself (copies of the app's state and of a notification holding it were
    /// most of what an observed action moved in memory).
    /// With `settles`, the burst ends with this change: what it owes is settled and delivered too.
    @inlinable
    func unlockAndNotify(after action: Action?, bytesKept: Bool, settles: Bool = false) {
        let notification = collectNotification(after: action, bytesKept: bytesKept)
        let settling = settles && !core.pointee.owed.isEmpty
        if settling { takeOwed() }
        if notification.handsOutState {
            let state = core.pointee.state
            lock.unlock()
            notification.deliver(after: action, handing: state)
        } else {
            lock.unlock()
            notification.deliver(after: action)
        }
        if settling { deliverTaken() }
    }

    /// ``unlockAndNotify(after:bytesKept:settles:)`` when anyone observes; otherwise only unlocks.
    @inlinable
    func unlockAndNotify(after action: Action, isObserved: Bool, bytesKept: Bool, settles: Bool = false) {
        guard isObserved else {
            lock.unlock()
            return
        }
        unlockAndNotify(after: action, bytesKept: bytesKept, settles: settles)
    }

    /// What the change just made owes to observers; `bytesKept` when `rememberBytesBefore()`
    /// copied the state as it was before it. Lock held.
    @inlinable
    func collectNotification(after action: Action?, bytesKept: Bool = false) -> Notification {
        let node = rootNode
        if node.isTracked, !node.isOwed {
            node.isOwed = true
            core.pointee.owed.append(Delivery(node))
        }
        if !node.children.isEmpty {
            let before = bytesKept ? UnsafeRawPointer(stateBytesBefore) : nil
            for child in node.children {
                child.update(stateBytes, before, &core.pointee.owed)
            }
        }
        // An action that left the state's bytes as they were changed nothing: the subscribers
        // of an `Equatable` state do not hear of it.
        let subscribersHear =
            node.firstSubscriber != nil
            && !(skipsRepeats && bytesKept && sameBytes(stateBytesBefore, stateBytes, count: MemoryLayout<State>.size))
        // The state is copied out only when someone is handed it.
        let isStateHandedOut =
            subscribersHear
            || (action != nil && core.pointee.actionSubscribers.contains { $0.wantsState?() ?? true })
        return Notification(
            handsOutState: isStateHandedOut,
            firstSubscriber: subscribersHear ? node.firstSubscriber : nil,
            otherSubscribers: subscribersHear ? node.otherSubscribers : [],
            actionSubscribers: action == nil ? [] : core.pointee.actionSubscribers
        )
    }
}

/// How closures that may outlive a store (effects, deferred middleware, subscriptions) reach
/// its runtime: a strong reference that the ``RootStore`` cuts when it goes away.
@usableFromInline
final class RuntimeHandle<State: Sendable, Action: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    /// Guarded by `lock`, so not checked for exclusive access at run time as well.
    @exclusivity(unchecked) @usableFromInline var target: StoreRuntime<State, Action>?

    @usableFromInline
    init() {}

    /// The runtime, or `nil` once its store is gone. Inlinable: every action an effect sends
    /// reads it, and unspecialised it looked up generic metadata each time.
    @inlinable
    var runtime: StoreRuntime<State, Action>? {
        lock.lock()
        defer { lock.unlock() }
        return target
    }

    @usableFromInline
    func connect(_ runtime: StoreRuntime<State, Action>) {
        lock.withLock { target = runtime }
    }

    func disconnect() {
        lock.withLock { target = nil }
    }
}
