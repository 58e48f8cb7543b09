import StateStore
import Testing

/// One test per diagnostic kind, each produced the way a program would produce it.
@Suite("Diagnostics")
struct DiagnosticsTests {
    private enum Toggle: Transducer {
        enum State: Equatable, Sendable { case off, on }
        enum Command: Equatable, Sendable { case turnOn, turnOff }
        enum Effect: Sendable {}
        static func reduce(_ state: State, _ command: Command) -> Transition<State, Effect> {
            switch (state, command) {
            case (.off, .turnOn): .to(.on)
            case (.on, .turnOff): .to(.off)
            case (.on, .turnOn), (.off, .turnOff): .rejected("already there")
            }
        }
    }

    @Test func invalidTransition() {
        let log = DiagnosticLog()
        let store = RootStore(
            initialState: Toggle.State.off,
            reducer: TransducerReducer(Toggle.self, interactor: Interactor { _, _ in }),
            diagnostics: .collecting(into: log))
        store.send(.turnOff)
        #expect(store.currentState == .off)
        #expect(log.entries == [Diagnostic(.invalidTransition, "Command.turnOff is not valid in state State.off: already there", reason: "already there")])
    }

    @Test func missingChild() {
        struct Row: Identifiable, Equatable, Sendable { let id: Int }
        enum Action: Sendable { case row(Int, Void) }
        let log = DiagnosticLog()
        let reducer = Reduce<IdentifiedArray<Row>, Action> { _, _ in .none }
            .forEach(\.self, action: ActionPath(embed: Action.row) { if case .row(let id, let action) = $0 { (id, action) } else { nil } }) {
                Reduce<Row, Void> { _, _ in .none }
            }
        let store = RootStore(initialState: [Row(id: 1)], reducer: reducer, diagnostics: .collecting(into: log))
        store.send(.row(2, ()))
        #expect(log.entries.map(\.kind) == [.missingChild])
        #expect(log.entries.first?.message.contains("[id: 2]") == true)
    }

    @Test func unhandledEffectError() async {
        let log = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: log))
        await store.send(.failUnhandled).finish()
        #expect(
            log.entries == [
                Diagnostic(
                    .unhandledEffectError,
                    "an effect of Action.failUnhandled threw ProbeError.boom and no catch handler was given")
            ])
    }

    @Test func reentrantSend() {
        let log = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: log))
        let subscription = store.observe { state in
            if state.count == 1, state.log.isEmpty { store.send(.note("from observer")) }
        }
        store.send(.increment)
        #expect(
            log.entries == [
                Diagnostic(
                    .reentrantSend,
                    "Action.note(\"from observer\") was sent while the store was busy on the same thread (from an observer?); it was queued")
            ])
        subscription.cancel()
    }

    @Test func sendsFromEffectsAndMiddlewareAreNotReentrancyWarnings() async {
        let log = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: log)) {
            AnyMiddleware { action, context in
                if action == .increment { context.send(.note("follow-up")) }
                return .next(action)
            }
        }
        store.send(.increment)
        await store.send(.fetch).finish()
        store.send(.sendTwice)
        #expect(log.entries.isEmpty)
    }

    @Test func sendAfterShutdown() {
        let log = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: log))
        store.shutDown()
        store.send(.increment)
        #expect(log.entries == [Diagnostic(.sendAfterShutdown, "Action.increment was sent after the store shut down and was dropped")])
    }

    @Test func diagnosticsNeverShowSecrets() {
        enum Action: Sendable { case login(username: String, password: String) }
        let diagnostic = Diagnostic.invalidTransition(action: Action.login(username: "ada", password: "hunter22"), state: "idle")
        #expect(!diagnostic.message.contains("hunter22"))
        #expect(diagnostic.message.contains("password: <redacted>"))
    }
}
