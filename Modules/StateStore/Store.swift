import Observation

/// Holds a feature's state, reduces the actions sent to it, and tells observers what changed.
///
/// A store is either the ``RootStore`` an app builds once, or a store scoped from another to part
/// of its state (``scope(state:action:)-(_,(ChildAction)->Action)``, ``scope(_:id:action:)``). Front ends and view models
/// take a `Store<State, Action>` and work the same with either.
///
/// **Sending.** ``send(_:)`` may be called from any thread or task. Actions are reduced one at a
/// time in arrival order; a send made while an action is in progress is queued behind it, never
/// run re-entrantly.
///
/// **Observing.** Three ways, all of which see only whole actions:
/// - Observation: `store.state` is tracked by `withObservationTracking`, SwiftUI and the
///   `Observations` sequence.
/// - ``observe(_:)``: a callback with every new state, starting with the current one.
/// - ``states``: the same as an `AsyncStream`.
///
/// A root store's subscribers hear every action, as Redux subscribers hear every dispatch. A
/// scoped store, and Observation of any store, hear about a *settled burst*: an action and the
/// actions its synchronous effects fed back (`.send`, `.merge(.send(a), .send(b))`), or whatever
/// other threads queued meanwhile, are told once, with the value the burst ended on, and not at
/// all when it ended where it started: what a view wants. (A very long burst is told every 256
/// actions.) To hear only about real changes of the whole state, observe
/// `store.scope(state: \.self, action: { $0 })`; to hear every action, ``RootStore/observeActions(_:)``.
///
/// ```swift
/// let store = RootStore(initialState: Counter.State(), reducer: Counter())
/// let counter = store.scope(state: \.count, action: { $0 })
/// let subscription = store.observe { print("count:", $0.count) }
/// store.send(.incrementTapped)
/// ```
public class Store<State: Sendable, Action: Sendable>: @unchecked Sendable, Observable {
    // All mutable parts live in nodes guarded by `lock`, shared by every store of a tree.
    @usableFromInline let lock: Lock
    @usableFromInline let node: StateNode<State>
    /// The runtime, for a root store; scoped stores send through `sendAction`.
    @usableFromInline let runtime: StoreRuntime<State, Action>?
    @usableFromInline let readWhileLocked: @Sendable () -> State
    @usableFromInline let sendAction: @Sendable (Action) -> StoreTask
    @usableFromInline let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void
    @usableFromInline let diagnostics: Diagnostics
    private let detach: (@Sendable () -> Void)?

    @usableFromInline
    init(
        lock: Lock,
        node: StateNode<State>,
        runtime: StoreRuntime<State, Action>?,
        readWhileLocked: @escaping @Sendable () -> State,
        send: @escaping @Sendable (Action) -> StoreTask,
        schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
        diagnostics: Diagnostics,
        detach: (@Sendable () -> Void)?
    ) {
        self.lock = lock
        self.node = node
        self.runtime = runtime
        self.readWhileLocked = readWhileLocked
        self.sendAction = send
        self.schedule = schedule
        self.diagnostics = diagnostics
        self.detach = detach
    }

    deinit {
        detach?()
    }

    // MARK: - State

    /// The current state, tracked by Observation.
    ///
    /// Reading it inside `withObservationTracking` (or a SwiftUI body) registers for changes.
    /// The first read switches Observation notifications on for this store; code that only needs
    /// the value, such as a command-line front end, reads ``currentState`` instead. An
    /// `Equatable` state is reported changed only when an action changed it (a scoped store's
    /// always is); another kind of state after every action.
    ///
    /// In a tree made with ``ObservationDelivery/mainActor``, a scoped store's `state` is the
    /// value presented on the main actor: it moves there, with Observation's notification, once
    /// for the bursts settled since the last one (``currentState`` is the value now).
    public var state: State {
        node.accessObservedState()
        return lock.withLock {
            node.markTracked()
            return node.presented ?? readWhileLocked()
        }
    }

