import Observation
import Synchronization

/// Who is interested in one store's state: subscribers, Observation, scoped stores.
@usableFromInline
class StateNode<Value: Sendable>: SettlingNode, @unchecked Sendable {
    @usableFromInline
    struct Subscriber: ListedSubscriber {
        @usableFromInline let id: UInt64
        @usableFromInline let callback: @Sendable (Value) -> Void

        @inlinable
        init(id: UInt64, callback: @escaping @Sendable (Value) -> Void) {
            self.id = id
            self.callback = callback
        }

        @inlinable
        static var gap: Subscriber { Subscriber(id: 0, callback: { _ in }) }
    }

    /// Updates one child from this node's new value, recording what it owes its observers.
    @usableFromInline
    typealias ChildUpdate = (_ now: UnsafeRawPointer, _ bytesBefore: UnsafeRawPointer?, inout [Delivery]) -> Void

    // The fields a change reads and writes come first, so that they share few cache lines.

    /// The first subscriber, kept inline: most scoped stores have exactly one.
    @exclusivity(unchecked) @usableFromInline private(set) final var firstSubscriber: Subscriber?
    /// Set once a tracked read of `state` happened; from then on Observation is notified.
    @exclusivity(unchecked) @usableFromInline private(set) final var isTracked = false
    /// Whether a change of the value has anything to do; kept current by the mutators below.
    @exclusivity(unchecked) @usableFromInline private(set) final var isObserved = false
    /// Moves on whenever the value may have changed (lock held): equal revisions of one node
    /// mean an equal value, so a reader can tell what changed without comparing values.
    @exclusivity(unchecked) @usableFromInline final var revision: UInt64 = 0
    /// Stores scoped from this one, by the identity of their node.
    @exclusivity(unchecked) @usableFromInline private(set) final var children: ContiguousArray<(identity: ObjectIdentifier, update: ChildUpdate)> = []
    /// The subscribers after the first, in the order they subscribed.
    @exclusivity(unchecked) @usableFromInline private(set) final var otherSubscribers = SubscriberList<Subscriber>()
    /// What `settle` took for delivery: the value and who hears it.
    @exclusivity(unchecked) @usableFromInline final var settledFirst: Subscriber?
    @exclusivity(unchecked) @usableFromInline final var settledOthers: ContiguousArray<SubscriberList<Subscriber>.Entry> = []
    @exclusivity(unchecked) @usableFromInline final var settledValue: Value?
    /// The value Observation readers on the main actor see, when the tree presents there: it
    /// changes on the main actor only, with the notification.
    @exclusivity(unchecked) @usableFromInline final var presented: Value?
    /// How the node's scoped stores and weak subscribers are found; made for the first of them.
    @exclusivity(unchecked) @usableFromInline final var branches: Branches?

    @inlinable
    override init() {
        super.init()
        // Sound: each closure is called with the node that holds it (see `SettlingNode`).
        settle = { unsafeDowncast($0, to: StateNode<Value>.self).settleRegistrar() }
        deliverSettled = { unsafeDowncast($0, to: StateNode<Value>.self).deliverTaken() }
    }

    /// The indexes a node keeps of what hangs off it, apart: most nodes (an element's, a
    /// leaf's) have none, and a change never reads them.
    @usableFromInline
    final class Branches {
        var childPositions: [ObjectIdentifier: Int] = [:]
        /// The children that compare with the bytes before a change (by identity): a root keeps
        /// a copy of its state before each action only while there are some.
        @usableFromInline var byteReadingChildIdentities: Set<ObjectIdentifier> = []
        /// The collection nodes among `children`, by key path, shared by one collection's elements.
        @usableFromInline var collections: [CollectionKey: AnyObject] = [:]
        /// The scope nodes of stored properties, by key path: stores of one property share one.
        @usableFromInline var sharedScopes: [CollectionKey: AnyObject] = [:]
        /// The child stores made through an `ActionPath`, while they live (see `Store.scope(state:action:)`).
        var childStores: [ChildStoreKey: WeakStore] = [:]
        /// The subscribers held weakly (`Store.subscribe(_:)`), by the object's identity.
        var weakSubscribers: [ObjectIdentifier: UInt64] = [:]

        @usableFromInline
        init() {}
    }

    /// The node's branches, made when first needed (lock held).
    @usableFromInline
    final var madeBranches: Branches {
        if let branches { return branches }
        let made = Branches()
        branches = made
        return made
    }

    /// Whether a child compares with the bytes before a change (see `Branches`).
    @inlinable
    final var hasByteReadingChildren: Bool {
        guard let branches else { return false }
        return !branches.byteReadingChildIdentities.isEmpty
    }

