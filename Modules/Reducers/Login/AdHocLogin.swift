import AppEnvironment
import Models
import StateStore

/// Login as a handful of properties instead of finite states.
public struct AdHocLogin: Reducer {
    /// The screen's properties.
    public struct State: Hashable, Sendable, Codable {
        /// The username typed.
        public var username: Username
        /// The password typed.
        public var password: Password
        /// Whether a sign in is in progress.
        public var isBusy: Bool
        /// Whether the user is signed in.
        public var isAuthenticated: Bool
        /// The error shown until acknowledged.
        public var error: AppError?

        /// A state with these properties; the defaults are a fresh screen.
        public init(
            username: Username = "",
            password: Password = "",
            isBusy: Bool = false,
            isAuthenticated: Bool = false,
            error: AppError? = nil
        ) {
            self.username = username
            self.password = password
            self.isBusy = isBusy
            self.isAuthenticated = isAuthenticated
            self.error = error
        }

        /// The fields as credentials.
        public var credentials: Credentials { Credentials(username: username, password: password) }

        /// Whether both fields are valid and no error is showing.
        public var hasValidCredentials: Bool { error == nil && credentials.isValid }

        /// What the screen shows.
        public var status: LoginStatus {
            LoginStatus(
                username: username,
                password: password,
                hasValidCredentials: hasValidCredentials,
                isBusy: isBusy,
                isAuthenticated: isAuthenticated,
                error: error
            )
        }
    }

    /// Signs people in.
    public let auth: AuthClient

    /// A login that authenticates with `auth`.
    public init(auth: AuthClient) {
        self.auth = auth
    }

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
            if state.isBusy { return reject(action, state, LoginRules.inProgress) }
            if state.isAuthenticated { return reject(action, state, LoginRules.alreadySignedIn) }
            if state.error != nil { return reject(action, state, LoginRules.acknowledgeFirst) }
            guard state.credentials.isValid else { return reject(action, state, LoginRules.invalid(state.credentials)) }
            state.isBusy = true
            let credentials = state.credentials
            return .run { [auth] send in
                send(.authenticationResponse(await Outcome { () async throws(AppError) in try await auth.authenticate(credentials) }))
            }
        case .errorAcknowledged:
            guard state.error != nil else { return reject(action, state, LoginRules.noError) }
            state.error = nil
            return .none
        case .authenticationResponse(let outcome):
            guard state.isBusy else { return reject(action, state, LoginRules.noSignInInProgress) }
            state.isBusy = false
            switch outcome {
            case .success:
                state.isAuthenticated = true
                state.error = nil
                state.password = ""
            case .failure(let error):
                state.isAuthenticated = false
                state.error = error
            }
            return .none
        case .login, .setAccessToken, .loginFailed:
            return reject(action, state, LoginRules.belongsToMiddlewareStyle(action))
        }
    }

    private static func editRejection(_ state: State) -> String? {
        if state.isBusy { return LoginRules.waitForSignIn }
        if state.isAuthenticated { return LoginRules.alreadySignedIn }
        return nil
    }
}

/// The rejection of `action` in a login state, as a diagnostic effect.
func reject(_ action: LoginAction, _ state: some Sendable, _ reason: String) -> Effect<LoginAction> {
    .diagnostic(.invalidTransition(action: action, state: state, reason: reason))
}
