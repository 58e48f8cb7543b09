import StateStore
import StateStoreTesting
import TestSupport
import Testing

/// A small feature for exercising the test store.
private struct Search: Reducer {
    struct State: Equatable, Sendable {
        var query = ""
        var results: [String] = []
        var isLoading = false
    }

    enum Action: Equatable, Sendable {
        case queryChanged(String)
        case response([String])
        case forever
        /// Sends `forever`: work that starts work that never ends.
        case watch
        case invalid
    }

    let clock: TestClock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .queryChanged(let query):
            state.query = query
            state.isLoading = true
            return .run { send in
                try await clock.sleep(for: .milliseconds(300))
                send(.response(["\(query) 1", "\(query) 2"]))
            }
            .cancellable(id: "search", cancelInFlight: true)
        case .response(let results):
            state.results = results
            state.isLoading = false
            return .none
        case .forever:
            return .run { _ in try await clock.sleep(for: .seconds(3600)) }
        case .watch:
            return .run { send in send(.forever) }
        case .invalid:
            return .diagnostic(.invalidTransition(action: Action.invalid, state: state))
        }
    }
}

/// Collects what a test store reports instead of failing the surrounding test.
private final class Failures: Sendable {
    private let messages = Collected<String>()
    var all: [String] { messages.all }
    var reporter: FailureReporter {
        FailureReporter { message, _ in self.messages.append(message) }
    }
}

