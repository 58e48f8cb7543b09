import Foundation
import Models
import Reducers
import StateStore

/// A console session's note ids, in step with its store: short ids shown, and ids typed.
final class NoteIDs: Sendable {
    private let index = Locked(NoteIDIndex())
    private let currentNotes: @Sendable () -> IdentifiedArray<Notes.Item>

    init(store: RootStore<AppFeature.State, AppFeature.Action>) {
        currentNotes = { store.currentState.notes.items }
    }

    /// Runs `body` on the index brought up to date with `notes`, or with the store's notes.
    private func withIndex<Result>(of notes: IdentifiedArray<Notes.Item>? = nil, _ body: (NoteIDIndex) -> Result) -> Result {
        let notes = notes ?? currentNotes()
        return index.withLock { index in
            index.update(to: notes)
            return body(index)
        }
    }

    /// The short ids of `ids`, in their order, among `notes` (by default the store's).
    func shortIDs(of ids: [Note.ID], among notes: IdentifiedArray<Notes.Item>? = nil) -> [String] {
        ids.isEmpty ? [] : withIndex(of: notes) { index in ids.map(index.shortID) }
    }

    func allShortIDs() -> [String] {
        let notes = currentNotes()
        return shortIDs(of: notes.ids, among: notes)
    }

    func resolve(_ typed: String) -> NoteIDIndex.Resolution {
        withIndex { $0.resolve(typed) }
    }
}

/// The note ids a console knows, indexed by their hex digits from either end: short ids shown and
/// ids typed both cost O(32) digit steps, however many notes there are.
struct NoteIDIndex {
    /// Ids by their digits from the start, for typed starts.
    private var starts = HexTrie()
    /// Ids by their digits from the end, for short ids and typed ends.
    private var ends = HexTrie()
    /// The notes indexed; `nil` until the first update.
    private var indexed: IdentifiedArray<Notes.Item>?

    static let minimumLength = 4

    mutating func update(to items: IdentifiedArray<Notes.Item>) {
        if let indexed, items.version == indexed.version { return }
        if let indexed, let changed = items.changedIDs(since: indexed.version) {
            var seen: [Note.ID] = []
            for id in changed where !seen.contains(id) {
                seen.append(id)
                let isIndexed = indexed.contains(id: id)
                let isPresent = items.contains(id: id)
                if isPresent && !isIndexed { add(id) }
                if !isPresent && isIndexed { remove(id) }
            }
        } else {
            starts = HexTrie()
            ends = HexTrie()
            for item in items { add(item.id) }
        }
        indexed = items
    }

    private mutating func add(_ id: Note.ID) {
        let digits = HexDigits(id)
        starts.insert(digits)
        ends.insert(digits.reversed)
    }

    private mutating func remove(_ id: Note.ID) {
        let digits = HexDigits(id)
        starts.remove(digits)
        ends.remove(digits.reversed)
    }

    /// The short id of `id`: the fewest last digits (at least ``minimumLength``) only it has.
    func shortID(_ id: Note.ID) -> String {
        let digits = HexDigits(id)
        let length = max(Self.minimumLength, ends.distinguishingLength(of: digits.reversed))
        return digits.text(last: length)
    }

    enum Resolution: Equatable {
        case note(Note.ID)
        case none
        case several(Int)
    }

    /// The note whose id is `typed`, or starts or ends with it (any case, hyphens optional).
    func resolve(_ typed: String) -> Resolution {
        guard let digits = HexDigits(typed: typed) else { return .none }
        var matches = Set(starts.values(startingWith: digits, limit: 2))
        matches.formUnion(ends.values(startingWith: digits.reversed, limit: 2).map(\.reversed))
        switch matches.count {
        case 0: return .none
        case 1: return matches.first.map { .note($0.id) } ?? .none
        default:
            let all = Set(starts.values(startingWith: digits, limit: .max))
                .union(ends.values(startingWith: digits.reversed, limit: .max).map(\.reversed))
            return .several(all.count)
        }
    }
}

/// Up to 32 hex digits, most significant first, packed in two integers.
struct HexDigits: Hashable {
    var high: UInt64
    var low: UInt64
    /// How many digits there are; typed ids may be shorter than 32.
    var count: Int

    init(_ id: Note.ID) {
        (high, low) = id.bits
        count = 32
    }

    /// The digits of a typed id (hyphens ignored); `nil` for anything else or over 32 digits.
    init?(typed: String) {
        high = 0
        low = 0
        count = 0
        for byte in typed.utf8 where byte != UInt8(ascii: "-") {
            guard count < 32, let value = Self.value(of: byte) else { return nil }
            self[count] = value
            count += 1
        }
        guard count > 0 else { return nil }
    }

    fileprivate init(high: UInt64, low: UInt64, count: Int) {
        self.high = high
        self.low = low
        self.count = count
    }

    static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Digit `position`, counted from the most significant.
    subscript(position: Int) -> UInt8 {
        get {
            let shift = UInt64(60 - 4 * (position % 16))
            return UInt8(truncatingIfNeeded: ((position < 16 ? high : low) >> shift) & 0xF)
        }
        set {
            let shift = UInt64(60 - 4 * (position % 16))
            let cleared = ~(UInt64(0xF) << shift)
            if position < 16 {
                high = high & cleared | UInt64(newValue) << shift
            } else {
                low = low & cleared | UInt64(newValue) << shift
            }
        }
    }

