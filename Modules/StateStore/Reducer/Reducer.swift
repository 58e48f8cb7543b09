/// A feature's rules: how each action changes the state, and which effects follow.
///
/// A reducer is synchronous and pure: given the same state and action it makes the same change
/// and returns the same effect, and it touches the outside world only by returning an
/// ``Effect``. Clients (a clock, a database, a network) are injected as the reducer's stored
/// properties when the store is built.
///
/// ```swift
/// struct Counter: Reducer {
///     struct State: Hashable, Sendable { var count = 0 }
///     enum Action: Hashable, Sendable { case incrementTapped, decrementTapped, resetTapped }
///
///     func reduce(into state: inout State, action: Action) -> Effect<Action> {
///         switch action {
///         case .incrementTapped: state.count += 1
///         case .decrementTapped: state.count = max(0, state.count - 1)
///         case .resetTapped: state.count = 0
///         }
///         return .none
///     }
/// }
/// ```
///
/// Compose reducers with ``CombineReducers``, ``Scope``, ``Reducer/ifLet(_:action:absentReason:then:)`` and
/// ``Reducer/forEach(_:action:element:)``.
public protocol Reducer<State, Action>: Sendable {
    /// The feature's state.
    associatedtype State: Sendable
    /// The events the feature handles.
    associatedtype Action: Sendable

    /// Applies `action` to `state` and returns the work to do next.
    func reduce(into state: inout State, action: Action) -> Effect<Action>
}

/// A reducer written as a closure.
///
/// ```swift
/// let counter = Reduce<Int, Counter.Action> { count, action in
///     count += 1
///     return .none
/// }
/// ```
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
///
/// ```swift
/// CombineReducers {
///     Scope(state: \.counter, action: AppAction.counterPath) { Counter() }
///     Reduce { state, action in .none }
/// }
/// ```
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
