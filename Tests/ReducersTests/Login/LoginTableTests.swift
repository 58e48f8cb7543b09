import AppEnvironment
import Models
import Reducers
import StateStore
import Testing

/// Every (situation, action) pair of the login, checked against a hand-written table for the
/// finite-state style, and the other two styles checked to answer every pair the same way.
@Suite("Login transition table")
struct LoginTableTests {
    /// The six situations a sign-in screen can be in.
    enum Situation: CaseIterable {
        case idle, validating, valid, authenticating, authenticated, failure
    }

    static let failureError = AppError.invalidCredentials

    /// The actions of the table, the same for every style except the response, which the
    /// middleware style receives as `setAccessToken` / `loginFailed`.
    enum Input: CaseIterable {
        case validUsername, shortPassword, signIn, acknowledge, success, failure

        func action(for style: LoginStyle) -> LoginAction {
            switch (self, style) {
            case (.validUsername, _): .usernameChanged("someone.else")
            case (.shortPassword, _): .passwordChanged("short")
            case (.signIn, _): .signInTapped
            case (.acknowledge, _): .errorAcknowledged
            case (.success, .middleware): .setAccessToken(aliceSession)
            case (.success, _): .authenticationResponse(.success(aliceSession))
            case (.failure, .middleware): .loginFailed(.network(reason: "offline"))
            case (.failure, _): .authenticationResponse(.failure(.network(reason: "offline")))
            }
        }
    }

    /// The finite-state machine's expected phase after each pair; `nil` means rejected.
    static func expectedPhase(_ situation: Situation, _ input: Input) -> LoginMachine.Phase? {
        switch (situation, input) {
        case (.idle, .validUsername): .validatingCredentials
        case (.idle, .shortPassword): .validatingCredentials
        case (.validating, .validUsername): .validatingCredentials
        case (.validating, .shortPassword): .validatingCredentials
        case (.valid, .validUsername): .validCredentials
        case (.valid, .shortPassword): .validatingCredentials
        case (.valid, .signIn): .authenticating
        case (.authenticating, .success): .authenticated
        case (.authenticating, .failure): .failure(.network(reason: "offline"))
        case (.failure, .validUsername): .failure(failureError)
        case (.failure, .shortPassword): .failure(failureError)
        case (.failure, .acknowledge): .validCredentials
        default: nil
        }
    }

    static func state(_ situation: Situation, style: LoginStyle) -> Login.State {
        let good = goodCredentials
        switch (style, situation) {
        case (.finiteStates, .idle): return .finiteStates(.init())
        case (.finiteStates, .validating): return .finiteStates(.init(phase: .validatingCredentials, username: "bob"))
        case (.finiteStates, .valid): return .finiteStates(.init(phase: .validCredentials, username: good.username, password: good.password))
        case (.finiteStates, .authenticating): return .finiteStates(.init(phase: .authenticating, username: good.username, password: good.password))
        case (.finiteStates, .authenticated): return .finiteStates(.init(phase: .authenticated, username: good.username))
        case (.finiteStates, .failure): return .finiteStates(.init(phase: .failure(failureError), username: good.username, password: good.password))
        case (.adHoc, .idle): return .adHoc(.init())
        case (.adHoc, .validating): return .adHoc(.init(username: "bob"))
        case (.adHoc, .valid): return .adHoc(.init(username: good.username, password: good.password))
        case (.adHoc, .authenticating): return .adHoc(.init(username: good.username, password: good.password, isBusy: true))
        case (.adHoc, .authenticated): return .adHoc(.init(username: good.username, isAuthenticated: true))
        case (.adHoc, .failure): return .adHoc(.init(username: good.username, password: good.password, error: failureError))
        case (.middleware, .idle): return .middleware(.init())
        case (.middleware, .validating): return .middleware(.init(username: "bob"))
        case (.middleware, .valid): return .middleware(.init(username: good.username, password: good.password))
        case (.middleware, .authenticating): return .middleware(.init(username: good.username, password: good.password, isLoggingIn: true))
        case (.middleware, .authenticated): return .middleware(.init(username: good.username, hasAccessToken: true))
        case (.middleware, .failure): return .middleware(.init(username: good.username, password: good.password, error: failureError))
        }
    }

