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
/// let store = RootStore(
///     initialState: AppFeature.State(loginStyle: .middleware),
///     reducer: AppFeature(environment: environment)
/// ) {
///     AppFeature.loginMiddleware(environment)
/// }
/// ```
public struct AppFeature: Reducer {
    /// Every feature's state.
    public struct State: Hashable, Sendable {
        /// The sign-in screen.
        public var login: Login.State
        /// Who is signed in.
        public var session: Session.State
        /// What belongs to the signed-in user; `nil` while signed out.
        public var user: SignedIn.State?
        /// The counter.
        public var counter: Counter.State

        /// A fresh app, signed out, whose login uses `loginStyle`.
        public init(loginStyle: LoginStyle = .finiteStates) {
            login = Login.State(style: loginStyle)
            session = Session.State()
            user = nil
            counter = Counter.State()
        }

        /// The user's profile, or an unloaded one while signed out.
        public var profile: Profile.State {
            guard let user else { return .initialized }
            return user.profile
        }
        /// The user's posts, or none while signed out.
        public var posts: Posts.State {
            guard let user else { return Self.signedOut.posts }
            return user.posts
        }
        /// The user's notes, or none while signed out.
        public var notes: Notes.State {
            guard let user else { return Self.signedOut.notes }
            return user.notes
        }

        /// What the user's screens show while nobody is signed in.
        private static let signedOut = SignedIn.State(token: AccessToken(""), username: "")
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
            case .login(let action): action.carriesSecret
            case .session(let action): action.carriesSecret
            case .profile(let command): command.carriesSecret
            case .posts(let command): command.carriesSecret
            case .notes(let action): action.carriesSecret
            case .counter(let action): action.carriesSecret
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
        /// Where the signed-in user's actions sit among the app's actions.
        public static let userPath = ActionPath<Action, SignedIn.Action>(
            embed: { action in
                switch action {
                case .profile(let command): .profile(command)
                case .posts(let command): .posts(command)
                case .notes(let action): .notes(action)
                }
            },
            extract: { action in
                switch action {
                case .profile(let command): .profile(command)
                case .posts(let command): .posts(command)
                case .notes(let action): .notes(action)
                case .login, .session, .counter: nil
                }
            }
        )
        /// Where counter actions sit among the app's actions.
        public static let counterPath = ActionPath<Action, Counter.Action>(embed: Action.counter) {
            if case .counter(let action) = $0 { return action }
            return nil
        }
    }

    /// The outside world the features use.
    public let environment: AppEnvironment
    /// The features, built once: each on its part of the state, and the user's part only while
    /// someone is signed in (its actions are refused with "sign in first" otherwise, and its
    /// requests are cancelled when it goes).
    private let features: IfLetReducer<Features, SignedIn>

    /// The app, using `environment`.
    public init(environment: AppEnvironment) {
        self.environment = environment
        features = Features(environment: environment)
            .ifLet(\.user, action: Action.userPath, absentReason: AppError.notSignedIn.message) {
                SignedIn(environment: environment)
            }
    }

    /// The middleware the ``LoginStyle/middleware`` style needs. Install it whatever the style:
    /// only that style sends the `login` request it intercepts.
    public static func loginMiddleware(_ environment: AppEnvironment) -> LoginMiddleware<State, Action> {
        LoginMiddleware(auth: environment.auth, action: Action.loginPath)
    }

    /// Applies one action: the child it belongs to reduces it, and the app coordinates what
    /// crosses features (signing in opens the session and loads the user's data; signing out or
    /// losing the session forgets it). An answer that reports a failed client call is also
    /// reported as a `Diagnostic.Kind.failure` diagnostic, so the intent that led to it is
    /// known to have failed.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        let effect = features.reduce(into: &state, action: action)
        guard let failure = action.failure else { return effect }
        return .merge(effect, .diagnostic(.failure(action: action, reason: failure.message)))
    }
}

/// The features that are always there, each scoped once to its part of the state, then what
/// crosses them.
private struct Features: Reducer {
    typealias State = AppFeature.State
    typealias Action = AppFeature.Action

    let environment: AppEnvironment
    let login: Scope<State, Action, Login>
    let session: Scope<State, Action, Session>
    let counter: Scope<State, Action, Counter>

