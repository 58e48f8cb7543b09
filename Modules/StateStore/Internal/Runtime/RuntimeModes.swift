import Synchronization

extension StoreRuntime {
    /// What one change owes to whom; gathered under the lock, delivered after it.
    @usableFromInline
    struct Notification {
        /// Whether anyone is handed the state: a state subscriber, or an action one that wants it.
        @usableFromInline let handsOutState: Bool
        @usableFromInline let firstSubscriber: StateNode<State>.Subscriber?
        @usableFromInline let otherSubscribers: ContiguousArray<SubscriberList<StateNode<State>.Subscriber>.Entry>
        @usableFromInline let actionSubscribers: ContiguousArray<SubscriberList<ActionSubscriber>.Entry>

        @inlinable
        init(
            handsOutState: Bool, firstSubscriber: StateNode<State>.Subscriber?,
            otherSubscribers: ContiguousArray<SubscriberList<StateNode<State>.Subscriber>.Entry>,
            actionSubscribers: ContiguousArray<SubscriberList<ActionSubscriber>.Entry>
        ) {
            self.handsOutState = handsOutState
            self.firstSubscriber = firstSubscriber
            self.otherSubscribers = otherSubscribers
            self.actionSubscribers = actionSubscribers
        }

        /// Delivers the change `action` made (`nil`: a state put in place) to those not handed it.
        @inlinable
        @inline(__always)
        func deliver(after action: Action?) {
            if !actionSubscribers.isEmpty, let action {
                for entry in actionSubscribers { entry.subscriber.callback(action, nil) }
            }
        }

        /// Delivers the change `action` made (`nil`: a state put in place), handing `state`.
        @inlinable
        @inline(__always)
        func deliver(after action: Action?, handing state: State) {
            firstSubscriber?.callback(state)
            for entry in otherSubscribers { entry.subscriber.callback(state) }
            if !actionSubscribers.isEmpty, let action {
                for entry in actionSubscribers { entry.subscriber.callback(action, state) }
            }
        }
    }

    /// The mutable part, guarded by `lock`.
    @usableFromInline
    struct Core {
        @usableFromInline var state: State
        @usableFromInline var queue = RingBuffer<QueueItem>()
        @usableFromInline var mode = Mode.idle
        @usableFromInline var actionSubscribers = SubscriberList<ActionSubscriber>()
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

        @inlinable
        var isIdle: Bool {
            if case .idle = self { return true }
            return false
        }

        @inlinable
        var drainer: ThreadIdentity? {
            switch self {
            case .idle: nil
            case .draining(let drainer): drainer
            case .shutDown(let drainer): drainer
            }
        }

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
}

/// Who sends an action to the runtime: what the send is part of, whether a send from the thread
/// that is reducing deserves a diagnostic, and whether anyone uses the returned task.
@usableFromInline
enum SendOrigin {
    /// A caller outside the store (a view, a test): new work, whose task is returned; a send
    /// from the thread that is busy reducing (an observer's) is reported.
    case caller
    /// The store's own machinery (middleware's `send`, a reducer's queued send): new work.
    case store
    /// An effect of the work `lineage` stands for: part of that work; nobody waits for the task.
    case effect(Lineage)
    /// A deferred middleware going on with the action of `lineage`, whose task it awaits.
    case middleware(Lineage)

    /// The work the action is part of; `nil` for new work.
    @inlinable
    var lineage: Lineage? {
        switch self {
        case .caller, .store: nil
        case .effect(let lineage), .middleware(let lineage): lineage
        }
    }

    /// Whether the caller uses the returned task (an effect's send skips what only it needs).
    @inlinable
    var usesTask: Bool {
        if case .effect = self { return false }
        return true
    }

    /// Whether a send from the draining thread is worth a diagnostic.
    @inlinable
    var isCaller: Bool {
        if case .caller = self { return true }
        return false
    }
}
