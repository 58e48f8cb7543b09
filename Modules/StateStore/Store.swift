import Observation

/// Holds a feature's state, reduces the actions sent to it, and tells observers what changed.
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
    public var state: State {
        lock.withLock {
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

    /// The current state and its revision, read together without registering for Observation: equal
    /// revisions of one scoped store mean an equal state.
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
    /// subscription is cancelled or released.
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

    /// Tells `subscriber` the current state, then every new state, for as long as it lives.
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
                    if node.branches?.weakSubscribers[key] == id { node.branches?.weakSubscribers[key] = nil }
                }
                return
            }
            subscriber.newState(state)
        }
        lock.withLock {
            let branches = node.madeBranches
            if let earlier = branches.weakSubscribers[key] { node.removeSubscriber(id: earlier) }
            branches.weakSubscribers[key] = id
        }
        schedule {
            let current: State? = lock.withLock {
                // Unsubscribed, or subscribed again, before this ran: the newer call decides.
                guard node.branches?.weakSubscribers[key] == id else { return nil }
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
            guard let id = node.branches?.weakSubscribers.removeValue(forKey: key) else { return }
            node.removeSubscriber(id: id)
        }
    }

    /// The current state, then every new state, as an asynchronous sequence.
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

    /// The store for part of this store's state whose actions go through `path`.
    public final func scope<ChildState: Sendable & Equatable, ChildAction: Sendable>(
        state toChildState: KeyPath<State, ChildState> & Sendable,
        action path: ActionPath<Action, ChildAction>
    ) -> Store<ChildState, ChildAction> {
        let key = ChildStoreKey(state: CollectionKey(toChildState), path: path.token)
        if let alive = lock.withLock({ node.branches?.childStores[key]?.store }) as? Store<ChildState, ChildAction> {
            return alive
        }
        let made = scope(state: toChildState, action: path.embed)
        return lock.withLock {
            // Another thread may have made it meanwhile: theirs is kept.
            let branches = node.madeBranches
            if let alive = branches.childStores[key]?.store as? Store<ChildState, ChildAction> { return alive }
            branches.childStores = branches.childStores.filter { $0.value.store != nil }
            branches.childStores[key] = WeakStore(made)
            return made
        }
    }

    /// A store for a value derived from this store's state, whose observers hear only about
    /// changes of that value.
    @inlinable
    public final func scope<ChildState: Sendable & Equatable, ChildAction: Sendable>(
        deriving toChildState: @escaping @Sendable (State) -> ChildState,
        action embed: @escaping @Sendable (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        scope(deriving: toChildState, reads: [], isStored: false, action: embed)
    }

    /// A store for a value derived from the stored properties `inputs` only: an action that leaves
    /// their bytes alone is skipped without deriving the value.
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

    /// A scoped store derived from the bytes `reads` (none: unknown) of this store's state.
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
        if let key, let shared = parent.branches?.sharedScopes[key] as? ScopeNode<State, ChildState> {
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
            if let key { parent.madeBranches.sharedScopes[key] = scopeNode }
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
                    if let key, parent.branches?.sharedScopes[key] === scopeNode { parent.branches?.sharedScopes[key] = nil }
                }
            }
        )
    }

    /// A store for the element with `id` of an identified collection in this store's state.
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
        if let existing = parent.branches?.collections[key] as? CollectionNode<State, Element> {
            collectionNode = existing
        } else {
            collectionNode = CollectionNode(collection: collection, initialParent: state)
            parent.madeBranches.collections[key] = collectionNode
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
                    if collectionNode.isEmpty, parent.branches?.collections[key] === collectionNode {
                        parent.branches?.collections[key] = nil
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

    /// Stops the observation.
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

/// An object that hears a store's state as ReSwift's subscribers do.
public protocol StoreSubscriber<State>: AnyObject, Sendable {
    /// The state it hears.
    associatedtype State: Sendable

    /// Called with the current state when subscribed, then with every new state.
    func newState(_ state: State)
}
