import Models
import Observation
import Reducers
import StateStore

/// Who is signed in, and signing out.
public final class SessionViewModel: FeatureViewModel {
    /// Who is signed in and the account feature in the app's store, and their screen.
    public static let feature = FeatureScreen<Snapshot, Session.Action, Snapshot>(
        scope: { $0.scope(deriving: { $0.sessionSnapshot }, reading: \.account, \.session, action: AppFeature.Action.session) },
        snapshot: { $0 })

    /// Everything the session area shows.
    public struct Snapshot: Hashable, Sendable, Codable {
        /// Whether someone is signed in.
        public var isSignedIn: Bool
        /// The signed-in user's username; `nil` when signed out.
        public var username: String?
        /// The signed-in user's display name; `nil` when signed out.
        public var displayName: String?
        /// What the last sign up or sign out said, to show once; `nil` when there is nothing to say.
        public var message: String?

        /// The snapshot of a session state while `signedIn` is signed in (or nobody is).
        public init(_ state: Session.State, signedIn: User?) {
            self.init(state, signedIn: signedIn, isSigningIn: false)
        }

        /// The snapshot of a session state while `signedIn` is signed in, and a sign in runs when `isSigningIn`.
        public init(_ state: Session.State, signedIn: User?, isSigningIn: Bool) {
            isSignedIn = signedIn != nil
            username = signedIn?.username.rawValue
            displayName = signedIn?.displayName
            switch state.signUp {
            case .idle: message = nil
            case .inProgress(let username):
                message = "Creating the account “\(username)”…" + (state.signInAwaitsSignUp ? " Signing in once it is made." : "")
            case .succeeded(let user): message = "Account “\(user.username)” created. " + (isSigningIn ? "Signing in…" : "Sign in with it.")
            case .failed(let error): message = error.message
            }
            if let error = state.error { message = error.message }
        }
    }

    /// The store the view model reads, scoped to its snapshot.
    public let store: Store<Snapshot, Session.Action>

    /// The view model reading `snapshots`, a store scoped to the screen's snapshot.
    public init(snapshots: Store<Snapshot, Session.Action>) { store = snapshots }

    /// Sign out.
    @discardableResult
    public func signOut() -> StoreTask { store.send(.signOutTapped) }
    /// Create an account.
    @discardableResult
    public func signUp(username: String, password: String) -> StoreTask {
        store.send(.signUpTapped(Credentials(username: Username(username), password: Password(password))))
    }
}

extension SessionViewModel: HostedViewModel {}
