import Foundation
import Observation
import StateStore
import TestSupport
import Testing

@Suite("Store: ordering, atomicity, handles, lifetime, observation")
struct StoreTests {
    // MARK: - Ordering

    /// Per-sender sequence checking: each sender's actions must arrive in the order it sent them.
    struct Sequenced: Reducer {
        struct State: Equatable, Sendable {
            var lastSequence: [Int: Int] = [:]
            var received = 0
            var outOfOrder = 0
        }
        enum Action: Equatable, Sendable { case number(sender: Int, sequence: Int) }

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            guard case .number(let sender, let sequence) = action else { return .none }
            if let last = state.lastSequence[sender], last != sequence - 1 { state.outOfOrder += 1 }
            state.lastSequence[sender] = sequence
            state.received += 1
            return .none
        }
    }

    @Test func arrivalOrderIsKeptPerSenderUnderEightConcurrentSenders() async {
        let store = RootStore(initialState: Sequenced.State(), reducer: Sequenced())
        let senders = 8
        let perSender = 10_000
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for sequence in 0..<perSender {
                        store.send(.number(sender: sender, sequence: sequence))
                    }
                }
            }
        }
        let state = store.currentState
        #expect(state.received == senders * perSender, "no action may be lost")
        #expect(state.outOfOrder == 0, "each sender's order must be kept")
        #expect(state.lastSequence == Dictionary(uniqueKeysWithValues: (0..<senders).map { ($0, perSender - 1) }))
    }

    @Test func sendsFromAnObserverAreQueuedFIFOAndReported() async {
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: diagnostics))
        let depth = Locked(0)
        let maxDepth = Locked(0)
        let subscription = store.observe { state in
            let current = depth.withLock { depth in
                depth += 1
                return depth
            }
            maxDepth.withLock { $0 = max($0, current) }
            if state.log == ["first"] {
                store.send(.note("second"))
                store.send(.note("third"))
                // Still reducing "first": the queued actions must not have run yet.
                #expect(store.currentState.log == ["first"])
            }
            depth.withLock { $0 -= 1 }
        }
        store.send(.note("first"))
        #expect(store.currentState.log == ["first", "second", "third"])
        #expect(maxDepth.withLock { $0 } == 1, "observers must never be re-entered")
        #expect(diagnostics.entries.map(\.kind) == [.reentrantSend, .reentrantSend])
        subscription.cancel()
    }

    @Test func sendEffectsRunAfterTheCurrentActionInOrder() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        store.send(.sendTwice)
        store.send(.note("c"))
        #expect(store.currentState.log == ["a", "b", "c"])
    }

    @Test func noReaderEverSeesAHalfAppliedAction() async {
        struct Pair: Reducer {
            struct State: Equatable, Sendable { var left = 0; var right = 0 }
            enum Action: Sendable { case bump }
            func reduce(into state: inout State, action: Action) -> Effect<Action> {
                state.left += 1
                for _ in 0..<50 { state.right = state.left } // widen the window a torn read would need
                return .none
            }
        }
        let store = RootStore(initialState: Pair.State(), reducer: Pair())
        let torn = Counter.Probe()
        let subscription = store.observe { state in
            if state.left != state.right { torn.increment() }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for _ in 0..<20_000 { store.send(.bump) } }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<20_000 {
                        let state = store.currentState
                        if state.left != state.right { torn.increment() }
                    }
                }
            }
        }
        #expect(torn.count == 0)
        #expect(store.currentState.left == 20_000)
        subscription.cancel()
    }

    // MARK: - Handles

    @Test func awaitingTheHandleWaitsForEveryEffectTheActionStarted() async {
        // The effect finishes once the test lets it (a timer would race a loaded machine).
        struct Slow: Reducer {
            struct State: Equatable, Sendable { var done = false }
            enum Action: Sendable { case start, finished }
            let letGo: AsyncStream<Void>
            func reduce(into state: inout State, action: Action) -> Effect<Action> {
                switch action {
                case .start:
                    return .run { [letGo] send in
                        var waiting = letGo.makeAsyncIterator()
                        _ = await waiting.next()
                        send(.finished)
                    }
                case .finished:
                    state.done = true
                    return .none
                }
            }
        }
        let (letGo, release) = AsyncStream<Void>.makeStream()
        let store = RootStore(initialState: Slow.State(), reducer: Slow(letGo: letGo))
        let task = store.send(.start)
        #expect(store.currentState.done == false)
        release.finish()
        await task.finish()
        #expect(store.currentState.done == true)
    }

    @Test func cancellingTheHandleCancelsTheEffects() async {
        let clock = ContinuousClock()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(clock: clock))
        let task = store.send(.startTicking)
        #expect(store.runningEffects == [.startTicking])
        task.cancel()
        await task.finish()
        #expect(store.runningEffects.isEmpty)
        #expect(store.currentState.count == 0)
    }

    @Test func aQueuedSendReturnsAHandleForTheEffectsItStartsLater() async {
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: diagnostics))
        let handle = Locked<StoreTask?>(nil)
        let subscription = store.observe { state in
            guard state.log == ["go"], handle.withLock({ $0 == nil }) else { return }
            handle.withLock { $0 = store.send(.fetch) }
        }
        store.send(.note("go"))
        let queued = handle.withLock { $0 }
        await queued?.finish()
        #expect(store.currentState.count == 42)
        #expect(diagnostics.entries.map(\.kind) == [.reentrantSend])
        subscription.cancel()
    }

    // MARK: - Lifetime

    @Test func shuttingDownCancelsEffectsAndDropsLaterSends() async {
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: diagnostics))
        let ticking = store.send(.startTicking)
        store.shutDown()
        await ticking.finish()
        #expect(store.runningEffects.isEmpty)
        #expect(store.isShutDown)
        store.send(.increment)
        #expect(store.currentState.count == 0)
        #expect(diagnostics.entries.map(\.kind) == [.sendAfterShutdown])
    }

    @Test func releasingTheStoreCancelsItsEffects() async {
        let ticking: StoreTask
        do {
            let store = RootStore(initialState: Counter.State(), reducer: Counter())
            ticking = store.send(.startTicking)
        }
        // The effect would tick forever; releasing the store must end it.
        await ticking.finish()
    }

    @Test func runningEffectsAndWaitForEffects() async {
        struct Waiter: Reducer {
            enum Action: Equatable, Sendable { case wait(Int), done }
            func reduce(into state: inout Int, action: Action) -> Effect<Action> {
                switch action {
                case .wait(let milliseconds):
                    return .run { send in
                        try await Task.sleep(for: .milliseconds(milliseconds))
                        send(.done)
                    }
                case .done:
                    state += 1
                    return .none
                }
            }
        }
        let store = RootStore(initialState: 0, reducer: Waiter())
        store.send(.wait(10))
        store.send(.wait(30))
        #expect(store.runningEffects == [.wait(10), .wait(30)])
        await store.waitForEffects()
        #expect(store.runningEffects.isEmpty)
        #expect(store.currentState == 2)
    }

    // MARK: - Observation

    @Test func observeDeliversTheCurrentStateThenEveryChange() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        store.send(.increment)
        let seen = Collected<Int>()
        let subscription = store.observe { seen.append($0.count) }
        store.send(.increment)
        store.send(.decrement)
        subscription.cancel()
        store.send(.increment)
        #expect(seen.all == [1, 2, 1])
    }

    @Test func releasingASubscriptionStopsTheCalls() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let seen = Collected<Int>()
        var subscription: StoreSubscription? = store.observe { seen.append($0.count) }
        store.send(.increment)
        _ = subscription
        subscription = nil
        store.send(.increment)
        #expect(seen.all == [0, 1])
    }

    @Test func statesIsAnAsyncSequenceOfEveryState() async {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        var iterator = store.states.makeAsyncIterator()
        store.send(.increment)
        store.send(.increment)
        var counts: [Int] = []
        for _ in 0..<3 {
            if let state = await iterator.next() { counts.append(state.count) }
        }
        #expect(counts == [0, 1, 2])
    }

    @Test func observationTrackingFiresWhenTheStateChanges() async {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let fired = Counter.Probe()
        let count = withObservationTracking {
            store.state.count
        } onChange: {
            fired.increment()
        }
        #expect(count == 0)
        store.send(.increment)
        #expect(fired.count == 1)
    }

    /// As its subscribers, Observation hears of an `Equatable` state only when an action changed
    /// it: a view is not asked to draw again for an action that changed nothing.
    @Test func observationOfAnEquatableStateFiresOnlyWhenItChanged() {
        let store = Tally.store()
        let fired = Counter.Probe()
        let count = withObservationTracking {
            store.state.count
        } onChange: {
            fired.increment()
        }
        #expect(count == 0)
        store.send(0)
        #expect(fired.count == 0, "fired for an action that changed nothing")
        store.send(2)
        #expect(fired.count == 1)
    }

    @Test func untrackedReadsDoNotRegisterForObservation() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let fired = Counter.Probe()
        withObservationTracking {
            _ = store.currentState
        } onChange: {
            fired.increment()
        }
        store.send(.increment)
        #expect(fired.count == 0)
    }

    @Test @MainActor func theStoreIsUsableFromTheMainActor() async {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        await store.send(.fetch).finish()
        #expect(store.state.count == 42)
    }
}
