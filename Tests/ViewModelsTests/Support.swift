import AppEnvironment
import Foundation
import Models
import Observation
import Reducers
import StateStore
import StateStoreTesting
import TestSupport
import Testing

/// A real app store on the in-memory clients, recording the actions it reduces and the
/// diagnostics it reports.
final class AppHarness: Sendable {
    let clock = TestClock()
    let backend = InMemoryBackend(uuid: .incrementing(), now: .constant(Date(timeIntervalSince1970: 1_800_000_000)))
    let failures = FailureInjector()
    let diagnostics = DiagnosticLog()
    let store: RootStore<AppFeature.State, AppFeature.Action>
    private let reduced = Collected<AppFeature.Action>()
    private let subscription: StoreSubscription

    let latency: Duration

    init(style: LoginStyle = .finiteStates, latency: Duration? = nil) {
        self.latency = latency ?? .zero
        var environment = AppEnvironment.inMemory(backend: backend, clock: clock).injectingFailures(failures)
        if let latency { environment = environment.withLatency(latency) }
        let store = RootStore(
            initialState: AppFeature.State(loginStyle: style), reducer: AppFeature(environment: environment),
            diagnostics: .collecting(into: diagnostics)
        ) {
            AppFeature.loginMiddleware(environment)
        }
        self.store = store
        let reduced = reduced
        subscription = store.observeActions { action, _ in reduced.append(action) }
        _ = try? backend.signUp(Credentials(username: "alice.liddell", password: "wonderland"))
    }

    /// The actions reduced since the last call.
    func takeActions() -> [AppFeature.Action] {
        reduced.take()
    }

    /// Moves the clock by the latency until no effect is left running.
    func settle(sourceLocation: SourceLocation = #_sourceLocation) async {
        let step = max(latency, .milliseconds(10))
        for _ in 0..<200 {
            _ = await eventually { self.clock.sleeperCount > 0 || self.store.runningEffects.isEmpty }
            if store.runningEffects.isEmpty { return }
            await clock.advance(by: step)
        }
        Issue.record("effects still running: \(store.runningEffects)", sourceLocation: sourceLocation)
    }

    func signIn() async {
        store.send(.login(.usernameChanged("alice.liddell")))
        store.send(.login(.passwordChanged("wonderland")))
        store.send(.login(.signInTapped))
        await settle()
        #expect(store.currentState.isSignedIn)
        _ = takeActions()
    }
}

/// Counts the changes Observation reports for what `read` touches, re-arming after each one.
final class ChangeCounter: Sendable {
    private let count = Locked(0)
    private let read: @Sendable () -> Void

    init(_ read: @escaping @Sendable () -> Void) {
        self.read = read
        arm()
    }

    var changes: Int { count.withLock { $0 } }

    private func arm() {
        withObservationTracking {
            read()
        } onChange: { [self] in
            count.withLock { $0 += 1 }
            // Re-arm after the change is applied, as a UI would on its next frame.
            Task { self.arm() }
        }
    }
}
