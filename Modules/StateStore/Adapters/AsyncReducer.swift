/// A reducer that computes the next state asynchronously: `reduce(state, action) async -> State`.
///
/// This is the shape of a minimal Redux store whose reducer may await (a validation, a call to a
/// service) and has no separate effects. Run it on a ``RootStore`` with
/// ``RootStore/init(initialState:asyncReducer:diagnostics:observation:middleware:)``: actions are reduced
/// strictly in order, each one starting from the state the previous one produced, while the
/// store stays observable and scoped like any other.
///
/// ```swift
/// struct LoginReducer: AsyncReducer {
///     let auth: AuthClient
///     func reduce(_ state: LoginState, _ action: LoginAction) async -> LoginState {
///         switch action {
///         case .authenticate:
///             return (try? await auth.authenticate(state.credentials)) != nil ? .authenticated : .failure(.invalidCredentials)
///         ...
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
