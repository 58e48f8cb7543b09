/// The machinery behind a ``RootStore``: the state, the serial queue of actions, middleware,
/// the reducer, notification of the store tree, and the effects.
///
/// **Serial path.** There is no dedicated thread. The first `send` that finds the store idle
/// claims it and becomes the *drainer*: it reduces its action, notifies observers, starts the
/// effects, then keeps reducing whatever was queued meanwhile until the queue is empty. A send
/// that finds the store busy (from another thread, or re-entrantly from an observer, a
/// middleware or an effect that started inline) appends to the FIFO queue and returns. So
/// actions are reduced one at a time in arrival order, each sender's order is kept, and
/// nothing is re-entrant.
///
/// **Locking.** One lock guards the state, the queue and the whole observation tree. It is held
/// while reducing (so readers never see half an action) and never while running user code that
/// could call back into the store: middleware, observers and effects run outside it.
///
/// **Cost.** An idle store with no observers and an action without effects takes the lock once.
final class StoreRuntime<State: Sendable, Action: Sendable>: @unchecked Sendable {
    enum Reduction: Sendable {
        case sync(@Sendable (inout State, Action) -> Effect<Action>)
        case async(@Sendable (State, Action) async -> State)
    }

    private enum QueueItem {
        case action(Action, middlewareIndex: Int, completion: Completion?)
        case job(@Sendable () -> Void)
    }

    private struct ActionSubscriber {
        let id: UInt64
        let callback: @Sendable (Action, State) -> Void
    }

    /// What one change owes to whom; gathered under the lock, delivered after it.
    private struct Notification {
        let state: State
        let action: Action?
        let subscribers: ContiguousArray<StateNode<State>.Subscriber>
        let notifyRegistrar: (@Sendable () -> Void)?
        let actionSubscribers: ContiguousArray<ActionSubscriber>
        let deliveries: [Delivery]

        func deliver() {
            notifyRegistrar?()
            for subscriber in subscribers { subscriber.callback(state) }
            if let action {
                for subscriber in actionSubscribers { subscriber.callback(action, state) }
            }
            for delivery in deliveries { delivery() }
        }
    }

    let lock = Lock()
    let rootNode = StateNode<State>()
    let effects: EffectRunner<Action>
    let diagnostics: Diagnostics

    // Guarded by `lock`.
    private var state: State
    private var queue = RingBuffer<QueueItem>()
    private var isDraining = false
    private var drainer: ThreadIdentity?
    private var isShutDown = false
    private var actionSubscribers: ContiguousArray<ActionSubscriber> = []

    private let reduction: Reduction
    private let middleware: [AnyMiddleware<State, Action>]
    private let middlewareContext: MiddlewareContext<State, Action>
    private let asyncMailbox: AsyncStream<(Action, Completion)>.Continuation?

    init(
        initialState: State,
        reduction: Reduction,
        middleware: [AnyMiddleware<State, Action>],
        diagnostics: Diagnostics
    ) {
        let reference = WeakReference<StoreRuntime>()
        state = initialState
        self.reduction = reduction
        self.middleware = middleware
        self.diagnostics = diagnostics
        effects = EffectRunner(
            deliver: { reference.value?.send($0, checkReentrancy: false) },
            diagnostics: diagnostics
        )
        middlewareContext = MiddlewareContext(
            readState: { reference.value?.currentState },
            send: { reference.value?.send($0, checkReentrancy: false) }
        )
        if case .async(let reduce) = reduction {
            let (mailbox, continuation) = AsyncStream.makeStream(of: (Action, Completion).self)
            asyncMailbox = continuation
            // One task reduces strictly in order: the next action waits for the previous state.
            Task {
                for await (action, completion) in mailbox {
                    guard let runtime = reference.value else {
                        completion.resolve([])
                        continue
                    }
                    let next = await reduce(runtime.currentState, action)
                    runtime.commit(next, after: action, completion: completion)
                }
            }
        } else {
            asyncMailbox = nil
        }
        reference.value = self
    }

    deinit {
        effects.shutDown()
        asyncMailbox?.finish()
    }

    // MARK: - Reading

    /// The state; call only while holding `lock`.
    var stateWhileLocked: State { state }

    /// The state, read under the lock.
    var currentState: State {
        lock.withLock { state }
    }

    // MARK: - Sending

    /// Reduces `action` now if the store is idle, or queues it behind the action in progress.
    ///
    /// - Parameters:
    ///   - middlewareIndex: The first middleware to run; a deferred middleware resumes after itself.
    ///   - checkReentrancy: Whether a send from the draining thread is worth a diagnostic (it is
    ///     not for effects and middleware, which are expected to send while the store works).
    @discardableResult
    func send(_ action: Action, startingAt middlewareIndex: Int = 0, checkReentrancy: Bool) -> StoreTask {
        lock.lock()
        if isShutDown {
            lock.unlock()
            diagnostics.report(Diagnostic(.sendAfterShutdown,
                "\(ValueRenderer.oneLine(action)) was sent after the store shut down and was dropped"))
            return StoreTask()
        }
        if isDraining {
            let completion = Completion()
            queue.append(.action(action, middlewareIndex: middlewareIndex, completion: completion))
            let reentrant = checkReentrancy && drainer == ThreadIdentity.current
            lock.unlock()
            if reentrant {
                diagnostics.report(Diagnostic(.reentrantSend,
                    "\(ValueRenderer.oneLine(action)) was sent while the store was busy on the same thread (from an observer?); it was queued"))
            }
            return StoreTask(completion)
        }
        isDraining = true
        drainer = ThreadIdentity.current

        if middlewareIndex >= middleware.count, case .sync(let reduce) = reduction {
            // Fast path: reduce inside this critical section.
            let effect = reduce(&state, action)
            let notification = collectNotification(after: action)
            if notification == nil && effect.isNone {
                isDraining = false
                drainer = nil
                lock.unlock()
                return StoreTask()
            }
            lock.unlock()
            notification?.deliver()
            let tasks = effect.isNone ? [] : effects.start(effect, origin: action)
            drain()
            return StoreTask(tasks: tasks)
        }

        lock.unlock()
        let task = process(action, startingAt: middlewareIndex, completion: nil)
        drain()
        return task
    }

