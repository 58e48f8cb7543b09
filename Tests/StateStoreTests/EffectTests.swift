import Foundation
import StateStore
import StateStoreTesting
import Testing

/// An id that hashes as the `Int` it wraps does, but is not that `Int`.
private struct OtherKindOfID: Hashable, Sendable {
    let value: Int
}

/// A feature whose actions each return one kind of effect, to test the effect runner.
private struct Lab: Reducer {
    struct State: Equatable, Sendable {
        var log: [String] = []
    }

    enum Action: Equatable, Sendable {
        case merge
        case concatenate
        case mapped
        case startLong(id: Int, cancelInFlight: Bool)
        case cancel(id: Int)
        case cancelOtherKind(id: Int)
        case searched(String)
        case throttled(String, latest: Bool)
        case report(Diagnostic)
        case failingWithoutHandler
        case child(ChildAction)
        case logged(String)
    }

    enum ChildAction: Equatable, Sendable { case ping }

    let clock: TestClock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .merge:
            return .merge(
                .run { send in
                    try await clock.sleep(for: .seconds(2))
                    send(.logged("slow"))
                },
                .run { send in
                    try await clock.sleep(for: .seconds(1))
                    send(.logged("fast"))
                }
            )
        case .concatenate:
            return .concatenate(
                .run { send in
                    try await clock.sleep(for: .seconds(2))
                    send(.logged("first"))
                },
                .send(.logged("second")),
                .run { send in
                    try await clock.sleep(for: .seconds(1))
                    send(.logged("third"))
                }
            )
        case .mapped:
            let child: Effect<ChildAction> = .merge(.send(.ping), .run { send in send(.ping) })
            return child.map(Action.child)
        case .startLong(let id, let cancelInFlight):
            return .run { send in
                try await clock.sleep(for: .seconds(10))
                send(.logged("long \(id) done"))
            }
            .cancellable(id: id, cancelInFlight: cancelInFlight)
        case .cancel(let id):
            return .cancel(id: id)
        case .cancelOtherKind(let id):
            return .cancel(id: OtherKindOfID(value: id))
        case .searched(let query):
            return .run { send in send(.logged("search \(query)")) }
                .debounce(id: "search", for: .milliseconds(300), clock: clock)
        case .throttled(let value, let latest):
            return .run { send in send(.logged("throttled \(value)")) }
                .throttle(id: "throttle", for: .seconds(1), clock: clock, latest: latest)
        case .report(let diagnostic):
            return .diagnostic(diagnostic)
        case .failingWithoutHandler:
            return .run { _ in throw LabError.unreachable(host: "db") }
        case .child(.ping):
            state.log.append("ping")
            return .none
        case .logged(let text):
            state.log.append(text)
            return .none
        }
    }

    enum LabError: Error { case unreachable(host: String) }
}

