import Synchronization

/// Who is interested in one store's state: its subscribers, whether Observation tracks it, and
/// the stores scoped from it.
///
/// Every node of a store tree is guarded by the root runtime's lock. After each action the
/// runtime walks the tree from the root; a scoped node compares its part of the state with the
/// value it last published and only when that changed notifies its own subscribers and looks
/// at its children. Element scopes of an ``IdentifiedArray`` are found through the collection's
/// change log, so an action that changes one element of ten thousand visits one node.
final class StateNode<Value: Sendable>: @unchecked Sendable {
    struct Subscriber {
        let id: UInt64
        let callback: @Sendable (Value) -> Void
    }

    var subscribers: ContiguousArray<Subscriber> = []
    /// Set once a tracked read of `state` happened; from then on Observation is notified.
    var isTracked = false
    /// Notifies the store's Observation registrar; set by the store that owns this node.
    var notifyRegistrar: (@Sendable () -> Void)?
    /// Stores scoped from this one.
    var children: [ObjectIdentifier: any ChildNode<Value>] = [:]
    /// The collection nodes among `children`, by the key path of their collection, so element
    /// stores of one collection share a node.
    var collections: [CollectionKey: AnyObject] = [:]

    /// Whether a change of the value has anything to do.
    var isObserved: Bool {
        !subscribers.isEmpty || isTracked || !children.isEmpty
    }

    /// Records what a change to `value` must notify, and propagates it to the children.
    func changed(to value: Value, deliveries: inout [Delivery]) {
        if !subscribers.isEmpty || isTracked {
            deliveries.append(Delivery(value: value, subscribers: subscribers,
                notifyRegistrar: isTracked ? notifyRegistrar : nil))
        }
        for child in children.values {
            child.update(from: value, deliveries: &deliveries)
        }
    }

    func add(_ child: any ChildNode<Value>) {
        children[ObjectIdentifier(child)] = child
    }

    func remove(_ child: AnyObject) {
        children[ObjectIdentifier(child)] = nil
    }

    func removeSubscriber(id: UInt64) {
        subscribers.removeAll { $0.id == id }
    }

    static func nextSubscriberID() -> UInt64 {
        subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
    }
}

private let subscriberIDs = Atomic<UInt64>(0)

/// A notification owed to one node's subscribers, delivered after the lock is released.
struct Delivery {
    private let deliver: () -> Void

    init<Value>(value: Value, subscribers: ContiguousArray<StateNode<Value>.Subscriber>, notifyRegistrar: (@Sendable () -> Void)?) {
        deliver = {
            notifyRegistrar?()
            for subscriber in subscribers { subscriber.callback(value) }
        }
    }

    func callAsFunction() { deliver() }
}

/// A store scoped from a parent whose state is `Parent`.
protocol ChildNode<Parent>: AnyObject {
    associatedtype Parent
    func update(from parent: Parent, deliveries: inout [Delivery])
}

/// A store scoped to a value derived from its parent's state (`\.counter`).
final class ScopeNode<Parent: Sendable, Child: Sendable & Equatable>: ChildNode, @unchecked Sendable {
    let node = StateNode<Child>()
    private let project: @Sendable (Parent) -> Child
    private(set) var current: Child

    init(project: @escaping @Sendable (Parent) -> Child, initialParent: Parent) {
        self.project = project
        current = project(initialParent)
    }

    func update(from parent: Parent, deliveries: inout [Delivery]) {
        let value = project(parent)
        guard value != current else { return }
        current = value
        node.changed(to: value, deliveries: &deliveries)
    }
}

/// All the element stores scoped from one identified collection of a parent's state.
final class CollectionNode<Parent: Sendable, Element: Identifiable & Sendable & Equatable>: ChildNode, @unchecked Sendable
where Element.ID: Sendable {
    private let collection: KeyPath<Parent, IdentifiedArray<Element>> & Sendable
    private var lastVersion: UInt64
    private var elements: [Element.ID: [ObjectIdentifier: ElementNode<Element>]] = [:]

    init(collection: KeyPath<Parent, IdentifiedArray<Element>> & Sendable, initialParent: Parent) {
        self.collection = collection
        lastVersion = initialParent[keyPath: collection].version
    }

    var isEmpty: Bool { elements.isEmpty }

    func add(_ element: ElementNode<Element>) {
        elements[element.id, default: [:]][ObjectIdentifier(element)] = element
    }

    func remove(_ element: ElementNode<Element>) {
        elements[element.id]?[ObjectIdentifier(element)] = nil
        if elements[element.id]?.isEmpty == true { elements[element.id] = nil }
    }

    func update(from parent: Parent, deliveries: inout [Delivery]) {
        let values = parent[keyPath: collection]
        let version = values.version
        guard version != lastVersion else { return }
        let changed = values.changedIDs(since: lastVersion)
        lastVersion = version
        if let changed {
            for id in changed {
                guard let nodes = elements[id] else { continue }
                let value = values[id: id]
                for node in nodes.values { node.update(to: value, deliveries: &deliveries) }
            }
        } else {
            for (id, nodes) in elements {
                let value = values[id: id]
                for node in nodes.values { node.update(to: value, deliveries: &deliveries) }
            }
        }
    }
}

/// A store scoped to one element of an identified collection.
///
/// When the element is removed, the store keeps showing its last value.
final class ElementNode<Element: Identifiable & Sendable & Equatable>: @unchecked Sendable {
    let node = StateNode<Element>()
    let id: Element.ID
    private(set) var current: Element

    init(element: Element) {
        id = element.id
        current = element
    }

    func update(to value: Element?, deliveries: inout [Delivery]) {
        guard let value, value != current else { return }
        current = value
        node.changed(to: value, deliveries: &deliveries)
    }
}
