import TestSupport
import Testing

@testable import StateStore

@Suite("Action observers")
struct ActionObserverTests {
    @Test func aSubscriberGetsTheStateOnlyAfterTheActionsItAskedFor() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let everyThird = Counter.Probe()
        let received = Collected<String>()
        let subscription = store.observeActions(wantsState: { everyThird.count % 3 == 2 }) { _, state in
            everyThird.increment()
            received.append(state.map { "\($0.count)" } ?? "-")
        }
        for _ in 0..<7 { store.send(.increment) }
        #expect(received.all == ["-", "-", "3", "-", "-", "6", "-"])
        subscription.cancel()
    }

    @Test func aSubscriberThatAlwaysWantsTheStateGetsItBesideOneThatDoesNot() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let seldom = Collected<Int?>()
        let always = Collected<Int>()
        let subscriptions = [
            store.observeActions(wantsState: { false }) { _, state in seldom.append(state?.count) },
            store.observeActions { _, state in always.append(state.count) },
        ]
        store.send(.increment)
        store.send(.increment)
        #expect(always.all == [1, 2])
        // The state was copied for the other subscriber anyway: it is handed over.
        #expect(seldom.all == [1, 2])
        subscriptions.forEach { $0.cancel() }
    }
}
