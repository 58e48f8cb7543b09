/// A persistent hash map (a compressed hash-array mapped trie): copies share their nodes, and a
/// change copies only the few nodes on its key's path.
@usableFromInline
struct HashTrie<Key: Hashable, Value>: @unchecked Sendable {
    @usableFromInline typealias Node = HashTrieNode<Key, Value>

    @usableFromInline var root = Node.make(dataMap: 0, nodeMap: 0, count: 0)

    @inlinable
    init() {}

    @inlinable
    static func hash(_ key: Key) -> UInt64 { UInt64(bitPattern: Int64(key.hashValue)) }

    @inlinable
    subscript(key: Key) -> Value? {
        let hash = Self.hash(key)
        // Unretained: `self` keeps every node alive while it is read.
        var node = Unmanaged.passUnretained(root)
        var shift: UInt64 = 0
        while shift < 64 {
            let bit = Node.bit(hash, shift)
            let next: HashTrieStep<Value, Node> = node._withUnsafeGuaranteedRef { node in
                node.withUnsafeMutablePointers { header, slots in
                    let map = header.pointee.dataMap | header.pointee.nodeMap
                    guard map & bit != 0 else { return .found(nil) }
                    // Sound: a set bit has its slot, below `count`.
                    switch slots[Node.index(map, bit)] {
                    case .entry(let found, let value): return .found(found == key ? value : nil)
                    case .child(let child): return .descend(Unmanaged.passUnretained(child))
                    }
                }
            }
            switch next {
            case .found(let value): return value
            case .descend(let child): node = child
            }
            shift += 5
        }
        return node._withUnsafeGuaranteedRef { node in
            node.withUnsafeMutablePointers { header, slots in
                for index in 0..<header.pointee.count {
                    if case .entry(let found, let value) = slots[index], found == key { return value }
                }
                return nil
            }
        }
    }

    @inlinable
    mutating func set(_ value: Value, for key: Key) {
        Self.set(value, for: key, hash: Self.hash(key), shift: 0, in: &root)
    }

    @inlinable
    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard self[key] != nil else { return nil }
        return Self.remove(key, hash: Self.hash(key), shift: 0, from: &root)
    }

    @inlinable
    static func set(_ value: Value, for key: Key, hash: UInt64, shift: UInt64, in node: inout Node) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        guard shift < 64 else {
            // Every bit of the hash is used up: a list of colliding keys.
            let count = node.header.count
            for index in 0..<count {
                if case .entry(let found, _) = node.slot(at: index), found == key {
                    node.replace(at: index, with: .entry(key, value))
                    return
                }
            }
            node = node.inserting(.entry(key, value), at: count)
            return
        }
        let bit = Node.bit(hash, shift)
        let header = node.header
        let index = Node.index(header.dataMap | header.nodeMap, bit)
        if header.dataMap & bit != 0 {
            guard case .entry(let other, let otherValue) = node.slot(at: index) else { preconditionFailure("HashTrie: a data bit without an entry") }
            if other == key {
                node.replace(at: index, with: .entry(key, value))
                return
            }
            // Two keys share this slot: push both one level down, in the slot they shared.
            let pair = Node.pair(other, otherValue, Self.hash(other), key, value, hash, shift: shift + 5)
            node.header.dataMap &= ~bit
            node.header.nodeMap |= bit
            node.replace(at: index, with: .child(pair))
        } else if header.nodeMap & bit != 0 {
            node.modifyChild(at: index) { set(value, for: key, hash: hash, shift: shift + 5, in: &$0) }
        } else {
            node.header.dataMap |= bit
            node = node.inserting(.entry(key, value), at: index)
        }
    }

    /// Removes `key`, which is present.
    @inlinable
    static func remove(_ key: Key, hash: UInt64, shift: UInt64, from node: inout Node) -> Value? {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        guard shift < 64 else {
            for index in 0..<node.header.count {
                if case .entry(let found, let value) = node.slot(at: index), found == key {
                    node = node.removing(at: index)
                    return value
                }
            }
            return nil
        }
        let bit = Node.bit(hash, shift)
        let header = node.header
        let index = Node.index(header.dataMap | header.nodeMap, bit)
        if header.dataMap & bit != 0 {
            guard case .entry(let found, let value) = node.slot(at: index), found == key else { return nil }
            node.header.dataMap &= ~bit
            node = node.removing(at: index)
            return value
        }
        guard header.nodeMap & bit != 0 else { return nil }
        var removed: Value?
        // A subtrie holds two keys or more: one left with a single entry gives it back up,
        // keeping the trie shallow.
        var onlyEntry: Node.Slot?
        node.modifyChild(at: index) { child in
            removed = remove(key, hash: hash, shift: shift + 5, from: &child)
            if child.header.nodeMap == 0, child.header.count == 1 { onlyEntry = child.slot(at: 0) }
        }
        if let onlyEntry {
            node.header.nodeMap &= ~bit
            node.header.dataMap |= bit
            node.replace(at: index, with: onlyEntry)
        }
        return removed
    }
}

