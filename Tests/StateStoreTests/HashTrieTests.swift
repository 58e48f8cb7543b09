import StateStoreTesting
import Testing

@testable import StateStore

@Suite("Hash trie")
struct HashTrieTests {
    /// A key whose hash keeps only `raw % buckets`: with few buckets, keys share whole hashes
    /// (lists of colliding keys); with many, they share the leading pieces (deep subtries).
    struct Key: Hashable, Sendable {
        let raw: Int
        let buckets: Int
        static func == (left: Key, right: Key) -> Bool { left.raw == right.raw }
        func hash(into hasher: inout Hasher) { hasher.combine(raw % buckets) }
    }

    @Test(arguments: [3, 64, Int.max])
    func itAgreesWithADictionaryAndItsCopiesKeepWhatTheyHeld(buckets: Int) {
        var trie = HashTrie<Key, Int>()
        var model: [Key: Int] = [:]
        var random = SeededRandom(seed: UInt64(buckets % 1_000))
        var copies: [([Key: Int], HashTrie<Key, Int>)] = []
        for step in 0..<6_000 {
            let key = Key(raw: Int.random(in: 0..<400, using: &random), buckets: buckets)
            switch Int.random(in: 0..<10, using: &random) {
            case 0...5:
                trie.set(step, for: key)
                model[key] = step
            case 6...8:
                #expect(trie.remove(key) == model.removeValue(forKey: key))
            default:
                copies.append((model, trie))
            }
            #expect(trie[key] == model[key])
        }
        for raw in 0..<400 {
            let key = Key(raw: raw, buckets: buckets)
            #expect(trie[key] == model[key])
        }
        for (held, copy) in copies.suffix(20) {
            for raw in 0..<400 {
                let key = Key(raw: raw, buckets: buckets)
                #expect(copy[key] == held[key])
            }
        }
    }

    @Test func removingEveryKeyLeavesAnEmptyTrieThatGrowsAgain() {
        var trie = HashTrie<Int, Int>()
        for key in 0..<5_000 { trie.set(key * 2, for: key) }
        for key in 0..<5_000 { #expect(trie.remove(key) == key * 2) }
        #expect(trie.root.header.count == 0 && trie.root.header.dataMap | trie.root.header.nodeMap == 0)
        #expect(trie[7] == nil)
        trie.set(1, for: 7)
        #expect(trie[7] == 1)
    }

    @Test func replacedRemovedAndRemainingValuesAreReleased() {
        let released = Counter.Probe()
        do {
            var trie = HashTrie<Key, Tracked>()
            for raw in 0..<300 { trie.set(Tracked(raw, released: released), for: Key(raw: raw, buckets: 7)) }
            let copy = trie
            for raw in 0..<100 { trie.set(Tracked(-raw, released: released), for: Key(raw: raw, buckets: 7)) }
            for raw in 100..<150 { trie.remove(Key(raw: raw, buckets: 7)) }
            #expect(copy[Key(raw: 5, buckets: 7)]?.value == 5)
            #expect(trie[Key(raw: 5, buckets: 7)]?.value == -5)
            #expect(trie[Key(raw: 120, buckets: 7)] == nil)
        }
        #expect(released.count == 400)
    }
}
