import AppEnvironment
import Models
import StateStore

/// Login where a middleware does the work.
public struct MiddlewareLogin: Reducer {
    /// What the reducer records.
    public struct State: Hashable, Sendable, Codable {
        /// The username typed.
        public var username: Username
        /// The password typed.
        public var password: Password
        /// Whether a `login` request is with the middleware.
        public var isLoggingIn: Bool
        /// Whether the middleware delivered an access token.
        public var hasAccessToken: Bool
        /// The failure the middleware forwarded, shown until acknowledged.
        public var error: AppError?

        /// A state with these properties; the defaults are a fresh screen.
        public init(
            username: Username = "",
            password: Password = "",
            isLoggingIn: Bool = false,
            hasAccessToken: Bool = false,
            error: AppError? = nil
        ) {
            self.username = username
            self.password = password
            self.isLoggingIn = isLoggingIn
            self.hasAccessToken = hasAccessToken
            self.error = error
        }

        /// The fields as credentials.
        public var credentials: Credentials { Credentials(username: username, password: password) }

        /// What the screen shows.
        public var status: LoginStatus {
            LoginStatus(
                username: username,
                password: password,
                hasValidCredentials: error == nil && credentials.isValid,
                isBusy: isLoggingIn,
                isAuthenticated: hasAccessToken,
                error: error
            )
        }
    }

    /// A middleware-style login reducer.
    public init() {}

    /// Applies one login action.
    public func reduce(into state: inout State, action: LoginAction) -> Effect<LoginAction> {
        switch action {
        case .usernameChanged(let username):
            if let reason = Self.editRejection(state) { return reject(action, state, reason) }
            state.username = username
            return .none
        case .passwordChanged(let password):
            if let reason = Self.editRejection(state) { return reject(action, state, reason) }
            state.password = password
            return .none
        case .signInTapped:
            if state.isLoggingIn { return reject(action, state, LoginRules.inProgress) }
            if state.hasAccessToken { return reject(action, state, LoginRules.alreadySignedIn) }
            if state.error != nil { return reject(action, state, LoginRules.acknowledgeFirst) }
            guard state.credentials.isValid else { return reject(action, state, LoginRules.invalid(state.credentials)) }
            state.isLoggingIn = true
            return .send(.login(state.credentials))
        case .login:
            guard state.isLoggingIn else { return reject(action, state, LoginRules.noSignInInProgress) }
            state.isLoggingIn = false
            return reject(
                action, state,
                "the login request reached the reducer: install LoginMiddleware in the store's middleware")
        case .setAccessToken:
            guard state.isLoggingIn else { return reject(action, state, LoginRules.noSignInInProgress) }
            state.isLoggingIn = false
            state.hasAccessToken = true
            state.error = nil
            state.password = ""
            return .none
        case .loginFailed(let error):
            guard state.isLoggingIn else { return reject(action, state, LoginRules.noSignInInProgress) }
            state.isLoggingIn = false
            state.error = error
            return .none
        case .errorAcknowledged:
            guard state.error != nil else { return reject(action, state, LoginRules.noError) }
            state.error = nil
            return .none
        case .authenticationResponse:
            return reject(
                action, state,
                "the middleware login style receives setAccessToken or loginFailed, not authenticationResponse")
        }
    }

    private static func editRejection(_ state: State) -> String? {
        if state.isLoggingIn { return LoginRules.waitForSignIn }
        if state.hasAccessToken { return LoginRules.alreadySignedIn }
        return nil
    }
}

/// Performs the sign in of the middleware login style.
public struct LoginMiddleware<State: Sendable, Action: Sendable>: Middleware {
    @usableFromInline let auth: AuthClient
    @usableFromInline let action: ActionPath<Action, LoginAction>

    /// A middleware that signs in with `auth` the login requests `action` extracts.
    public init(auth: AuthClient, action: ActionPath<Action, LoginAction>) {
        self.auth = auth
        self.action = action
    }

    /// Intercepts `login`; passes every other action on.
    @inlinable
    public func handle(_ action: Action, context: MiddlewareContext<State, Action>) -> MiddlewareStep<Action> {
        guard case .login(let credentials)? = self.action.extract(action) else { return .next(action) }
        return signIn(credentials)
    }

    @usableFromInline
    func signIn(_ credentials: Credentials) -> MiddlewareStep<Action> {
        let auth = auth
        let embed = self.action.embed
        return .deferred {
            switch await Outcome(catching: { () async throws(AppError) in try await auth.authenticate(credentials) }) {
            case .success(let session): embed(.setAccessToken(session))
            case .failure(let error): embed(.loginFailed(error))
            }
        }
    }
}

extension LoginMiddleware where State == Login.State, Action == LoginAction {
    /// A middleware for a store that runs the login feature on its own.
    public init(auth: AuthClient) {
        self.init(auth: auth, action: ActionPath(embed: { $0 }, extract: { $0 }))
    }
}