    /// Runs `job` on the serial path: now if the store is idle, otherwise after what is queued.
    func schedule(_ job: @escaping @Sendable () -> Void) {
        lock.lock()
        if isDraining {
            queue.append(.job(job))
            lock.unlock()
            return
        }
        isDraining = true
        drainer = ThreadIdentity.current
        lock.unlock()
        job()
        drain()
    }

    /// Replaces the state without reducing an action or running effects (time travel); observers
    /// are notified, action observers are not.
    func restore(_ newState: State) {
        schedule { [self] in
            lock.lock()
            state = newState
            let notification = collectNotification(after: nil)
            lock.unlock()
            notification?.deliver()
        }
    }

    /// Shuts the store down: running effects are cancelled, later sends are dropped.
    func shutDown() {
        lock.withLock { isShutDown = true }
        effects.shutDown()
    }

    var hasShutDown: Bool {
        lock.withLock { isShutDown }
    }

    // MARK: - Action observers

    func observeActions(_ callback: @escaping @Sendable (Action, State) -> Void) -> StoreSubscription {
        let id = StateNode<State>.nextSubscriberID()
        lock.withLock { actionSubscribers.append(ActionSubscriber(id: id, callback: callback)) }
        return StoreSubscription { [weak self] in
            guard let self else { return }
            lock.withLock { actionSubscribers.removeAll { $0.id == id } }
        }
    }

    // MARK: - The serial path

    /// Runs middleware from `index`, then the reducer, then the effects. Called by the drainer.
    private func process(_ action: Action, startingAt index: Int, completion: Completion?) -> StoreTask {
        var action = action
        var index = index
        while index < middleware.count {
            switch middleware[index].handle(action, context: middlewareContext) {
            case .next(let next):
                action = next
                index += 1
            case .stop:
                completion?.resolve([])
                return StoreTask(completion)
            case .deferred(let operation):
                let resumeAt = index + 1
                let task = effects.track(origin: action, startInline: false) { [weak self] in
                    guard let next = await operation(), let self else { return }
                    await send(next, startingAt: resumeAt, checkReentrancy: false).finish()
                }
                let completion = completion ?? Completion()
                completion.resolve([task])
                return StoreTask(completion)
            }
        }

        switch reduction {
        case .sync(let reduce):
            lock.lock()
            let effect = reduce(&state, action)
            let notification = collectNotification(after: action)
            lock.unlock()
            notification?.deliver()
            let tasks = effect.isNone ? [] : effects.start(effect, origin: action)
            if let completion {
                completion.resolve(tasks)
                return StoreTask(completion)
            }
            return StoreTask(tasks: tasks)
        case .async:
            let completion = completion ?? Completion()
            asyncMailbox?.yield((action, completion))
            return StoreTask(completion)
        }
    }

    /// Applies the state an async reducer computed for `action`, on the serial path.
    private func commit(_ newState: State, after action: Action, completion: Completion) {
        schedule { [self] in
            lock.lock()
            state = newState
            let notification = collectNotification(after: action)
            lock.unlock()
            notification?.deliver()
            completion.resolve([])
        }
    }

    /// Reduces what was queued while this thread was working, until the queue is empty.
    private func drain() {
        while true {
            lock.lock()
            guard let item = queue.popFirst() else {
                isDraining = false
                drainer = nil
                lock.unlock()
                return
            }
            lock.unlock()
            switch item {
            case .action(let action, let middlewareIndex, let completion):
                _ = process(action, startingAt: middlewareIndex, completion: completion)
            case .job(let job):
                job()
            }
        }
    }

    /// What the change just made owes to observers; `nil` when nobody listens. Lock held.
    private func collectNotification(after action: Action?) -> Notification? {
        let node = rootNode
        let hasActionSubscribers = action != nil && !actionSubscribers.isEmpty
        guard node.isObserved || hasActionSubscribers else { return nil }
        var deliveries: [Delivery] = []
        for child in node.children.values {
            child.update(from: state, deliveries: &deliveries)
        }
        return Notification(
            state: state,
            action: action,
            subscribers: node.subscribers,
            notifyRegistrar: node.isTracked ? node.notifyRegistrar : nil,
            actionSubscribers: hasActionSubscribers ? actionSubscribers : [],
            deliveries: deliveries
        )
    }
}

/// A weak reference that closures created during `init` can hold before `self` exists.
final class WeakReference<Value: AnyObject>: @unchecked Sendable {
    // Written once, at the end of the owner's init, before the owner is shared.
    weak var value: Value?

    init() {}
}
