/// Builds one reducer from a list of reducers, `if`, `if`/`else`, `for` loops and
/// availability checks; each listed reducer runs in order.
@resultBuilder
public enum ReducerBuilder<State: Sendable, Action: Sendable> {
    /// Accepts a reducer of the builder's state and action.
    public static func buildExpression<R: Reducer>(_ reducer: R) -> R where R.State == State, R.Action == Action {
        reducer
    }

    /// An empty block: a reducer that does nothing.
    public static func buildBlock() -> Empty {
        Empty()
    }

    /// The first reducer of a block.
    public static func buildPartialBlock<R: Reducer>(first: R) -> R where R.State == State, R.Action == Action {
        first
    }

    /// Appends the next reducer of a block.
    public static func buildPartialBlock<R0: Reducer, R1: Reducer>(accumulated: R0, next: R1) -> Sequence<R0, R1>
    where R0.State == State, R0.Action == Action, R1.State == State, R1.Action == Action {
        Sequence(first: accumulated, second: next)
    }

    // swift-format-ignore: UseShorthandTypeNames
    // (`Optional` here is this builder's reducer of that name, not `Swift.Optional`.)
    /// An `if` without `else`.
    public static func buildOptional<R: Reducer>(_ reducer: R?) -> Optional<R> where R.State == State, R.Action == Action {
        Optional(wrapped: reducer)
    }

    /// The `if` branch of an `if`/`else`.
    public static func buildEither<First: Reducer, Second: Reducer>(first: First) -> Either<First, Second>
    where First.State == State, First.Action == Action, Second.State == State, Second.Action == Action {
        Either(branch: .first(first))
    }

    /// The `else` branch of an `if`/`else`.
    public static func buildEither<First: Reducer, Second: Reducer>(second: Second) -> Either<First, Second>
    where First.State == State, First.Action == Action, Second.State == State, Second.Action == Action {
        Either(branch: .second(second))
    }

    /// The reducers produced by a `for` loop.
    public static func buildArray<R: Reducer>(_ reducers: [R]) -> Many<R> where R.State == State, R.Action == Action {
        Many(reducers: reducers)
    }

    /// A reducer inside `if #available`.
    public static func buildLimitedAvailability<R: Reducer>(_ reducer: R) -> Reduce<State, Action>
    where R.State == State, R.Action == Action {
        Reduce(reducer)
    }

    /// A reducer that changes nothing.
    public struct Empty: Reducer {
        /// A reducer that changes nothing, to compose others onto.
        public init() {}

        /// Returns no effect.
        public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
    }

    /// Two reducers run one after the other.
    public struct Sequence<R0: Reducer, R1: Reducer>: Reducer
    where R0.State == State, R0.Action == Action, R1.State == State, R1.Action == Action {
        let first: R0
        let second: R1

        /// Runs `first`, then `second`, merging their effects.
        public func reduce(into state: inout State, action: Action) -> Effect<Action> {
            let firstEffect = first.reduce(into: &state, action: action)
            return firstEffect.merge(with: second.reduce(into: &state, action: action))
        }
    }

    /// A reducer that may be absent.
    public struct Optional<R: Reducer>: Reducer where R.State == State, R.Action == Action {
        let wrapped: R?

        /// Runs the wrapped reducer, if any.
        public func reduce(into state: inout State, action: Action) -> Effect<Action> {
            wrapped?.reduce(into: &state, action: action) ?? .none
        }
    }

    /// One of two reducers, chosen when the builder ran.
    public struct Either<First: Reducer, Second: Reducer>: Reducer
    where First.State == State, First.Action == Action, Second.State == State, Second.Action == Action {
        enum Branch: Sendable {
            case first(First)
            case second(Second)
        }

        let branch: Branch

        /// Runs the chosen reducer.
        public func reduce(into state: inout State, action: Action) -> Effect<Action> {
            switch branch {
            case .first(let reducer): reducer.reduce(into: &state, action: action)
            case .second(let reducer): reducer.reduce(into: &state, action: action)
            }
        }
    }

    /// Reducers of one type, run in order.
    public struct Many<R: Reducer>: Reducer where R.State == State, R.Action == Action {
        let reducers: [R]

        /// Runs each reducer in order, merging their effects.
        public func reduce(into state: inout State, action: Action) -> Effect<Action> {
            var effect = Effect<Action>.none
            for reducer in reducers {
                effect = effect.merge(with: reducer.reduce(into: &state, action: action))
            }
            return effect
        }
    }
}

/// A reducer that changes nothing and returns no effect: the start of a composition made of
/// ``Reducer/ifLet(_:action:absentReason:then:)`` or ``Reducer/ifCaseLet(_:action:reportsOtherCases:absentReason:then:)``.
public typealias EmptyReducer<State: Sendable, Action: Sendable> = ReducerBuilder<State, Action>.Empty
