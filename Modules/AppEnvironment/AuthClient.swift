import Models

/// Accounts and sessions: sign up, sign in, sign out.
public struct AuthClient: Sendable {
    /// Creates an account.
    public var signUp: @Sendable (_ credentials: Credentials) async throws(AppError) -> User
    /// Checks credentials and opens a session.
    public var authenticate: @Sendable (_ credentials: Credentials) async throws(AppError) -> AuthSession
    /// Ends the session the token belongs to; ending an unknown session succeeds.
    public var signOut: @Sendable (_ token: AccessToken) async throws(AppError) -> Void

    /// Creates a client from its endpoints.
    public init(
        signUp: @escaping @Sendable (_ credentials: Credentials) async throws(AppError) -> User,
        authenticate: @escaping @Sendable (_ credentials: Credentials) async throws(AppError) -> AuthSession,
        signOut: @escaping @Sendable (_ token: AccessToken) async throws(AppError) -> Void
    ) {
        self.signUp = signUp
        self.authenticate = authenticate
        self.signOut = signOut
    }

    /// A client whose every endpoint reports the call as unexpected and fails.
    public static func failing(_ reporter: UnexpectedCallReporter = .standardError) -> AuthClient {
        AuthClient(
            signUp: { _ throws(AppError) in throw unexpected(.authSignUp, reporter) },
            authenticate: { _ throws(AppError) in throw unexpected(.authAuthenticate, reporter) },
            signOut: { _ throws(AppError) in throw unexpected(.authSignOut, reporter) }
        )
    }

    /// A client that does nothing: signing out succeeds.
    public static let noop = AuthClient(
        signUp: { _ throws(AppError) in throw noService(.authSignUp) },
        authenticate: { _ throws(AppError) in throw noService(.authAuthenticate) },
        signOut: { _ in }
    )

    /// This client with `hook` run before each call.
    public func intercepting(_ hook: @escaping EndpointHook) -> AuthClient {
        let base = self
        return AuthClient(
            signUp: { credentials throws(AppError) in
                try await hook(.authSignUp)
                return try await base.signUp(credentials)
            },
            authenticate: { credentials throws(AppError) in
                try await hook(.authAuthenticate)
                return try await base.authenticate(credentials)
            },
            signOut: { token throws(AppError) in
                try await hook(.authSignOut)
                try await base.signOut(token)
            }
        )
    }
}
