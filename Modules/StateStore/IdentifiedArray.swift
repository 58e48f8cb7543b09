import Synchronization

/// An ordered collection of identified elements, with fast access by id, that stays cheap to
/// copy and change at any size.
public struct IdentifiedArray<Element: Identifiable>: Sendable where Element: Sendable, Element.ID: Sendable {
    /// The identifier of an element.
    public typealias ID = Element.ID

    /// The elements in order, each under an order key that only grows along the collection.
    @usableFromInline var tree: OrderedTree<Element>
    @usableFromInline var orderKeys: HashTrie<ID, Int64>
    @usableFromInline var changeLog: ChangeLog<ID>

    /// The distance between the order keys of neighbours when keys are assigned afresh: room for
    /// 24 inserts between any two before the keys are assigned again.
    @inlinable static var keySpacing: Int64 { 1 << 24 }

    /// Creates an empty collection.
    @inlinable
    public init() {
        tree = OrderedTree()
        orderKeys = HashTrie()
        changeLog = ChangeLog()
    }

    /// Creates a collection from elements with distinct ids.
    @inlinable
    public init(uniqueElements elements: some Sequence<Element>) {
        self.init()
        do {
            try rebuild(from: ContiguousArray(elements))
        } catch {
            preconditionFailure("IdentifiedArray: duplicate id \(error.id)")
        }
        if !tree.isEmpty { changeLog.recordReplacement() }
    }

    /// Replaces the contents with `elements`, spacing their order keys evenly.
    @inlinable
    mutating func rebuild(from elements: ContiguousArray<Element>) throws(DuplicateID<ID>) {
        var keys = HashTrie<ID, Int64>()
        var orderKeys = ContiguousArray<Int64>()
        orderKeys.reserveCapacity(elements.count)
        for (offset, element) in elements.enumerated() {
            let key = Int64(offset) &* Self.keySpacing
            guard keys[element.id] == nil else { throw DuplicateID(id: element.id) }
            keys.set(key, for: element.id)
            orderKeys.append(key)
        }
        self.orderKeys = keys
        tree = OrderedTree(keys: orderKeys, elements: elements)
    }

    // MARK: - Access by id

    /// The ids, in order.
    @inlinable
    public var ids: [ID] { map(\.id) }

    /// The elements, in order, as an array.
    @inlinable
    public var elements: [Element] { Array(self) }

    /// Whether an element with `id` is present.
    @inlinable
    public func contains(id: ID) -> Bool { orderKeys[id] != nil }

    /// The position of the element with `id`, if present.
    @inlinable
    public func index(id: ID) -> Int? {
        orderKeys[id].flatMap { tree.position(ofKey: $0) }
    }

    /// The element with `id`; setting `nil` removes it, setting a value for a new id appends it.
    @inlinable
    public subscript(id id: ID) -> Element? {
        get {
            orderKeys[id].flatMap { tree.element(forKey: $0) }
        }
        _modify {
            if let key = orderKeys[id], let current = tree.element(forKey: key) {
                var element: Element? = current
                defer {
                    if let element {
                        precondition(element.id == id, "IdentifiedArray: element assigned to id \(id) has id \(element.id)")
                        tree.modify(key: key) { $0 = element }
                        changeLog.record(id, key: key)
                    } else {
                        remove(id: id)
                    }
                }
                yield &element
            } else {
                var element: Element? = nil
                defer {
                    if let element {
                        precondition(element.id == id, "IdentifiedArray: element assigned to id \(id) has id \(element.id)")
                        append(element)
                    }
                }
                yield &element
            }
        }
    }

    /// Mutates the element with `id` in place, without copying it.
    @inlinable
    @discardableResult
    public mutating func modify<Result>(id: ID, _ body: (inout Element) throws -> Result) rethrows -> Result? {
        guard let key = orderKeys[id] else { return nil }
        defer { changeLog.record(id, key: key) }
        return try tree.modify(key: key) { element in
            defer { precondition(element.id == id, "IdentifiedArray: modify(id:) must keep the id") }
            return try body(&element)
        }
    }

