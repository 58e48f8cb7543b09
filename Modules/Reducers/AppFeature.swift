import AppEnvironment
import Models
import StateStore

/// The whole app: login (in the chosen style), session, profile, posts, notes and counter.
///
/// - Signing in (whichever login style reports it) opens the session and loads the profile, the
///   posts and the notes at once.
/// - Profile, posts and notes act for the signed-in user: while signed out their actions change
///   nothing and are reported as "sign in first" diagnostics.
/// - Signing out cancels the user's requests in flight and resets login, profile, posts and
///   notes; the counter belongs to no one and stays.
/// - Started again from a journal, a session that lost its token (tokens are never saved) ends
///   the same way, with the username kept in the login form and a "sign in again" message.
///
/// ```swift
/// let environment = AppEnvironment.inMemory()
/// let store = RootStore(initialState: AppFeature.State(loginStyle: .middleware),
///                       reducer: AppFeature(environment: environment)) {
///     AppFeature.loginMiddleware(environment)
/// }
/// ```
public struct AppFeature: Reducer {
    /// Every feature's state.
    public struct State: Hashable, Sendable, Codable {
        /// The sign-in screen.
        public var login: Login.State
        /// Who is signed in.
        public var session: Session.State
        /// The user's profile.
        public var profile: Profile.State
        /// The user's posts.
        public var posts: Posts.State
        /// The user's notes.
        public var notes: Notes.State
        /// The counter.
        public var counter: Counter.State

        /// A fresh app, signed out, whose login uses `loginStyle`.
        public init(loginStyle: LoginStyle = .finiteStates) {
            login = Login.State(style: loginStyle)
            session = Session.State()
            profile = .initialized
            posts = Posts.State()
            notes = Notes.State()
            counter = Counter.State()
        }
    }

    /// Every feature's actions.
    public enum Action: Hashable, Sendable, Codable {
        /// A sign-in screen action.
        case login(LoginAction)
        /// An account action.
        case session(Session.Action)
        /// A profile command.
        case profile(Profile.Command)
        /// A posts command.
        case posts(Posts.Command)
        /// A notes action.
        case notes(Notes.Action)
        /// A counter action.
        case counter(Counter.Action)

        /// Whether the action holds a secret (a typed password), which journals store redacted.
        public var carriesSecret: Bool {
            switch self {
            case .login(.passwordChanged), .login(.login), .session(.signUpTapped): true
            default: false
            }
        }

        /// Where login actions sit among the app's actions (for ``LoginMiddleware``).
        public static let loginPath = ActionPath<Action, LoginAction>(
            embed: Action.login,
            extract: { action in
                if case .login(let login) = action { return login }
                return nil
            }
        )
        /// Where account actions sit among the app's actions.
        public static let sessionPath = ActionPath<Action, Session.Action>(embed: Action.session) {
            if case .session(let action) = $0 { return action }
            return nil
        }
        /// Where profile commands sit among the app's actions.
        public static let profilePath = ActionPath<Action, Profile.Command>(embed: Action.profile) {
            if case .profile(let command) = $0 { return command }
            return nil
        }
        /// Where posts commands sit among the app's actions.
        public static let postsPath = ActionPath<Action, Posts.Command>(embed: Action.posts) {
            if case .posts(let command) = $0 { return command }
            return nil
        }
        /// Where notes actions sit among the app's actions.
        public static let notesPath = ActionPath<Action, Notes.Action>(embed: Action.notes) {
            if case .notes(let action) = $0 { return action }
            return nil
        }
        /// Where counter actions sit among the app's actions.
        public static let counterPath = ActionPath<Action, Counter.Action>(embed: Action.counter) {
            if case .counter(let action) = $0 { return action }
            return nil
        }
    }

    /// The outside world the features use.
    public let environment: AppEnvironment

    // Each child feature is scoped once, with its clients, when the app is made.
    private let login: Scope<State, Action, Login>
    private let session: Scope<State, Action, Session>
    private let counter: Scope<State, Action, Counter>
    private let user: UserFeatures