    /// Records that a change to `value` is owed to this node's observers (once per burst of
    /// actions, whatever the number of changes), and propagates it to the children.
    @inlinable
    final func changed(to value: Value, deliveries: inout [Delivery]) {
        revision &+= 1
        if !isOwed, firstSubscriber != nil || isTracked {
            isOwed = true
            deliveries.append(Delivery(self))
        }
        if !children.isEmpty {
            // Sound: the pointer is to `value`, alive for the whole closure; children only read it.
            withUnsafePointer(to: value) { address in
                for child in children { child.update(UnsafeRawPointer(address), nil, &deliveries) }
            }
        }
    }

    /// The root's settling: its subscribers heard every action, so only Observation is owed.
    @inlinable
    final func settleRegistrar() {
        isOwed = false
        settledTellsRegistrar = isTracked
    }

    /// Takes `value` for delivery to the observers there are now.
    @inlinable
    final func owe(_ value: Value) {
        settledTellsRegistrar = isTracked
        settledFirst = firstSubscriber
        settledOthers = otherSubscribers.entries
        if settledFirst != nil { settledValue = value }
    }

    /// Delivers what was taken by `owe(_:)` or `settleRegistrar()`, and forgets it.
    @inlinable
    final func deliverTaken() {
        guard let value = settledValue.take() else { return }
        let first = settledFirst.take()
        let others = settledOthers
        settledOthers = []
        first?.callback(value)
        for entry in others { entry.subscriber.callback(value) }
    }

    /// Brings up a value left stale while unobserved; called, lock held, before it is observed.
    @usableFromInline
    func refreshIfStale() {}

    @usableFromInline
    final func addSubscriber(_ subscriber: Subscriber) {
        refreshIfStale()
        if let first = firstSubscriber {
            if subscriber.id < first.id {
                // Subscribed first, though it arrived second (another thread's `observe`).
                otherSubscribers.insert(first, id: first.id)
                firstSubscriber = subscriber
            } else {
                otherSubscribers.insert(subscriber, id: subscriber.id)
            }
        } else {
            firstSubscriber = subscriber
        }
        isObserved = true
    }

    @usableFromInline
    final func removeSubscriber(id: UInt64) {
        if firstSubscriber?.id == id {
            firstSubscriber = otherSubscribers.removeFirst()?.subscriber
        } else {
            otherSubscribers.remove(id: id)
        }
        refreshObserved()
    }

    /// Registers a tracked read of `state` with Observation; from then on, changes tell it.
    @usableFromInline
    final func markTracked() {
        refreshIfStale()
        accessObservedState()
        isTracked = true
        isObserved = true
        // From its first tracked read, a presented value changes only on the main actor.
        if presenter != nil, presented == nil { present(self) }
    }

    /// Adds a child, or replaces its update; `readsBytesBefore` when it compares older bytes.
    @usableFromInline
    final func addChild(_ identity: AnyObject, readsBytesBefore: Bool = false, update: @escaping ChildUpdate) {
        refreshIfStale()
        let identity = ObjectIdentifier(identity)
        let branches = madeBranches
        if readsBytesBefore {
            branches.byteReadingChildIdentities.insert(identity)
        } else {
            branches.byteReadingChildIdentities.remove(identity)
        }
        if let position = branches.childPositions[identity] {
            children[position].update = update
        } else {
            branches.childPositions[identity] = children.count
            children.append((identity, update))
        }
        isObserved = true
    }

    @usableFromInline
    final func removeChild(_ identity: AnyObject) {
        let identity = ObjectIdentifier(identity)
        if let branches {
            branches.byteReadingChildIdentities.remove(identity)
            if let position = branches.childPositions.removeValue(forKey: identity) {
                // The last child takes the leaving one's place.
                let last = children.removeLast()
                if position < children.count {
                    children[position] = last
                    branches.childPositions[last.identity] = position
                }
            }
        }
        refreshObserved()
    }

    private func refreshObserved() {
        isObserved = firstSubscriber != nil || isTracked || !children.isEmpty
    }

    static func nextSubscriberID() -> UInt64 {
        subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
    }
}

private let subscriberIDs = Atomic<UInt64>(0)

/// What Observation tracks for one store's `state`.
@usableFromInline
final class StateObservation: Observable, Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
    private static let member: KeyPath<StateObservation, Void> & Sendable = \.state

    @usableFromInline
    init() {}

    /// The member Observation tracks; it carries no value itself.
    @usableFromInline
    var state: Void { () }

    @usableFromInline
    func access() {
        registrar.access(self, keyPath: Self.member)
    }

    @usableFromInline
    func notifyChange() {
        willChange()
        didChange()
    }

    func willChange() {
        registrar.willSet(self, keyPath: Self.member)
    }

    func didChange() {
        registrar.didSet(self, keyPath: Self.member)
    }
}