    // MARK: - Structural changes

    /// Appends an element, or replaces the element with the same id in place.
    @inlinable
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        if let key = orderKeys[element.id] {
            tree.modify(key: key) { $0 = element }
            changeLog.record(element.id, key: key)
            return false
        }
        insertNew(element, at: tree.count)
        return true
    }

    /// Inserts a new element at `index`.
    @inlinable
    public mutating func insert(_ element: Element, at index: Int) {
        precondition(orderKeys[element.id] == nil, "IdentifiedArray: duplicate id \(element.id)")
        precondition(index >= 0 && index <= tree.count, "IdentifiedArray: index \(index) out of range")
        insertNew(element, at: index)
    }

    /// Inserts an element whose id is new, choosing an order key between its neighbours'.
    @inlinable
    mutating func insertNew(_ element: Element, at index: Int) {
        let key: Int64
        if let chosen = orderKey(forInsertionAt: index) {
            key = chosen
        } else {
            // No key left between the neighbours (or at an end): space all keys out again.
            var elements = ContiguousArray(self)
            elements.insert(element, at: index)
            try? rebuild(from: elements)
            changeLog.record(element.id, key: orderKeys[element.id] ?? 0)
            return
        }
        tree.insert(element, key: key)
        orderKeys.set(key, for: element.id)
        changeLog.record(element.id, key: key)
    }

    /// A key that sorts between the elements at `index - 1` and `index`; `nil` when there is none.
    @inlinable
    func orderKey(forInsertionAt index: Int) -> Int64? {
        let spacing = Self.keySpacing
        if tree.isEmpty { return 0 }
        if index == tree.count {
            let last = tree.key(at: index - 1)
            return last <= Int64.max - spacing ? last + spacing : nil
        }
        let next = tree.key(at: index)
        if index == 0 { return next >= Int64.min + spacing ? next - spacing : nil }
        let previous = tree.key(at: index - 1)
        return next - previous > 1 ? previous + (next - previous) / 2 : nil
    }

    /// Removes and returns the element with `id`, if present.
    @inlinable
    @discardableResult
    public mutating func remove(id: ID) -> Element? {
        guard let key = orderKeys.remove(id) else { return nil }
        let element = tree.remove(key: key)
        changeLog.record(id, key: key)
        return element
    }

    /// Removes and returns the element at `index`.
    @inlinable
    @discardableResult
    public mutating func remove(at index: Int) -> Element {
        precondition(index >= 0 && index < tree.count, "IdentifiedArray: index \(index) out of range")
        let key = tree.key(at: index)
        let element = tree.remove(key: key)
        orderKeys.remove(element.id)
        changeLog.record(element.id, key: key)
        return element
    }

    /// Removes every element.
    @inlinable
    public mutating func removeAll() {
        guard !tree.isEmpty else { return }
        tree = OrderedTree()
        orderKeys = HashTrie()
        changeLog.recordReplacement()
    }

    /// Removes the elements that satisfy `shouldBeRemoved`.
    @inlinable
    public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        var kept = ContiguousArray<Element>()
        var removed: [ID] = []
        for element in self {
            if try shouldBeRemoved(element) { removed.append(element.id) } else { kept.append(element) }
        }
        guard !removed.isEmpty else { return }
        if removed.count == 1, let id = removed.first {
            remove(id: id)
        } else {
            try? rebuild(from: kept)
            changeLog.recordReplacement()
        }
    }

    /// Moves the element at `source` to `destination`.
    @inlinable
    public mutating func move(from source: Int, to destination: Int) {
        guard source != destination else { return }
        let element = tree.remove(key: tree.key(at: source))
        orderKeys.remove(element.id)
        insertNew(element, at: destination)
        changeLog.recordReorder()
    }

    /// Sorts the elements in place.
    @inlinable
    public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
        var elements = ContiguousArray(self)
        try elements.sort(by: areInIncreasingOrder)
        try? rebuild(from: elements)
        changeLog.recordReorder()
    }

    // MARK: - Change tracking

    /// An opaque stamp that changes with every mutation; equal stamps mean equal contents.
    @inlinable
    package var version: UInt64 { changeLog.version }

    /// The ids of the elements added, removed or changed since the value stamped `version`, or
    /// `nil` when that cannot be told cheaply (compare every element then).
    @inlinable
    package func changedIDs(since version: UInt64) -> [ID]? {
        changeLog.ids(since: version)
    }

    /// ``changedIDs(since:)`` without an array: calls `body` with each id and its order key then
    /// (newest first), or returns `false` when that cannot be told cheaply.
    @inlinable
    func forEachChangedID(since version: UInt64, _ body: (ID, Int64) -> Void) -> Bool {
        changeLog.forEachID(since: version, body)
    }

    /// The element with `id`, looked for first under `key` (its order key when last changed),
    /// which spares the lookup by id while the element has not moved.
    @inlinable
    func element(id: ID, hint key: Int64) -> Element? {
        if let element = tree.element(forKey: key), element.id == id { return element }
        return self[id: id]
    }
}

