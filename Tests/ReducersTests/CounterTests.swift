import Reducers
import StateStore
import StateStoreTesting
import Testing

@Suite("Counter")
struct CounterTests {
    @Test func incrementsDecrementsAndResets() async {
        let store = TestStore(initialState: Counter.State(), reducer: Counter())
        await store.send(.incrementTapped) { $0.count = 1 }
        await store.send(.incrementTapped) { $0.count = 2 }
        await store.send(.decrementTapped) { $0.count = 1 }
        await store.send(.resetTapped) { $0.count = 0 }
        await store.finish()
    }

    @Test func neverGoesBelowZero() async {
        let store = TestStore(initialState: Counter.State(), reducer: Counter())
        await store.send(.decrementTapped)
        await store.expectDiagnostic(.invalidTransition, containing: "cannot go below zero")
        await store.finish()
    }
}
