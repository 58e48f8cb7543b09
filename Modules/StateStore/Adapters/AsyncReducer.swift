/// A reducer that computes the next state asynchronously: `reduce(state, action) async -> State`.
public protocol AsyncReducer<State, Action>: Sendable {
    /// The state.
    associatedtype State: Sendable
    /// The actions.
    associatedtype Action: Sendable

    /// Returns the state after `action`.
    func reduce(_ state: State, _ action: Action) async -> State
}