/// Where a ``HashTrieNode``'s slots say their kind: the bits its 5 hash bits select hold an
/// entry (`dataMap`) or a subtrie (`nodeMap`); a list of colliding keys has neither, only `count`.
@usableFromInline
struct HashTrieNodeHeader {
    @usableFromInline var dataMap: UInt32
    @usableFromInline var nodeMap: UInt32
    @usableFromInline var count: Int

    @inlinable
    init(dataMap: UInt32, nodeMap: UInt32, count: Int) {
        self.dataMap = dataMap
        self.nodeMap = nodeMap
        self.count = count
    }
}

/// A node of a ``HashTrie``: its entries and subtries in one allocation, in the order of their
/// bits, so that a lookup reads one block per level.
@usableFromInline
final class HashTrieNode<Key: Hashable, Value>: ManagedBuffer<HashTrieNodeHeader, HashTrieSlot<Key, Value>> {
    @usableFromInline typealias Slot = HashTrieSlot<Key, Value>

    deinit {
        // Sound: the first `count` slots are initialized, and nothing else refers to them now.
        _ = withUnsafeMutablePointers { header, slots in slots.deinitialize(count: header.pointee.count) }
    }

    /// A node of `count` slots, which `initialize` must initialize.
    @inlinable
    static func make(
        dataMap: UInt32, nodeMap: UInt32, count: Int,
        initialize: (UnsafeMutablePointer<Slot>) -> Void = { _ in }
    ) -> HashTrieNode {
        let buffer = create(minimumCapacity: count) { _ in HashTrieNodeHeader(dataMap: dataMap, nodeMap: nodeMap, count: count) }
        // Sound: `create` called on this class makes an instance of it.
        let node = unsafeDowncast(buffer, to: HashTrieNode.self)
        node.withUnsafeMutablePointerToElements(initialize)
        return node
    }

    @inlinable
    func slot(at index: Int) -> Slot {
        // Sound: callers pass an index below `count`.
        withUnsafeMutablePointerToElements { $0[index] }
    }

    /// Replaces an initialized slot (the node is uniquely referenced).
    @inlinable
    func replace(at index: Int, with slot: Slot) {
        // Sound: as in `slot(at:)`; assignment releases the slot's former value.
        withUnsafeMutablePointerToElements { $0[index] = slot }
    }

    /// Changes the subtrie at `index` in place: moved out while `body` runs, so that a subtrie
    /// only this node holds stays uniquely referenced.
    @inlinable
    func modifyChild(at index: Int, _ body: (inout HashTrieNode) -> Void) {
        withUnsafeMutablePointerToElements { slots in
            // Sound: the slot is initialized, moved out here and initialized again below.
            guard case .child(var child) = (slots + index).move() else { preconditionFailure("HashTrie: a node bit without a subtrie") }
            body(&child)
            (slots + index).initialize(to: .child(child))
        }
    }

