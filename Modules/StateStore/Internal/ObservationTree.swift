import Observation
import Synchronization

/// Who is interested in one store's state: its subscribers, whether Observation tracks it, and
/// the stores scoped from it.
///
/// Every node of a store tree is guarded by the root runtime's lock. After each action the
/// runtime walks the tree from the root; a scoped node compares its part of the state with the
/// value it last published and only when that changed notifies its own subscribers and looks
/// at its children. Element scopes of an ``IdentifiedArray`` are found through the collection's
/// change log, so an action that changes one element of ten thousand visits one node.
///
/// Children are stored as closures made where the child store is created (`Store.scope`,
/// which is inlinable), so the comparison code is specialised for the concrete types.
///
/// The node owns its store's Observation subject: `Store.state` reports access through it and
/// a change notifies it. Nothing refers to a store weakly, which keeps retains of stores on the
/// fast path. Every `var` is guarded by the tree's lock, so the
/// runtime's exclusivity checks are switched off for them.
@usableFromInline
class StateNode<Value: Sendable>: SettlingNode, @unchecked Sendable {
    @usableFromInline
    struct Subscriber {
        @usableFromInline let id: UInt64
        @usableFromInline let callback: @Sendable (Value) -> Void

        @inlinable
        init(id: UInt64, callback: @escaping @Sendable (Value) -> Void) {
            self.id = id
            self.callback = callback
        }
    }

    /// Updates one child from this node's new value, given by its address, recording what it
    /// owes to its observers. An address, not the value: a closure stored here is called
    /// through a generic signature, and a large state passed by value would be copied on the
    /// way to each child. The second address, when there is one, holds the value's bytes from
    /// before the change (the runtime keeps them for the root state): scopes of a stored
    /// property compare their bytes there, since a part an action did not touch keeps its bytes.
    @usableFromInline
    typealias ChildUpdate = (_ now: UnsafeRawPointer, _ bytesBefore: UnsafeRawPointer?, inout [Delivery]) -> Void

    /// The first subscriber, kept inline: most scoped stores have exactly one.
    @exclusivity(unchecked) @usableFromInline private(set) var firstSubscriber: Subscriber?
    @exclusivity(unchecked) @usableFromInline private(set) var otherSubscribers: ContiguousArray<Subscriber> = []
    /// Set once a tracked read of `state` happened; from then on Observation is notified.
    @exclusivity(unchecked) @usableFromInline private(set) var isTracked = false
    /// Stores scoped from this one, by the identity of their node.
    /// In an array, walked after every action (faster than a dictionary's values), with each
    /// one's position by identity so that a scope leaves in O(1).
    @exclusivity(unchecked) @usableFromInline private(set) var children: ContiguousArray<(identity: ObjectIdentifier, update: ChildUpdate)> = []
    @exclusivity(unchecked) @usableFromInline private(set) var childPositions: [ObjectIdentifier: Int] = [:]
    /// The collection nodes among `children`, by the key path of their collection, so element
    /// stores of one collection share a node.
    @exclusivity(unchecked) @usableFromInline var collections: [CollectionKey: AnyObject] = [:]
    /// The scope nodes of stored properties, by key path, so stores scoped to one property
    /// share a node (and its work after each action).
    @exclusivity(unchecked) @usableFromInline var sharedScopes: [CollectionKey: AnyObject] = [:]
    /// The child stores made through an `ActionPath`, while they live (see `Store.scope(state:action:)`).
    @exclusivity(unchecked) var childStores: [ChildStoreKey: WeakStore] = [:]
    /// Whether a change of the value has anything to do; kept current by the mutators below.
    @exclusivity(unchecked) @usableFromInline private(set) var isObserved = false
    /// Moves on whenever the value may have changed (lock held): equal revisions of one node
    /// mean an equal value, so a reader can tell what changed without comparing values.
    @exclusivity(unchecked) @usableFromInline final var revision: UInt64 = 0
    /// What `settle` took for delivery: the value and who hears it. Written with the lock held
    /// and read after it, by the drainer only.
    @exclusivity(unchecked) @usableFromInline final var settledValue: Value?
    @exclusivity(unchecked) @usableFromInline final var settledFirst: Subscriber?
    @exclusivity(unchecked) @usableFromInline final var settledOthers: ContiguousArray<Subscriber> = []
    /// The value Observation readers on the main actor see, when the tree presents there
    /// (``ObservationDelivery/mainActor``): it changes on the main actor only, with the
    /// notification. `nil` otherwise (readers see the value now).
    @exclusivity(unchecked) @usableFromInline final var presented: Value?

