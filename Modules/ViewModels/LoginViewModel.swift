import Models
import Observation
import Reducers
import StateStore

/// The sign-in screen, the same whichever login style drives it.
public final class LoginViewModel: FeatureViewModel {
    /// What the sign-in screen shows in the app's store (the form while signed out, who is
    /// signed in otherwise), and its screen.
    public static let feature = FeatureScreen<LoginStatus, LoginAction, Snapshot>(
        scope: { $0.scope(deriving: { $0.loginStatus }, reading: \.account, action: AppFeature.Action.login) },
        snapshot: { Snapshot($0) })

    /// Everything the sign-in screen shows.
    public struct Snapshot: Hashable, Sendable, Codable {
        /// The username typed.
        public var username: String
        /// One `•` per password character typed; never the password.
        public var maskedPassword: String
        /// Whether both fields are valid and no error is showing.
        public var hasValidCredentials: Bool
        /// Whether a sign in is in progress (show a spinner).
        public var isBusy: Bool
        /// Whether the user is signed in.
        public var isAuthenticated: Bool
        /// The error to show until acknowledged; `nil` when none.
        public var errorMessage: String?
        /// Whether the sign-in button works now.
        public var isSignInEnabled: Bool
        /// What is wrong with the fields typed in, to show under them.
        public var credentialsHint: String?

        /// The snapshot of a login `status`.
        public init(_ status: LoginStatus) {
            username = status.username.rawValue
            maskedPassword = Display.masked(count: status.password.count)
            hasValidCredentials = status.hasValidCredentials
            isBusy = status.isBusy
            isAuthenticated = status.isAuthenticated
            errorMessage = status.error?.message
            isSignInEnabled = status.isSignInEnabled
            // Only a field with something in it gets a hint: a username restored from a journal,
            // with the password still empty, is not a mistake yet.
            let problems =
                status.isAuthenticated
                ? []
                : [
                    status.username.isEmpty ? nil : status.username.problem,
                    status.password.isEmpty ? nil : status.password.problem,
                ].compactMap { $0 }
            credentialsHint = problems.isEmpty ? nil : problems.joined(separator: " ")
        }
    }

    /// The store the view model reads, scoped to its snapshot.
    public let store: Store<Snapshot, LoginAction>

    /// The view model reading `snapshots`, a store scoped to the screen's snapshot.
    public init(snapshots: Store<Snapshot, LoginAction>) { store = snapshots }

    /// The username field changed.
    @discardableResult
    public func usernameChanged(_ text: String) -> StoreTask { store.send(.usernameChanged(Username(text))) }
    /// The password field changed.
    @discardableResult
    public func passwordChanged(_ text: String) -> StoreTask { store.send(.passwordChanged(Password(text))) }
    /// The sign-in button was tapped.
    @discardableResult
    public func signIn() -> StoreTask { store.send(.signInTapped) }
    /// The error was dismissed.
    @discardableResult
    public func acknowledgeError() -> StoreTask { store.send(.errorAcknowledged) }
}

extension LoginViewModel: HostedViewModel {}
