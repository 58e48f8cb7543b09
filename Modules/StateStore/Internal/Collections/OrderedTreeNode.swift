/// A node of an ``OrderedTree``: a leaf of keyed elements, or a branch of child nodes.
@usableFromInline
final class OrderedTreeNode<Element>: @unchecked Sendable {
    /// A leaf's element keys; a branch's lower bound of each child's keys.
    @exclusivity(unchecked) @usableFromInline var keys: ContiguousArray<Int64>
    @exclusivity(unchecked) @usableFromInline var elements: ContiguousArray<Element>
    @exclusivity(unchecked) @usableFromInline var children: ContiguousArray<OrderedTreeNode>
    /// A branch's count of each child, beside `children`: finding a position reads this one
    /// array, not every child before it.
    @exclusivity(unchecked) @usableFromInline var childCounts: ContiguousArray<Int>
    @exclusivity(unchecked) @usableFromInline var count: Int
    @usableFromInline let isLeaf: Bool

    @inlinable
    init(leafKeys keys: ContiguousArray<Int64>, elements: ContiguousArray<Element>) {
        self.keys = keys
        self.elements = elements
        children = []
        childCounts = []
        count = keys.count
        isLeaf = true
    }

    @inlinable
    init(children: ContiguousArray<OrderedTreeNode>) {
        keys = ContiguousArray(children.map { $0.keys[0] })
        elements = []
        self.children = children
        childCounts = ContiguousArray(children.map(\.count))
        count = childCounts.reduce(0, +)
        isLeaf = false
    }

    @inlinable
    init(copying node: OrderedTreeNode) {
        keys = node.keys
        elements = node.elements
        children = node.children
        childCounts = node.childCounts
        count = node.count
        isLeaf = node.isLeaf
    }

    @inlinable
    func copy() -> OrderedTreeNode { OrderedTreeNode(copying: self) }

    /// Keys (a leaf) or children (a branch).
    @inlinable var itemCount: Int { keys.count }

    /// The child whose key range holds `key`: the last whose lower bound is at most `key`.
    @inlinable
    func childIndex(for key: Int64) -> Int {
        Swift.max(0, keys.insertionIndex(of: key) - 1)
    }

    /// Moves the upper half of this node into a new node and returns it.
    @inlinable
    func split() -> OrderedTreeNode {
        let middle = keys.count / 2
        let sibling: OrderedTreeNode
        if isLeaf {
            sibling = OrderedTreeNode(leafKeys: ContiguousArray(keys[middle...]), elements: ContiguousArray(elements[middle...]))
            elements.removeSubrange(middle...)
        } else {
            let moved = ContiguousArray(children[middle...])
            sibling = OrderedTreeNode(children: moved)
            sibling.keys = ContiguousArray(keys[middle...])
            children.removeSubrange(middle...)
            childCounts.removeSubrange(middle...)
        }
        keys.removeSubrange(middle...)
        count -= sibling.count
        return sibling
    }

    /// After a removal below `child`: drops it when empty, or merges it with a neighbour.
    @inlinable
    func rebalance(child: Int) {
        let size = children[child].itemCount
        if size == 0 {
            keys.remove(at: child)
            children.remove(at: child)
            childCounts.remove(at: child)
            return
        }
        guard size < OrderedTree<Element>.minimumFill else { return }
        let capacity = OrderedTree<Element>.capacity
        if child + 1 < children.count, size + children[child + 1].itemCount <= capacity {
            merge(child + 1, into: child)
        } else if child > 0, size + children[child - 1].itemCount <= capacity {
            merge(child, into: child - 1)
        }
    }

    @inlinable
    func merge(_ right: Int, into left: Int) {
        if !isKnownUniquelyReferenced(&children[left]) { children[left] = children[left].copy() }
        let source = children[right]
        let target = children[left]
        if target.isLeaf {
            target.keys.append(contentsOf: source.keys)
            target.elements.append(contentsOf: source.elements)
        } else {
            var bounds = source.keys
            bounds[0] = Swift.max(bounds[0], keys[right])
            target.keys.append(contentsOf: bounds)
            target.children.append(contentsOf: source.children)
            target.childCounts.append(contentsOf: source.childCounts)
        }
        target.count += source.count
        childCounts[left] += childCounts[right]
        keys.remove(at: right)
        children.remove(at: right)
        childCounts.remove(at: right)
    }
}

extension ContiguousArray where Element == Int64 {
    /// The first position whose key is greater than `key` (where `key` would be inserted).
    @inlinable
    func insertionIndex(of key: Int64) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low &+ high) >> 1
            if self[middle] <= key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    @inlinable
    func exactIndex(of key: Int64) -> Int? {
        let index = insertionIndex(of: key) - 1
        return index >= 0 && self[index] == key ? index : nil
    }
}
