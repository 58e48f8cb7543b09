/// The newest `capacity` elements appended, oldest first: the timeline's history.
///
/// Once full, an append overwrites the oldest element in place. Unlike ``RingBuffer`` it has no
/// empty slots, so generic code never has to ask whether a slot holds a value, which is slow
/// for large elements.
struct BoundedBuffer<Element> {
    let capacity: Int
    /// The elements in a circle; the oldest is at `start`, which stays 0 until the buffer is full.
    private var storage: ContiguousArray<Element> = []
    private var start = 0

    /// A buffer keeping at most `capacity` (at least 1) elements.
    init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
    }

    var count: Int { storage.count }

    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[start] = element
            start = (start + 1) % capacity
        }
    }

    /// Removes the newest `k` elements.
    mutating func removeLast(_ k: Int) {
        precondition(k <= count, "BoundedBuffer: removing more elements than present")
        if start != 0 {
            storage = ContiguousArray(storage[start...] + storage[..<start])
            start = 0
        }
        storage.removeLast(k)
    }

    /// The element `offset` places after the oldest.
    subscript(offset: Int) -> Element {
        precondition(offset >= 0 && offset < count, "BoundedBuffer: offset \(offset) out of 0..<\(count)")
        return storage[(start + offset) % storage.count]
    }
}

extension BoundedBuffer: Sendable where Element: Sendable {}
