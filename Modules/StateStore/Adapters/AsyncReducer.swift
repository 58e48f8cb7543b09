/// A reducer that computes the next state asynchronously: `reduce(state, action) async -> State`.
///
/// This is the shape of a minimal Redux store whose reducer may await (a validation, a call to a
/// service) and has no separate effects. Run it on a ``RootStore`` with
/// ``RootStore/init(initialState:asyncReducer:diagnostics:observation:middleware:)``: actions are reduced
/// strictly in order, each one starting from the state the previous one produced, while the
/// store stays observable and scoped like any other.
///
/// ```swift
/// struct SignInReducer: AsyncReducer {
///     enum State: Equatable, Sendable { case signedOut, signedIn(AuthSession), failed(AppError) }
///     enum Action: Sendable { case signIn(Credentials), signOut }
///
///     let auth: AuthClient
///
///     func reduce(_ state: State, _ action: Action) async -> State {
///         switch action {
///         case .signIn(let credentials):
///             do throws(AppError) { return .signedIn(try await auth.authenticate(credentials)) } catch { return .failed(error) }
///         case .signOut:
///             return .signedOut
///         }
///     }
/// }
/// ```
public protocol AsyncReducer<State, Action>: Sendable {
    /// The state.
    associatedtype State: Sendable
    /// The actions.
    associatedtype Action: Sendable

    /// Returns the state after `action`.
    func reduce(_ state: State, _ action: Action) async -> State
}
