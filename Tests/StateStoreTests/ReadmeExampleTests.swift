import StateStore
import StateStoreTesting
import Testing

/// The README's example, kept compiling and passing here so the README cannot drift.
private struct ReadmeCounter: Reducer {
    struct State: Equatable, Sendable { var count = 0 }
    enum Action: Equatable, Sendable { case incrementTapped, decrementTapped, resetTapped }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .incrementTapped: state.count += 1
        case .decrementTapped: state.count = max(0, state.count - 1)
        case .resetTapped: state.count = 0
        }
        return .none
    }
}

@Suite("README example")
struct ReadmeExampleTests {
    @Test func theStoreExamplePrintsTheCurrentCountThenEveryChange() {
        let store = RootStore(initialState: ReadmeCounter.State(), reducer: ReadmeCounter())
        let printed = Collected<String>()
        let subscription = store.observe { printed.append("count: \($0.count)") }
        store.send(.incrementTapped)
        #expect(printed.all == ["count: 0", "count: 1"])
        subscription.cancel()
    }

    @Test func incrementing() async {
        let store = TestStore(initialState: ReadmeCounter.State(), reducer: ReadmeCounter())
        await store.send(.incrementTapped) { $0.count = 1 }
        await store.finish()
    }
}