@Suite("Effects: combination, cancellation, errors, timing")
struct EffectTests {
    @Test func mergeRunsEffectsAtOnce() async {
        let clock = TestClock()
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: clock))
        await store.send(.merge)
        await clock.advance(by: .seconds(1))
        await store.receive(.logged("fast")) { $0.log = ["fast"] }
        await clock.advance(by: .seconds(1))
        await store.receive(.logged("slow")) { $0.log = ["fast", "slow"] }
        await store.finish()
    }

    @Test func concatenateRunsEffectsOneAfterAnother() async {
        let clock = TestClock()
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: clock))
        await store.send(.concatenate)
        await clock.advance(by: .seconds(1))
        #expect(store.state.log.isEmpty, "the second effect must wait for the first")
        await clock.advance(by: .seconds(1))
        await store.receive(.logged("first")) { $0.log = ["first"] }
        await store.receive(.logged("second")) { $0.log = ["first", "second"] }
        await clock.advance(by: .seconds(1))
        await store.receive(.logged("third")) { $0.log = ["first", "second", "third"] }
        await store.finish()
    }

    @Test func mapEmbedsEveryActionOfAChildEffect() async {
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: TestClock()))
        await store.send(.mapped)
        await store.receive(.child(.ping)) { $0.log = ["ping"] }
        await store.receive(.child(.ping)) { $0.log = ["ping", "ping"] }
        await store.finish()
    }

    @Test func cancelStopsEffectsWithTheIDAndDropsTheirLateActions() async {
        let clock = TestClock()
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: clock))
        await store.send(.startLong(id: 1, cancelInFlight: false))
        await store.send(.startLong(id: 2, cancelInFlight: false))
        await store.send(.cancel(id: 1))
        await clock.advance(by: .seconds(10))
        await store.receive(.logged("long 2 done")) { $0.log = ["long 2 done"] }
        await store.finish()
    }

    @Test func anIDOfAnotherTypeCancelsNothingEvenWithTheSameHash() async {
        #expect(OtherKindOfID(value: 3).hashValue == 3.hashValue, "the case this test is about")
        let clock = TestClock()
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: clock))
        await store.send(.startLong(id: 3, cancelInFlight: false))
        await store.send(.cancelOtherKind(id: 3))
        await clock.advance(by: .seconds(10))
        await store.receive(.logged("long 3 done")) { $0.log = ["long 3 done"] }
        await store.finish()
    }

    @Test func cancelInFlightReplacesTheRunningEffect() async {
        let clock = TestClock()
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: clock))
        await store.send(.startLong(id: 7, cancelInFlight: true))
        await clock.advance(by: .seconds(5))
        await store.send(.startLong(id: 7, cancelInFlight: true))
        await clock.advance(by: .seconds(5))
        #expect(store.state.log.isEmpty, "the first effect was cancelled before it finished")
        await clock.advance(by: .seconds(5))
        await store.receive(.logged("long 7 done")) { $0.log = ["long 7 done"] }
        await store.finish()
    }

    @Test func anErrorWithACatchHandlerBecomesAnAction() async {
        let store = TestStore(initialState: Counter.State(), reducer: Counter())
        await store.send(.fail)
        await store.receive(.failed("boom")) { $0.log = ["boom"] }
        await store.finish()
    }

    @Test func anErrorWithoutAHandlerGoesToDiagnostics() async {
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: TestClock()))
        await store.send(.failingWithoutHandler)
        await store.expectDiagnostic(.unhandledEffectError, containing: "unreachable(host: \"db\")")
        await store.finish()
    }

    @Test func aDiagnosticEffectReachesTheChannel() async {
        let log = DiagnosticLog()
        let store = RootStore(initialState: Lab.State(), reducer: Lab(clock: TestClock()), diagnostics: .collecting(into: log))
        store.send(.report(Diagnostic(.invalidTransition, "custom")))
        #expect(log.entries == [Diagnostic(.invalidTransition, "custom")])
    }

    @Test func debounceRunsOnlyTheLastOfABurst() async {
        let clock = TestClock()
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: clock))
        await store.send(.searched("m"))
        await clock.advance(by: .milliseconds(200))
        await store.send(.searched("mi"))
        await clock.advance(by: .milliseconds(200))
        await store.send(.searched("mil"))
        await clock.advance(by: .milliseconds(299))
        #expect(store.state.log.isEmpty)
        await clock.advance(by: .milliseconds(1))
        await store.receive(.logged("search mil")) { $0.log = ["search mil"] }
        await store.finish()
    }

    @Test func throttleWithoutLatestRunsTheFirstOfTheWindowWhenItCloses() async {
        let clock = TestClock()
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: clock))
        await store.send(.throttled("a", latest: false))
        await store.receive(.logged("throttled a")) { $0.log = ["throttled a"] }
        await clock.advance(by: .milliseconds(500))
        await store.send(.throttled("b", latest: false))
        await clock.advance(by: .milliseconds(250))
        await store.send(.throttled("c", latest: false))
        await clock.advance(by: .milliseconds(249))
        #expect(store.state.log == ["throttled a"])
        await clock.advance(by: .milliseconds(1))
        await store.receive(.logged("throttled b")) { $0.log = ["throttled a", "throttled b"] }
        // The window opened when b ran: d, inside it, waits for its end; e, after it, runs at once.
        await clock.advance(by: .milliseconds(500))
        await store.send(.throttled("d", latest: false))
        await clock.advance(by: .milliseconds(500))
        await store.receive(.logged("throttled d")) { $0.log = ["throttled a", "throttled b", "throttled d"] }
        await clock.advance(by: .milliseconds(1_000))
        await store.send(.throttled("e", latest: false))
        await store.receive(.logged("throttled e")) { $0.log = ["throttled a", "throttled b", "throttled d", "throttled e"] }
        await store.finish()
    }

    @Test func throttleWithLatestRunsTheLastOfTheWindowWhenItCloses() async {
        let clock = TestClock()
        let store = TestStore(initialState: Lab.State(), reducer: Lab(clock: clock))
        await store.send(.throttled("a", latest: true))
        await store.receive(.logged("throttled a")) { $0.log = ["throttled a"] }
        await clock.advance(by: .milliseconds(200))
        await store.send(.throttled("b", latest: true))
        await clock.advance(by: .milliseconds(200))
        await store.send(.throttled("c", latest: true))
        await clock.advance(by: .milliseconds(599))
        #expect(store.state.log == ["throttled a"])
        await clock.advance(by: .milliseconds(1))
        await store.receive(.logged("throttled c")) { $0.log = ["throttled a", "throttled c"] }
        await store.finish()
    }

    /// The work of `.run` runs without a hop of its own, but work isolated to an actor still
    /// runs on that actor.
    @Test func workIsolatedToAGlobalActorRunsOnThatActor() async {
        let ranOnActor = Locked<Bool?>(nil)
        let store = RootStore(
            initialState: Counter.State(),
            reducer: Reduce<Counter.State, Counter.Action> { state, action in
                guard case .note(let text) = action else { return .none }
                state.log.append(text)
                guard text == "start" else { return .none }
                return .run { @QueueActor send async in
                    ranOnActor.withLock { $0 = QueueActor.isRunningHere }
                    send(.note("done"))
                }
            })
        store.send(.note("start"))
        #expect(await store.waitForEffects(timeout: .seconds(10)))
        #expect(ranOnActor.withLock { $0 } == true)
        #expect(store.currentState.log == ["start", "done"])
    }

    // MARK: - The registry under concurrent starts

    /// Quick effects and long cancellable ones, started from several threads at once.
    private struct Churn: Reducer {
        struct State: Equatable, Sendable {
            var quickDone = 0
            var longDone = 0
        }

        enum Action: Equatable, Sendable {
            case quick
            case quickDone
            case long(id: Int)
            case longDone
            case cancel(id: Int)
        }

        let cancelled: Locked<Int>

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            switch action {
            case .quick:
                return .run { send in send(.quickDone) }
            case .quickDone:
                state.quickDone += 1
                return .none
            case .long(let id):
                return .run { [cancelled] send in
                    do {
                        try await Task.sleep(for: .seconds(60))
                        send(.longDone)
                    } catch {
                        cancelled.withLock { $0 += 1 }
                    }
                }
                .cancellable(id: id)
            case .longDone:
                state.longDone += 1
                return .none
            case .cancel(let id):
                return .cancel(id: id)
            }
        }
    }

    /// Effects that finish while others start, from several threads, reuse their places in the
    /// store's registry; a cancellation by id must still reach the task of each effect with
    /// that id. (`EffectRegistryTests` checks the slot and key rules themselves, deterministically.)
    @Test func cancellingByIDReachesEveryLongEffectWhileQuickOnesComeAndGoFromManyThreads() async {
        let cancelled = Locked(0)
        let store = RootStore(initialState: Churn.State(), reducer: Churn(cancelled: cancelled))
        let senders = 4
        let quickPerSender = 500
        let longPerSender = 25
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for number in 0..<quickPerSender {
                        store.send(.quick)
                        if number % (quickPerSender / longPerSender) == 0 {
                            store.send(.long(id: sender * 1_000 + number))
                        }
                    }
                }
            }
        }
        #expect(store.runningEffects.count == senders * longPerSender, "only the long effects still run")
        for sender in 0..<senders {
            for number in stride(from: 0, to: quickPerSender, by: quickPerSender / longPerSender) {
                store.send(.cancel(id: sender * 1_000 + number))
            }
        }
        #expect(await store.waitForEffects(timeout: .seconds(10)), "cancelled effects stop counting at once")
        let deadline = ContinuousClock.now + .seconds(10)
        while cancelled.withLock({ $0 }) < senders * longPerSender, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(cancelled.withLock { $0 } == senders * longPerSender, "every long effect's own task was cancelled")
        #expect(store.currentState == Churn.State(quickDone: senders * quickPerSender, longDone: 0))
    }
}

/// A global actor whose jobs run on a serial dispatch queue that can tell when it is running.
@globalActor
private actor QueueActor {
    static let shared = QueueActor()
    private static let executor = QueueExecutor()

    nonisolated var unownedExecutor: UnownedSerialExecutor { Self.executor.asUnownedSerialExecutor() }

    /// Whether the calling code runs on this actor's queue.
    static var isRunningHere: Bool { DispatchQueue.getSpecific(key: QueueExecutor.marker) == true }
}

private final class QueueExecutor: SerialExecutor {
    static let marker = DispatchSpecificKey<Bool>()
    private let queue = DispatchQueue(label: "QueueActor")

    init() {
        queue.setSpecific(key: Self.marker, value: true)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}
