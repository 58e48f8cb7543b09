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
        // Sound: `parentAddress` holds a `Parent` while the tree's lock is held, and `stored` is
        // where `collection`, a stored property, lies in it.
        if let stored {
            update(collectionAt: (parentAddress + stored.offset).assumingMemoryBound(to: IdentifiedArray<Element>.self), deliveries: &deliveries)
        } else {
            let values = parentAddress.assumingMemoryBound(to: Parent.self).pointee[keyPath: collection]
            // Sound: the pointer is to `values`, alive for the whole closure.
            withUnsafePointer(to: values) { update(collectionAt: $0, deliveries: &deliveries) }
        }
    }

    @inlinable
    func update(collectionAt address: UnsafePointer<IdentifiedArray<Element>>, deliveries: inout [Delivery]) {
        // Read where it lies: a copy of the collection would retain and release its storage.
        let version = address.pointee.version
        guard version != lastVersion else { return }
        let past = lastVersion
        lastVersion = version
        let walked = address.pointee.forEachChangedID(since: past) { id, key in
            guard let head = elements[id] else { return }
            update(head, to: address.pointee.element(id: id, hint: key), deliveries: &deliveries)
        }
        if !walked {
            for (id, head) in elements {
                update(head, to: address.pointee[id: id], deliveries: &deliveries)
            }
        }
    }
}

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

@usableFromInline
struct CollectionKey: Hashable, @unchecked Sendable {
    // Built only from `KeyPath & Sendable` values.
    @usableFromInline let keyPath: AnyKeyPath

    @inlinable
    init(_ keyPath: AnyKeyPath & Sendable) {
        self.keyPath = keyPath
    }
}
