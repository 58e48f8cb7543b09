import Synchronization

/// An ordered collection of identified elements, with O(1) access by id.
///
/// Use it for lists of child features: ``Reducer/forEach(_:action:element:)`` runs a child
/// reducer on one element by id, and ``Store/scope(_:id:action:)`` derives a store for one
/// element whose observers are notified only when that element changes.
///
/// ```swift
/// var notes: IdentifiedArray<Note> = []
/// notes.append(Note(id: 1, text: "milk"))
/// notes[id: 1]?.text = "oat milk"
/// ```
///
/// Besides its elements, every value carries a version stamp and a short log of the ids its
/// most recent mutations touched. Neither is part of its value (`==`, `hash` and `Codable` look
/// at elements only); they let a store find which elements changed since it last looked in time
/// proportional to the change, not to the collection, and make `==` between a value and an
/// unmodified copy O(1).
public struct IdentifiedArray<Element: Identifiable>: Sendable where Element: Sendable, Element.ID: Sendable {
    /// The identifier of an element.
    public typealias ID = Element.ID

    @usableFromInline var storage: [Element]
    @usableFromInline var positions: [ID: Int]
    @usableFromInline var changeLog: ChangeLog<ID>

    /// Creates an empty collection.
    @inlinable
    public init() {
        storage = []
        positions = [:]
        changeLog = ChangeLog()
    }

    /// Creates a collection from elements with distinct ids.
    ///
    /// - Precondition: No two elements share an id.
    @inlinable
    public init(uniqueElements elements: some Sequence<Element>) {
        self.init()
        for element in elements {
            precondition(positions[element.id] == nil, "IdentifiedArray: duplicate id \(element.id)")
            positions[element.id] = storage.count
            storage.append(element)
        }
        if !storage.isEmpty { changeLog.recordReplacement() }
    }

    // MARK: - Access by id

    /// The ids, in order.
    @inlinable
    public var ids: [ID] { storage.map(\.id) }

    /// The elements, in order, as an array.
    @inlinable
    public var elements: [Element] { storage }

    /// Whether an element with `id` is present.
    @inlinable
    public func contains(id: ID) -> Bool { positions[id] != nil }

    /// The position of the element with `id`, if present.
    @inlinable
    public func index(id: ID) -> Int? { positions[id] }

