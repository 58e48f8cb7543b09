import Foundation
import Observation
import StateStore
import TestSupport
import Testing

/// A value set by actions, and actions that feed back bursts of them.
private struct Dial: Reducer {
    struct State: Equatable, Sendable {
        var value = 0
        var label = ""
    }

    enum Action: Equatable, Sendable {
        case set(Int)
        /// Sets each value in turn, as synchronous follow-ups of one send.
        case sweep([Int])
        case relabel(String)
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .set(let value):
            state.value = value
            return .none
        case .sweep(let values):
            return .merge(values.map { .send(.set($0)) })
        case .relabel(let label):
            state.label = label
            return .none
        }
    }
}

private func dialStore() -> RootStore<Dial.State, Dial.Action> {
    RootStore(initialState: Dial.State(), reducer: Dial())
}

@Suite("Settled notifications: scoped stores and Observation hear a burst once")
struct SettledNotificationTests {
    @Test func aScopeHearsTheSettledValueOfASendAndItsSynchronousFollowUps() {
        let store = dialStore()
        let dial = store.scope(state: \.value, action: { $0 })
        let scoped = Collected<Int>()
        let root = Collected<Int>()
        let actions = Collected<Dial.Action>()
        let subscriptions = [
            dial.observe { scoped.append($0) },
            store.observe { root.append($0.value) },
            store.observeActions { action, _ in actions.append(action) },
        ]
        store.send(.sweep([1, 2, 3]))
        #expect(scoped.all == [0, 3])
        // The root store's subscribers still hear every action that changed its state (not the
        // sweep itself: an `Equatable` state, as ReSwift's), and action observers every action.
        #expect(root.all == [0, 1, 2, 3])
        #expect(actions.all == [.sweep([1, 2, 3]), .set(1), .set(2), .set(3)])
        withExtendedLifetime(subscriptions) {}
    }

    @Test func aBurstThatEndsWhereItStartedIsNoChange() {
        let store = dialStore()
        let dial = store.scope(state: \.value, action: { $0 })
        let seen = Collected<Int>()
        let subscription = dial.observe { seen.append($0) }
        store.send(.sweep([5, 0]))
        store.send(.sweep([7, 8]))
        #expect(seen.all == [0, 8])
        #expect(dial.currentState == 8)
        subscription.cancel()
    }

    @Test func observationIsToldOncePerBurst() {
        let store = dialStore()
        let dial = store.scope(state: \.value, action: { $0 })
        let scopedChanges = Counter.Probe()
        let rootChanges = Counter.Probe()
        track({ _ = dial.state }, counting: scopedChanges)
        track({ _ = store.state }, counting: rootChanges)
        store.send(.sweep([1, 2, 3]))
        #expect(scopedChanges.count == 1)
        #expect(rootChanges.count == 1)
        store.send(.relabel("dial"))
        #expect(scopedChanges.count == 1)
        #expect(rootChanges.count == 2)
    }

    @Test func anObserverAddedDuringABurstStartsFromTheSettledValueAndHearsItOnce() {
        let store = dialStore()
        let dial = store.scope(state: \.value, action: { $0 })
        let first = Collected<Int>()
        let late = Collected<Int>()
        let lateSubscription = Locked<StoreSubscription?>(nil)
        let subscriptions = [
            dial.observe { first.append($0) },
            store.observeActions { action, _ in
                // Queued behind the burst: it joins once the burst settled.
                if action == .set(1) { lateSubscription.withLock { $0 = dial.observe { late.append($0) } } }
            },
        ]
        store.send(.sweep([1, 2, 3]))
        #expect(first.all == [0, 3])
        #expect(late.all == [3])
        store.send(.set(4))
        #expect(late.all == [3, 4])
        withExtendedLifetime(subscriptions) {}
        lateSubscription.withLock { $0?.cancel() }
    }

    @Test func aLongBurstStillReachesObserversBeforeItEnds() {
        let store = dialStore()
        let dial = store.scope(state: \.value, action: { $0 })
        let seen = Collected<Int>()
        let subscription = dial.observe { seen.append($0) }
        store.send(.sweep(Array(1...2_000)))
        // Every so many actions, not after each one nor only at the end.
        #expect(seen.count > 2)
        #expect(seen.count < 100)
        #expect(seen.all.last == 2_000)
        #expect(seen.all == seen.all.sorted())
        subscription.cancel()
    }

    @MainActor
    @Test func onTheMainActorObservedValuesMoveThereOnlyOnceForTheBurstsSettledMeanwhile() async {
        let store = RootStore(initialState: Dial.State(), reducer: Dial(), observation: .mainActor)
        let dial = store.scope(state: \.value, action: { $0 })
        let told = Locked(0)
        let heard = Collected<Int>()
        let subscription = dial.observe { heard.append($0) }
        track({ _ = dial.state }, countingOnTheMainActor: told)
        #expect(dial.state == 0)
        // Three bursts reduced on another thread while the main actor is busy (blocked here).
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            store.send(.set(1))
            store.send(.set(2))
            store.send(.sweep([3, 4]))
            done.signal()
        }
        done.wait()
        #expect(dial.currentState == 4, "the store moved on")
        #expect(dial.state == 0, "what the main actor observes has not: it moves only on the main actor")
        #expect(told.withLock { $0 } == 0)
        while told.withLock({ $0 }) == 0 { await Task.yield() }
        #expect(dial.state == 4)
        #expect(told.withLock { $0 } == 1, "told once, on the main actor, for the three bursts")
        // Subscribers still hear each burst, where it was reduced.
        #expect(heard.all == [0, 1, 2, 4])
        subscription.cancel()
    }

    @Test func storesScopedToOnePropertyEachHearTheChangeAndOutliveEachOther() {
        let store = dialStore()
        let seenByA = Collected<Int>()
        let seenByB = Collected<Int>()
        let b = store.scope(state: \.value, action: { $0 })
        let subscriptionB = b.observe { seenByB.append($0) }
        do {
            // A store and its subscription that go away after the first change.
            let a = store.scope(state: \.value, action: { $0 })
            let subscriptionA = a.observe { seenByA.append($0) }
            store.send(.set(1))
            withExtendedLifetime((a, subscriptionA)) {}
        }
        store.send(.set(2))
        let c = store.scope(state: \.value, action: { $0 })
        #expect(c.currentState == 2)
        store.send(.relabel("x"))
        #expect(seenByA.all == [0, 1])
        #expect(seenByB.all == [0, 1, 2])
        withExtendedLifetime((subscriptionB, c)) {}
    }
}

/// Counts every change Observation reports for what `read` reads, tracking again after each.
private func track(_ read: @escaping @Sendable () -> Void, counting changes: Counter.Probe) {
    withObservationTracking(read) {
        changes.increment()
        track(read, counting: changes)
    }
}

/// Counts every change Observation reports for what `read` reads, tracking again after each;
/// the isolation check traps, failing the run, when a report comes anywhere but on the main actor.
private func track(_ read: @escaping @Sendable () -> Void, countingOnTheMainActor told: Locked<Int>) {
    withObservationTracking(read) {
        MainActor.assumeIsolated { told.withLock { $0 += 1 } }
        track(read, countingOnTheMainActor: told)
    }
}
