/// A growable first-in, first-out buffer with O(1) append, removal at both ends and indexed
/// access; the runtime's action queue and the timeline's history.
@usableFromInline
struct RingBuffer<Element> {
    @usableFromInline var storage: Storage?
    /// The storage's count, kept here too: a store asks whether its queue is empty on every
    /// send, and reading a stored integer beats reaching into the storage's header.
    @usableFromInline private(set) var count = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { count == 0 }

    @inlinable
    mutating func append(_ element: Element) {
        let count = count
        if count == storage?.slotCount ?? 0 {
            grow()
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = storage?.relocated(capacity: storage?.slotCount ?? 0, moving: false)
        }
        guard let storage else { preconditionFailure("RingBuffer: no storage after growing") }
        storage.withUnsafeMutablePointers { header, elements in
            // Sound: the storage is unique with a free slot, the one after the last element.
            (elements + header.pointee.slot(count)).initialize(to: element)
            header.pointee.count += 1
        }
        self.count += 1
    }

    @inlinable
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        makeUnique()
        count -= 1
        return storage?.withUnsafeMutablePointers { header, elements in
            // Sound: the storage is unique and its head slot holds the first element.
            let element = (elements + header.pointee.head).move()
            header.pointee.head = header.pointee.slot(1)
            header.pointee.count -= 1
            return element
        }
    }

    @inlinable
    mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        makeUnique()
        count -= 1
        return storage?.withUnsafeMutablePointers { header, elements in
            // Sound: the storage is unique and this slot holds the last element.
            header.pointee.count -= 1
            return (elements + header.pointee.slot(header.pointee.count)).move()
        }
    }

    /// The element `offset` places after the first, borrowed where it lies.
    @inlinable
    subscript(offset: Int) -> Element {
        unsafeAddress {
            // The storage lives as long as `self` is borrowed, which outlasts the access.
            guard
                let element = storage?.withUnsafeMutablePointers({ header, elements in
                    offset >= 0 && offset < header.pointee.count ? UnsafePointer(elements + header.pointee.slot(offset)) : nil
                })
            else {
                preconditionFailure("RingBuffer: offset \(offset) out of 0..<\(count)")
            }
            return element
        }
    }

    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage?.relocated(capacity: storage?.slotCount ?? 0, moving: false)
        }
    }

    @usableFromInline
    mutating func grow() {
        let capacity = Swift.max(8, (storage?.slotCount ?? 0) * 2)
        if let storage, isKnownUniquelyReferenced(&self.storage) {
            self.storage = storage.relocated(capacity: capacity, moving: true)
        } else if let storage {
            self.storage = storage.relocated(capacity: capacity, moving: false)
        } else {
            self.storage = Storage.make(capacity: capacity)
        }
    }

    /// Where the buffer starts and how much it holds; `capacity` slots follow it.
    @usableFromInline
    struct Header {
        @usableFromInline var head = 0
        @usableFromInline var count = 0
        @usableFromInline let capacity: Int

        @inlinable
        init(capacity: Int) {
            self.capacity = capacity
        }

        @inlinable
        func slot(_ offset: Int) -> Int {
            let slot = head + offset
            return slot >= capacity ? slot - capacity : slot
        }
    }

    @usableFromInline
    final class Storage: ManagedBuffer<Header, Element> {
        @inlinable
        static func make(capacity: Int) -> Storage {
            let buffer = Storage.create(minimumCapacity: capacity) { _ in Header(capacity: capacity) }
            // `create` returns the dynamic type asked for.
            return unsafeDowncast(buffer, to: Storage.self)
        }

        @inlinable
        var slotCount: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

        /// A new storage of `capacity` slots with these elements, first at slot 0: copies, or
        /// the elements themselves when `moving` (which leaves this storage empty).
        @inlinable
        func relocated(capacity: Int, moving: Bool) -> Storage {
            let other = Storage.make(capacity: capacity)
            withUnsafeMutablePointers { header, elements in
                other.withUnsafeMutablePointers { newHeader, newElements in
                    // Sound: `count` slots from the head hold elements, and `other` is new with
                    // room for them from slot 0.
                    for offset in 0..<header.pointee.count {
                        let source = elements + header.pointee.slot(offset)
                        if moving {
                            (newElements + offset).moveInitialize(from: source, count: 1)
                        } else {
                            (newElements + offset).initialize(to: source.pointee)
                        }
                    }
                    newHeader.pointee.count = header.pointee.count
                    if moving { header.pointee.count = 0 }
                }
            }
            return other
        }

        deinit {
            withUnsafeMutablePointers { header, elements in
                // Sound: `count` slots from the head hold elements, and nothing reads them after.
                for offset in 0..<header.pointee.count {
                    (elements + header.pointee.slot(offset)).deinitialize(count: 1)
                }
            }
        }
    }
}

extension RingBuffer: @unchecked Sendable where Element: Sendable {}
