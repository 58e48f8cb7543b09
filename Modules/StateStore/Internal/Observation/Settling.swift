/// A node whose observers are owed a notification at the end of the current burst of actions.
@usableFromInline
class SettlingNode: @unchecked Sendable {
    /// Whether the node is listed as owed in the current burst.
    @exclusivity(unchecked) @usableFromInline final var isOwed = false
    /// Whether `settle` found Observation owed a change; the runtime tells it (where the tree
    /// says: here, or on the main actor through `presenter`).
    @exclusivity(unchecked) @usableFromInline final var settledTellsRegistrar = false
    /// Where Observation is told when the tree presents on the main actor.
    @exclusivity(unchecked) @usableFromInline final var presenter: MainActorPresenter?
    /// The Observation subject standing for the store's `state`, made at its first tracked read
    /// (lock held): most scoped stores are never read that way.
    @exclusivity(unchecked) @usableFromInline final var observation: StateObservation?

    // Closures rather than overridden methods: made in the subclasses' inlinable initializers,
    // they run code specialized for the app's state, where a vtable entry runs the generic code.

    /// Makes the value now the one presented to main-actor readers.
    @exclusivity(unchecked) @usableFromInline final var present: (SettlingNode) -> Void = { _ in }
    /// Takes what the burst owes the observers there are now, for `deliverSettled`.
    @exclusivity(unchecked) @usableFromInline final var settle: (SettlingNode) -> Void = { _ in }
    /// Delivers what `settle` took, then forgets it.
    @exclusivity(unchecked) @usableFromInline final var deliverSettled: (SettlingNode) -> Void = { _ in }

    @inlinable
    init() {}

    /// Registers a tracked read of the store's `state` with Observation (lock held).
    @inlinable
    final func accessObservedState() {
        if observation == nil { observation = StateObservation() }
        observation?.access()
    }

    @inlinable
    final func notifyRegistrar() {
        observation?.notifyChange()
    }

    /// Tells Observation what `settle` found owed: here, or on the main actor.
    @inlinable
    final func tellRegistrarIfOwed() {
        guard settledTellsRegistrar else { return }
        settledTellsRegistrar = false
        if let presenter {
            presenter.post(self)
        } else {
            notifyRegistrar()
        }
    }
}

/// Tells Observation of a store tree's changes on the main actor, once for however many bursts
/// happened since it last did (``ObservationDelivery/mainActor``).
@usableFromInline
final class MainActorPresenter: @unchecked Sendable {
    /// The tree's lock, under which presented values move.
    let treeLock: Lock
    private let lock = Lock()
    /// The nodes to tell, in the order their bursts settled; each once.
    private var pending: [SettlingNode] = []
    private var pendingIDs: Set<ObjectIdentifier> = []

    @usableFromInline
    init(treeLock: Lock) {
        self.treeLock = treeLock
    }

    /// Tells `node`'s observers on the main actor, soon.
    @usableFromInline
    func post(_ node: SettlingNode) {
        let schedules = lock.withLock { () -> Bool in
            guard pendingIDs.insert(ObjectIdentifier(node)).inserted else { return false }
            pending.append(node)
            return pending.count == 1
        }
        guard schedules else { return }
        Task { @MainActor in self.presentPending() }
    }

    /// On the main actor: each pending node's value moves, within Observation's notification.
    @MainActor
    private func presentPending() {
        let nodes = lock.withLock { () -> [SettlingNode] in
            defer {
                pending.removeAll()
                pendingIDs.removeAll()
            }
            return pending
        }
        for node in nodes {
            node.observation?.willChange()
            treeLock.withLock { node.present(node) }
            node.observation?.didChange()
        }
    }
}

/// A node listed as owed a notification at the end of the burst (see ``SettlingNode``).
@usableFromInline
struct Delivery {
    @usableFromInline let node: SettlingNode

    @inlinable
    init(_ node: SettlingNode) {
        self.node = node
    }
}
