/// A growable first-in, first-out buffer with O(1) append, removal at the front and indexed
/// access; the runtime's action queue.
@usableFromInline
struct RingBuffer<Element> {
    @usableFromInline var slots: ContiguousArray<Element?> = []
    @usableFromInline var head = 0
    @usableFromInline var count = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { count == 0 }

    @inlinable
    mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        slots[(head + count) % slots.count] = element
        count += 1
    }

    @inlinable
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Removes and returns the newest element.
    @inlinable
    mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        let slot = (head + count - 1) % slots.count
        let element = slots[slot]
        slots[slot] = nil
        count -= 1
        return element
    }

    /// The element `offset` places after the first.
    @inlinable
    subscript(offset: Int) -> Element {
        get {
            precondition(offset >= 0 && offset < count, "RingBuffer: offset \(offset) out of 0..<\(count)")
            guard let element = slots[(head + offset) % slots.count] else {
                preconditionFailure("RingBuffer: empty slot inside the live range")
            }
            return element
        }
    }

    @usableFromInline
    mutating func grow() {
        var larger = ContiguousArray<Element?>(repeating: nil, count: Swift.max(8, slots.count * 2))
        for offset in 0..<count {
            larger[offset] = slots[(head + offset) % slots.count]
        }
        slots = larger
        head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