    /// The app, using `environment`.
    public init(environment: AppEnvironment) {
        self.environment = environment
        login = Scope(state: \.login, action: Action.loginPath) { Login(auth: environment.auth) }
        session = Scope(state: \.session, action: Action.sessionPath) { Session(auth: environment.auth) }
        counter = Scope(state: \.counter, action: Action.counterPath) { Counter() }
        user = UserFeatures(environment: environment)
    }

    /// The middleware the ``LoginStyle/middleware`` style needs. Install it whatever the style:
    /// only that style sends the `login` request it intercepts.
    public static func loginMiddleware(_ environment: AppEnvironment) -> LoginMiddleware<State, Action> {
        LoginMiddleware(auth: environment.auth, action: Action.loginPath)
    }

    /// Identifies the requests made for the signed-in user, cancelled when they sign out.
    struct UserRequestsID: Hashable, Sendable {}

    /// Applies one action: the child it belongs to reduces it, and the app coordinates what
    /// crosses features (signing in opens the session and loads the user's data; signing out or
    /// losing the session forgets it). An answer that reports a failed client call is also
    /// reported as a ``Diagnostic/Kind/failure`` diagnostic, so the intent that led to it is
    /// known to have failed.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        let effect = reduceFeatures(into: &state, action: action)
        guard let failure = action.failure else { return effect }
        return .merge(effect, .diagnostic(.failure(action: action, reason: failure.message)))
    }

    private func reduceFeatures(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .login(let loginAction):
            let wasAuthenticated = state.login.isAuthenticated
            let effect = login.reduce(into: &state, action: action)
            guard !wasAuthenticated, state.login.isAuthenticated, let opened = loginAction.signedInSession else {
                return effect
            }
            return .merge(effect, signIn(opened, state: &state))

        case .session(.signOutTapped):
            let wasSignedIn = state.session.isSignedIn
            let effect = session.reduce(into: &state, action: action)
            guard wasSignedIn else { return effect }
            forgetUser(&state)
            return .merge(.cancel(id: UserRequestsID()), effect)

        case .session(.restored):
            // Whatever was in flight when the journal was written died with the process that
            // started it (a sign up, a sign in, loads and saves): nothing is left waiting for it.
            let username = state.session.current?.user.username ?? state.login.status.username
            let effect = session.reduce(into: &state, action: action)
            guard !state.session.isSignedIn else { return effect }
            forgetUser(&state)
            // Signing in again only needs the password.
            let typed = username.isEmpty ? .none : login.reduce(into: &state, action: .login(.usernameChanged(username)))
            return .merge(.cancel(id: UserRequestsID()), effect, typed)

        case .session:
            return session.reduce(into: &state, action: action)

        case .profile, .posts, .notes:
            return user.reduce(into: &state, action: action)

        case .counter:
            return counter.reduce(into: &state, action: action)
        }
    }

    /// Opens `session` and loads what belongs to the user.
    private func signIn(_ opened: AuthSession, state: inout State) -> Effect<Action> {
        .merge(
            session.reduce(into: &state, action: .session(.signedIn(opened))),
            user.reduce(into: &state, action: .profile(.load)),
            user.reduce(into: &state, action: .posts(.load)),
            user.reduce(into: &state, action: .notes(.listRequested))
        )
    }

    /// Forgets what belonged to the user who was signed in: the login form (its style stays),
    /// profile, posts and notes.
    private func forgetUser(_ state: inout State) {
        state.login = Login.State(style: state.login.style)
        state.profile = .initialized
        state.posts = Posts.State()
        state.notes = Notes.State()
    }

}

/// What belongs to the signed-in user — profile, posts and notes — each scoped to its part of
/// the state, acting with the token the session holds; while signed out their actions change
/// nothing and are reported as "sign in first". Their requests are cancelled together when the
/// user signs out.
private struct UserFeatures: Reducer {
    let environment: AppEnvironment