    /// Sends one action to a login store in `state` and reports the status and the diagnostics.
    /// Sign ins never answer, so only the action's own step is observed.
    static func step(_ state: Login.State, _ action: LoginAction, withMiddleware: Bool = true) -> (
        status: LoginStatus, diagnostics: [Diagnostic], state: Login.State
    ) {
        let log = DiagnosticLog()
        let auth = AuthClient(
            signUp: { _ throws(AppError) in throw .cancelled },
            authenticate: { _ throws(AppError) in
                try? await Task.sleep(for: .seconds(3600))
                throw .cancelled
            },
            signOut: { _ in }
        )
        let store = RootStore(initialState: state, reducer: Login(auth: auth), diagnostics: .collecting(into: log)) {
            if withMiddleware { LoginMiddleware(auth: auth) }
        }
        store.send(action)
        defer { store.shutDown() }
        return (store.currentState.status, log.entries, store.currentState)
    }

    @Test func theShortcutsForBusyAndSignedInAgreeWithTheStatusInEverySituation() {
        for style in LoginStyle.allCases {
            for situation in Situation.allCases {
                let login = Self.state(situation, style: style)
                #expect(login.isBusy == login.status.isBusy, "\(style), \(situation)")
                #expect(login.isAuthenticated == login.status.isAuthenticated, "\(style), \(situation)")
                var app = AppFeature.State()
                app.account = .signedOut(login)
                #expect(app.isSigningIn == app.loginStatus.isBusy, "\(style), \(situation)")
            }
        }
        #expect(Situation.allCases.contains { Self.state($0, style: .finiteStates).isBusy }, "a situation is busy")
    }

    @Test func finiteStatesFollowTheTable() {
        for situation in Situation.allCases {
            for input in Input.allCases {
                let before = Self.state(situation, style: .finiteStates)
                let (_, diagnostics, after) = Self.step(before, input.action(for: .finiteStates))
                guard case .finiteStates(let machine) = after else { Issue.record("style changed"); continue }
                if let expected = Self.expectedPhase(situation, input) {
                    #expect(machine.phase == expected, "\(situation) + \(input)")
                    #expect(diagnostics.isEmpty, "\(situation) + \(input) should be accepted: \(diagnostics)")
                } else {
                    #expect(after == before, "\(situation) + \(input) is rejected, so nothing may change")
                    #expect(diagnostics.map(\.kind) == [.invalidTransition], "\(situation) + \(input) should be reported")
                }
            }
        }
    }

    @Test(arguments: [LoginStyle.adHoc, .middleware])
    func everyStyleAnswersEveryPairLikeTheFiniteStates(style: LoginStyle) {
        for situation in Situation.allCases {
            // The situations mean the same thing in every style before any action.
            #expect(Self.state(situation, style: style).status == Self.state(situation, style: .finiteStates).status)
            for input in Input.allCases {
                let reference = Self.step(Self.state(situation, style: .finiteStates), input.action(for: .finiteStates))
                let other = Self.step(Self.state(situation, style: style), input.action(for: style))
                #expect(other.status == reference.status, "\(style): \(situation) + \(input)")
                #expect(other.diagnostics.map(\.kind) == reference.diagnostics.map(\.kind), "\(style): \(situation) + \(input)")
            }
        }
    }

    @Test(arguments: LoginStyle.allCases)
    func anotherStylesActionsAreRejected(style: LoginStyle) {
        let foreign: [LoginAction] =
            style == .middleware
            ? [.authenticationResponse(.success(aliceSession))]
            : [.login(goodCredentials), .setAccessToken(aliceSession), .loginFailed(.invalidCredentials)]
        for action in foreign {
            let before = Self.state(.authenticating, style: style)
            let (_, diagnostics, after) = Self.step(before, action, withMiddleware: false)
            #expect(after == before)
            #expect(diagnostics.count == 1)
        }
    }

    @Test(arguments: LoginStyle.allCases)
    func rejectionsNeverShowThePassword(style: LoginStyle) {
        let typed = LoginAction.passwordChanged("typed-secret-123")
        let (_, diagnostics, _) = Self.step(Self.state(.authenticating, style: style), typed)
        #expect(diagnostics.count == 1)
        for diagnostic in diagnostics {
            #expect(!diagnostic.description.contains("typed-secret-123"))
            #expect(!diagnostic.description.contains("wonderland"), "the password in the state is redacted too")
        }
    }

    @Test func aLoginRequestThatReachesTheReducerEndsTheAttemptAndNamesTheMissingMiddleware() {
        let log = DiagnosticLog()
        let store = RootStore(
            initialState: Login.State.middleware(.init(username: "alice.liddell", password: "wonderland")),
            reducer: Login(auth: .noop),
            diagnostics: .collecting(into: log)
        )
        store.send(.signInTapped)
        #expect(store.currentState.status.isBusy == false)
        #expect(log.entries.count == 1)
        #expect(log.entries.first?.message.contains("install LoginMiddleware") == true)
    }
}
