/// A persistent hash map (a compressed hash-array mapped trie): copies share their nodes, and a
/// change copies only the few nodes on its key's path.
@usableFromInline
struct HashTrie<Key: Hashable, Value>: @unchecked Sendable {
    @usableFromInline typealias Node = HashTrieNode<Key, Value>

    @usableFromInline var root = Node()

    @inlinable
    init() {}

    @inlinable
    static func hash(_ key: Key) -> UInt64 { UInt64(bitPattern: Int64(key.hashValue)) }

    @inlinable
    subscript(key: Key) -> Value? {
        let hash = Self.hash(key)
        // Unretained: `self` keeps every node alive while it is read.
        unowned(unsafe) var node = root
        var shift: UInt64 = 0
        while shift < 64 {
            let bit = Node.bit(hash, shift)
            if node.dataMap & bit != 0 {
                let entry = node.entries[Node.index(node.dataMap, bit)]
                return entry.key == key ? entry.value : nil
            }
            guard node.nodeMap & bit != 0 else { return nil }
            node = node.children[Node.index(node.nodeMap, bit)]
            shift += 5
        }
        return node.entries.first { $0.key == key }?.value
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
            if let index = node.entries.firstIndex(where: { $0.key == key }) {
                node.entries[index].value = value
            } else {
                node.entries.append(Node.Entry(key: key, value: value))
            }
            return
        }
        let bit = Node.bit(hash, shift)
        if node.dataMap & bit != 0 {
            let index = Node.index(node.dataMap, bit)
            if node.entries[index].key == key {
                node.entries[index].value = value
                return
            }
            // Two keys share this slot: push both one level down.
            let other = node.entries.remove(at: index)
            node.dataMap &= ~bit
            let pair = Node.pair(other.key, other.value, Self.hash(other.key), key, value, hash, shift: shift + 5)
            node.nodeMap |= bit
            node.children.insert(pair, at: Node.index(node.nodeMap, bit))
        } else if node.nodeMap & bit != 0 {
            set(value, for: key, hash: hash, shift: shift + 5, in: &node.children[Node.index(node.nodeMap, bit)])
        } else {
            node.dataMap |= bit
            node.entries.insert(Node.Entry(key: key, value: value), at: Node.index(node.dataMap, bit))
        }
    }

    /// Removes `key`, which is present.
    @inlinable
    static func remove(_ key: Key, hash: UInt64, shift: UInt64, from node: inout Node) -> Value? {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        guard shift < 64 else {
            guard let index = node.entries.firstIndex(where: { $0.key == key }) else { return nil }
            return node.entries.remove(at: index).value
        }
        let bit = Node.bit(hash, shift)
        if node.dataMap & bit != 0 {
            let index = Node.index(node.dataMap, bit)
            guard node.entries[index].key == key else { return nil }
            node.dataMap &= ~bit
            return node.entries.remove(at: index).value
        }
        guard node.nodeMap & bit != 0 else { return nil }
        let childIndex = Node.index(node.nodeMap, bit)
        let removed = remove(key, hash: hash, shift: shift + 5, from: &node.children[childIndex])
        let child = node.children[childIndex]
        if child.children.isEmpty, child.entries.count <= 1 {
            // A child left with one entry (or none) moves it back up, keeping the trie shallow.
            node.nodeMap &= ~bit
            node.children.remove(at: childIndex)
            if let only = child.entries.first {
                node.dataMap |= bit
                node.entries.insert(only, at: Node.index(node.dataMap, bit))
            }
        }
        return removed
    }
}

/// A node of a ``HashTrie``: entries inline and subtries, in slots its 5 hash bits select.
@usableFromInline
final class HashTrieNode<Key: Hashable, Value>: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var dataMap: UInt32 = 0
    @exclusivity(unchecked) @usableFromInline var nodeMap: UInt32 = 0
    /// A key with its value, side by side: a lookup reads one buffer.
    @usableFromInline
    struct Entry {
        @usableFromInline let key: Key
        @usableFromInline var value: Value

        @inlinable
        init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    @exclusivity(unchecked) @usableFromInline var entries: ContiguousArray<Entry> = []
    @exclusivity(unchecked) @usableFromInline var children: ContiguousArray<HashTrieNode> = []

    @inlinable
    init() {}

    @inlinable
    func copy() -> HashTrieNode {
        let node = HashTrieNode()
        node.dataMap = dataMap
        node.nodeMap = nodeMap
        node.entries = entries
        node.children = children
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
        let node = HashTrieNode()
        let (entry1, entry2) = (Entry(key: key1, value: value1), Entry(key: key2, value: value2))
        guard shift < 64 else {
            node.entries = [entry1, entry2]
            return node
        }
        let bit1 = bit(hash1, shift)
        let bit2 = bit(hash2, shift)
        if bit1 == bit2 {
            node.nodeMap = bit1
            node.children = [pair(key1, value1, hash1, key2, value2, hash2, shift: shift + 5)]
        } else {
            node.dataMap = bit1 | bit2
            node.entries = bit1 < bit2 ? [entry1, entry2] : [entry2, entry1]
        }
        return node
    }
}