    /// The element with `id`; setting `nil` removes it, setting a value for a new id appends it.
    ///
    /// - Precondition: A value set for `id` has that id.
    @inlinable
    public subscript(id id: ID) -> Element? {
        get {
            positions[id].map { storage[$0] }
        }
        _modify {
            if let position = positions[id] {
                var element: Element? = storage[position]
                defer {
                    if let element {
                        precondition(element.id == id, "IdentifiedArray: element assigned to id \(id) has id \(element.id)")
                        storage[position] = element
                        changeLog.record(id)
                    } else {
                        remove(at: position)
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
    ///
    /// - Returns: What `body` returned, or `nil` (and `body` is not called) when no element has `id`.
    @inlinable
    @discardableResult
    public mutating func modify<Result>(id: ID, _ body: (inout Element) throws -> Result) rethrows -> Result? {
        guard let position = positions[id] else { return nil }
        defer {
            precondition(storage[position].id == id, "IdentifiedArray: modify(id:) must keep the id")
            changeLog.record(id)
        }
        return try body(&storage[position])
    }

    // MARK: - Structural changes

    /// Appends an element, or replaces the element with the same id in place.
    ///
    /// - Returns: Whether the element was new.
    @inlinable
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        if let position = positions[element.id] {
            storage[position] = element
            changeLog.record(element.id)
            return false
        }
        positions[element.id] = storage.count
        storage.append(element)
        changeLog.record(element.id)
        return true
    }

    /// Inserts a new element at `index`.
    ///
    /// - Precondition: No element has the same id, and `index` is in `0...count`.
    @inlinable
    public mutating func insert(_ element: Element, at index: Int) {
        precondition(positions[element.id] == nil, "IdentifiedArray: duplicate id \(element.id)")
        storage.insert(element, at: index)
        reindex(from: index)
        changeLog.record(element.id)
    }

    /// Removes and returns the element with `id`, if present.
    @inlinable
    @discardableResult
    public mutating func remove(id: ID) -> Element? {
        guard let position = positions[id] else { return nil }
        return remove(at: position)
    }

    /// Removes and returns the element at `index`.
    @inlinable
    @discardableResult
    public mutating func remove(at index: Int) -> Element {
        let element = storage.remove(at: index)
        positions[element.id] = nil
        reindex(from: index)
        changeLog.record(element.id)
        return element
    }

    /// Removes every element.
    @inlinable
    public mutating func removeAll() {
        guard !storage.isEmpty else { return }
        storage.removeAll()
        positions.removeAll()
        changeLog.recordReplacement()
    }

    /// Removes the elements that satisfy `shouldBeRemoved`.
    @inlinable
    public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        let removed = try storage.filter(shouldBeRemoved).map(\.id)
        guard !removed.isEmpty else { return }
        let removedIDs = Set(removed)
        storage.removeAll { removedIDs.contains($0.id) }
        positions = Dictionary(uniqueKeysWithValues: storage.enumerated().map { ($1.id, $0) })
        if removed.count == 1, let id = removed.first {
            changeLog.record(id)
        } else {
            changeLog.recordReplacement()
        }
    }

    /// Moves the element at `source` to `destination`.
    @inlinable
    public mutating func move(from source: Int, to destination: Int) {
        guard source != destination else { return }
        let element = storage.remove(at: source)
        storage.insert(element, at: destination)
        reindex(from: Swift.min(source, destination))
        changeLog.recordReorder()
    }

    /// Sorts the elements in place.
    @inlinable
    public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
        try storage.sort(by: areInIncreasingOrder)
        reindex(from: 0)
        changeLog.recordReorder()
    }

    @inlinable
    mutating func reindex(from start: Int) {
        for position in start..<storage.count {
            positions[storage[position].id] = position
        }
    }

    // MARK: - Change tracking

    /// An opaque stamp that changes with every mutation; equal stamps mean equal contents.
    @inlinable
    package var version: UInt64 { changeLog.version }

    /// The ids of the elements added, removed or changed since the value whose stamp was
    /// `version`, or `nil` when that cannot be told cheaply (the log no longer reaches back that
    /// far, or the whole collection was replaced); compare every element then.
    @inlinable
    package func changedIDs(since version: UInt64) -> [ID]? {
        changeLog.ids(since: version)
    }
}

// MARK: - Collection

extension IdentifiedArray: RandomAccessCollection {
    /// The position of the first element.
    @inlinable
    public var startIndex: Int { storage.startIndex }
    /// The position past the last element.
    @inlinable
    public var endIndex: Int { storage.endIndex }

    /// The element at `position`.
    @inlinable
    public subscript(position: Int) -> Element {
        get { storage[position] }
        set {
            precondition(newValue.id == storage[position].id, "IdentifiedArray: positional assignment must keep the id")
            storage[position] = newValue
            changeLog.record(newValue.id)
        }
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
        lhs.changeLog.version == rhs.changeLog.version || lhs.storage == rhs.storage
    }
}

extension IdentifiedArray: Hashable where Element: Hashable {
    /// Hashes the elements in order.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage)
    }
}

extension IdentifiedArray: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    @inlinable
    public func encode(to encoder: any Encoder) throws {
        try storage.encode(to: encoder)
    }
}

extension IdentifiedArray: Decodable where Element: Decodable {
    /// Decodes an array of elements.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when two elements share an id.
    @inlinable
    public init(from decoder: any Decoder) throws {
        let elements = try [Element](from: decoder)
        self.init()
        for element in elements {
            guard positions[element.id] == nil else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                    debugDescription: "Duplicate id \(element.id) in IdentifiedArray"))
            }
            positions[element.id] = storage.count
            storage.append(element)
        }
        if !storage.isEmpty { changeLog.recordReplacement() }
    }
}

extension IdentifiedArray: CustomStringConvertible {
    /// The elements, rendered like an array.
    @inlinable
    public var description: String { storage.description }
}

extension IdentifiedArray: CustomReflectable {
    /// Reflects as the collection of its elements.
    @inlinable
    public var customMirror: Mirror { Mirror(self, unlabeledChildren: storage, displayStyle: .collection) }
}

// MARK: - Change log

/// Source of version stamps that are unique in the process, so two values can only share a stamp
/// if one is an unmodified copy of the other.
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

        @inlinable
        init(from: UInt64, to: UInt64, id: ID?) {
            self.from = from
            self.to = to
            self.id = id
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
    mutating func record(_ id: ID) { append(id) }

    @inlinable
    mutating func recordReorder() { append(nil) }

    @inlinable
    mutating func recordReplacement() {
        entries.removeAll()
        start = 0
        version = Self.nextVersion()
    }

    @inlinable
    mutating func append(_ id: ID?) {
        let next = Self.nextVersion()
        let entry = Entry(from: version, to: next, id: id)
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
        if past == version { return [] }
        var ids: [ID] = []
        var cursor = version
        var remaining = entries.count
        var index = (start + entries.count - 1) % Swift.max(entries.count, 1)
        while remaining > 0 {
            let entry = entries[index]
            guard entry.to == cursor else { return nil }
            if let id = entry.id { ids.append(id) }
            cursor = entry.from
            if cursor == past { return ids }
            remaining -= 1
            index = (index + entries.count - 1) % entries.count
        }
        return nil
    }

    @inlinable
    static func nextVersion() -> UInt64 {
        versionCounter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
