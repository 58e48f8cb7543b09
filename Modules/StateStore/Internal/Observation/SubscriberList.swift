/// What a ``SubscriberList`` holds: a struct around the callback (a bare function type would be
/// reabstracted on every call), with a value that does nothing for cancelled entries.
@usableFromInline
protocol ListedSubscriber {
    /// Does nothing when called, and keeps nothing alive.
    static var gap: Self { get }
}

/// Subscribers in the order they subscribed (by id), each cancelled in O(log n): a cancelled
/// entry stays as a gap holding `Subscriber.gap` until gaps are most of the list, so that
/// delivery calls every entry without asking which are gaps.
@usableFromInline
struct SubscriberList<Subscriber: ListedSubscriber> {
    @usableFromInline
    struct Entry {
        @usableFromInline let id: UInt64
        @usableFromInline var isGap: Bool
        @usableFromInline var subscriber: Subscriber

        @inlinable
        init(id: UInt64, subscriber: Subscriber) {
            self.id = id
            isGap = false
            self.subscriber = subscriber
        }
    }

    /// In increasing id order, gaps included.
    @usableFromInline private(set) var entries: ContiguousArray<Entry> = []
    /// How many entries are not gaps.
    @usableFromInline private(set) var count = 0
    /// Every entry before it is a gap: taking the first subscriber over and over stays O(1).
    @usableFromInline var head = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { count == 0 }

    @inlinable
    mutating func insert(_ subscriber: Subscriber, id: UInt64) {
        let entry = Entry(id: id, subscriber: subscriber)
        if let last = entries.last, last.id > id {
            // Its id was taken before another thread's, whose subscription arrived first.
            entries.insert(entry, at: position(of: id))
        } else {
            entries.append(entry)
        }
        count += 1
    }

    /// Cancels the subscriber with `id`; whether there was one.
    @inlinable
    @discardableResult
    mutating func remove(id: UInt64) -> Bool {
        let index = position(of: id)
        guard index < entries.count, entries[index].id == id, !entries[index].isGap else { return false }
        makeGap(at: index)
        return true
    }

    /// Takes out the subscriber that subscribed first.
    @inlinable
    mutating func removeFirst() -> (id: UInt64, subscriber: Subscriber)? {
        while head < entries.count {
            let index = head
            head += 1
            guard !entries[index].isGap else { continue }
            let entry = entries[index]
            makeGap(at: index)
            return (entry.id, entry.subscriber)
        }
        return nil
    }

    @inlinable
    mutating func makeGap(at index: Int) {
        entries[index].isGap = true
        entries[index].subscriber = .gap
        count -= 1
        let gaps = entries.count - count
        if count == 0 {
            entries = []
            head = 0
        } else if gaps > 16, gaps > count {
            entries.removeAll { $0.isGap }
            head = 0
        }
    }

    /// Where `id` is, or would be inserted.
    @inlinable
    func position(of id: UInt64) -> Int {
        var low = head
        var high = entries.count
        while low < high {
            let middle = (low &+ high) >> 1
            if entries[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
