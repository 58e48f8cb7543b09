import StateStore
import TestSupport
import Testing

/// The order in which actions sent by effects are reduced, as The Composable Architecture's
/// users rely on it.
@Suite("Effect order")
struct EffectOrderTests {
    struct Ordering: Reducer {
        struct State: Equatable, Sendable { var log: [String] = [] }
        enum Action: Equatable, Sendable { case a, ay, az, bz1, bz2, b1, b2, b3, c1, start, startInTask, cancelIt, next, startThenCancel, late }
        enum EffectKey: Hashable, Sendable { case body }

        /// Work that suspends once before it sends `c1`.
        static let c1AfterAnAwait = Effect<Action>.run { send async in
            await Task.yield()
            send(.c1)
        }

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            state.log.append("\(action)")
            switch action {
            case .a:
                return .merge(.send(.b1), .run { send in send(.c1) })
            case .ay:
                return .merge(.send(.b1), Self.c1AfterAnAwait)
            case .az:
                return .merge(.send(.bz1), Self.c1AfterAnAwait)
            case .bz1:
                return .run { send in send(.bz2) }
            case .bz2:
                return .run { send async in send(.b3) }
            case .b1:
                return .concatenate(.send(.b2), .send(.b3))
            case .start:
                return .run { send in
                    send(.cancelIt)
                    try Task.checkCancellation()
                    send(.next)
                }
                .cancellable(id: EffectKey.body)
            case .startInTask:
                return .run { send async throws in
                    send(.cancelIt)
                    try Task.checkCancellation()
                    send(.next)
                }
                .cancellable(id: EffectKey.body)
            case .startThenCancel:
                // The work is asked for, then cancelled by an action reduced before it starts.
                return .merge(.run { send in send(.late) }.cancellable(id: EffectKey.body), .send(.cancelIt))
            case .cancelIt:
                return .cancel(id: EffectKey.body)
            case .b2, .b3, .c1, .next, .late:
                return .none
            }
        }
    }

    @Test func sendsOfAConcatenationArriveBeforeAnotherEffectsLaterSend() async {
        let store = RootStore(initialState: Ordering.State(), reducer: Ordering())
        #expect(await store.send(.a).settle(timeout: .seconds(30)))
        #expect(store.currentState.log == ["a", "b1", "b2", "b3", "c1"])
    }

    /// TCA's order: every piece of work starts (runs to its first suspension) before any resumes,
    /// so a send after an `await` comes after what the work started later sent at once.
    @Test func workThatAwaitedSendsAfterTheWorkStartedBehindIt() async {
        let store = RootStore(initialState: Ordering.State(), reducer: Ordering())
        #expect(await store.send(.ay).settle(timeout: .seconds(30)))
        #expect(store.currentState.log == ["ay", "b1", "b2", "b3", "c1"])
        let cascading = RootStore(initialState: Ordering.State(), reducer: Ordering())
        #expect(await cascading.send(.az).settle(timeout: .seconds(30)))
        #expect(cascading.currentState.log == ["az", "bz1", "bz2", "b3", "c1"], "nested starts go behind the ones kept before")
    }

    @Test func aSendFromAnEffectIsReducedBeforeTheBodysNextLine() async {
        let store = RootStore(initialState: Ordering.State(), reducer: Ordering())
        #expect(await store.send(.start).settle(timeout: .seconds(30)))
        #expect(store.currentState.log == ["start", "cancelIt"], "the cancellation reached the body before it sent again")
    }

    @Test func aSendFromAnEffectsTaskIsReducedBeforeItsNextLineSoItsCancellationIsSeen() async {
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Ordering.State(), reducer: Ordering(), diagnostics: .collecting(into: diagnostics))
        #expect(await store.send(.startInTask).settle(timeout: .seconds(30)))
        #expect(store.currentState.log == ["startInTask", "cancelIt"])
        #expect(diagnostics.entries.isEmpty, "the cancellation ended the work; it is not an error")
    }

    @Test func workCancelledBeforeItStartedNeverRuns() async {
        let store = RootStore(initialState: Ordering.State(), reducer: Ordering())
        let task = store.send(.startThenCancel)
        #expect(await task.settle(timeout: .seconds(30)))
        await task.finish()
        #expect(store.currentState.log == ["startThenCancel", "cancelIt"])
        #expect(!store.hasRunningEffects)
    }
}