    @inlinable
    override init() {
        super.init()
        // Unowned: the node owns the closures.
        settle = { [unowned(unsafe) self] in settleRegistrar() }
        deliverSettled = { [unowned(unsafe) self] in deliverTaken() }
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
            withUnsafePointer(to: value) { address in
                for child in children { child.update(UnsafeRawPointer(address), nil, &deliveries) }
            }
        }
    }

    /// The root's settling: its subscribers heard every action already, so only Observation
    /// is owed a change.
    @inlinable
    final func settleRegistrar() {
        isOwed = false
        settledTellsRegistrar = isTracked
    }

    /// Takes `value` for delivery to the observers there are now. Lock held.
    @inlinable
    final func owe(_ value: Value) {
        settledTellsRegistrar = isTracked
        settledFirst = firstSubscriber
        settledOthers = otherSubscribers
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
        for subscriber in others { subscriber.callback(value) }
    }

    /// Brings up to date a value left stale while nobody observed it; called, lock held,
    /// before the node gets an observer. Only scoped nodes go stale.
    @usableFromInline
    func refreshIfStale() {}

    @usableFromInline
    final func addSubscriber(_ subscriber: Subscriber) {
        refreshIfStale()
        if firstSubscriber == nil {
            firstSubscriber = subscriber
        } else {
            otherSubscribers.append(subscriber)
        }
        isObserved = true
    }

    @usableFromInline
    final func removeSubscriber(id: UInt64) {
        if firstSubscriber?.id == id {
            firstSubscriber = otherSubscribers.isEmpty ? nil : otherSubscribers.removeFirst()
        } else {
            otherSubscribers.removeAll { $0.id == id }
        }
        refreshObserved()
    }

    @usableFromInline
    final func markTracked() {
        refreshIfStale()
        isTracked = true
        isObserved = true
        // From its first tracked read, a presented value changes only on the main actor.
        if presenter != nil, presented == nil { present() }
    }

    @usableFromInline
    final func addChild(_ identity: AnyObject, update: @escaping ChildUpdate) {
        refreshIfStale()
        let identity = ObjectIdentifier(identity)
        if let position = childPositions[identity] {
            children[position].update = update
        } else {
            childPositions[identity] = children.count
            children.append((identity, update))
        }
        isObserved = true
    }

    @usableFromInline
    final func removeChild(_ identity: AnyObject) {
        let identity = ObjectIdentifier(identity)
        if let position = childPositions.removeValue(forKey: identity) {
            // The last child takes the leaving one's place.
            let last = children.removeLast()
            if position < children.count {
                children[position] = last
                childPositions[last.identity] = position
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
///
/// Not generic on purpose: reporting a read or a change on a generic subject looks up its type
/// metadata and conformance at run time on every call, which cost more than the read itself.
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

/// Whether the `count` bytes at `a` and at `b` are the same.
@inlinable
func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
    var offset = 0
    while offset + 8 <= count {
        guard a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
            return false
        }
        offset += 8
    }
    while offset < count {
        guard a.load(fromByteOffset: offset, as: UInt8.self) == b.load(fromByteOffset: offset, as: UInt8.self) else { return false }
        offset += 1
    }
    return true
}

/// A node whose observers are owed a notification at the end of the current burst of actions.
///
/// Scoped stores and Observation hear about a burst (an action and every action its synchronous
/// effects fed back, or whatever queued meanwhile) once, with the settled value, as a view wants
/// it: the runtime lists the nodes that changed while it drains and settles them when its
/// queue runs empty. Nothing is allocated per change: the node itself is listed, and keeps
/// what it owes.
///
/// Settling and delivering are closures the typed subclasses set when they are made (in
/// inlinable code, so specialised for the store's types), not overridden methods: a method of a
/// generic class called through its base runs unspecialised and looks up type metadata.
@usableFromInline
class SettlingNode: @unchecked Sendable {
    /// Whether the node is listed as owed in the current burst. Lock held.
    @exclusivity(unchecked) @usableFromInline final var isOwed = false
    /// Whether `settle` found Observation owed a change; the runtime tells it (where the tree
    /// says: here, or on the main actor through `presenter`).
    @exclusivity(unchecked) @usableFromInline final var settledTellsRegistrar = false
    /// The Observation subject standing for the store's `state`.
    @usableFromInline final let observation = StateObservation()
    /// Where Observation is told, when the tree presents on the main actor; set when the
    /// node joins the tree.
    @exclusivity(unchecked) @usableFromInline final var presenter: MainActorPresenter?
    /// Makes the value now the one presented to main-actor readers. Lock held.
    @exclusivity(unchecked) @usableFromInline final var present: () -> Void = {}
    /// Takes what the burst owes the observers there are now, for `deliverSettled`. Lock held.
    @exclusivity(unchecked) @usableFromInline final var settle: () -> Void = {}
    /// Delivers what `settle` took, then forgets it. Lock released; called by the drainer.
    @exclusivity(unchecked) @usableFromInline final var deliverSettled: () -> Void = {}

    @inlinable
    init() {}

    /// Reports a tracked read of the store's state.
    @inlinable
    final func accessObservedState() {
        observation.access()
    }

    /// Tells Observation the store's state changed.
    @inlinable
    final func notifyRegistrar() {
        observation.notifyChange()
    }

    /// Tells Observation what `settle` found owed: here, or on the main actor. Lock released.
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
/// happened since it last did, and moves the values main-actor readers see at that moment
/// (``ObservationDelivery/mainActor``).
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

    /// On the main actor: each pending node's value moves to what it is now, between
    /// Observation's will-change and did-change.
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
            node.observation.willChange()
            treeLock.withLock { node.present() }
            node.observation.didChange()
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

/// A scoped node that hears only about changes of its value: whatever a burst of actions did,
/// its observers hear the settled value once, and nothing when it came back to the one they had.
@usableFromInline
class DeduplicatingNode<Value: Sendable & Equatable>: StateNode<Value>, @unchecked Sendable {
    /// The value last derived (for a ``ScopeNode``: out of date while it is stale).
    @exclusivity(unchecked) @usableFromInline final var current: Value
    /// The value observers heard last, kept from the first change of a burst to its settling.
    @exclusivity(unchecked) @usableFromInline final var heardBeforeBurst: Value?
    /// Whether the value changed more than once in this burst (and so may have come back).
    @exclusivity(unchecked) @usableFromInline final var changedAgain = false

    @inlinable
    init(current: Value) {
        self.current = current
        super.init()
        settle = { [unowned(unsafe) self] in settleDeduplicated() }
        // `self.current`: a bare `current` here is the initial value, the parameter.
        present = { [unowned(unsafe) self] in presented = self.current }
    }

    /// Makes `value` the current one, when it differs, and owes it to the observers.
    @inlinable
    final func publish(_ value: Value, deliveries: inout [Delivery]) {
        guard value != current else { return }
        let wasOwed = isOwed
        let previous = exchange(&current, with: value)
        changed(to: value, deliveries: &deliveries)
        if wasOwed {
            changedAgain = true
        } else if isOwed {
            heardBeforeBurst = previous
        }
    }

    /// Owes the settled value, unless the burst brought back the one observers heard last.
    @inlinable
    final func settleDeduplicated() {
        isOwed = false
        let heard = heardBeforeBurst.take()
        defer { changedAgain = false }
        if changedAgain, let heard, heard == current { return }
        owe(current)
    }
}

/// A store scoped to a value derived from its parent's state (`\.counter`).
@usableFromInline
final class ScopeNode<Parent: Sendable, Child: Sendable & Equatable>: DeduplicatingNode<Child>, @unchecked Sendable {
    @usableFromInline let project: @Sendable (Parent) -> Child
    /// The parent's value now (lock held), to derive a stale child from.
    @usableFromInline let readParent: @Sendable () -> Parent
    /// Where the parent's value lies (lock held), when the parent is a root store's state: a
    /// stale child is then derived from there, without copying the whole parent out.
    @usableFromInline let parentAddress: UnsafeRawPointer?
    /// The bytes of the parent the child is derived from, when known: a stored property
    /// (`scope(state: \.counter)`) or the properties a derivation declared it reads.
    @usableFromInline let reads: [ByteRange]
    /// Whether the child is the stored property at `reads[0]`, so it can be copied from there.
    @usableFromInline let isStored: Bool
    /// How many stores use this node (stores scoped to one stored property share it).
    @exclusivity(unchecked) @usableFromInline var storeCount = 0
    /// Whether the parent changed since `current` was derived, while nobody observed this node:
    /// nobody needs each value then, only the one read, so it is derived when read.
    @exclusivity(unchecked) @usableFromInline var isStale = false

    @inlinable
    init(
        project: @escaping @Sendable (Parent) -> Child, readParent: @escaping @Sendable () -> Parent,
        parentAddress: UnsafeRawPointer? = nil, reads: [ByteRange], isStored: Bool
    ) {
        self.project = project
        self.readParent = readParent
        self.parentAddress = parentAddress
        self.reads = reads
        self.isStored = isStored && reads.count == 1
        super.init(current: project(readParent()))
    }

    /// The value now. Lock held.
    @inlinable
    var freshValue: Child {
        if isStale { refreshIfStale() }
        return current
    }

    @usableFromInline
    override func refreshIfStale() {
        guard isStale else { return }
        isStale = false
        if let parentAddress {
            current = derive(fromParentAt: parentAddress)
        } else {
            current = withUnsafePointer(to: readParent()) { derive(fromParentAt: UnsafeRawPointer($0)) }
        }
    }

    @inlinable
    func update(from parentAddress: UnsafeRawPointer, bytesBefore before: UnsafeRawPointer?, deliveries: inout [Delivery]) {
        guard isObserved else {
            isStale = true
            revision &+= 1
            return
        }
        if !reads.isEmpty, let before {
            // The bytes the child comes from did not change, so neither did the child
            // (`current` came from the parent as it was before): the usual case, since an action
            // changes one feature.
            guard reads.contains(where: { !sameBytes(before + $0.offset, parentAddress + $0.offset, count: $0.count) }) else { return }
        }
        publish(derive(fromParentAt: parentAddress), deliveries: &deliveries)
    }

    /// The child of the parent lying at `address` (lock held): the stored child copied from its
    /// bytes (where a key path would look up type metadata), or derived from the whole parent.
    @inlinable
    func derive(fromParentAt address: UnsafeRawPointer) -> Child {
        if isStored { return address.load(fromByteOffset: reads[0].offset, as: Child.self) }
        // Sound: the parent lies at `address` while the lock is held, and the derivation only
        // reads it. Handed over in place: a value read from a pointer is copied whole first
        // (every reference in the app's state retained and released), an access is not.
        return Self.derive(project, from: &UnsafeMutablePointer(mutating: address.assumingMemoryBound(to: Parent.self)).pointee)
    }

    /// `project` of `parent`, read where it lies.
    @inlinable
    static func derive(_ project: (Parent) -> Child, from parent: inout Parent) -> Child {
        project(parent)
    }
}

/// Where a stored property lies in the bytes of a value.
@usableFromInline
struct ByteRange: Sendable {
    @usableFromInline let offset: Int
    @usableFromInline let count: Int

    /// The bytes of the property `keyPath` leads to, if it is stored in `Root` itself.
    @inlinable
    init?<Root, Value>(_ keyPath: KeyPath<Root, Value>) {
        guard let offset = MemoryLayout<Root>.offset(of: keyPath) else { return nil }
        self.offset = offset
        count = MemoryLayout<Value>.size
    }
}

/// All the element stores scoped from one identified collection of a parent's state.
@usableFromInline
final class CollectionNode<Parent: Sendable, Element: Identifiable & Sendable & Equatable>: @unchecked Sendable
where Element.ID: Sendable {
    @usableFromInline let collection: KeyPath<Parent, IdentifiedArray<Element>> & Sendable
    /// Where the collection lies in the parent's bytes, when it is a stored property: read there
    /// in place, where the key path would look up type metadata and copy it on every action.
    @usableFromInline let stored: ByteRange?
    @exclusivity(unchecked) @usableFromInline var lastVersion: UInt64
    /// The element stores by id; a second store for the same id hangs off the first's `next`.
    @exclusivity(unchecked) @usableFromInline var elements: [Element.ID: ElementNode<Element>] = [:]

    @inlinable
    init(collection: KeyPath<Parent, IdentifiedArray<Element>> & Sendable, initialParent: Parent) {
        self.collection = collection
        stored = ByteRange(collection)
        lastVersion = initialParent[keyPath: collection].version
    }

    @inlinable
    var isEmpty: Bool { elements.isEmpty }

    @usableFromInline
    func add(_ element: ElementNode<Element>) {
        element.next = elements[element.id]
        elements[element.id] = element
    }

    @usableFromInline
    func remove(_ element: ElementNode<Element>) {
        guard let head = elements[element.id] else { return }
        if head === element {
            elements[element.id] = element.next
        } else {
            var node = head
            while let next = node.next, next !== element { node = next }
            node.next = element.next
        }
        element.next = nil
    }

    @inlinable
    func update(_ head: ElementNode<Element>, to value: Element?, deliveries: inout [Delivery]) {
        var node: ElementNode<Element>? = head
        while let current = node {
            current.update(to: value, deliveries: &deliveries)
            node = current.next
        }
    }

    @inlinable
    func update(from parentAddress: UnsafeRawPointer, deliveries: inout [Delivery]) {
        if let stored {
            update(collectionAt: (parentAddress + stored.offset).assumingMemoryBound(to: IdentifiedArray<Element>.self), deliveries: &deliveries)
        } else {
            let values = parentAddress.assumingMemoryBound(to: Parent.self).pointee[keyPath: collection]
            withUnsafePointer(to: values) { update(collectionAt: $0, deliveries: &deliveries) }
        }
    }

    /// ``update(from:deliveries:)`` with the collection at `address`.
    @inlinable
    func update(collectionAt address: UnsafePointer<IdentifiedArray<Element>>, deliveries: inout [Delivery]) {
        let values = address.pointee
        let version = values.version
        guard version != lastVersion else { return }
        let changed = values.changedIDs(since: lastVersion)
        lastVersion = version
        if let changed {
            for id in changed {
                guard let head = elements[id] else { continue }
                update(head, to: values[id: id], deliveries: &deliveries)
            }
        } else {
            for (id, head) in elements {
                update(head, to: values[id: id], deliveries: &deliveries)
            }
        }
    }
}

/// A store scoped to one element of an identified collection.
///
/// When the element is removed, the store keeps showing its last value.
@usableFromInline
final class ElementNode<Element: Identifiable & Sendable & Equatable>: DeduplicatingNode<Element>, @unchecked Sendable {
    @usableFromInline let id: Element.ID
    /// Another store scoped to the same element, if any.
    @exclusivity(unchecked) @usableFromInline var next: ElementNode?

    @inlinable
    init(element: Element) {
        id = element.id
        super.init(current: element)
    }

    @inlinable
    func update(to value: Element?, deliveries: inout [Delivery]) {
        guard let value else { return }
        publish(value, deliveries: &deliveries)
    }
}

/// The key path of a scoped collection, as a sendable dictionary key.
@usableFromInline
struct CollectionKey: Hashable, @unchecked Sendable {
    // Built only from `KeyPath & Sendable` values.
    @usableFromInline let keyPath: AnyKeyPath

    @inlinable
    init(_ keyPath: AnyKeyPath & Sendable) {
        self.keyPath = keyPath
    }
}
