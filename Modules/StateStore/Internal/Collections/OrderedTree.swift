/// A persistent sequence of elements sorted by an integer key: a B+ tree whose nodes are shared
/// between copies and copied only along the path a mutation takes.
@usableFromInline
struct OrderedTree<Element>: @unchecked Sendable {
    @usableFromInline typealias Node = OrderedTreeNode<Element>

    @usableFromInline var root: Node

    /// Most elements a leaf holds, and most children a branch holds, before it splits.
    @inlinable static var capacity: Int { 32 }
    /// A node with fewer items than this is merged with a neighbour when they fit in one.
    @inlinable static var minimumFill: Int { 8 }

    @inlinable
    init() {
        root = Node(leafKeys: [], elements: [])
    }

    /// A tree of `elements` with `keys`, which must be strictly increasing.
    @inlinable
    init(keys: ContiguousArray<Int64>, elements: ContiguousArray<Element>) {
        guard keys.count > Self.capacity else {
            root = Node(leafKeys: keys, elements: elements)
            return
        }
        // Leaves three quarters full, so the next inserts do not split them at once.
        let fill = Self.capacity * 3 / 4
        var level: [Node] = []
        level.reserveCapacity(keys.count / fill + 1)
        var start = 0
        while start < keys.count {
            let end = Swift.min(start + fill, keys.count)
            level.append(Node(leafKeys: ContiguousArray(keys[start..<end]), elements: ContiguousArray(elements[start..<end])))
            start = end
        }
        while level.count > 1 {
            var parents: [Node] = []
            parents.reserveCapacity(level.count / fill + 1)
            var start = 0
            while start < level.count {
                let end = Swift.min(start + fill, level.count)
                parents.append(Node(children: ContiguousArray(level[start..<end])))
                start = end
            }
            level = parents
        }
        root = level[0]
    }

    @inlinable var count: Int { root.count }

    @inlinable var isEmpty: Bool { root.count == 0 }

    // MARK: - Reading

    /// The leaf holding position `position`, and the position within it.
    @inlinable
    func leaf(containing position: Int) -> (Node, Int) {
        // Unretained: `self` keeps every node alive while it is read.
        unowned(unsafe) var node = root
        var offset = position
        while !node.isLeaf {
            let child = node.childCounts.withUnsafeBufferPointer { counts in
                var child = 0
                while offset >= counts[child] {
                    offset -= counts[child]
                    child += 1
                }
                return child
            }
            node = node.children[child]
        }
        return (node, offset)
    }

    @inlinable
    func element(at position: Int) -> Element {
        let (leaf, offset) = leaf(containing: position)
        return leaf.elements[offset]
    }

    @inlinable
    func key(at position: Int) -> Int64 {
        let (leaf, offset) = leaf(containing: position)
        return leaf.keys[offset]
    }

    @inlinable
    func element(forKey key: Int64) -> Element? {
        // Unretained: `self` keeps every node alive while it is read.
        unowned(unsafe) var node = root
        while !node.isLeaf { node = node.children[node.childIndex(for: key)] }
        guard let offset = node.keys.exactIndex(of: key) else { return nil }
        return node.elements[offset]
    }

    @inlinable
    func position(ofKey key: Int64) -> Int? {
        // Unretained: `self` keeps every node alive while it is read.
        unowned(unsafe) var node = root
        var position = 0
        while !node.isLeaf {
            let child = node.childIndex(for: key)
            position += node.childCounts.withUnsafeBufferPointer { $0[..<child].reduce(0, +) }
            node = node.children[child]
        }
        guard let offset = node.keys.exactIndex(of: key) else { return nil }
        return position + offset
    }

    // MARK: - Changing

    /// Changes the element with `key`, which must be present, in place.
    @inlinable
    mutating func modify<Result>(key: Int64, _ body: (inout Element) throws -> Result) rethrows -> Result {
        try Self.modify(key: key, in: &root, body)
    }

    @inlinable
    static func modify<Result>(key: Int64, in node: inout Node, _ body: (inout Element) throws -> Result) rethrows -> Result {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        if node.isLeaf {
            guard let offset = node.keys.exactIndex(of: key) else { preconditionFailure("OrderedTree: no key \(key)") }
            return try body(&node.elements[offset])
        }
        let child = node.childIndex(for: key)
        return try modify(key: key, in: &node.children[child], body)
    }

