import AppEnvironment
import Foundation
import Models
import StateStore

/// The whole app: login (in the chosen style), session, profile, posts, notes and counter.
public struct AppFeature: Reducer {
    /// Every feature's state.
    public struct State: Hashable, Sendable {
        /// Signed out at the sign-in screen, or signed in with the user's part.
        public var account: Account
        /// Sign-ups, and what the last account action said.
        public var session: Session.State
        /// The counter.
        public var counter: Counter.State

        /// A fresh app, signed out, whose login uses `loginStyle`.
        public init(loginStyle: LoginStyle = .finiteStates) {
            account = .signedOut(Login.State(style: loginStyle))
            session = Session.State()
            counter = Counter.State()
        }

        /// Whether someone is signed in.
        public var isSignedIn: Bool {
            if case .signedIn = account { true } else { false }
        }

        /// Whether a sign in now would start before the sign up of its username made the account.
        var signInWouldOutrunSignUp: Bool {
            guard case .inProgress(let creating) = session.signUp, case .signedOut(let login) = account else { return false }
            let status = login.status
            return status.isSignInEnabled && status.username.normalized == creating.normalized
        }

        /// The login style of the sign-in screen, shown now or after signing out.
        public var loginStyle: LoginStyle {
            get {
                switch account {
                case .signedOut(let login): login.style
                case .signedIn(let user): user.loginStyle
                }
            }
            set {
                guard newValue != loginStyle else { return }
                switch account {
                case .signedOut: account = .signedOut(Login.State(style: newValue))
                case .signedIn(var user):
                    user.loginStyle = newValue
                    account = .signedIn(user)
                }
            }
        }

        /// Whether a sign in is under way: `loginStatus.isBusy`, told without building the status.
        public var isSigningIn: Bool {
            if case .signedOut(let login) = account { login.isBusy } else { false }
        }

        /// What the sign-in screen shows: the form while signed out, who is signed in otherwise.
        public var loginStatus: LoginStatus {
            switch account {
            case .signedOut(let login): login.status
            case .signedIn(let user): LoginStatus(username: user.username, isAuthenticated: true)
            }
        }

        /// The signed-in user's part, or `nil` while signed out.
        public var user: SignedIn.State? {
            get { Account.signedInCase.extract(account) }
            set { account = newValue.map(Account.signedIn) ?? .signedOut(Login.State(style: loginStyle)) }
        }

        // Each of the user's parts below is read by a switch of its own, which copies only that
        // part: going through `user` would copy all of them.

        /// The next instant at which time alone changes the state (the session's expiry): the host
        /// sends `.session(.timePassed(_:))` once its clock reaches it. `nil` while nothing waits.
        public var nextTimeChange: Date? {
            if case .signedIn(let user) = account { user.session.expiresAt } else { nil }
        }
        /// Who is signed in, or `nil`.
        public var signedInUser: User? {
            if case .signedIn(let user) = account { user.session.user } else { nil }
        }
        /// The user's profile, or an unloaded one while signed out.
        public var profile: Profile.State {
            if case .signedIn(let user) = account { user.profile } else { .initialized }
        }
        /// The user's posts, or none while signed out.
        public var posts: Posts.State {
            if case .signedIn(let user) = account { user.posts } else { Self.noPosts }
        }
        /// The user's notes, or none while signed out.
        public var notes: Notes.State {
            if case .signedIn(let user) = account { user.notes } else { Self.noNotes }
        }
        /// The notes and posts read while signed out, made once rather than at every keystroke.
        private static let noNotes = Notes.State()
        private static let noPosts = Posts.State()
    }

    /// Who is using the app.
    public enum Account: Hashable, Sendable {
        /// Nobody is signed in: the sign-in screen.
        case signedOut(Login.State)
        /// Someone is signed in: their session, profile, posts and notes.
        indirect case signedIn(SignedIn.State)