    /// A copy of this node; its slots are retained by both.
    @inlinable
    func copy() -> HashTrieNode {
        let header = header
        return withUnsafeMutablePointerToElements { slots in
            // Sound: both ranges hold `count` slots, the source initialized, the target not.
            Self.make(dataMap: header.dataMap, nodeMap: header.nodeMap, count: header.count) { $0.initialize(from: slots, count: header.count) }
        }
    }

    /// This node's slots with `slot` at `index`, in a new node (this one, uniquely referenced,
    /// is left empty); the maps are this node's, already updated by the caller.
    @inlinable
    func inserting(_ slot: Slot, at index: Int) -> HashTrieNode {
        let old = header
        let node = Self.make(dataMap: old.dataMap, nodeMap: old.nodeMap, count: old.count + 1) { target in
            withUnsafeMutablePointerToElements { source in
                // Sound: the source's slots move to the target's uninitialized ones, and the
                // source's count drops to 0 below, so that its deinit does not release them.
                target.moveInitialize(from: source, count: index)
                (target + index).initialize(to: slot)
                (target + index + 1).moveInitialize(from: source + index, count: old.count - index)
            }
        }
        header.count = 0
        return node
    }

    /// This node's slots without the one at `index`, in a new node (this one, uniquely
    /// referenced, is left empty); the maps are this node's, already updated by the caller.
    @inlinable
    func removing(at index: Int) -> HashTrieNode {
        let old = header
        let node = Self.make(dataMap: old.dataMap, nodeMap: old.nodeMap, count: old.count - 1) { target in
            withUnsafeMutablePointers { _, source in
                // Sound: as in `inserting`; the removed slot is deinitialized here.
                target.moveInitialize(from: source, count: index)
                (source + index).deinitialize(count: 1)
                (target + index).moveInitialize(from: source + index + 1, count: old.count - index - 1)
            }
        }
        header.count = 0
        return node
    }

    @inlinable
    static func bit(_ hash: UInt64, _ shift: UInt64) -> UInt32 {
        1 << UInt32(truncatingIfNeeded: (hash >> shift) & 31)
    }

    @inlinable
    static func index(_ map: UInt32, _ bit: UInt32) -> Int {
        (map & (bit &- 1)).nonzeroBitCount
    }

    /// A node holding two different keys, as deep as their hashes need to part.
    @inlinable
    static func pair(_ key1: Key, _ value1: Value, _ hash1: UInt64, _ key2: Key, _ value2: Value, _ hash2: UInt64, shift: UInt64) -> HashTrieNode {
        let (entry1, entry2) = (Slot.entry(key1, value1), Slot.entry(key2, value2))
        guard shift < 64 else {
            return make(dataMap: 0, nodeMap: 0, count: 2) { slots in
                slots.initialize(to: entry1)
                (slots + 1).initialize(to: entry2)
            }
        }
        let bit1 = bit(hash1, shift)
        let bit2 = bit(hash2, shift)
        if bit1 == bit2 {
            let child = pair(key1, value1, hash1, key2, value2, hash2, shift: shift + 5)
            return make(dataMap: 0, nodeMap: bit1, count: 1) { $0.initialize(to: .child(child)) }
        }
        let (first, second) = bit1 < bit2 ? (entry1, entry2) : (entry2, entry1)
        return make(dataMap: bit1 | bit2, nodeMap: 0, count: 2) { slots in
            slots.initialize(to: first)
            (slots + 1).initialize(to: second)
        }
    }
}

/// Where a lookup goes from one node: done, or down to a subtrie `self` keeps alive.
@usableFromInline
enum HashTrieStep<Value, Node: AnyObject> {
    case found(Value?)
    case descend(Unmanaged<Node>)
}

/// A slot of a ``HashTrieNode``: an entry, or the subtrie of the keys that share its hash bits.
@usableFromInline
enum HashTrieSlot<Key: Hashable, Value> {
    case entry(Key, Value)
    case child(HashTrieNode<Key, Value>)
}