    init(environment: AppEnvironment) {
        self.environment = environment
        login = Scope(state: \.login, action: Action.loginPath) { Login(auth: environment.auth) }
        session = Scope(state: \.session, action: Action.sessionPath) { Session(auth: environment.auth) }
        counter = Scope(state: \.counter, action: Action.counterPath) { Counter() }
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        // Each scope runs its child only for its own actions.
        login.reduce(into: &state, action: action)
            .merge(with: session.reduce(into: &state, action: action))
            .merge(with: counter.reduce(into: &state, action: action))
            .merge(with: coordinate(&state, action))
    }

    /// What crosses features, after they reduced `action`: a sign in reported by the login
    /// style opens the session and the user's part, which loads the profile, the posts and the
    /// notes; a session that ended (signed out, or restored without its token) removes the
    /// user's part and clears the login form, keeping the username when the session was lost.
    private func coordinate(_ state: inout State, _ action: Action) -> Effect<Action> {
        // Only login and session actions open or end a session: the others pass at the cost of
        // this switch, without reading the user's part.
        switch action {
        case .login(let login):
            guard let opened = login.signedInSession, state.login.isAuthenticated, !state.session.isSignedIn else { return .none }
            let opening = Session(auth: environment.auth).reduce(into: &state.session, action: .signedIn(opened)).map(Action.session)
            state.user = SignedIn.State(token: opened.token, username: opened.user.username)
            return .merge(opening, .send(.profile(.load)), .send(.posts(.load)), .send(.notes(.listRequested)))
        case .session(let sessionAction):
            // A session that ended takes the user's part with it and clears the login form. On
            // a restore, whatever was in flight when the journal was written (a sign in, loads,
            // saves) died with the process that started it, and signing in again only needs the
            // password.
            guard !state.session.isSignedIn else { return .none }
            let isRestore = if case .restored = sessionAction { true } else { false }
            guard isRestore || state.user != nil else { return .none }
            let username = state.user?.username ?? state.login.status.username
            state.user = nil
            state.login = Login.State(style: state.login.style)
            guard isRestore, !username.rawValue.isEmpty else { return .none }
            return Login(auth: environment.auth).reduce(into: &state.login, action: .usernameChanged(username)).map(Action.login)
        case .profile, .posts, .notes, .counter:
            return .none
        }
    }
}

extension AppFeature.State: Codable {
    /// The state's parts in a journal: the user's part is written flat, as it was before it was
    /// a part of its own, so journals written before and after read alike.
    private enum CodingKeys: String, CodingKey {
        case login, session, profile, posts, notes, counter
    }

    /// Reads a state; the user's part exists when the session has someone signed in, with the
    /// session's token (a journal holds none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        login = try container.decode(Login.State.self, forKey: .login)
        session = try container.decode(Session.State.self, forKey: .session)
        counter = try container.decode(Counter.State.self, forKey: .counter)
        user = try session.current.map { current in
            SignedIn.State(
                token: current.token, username: current.user.username,
                profile: try container.decode(Profile.State.self, forKey: .profile),
                posts: try container.decode(Posts.State.self, forKey: .posts),
                notes: try container.decode(Notes.State.self, forKey: .notes))
        }
    }

    /// Writes the state, the user's part (or the empty one of a signed-out app) flat beside the
    /// others; the token is not written.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(login, forKey: .login)
        try container.encode(session, forKey: .session)
        try container.encode(profile, forKey: .profile)
        try container.encode(posts, forKey: .posts)
        try container.encode(notes, forKey: .notes)
        try container.encode(counter, forKey: .counter)
    }
}

extension AppFeature.Action {
    /// The error a client call answered with, when the action carries one: a save, load,
    /// search, delete, sign in, sign up or sign out that failed. A request cancelled (by the
    /// user, a newer request or signing out) is not a failure.
    public var failure: AppError? {
        let error =
            switch self {
            case .login(let action): action.failure
            case .session(let action): action.failure
            case .profile(let command): command.failure
            case .posts(let command): command.failure
            case .notes(let action): action.failure
            case .counter(let action): action.failure
            }
        return error == .cancelled ? nil : error
    }

    /// The bytes of data the action carries that grow with the user's data (see
    /// ``FeatureAction/payloadBytes``).
    public var payloadBytes: Int {
        switch self {
        case .login(let action): action.payloadBytes
        case .session(let action): action.payloadBytes
        case .profile(let command): command.payloadBytes
        case .posts(let command): command.payloadBytes
        case .notes(let action): action.payloadBytes
        case .counter(let action): action.payloadBytes
        }
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
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
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
