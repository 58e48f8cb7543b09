import StateStore
import StateStoreTesting
import Synchronization
import Testing

// The counter of README.md ("A feature in thirty lines"), of the StateStore catalog's landing
// page and of its article "Writing a feature" (exploring), built and run here;
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
