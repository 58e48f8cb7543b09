import StateStore
import TestSupport
import Testing

/// A screen that loads when it appears: its appearance's effect sends `loaded`, whose own effect
/// keeps watching (sleeps, then ticks), the way a view's `.task` starts work that starts more.
private struct Watcher: Reducer {
    struct State: Equatable, Sendable {
        var isLoaded = false
        var ticks = 0
    }

    enum Action: Equatable, Sendable { case onAppear, loaded, tick }

    let clock: ManualClock
    /// Whether the appearance's own effect stays alive (watching) after sending `loaded`.
    let appearanceKeepsWatching: Bool

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .onAppear:
            return .run { [clock, appearanceKeepsWatching] send in
                send(.loaded)
                if appearanceKeepsWatching { try await clock.sleep(for: .seconds(3_600)) }
            }
        case .loaded:
            state.isLoaded = true
            return .run { [clock] send in
                try await clock.sleep(for: .seconds(60))
                send(.tick)
            }
        case .tick:
            state.ticks += 1
            return .none
        }
    }
}

@Suite("Cascading cancellation")
struct CascadingCancellationTests {
    @Test func cancellingASendsTaskCancelsTheEffectsOfTheActionsItsEffectsSentBack() async {
        let clock = ManualClock()
        let store = RootStore(initialState: Watcher.State(), reducer: Watcher(clock: clock, appearanceKeepsWatching: false))
        let appearance = store.send(.onAppear)
        #expect(await eventually { store.currentState.isLoaded && clock.sleeperCount == 1 }, "loaded, and its effect sleeps")
        appearance.cancel()
        #expect(!store.hasRunningEffects, "the effect of `loaded`, sent back by the appearance's effect, is cancelled too")
        await clock.advance(by: .seconds(60))
        #expect(await appearance.settle(timeout: .seconds(30)))
        #expect(store.currentState.ticks == 0, "a cancelled effect sends nothing")
    }

    @Test func cancellingTheTaskThatAwaitsFinishCancelsEverythingTheSendStarted() async {
        let clock = ManualClock()
        let store = RootStore(initialState: Watcher.State(), reducer: Watcher(clock: clock, appearanceKeepsWatching: true))
        // SwiftUI's `.task { await store.send(.onAppear).finish() }`, and the view going away.
        let view = Task { await store.send(.onAppear).finish() }
        #expect(await eventually { store.currentState.isLoaded && clock.sleeperCount == 2 })
        view.cancel()
        #expect(await withTimeout(.seconds(30)) { await view.value }, "finish() returned once its task was cancelled")
        #expect(!store.hasRunningEffects)
        await clock.advance(by: .seconds(3_600))
        #expect(store.currentState.ticks == 0)
    }

    @Test func otherSendsWorkGoesOn() async {
        let clock = ManualClock()
        let store = RootStore(initialState: Watcher.State(), reducer: Watcher(clock: clock, appearanceKeepsWatching: false))
        let first = store.send(.onAppear)
        #expect(await eventually { clock.sleeperCount == 1 })
        let second = store.send(.loaded)
        #expect(await eventually { clock.sleeperCount == 2 })
        first.cancel()
        #expect(store.hasRunningEffects, "the second send's effect still runs")
        await clock.advance(by: .seconds(60))
        #expect(await second.settle(timeout: .seconds(30)))
        #expect(store.currentState.ticks == 1, "only the second send's effect ticked")
    }
}