        /// The signed-out case.
        public static let signedOutCase = CasePath<Self, Login.State>(embed: Self.signedOut) {
            if case .signedOut(let login) = $0 { login } else { nil }
        } matches: {
            if case .signedOut = $0 { true } else { false }
        }
        /// The signed-in case.
        public static let signedInCase = CasePath<Self, SignedIn.State>(embed: Self.signedIn) {
            if case .signedIn(let user) = $0 { user } else { nil }
        } matches: {
            if case .signedIn = $0 { true } else { false }
        } modify: { account, body in
            switch consume account {
            case .signedIn(var user):
                body(&user)
                account = .signedIn(user)
            case let other: account = other
            }
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
    /// The features, built once: the sign-in screen while signed out, the user's part while signed
    /// in (its requests cancelled when its case ends), and those always there.
    private let features: IfCaseLetReducer<IfCaseLetReducer<Features, SignedIn>, Login>

    /// The app, using `environment`.
    public init(environment: AppEnvironment) {
        self.environment = environment
        features = Features(environment: environment)
            .ifCaseLet(\.account, case: Account.signedInCase, action: Action.userPath, absentReason: AppError.notSignedIn.message) {
                SignedIn(environment: environment)
            }
            .ifCaseLet(\.account, case: Account.signedOutCase, action: Action.loginPath, absentReason: LoginRules.alreadySignedIn) {
                Login(auth: environment.auth)
            }
    }

    /// The middleware the ``LoginStyle/middleware`` style needs.
    public static func loginMiddleware(_ environment: AppEnvironment) -> LoginMiddleware<State, Action> {
        LoginMiddleware(auth: environment.auth, action: Action.loginPath)
    }

    /// Applies one action.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        if case .signedOut(let login) = state.account {
            if case .login(.signInTapped) = action, state.signInWouldOutrunSignUp {
                // Held, not refused: the account it signs in to is being made (it starts with the
                // sign up's answer, below).
                state.session.signInAwaitsSignUp = true
                return .none
            }
            if Action.userPath.extract(action) != nil, login.isBusy {
                // Refused as any action for the user's part is while signed out, saying why.
                return .diagnostic(.missingChild(action: action, child: "\(SignedIn.State.self)", reason: LoginRules.signingIn))
            }
        }
        var effect = features.reduce(into: &state, action: action)
        if case .session(.signUpResponse) = action, state.session.signInAwaitsSignUp {
            // A sign in held while the account was being made starts with the answer, whether
            // the sign up made it or found the username taken (the account may be the user's
            // own): in the same step, so no screen shows the sign up done and the sign in not begun.
            state.session.signInAwaitsSignUp = false
            if case .signedOut = state.account { effect = .merge(effect, features.reduce(into: &state, action: .login(.signInTapped))) }
        }
        guard let failure = action.failure else { return effect }
        return .merge(effect, .diagnostic(.failure(action: action, reason: failure.message)))
    }
}

/// The features that are always there, then what crosses them: signing in and out.
private struct Features: Reducer {
    typealias State = AppFeature.State
    typealias Action = AppFeature.Action

    let environment: AppEnvironment
    let session: Scope<State, Action, Session>
    let counter: Scope<State, Action, Counter>

    init(environment: AppEnvironment) {
        self.environment = environment
        session = Scope(state: \.session, action: Action.sessionPath) { Session(auth: environment.auth) }
        counter = Scope(state: \.counter, action: Action.counterPath) { Counter() }
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        // Each scope runs its child only for its own actions.
        session.reduce(into: &state, action: action)
            .merge(with: counter.reduce(into: &state, action: action))
            .merge(with: coordinate(&state, action))
    }

    /// What crosses features after they reduced `action`: a sign in opens the user's part and loads
    /// it; signing out, or a session restored without its token, shows the sign-in screen again.
    private func coordinate(_ state: inout State, _ action: Action) -> Effect<Action> {
        // Only login and session actions open or end a session: the others pass at the cost of
        // this switch.
        switch action {
        case .login(let login):
            guard let opened = login.signedInSession, case .signedOut(let form) = state.account, form.isAuthenticated else { return .none }
            return open(opened, style: form.style, in: &state)
        case .session(.signedIn(let opened)):
            guard !state.isSignedIn else { return .none }
            return open(opened, style: state.loginStyle, in: &state)
        case .session(.signOutTapped):
            guard let user = state.user else {
                return .diagnostic(.invalidTransition(action: action, state: "signed out", reason: "nobody is signed in"))
            }
            state.account = .signedOut(Login.State(style: user.loginStyle))
            state.session.error = nil
            state.session.signUp = .idle
            let (auth, token) = (environment.auth, user.token)
            return .run { send in
                send(
                    .session(
                        .signOutResponse(
                            await Outcome { () async throws(AppError) in
                                try await auth.signOut(token)
                                return Done()
                            })))
            }
        case .session(.restored):
            // Whatever was in flight when the journal was written (a sign in, loads, saves) died
            // with the process that started it, and a token is never journaled: a signed-in user
            // comes back signed out, with only the password to type again.
            switch state.account {
            case .signedIn(let user):
                guard user.token.isEmpty else { return .none }
                return expire(user, in: &state)
            case .signedOut(let login):
                return showSignIn(typing: login.status.username, in: &state)
            }
        case .session(.timePassed(let now)):
            guard case .signedIn(let user) = state.account, let expiry = user.session.expiresAt, expiry <= now else { return .none }
            return expire(user, in: &state)
        case .session, .profile, .posts, .notes, .counter:
            return .none
        }
    }

