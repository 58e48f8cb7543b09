import StateStore
import StateStoreTesting
import TestSupport
import Testing

/// The profile screen as a transducer: every (state, command) pair answered.
private enum ProfileMachine: Transducer {
    enum State: Equatable, Sendable {
        case initialized, loading, loaded(String), failed(String)
    }

    enum Command: Equatable, Sendable {
        case load, loaded(String), failed(String)
    }

    enum Effect: Equatable, Sendable {
        case load
    }

    static func reduce(_ state: State, _ command: Command) -> Transition<State, Effect> {
        switch (state, command) {
        case (.initialized, .load), (.loaded, .load), (.failed, .load):
            .to(.loading, effect: .load)
        case (.loading, .load):
            .to(.loading)
        case (.loading, .loaded(let name)):
            .to(.loaded(name))
        case (.loading, .failed(let reason)):
            .to(.failed(reason))
        case (.initialized, .loaded), (.loaded, .loaded), (.failed, .loaded),
            (.initialized, .failed), (.loaded, .failed), (.failed, .failed):
            .rejected("no request is in flight")
        }
    }
}

/// The seed-000 login: an async reducer with no separate effects.
private struct SlowValidator: AsyncReducer {
    func reduce(_ state: [String], _ action: String) async -> [String] {
        // Earlier actions take longer: only strict serialisation keeps them in order.
        let delay = action == "first" ? 30 : 1
        try? await Task.sleep(for: .milliseconds(delay))
        return state + [action]
    }
}

/// An async reducer that adds a word it has not seen, and leaves the state equal otherwise.
private struct Deduplicating: AsyncReducer {
    func reduce(_ state: [String], _ action: String) async -> [String] {
        await Task.yield()
        return state.contains(action) ? state : state + [action]
    }
}

@Suite("Adapters for the other seed styles")
struct AdapterTests {
    @Test func aTransducerRunsOnTheStoreAndItsInteractorFeedsResponsesBack() async {
        let interactor = Interactor<ProfileMachine.Effect, ProfileMachine.Command>(respond: { effect in
            switch effect {
            case .load: .loaded("Ada")
            }
        })
        let store = TestStore(initialState: .initialized, reducer: TransducerReducer(ProfileMachine.self, interactor: interactor))
        await store.send(.load) { $0 = .loading }
        await store.receive(.loaded("Ada")) { $0 = .loaded("Ada") }
        await store.finish()
    }

    @Test func aRejectedTransitionChangesNothingAndIsReported() async {
        let interactor = Interactor<ProfileMachine.Effect, ProfileMachine.Command> { _, _ in }
        let store = TestStore(initialState: .initialized, reducer: TransducerReducer(ProfileMachine.self, interactor: interactor))
        await store.send(.loaded("late"))
        await store.expectDiagnostic(.invalidTransition, containing: "no request is in flight")
    }

    @Test func aResponseAfterANewerRequestIsHandledByTheTable() async {
        let interactor = Interactor<ProfileMachine.Effect, ProfileMachine.Command> { _, _ in }
        let store = TestStore(initialState: .loaded("old"), reducer: TransducerReducer(ProfileMachine.self, interactor: interactor))
        await store.send(.load) { $0 = .loading }
        await store.send(.load)
        await store.send(.failed("timeout")) { $0 = .failed("timeout") }
        await store.send(.loaded("stale"))
        await store.expectDiagnostic(.invalidTransition)
        await store.finish()
    }

    @Test func anAsyncReducerIsStrictlySerialised() async {
        let store = RootStore(initialState: [String](), asyncReducer: SlowValidator())
        let first = store.send("first")
        let second = store.send("second")
        let third = store.send("third")
        await first.finish()
        await second.finish()
        await third.finish()
        #expect(store.currentState == ["first", "second", "third"])
    }

    @Test func anAsyncReducerStoreIsObservedLikeAnyOther() async {
        let store = RootStore(initialState: [String](), asyncReducer: SlowValidator())
        let seen = Collected<Int>()
        let subscription = store.observe { seen.append($0.count) }
        await store.send("a").finish()
        await store.send("b").finish()
        #expect(seen.all == [0, 1, 2])
        subscription.cancel()
    }

    /// An action the async reducer answers with an equal state is heard only when the store keeps repeats.
    @Test func anAsyncReducerStoreCanKeepRepeats() async {
        let keeping = RootStore(initialState: [String](), asyncReducer: Deduplicating(), skipsRepeats: false)
        let skipping = RootStore(initialState: [String](), asyncReducer: Deduplicating())
        let (heard, heardSkipping) = (Collected<Int>(), Collected<Int>())
        let subscriptions = [keeping.observe { heard.append($0.count) }, skipping.observe { heardSkipping.append($0.count) }]
        for word in ["a", "a", "b"] {
            await keeping.send(word).finish()
            await skipping.send(word).finish()
        }
        #expect(heard.all == [0, 1, 1, 2])
        #expect(heardSkipping.all == [0, 1, 2])
        for subscription in subscriptions { subscription.cancel() }
    }

    @Test func anAsyncSequenceIsDispatchedInOrder() async {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let (stream, continuation) = AsyncStream.makeStream(of: Counter.Action.self)
        let dispatching = store.send(contentsOf: stream)
        for index in 0..<100 { continuation.yield(.note("\(index)")) }
        continuation.finish()
        await dispatching.finish()
        #expect(store.currentState.log == (0..<100).map(String.init))
    }

    @Test func cancellingASequenceDispatchStopsReadingIt() async {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let (stream, continuation) = AsyncStream.makeStream(of: Counter.Action.self)
        let dispatching = store.send(contentsOf: stream)
        continuation.yield(.increment)
        #expect(await eventually { store.currentState.count == 1 })
        dispatching.cancel()
        await dispatching.finish()
        continuation.yield(.increment)
        #expect(store.currentState.count == 1)
    }

    @Test func aFailingSequenceIsReported() async {
        struct Broken: Error {}
        let log = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: log))
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Counter.Action.self)
        continuation.yield(.increment)
        continuation.finish(throwing: Broken())
        await store.send(contentsOf: stream).finish()
        #expect(store.currentState.count == 1)
        #expect(log.entries.map(\.kind) == [.unhandledEffectError])
    }

    @Test func aOneShotResultIsSentWhenItArrives() async {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        await store.send(from: {
            try? await Task.sleep(for: .milliseconds(5))
            return .note("resolved")
        }).finish()
        #expect(store.currentState.log == ["resolved"])
    }
}