    /// Inserts `element` under `key`, which must not be in the tree yet.
    @inlinable
    mutating func insert(_ element: Element, key: Int64) {
        if let sibling = Self.insert(element, key: key, into: &root) {
            root = Node(children: [root, sibling])
        }
    }

    /// Inserts into the subtree at `node`; returns the new right half when `node` had to split.
    @inlinable
    static func insert(_ element: Element, key: Int64, into node: inout Node) -> Node? {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        node.count += 1
        if node.isLeaf {
            let offset = node.keys.insertionIndex(of: key)
            node.keys.insert(key, at: offset)
            node.elements.insert(element, at: offset)
            return node.keys.count > capacity ? node.split() : nil
        }
        let child = node.childIndex(for: key)
        if key < node.keys[child] { node.keys[child] = key }
        node.childCounts[child] += 1
        guard let sibling = insert(element, key: key, into: &node.children[child]) else { return nil }
        node.childCounts[child] -= sibling.count
        node.keys.insert(sibling.keys[0], at: child + 1)
        node.children.insert(sibling, at: child + 1)
        node.childCounts.insert(sibling.count, at: child + 1)
        return node.children.count > capacity ? node.split() : nil
    }

    /// Removes and returns the element with `key`, which must be present.
    @inlinable
    @discardableResult
    mutating func remove(key: Int64) -> Element {
        let removed = Self.remove(key: key, from: &root)
        if !root.isLeaf, root.children.count == 1 { root = root.children[0] }
        return removed
    }

    @inlinable
    static func remove(key: Int64, from node: inout Node) -> Element {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        node.count -= 1
        if node.isLeaf {
            guard let offset = node.keys.exactIndex(of: key) else { preconditionFailure("OrderedTree: no key \(key)") }
            node.keys.remove(at: offset)
            return node.elements.remove(at: offset)
        }
        let child = node.childIndex(for: key)
        node.childCounts[child] -= 1
        let removed = remove(key: key, from: &node.children[child])
        node.rebalance(child: child)
        return removed
    }
}

// MARK: - Iteration

extension OrderedTree {
    /// Visits the elements in key order, a leaf at a time.
    @usableFromInline
    struct Iterator: IteratorProtocol {
        @usableFromInline var leaf: ContiguousArray<Element>
        @usableFromInline var offset = 0
        /// The branches above the current leaf, with the position of the child being visited.
        @usableFromInline var path: [(Node, Int)] = []

        @inlinable
        init(root: Node) {
            var node = root
            while !node.isLeaf {
                path.append((node, 0))
                node = node.children[0]
            }
            leaf = node.elements
        }

        @inlinable
        mutating func next() -> Element? {
            if offset < leaf.count {
                defer { offset += 1 }
                return leaf[offset]
            }
            return nextLeaf() ? next() : nil
        }

        @inlinable
        mutating func nextLeaf() -> Bool {
            while let (node, child) = path.popLast() {
                guard child + 1 < node.children.count else { continue }
                path.append((node, child + 1))
                var next = node.children[child + 1]
                while !next.isLeaf {
                    path.append((next, 0))
                    next = next.children[0]
                }
                leaf = next.elements
                offset = 0
                return true
            }
            return false
        }
    }

    @inlinable
    func makeIterator() -> Iterator { Iterator(root: root) }

    /// Whether both trees hold equivalent elements in the same order; subtrees they share are
    /// skipped, so comparing a tree with a changed copy costs the path that changed.
    @inlinable
    static func elementsEqual(_ lhs: Node, _ rhs: Node, by areEquivalent: (Element, Element) throws -> Bool) rethrows -> Bool {
        if lhs === rhs { return true }
        guard lhs.count == rhs.count else { return false }
        if lhs.isLeaf, rhs.isLeaf {
            return try lhs.elements.elementsEqual(rhs.elements, by: areEquivalent)
        }
        if !lhs.isLeaf, !rhs.isLeaf, lhs.childCounts == rhs.childCounts {
            for (left, right) in zip(lhs.children, rhs.children) where try !elementsEqual(left, right, by: areEquivalent) {
                return false
            }
            return true
        }
        var left = Iterator(root: lhs)
        var right = Iterator(root: rhs)
        while let element = left.next() {
            guard let other = right.next(), try areEquivalent(element, other) else { return false }
        }
        return true
    }
}
