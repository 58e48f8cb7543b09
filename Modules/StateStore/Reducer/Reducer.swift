/// A feature's rules: how each action changes the state, and which effects follow.
public protocol Reducer<State, Action>: Sendable {
    /// The feature's state.
    associatedtype State: Sendable
    /// The events the feature handles.
    associatedtype Action: Sendable

    /// Applies `action` to `state` and returns the work to do next.
    func reduce(into state: inout State, action: Action) -> Effect<Action>
}

/// A reducer written as a closure.
public struct Reduce<State: Sendable, Action: Sendable>: Reducer {
    private let body: @Sendable (inout State, Action) -> Effect<Action>

    /// Creates a reducer from a closure.
    public init(_ reduce: @escaping @Sendable (_ state: inout State, _ action: Action) -> Effect<Action>) {
        body = reduce
    }

    /// Wraps another reducer, erasing its type.
    public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
        body = { reducer.reduce(into: &$0, action: $1) }
    }

    /// Calls the closure.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        body(&state, action)
    }
}

/// Runs several reducers on each action, in order, merging their effects.
public struct CombineReducers<State: Sendable, Action: Sendable, Reducers: Reducer>: Reducer
where Reducers.State == State, Reducers.Action == Action {
    private let reducers: Reducers

    /// Combines the reducers listed in `build`.
    public init(@ReducerBuilder<State, Action> _ build: () -> Reducers) {
        reducers = build()
    }

    /// Runs each reducer in order.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        reducers.reduce(into: &state, action: action)
    }
}
