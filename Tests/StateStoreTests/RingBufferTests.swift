import StateStoreTesting
import Testing

@testable import StateStore

@Suite("Ring buffer")
struct RingBufferTests {
    @Test func itIsAQueueThatWrapsGrowsAndCopiesOnWrite() {
        var buffer = RingBuffer<Int>()
        var model: [Int] = []
        var random = SeededRandom(seed: 5)
        var copies: [([Int], RingBuffer<Int>)] = []
        for step in 0..<5_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...4:
                buffer.append(step)
                model.append(step)
            case 5...6:
                #expect(buffer.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            case 7:
                #expect(buffer.popLast() == model.popLast())
            default:
                // A copy keeps what it held while the original goes on changing.
                copies.append((model, buffer))
            }
            #expect(buffer.count == model.count)
            if let offset = model.indices.randomElement(using: &random) { #expect(buffer[offset] == model[offset]) }
        }
        for (held, copy) in copies.suffix(50) {
            #expect(copy.count == held.count)
            #expect((0..<copy.count).map { copy[$0] } == held)
        }
    }

    @Test func droppedAndRemainingElementsAreReleased() {
        let released = Counter.Probe()
        do {
            var buffer = RingBuffer<Tracked>()
            for value in 0..<100 { buffer.append(Tracked(value, released: released)) }
            for _ in 0..<30 { _ = buffer.popFirst() }
            for value in 100..<150 { buffer.append(Tracked(value, released: released)) }
            let copy = buffer
            buffer.append(Tracked(150, released: released))
            #expect(copy.count == 120 && buffer.count == 121)
            #expect(buffer[0].value == 30 && buffer[120].value == 150)
        }
        #expect(released.count == 151)
    }
}