    var reversed: HexDigits {
        var result = HexDigits(high: 0, low: 0, count: count)
        for position in 0..<count { result[position] = self[count - 1 - position] }
        return result
    }

    var id: Note.ID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for position in 0..<16 {
            bytes[position] = self[2 * position] << 4 | self[2 * position + 1]
        }
        let uuid = (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        )
        return Note.ID(UUID(uuid: uuid))
    }

    func text(last length: Int) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: (count - length..<count).map { digits[Int(self[$0])] }, as: UTF8.self)
    }
}

/// A set of 32-digit values, as a trie over their hex digits with a count in every node.
struct HexTrie {
    private struct Node {
        var count = 0
        /// Where this node's 16 children start in `children`; `nil` for a node with one value.
        var block: Int?
        /// The node's only value, when `count` is 1.
        var value = HexDigits(high: 0, low: 0, count: 32)
    }

    private var nodes = [Node()]
    private var children: [Int32] = []
    private var freeNodes: [Int] = []
    private var freeBlocks: [Int] = []

    private mutating func makeNode(holding value: HexDigits) -> Int32 {
        let node = Node(count: 1, block: nil, value: value)
        if let reused = freeNodes.popLast() {
            nodes[reused] = node
            return Int32(reused)
        }
        nodes.append(node)
        return Int32(nodes.count - 1)
    }

    private mutating func makeBlock() -> Int {
        if let reused = freeBlocks.popLast() { return reused }
        children += repeatElement(0, count: 16)
        return children.count - 16
    }

    mutating func insert(_ value: HexDigits) {
        var node = 0
        var depth = 0
        while true {
            nodes[node].count += 1
            if nodes[node].count == 1 {
                nodes[node].value = value
                return
            }
            if nodes[node].block == nil {
                // It held one value: move that one down a level.
                let block = makeBlock()
                let existing = nodes[node].value
                nodes[node].block = block
                children[block + Int(existing[depth])] = makeNode(holding: existing)
            }
            let slot = (nodes[node].block ?? 0) + Int(value[depth])
            if children[slot] == 0 {
                children[slot] = makeNode(holding: value)
                return
            }
            node = Int(children[slot])
            depth += 1
        }
    }

    mutating func remove(_ value: HexDigits) {
        var node = 0
        var depth = 0
        var collapseAt: Int?
        while true {
            nodes[node].count -= 1
            if collapseAt == nil, nodes[node].count == 1, nodes[node].block != nil { collapseAt = node }
            guard let block = nodes[node].block else { break }
            let slot = block + Int(value[depth])
            let child = Int(children[slot])
            if nodes[child].count == 1 {
                children[slot] = 0
                freeNodes.append(child)
                if collapseAt == nil { return }
                break
            }
            node = child
            depth += 1
        }
        if let collapseAt { collapse(collapseAt) }
    }

    /// Turns a node left with one value into a leaf holding it, freeing the nodes below.
    private mutating func collapse(_ top: Int) {
        var node = top
        while let block = nodes[node].block {
            guard let slot = (block..<block + 16).first(where: { children[$0] != 0 }) else { break }
            let child = Int(children[slot])
            children[slot] = 0
            freeBlocks.append(block)
            if node != top { freeNodes.append(node) }
            nodes[node].block = nil
            node = child
        }
        nodes[top].value = nodes[node].value
        nodes[top].block = nil
        if node != top { freeNodes.append(node) }
    }

    /// How many leading digits of `value` no other value shares, plus one: the length of the
    /// shortest start of `value` that only `value` has (32 when another value is identical).
    func distinguishingLength(of value: HexDigits) -> Int {
        var node = 0
        var depth = 0
        while depth < 32 {
            guard let block = nodes[node].block else {
                // A node with one value: if it is another value, they share more digits.
                guard nodes[node].count == 1, nodes[node].value != value else { return depth }
                var shared = depth
                while shared < 32, nodes[node].value[shared] == value[shared] { shared += 1 }
                return min(32, shared + 1)
            }
            let child = Int(children[block + Int(value[depth])])
            depth += 1
            if child == 0 || (nodes[child].count == 1 && nodes[child].value == value) { return depth }
            node = child
        }
        return 32
    }

    func values(startingWith prefix: HexDigits, limit: Int) -> [HexDigits] {
        var node = 0
        for depth in 0..<prefix.count {
            guard nodes[node].count > 0 else { return [] }
            guard let block = nodes[node].block else {
                let value = nodes[node].value
                return (depth..<prefix.count).allSatisfy { value[$0] == prefix[$0] } ? [value] : []
            }
            let child = Int(children[block + Int(prefix[depth])])
            guard child != 0 else { return [] }
            node = child
        }
        var found: [HexDigits] = []
        var pending = [node]
        while let next = pending.popLast(), found.count < limit {
            guard nodes[next].count > 0 else { continue }
            guard let block = nodes[next].block else {
                found.append(nodes[next].value)
                continue
            }
            pending += children[block..<block + 16].filter { $0 != 0 }.map(Int.init)
        }
        return found
    }
}
