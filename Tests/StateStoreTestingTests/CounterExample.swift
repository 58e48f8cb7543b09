import StateStore
import StateStoreTesting
import Synchronization
import Testing

// The counter of the StateStore catalog's landing page and of its article "Writing a feature" (exploring), built and run here;
// DocumentationExampleTests finds each of their Swift examples in this file, so change them
// together.

struct Counter: Reducer {
    struct State: Hashable, Sendable { var count = 0 }
    enum Action: Hashable, Sendable { case incrementTapped, decrementTapped, resetTapped }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .incrementTapped: state.count += 1
        case .decrementTapped: state.count = max(0, state.count - 1)
        case .resetTapped: state.count = 0
        }
        return .none
    }
}

@Test func incrementing() async {
    let store = TestStore(initialState: Counter.State(), reducer: Counter())
    await store.send(.incrementTapped) { $0.count = 1 }
    await store.finish()
}

@Test func noSequenceOfTapsMakesTheCountNegative() async {
    let explorer = Explorer(
        initialState: Counter.State(), reducer: { _, _ in Counter() }, depth: 6,
        steps: { _ in [.send(.incrementTapped), .send(.decrementTapped), .send(.resetTapped)] },
        invariants: [.state("the count is never negative") { $0.count >= 0 }]
    )
    let report = await explorer.run()
    #expect(report.violation == nil, "\(report)")
}

@Suite("The documentation's counter")
struct CounterExampleTests {
    @Test func aRootStoreReducesEachSendBeforeItReturns() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let subscription = store.observe { print("count:", $0.count) } // prints 0, then every change
        store.send(.incrementTapped)
        #expect(store.state.count == 1)
        subscription.cancel()
    }

    @Test func anObserverHearsTheCountThenEveryChange() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let heard = Mutex<[Int]>([])
        let subscription = store.observe { state in heard.withLock { $0.append(state.count) } }
        store.send(.incrementTapped)
        store.send(.incrementTapped)
        store.send(.resetTapped)
        #expect(heard.withLock { $0 } == [0, 1, 2, 0])
        subscription.cancel()
    }

    @Test func theExplorerFindsAStepThatBreaksAnInvariant() async throws {
        let explorer = Explorer(
            initialState: Counter.State(), reducer: { _, _ in Counter() }, depth: 6,
            steps: { _ in [.send(.incrementTapped), .send(.resetTapped)] },
            invariants: [.state("the count stays below 3") { $0.count < 3 }]
        )
        let violation = try #require(await explorer.run().violation)
        #expect(violation.path.map(\.action) == [.incrementTapped, .incrementTapped, .incrementTapped])
    }

    @Test func theCountNeverGoesBelowZero() async {
        let store = TestStore(initialState: Counter.State(count: 1), reducer: Counter())
        await store.send(.decrementTapped) { $0.count = 0 }
        await store.send(.decrementTapped)
        await store.send(.incrementTapped) { $0.count = 1 }
        await store.send(.resetTapped) { $0.count = 0 }
        await store.finish()
    }
}

@Suite("Doc comments' examples: StateStore and StateStoreTesting with the counter")
struct CounterDocCommentExampleTests {
    @Test func aReduceClosureIsAReducer() {
        let counter = Reduce<Int, Counter.Action> { count, action in
            count += 1
            return .none
        }
        var count = 0
        _ = counter.reduce(into: &count, action: .incrementTapped)
        #expect(count == 1)
    }

    @Test func aStoreScopedToTheCount() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let counter = store.scope(state: \.count, action: { $0 })
        let subscription = store.observe { print("count:", $0.count) }
        store.send(.incrementTapped)
        #expect(counter.currentState == 1)
        subscription.cancel()
    }

    @Test func aTimelineUndoesAndRedoes() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, limits: .init(entries: 500, bytes: 8 << 20))
        store.send(.incrementTapped)
        timeline.undo() // count back to 0, no effect re-run
        timeline.redo()
        #expect(store.currentState.count == 1 && timeline.canUndo && !timeline.canRedo)
        timeline.undo()
        #expect(store.currentState.count == 0)
    }

    @Test func aDiffNamesWhatChanged() {
        let diff = ValueDiff(old: Counter.State(count: 1), new: Counter.State(count: 2))
        print(diff.description)
        // .count
        //   − 1
        //   + 2
        #expect(diff.description == ".count\n  − 1\n  + 2")
    }

    @Test func aSeededRandomRepeatsItself() {
        var random = SeededRandom(seed: 42)
        let index = Int.random(in: 0..<10, using: &random)
        var again = SeededRandom(seed: 42)
        #expect(Int.random(in: 0..<10, using: &again) == index)
    }

    @Test func aTestClockMovesWhenTold() async {
        let clock = TestClock()
        await clock.advance(by: .milliseconds(300))
        #expect(clock.now.offset == .milliseconds(300))
    }
}
