import StateStore
import TestSupport
import Testing

/// A chain: `start` runs an effect that, after a real pause, sends `step`, whose effect pauses
/// again and sends `done` — work `StoreTask.finish()` does not see the end of.
private struct Chain: Reducer {
    /// What `step`'s effect sleeps on: tests that look between the two effects move it.
    var stepClock: ManualClock? = nil

    struct State: Equatable, Sendable {
        var log: [String] = []
    }

    enum Action: Equatable, Sendable {
        case start(String)
        case step(String)
        case done(String)
        case refuse(String)
        case forever
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start(let name):
            return .run { send in
                try await Task.sleep(for: .milliseconds(20))
                send(.step(name))
            }
        case .step(let name):
            state.log.append("step \(name)")
            return .run { [stepClock] send in
                if let stepClock {
                    try await stepClock.sleep(for: .milliseconds(20))
                } else {
                    try await Task.sleep(for: .milliseconds(20))
                }
                send(.done(name))
            }
        case .done(let name):
            state.log.append("done \(name)")
            return .none
        case .refuse(let name):
            return .run { send in
                try await Task.sleep(for: .milliseconds(10))
                send(.done("refused \(name)"))
            }
            .merge(with: .diagnostic(.invalidTransition(action: action, state: "any", reason: "\(name) is refused")))
        case .forever:
            return .run { _ in try await Task.sleep(for: .seconds(3600)) }
        }
    }
}

@Suite("Settling the work of a send")
struct SettleTests {
    @Test func settleWaitsForTheActionsEffectsSendBackAndTheirEffects() async {
        let clock = ManualClock()
        let store = RootStore(initialState: Chain.State(), reducer: Chain(stepClock: clock), diagnostics: Diagnostics { _ in })
        let task = store.send(.start("a"))
        #expect(!task.isSettled)
        await task.finish()
        #expect(store.currentState.log == ["step a"], "finish() covers only the first effect")
        #expect(!task.isSettled)
        #expect(await clock.untilSleeping())
        await clock.advance(by: .milliseconds(20))
        #expect(await task.settle(timeout: .seconds(10)))
        #expect(task.isSettled)
        #expect(store.currentState.log == ["step a", "done a"])
    }

    @Test func whatRunsWhenWorkSettlesRunsAsItSettlesBeforeAWaiterResumes() async {
        let clock = ManualClock()
        let store = RootStore(initialState: Chain.State(), reducer: Chain(stepClock: clock), diagnostics: Diagnostics { _ in })
        let task = store.send(.start("a"))
        let seen = Locked<[[String]]>([])
        task.whenSettled { seen.withLock { $0.append(store.currentState.log) } }
        await task.finish()
        #expect(await clock.untilSleeping())
        #expect(seen.withLock { $0 }.isEmpty, "the step's effect still runs")
        await clock.advance(by: .milliseconds(20))
        #expect(await task.settle(timeout: .seconds(10)))
        #expect(seen.withLock { $0 } == [["step a", "done a"]], "once, as the last effect ended, before settle() returned")
        // Settled already: at once, on this thread.
        let ranAtOnce = Locked(false)
        task.whenSettled { ranAtOnce.withLock { $0 = true } }
        #expect(ranAtOnce.withLock { $0 })
    }

    @Test func anActionWithoutEffectsIsSettledAtOnce() async {
        let store = RootStore(initialState: Chain.State(), reducer: Chain(), diagnostics: Diagnostics { _ in })
        let task = store.send(.done("x"))
        #expect(task.isSettled)
        #expect(await task.settle(timeout: .zero))
    }

    @Test func settleDoesNotWaitForTheWorkOfOtherSends() async {
        let store = RootStore(initialState: Chain.State(), reducer: Chain(), diagnostics: Diagnostics { _ in })
        let timer = store.send(.forever)
        #expect(await store.send(.start("b")).settle(timeout: .seconds(10)))
        #expect(!timer.isSettled)
        #expect(await store.waitForEffects(timeout: .milliseconds(50)) == false)
        #expect(store.runningEffects(startedBy: timer) == [.forever])
        timer.cancel()
        #expect(await store.waitForEffects(timeout: .seconds(10)))
    }

    @Test func aTimeoutReturnsFalseAndNamesWhatStillRuns() async {
        let store = RootStore(initialState: Chain.State(), reducer: Chain(), diagnostics: Diagnostics { _ in })
        let task = store.send(.forever)
        #expect(await task.settle(timeout: .milliseconds(30)) == false)
        #expect(store.runningEffects(startedBy: task) == [.forever])
        store.shutDown()
    }

    @Test func diagnosticsBelongToTheSendWhoseWorkRaisedThem() async {
        let store = RootStore(initialState: Chain.State(), reducer: Chain(), diagnostics: Diagnostics { _ in })
        async let first: [String] = {
            let task = store.send(.refuse("first"))
            await task.settle(timeout: .seconds(10))
            return task.diagnostics.map { $0.reason ?? "" }
        }()
        async let second: [String] = {
            let task = store.send(.start("quiet"))
            await task.settle(timeout: .seconds(10))
            return task.diagnostics.map { $0.reason ?? "" }
        }()
        #expect(await first == ["first is refused"])
        #expect(await second == [])
    }
}