    /// Ends `user`'s session, which can no longer be used: the sign-in screen comes back with their
    /// username typed, and their text not stored yet waits for their next sign in.
    private func expire(_ user: SignedIn.State, in state: inout State) -> Effect<Action> {
        state.session.error = .sessionExpired
        state.session.signUp = .idle
        // A save or a delete in flight is cancelled with the user's part.
        let unsaved = user.notes.items.filter { $0.save != .saved || !$0.isStored || $0.isDeleting }.map { item in
            var kept = item
            kept.isDeleting = false
            if kept.save == .saved || kept.save == .saving { kept.save = .failed(.cancelled) }
            return kept
        }
        if !unsaved.isEmpty { state.session.unsavedNotes = Session.UnsavedNotes(owner: user.session.user.id, items: unsaved) }
        return showSignIn(typing: user.username, in: &state)
    }

    /// The sign-in screen, in the app's login style, with `username` typed.
    private func showSignIn(typing username: Username, in state: inout State) -> Effect<Action> {
        var login = Login.State(style: state.loginStyle)
        let typing = username.rawValue.isEmpty ? .none : Login(auth: environment.auth).reduce(into: &login, action: .usernameChanged(username))
        state.account = .signedOut(login)
        return typing.map(Action.login)
    }

    /// Signs `opened` in: the user's part replaces the sign-in screen, and starts loading.
    private func open(_ opened: AuthSession, style: LoginStyle, in state: inout State) -> Effect<Action> {
        var user = SignedIn.State(session: opened, loginStyle: style)
        if let unsaved = state.session.unsavedNotes, unsaved.owner == opened.user.id {
            // Listed with the notes as they load, which keep them: their text is the user's.
            for item in unsaved.items { user.notes.list(item) }
            state.session.unsavedNotes = nil
        }
        state.account = .signedIn(user)
        state.session.error = nil
        state.session.signUp = .idle
        state.session.signInAwaitsSignUp = false
        return .merge(.send(.profile(.load)), .send(.posts(.load)), .send(.notes(.listRequested)))
    }
}

extension AppFeature.State: Codable {
    /// The state's parts in a journal: `login`, `signedIn`, `profile`, `posts`, `notes`.
    private enum CodingKeys: String, CodingKey {
        case login, session, signedIn, profile, posts, notes, counter
    }

    /// Where journals written before the account was one enum kept who was signed in.
    private enum EarlierSessionKeys: String, CodingKey {
        case current
    }

    /// Reads a state, of this shape or the earlier one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let login = try container.decode(Login.State.self, forKey: .login)
        session = try container.decode(Session.State.self, forKey: .session)
        counter = try container.decode(Counter.State.self, forKey: .counter)
        let signedIn =
            try container.decodeIfPresent(AuthSession.self, forKey: .signedIn)
            ?? container.nestedContainer(keyedBy: EarlierSessionKeys.self, forKey: .session).decodeIfPresent(AuthSession.self, forKey: .current)
        guard let signedIn else {
            account = .signedOut(login)
            return
        }
        account = .signedIn(
            SignedIn.State(
                session: signedIn, loginStyle: login.style,
                profile: try container.decode(Profile.State.self, forKey: .profile),
                posts: try container.decode(Posts.State.self, forKey: .posts),
                notes: try container.decode(Notes.State.self, forKey: .notes)))
    }

    /// Writes the state flat; the token is not written.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch account {
        case .signedOut(let login): try container.encode(login, forKey: .login)
        case .signedIn(let user):
            try container.encode(Login.State(style: user.loginStyle), forKey: .login)
            try container.encode(user.session, forKey: .signedIn)
        }
        try container.encode(session, forKey: .session)
        try container.encode(profile, forKey: .profile)
        try container.encode(posts, forKey: .posts)
        try container.encode(notes, forKey: .notes)
        try container.encode(counter, forKey: .counter)
    }
}

extension AppFeature.Action {
    /// The error a client call answered with, when the action carries one.
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
        // A match, not `==`: every action asks, and comparing the enums is the slower way.
        if case .cancelled? = error { return nil }
        return error
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
