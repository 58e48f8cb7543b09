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
        // Sound: each closure is called with the node that holds it (see `SettlingNode`).
        settle = { unsafeDowncast($0, to: DeduplicatingNode<Value>.self).settleDeduplicated() }
        present = {
            let node = unsafeDowncast($0, to: DeduplicatingNode<Value>.self)
            node.presented = node.current
        }
    }

    /// Makes `value` the current one, when it differs, and owes it to the observers.
    @inlinable
    final func publish(_ value: Value, keepingEqual: Bool = false, deliveries: inout [Delivery]) {
        guard value != current else {
            if keepingEqual { current = value }
            return
        }
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
            // Sound: the pointer is to a copy of the parent that lives for the whole closure.
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
        if isStored {
            // `current` is the property as last derived, and holding it kept every buffer it
            // refers to from changing in place: the same bytes are the same value, which is the
            // usual case, since an action changes one feature.
            let range = reads[0]
            // Sound: both hold a `Child` of `range.count` bytes while the lock is held.
            if withUnsafePointer(to: &current, { sameBytes(UnsafeRawPointer($0), parentAddress + range.offset, count: range.count) }) {
                return
            }
            publish(derive(fromParentAt: parentAddress), keepingEqual: true, deliveries: &deliveries)
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
        // Sound: the parent lies at `address` while the lock is held, and a stored child is the
        // `Child` at `reads[0]` in it.
        if isStored { return address.load(fromByteOffset: reads[0].offset, as: Child.self) }
        // Sound: as above, and the derivation only reads the parent. Handed over in place: a
        // value read from a pointer is copied whole first (every reference in the app's state
        // retained and released), an access is not.
        return Self.derive(project, from: &UnsafeMutablePointer(mutating: address.assumingMemoryBound(to: Parent.self)).pointee)
    }

    @inlinable
    static func derive(_ project: (Parent) -> Child, from parent: inout Parent) -> Child {
        project(parent)
    }
}
