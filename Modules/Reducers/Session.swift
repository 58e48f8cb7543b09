import AppEnvironment
import Foundation
import Models
import StateStore

/// The account actions: signing up, signing out, and what the last of them said.
public struct Session: Reducer {
    /// The account requests in progress and the last message.
    public struct State: Hashable, Sendable, Codable {
        /// Where the last sign up stands.
        public var signUp: SignUpStatus
        /// The last account error (a failed sign out, a session that expired), shown until a new
        /// account action.
        public var error: AppError?
        /// Whether a sign in was asked for while the sign up of the same username ran.
        @Defaulted<DefaultFalse> public var signInAwaitsSignUp = false
        /// The notes with unsaved text of a session that ended when the app started again, given
        /// back to their owner's next sign in, so a restart loses no typed text.
        public var unsavedNotes: UnsavedNotes?

        /// A session state; nothing to say by default.
        public init(signUp: SignUpStatus = .idle, error: AppError? = nil) {
            self.signUp = signUp
            self.error = error
        }
    }

    /// Notes with text not stored yet, kept for their owner while nobody is signed in.
    public struct UnsavedNotes: Hashable, Sendable, Codable {
        /// Whose notes they are.
        public var owner: User.ID
        /// The notes, each with its text and why it is not stored.
        public var items: [Notes.Item]

        /// `items` of `owner`.
        public init(owner: User.ID, items: [Notes.Item]) {
            self.owner = owner
            self.items = items
        }
    }

    /// Where a sign up stands.
    public enum SignUpStatus: Hashable, Sendable, Codable {
        /// No sign up was asked for.
        case idle
        /// An account is being created for this username.
        case inProgress(Username)
        /// The account was created: the user can sign in with it.
        case succeeded(User)
        /// The account could not be created.
        case failed(AppError)
    }

    /// Account actions.
    public enum Action: Hashable, Sendable, Codable {
        /// Create an account with these credentials.
        case signUpTapped(Credentials)
        /// The auth client answered a sign up.
        case signUpResponse(Outcome<User>)
        /// A login style signed this session in.
        case signedIn(AuthSession)
        /// The user asked to sign out.
        case signOutTapped
        /// The auth client answered a sign out.
        case signOutResponse(Outcome<Done>)
        /// The app started again from saved state (a journal).
        case restored
        /// The host's clock reads `now`: a session that expired by then ends. Sent by the host when
        /// its clock passes ``AppFeature/State/nextTimeChange``, never by a reducer.
        case timePassed(Date)
    }

    /// Creates accounts and ends sessions.
    public let auth: AuthClient

    /// A session feature using `auth`.
    public init(auth: AuthClient) {
        self.auth = auth
    }

    /// Applies one account action.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .signUpTapped(let credentials):
            if case .inProgress = state.signUp {
                return .diagnostic(.invalidTransition(action: action, state: state.signUp, reason: "a sign up is already in progress"))
            }
            if let problem = credentials.problem {
                return .diagnostic(.invalidTransition(action: action, state: state.signUp, reason: problem))
            }
            state.signUp = .inProgress(credentials.username)
            state.error = nil
            let auth = auth
            return .run { send in
                send(.signUpResponse(await Outcome { () async throws(AppError) in try await auth.signUp(credentials) }))
            }
        case .signUpResponse(let outcome):
            guard case .inProgress = state.signUp else {
                return .diagnostic(.invalidTransition(action: action, state: state.signUp, reason: "no sign up is in progress"))
            }
            switch outcome {
            case .success(let user): state.signUp = .succeeded(user)
            case .failure(let error): state.signUp = .failed(error)
            }
            return .none
        case .signedIn, .signOutTapped, .timePassed:
            // The app opens and ends the signed-in part, which holds the token (AppFeature).
            return .none
        case .signOutResponse(.success):
            return .none
        case .restored:
            // A sign up in flight died with the process that started it.
            if case .inProgress = state.signUp { state.signUp = .idle }
            state.signInAwaitsSignUp = false
            return .none
        case .signOutResponse(.failure(let error)):
            // The local session is gone either way; the token stays valid until it expires.
            state.error = error
            return .none
        }
    }
}

extension Session.Action: FeatureAction {
    /// The failed sign-up or sign-out this action reports.
    public var failure: AppError? {
        switch self {
        case .signUpResponse(.failure(let error)), .signOutResponse(.failure(let error)): error
        case .signUpTapped, .signUpResponse(.success), .signedIn, .signOutTapped, .signOutResponse(.success), .restored, .timePassed: nil
        }
    }

    /// Whether it holds the password of a sign-up.
    public var carriesSecret: Bool {
        if case .signUpTapped = self { return true }
        return false
    }

    /// None: account actions carry no data that grows.
    public var payloadBytes: Int { 0 }
}
