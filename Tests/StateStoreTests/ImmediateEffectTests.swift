import Dispatch
import StateStore
import TestSupport
import Testing

/// A feature whose effects' closures await nothing, in every shape an effect takes.
private struct Relay: Reducer {
    struct State: Equatable, Sendable {
        var log: [String] = []
    }

    enum Action: Equatable, Sendable {
        case start
        case startAsync
        case startThrowing
        case startThrowingUnhandled
        case startChild
        case child(String)
        case logged(String)
    }

    struct Failure: Error {}

    /// Whether each effect's work ran inside a task.
    let ranInTask: Collected<Bool>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        let ranInTask = ranInTask
        switch action {
        case .start:
            return .run { send in
                ranInTask.append(withUnsafeCurrentTask { $0 != nil })
                send(.logged("one"))
                send(.logged("two"))
            }
        case .startAsync:
            return .run { send async in
                ranInTask.append(withUnsafeCurrentTask { $0 != nil })
                send(.logged("async"))
            }
        case .startThrowing:
            return .run { _ in
                throw Failure()
            } catch: { _, send in
                send(.logged("caught"))
            }
        case .startThrowingUnhandled:
            return .run { _ in throw Failure() }
        case .startChild:
            // A child's effect, embedded: still without a task.
            return Effect<String>.run { send in
                ranInTask.append(withUnsafeCurrentTask { $0 != nil })
                send("from child")
            }
            .map(Action.child)
        case .child(let text), .logged(let text):
            state.log.append(text)
            return .none
        }
    }
}

@Suite("Effects whose work cannot suspend run without a task")
struct ImmediateEffectTests {
    /// Sends from a thread with no Swift task, so that a task seen by the work is the effect's.
    /// (`sync` would run it on this very thread, inside the test's task.)
    private func sendFromAPlainThread(_ store: RootStore<Relay.State, Relay.Action>, _ action: Relay.Action) -> StoreTask {
        let sent = Locked<StoreTask?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            sent.withLock { $0 = store.send(action) }
            done.signal()
        }
        done.wait()
        return sent.withLock { $0 } ?? StoreTask(combining: [])
    }

    @Test func workThatAwaitsNothingRunsWithoutATaskAndIsOverWhenSendReturns() {
        let ranInTask = Collected<Bool>()
        let store = RootStore(initialState: Relay.State(), reducer: Relay(ranInTask: ranInTask))
        let task = sendFromAPlainThread(store, .start)
        #expect(ranInTask.all == [false])
        #expect(store.currentState.log == ["one", "two"])
        #expect(!store.hasRunningEffects)
        #expect(task.isSettled)
    }

    @Test func sayingAsyncGetsATask() async {
        let ranInTask = Collected<Bool>()
        let store = RootStore(initialState: Relay.State(), reducer: Relay(ranInTask: ranInTask))
        await sendFromAPlainThread(store, .startAsync).finish()
        #expect(ranInTask.all == [true])
        #expect(store.currentState.log == ["async"])
    }

    @Test func aMappedChildEffectKeepsRunningWithoutATask() {
        let ranInTask = Collected<Bool>()
        let store = RootStore(initialState: Relay.State(), reducer: Relay(ranInTask: ranInTask))
        _ = sendFromAPlainThread(store, .startChild)
        #expect(ranInTask.all == [false])
        #expect(store.currentState.log == ["from child"])
    }

    @Test func anErrorGoesToTheCatchHandlerOrToTheDiagnostics() async {
        let log = DiagnosticLog()
        let store = RootStore(initialState: Relay.State(), reducer: Relay(ranInTask: Collected()), diagnostics: .collecting(into: log))
        await store.send(.startThrowing).finish()
        #expect(store.currentState.log == ["caught"])
        store.send(.startThrowingUnhandled)
        #expect(log.entries.map(\.kind) == [.unhandledEffectError])
        #expect(log.entries.first?.message.contains("startThrowingUnhandled") == true)
    }

    @Test func aStoreThatShutDownRunsNoMoreWork() {
        let ranInTask = Collected<Bool>()
        let store = RootStore(initialState: Relay.State(), reducer: Relay(ranInTask: ranInTask))
        store.shutDown()
        store.send(.start)
        #expect(ranInTask.all.isEmpty)
    }
}