@Suite("TestStore")
struct TestStoreTests {
    @Test func aCompleteCorrectTestPasses() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: clock), reporter: failures.reporter)
        await store.send(.queryChanged("mi")) {
            $0.query = "mi"
            $0.isLoading = true
        }
        await clock.advance(by: .milliseconds(300))
        await store.receive(.response(["mi 1", "mi 2"])) {
            $0.results = ["mi 1", "mi 2"]
            $0.isLoading = false
        }
        await store.finish()
        #expect(failures.all.isEmpty)
    }

    @Test func stateMovesOnlyByTheTestsStepsNotWithEffectsInTheBackground() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: clock), exhaustivity: .off, reporter: failures.reporter)
        await store.send(.queryChanged("mi"))
        await clock.advance(by: .milliseconds(300))
        for _ in 0..<2_000 where store.liveState.results.isEmpty { try? await Task.sleep(for: .milliseconds(1)) }
        #expect(store.liveState.results == ["mi 1", "mi 2"], "the response was reduced in the background")
        #expect(store.state.results.isEmpty && store.state.isLoading, "but the test has not stepped past it")
        await store.receive(.response(["mi 1", "mi 2"]))
        #expect(store.state.results == ["mi 1", "mi 2"] && !store.state.isLoading)

        await store.send(.queryChanged("oa"))
        await clock.advance(by: .milliseconds(300))
        for _ in 0..<2_000 where store.liveState.results.first != "oa 1" { try? await Task.sleep(for: .milliseconds(1)) }
        #expect(store.state.query == "oa" && store.state.results == ["mi 1", "mi 2"])
        store.skipReceivedActions()
        #expect(store.state.results == ["oa 1", "oa 2"], "skipping received actions is a step too")
        await store.finish()
        #expect(failures.all.isEmpty, "\(failures.all)")
    }

    @Test func cancellingASendsTaskLeavesNoEffectInFlightEvenThoseOfActionsItsEffectsSent() async {
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: TestClock()), reporter: failures.reporter)
        let watching = await store.send(.watch)
        await store.receive(.forever)
        watching.cancel()
        await store.finish(timeout: patience)
        #expect(failures.all.isEmpty, "\(failures.all)")
    }

    @Test func aWrongExpectationFailsWithADiffOfOnlyWhatDiffers() async {
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: TestClock()), reporter: failures.reporter)
        await store.send(.queryChanged("mi")) {
            $0.query = "mo"
            $0.isLoading = true
        }
        store.cancelEffects()
        await store.finish()
        #expect(
            failures.all == [
                """
                State after sending Action.queryChanged("mi") is not as expected (− expected, + actual):
                .query
                  − "mo"
                  + "mi"
                """
            ])
    }

    @Test func aMissingExpectationFails() async {
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: TestClock()), reporter: failures.reporter)
        await store.send(.response(["x"]))
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.contains(".results") == true)
    }

    @Test func anUnreceivedActionFails() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: clock), reporter: failures.reporter)
        await store.send(.queryChanged("a")) {
            $0.query = "a"
            $0.isLoading = true
        }
        await clock.advance(by: .milliseconds(300))
        await store.finish()
        #expect(failures.all == ["1 received action(s) must be asserted:\nAction.response([\"a 1\", \"a 2\"])"])
    }

    @Test func sendingBeforeReceivingFails() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: clock), reporter: failures.reporter)
        await store.send(.queryChanged("a")) {
            $0.query = "a"
            $0.isLoading = true
        }
        await clock.advance(by: .milliseconds(300))
        try? await Task.sleep(for: .milliseconds(20))
        await store.send(.response([]))
        #expect(failures.all.first?.hasPrefix("1 received action(s) must be asserted before sending Action.response([])") == true)
    }

    @Test func receivingTheWrongActionFails() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: clock), reporter: failures.reporter)
        await store.send(.queryChanged("a")) {
            $0.query = "a"
            $0.isLoading = true
        }
        await clock.advance(by: .milliseconds(300))
        await store.receive(.response(["b 1"]))
        #expect(failures.all.first?.hasPrefix("Expected to receive Action.response([\"b 1\"]), but received Action.response([\"a 1\", \"a 2\"])") == true)
        await store.finish()
    }

    @Test func receivingWhenNothingArrivesFailsAfterTheTimeout() async {
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: TestClock()), reporter: failures.reporter)
        await store.receive(.response([]), timeout: .milliseconds(50))
        #expect(failures.all == ["Expected to receive Action.response([]), but no action arrived within 0.05 seconds and no effect is running."])
    }

    @Test func anEffectStillRunningAtTheEndFails() async {
        let failures = Failures()
        let store = TestStore(
            initialState: Search.State(), reducer: Search(clock: TestClock()),
            timeout: .milliseconds(50), reporter: failures.reporter)
        await store.send(.forever)
        await store.finish()
        #expect(failures.all.first?.hasPrefix("1 effect(s) still running after 0.05 seconds, started by: Action.forever") == true)
    }

    @Test func releasingTheStoreWithARunningEffectFails() async {
        let failures = Failures()
        do {
            let store = TestStore(initialState: Search.State(), reducer: Search(clock: TestClock()), reporter: failures.reporter)
            await store.send(.forever)
        }
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.hasPrefix("1 effect(s) still running, started by: Action.forever") == true)
    }

    @Test func anUnexpectedDiagnosticFailsAndAnExpectedOnePasses() async {
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: TestClock()), reporter: failures.reporter)
        await store.send(.invalid)
        await store.expectDiagnostic(.invalidTransition, containing: "Action.invalid")
        await store.send(.invalid)
        await store.finish()
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.hasPrefix("1 diagnostic(s) must be expected:\ninvalidTransition") == true)
    }

    @Test func skippedDiagnosticsNeedNoExpectation() async {
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: TestClock()), reporter: failures.reporter)
        for _ in 0..<2 {
            await store.send(.invalid)
            store.skipDiagnostics()
        }
        await store.finish()
        #expect(failures.all.isEmpty, "\(failures.all)")
    }

    @Test func nonExhaustiveModeChecksOnlyWhatIsAsserted() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(
            initialState: Search.State(), reducer: Search(clock: clock),
            exhaustivity: .off, timeout: .milliseconds(100), reporter: failures.reporter)
        await store.send(.queryChanged("a")) { $0.isLoading = true }
        await clock.advance(by: .milliseconds(300))
        await store.send(.invalid)
        await store.send(.forever)
        await store.finish()
        #expect(failures.all.isEmpty)

        await store.send(.queryChanged("b")) { $0.query = "wrong" }
        #expect(failures.all.count == 1, "what is asserted is still checked")
        store.cancelEffects()
    }

    @Test func nonExhaustiveReceiveSkipsToTheMatchingAction() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(
            initialState: Search.State(), reducer: Search(clock: clock),
            exhaustivity: .off, reporter: failures.reporter)
        await store.send(.queryChanged("a"))
        await clock.advance(by: .milliseconds(300))
        await store.receive(.response(["a 1", "a 2"])) { $0.results = ["a 1", "a 2"] }
        await store.finish()
        #expect(failures.all.isEmpty)
    }

    @Test @MainActor func aTestStoreWorksFromTheMainActor() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: clock), reporter: failures.reporter)
        await store.send(.queryChanged("x")) {
            $0.query = "x"
            $0.isLoading = true
        }
        await clock.advance(by: .milliseconds(300))
        await store.receive(.response(["x 1", "x 2"])) {
            $0.results = ["x 1", "x 2"]
            $0.isLoading = false
        }
        await store.finish()
        #expect(failures.all.isEmpty)
    }
}