@usableFromInline
struct DuplicateID<ID: Sendable>: Error {
    @usableFromInline let id: ID

    @inlinable
    init(id: ID) { self.id = id }
}

// MARK: - Collection

extension IdentifiedArray: RandomAccessCollection {
    /// The position of the first element.
    @inlinable
    public var startIndex: Int { 0 }
    /// The position past the last element.
    @inlinable
    public var endIndex: Int { tree.count }
    /// How many elements there are.
    @inlinable
    public var count: Int { tree.count }
    /// Whether there are none.
    @inlinable
    public var isEmpty: Bool { tree.isEmpty }

    /// The element at `position` (O(log n)).
    @inlinable
    public subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < tree.count, "IdentifiedArray: index \(position) out of range")
            return tree.element(at: position)
        }
        set {
            precondition(position >= 0 && position < tree.count, "IdentifiedArray: index \(position) out of range")
            let key = tree.key(at: position)
            tree.modify(key: key) { element in
                precondition(newValue.id == element.id, "IdentifiedArray: positional assignment must keep the id")
                element = newValue
            }
            changeLog.record(newValue.id, key: key)
        }
    }

    /// Iterates in order, a leaf of the tree at a time.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var base: OrderedTree<Element>.Iterator

        @inlinable
        init(base: OrderedTree<Element>.Iterator) { self.base = base }

        /// The next element.
        @inlinable
        public mutating func next() -> Element? { base.next() }
    }

    /// An iterator over the elements in order.
    @inlinable
    public func makeIterator() -> Iterator { Iterator(base: tree.makeIterator()) }

    /// The elements transformed, in order (without looking each up by position).
    @inlinable
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var result: [T] = []
        result.reserveCapacity(count)
        for element in self { result.append(try transform(element)) }
        return result
    }
}

extension IdentifiedArray {
    /// Whether both hold equivalent elements in the same order, by `areEquivalent`.
    @inlinable
    public func elementsEqual(_ other: Self, by areEquivalent: (Element, Element) throws -> Bool) rethrows -> Bool {
        if changeLog.version == other.changeLog.version { return true }
        return try OrderedTree<Element>.elementsEqual(tree.root, other.tree.root, by: areEquivalent)
    }
}

extension IdentifiedArray: ExpressibleByArrayLiteral {
    /// Creates a collection from a literal of elements with distinct ids.
    @inlinable
    public init(arrayLiteral elements: Element...) {
        self.init(uniqueElements: elements)
    }
}

extension IdentifiedArray: Equatable where Element: Equatable {
    /// Whether both hold the same elements in the same order.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changeLog.version == rhs.changeLog.version
            || OrderedTree<Element>.elementsEqual(lhs.tree.root, rhs.tree.root, by: { $0 == $1 })
    }
}

