import AppEnvironment
import Models
import StateStore

/// Login as a finite-state machine.
public enum LoginMachine: Transducer {
    /// Where the sign in stands.
    public enum Phase: Hashable, Sendable, Codable {
        /// Nothing typed yet.
        case idle
        /// The user is typing; the credentials are not valid yet.
        case validatingCredentials
        /// Both fields are valid: signing in is possible.
        case validCredentials
        /// A sign in is in progress.
        case authenticating
        /// The user is signed in.
        case authenticated
        /// The last sign in failed; shown until acknowledged.
        case failure(AppError)
    }

    /// The phase and the fields typed.
    public struct State: Hashable, Sendable, Codable {
        /// Where the sign in stands.
        public var phase: Phase
        /// The username typed.
        public var username: Username
        /// The password typed.
        public var password: Password

        /// A machine in `phase` with these fields.
        public init(phase: Phase = .idle, username: Username = "", password: Password = "") {
            self.phase = phase
            self.username = username
            self.password = password
        }

        /// The fields as credentials.
        public var credentials: Credentials { Credentials(username: username, password: password) }

        /// What the screen shows.
        public var status: LoginStatus {
            var error: AppError?
            if case .failure(let failure) = phase { error = failure }
            return LoginStatus(
                username: username,
                password: password,
                hasValidCredentials: error == nil && credentials.isValid,
                isBusy: phase == .authenticating,
                isAuthenticated: phase == .authenticated,
                error: error
            )
        }
    }

    /// The machine's inputs are the login actions.
    public typealias Command = LoginAction

    /// Work the machine asks for.
    public enum Effect: Hashable, Sendable {
        /// Sign in with these credentials.
        case authenticate(Credentials)
    }

    /// The transition for `command` in `state`.
    public static func reduce(_ state: State, _ command: LoginAction) -> Transition<State, Effect> {
        var next = state
        switch command {
        case .usernameChanged(let username):
            next.username = username
            return edit(state, into: next)
        case .passwordChanged(let password):
            next.password = password
            return edit(state, into: next)
        case .signInTapped:
            switch state.phase {
            case .validCredentials:
                next.phase = .authenticating
                return .to(next, effect: .authenticate(state.credentials))
            case .idle, .validatingCredentials: return .rejected(LoginRules.invalid(state.credentials))
            case .authenticating: return .rejected(LoginRules.inProgress)
            case .authenticated: return .rejected(LoginRules.alreadySignedIn)
            case .failure: return .rejected(LoginRules.acknowledgeFirst)
            }
        case .errorAcknowledged:
            guard case .failure = state.phase else { return .rejected(LoginRules.noError) }
            next.phase = warranted(by: state.credentials)
            return .to(next)
        case .authenticationResponse(let outcome):
            guard state.phase == .authenticating else { return .rejected(LoginRules.noSignInInProgress) }
            switch outcome {
            case .success:
                next.phase = .authenticated
                next.password = ""
            case .failure(let error):
                next.phase = .failure(error)
            }
            return .to(next)
        case .login, .setAccessToken, .loginFailed:
            return .rejected(LoginRules.belongsToMiddlewareStyle(command))
        }
    }

    /// The machine as a reducer that signs in with `auth`.
    public static func reducer(auth: AuthClient) -> TransducerReducer<LoginMachine> {
        TransducerReducer(
            LoginMachine.self,
            interactor: Interactor(respond: { effect in
                switch effect {
                case .authenticate(let credentials):
                    .authenticationResponse(await Outcome { () async throws(AppError) in try await auth.authenticate(credentials) })
                }
            }))
    }

    /// A field changed: accepted unless a sign in is in progress or done; an error stays shown.
    private static func edit(_ state: State, into next: State) -> Transition<State, Effect> {
        var next = next
        switch state.phase {
        case .idle, .validatingCredentials, .validCredentials:
            next.phase = warranted(by: next.credentials)
            return .to(next)
        case .failure:
            return .to(next)
        case .authenticating:
            return .rejected(LoginRules.waitForSignIn)
        case .authenticated:
            return .rejected(LoginRules.alreadySignedIn)
        }
    }

    /// The phase the credentials typed call for when nothing else is going on.
    private static func warranted(by credentials: Credentials) -> Phase {
        credentials.isValid ? .validCredentials : .validatingCredentials
    }
}
