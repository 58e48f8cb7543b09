import StateStoreTesting
import Testing

@testable import StateStore

@Suite("Subscriber list")
struct SubscriberListTests {
    /// A subscriber standing for its number; its gap is 0.
    struct Probe: ListedSubscriber, Equatable {
        let value: Int
        static var gap: Probe { Probe(value: 0) }
    }

    /// The subscribers of `list` not cancelled, in delivery order.
    func live(_ list: SubscriberList<Probe>) -> [Int] {
        list.entries.filter { !$0.isGap }.map(\.subscriber.value)
    }

    @Test func itAgreesWithAnOrderedModelThroughInsertsCancelsAndTakingTheFirst() {
        var random = SeededRandom(seed: 59)
        var list = SubscriberList<Probe>()
        var model: [(id: UInt64, value: Int)] = []
        var nextID: UInt64 = 1
        for step in 0..<20_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                list.insert(Probe(value: step), id: nextID)
                model.append((nextID, step))
                nextID += 1
            case 4:
                // An id taken earlier arriving late, as from two threads subscribing at once.
                nextID += 2
                list.insert(Probe(value: step), id: nextID - 1)
                list.insert(Probe(value: -step), id: nextID - 2)
                model.append((nextID - 2, -step))
                model.append((nextID - 1, step))
            case 5..<8 where !model.isEmpty:
                let index = Int.random(in: 0..<model.count, using: &random)
                let removed = list.remove(id: model[index].id)
                let removedAgain = list.remove(id: model[index].id)
                #expect(removed)
                #expect(!removedAgain, "a second cancel finds nothing")
                model.remove(at: index)
            case 8 where !model.isEmpty:
                let first = list.removeFirst()
                #expect(first?.id == model[0].id && first?.subscriber.value == model[0].value)
                model.removeFirst()
            default:
                let removed = list.remove(id: nextID + 1_000)
                #expect(!removed, "an id never given is not there")
            }
            #expect(list.count == model.count)
            if step % 1_000 == 0 {
                #expect(live(list) == model.map(\.value))
                #expect(list.entries.allSatisfy { !$0.isGap || $0.subscriber == .gap }, "a gap keeps nothing of its subscriber")
            }
        }
        #expect(live(list) == model.map(\.value))
        while let first = list.removeFirst() { #expect(first.id == model.removeFirst().id) }
        #expect(model.isEmpty && list.isEmpty && list.entries.isEmpty, "an emptied list keeps no gaps")
    }

    @Test func cancellingMostSubscribersLetsTheirGapsGo() {
        var list = SubscriberList<Probe>()
        for id in 1...1_000 { list.insert(Probe(value: id), id: UInt64(id)) }
        for id in 1...900 where id % 10 != 0 { list.remove(id: UInt64(id)) }
        #expect(list.count == 190)
        #expect(list.entries.count < 2 * 190, "gaps are dropped once they outnumber subscribers")
        #expect(live(list) == (1...1_000).filter { $0 > 900 || $0 % 10 == 0 })
    }
}
