import AppEnvironment
import Models
import Reducers
import StateStore
import StateStoreTesting
import TestSupport
import Testing

/// The same scenarios, run through each login style on a real store with the in-memory auth
/// client: every style must show the same sequence of outputs and reject the same steps.
@Suite("Login parity")
struct LoginParityTests {
    enum Step {
        case send(LoginAction)
        case advance(Duration)
    }

    static let latency = Duration.milliseconds(100)

    static let scenarios: [String: [Step]] = [
        "sign in": [
            .send(.usernameChanged("alice.liddell")), .send(.passwordChanged("wonderland")),
            .send(.signInTapped), .advance(latency),
        ],
        "wrong password, fix it, sign in": [
            .send(.usernameChanged("alice.liddell")), .send(.passwordChanged("looking-glass")),
            .send(.signInTapped), .advance(latency),
            .send(.passwordChanged("wonderland")), // typing keeps the error
            .send(.signInTapped), // rejected: acknowledge first
            .send(.errorAcknowledged), // back to what the credentials warrant
            .send(.signInTapped), .advance(latency),
        ],
        "unknown user, acknowledged with invalid credentials": [
            .send(.usernameChanged("mad.hatter")), .send(.passwordChanged("teaparty")),
            .send(.signInTapped), .advance(latency),
            .send(.passwordChanged("tea")),
            .send(.errorAcknowledged), // credentials invalid now: not valid again
            .send(.signInTapped), // rejected: invalid credentials
        ],
        "double sign in while authenticating": [
            .send(.usernameChanged("alice.liddell")), .send(.passwordChanged("wonderland")),
            .send(.signInTapped), .send(.signInTapped),
            .send(.usernameChanged("someone.else")), // rejected: wait for the sign in
            .advance(latency),
            .send(.signInTapped), // rejected: already signed in
        ],
        "too short": [
            .send(.usernameChanged("alice")), .send(.passwordChanged("wonder")),
            .send(.signInTapped),
            .send(.usernameChanged("alice.liddell")), .send(.passwordChanged("wonderland")),
        ],
        "network failure": [
            .send(.usernameChanged("alice.liddell")), .send(.passwordChanged("wonderland")),
            .send(.signInTapped), .advance(latency),
            .send(.errorAcknowledged),
        ],
    ]

    struct Observed: Equatable {
        var statuses: [LoginStatus] = []
        /// For each step, how many diagnostics it caused.
        var rejections: [Int] = []
    }

    static func run(_ steps: [Step], style: LoginStyle, failAuthentication: Bool = false) async -> Observed {
        let clock = TestClock()
        let backend = InMemoryBackend()
        _ = try? backend.signUp(goodCredentials)
        let failures = FailureInjector()
        if failAuthentication { failures.failNext(.authAuthenticate) }
        let environment = AppEnvironment.inMemory(backend: backend, clock: clock)
            .injectingFailures(failures)
            .withLatency(latency)
        let log = DiagnosticLog()
        let store = RootStore(
            initialState: Login.State(style: style), reducer: Login(auth: environment.auth),
            diagnostics: .collecting(into: log)
        ) {
            LoginMiddleware(auth: environment.auth)
        }
        let statuses = Locked<[LoginStatus]>([])
        let subscription = store.observe { state in
            statuses.withLock { list in
                if list.last != state.status { list.append(state.status) }
            }
        }
        var observed = Observed()
        for step in steps {
            let before = log.entries.count
            switch step {
            case .send(let action):
                store.send(action)
            case .advance(let duration):
                #expect(await clock.untilSleeping())
                await clock.advance(by: duration)
                await store.waitForEffects()
            }
            observed.rejections.append(log.entries.count - before)
        }
        subscription.cancel()
        observed.statuses = statuses.withLock { $0 }
        return observed
    }

    @Test(arguments: scenarios.keys.sorted())
    func everyStyleShowsTheSameOutputs(scenario: String) async throws {
        let steps = try #require(Self.scenarios[scenario])
        let failing = scenario == "network failure"
        let reference = await Self.run(steps, style: .finiteStates, failAuthentication: failing)
        #expect(reference.statuses.count > 2, "the scenario should show several states")
        for style in [LoginStyle.adHoc, .middleware] {
            let observed = await Self.run(steps, style: style, failAuthentication: failing)
            #expect(observed == reference, "\(style) differs from fsm in “\(scenario)”")
        }
    }

    @Test func theWrongPasswordScenarioShowsWhatTheRulesSay() async {
        let observed = await Self.run(Self.scenarios["wrong password, fix it, sign in"] ?? [], style: .adHoc)
        let errors = observed.statuses.map(\.error)
        #expect(errors.contains(.invalidCredentials))
        // Typing while the error shows keeps it; only the acknowledgement clears it.
        let corrected = observed.statuses.first { $0.password == "wonderland" && $0.error != nil }
        #expect(corrected?.hasValidCredentials == false)
        #expect(observed.rejections == [0, 0, 0, 0, 0, 1, 0, 0, 0])
        #expect(observed.statuses.last?.isAuthenticated == true)
        #expect(observed.statuses.last?.password.isEmpty == true, "the password is forgotten once signed in")
    }
}