    func reduce(into state: inout AppFeature.State, action: AppFeature.Action) -> Effect<AppFeature.Action> {
        guard let token = state.session.current?.token else {
            return .diagnostic(.invalidTransition(action: action, state: "signed out", reason: AppError.notSignedIn.message))
        }
        let effect: Effect<AppFeature.Action> = switch action {
        case .profile:
            Scope(state: \.profile, action: AppFeature.Action.profilePath) {
                Profile.reducer(client: environment.profile, token: token)
            }
            .reduce(into: &state, action: action)
        case .posts:
            Scope(state: \.posts, action: AppFeature.Action.postsPath) {
                Posts.reducer(client: environment.profile, token: token)
            }
            .reduce(into: &state, action: action)
        case .notes:
            Scope(state: \.notes, action: AppFeature.Action.notesPath) {
                Notes(environment: environment, token: token)
            }
            .reduce(into: &state, action: action)
        case .login, .session, .counter:
            .none
        }
        return effect.cancellable(id: AppFeature.UserRequestsID())
    }
}

extension AppFeature.Action {
    /// The error a client call answered with, when the action carries one: a save, load,
    /// search, delete, sign in, sign up or sign out that failed. A request cancelled (by the
    /// user, a newer request or signing out) is not a failure.
    public var failure: AppError? {
        let error: AppError? = switch self {
        case .login(.authenticationResponse(.failure(let error))), .login(.loginFailed(let error)): error
        case .login(.usernameChanged), .login(.passwordChanged), .login(.signInTapped), .login(.errorAcknowledged),
             .login(.authenticationResponse(.success)), .login(.login), .login(.setAccessToken): nil
        case .session(.signUpResponse(.failure(let error))), .session(.signOutResponse(.failure(let error))): error
        case .session(.signUpTapped), .session(.signUpResponse(.success)), .session(.signedIn), .session(.signOutTapped),
             .session(.signOutResponse(.success)), .session(.restored): nil
        case .profile(.failed(let error)): error
        case .profile(.load), .profile(.loaded): nil
        case .posts(.failed(let error)), .posts(.addFailed(let error)): error
        case .posts(.load), .posts(.loaded), .posts(.add), .posts(.added): nil
        case .notes(.listResponse(.failure(let error))), .notes(.saveResponse(_, _, .failure(let error))),
             .notes(.searchResponse(_, .failure(let error))): error
        // A note already gone is what a delete asked for.
        case .notes(.deleteResponse(_, .failure(.notFound))): nil
        case .notes(.deleteResponse(_, .failure(let error))): error
        case .notes(.listRequested), .notes(.listResponse(.success)), .notes(.addTapped), .notes(.inserted),
             .notes(.edited), .notes(.changed), .notes(.deleteTapped), .notes(.selected), .notes(.searchQueryChanged),
             .notes(.searchResponse(_, .success)), .notes(.retrySaveTapped), .notes(.saveResponse(_, _, .success)),
             .notes(.deleteResponse(_, .success)), .notes(.errorDismissed): nil
        case .counter: nil
        }
        return error == .cancelled ? nil : error
    }

    /// The feature an action belongs to, as its single key: `{"notes": {...}}`.
    private enum Feature: String, CodingKey {
        case login, session, profile, posts, notes, counter
    }

    /// Decodes `{"<feature>": <feature action>}`.
    ///
    /// Written by hand to drop the `_0` wrapper the synthesized coding adds around each
    /// payload: journals hold one of these per action, and replaying them is mostly decoding.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Feature.self)
        guard container.allKeys.count == 1, let feature = container.allKeys.first else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath,
                debugDescription: "an app action has exactly one of login, session, profile, posts, notes, counter"))
        }
        switch feature {
        case .login: self = .login(try container.decode(LoginAction.self, forKey: .login))
        case .session: self = .session(try container.decode(Session.Action.self, forKey: .session))
        case .profile: self = .profile(try container.decode(Profile.Command.self, forKey: .profile))
        case .posts: self = .posts(try container.decode(Posts.Command.self, forKey: .posts))
        case .notes: self = .notes(try container.decode(Notes.Action.self, forKey: .notes))
        case .counter: self = .counter(try container.decode(Counter.Action.self, forKey: .counter))
        }
    }

    /// Encodes `{"<feature>": <feature action>}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Feature.self)
        switch self {
        case .login(let action): try container.encode(action, forKey: .login)
        case .session(let action): try container.encode(action, forKey: .session)
        case .profile(let command): try container.encode(command, forKey: .profile)
        case .posts(let command): try container.encode(command, forKey: .posts)
        case .notes(let action): try container.encode(action, forKey: .notes)
        case .counter(let action): try container.encode(action, forKey: .counter)
        }
    }
}