extension IdentifiedArray: Hashable where Element: Hashable {
    /// Hashes the elements in order.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}

extension IdentifiedArray: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    @inlinable
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension IdentifiedArray: Decodable where Element: Decodable {
    /// Decodes an array of elements.
    @inlinable
    public init(from decoder: any Decoder) throws {
        let elements = try ContiguousArray<Element>(from: decoder)
        self.init()
        do {
            try rebuild(from: elements)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "Duplicate id \(error.id) in IdentifiedArray"))
        }
        if !tree.isEmpty { changeLog.recordReplacement() }
    }
}

extension IdentifiedArray: CustomStringConvertible {
    /// The elements, rendered like an array.
    @inlinable
    public var description: String { elements.description }
}

extension IdentifiedArray: CustomReflectable {
    /// Reflects as the collection of its elements.
    @inlinable
    public var customMirror: Mirror { Mirror(self, unlabeledChildren: elements, displayStyle: .collection) }
}

// MARK: - Change log

/// Version stamps unique in the process: equal stamps mean an unmodified copy.
@usableFromInline
let versionCounter = Atomic<UInt64>(0)

/// The version stamp of an identified array and the ids of its last few mutations.
@usableFromInline
struct ChangeLog<ID: Hashable & Sendable>: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var from: UInt64
        @usableFromInline var to: UInt64
        /// `nil` for a step that changed no element's value (a reorder).
        @usableFromInline var id: ID?
        /// The element's order key at that step (0 for a reorder).
        @usableFromInline var key: Int64

        @inlinable
        init(from: UInt64, to: UInt64, id: ID?, key: Int64) {
            self.from = from
            self.to = to
            self.id = id
            self.key = key
        }
    }

    /// How many steps back a diff can reach before falling back to comparing everything.
    @inlinable
    static var capacity: Int { 32 }

    @usableFromInline var version: UInt64 = 0
    @usableFromInline var entries: ContiguousArray<Entry> = []
    @usableFromInline var start = 0

    @inlinable
    init() {}

    @inlinable
    mutating func record(_ id: ID, key: Int64) { append(id, key: key) }

    @inlinable
    mutating func recordReorder() { append(nil, key: 0) }

    @inlinable
    mutating func recordReplacement() {
        entries.removeAll()
        start = 0
        version = Self.nextVersion()
    }

    @inlinable
    mutating func append(_ id: ID?, key: Int64) {
        let next = Self.nextVersion()
        let entry = Entry(from: version, to: next, id: id, key: key)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[start] = entry
            start = (start + 1) % Self.capacity
        }
        version = next
    }

    @inlinable
    func ids(since past: UInt64) -> [ID]? {
        var ids: [ID] = []
        return forEachID(since: past) { id, _ in ids.append(id) } ? ids : nil
    }

    /// Calls `body` with the id and order key of each step since `past`, newest first, and
    /// returns `true`; `false`, without calling it, when the log does not reach back to `past`.
    @inlinable
    func forEachID(since past: UInt64, _ body: (ID, Int64) -> Void) -> Bool {
        guard let steps = steps(since: past) else { return false }
        var index = (start + entries.count - 1) % Swift.max(entries.count, 1)
        for _ in 0..<steps {
            if let id = entries[index].id { body(id, entries[index].key) }
            index = (index + entries.count - 1) % entries.count
        }
        return true
    }

    /// How many of the newest entries lead back to `past`, or `nil` when they do not.
    @inlinable
    func steps(since past: UInt64) -> Int? {
        var cursor = version
        var steps = 0
        var index = (start + entries.count - 1) % Swift.max(entries.count, 1)
        while cursor != past {
            guard steps < entries.count, entries[index].to == cursor else { return nil }
            cursor = entries[index].from
            steps += 1
            index = (index + entries.count - 1) % entries.count
        }
        return steps
    }

    @inlinable
    static func nextVersion() -> UInt64 {
        versionCounter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