    /// The current state, without registering for Observation.
    @inlinable
    public var currentState: State {
        lock.lock()
        defer { lock.unlock() }
        return readWhileLocked()
    }

    /// The current state and its revision, read together without registering for Observation:
    /// equal revisions of one store mean an equal state (for scoped stores; a root store's
    /// revision does not move).
    @inlinable
    package var currentStateAndRevision: (state: State, revision: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        return (readWhileLocked(), node.revision)
    }

    /// The revision ``currentStateAndRevision`` would give now, without reading the state.
    @inlinable
    package var revision: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return node.revision
    }

    // MARK: - Sending

    /// Sends an action to the store.
    ///
    /// - Returns: A handle to await or cancel the effects the action starts.
    @inlinable
    @discardableResult
    public final func send(_ action: Action) -> StoreTask {
        if let runtime {
            return runtime.send(action, from: .caller)
        }
        return sendAction(action)
    }

    // MARK: - Observing

    /// Calls `onChange` with the current state, then with every new state, until the returned
    /// subscription is cancelled or released. The subscription keeps this store alive meanwhile.
    /// An `Equatable` state is new only when an action changed it (a scoped store's always is);
    /// another kind of state is handed over after every action.
    ///
    /// Calls are made in order, one at a time, on whichever thread is reducing; they must be
    /// quick and must not block. An action sent from `onChange` is queued behind the current one
    /// and reported as a ``Diagnostic/Kind/reentrantSend`` diagnostic, since feedback loops
    /// usually belong in the reducer.
    public final func observe(_ onChange: @escaping @Sendable (State) -> Void) -> StoreSubscription {
        let id = StateNode<State>.nextSubscriberID()
        let node = node
        let lock = lock
        let read = readWhileLocked
        let cancelled = CancellationFlag()
        schedule {
            let current: State? = lock.withLock {
                guard !cancelled.isSet else { return nil }
                node.addSubscriber(StateNode<State>.Subscriber(id: id, callback: onChange))
                return read()
            }
            if let current { onChange(current) }
        }
        // The subscription holds the store, so observing a scoped store nobody else keeps
        // (`store.scope(…).observe { … }`) goes on for as long as the subscription does.
        return StoreSubscription { [self] in
            lock.withLock {
                cancelled.isSet = true
                node.removeSubscriber(id: id)
            }
            withExtendedLifetime(self) {}
        }
    }

    /// Tells `subscriber` the current state, then every new state, for as long as it lives: the
    /// store holds it weakly, as ReSwift's `subscribe` does, so there is nothing to keep, and a
    /// subscriber that went away is forgotten at the next change. Subscribing it again replaces
    /// its subscription; ``unsubscribe(_:)`` ends it sooner. New states come as ``observe(_:)``
    /// hands them.
    public final func subscribe<Subscriber: StoreSubscriber>(_ subscriber: Subscriber) where Subscriber.State == State {
        let id = StateNode<State>.nextSubscriberID()
        let key = ObjectIdentifier(subscriber)
        let node = node
        let lock = lock
        let read = readWhileLocked
        let newState: @Sendable (State) -> Void = { [weak subscriber] state in
            guard let subscriber else {
                // Gone: called outside the lock, so it can be taken here.
                lock.withLock {
                    node.removeSubscriber(id: id)
                    if node.weakSubscribers[key] == id { node.weakSubscribers[key] = nil }
                }
                return
            }
            subscriber.newState(state)
        }
        lock.withLock {
            if let earlier = node.weakSubscribers[key] { node.removeSubscriber(id: earlier) }
            node.weakSubscribers[key] = id
        }
        schedule {
            let current: State? = lock.withLock {
                // Unsubscribed, or subscribed again, before this ran: the newer call decides.
                guard node.weakSubscribers[key] == id else { return nil }
                node.addSubscriber(StateNode<State>.Subscriber(id: id, callback: newState))
                return read()
            }
            if let current { newState(current) }
        }
    }

    /// Stops telling `subscriber` about new states (see ``subscribe(_:)``).
    public final func unsubscribe<Subscriber: StoreSubscriber>(_ subscriber: Subscriber) where Subscriber.State == State {
        let key = ObjectIdentifier(subscriber)
        let node = node
        lock.withLock {
            guard let id = node.weakSubscribers.removeValue(forKey: key) else { return }
            node.removeSubscriber(id: id)
        }
    }

    /// The current state, then every new state, as an asynchronous sequence.
    ///
    /// Each iteration gets its own stream that buffers every state until it is consumed; a
    /// consumer that only wants the latest can use ``states(bufferingPolicy:)``.
    public final var states: AsyncStream<State> {
        states(bufferingPolicy: .unbounded)
    }

    /// The current state, then every new state, buffered as `policy` says.
    public final func states(bufferingPolicy policy: AsyncStream<State>.Continuation.BufferingPolicy) -> AsyncStream<State> {
        AsyncStream(bufferingPolicy: policy) { continuation in
            let subscription = observe { continuation.yield($0) }
            continuation.onTermination = { _ in subscription.cancel() }
        }
    }

    // MARK: - Scoping

    /// A store for part of this store's state, whose observers hear only about that part.
    ///
    /// ```swift
    /// let counter = appStore.scope(state: \.counter, action: AppAction.counter)
    /// ```
    ///
    /// A scope of a stored property of a root store's state costs an action that leaves the
    /// property's bytes alone a few word compares: the part is neither copied out nor compared.
    /// (The scope holds the property's value meanwhile, so that an array in it is copied when
    /// changed rather than changed in place, where its bytes would stay the same.)
    /// Stores scoped to the same property share that work: a hundred views selecting one value
    /// cost one comparison per action, and hear of a change together.
    /// A scoped store nobody observes (no `observe`, no Observation read of `state`, no scope
    /// of it) derives its value when read rather than after every action.
    ///
    /// - Parameters:
    ///   - toChildState: Derives the child's state; it is compared with `==` after each action.
    ///   - embed: Wraps the child's actions into this store's actions.
    @inlinable
    public final func scope<ChildState: Sendable & Equatable, ChildAction: Sendable>(
        state toChildState: KeyPath<State, ChildState> & Sendable,
        action embed: @escaping @Sendable (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        let stored = ByteRange(toChildState)
        return scope(
            deriving: { $0[keyPath: toChildState] }, reads: stored.map { [$0] } ?? [], isStored: stored != nil, action: embed,
            sharedAs: stored == nil ? nil : CollectionKey(toChildState))
    }

    /// The store for part of this store's state whose actions go through `path`: the same store
    /// for as long as it lives, however often it is asked for (a view that scopes in its body
    /// gets the store it had), otherwise as the `scope(state:action:)` that takes a closure.
    ///
    /// ```swift
    /// let counter = appStore.scope(state: \.counter, action: AppAction.counterPath)
    /// ```
    ///
    /// Stores are told apart by `toChildState` and by the identity of `path`, which its copies
    /// share: make each path once (a `static let`), not in the call.
    public final func scope<ChildState: Sendable & Equatable, ChildAction: Sendable>(
        state toChildState: KeyPath<State, ChildState> & Sendable,
        action path: ActionPath<Action, ChildAction>
    ) -> Store<ChildState, ChildAction> {
        let key = ChildStoreKey(state: CollectionKey(toChildState), path: path.token)
        if let alive = lock.withLock({ node.childStores[key]?.store }) as? Store<ChildState, ChildAction> {
            return alive
        }
        let made = scope(state: toChildState, action: path.embed)
        return lock.withLock {
            // Another thread may have made it meanwhile: theirs is kept.
            if let alive = node.childStores[key]?.store as? Store<ChildState, ChildAction> { return alive }
            node.childStores = node.childStores.filter { $0.value.store != nil }
            node.childStores[key] = WeakStore(made)
            return made
        }
    }

    /// A store for a value derived from this store's state, whose observers hear only about
    /// changes of that value.
    ///
    /// Use it for a computed value: a closure is called directly, while a computed key path is
    /// applied by the runtime. For a stored property, ``scope(state:action:)-(_,(ChildAction)->Action)`` is cheaper.
    ///
    /// ```swift
    /// let summary = appStore.scope(deriving: { Summary(count: $0.counter.count) }, action: { $0 })
    /// ```
    ///
    /// - Parameters:
    ///   - toChildState: Derives the child's value from this store's state; it must be pure, and
    ///     its result is compared with `==` after each action.
    ///   - embed: Wraps the child's actions into this store's actions.
    @inlinable
    public final func scope<ChildState: Sendable & Equatable, ChildAction: Sendable>(
        deriving toChildState: @escaping @Sendable (State) -> ChildState,
        action embed: @escaping @Sendable (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        scope(deriving: toChildState, reads: [], isStored: false, action: embed)
    }

    /// A store for a value derived from the stored properties `inputs` of this store's state
    /// only: an action that leaves their bytes as they were is skipped without deriving the
    /// value or comparing it. Say every property the derivation reads, or its store misses
    /// changes; a computed property among `inputs` turns the skipping off.
    @inlinable
    package final func scope<ChildState: Sendable & Equatable, ChildAction: Sendable, each Input>(
        deriving toChildState: @escaping @Sendable (State) -> ChildState,
        reading inputs: repeat KeyPath<State, each Input>,
        action embed: @escaping @Sendable (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        var reads: [ByteRange] = []
        var isEveryInputStored = true
        for input in repeat each inputs {
            if let range = ByteRange(input) { reads.append(range) } else { isEveryInputStored = false }
        }
        return scope(deriving: toChildState, reads: isEveryInputStored ? reads : [], isStored: false, action: embed)
    }

    /// A scoped store derived from the bytes `reads` of this store's state (none: unknown);
    /// `isStored` when it is the stored property there. Stores made with the same `sharedAs`
    /// key (the key path of a stored property) share one node while any of them is alive.
    @inlinable
    final func scope<ChildState: Sendable & Equatable, ChildAction: Sendable>(
        deriving toChildState: @escaping @Sendable (State) -> ChildState,
        reads: [ByteRange],
        isStored: Bool,
        action embed: @escaping @Sendable (ChildAction) -> Action,
        sharedAs key: CollectionKey? = nil
    ) -> Store<ChildState, ChildAction> {
        let parent = node
        let read = readWhileLocked
        let lock = lock
        lock.lock()
        let scopeNode: ScopeNode<State, ChildState>
        if let key, let shared = parent.sharedScopes[key] as? ScopeNode<State, ChildState> {
            scopeNode = shared
        } else {
            // A root store's state stays where it is while the lock is held (and the runtime
            // lives as long as `read`, which the node keeps).
            scopeNode = ScopeNode(
                project: toChildState, readParent: read, parentAddress: runtime?.stateBytes, reads: reads, isStored: isStored)
            // A stored property's scope compares with the value it holds; a derivation with the
            // root's state from before the action.
            parent.addChild(scopeNode, readsBytesBefore: !reads.isEmpty && !isStored) { address, before, deliveries in
                scopeNode.update(from: address, bytesBefore: before, deliveries: &deliveries)
            }
            scopeNode.presenter = parent.presenter
            if let key { parent.sharedScopes[key] = scopeNode }
        }
        scopeNode.storeCount += 1
        lock.unlock()
        return Store<ChildState, ChildAction>(
            lock: lock,
            node: scopeNode,
            runtime: nil,
            readWhileLocked: { scopeNode.freshValue },
            send: { [self] in send(embed($0)) },
            schedule: schedule,
            diagnostics: diagnostics,
            detach: {
                lock.withLock {
                    scopeNode.storeCount -= 1
                    guard scopeNode.storeCount == 0 else { return }
                    parent.removeChild(scopeNode)
                    if let key, parent.sharedScopes[key] === scopeNode { parent.sharedScopes[key] = nil }
                }
            }
        )
    }

    /// A store for the element with `id` of an identified collection in this store's state.
    ///
    /// Its observers hear only about changes to that element, found without looking at the
    /// others. If the element is later removed, the store keeps its last value, and actions sent
    /// to it reach the reducer, which reports them as a missing child.
    ///
    /// - Returns: The store, or `nil` when no element has `id`.
    @inlinable
    public final func scope<Element: Identifiable & Sendable & Equatable, ElementAction: Sendable>(
        _ collection: KeyPath<State, IdentifiedArray<Element>> & Sendable,
        id: Element.ID,
        action embed: @escaping @Sendable (Element.ID, ElementAction) -> Action
    ) -> Store<Element, ElementAction>? {
        let parent = node
        let read = readWhileLocked
        let lock = lock
        let key = CollectionKey(collection)
        lock.lock()
        let state = read()
        guard let element = state[keyPath: collection][id: id] else {
            lock.unlock()
            return nil
        }
        let collectionNode: CollectionNode<State, Element>
        if let existing = parent.collections[key] as? CollectionNode<State, Element> {
            collectionNode = existing
        } else {
            collectionNode = CollectionNode(collection: collection, initialParent: state)
            parent.collections[key] = collectionNode
            parent.addChild(collectionNode) { address, _, deliveries in collectionNode.update(from: address, deliveries: &deliveries) }
        }
        let elementNode = ElementNode(element: element)
        elementNode.presenter = parent.presenter
        collectionNode.add(elementNode)
        lock.unlock()
        return Store<Element, ElementAction>(
            lock: lock,
            node: elementNode,
            runtime: nil,
            readWhileLocked: { elementNode.current },
            send: { [self] in send(embed(id, $0)) },
            schedule: schedule,
            diagnostics: diagnostics,
            detach: {
                lock.withLock {
                    collectionNode.remove(elementNode)
                    if collectionNode.isEmpty, parent.collections[key] === collectionNode {
                        parent.collections[key] = nil
                        parent.removeChild(collectionNode)
                    }
                }
            }
        )
    }
}

/// Keeps an observation alive; cancel it, or let it go, to stop the calls.
public final class StoreSubscription: Sendable, Hashable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
    }

    deinit {
        cancel()
    }

    /// Stops the observation. Calling it again does nothing.
    public func cancel() {
        let onCancel = onCancel.withLock { onCancel in
            defer { onCancel = nil }
            return onCancel
        }
        onCancel?()
    }

    /// Identity: each subscription equals only itself.
    public static func == (lhs: StoreSubscription, rhs: StoreSubscription) -> Bool {
        lhs === rhs
    }

    /// Hashes the subscription's identity, so subscriptions can be kept in a `Set`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

/// A flag guarded by the store tree's lock.
final class CancellationFlag: @unchecked Sendable {
    var isSet = false
}

/// What a child store made through an ``ActionPath`` is cached under.
struct ChildStoreKey: Hashable, Sendable {
    let state: CollectionKey
    /// Held, so that its address is not another path's while the entry lives.
    let path: ActionPathToken

    static func == (lhs: ChildStoreKey, rhs: ChildStoreKey) -> Bool {
        lhs.state == rhs.state && lhs.path === rhs.path
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(state)
        hasher.combine(ObjectIdentifier(path))
    }
}

/// A cached child store, held weakly: the cache does not keep it alive.
final class WeakStore: @unchecked Sendable {
    weak var store: AnyObject?

    init(_ store: AnyObject) {
        self.store = store
    }
}

/// An object that hears a store's state as ReSwift's subscribers do: the store holds it weakly
/// (``Store/subscribe(_:)``), so it needs no subscription kept and goes away when nothing else
/// holds it.
public protocol StoreSubscriber<State>: AnyObject, Sendable {
    /// The state it hears.
    associatedtype State: Sendable

    /// Called with the current state when subscribed, then with every new state.
    func newState(_ state: State)
}
