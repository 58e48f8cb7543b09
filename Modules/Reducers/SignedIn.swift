import AppEnvironment
import Models
import StateStore

/// What exists only while someone is signed in.
public struct SignedIn: Reducer {
    /// The signed-in user's part of the app.
    public struct State: Hashable, Sendable {
        /// Who is signed in, and the token their requests carry (empty when restored from a
        /// journal, which never holds one).
        public var session: AuthSession
        /// The login style signing out returns to.
        public var loginStyle: LoginStyle
        /// The profile.
        public var profile: Profile.State
        /// The posts.
        public var posts: Posts.State
        /// The notes.
        public var notes: Notes.State

        /// A user just signed in with `loginStyle`: nothing loaded yet.
        public init(
            session: AuthSession, loginStyle: LoginStyle = .finiteStates, profile: Profile.State = .initialized,
            posts: Posts.State = Posts.State(), notes: Notes.State = Notes.State()
        ) {
            self.session = session
            self.loginStyle = loginStyle
            self.profile = profile
            self.posts = posts
            self.notes = notes
        }

        /// The token the user's requests carry.
        public var token: AccessToken { session.token }
        /// Who is signed in.
        public var username: Username { session.user.username }
    }

    /// The signed-in user's actions.
    public enum Action: Hashable, Sendable {
        /// A profile command.
        case profile(Profile.Command)
        /// A posts command.
        case posts(Posts.Command)
        /// A notes action.
        case notes(Notes.Action)
    }

    /// The clients the user's features call.
    public let environment: AppEnvironment
    /// The notes feature, built once: each action passes it the user's token.
    private let notes: Notes

    /// The signed-in part, using `environment`.
    public init(environment: AppEnvironment) {
        self.environment = environment
        notes = Notes(environment: environment, token: AccessToken(""))
    }

    /// Applies one of the user's actions with the user's token.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .profile(let command):
            Profile.reducer(client: environment.profile, token: state.token).reduce(into: &state.profile, action: command).map(Action.profile)
        case .posts(let command):
            Posts.reducer(client: environment.profile, token: state.token).reduce(into: &state.posts, action: command).map(Action.posts)
        case .notes(let action):
            notes.reduce(into: &state.notes, action: action, token: state.token).map(Action.notes)
        }
    }
}

extension SignedIn {
    /// What loading again what failed on the profile screen sends.
    public static func retries(profile: Profile.State, posts: Posts.State) -> [Action] {
        var actions: [Action] = []
        if case .failed = profile { actions.append(.profile(.load)) }
        if case .failed = posts.phase { actions.append(.posts(.load)) }
        return actions
    }
}