@Suite("TestStore: what the peers' test stores flag")
struct TestStoreConformanceTests {
    @Test func anAssertionClosureForAnActionThatChangedNothingIsFlagged() async {
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: TestClock()), reporter: failures.reporter)
        await store.send(.response([])) { $0.results = [] }
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.contains("changed nothing, and neither did the assertion closure") == true)
        await store.send(.response([]))
        #expect(failures.all.count == 1, "without a closure, no change is what was asserted")
    }

    /// TCA's order: inside a step's assertion the test store's state is the one before that
    /// step's action, and after the step the one it left, whatever the store has reduced since.
    @Test func stateInsideAStepsAssertionIsTheStateBeforeItsAction() async {
        enum Step: Equatable, Sendable { case a, b, c }
        let counter = Reduce<Int, Step> { count, step in
            count += 1
            return step == .a ? .merge(.send(.b), .send(.c)) : .none
        }
        let failures = Failures()
        let store = TestStore(initialState: 0, reducer: counter, reporter: failures.reporter)
        var seen: [Int] = []
        await store.send(.a) {
            seen.append(store.state)
            $0 = 1
        }
        seen.append(store.state)
        await store.receive(.b) {
            seen.append(store.state)
            $0 = 2
        }
        seen.append(store.state)
        await store.receive(.c) {
            seen.append(store.state)
            $0 = 3
        }
        seen.append(store.state)
        #expect(seen == [0, 1, 1, 2, 2, 3], "inside, before; after, after: \(seen)")
        await store.finish()
        #expect(failures.all.isEmpty, "\(failures.all)")
    }

    @Test func anUnreceivedActionIsReportedOnceAndCanStillBeReceived() async {
        let clock = TestClock()
        let failures = Failures()
        let store = TestStore(initialState: Search.State(), reducer: Search(clock: clock), reporter: failures.reporter)
        await store.send(.queryChanged("mi")) {
            $0.query = "mi"
            $0.isLoading = true
        }
        await clock.advance(by: .milliseconds(300))
        // The response arrived, and the test sends on without receiving it: one failure.
        await store.send(.queryChanged("milk")) {
            $0.query = "milk"
            $0.isLoading = true
        }
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.contains("1 received action(s) must be asserted") == true)
        // Receiving it afterwards is not a second failure.
        await store.receive(.response(["mi 1", "mi 2"])) {
            $0.results = ["mi 1", "mi 2"]
            $0.isLoading = false
        }
        await clock.advance(by: .milliseconds(300))
        await store.receive(.response(["milk 1", "milk 2"])) {
            $0.results = ["milk 1", "milk 2"]
            $0.isLoading = false
        }
        await store.finish()
        #expect(failures.all.count == 1, "\(failures.all)")
    }
}
